#include "launcher/view/view_page_scripts.hpp"

// The roster's graph (view_page_scripts.hpp): a node per member and per delegated child, an edge
// per reachability and per delegation, the calls in flight drawn on their edges.
namespace mur::view_page::scripts {

const char graph[] = R"MURVIEW(
  // The graph's nodes and edges: every member in roster order, then each delegated child
  // (`capsule:<name>`) as its delegations name it; an edge per callee a member may call, per
  // delegation made and per call in flight.
  function graphModel(s) {
    const names = [];
    const add = (n) => { if (n && !names.includes(n)) names.push(n); };
    for (const m of s.members) add(m.name);
    const edges = new Map();
    const edge = (from, to, kind) => {
      if (!from || !to) return;
      add(from); add(to);
      const k = from + '\u0000' + to;
      if (!edges.has(k)) edges.set(k, { from, to, kind });
    };
    for (const m of s.members) for (const c of m.callees || []) edge(m.name, c, 'callee');
    for (const t of everyTask(s.tasks))
      for (const c of t.calls || []) if (c.kind === 'delegation') edge(c.caller || t.member, c.callee, 'delegation');
    for (const c of s.in_flight || []) edge(c.caller, c.callee, String(c.callee).startsWith('capsule:') ? 'delegation' : 'callee');
    return { names, edges: [...edges.values()] };
  }

  // Columns by call depth from the members nobody calls (the entry first), rows in roster
  // order: the same state always gives the same picture.
  function graphLayout(model) {
    const depth = new Map();
    const out = new Map(model.names.map((n) => [n, []]));
    const called = new Set();
    for (const e of model.edges) { out.get(e.from).push(e.to); if (e.from !== e.to) called.add(e.to); }
    const walk = (root) => {
      depth.set(root, 0);
      const queue = [root];
      while (queue.length) {
        const n = queue.shift();
        for (const m of out.get(n)) if (!depth.has(m)) { depth.set(m, depth.get(n) + 1); queue.push(m); }
      }
    };
    for (const n of model.names) if (!called.has(n) && !depth.has(n)) walk(n);
    for (const n of model.names) if (!depth.has(n)) walk(n); // a cycle nobody enters from outside
    const columns = [];
    for (const n of model.names) (columns[depth.get(n)] ||= []).push(n);
    const at = new Map();
    columns.forEach((col, x) => (col || []).forEach((n, y) => at.set(n, { x, y })));
    return { at, columns: columns.length, rows: Math.max(1, ...columns.map((c) => (c || []).length)) };
  }

  const G = { colW: 236, nodeW: 156, nodeH: 50, rowH: 68, pad: 14 };

  function drawGraph(s) {
    const model = graphModel(s);
    const layout = graphLayout(model);
    const width = G.pad * 2 + Math.max(1, layout.columns) * G.colW - (G.colW - G.nodeW);
    const height = G.pad * 2 + layout.rows * G.rowH - (G.rowH - G.nodeH) + 24;
    const root = svg('svg', { class: 'graph', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img' });
    const defs = svg('defs');
    for (const [id, cls] of [['arrow', 'arrow'], ['arrow-live', 'arrow live']]) {
      const m = svg('marker', { id, class: cls, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
      m.append(svg('path', { d: 'M0,0 L10,5 L0,10 z' }));
      defs.append(m);
    }
    root.append(defs);
    const pos = (n) => {
      const p = layout.at.get(n);
      return { x: G.pad + p.x * G.colW, y: G.pad + p.y * G.rowH };
    };
    const flying = new Map();
    for (const c of s.in_flight || []) flying.set(c.caller + '\u0000' + c.callee, c);
    const edgeLayer = svg('g', { class: 'edges' });
    for (const e of model.edges) {
      const a = pos(e.from), b = pos(e.to);
      let d;
      if (b.x > a.x) {
        const x1 = a.x + G.nodeW, y1 = a.y + G.nodeH / 2, x2 = b.x, y2 = b.y + G.nodeH / 2, mid = (x1 + x2) / 2;
        d = `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`;
      } else { // back to an earlier column (a cycle), or within one: an arc below
        const x1 = a.x + G.nodeW / 2 + 12, y1 = a.y + G.nodeH, x2 = b.x + G.nodeW / 2 - 12, y2 = b.y + G.nodeH;
        const low = Math.max(y1, y2) + 26;
        d = `M${x1},${y1} C${x1},${low} ${x2},${low} ${x2},${y2}`;
      }
      const live = flying.get(e.from + '\u0000' + e.to);
      const path = svg('path', { d, class: 'edge ' + e.kind + (live ? ' in-flight' : ''), 'data-from': e.from, 'data-to': e.to,
        'marker-end': `url(#${live ? 'arrow-live' : 'arrow'})` });
      tip(path, e.from + ' \u2192 ' + e.to + (live ? ': a call in flight, ' + live.status + ' \u201c' + short(live.text, 80) + '\u201d'
        : e.kind === 'delegation' ? ': delegates to it' : ': may call it'));
      edgeLayer.append(path);
    }
    root.append(edgeLayer);
    const members = new Map(s.members.map((m) => [m.name, m]));
    for (const n of model.names) {
      const p = pos(n), m = members.get(n);
      const running = m ? m.tasks.filter((t) => t.status === 'running').length : 0;
      const child = n.startsWith('capsule:');
      const g = svg('g', { class: 'node' + (running ? ' busy' : '') + (child ? ' child' : '') + (m ? '' : ' unseen'),
        'data-member': n, transform: `translate(${p.x},${p.y})` });
      g.append(svg('rect', { width: G.nodeW, height: G.nodeH, rx: 8, ry: 8 }));
      g.append(svgText({ x: 10, y: 20, class: 'name' }, short(n, 20)));
      const state = m ? m.state + (running ? ' \u00b7 ' + running + ' running' : '') : 'delegated child';
      g.append(svgText({ x: 10, y: 38, class: 'state' }, short(state, 24)));
      const usage = m && usageWords(m.usage);
      tip(g, n + (m && m.capsule ? ' (' + m.capsule + '@' + m.version + ')' : '') + ': ' + state + (usage ? '\nusage: ' + usage : ''));
      root.append(g);
    }
    $('graph').replaceChildren(root);
  }
)MURVIEW";

} // namespace mur::view_page::scripts
