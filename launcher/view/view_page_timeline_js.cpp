#include "launcher/view/view_page_scripts.hpp"

// The timeline (view_page_scripts.hpp): a row per member; on it a bar per task, per model
// request, per call and per tool call; what runs grows with the page's clock.
namespace mur::view_page::scripts {

const char timeline[] = R"MURVIEW(
  const T = { label: 130, rowH: 38, axis: 22, right: 14 };

  // When a bar ends: its duration, else now while the formation runs, else where it was cut.
  function barEnd(x, s, now) {
    if (x.duration_ms !== null && x.duration_ms !== undefined) return x.started_at + x.duration_ms;
    return s.running ? now : Math.max(x.started_at, now);
  }

  function drawTimeline(s) {
    const box = $('timeline');
    const tasks = everyTask(s.tasks);
    const rows = s.members.map((m) => m.name);
    for (const t of tasks) if (t.member && !rows.includes(t.member)) rows.push(t.member);
    const t0 = s.started_ms || Math.min(...tasks.map((t) => t.started_at), Date.now());
    let now = s.running ? serverNow() : s.now_ms;
    if (!s.running) { // an ended formation: up to the last end it recorded
      now = t0;
      for (const t of tasks) {
        if (t.duration_ms !== null) now = Math.max(now, t.started_at + t.duration_ms);
        for (const c of t.calls || []) if (c.duration_ms !== null) now = Math.max(now, c.started_at + c.duration_ms);
      }
    }
    const span = Math.max(200, now - t0);
    const width = Math.max(480, box.clientWidth || 900);
    const plot = width - T.label - T.right;
    const x = (at) => T.label + Math.max(0, Math.min(1, (at - t0) / span)) * plot;
    const w = (from, to) => Math.max(2, x(to) - x(from));
    const height = T.axis + Math.max(1, rows.length) * T.rowH + 4;
    const root = svg('svg', { class: 'timeline', width, height, viewBox: `0 0 ${width} ${height}` });
    for (let i = 0; i <= 5; i++) { // the axis: offsets from the first session's start
      const at = T.label + (plot * i) / 5;
      root.append(svg('line', { x1: at, x2: at, y1: T.axis - 4, y2: height, class: 'tick' }));
      root.append(svgText({ x: at, y: 12, class: 'tick-label', 'text-anchor': i === 0 ? 'start' : i === 5 ? 'end' : 'middle' },
        '+' + secs((span * i) / 5)));
    }
    const rowY = (member) => T.axis + rows.indexOf(member) * T.rowH;
    rows.forEach((name, i) => {
      const y = T.axis + i * T.rowH;
      root.append(svg('rect', { x: 0, y, width, height: T.rowH, class: 'row' + (i % 2 ? ' odd' : '') }));
      root.append(svgText({ x: 6, y: y + 16, class: 'row-label' }, short(name, 18)));
    });
    const bar = (cls, x1, y, x2, h, text, data) => {
      const r = svg('rect', { x: x(x1), y, width: w(x1, x2), height: h, rx: 2, class: 'bar ' + cls });
      for (const [k, v] of Object.entries(data || {})) r.setAttribute('data-' + k, v);
      root.append(tip(r, text));
      return r;
    };
    for (const t of tasks) {
      if (!rows.includes(t.member)) continue;
      const y = rowY(t.member);
      const end = barEnd(t, s, now);
      const r = bar('task ' + t.status, t.started_at, y + 5, end, 13,
        t.member + ' task ' + t.task_id + ': ' + t.status + ', ' + secs(end - t.started_at) + (t.duration_ms === null ? ' so far' : '') +
        '\n\u201c' + short(t.text, 120) + '\u201d\nclick: its transcript and usage',
        { 'task-id': t.task_id, member: t.member });
      r.addEventListener('click', () => showTask(t));
      for (const q of t.model_requests || [])
        bar('model ' + (q.decision || ''), q.started_at, y + 21, q.started_at + (q.duration_ms || 0), 6,
          'model request, turn ' + (q.turn + 1) + ' step ' + (q.step + 1) + (q.model ? ' \u00b7 ' + q.model : '') +
          ' \u00b7 ' + (q.decision || '?') + ' \u00b7 ' + (q.duration_ms === null ? 'duration n/a' : secs(q.duration_ms)) +
          ' \u00b7 tokens in ' + (q.input_tokens ?? 'n/a') + ' out ' + (q.output_tokens ?? 'n/a'),
          { 'task-id': t.task_id });
      for (const c of t.calls || []) {
        if (c.status === 'refused') continue;
        const kind = c.kind === 'tool' ? 'tool' : 'call';
        bar(kind + ' ' + c.status, c.started_at, y + 29, barEnd(c, s, now), 6,
          (kind === 'tool' ? 'tool ' + c.tool + ' (' + c.callee + ')' : c.caller + ' \u2192 ' + c.callee) + ': ' + c.status +
          (c.duration_ms === null ? '' : ', ' + secs(c.duration_ms)),
          { 'task-id': t.task_id, callee: c.callee });
      }
    }
    box.replaceChildren(root);
  }
)MURVIEW";

} // namespace mur::view_page::scripts
