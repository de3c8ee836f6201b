#include "launcher/view/view_page.hpp"

// The three files of the page, as they are served. Edit them here; each is a raw string.
namespace mur::view_page {

namespace {
constexpr const char html_text[] = R"MURVIEW(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mur view</title>
<link rel="stylesheet" href="/view.css">
<script src="/view.js" defer></script>
</head>
<body>
<header>
  <h1>mur view <span id="target"></span></h1>
  <span id="live" class="badge">connecting…</span>
</header>
<main>
  <section>
    <h2>Members</h2>
    <div id="members" class="members"></div>
  </section>
  <section>
    <h2>Calls in flight</h2>
    <ul id="in-flight" class="flight"><li class="none">none</li></ul>
  </section>
  <section>
    <h2>Tasks and calls <small>(offsets from the first session's start)</small></h2>
    <ul id="tree" class="tree"><li class="none">none yet</li></ul>
  </section>
</main>
</body>
</html>
)MURVIEW";
} // namespace

namespace {
constexpr const char css_text[] = R"MURVIEW(
:root { --fg: #1d232b; --dim: #65707d; --line: #d9dee4; --ok: #1a7f37; --run: #9a6700; --bad: #cf222e; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: #fff; }
header { display: flex; align-items: center; gap: 1em; padding: .6em 1.2em; border-bottom: 1px solid var(--line); background: var(--bg); }
h1 { font-size: 1.15em; margin: 0; }
h1 span { font: 500 .85em ui-monospace, monospace; color: var(--dim); }
h2 { font-size: 1em; margin: 1.2em 0 .5em; }
h2 small { font-weight: normal; color: var(--dim); }
main { padding: 0 1.2em 1.2em; }
.badge { padding: .1em .6em; border-radius: 1em; font-size: .85em; border: 1px solid var(--line); }
.badge.live { color: var(--run); border-color: var(--run); }
.badge.ended { color: var(--ok); border-color: var(--ok); }
.members { display: flex; flex-wrap: wrap; gap: .8em; }
.member { border: 1px solid var(--line); border-radius: 6px; padding: .5em .8em; min-width: 15em; max-width: 28em; flex: 1; }
.member h3 { margin: 0; font-size: 1em; }
.member .meta { color: var(--dim); font-size: .85em; }
.member ul { margin: .4em 0 0; padding-left: 1.1em; }
ul.flight, ul.tree, ul.tree ul { list-style: none; margin: 0; padding-left: 0; }
ul.tree ul { padding-left: 1.4em; border-left: 1px dotted var(--line); margin-left: .3em; }
li { margin: .15em 0; }
.none { color: var(--dim); }
.mono { font-family: ui-monospace, monospace; font-size: .9em; }
.status { font-weight: 600; }
.status.running { color: var(--run); }
.status.ok, .status.completed { color: var(--ok); }
.status.failed, .status.refused, .status.no_answer, .status.rejected, .status.timed_out, .status.abandoned { color: var(--bad); }
.text { color: var(--dim); }
.call { color: var(--fg); }
.ask { margin: .3em 0 .2em; padding: .4em .5em; border: 1px solid var(--run); border-radius: 4px; }
.ask .question { font-weight: 600; margin-bottom: .3em; }
.ask input { width: 70%; }
.ask .outcome { margin-left: .5em; color: var(--dim); }
.ask .outcome.bad { color: var(--bad); }
)MURVIEW";
} // namespace

namespace {
constexpr const char js_text[] = R"MURVIEW(
'use strict';
// mur view's page: the state comes whole, as JSON, in each event of the server's SSE stream
// (GET /events); the page fetches nothing else and polls nothing. A local timer only advances
// the elapsed times of what is running, from the server's clock at the last event. A task that
// waits on a question gets a text box: its Answer button POSTs /answer with the page's key.
(function () {
  const $ = (id) => document.getElementById(id);
  let clockSkew = 0; // server now − page now, at the last state
  let es = null;
  const key = new URLSearchParams(location.hash.slice(1)).get('key') || ''; // never sent to the server
  const drafts = {};   // task id → the text typed so far (kept across states)
  const outcomes = {}; // task id → what became of the last answer sent

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function secs(ms) { return (ms / 1000).toFixed(2) + 's'; }
  function short(text, n) {
    const one = String(text || '').replace(/\s+/g, ' ').trim();
    return one.length > n ? one.slice(0, n - 1) + '\u2026' : one;
  }
  function status(s) { return el('span', 'status ' + s, s); }
  function quote(text, n) { return text ? el('span', 'text', '\u201c' + short(text, n) + '\u201d') : ''; }
  function elapsed(startedAt, durationMs) {
    if (durationMs !== null && durationMs !== undefined) return el('span', 'mono', secs(durationMs));
    const e = el('span', 'mono ticking', '');
    e.dataset.startedAt = startedAt;
    tick(e);
    return e;
  }
  function tick(e) { e.textContent = secs(Math.max(0, Date.now() + clockSkew - Number(e.dataset.startedAt))) + ' so far'; }
  function replace(node, children, none) {
    node.replaceChildren(...(children.length ? children : [el('li', 'none', none)]));
  }

  function ask(t) {
    const box = el('div', 'ask');
    box.dataset.taskId = t.task_id;
    const input = el('input');
    input.type = 'text';
    input.placeholder = 'your answer';
    input.value = drafts[t.task_id] || '';
    input.addEventListener('input', () => { drafts[t.task_id] = input.value; });
    const button = el('button', '', 'Answer');
    button.type = 'button';
    const outcome = el('span', 'outcome', outcomes[t.task_id] || '');
    button.addEventListener('click', () => {
      if (!input.value.trim()) return;
      button.disabled = true;
      outcome.className = 'outcome';
      outcome.textContent = 'sending\u2026';
      fetch('/answer', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Mur-View-Key': key },
        body: JSON.stringify({ task_id: t.task_id, text: input.value, question: t.question }),
      }).then((r) => r.json().catch(() => ({})).then((j) => {
        outcomes[t.task_id] = r.ok ? 'answered' : 'not taken: ' + (j.error || r.status);
        if (r.ok) delete drafts[t.task_id];
        outcome.className = 'outcome' + (r.ok ? '' : ' bad');
        outcome.textContent = outcomes[t.task_id];
      }), (e) => {
        outcome.className = 'outcome bad';
        outcome.textContent = 'not sent: ' + e;
      }).finally(() => { button.disabled = false; });
    });
    box.append(el('div', 'question', t.question), input, ' ', button, outcome);
    return box;
  }

  function member(m) {
    const card = el('div', 'member');
    card.dataset.member = m.name;
    card.append(el('h3', '', m.name || m.capsule || '-'));
    const meta = [m.capsule ? m.capsule + '@' + m.version : '', m.state, m.callees.length ? 'may call ' + m.callees.join(', ') : '']
      .filter(Boolean).join(' \u00b7 ');
    card.append(el('div', 'meta', meta));
    const ul = el('ul');
    for (const t of m.tasks) {
      const li = el('li', 'task');
      li.append(el('span', 'mono', t.task_id.slice(0, 12) + '\u2026 '), status(t.status), ' ', elapsed(t.started_at, t.duration_ms),
        ' ', quote(t.text, 60));
      if (t.question) li.append(ask(t));
      ul.append(li);
    }
    if (!m.tasks.length) ul.append(el('li', 'none', 'no task'));
    card.append(ul);
    return card;
  }

  function callLi(cls, c) {
    const li = el('li', cls);
    li.dataset.caller = c.caller;
    li.dataset.callee = c.callee;
    return li;
  }

  function flight(c) {
    const li = callLi('call in-flight', c);
    li.append(el('b', '', c.caller + ' \u2192 ' + c.callee), ' ', status(c.status), ' ', elapsed(c.started_at, null),
      ' ', quote(c.text, 80));
    return li;
  }

  function taskItem(t) {
    const li = el('li', 'tree-task');
    li.dataset.member = t.member;
    const said = t.answer || t.reason;
    li.append(el('span', 'mono', '+' + secs(t.start_ms) + ' '), el('b', '', t.member || '-'), ' ', status(t.status), ' ',
      elapsed(t.started_at, t.duration_ms), ' ', el('span', 'text', '\u201c' + short(t.text, 80) + '\u201d' +
      (t.duration_ms === null ? '' : ' \u2192 \u201c' + short(said, 80) + '\u201d')));
    if (t.calls.length) {
      const ul = el('ul');
      for (const c of t.calls) ul.append(callItem(c));
      li.append(ul);
    }
    return li;
  }

  function callItem(c) {
    const li = callLi('tree-call', c);
    li.dataset.status = c.status;
    const what = c.tool === 'end-without-answer' ? c.caller + ' end-without-answer' : c.caller + ' \u2192 ' + c.callee;
    li.append(el('span', 'mono', '+' + secs(c.start_ms) + ' '), el('span', 'call', what), ' ', status(c.status));
    if (c.status !== 'refused') li.append(' ', elapsed(c.started_at, c.duration_ms));
    if (c.reason) li.append(' ', quote(c.reason, 80));
    if (c.tool === 'end-without-answer' && c.text) li.append(' (reason given: ', quote(c.text, 80), ')');
    if (c.task) {
      const ul = el('ul');
      ul.append(taskItem(c.task));
      li.append(ul);
    } else if (c.output) {
      li.append(' ', el('span', 'text', '\u2192 \u201c' + short(c.output, 80) + '\u201d'));
    }
    return li;
  }

  function render(s) {
    clockSkew = s.now_ms - Date.now();
    $('target').textContent = s.formation_id || s.session_id || '';
    const live = $('live');
    live.textContent = s.running ? 'running' : 'ended';
    live.className = 'badge ' + (s.running ? 'live' : 'ended');
    document.body.dataset.running = String(s.running);
    const typing = document.activeElement && document.activeElement.closest('.ask'); // keep the focus of a box
    const typingIn = typing ? typing.dataset.taskId : null;
    $('members').replaceChildren(...s.members.map(member));
    const again = typingIn && [...document.querySelectorAll('.ask')].find((b) => b.dataset.taskId === typingIn);
    if (again) again.querySelector('input').focus();
    replace($('in-flight'), s.in_flight.map(flight), 'none');
    replace($('tree'), s.tasks.map(taskItem), 'none yet');
  }

  function connect() {
    es = new EventSource('/events');
    es.onmessage = (e) => {
      const s = JSON.parse(e.data);
      render(s);
      if (!s.running) es.close(); // the last state: the server ends the stream
    };
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED) return;
      $('live').textContent = 'reconnecting…';
    };
  }

  setInterval(() => document.querySelectorAll('.ticking').forEach(tick), 250);
  connect();
})();
)MURVIEW";
} // namespace

std::string html() { return html_text; }
const char* css() { return css_text; }
const char* js() { return js_text; }

} // namespace mur::view_page
