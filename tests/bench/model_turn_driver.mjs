// model_turn_driver.mjs — drives one mur door whose member is an http model served by the
// replay server, and says how much time mur adds per model turn.
//
// It sends tasks one after another (blocking A2A SendMessage: the reply comes when the task has
// ended), then reads the replay server's record (/__replay/requests: for each chat request, when
// its head arrived and when the response's last byte left, in CLOCK_MONOTONIC ms, the clock
// process.hrtime reads here too). Per task, in arrival order of its requests:
//   between turns  response k's last byte → request k+1's arrival (mur read the answer, handed
//                  the tool result back, built and sent the next request)
//   to the end     the last response's last byte → the SendMessage reply's arrival here (mur
//                  ended the task and its door answered; an upper bound of mur's share)
// Prints count, median, p90 and max of each and of both together, in ms; the target they are
// read against is a median of at most 1 ms. Numbers, not a test: nothing passes or fails on speed.
//
// Usage: node model_turn_driver.mjs --door URL --replay BASE [--tasks N] [--warmup N] [--label S] [--json]

import http from 'node:http';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : process.argv[i + 1];
};
const door = arg('--door');
const replay = arg('--replay');
const tasks = Number(arg('--tasks', '200'));
const warmup = Number(arg('--warmup', '20'));
const label = arg('--label', 'mur');
const asJson = process.argv.includes('--json');
if (!door || !replay || !Number.isInteger(tasks) || tasks < 1 || !Number.isInteger(warmup) || warmup < 0) {
  process.stderr.write('usage: node model_turn_driver.mjs --door URL --replay BASE [--tasks N] [--warmup N] [--label S] [--json]\n');
  process.exit(2);
}
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

// One keep-alive connection, node:http (lighter than fetch): the end time is taken on the
// reply's last chunk, before anything is parsed.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function sendTask(n, text) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: n,
    method: 'SendMessage',
    params: { message: { messageId: `bench-${n}`, role: 'ROLE_USER', parts: [{ text }] } },
  });
  return new Promise((resolve, reject) => {
    const req = http.request(door, {
      method: 'POST',
      agent,
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', 'Content-Length': Buffer.byteLength(body) },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ended = nowMs();
        let state;
        try {
          const j = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          state = j.result?.task?.status?.state ?? j.result?.status?.state ?? (j.error ? `error ${j.error.code}` : 'unknown');
        } catch {
          state = `HTTP ${res.statusCode}`;
        }
        resolve({ ended, state });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
  return { count: s.length, median: s.length ? at(0.5) : NaN, p90: s.length ? at(0.9) : NaN, max: s.length ? s[s.length - 1] : NaN };
}

const ends = new Map();
const states = new Map();
for (let i = 0; i < warmup + tasks; ++i) {
  const text = i < warmup ? `warm-up task ${i}` : `bench task ${i - warmup}`;
  const { ended, state } = await sendTask(i + 1, text);
  ends.set(text, ended);
  states.set(state, (states.get(state) ?? 0) + 1);
}

const record = await (await fetch(`${replay}/__replay/requests`)).json();
const byTask = new Map();
for (const q of record) {
  const first = (q.body?.messages ?? []).find((m) => m.role === 'user');
  const text = typeof first?.content === 'string' ? first.content : '';
  if (!text.startsWith('bench task ')) continue;
  if (!byTask.has(text)) byTask.set(text, []);
  byTask.get(text).push(q);
}

const between = [];
const toEnd = [];
let requests = 0;
let incomplete = 0;
for (const [text, qs] of byTask) {
  qs.sort((a, b) => a.arrived_ms - b.arrived_ms);
  requests += qs.length;
  if (qs.some((q) => q.last_byte_ms === null || q.status !== 200)) {
    ++incomplete;
    continue;
  }
  for (let k = 1; k < qs.length; ++k) between.push(qs[k].arrived_ms - qs[k - 1].last_byte_ms);
  toEnd.push(ends.get(text) - qs[qs.length - 1].last_byte_ms);
}

const result = {
  label,
  tasks,
  task_states: Object.fromEntries(states),
  requests_per_task: byTask.size ? requests / byTask.size : 0,
  tasks_with_a_failed_request: incomplete,
  between_turns_ms: stats(between),
  to_task_end_ms: stats(toEnd),
  all_turns_ms: stats([...between, ...toEnd]),
};
const f = (x) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
const row = (name, s) => `  ${name.padEnd(44)} ${String(s.count).padStart(6)} ${f(s.median).padStart(9)} ${f(s.p90).padStart(9)} ${f(s.max).padStart(9)}`;
console.log(`${label}: ${tasks} tasks (+${warmup} warm-up), task states ${JSON.stringify(result.task_states)}, ` +
  `${result.requests_per_task.toFixed(2)} model requests per task, ${incomplete} tasks with a failed request left out`);
console.log(`  ${'time mur adds (ms)'.padEnd(44)} ${'count'.padStart(6)} ${'median'.padStart(9)} ${'p90'.padStart(9)} ${'max'.padStart(9)}`);
console.log(row("server's last byte → mur's next request", result.between_turns_ms));
console.log(row("server's last byte → the task's answer here", result.to_task_end_ms));
console.log(row('every model turn', result.all_turns_ms));
if (!result.all_turns_ms.count) console.log('  no model turn was measured: did the tasks reach the replay server? (see the task states)');
else
  console.log(`  target: median of every model turn ≤ 1 ms: ${result.all_turns_ms.median <= 1 ? 'met' : 'NOT met'} ` +
    `(${f(result.all_turns_ms.median)} ms)`);
if (asJson) console.log(JSON.stringify(result));
