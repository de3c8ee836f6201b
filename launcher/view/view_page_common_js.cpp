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
  function usageWords(u) {
    if (!u || typeof u !== 'object') return null;
    const words = [];
    for (const [key, name] of usageNames) {
      if (!(key in u)) continue;
      const v = u[key];
      const shown = v === null || v === undefined ? 'n/a'
        : typeof v === 'number' ? (key === 'cost' ? v.toFixed(4) : String(v))
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
