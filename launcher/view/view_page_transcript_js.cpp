#include "launcher/view/view_page_scripts.hpp"

// A task's panel (view_page_scripts.hpp): what the tree knows of it (status, times, usage) and
// its transcript, fetched from GET /transcript with the page's key.
namespace mur::view_page::scripts {

const char transcript[] = R"MURVIEW(
  let shownTask = null; // the task id the panel shows

  function pretty(args) { // a tool call's arguments: indented when they are JSON, else as sent
    try { return JSON.stringify(JSON.parse(args), null, 2); } catch (e) { return String(args); }
  }

  // One message; `task`: the first user message (the task; later ones carry answers back).
  function message(m, last, task) {
    const answer = last && m.role === 'assistant' && !(m.tool_calls || []).length;
    const box = el('div', 'msg ' + m.role + (answer ? ' answer' : ''));
    const label = m.role === 'tool' ? 'tool result' + (m.tool_call_id ? ' \u00b7 ' + m.tool_call_id : '')
      : answer ? 'assistant \u00b7 answer' : task ? 'user \u00b7 task' : m.role;
    box.append(el('div', 'role', label));
    if (m.content) box.append(el('pre', 'content', m.content));
    for (const c of m.tool_calls || []) {
      const call = el('div', 'tool-call');
      call.append(el('div', 'tool-name', '\u2192 ' + c.name + (c.id ? ' \u00b7 ' + c.id : '')), el('pre', 'args', pretty(c.arguments)));
      box.append(call);
    }
    return box;
  }

  function transcriptBody(doc) {
    const list = el('div', 'messages');
    const ms = Array.isArray(doc.messages) ? doc.messages : [];
    if (doc.messages_left_out) list.append(el('p', 'note', doc.messages_left_out + ' older message(s) were left out (the blob is capped)'));
    const first = ms.findIndex((m) => m.role === 'user');
    ms.forEach((m, i) => list.append(message(m, i === ms.length - 1, i === first)));
    if (doc.texts_cut) list.append(el('p', 'note', doc.texts_cut + ' text(s) were cut at 64 KiB'));
    return list;
  }

  function showTask(t) {
    shownTask = t.task_id;
    const panel = $('detail');
    panel.hidden = false;
    panel.dataset.taskId = t.task_id;
    panel.dataset.status = t.status;
    const head = el('div', 'detail-head');
    const close = el('button', 'close', 'close');
    close.type = 'button';
    close.addEventListener('click', () => { panel.hidden = true; shownTask = null; });
    head.append(el('h2', '', (t.member || '-') + ' \u00b7 task '), el('span', 'mono', t.task_id), ' ', status(t.status), ' ',
      el('span', 'mono', t.duration_ms === null ? 'running' : secs(t.duration_ms)), close);
    const facts = el('dl', 'facts');
    const fact = (k, v) => { if (v) facts.append(el('dt', '', k), el('dd', '', v)); };
    fact('task', t.text);
    fact(t.answer ? 'answer' : 'reason', t.answer || t.reason);
    fact('usage', usageWords(t.usage) || 'n/a');
    fact('own usage', usageWords(t.own_usage));
    fact('model requests', (t.model_requests || []).length ? String(t.model_requests.length) : '');
    const body = el('div', 'transcript', 'loading the transcript\u2026');
    panel.replaceChildren(head, facts, el('h3', '', 'Transcript'), body);
    panel.scrollIntoView({ block: 'nearest' });
    fetch('/transcript?task=' + encodeURIComponent(t.task_id), { headers: { 'X-Mur-View-Key': key } })
      .then((r) => r.json().catch(() => ({})).then((j) => ({ ok: r.ok, j })))
      .then(({ ok, j }) => {
        if (shownTask !== t.task_id) return;
        if (ok) body.replaceChildren(transcriptBody(j));
        else body.replaceChildren(el('p', 'note missing', j.error || 'no transcript'));
      }, (e) => { if (shownTask === t.task_id) body.replaceChildren(el('p', 'note missing', 'not fetched: ' + e)); });
  }
)MURVIEW";

} // namespace mur::view_page::scripts
