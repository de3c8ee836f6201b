#include "launcher/view/view_page.hpp"

#include "launcher/view/view_page_scripts.hpp"

// The three files of the page, as they are served: the HTML, the stylesheet and the main part of
// the script are raw strings here; the script's other parts are in view_page_*_js.cpp.
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
  <div class="top">
    <section class="graph-box">
      <h2>Who calls whom <small>(calls in flight are drawn moving)</small></h2>
      <div id="graph"></div>
    </section>
    <section class="flight-box">
      <h2>Calls in flight</h2>
      <ul id="in-flight" class="flight"><li class="none">none</li></ul>
      <p id="usage" class="usage"></p>
    </section>
  </div>
  <section>
    <h2>Timeline <small>(a row per member: tasks, model requests, calls and tool calls; click a task for its transcript)</small></h2>
    <div id="timeline"></div>
  </section>
  <section id="detail" class="detail" hidden></section>
  <section>
    <h2>Members</h2>
    <div id="members" class="members"></div>
  </section>
  <section>
    <h2>Tasks and calls <small>(offsets from the first session's start; click a task for its transcript)</small></h2>
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
.top { display: flex; flex-wrap: wrap; gap: 1.2em; align-items: flex-start; }
.graph-box { flex: 0 1 auto; max-width: 100%; overflow-x: auto; }
.flight-box { flex: 1 1 18em; }
.usage { color: var(--dim); font-size: .9em; }
svg { font: 12px system-ui, sans-serif; }
svg.graph .node rect { fill: #fff; stroke: #8c959f; stroke-width: 1.2; }
svg.graph .node.busy rect { stroke: var(--run); stroke-width: 2; fill: #fff8e5; }
svg.graph .node.child rect { stroke-dasharray: 4 3; fill: var(--bg); }
svg.graph .node.unseen rect { fill: var(--bg); }
svg.graph .node .name { font-weight: 600; fill: var(--fg); }
svg.graph .node .state { fill: var(--dim); font-size: 11px; }
svg.graph .edge { fill: none; stroke: #afb8c1; stroke-width: 1.5; }
svg.graph .edge.delegation { stroke-dasharray: 5 4; }
svg.graph .edge.in-flight { stroke: var(--run); stroke-width: 3; stroke-dasharray: 8 6; animation: flow 0.9s linear infinite; }
svg.graph marker.arrow path { fill: #afb8c1; }
svg.graph marker.arrow.live path { fill: var(--run); }
@keyframes flow { to { stroke-dashoffset: -14; } }
@media (prefers-reduced-motion: reduce) { svg.graph .edge.in-flight { animation: none; } }
#timeline { width: 100%; overflow-x: auto; }
svg.timeline .row { fill: #fff; }
svg.timeline .row.odd { fill: var(--bg); }
svg.timeline .row-label { fill: var(--fg); font-weight: 600; }
svg.timeline .tick { stroke: var(--line); }
svg.timeline .tick-label { fill: var(--dim); font-size: 11px; }
svg.timeline .bar.task { fill: #54aeff; cursor: pointer; }
svg.timeline .bar.task:hover { fill: #0969da; }
svg.timeline .bar.task.running { fill: #d4a72c; }
svg.timeline .bar.task.failed, svg.timeline .bar.task.canceled, svg.timeline .bar.task.timed_out { fill: var(--bad); }
svg.timeline .bar.model { fill: #8250df; }
svg.timeline .bar.model.error { fill: var(--bad); }
svg.timeline .bar.call { fill: #6e7781; }
svg.timeline .bar.call.running { fill: var(--run); }
svg.timeline .bar.tool { fill: #1a7f37; }
.clickable { cursor: pointer; }
.clickable:hover { text-decoration: underline; }
.detail { border: 1px solid var(--line); border-radius: 6px; padding: .4em 1em 1em; margin-top: 1em; background: #fff; }
.detail-head { display: flex; align-items: baseline; gap: .4em; flex-wrap: wrap; }
.detail-head h2 { margin: .6em 0 .3em; }
.detail-head .close { margin-left: auto; }
.detail h3 { font-size: .95em; margin: .8em 0 .4em; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15em 1em; margin: .3em 0; }
.facts dt { color: var(--dim); }
.facts dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.messages { display: flex; flex-direction: column; gap: .5em; }
.msg { border-left: 4px solid var(--line); padding: .2em .7em; background: var(--bg); border-radius: 0 4px 4px 0; }
.msg.system { border-color: #8c959f; }
.msg.user { border-color: #0969da; }
.msg.assistant { border-color: #8250df; }
.msg.tool { border-color: #1a7f37; }
.msg.answer { border-color: var(--ok); background: #eefbf0; }
.msg .role { font-size: .8em; font-weight: 600; color: var(--dim); text-transform: uppercase; letter-spacing: .03em; }
.msg pre { margin: .2em 0; white-space: pre-wrap; overflow-wrap: anywhere; font: .9em/1.4 ui-monospace, monospace; max-height: 22em; overflow-y: auto; }
.tool-call { margin: .3em 0 .2em .5em; }
.tool-name { font-family: ui-monospace, monospace; font-size: .9em; color: #8250df; }
.note { color: var(--dim); font-style: italic; }
.note.missing { color: var(--run); font-style: normal; }
)MURVIEW";
} // namespace

namespace {
constexpr const char js_text[] = R"MURVIEW(

// mur view's page: the state comes whole, as JSON, in each event of the server's SSE stream
// (GET /events); the page polls nothing. A local timer advances the elapsed times and the
// timeline of what is running, from the server's clock at the last event. A task that waits on
// a question gets a text box: its Answer button POSTs /answer with the page's key; a click on a
// task GETs its transcript (/transcript, with the same key). The helpers, the graph, the
// timeline and the transcript panel come before this part (view_page_scripts.hpp).
  let es = null;
  let lastState = null;
  const drafts = {};   // task id → the text typed so far (kept across states)
  const outcomes = {}; // task id → what became of the last answer sent

  function quote(text, n) { return text ? el('span', 'text', '\u201c' + short(text, n) + '\u201d') : ''; }
  function elapsed(startedAt, durationMs) {
    if (durationMs !== null && durationMs !== undefined) return el('span', 'mono', secs(durationMs));
    const e = el('span', 'mono ticking', '');
    e.dataset.startedAt = startedAt;
    tick(e);
    return e;
  }
  function tick(e) { e.textContent = secs(Math.max(0, serverNow() - Number(e.dataset.startedAt))) + ' so far'; }
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
    const usage = usageWords(m.usage);
    if (usage) card.append(el('div', 'meta usage', 'usage: ' + usage));
    const ul = el('ul');
    for (const t of m.tasks) {
      const li = el('li', 'task');
      const id = el('span', 'mono clickable', t.task_id.slice(0, 12) + '\u2026 ');
      id.addEventListener('click', () => showTask(treeTask(t.task_id) || t));
      li.append(id, status(t.status), ' ', elapsed(t.started_at, t.duration_ms),
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
    li.dataset.taskId = t.task_id;
    const said = t.answer || t.reason;
    const line = el('span', 'task-line clickable');
    line.addEventListener('click', () => showTask(t));
    line.append(el('span', 'mono', '+' + secs(t.start_ms) + ' '), el('b', '', t.member || '-'), ' ', status(t.status), ' ',
      elapsed(t.started_at, t.duration_ms), ' ', el('span', 'text', '\u201c' + short(t.text, 80) + '\u201d' +
      (t.duration_ms === null ? '' : ' \u2192 \u201c' + short(said, 80) + '\u201d')));
    li.append(line);
    const usage = usageWords(t.usage);
    if (usage) li.append(' ', el('span', 'usage', usage));
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

  // The tree's object of a task (it has the calls, model requests and usage a member card lacks).
  function treeTask(id) { return lastState && everyTask(lastState.tasks).find((t) => t.task_id === id); }

  function render(s) {
    clockSkew = s.now_ms - Date.now();
    lastState = s;
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
    const usage = usageWords(s.usage);
    $('usage').textContent = usage ? 'formation usage: ' + usage : '';
    drawGraph(s);
    drawTimeline(s);
    const open = $('detail').dataset.taskId;
    if (!$('detail').hidden && open) { // the panel follows its task (an end brings its transcript)
      const t = treeTask(open);
      if (t && t.status !== $('detail').dataset.status) showTask(t);
    }
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

  setInterval(() => {
    document.querySelectorAll('.ticking').forEach(tick);
    if (lastState && lastState.running) drawTimeline(lastState);
  }, 250);
  window.addEventListener('resize', () => { if (lastState) drawTimeline(lastState); });
  connect();
)MURVIEW";
} // namespace

std::string html() { return html_text; }
const char* css() { return css_text; }
std::string js() {
  std::string out = "'use strict';\n(function () {\n";
  for (const char* part : {scripts::common, scripts::graph, scripts::timeline, scripts::transcript, js_text}) out += part;
  return out + "})();\n";
}

} // namespace mur::view_page
