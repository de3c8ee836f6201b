#include "launcher/view/view_page_scripts.hpp"

// The helpers every part of the page's script uses (view_page_scripts.hpp).
namespace mur::view_page::scripts {

const char common[] = R"MURVIEW(
  const $ = (id) => document.getElementById(id);
  const SVG_NS = 'http://www.w3.org/2000/svg';
  let clockSkew = 0; // server now − page now, at the last state
  const key = new URLSearchParams(location.hash.slice(1)).get('key') || ''; // never sent but as a header
  const serverNow = () => Date.now() + clockSkew;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // An SVG element with its attributes (never its text: that is set with textContent).
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    return e;
  }
  function svgText(attrs, text) {
    const t = svg('text', attrs);
    t.textContent = text;
    return t;
  }
  function tip(node, text) { // a hover text, as SVG's <title>
    const t = svg('title');
    t.textContent = text;
    node.append(t);
    return node;
  }
  function secs(ms) { return (ms / 1000).toFixed(2) + 's'; }
  function short(text, n) {
    const one = String(text || '').replace(/\s+/g, ' ').trim();
    return one.length > n ? one.slice(0, n - 1) + '\u2026' : one;
  }
  function status(s) { return el('span', 'status ' + s, s); }

  // A usage object ({input_tokens, output_tokens, reasoning_tokens, model_requests, tool_calls,
  // calls, cost}, each null when unknown; older traces: {tokens, …}) as words; null when absent.
  const usageNames = [['input_tokens', 'in'], ['output_tokens', 'out'], ['reasoning_tokens', 'reasoning'],
    ['tokens', 'tokens'], ['model_requests', 'requests'], ['tool_calls', 'tool calls'], ['calls', 'calls'], ['cost', 'cost']];
  // A cost as mur trace show prints it (messages/vocabulary/token_price.cpp): up to 6 decimals,
  // trailing zeros dropped down to 2, "<0.000001" for a cost above 0 that rounds to nothing.
  function costWords(c) {
    let s = c.toFixed(6);
    if (c > 0 && s === '0.000000') return '<0.000001';
    while (s.endsWith('0') && s.length - s.indexOf('.') > 3) s = s.slice(0, -1);
    return s;
  }
  function usageWords(u) {
    if (!u || typeof u !== 'object') return null;
    const words = [];
    // `tokens` is the budget's count, 0 when no server reported any: n/a then, as trace show says.
    const unreported = u.input_tokens === null && typeof u.model_requests === 'number' && u.model_requests > 0;
    for (const [key, name] of usageNames) {
      if (!(key in u)) continue;
      const v = key === 'tokens' && unreported ? null : u[key];
      const shown = v === null || v === undefined ? 'n/a'
        : typeof v === 'number' ? (key === 'cost' ? costWords(v) : String(v))
        : typeof v === 'string' ? v : 'n/a';
      words.push(name + ' ' + shown);
    }
    return words.length ? words.join(' \u00b7 ') : null;
  }

  // Every task of the tree, depth first, each with its depth.
  function everyTask(tasks, out, depth) {
    out = out || [];
    for (const t of tasks || []) {
      out.push(t);
      for (const c of t.calls || []) if (c.task) everyTask([c.task], out, (depth || 0) + 1);
    }
    return out;
  }
)MURVIEW";

} // namespace mur::view_page::scripts
