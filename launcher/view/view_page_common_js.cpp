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

  // A cost as mur trace show prints it (messages/vocabulary/token_price.cpp): up to 6 decimals,
  // trailing zeros dropped down to 2, "<0.000001" for a cost above 0 that rounds to nothing.
  function costWords(c) {
    let s = c.toFixed(6);
    if (c > 0 && s === '0.000000') return '<0.000001';
    while (s.endsWith('0') && s.length - s.indexOf('.') > 3) s = s.slice(0, -1);
    return s;
  }
  const isNumber = (v) => typeof v === 'number' && isFinite(v);
  const grouped = (n) => n.toLocaleString('en-US');
  // A usage object ({tokens, input_tokens, output_tokens, reasoning_tokens, model_requests,
  // tool_calls, calls, cost}, a count null when unknown; older traces: {tokens, …}) as words, the
  // tokens worded as mur trace show words them (launcher/traces/trace_usage.cpp): "1,200 tokens
  // (1,000 in + 200 out, 50 reasoning)", or "n/a tokens" when no server reported any; the cost
  // only when it is known. null when there is no usage.
  function usageWords(u) {
    if (!u || typeof u !== 'object') return null;
    const words = [];
    const tokens = isNumber(u.tokens) ? u.tokens : 0;
    const plural = (n) => grouped(n) + (n === 1 ? ' token' : ' tokens');
    if (isNumber(u.input_tokens) && isNumber(u.output_tokens)) {
      let w = plural(tokens);
      if (u.model_requests !== 0 || tokens !== 0) {
        w += ' (' + grouped(u.input_tokens) + ' in + ' + grouped(u.output_tokens) + ' out';
        if (isNumber(u.reasoning_tokens)) w += ', ' + grouped(u.reasoning_tokens) + ' reasoning';
        w += ')';
      }
      words.push(w);
    } else {
      words.push(tokens > 0 ? plural(tokens) : 'n/a tokens');
    }
    if (isNumber(u.model_requests)) words.push('requests ' + u.model_requests);
    if (isNumber(u.tool_calls)) words.push('tool calls ' + u.tool_calls);
    if (isNumber(u.calls)) words.push('calls ' + u.calls);
    if (isNumber(u.cost)) words.push('cost ' + costWords(u.cost));
    return words.join(' \u00b7 ');
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
