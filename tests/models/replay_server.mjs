#!/usr/bin/env node
// replay_server.mjs — an OpenAI-compatible Chat Completions server that answers from recorded
// bytes (the fixtures in ./fixtures, described by fixtures/fixtures.json) or, for a scenario
// (fixtures/scenarios.json, made by ./scenario.mjs), with a completion made from rules that read
// the request, so a whole formation of http members can be driven end to end.
//
// Invariant: a fixture's response body is its file's bytes exactly, unchanged (a streamed one is
// written one SSE event at a time, so clients meet real chunking; a scripted `die_after_bytes`
// fault writes that many bytes of it and then cuts the connection). It listens on 127.0.0.1
// only, sends nothing anywhere, keeps no state but per-entry request counts (for scripted
// faults), the gates a test opened, and the requests it received, and ends on SIGINT/SIGTERM or
// `POST /__replay/stop`. It never records a key: only whether a bearer came.
//
// Usage: node replay_server.mjs [--port N] [--event-delay-ms N]
//   Prints the endpoint (base URL before /chat/completions) as its first stdout line:
//   `http://127.0.0.1:PORT/v1`.
// Routes:
//   POST <any base>/chat/completions   the replay (a request picks an entry by its `model`, or
//                                      by a marker [replay:NAME] in its last user message;
//                                      fixture entries first, then scenarios)
//   GET  <any base>/models             the entries and scenarios, as an OpenAI model list
//   GET  /__replay/requests            every request so far, in arrival order: {path, model,
//                                      entry, body, authorization: "none"|"bearer" (never the key
//                                      itself), state (a scenario's conversation state),
//                                      status (the HTTP status answered, 0 for none),
//                                      client_closed and streamed_bytes (an endless fault),
//                                      arrived_ms, last_byte_ms}
//   POST /__replay/release?gate=NAME   opens gate NAME: every response held by a rule with
//                                      `hold: NAME` goes on, and later ones are not held
//   POST /__replay/reset               forgets the counts, the requests and the opened gates
//   POST /__replay/stop                ends the server
// Times: `arrived_ms` is when the request's head arrived, `last_byte_ms` when the response's
// last byte was handed to the kernel (null while none was, or never for a hang; a cut stream's
// is the cut), both in milliseconds of CLOCK_MONOTONIC (process.hrtime), so they compare with
// any other process's monotonic clock on this machine (tests/bench/run_model_turn_overhead.sh).
// Node >= 20; no dependencies.

import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  assistantMessage, checkScenarios, completionBody, completionEvents, conversationOf, pickRule,
} from './scenario.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const fixturesDir = join(here, 'fixtures');

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 0) {
    process.stderr.write(`replay_server: ${name} needs a whole number\n`);
    process.exit(2);
  }
  return v;
}

const port = option('--port', 0);
const eventDelayMs = option('--event-delay-ms', 0);
const maxBodyBytes = 4 * 1024 * 1024;
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

const index = JSON.parse(readFileSync(join(fixturesDir, 'fixtures.json'), 'utf8'));
const scenarios = JSON.parse(readFileSync(join(fixturesDir, 'scenarios.json'), 'utf8')).scenarios;
try {
  checkScenarios(scenarios, Object.keys(index.models));
} catch (err) {
  process.stderr.write(`replay_server: fixtures/scenarios.json: ${err.message}\n`);
  process.exit(2);
}
const fileCache = new Map();
function fixtureBytes(file) {
  if (!fileCache.has(file)) fileCache.set(file, readFileSync(join(fixturesDir, file)));
  return fileCache.get(file);
}

// An entry with `use` resolved: a fixture's to the bodies it borrows, a scenario's to its own
// rules followed by the borrowed scenario's.
function entry(name) {
  const e = index.models[name];
  if (e) {
    const bodies = e.use ? index.models[e.use] : e;
    return { name, ...e, plain: bodies.plain, stream: bodies.stream };
  }
  const s = scenarios[name];
  if (!s) return undefined;
  const base = s.use ? scenarios[s.use] : {};
  return { name, ...base, ...s, scenario: true, rules: [...(s.rules ?? []), ...(base.rules ?? [])] };
}

const counts = new Map();
let received = [];
const hanging = new Set();
const gates = new Map(); // name → {open, waiters}

function gate(name) {
  if (!gates.has(name)) gates.set(name, { open: false, waiters: [] });
  return gates.get(name);
}

function passGate(name) {
  const g = gate(name);
  if (g.open) return Promise.resolve();
  return new Promise((ok) => g.waiters.push(ok));
}

// Notes when the response's last byte left, right after the call that wrote it: end() hands
// what it holds to the kernel at once unless the socket is full, and then the time is taken when
// the rest has gone ('finish'). (The callback alone can run late on a busy machine, which
// would make the client look quicker than it is.)
function noteLastByte(res, record) {
  const t = nowMs();
  if ((res.socket?.writableLength ?? 0) === 0) record.last_byte_ms = t;
  else res.once('finish', () => { record.last_byte_ms = nowMs(); });
}

// Writes the whole response and notes when its last byte left.
function finish(res, record, status, headers, body) {
  record.status = status;
  res.writeHead(status, headers);
  res.end(body);
  noteLastByte(res, record);
}

function sendJson(res, record, status, value, headers = {}) {
  const body = Buffer.from(JSON.stringify(value));
  finish(res, record, status, { 'Content-Type': 'application/json', 'Content-Length': body.length, ...headers }, body);
}

function sendError(res, record, status, message, type, code) {
  sendJson(res, record, status, { error: { message, type, param: null, code } });
}

function sendBytes(res, record, status, body, headers = {}) {
  finish(res, record, status, { 'Content-Type': 'application/json', 'Content-Length': body.length, ...headers }, body);
}

function sendFile(res, record, status, file, headers = {}) {
  sendBytes(res, record, status, fixtureBytes(file), headers);
}

// The SSE events of a fixture, each with its closing blank line, in order; together the file.
function sseEvents(bytes) {
  const text = bytes.toString('latin1');
  const events = [];
  let at = 0;
  for (let end; (end = text.indexOf('\n\n', at)) >= 0; at = end + 2) events.push(bytes.subarray(at, end + 2));
  if (at < bytes.length) events.push(bytes.subarray(at));
  return events;
}

async function sendStream(res, record, events, dieAfterBytes) {
  record.status = 200;
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  let sent = 0;
  for (const event of events) {
    if (dieAfterBytes !== undefined && sent + event.length > dieAfterBytes) {
      const part = event.subarray(0, dieAfterBytes - sent);
      if (part.length) await new Promise((ok) => res.write(part, ok));
      record.last_byte_ms = nowMs();
      res.socket?.destroy();
      return;
    }
    await new Promise((ok) => res.write(event, ok));
    sent += event.length;
    if (eventDelayMs) await sleep(eventDelayMs);
    else await new Promise((ok) => setImmediate(ok));
  }
  res.end();
  noteLastByte(res, record);
}

function lastUserText(messages) {
  if (!Array.isArray(messages)) return '';
  for (let i = messages.length - 1; i >= 0; --i) {
    const m = messages[i];
    if (m && m.role === 'user') {
      if (typeof m.content === 'string') return m.content;
      if (Array.isArray(m.content)) return m.content.map((p) => (p && typeof p.text === 'string' ? p.text : '')).join('');
    }
  }
  return '';
}

function hang(res) {
  hanging.add(res);
  res.on('close', () => hanging.delete(res));
}

// `{stream_error: TEXT}`: a 200 event stream whose first chunk is followed by an error event
// `data: {"error": {"message": TEXT}}`, TEXT with `{{bearer}}` replaced by the bearer key the
// request carried (a server that quotes the key back).
async function sendStreamError(res, record, text, auth) {
  const bearer = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : '';
  const message = text.replaceAll('{{bearer}}', bearer);
  const first = { id: 'chatcmpl-replay-err', object: 'chat.completion.chunk', created: 0, model: 'replay',
    choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] };
  record.status = 200;
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  await new Promise((ok) => res.write(`data: ${JSON.stringify(first)}\n\n`, ok));
  await new Promise((ok) => res.write(`data: ${JSON.stringify({ error: { message, type: 'invalid_request_error' } })}\n\n`, ok));
  res.end();
  noteLastByte(res, record);
}

// `{endless: "text"|"reasoning"|"arguments"|"event"}`: a 200 event stream that never ends on its
// own — content deltas, reasoning_content deltas or one tool call's argument deltas of 64 KiB
// each, or one event whose data line never ends — until the client closes the connection, which
// the record notes as `client_closed: true` with the bytes written (`streamed_bytes`).
async function sendEndless(res, record, kind) {
  record.status = 200;
  record.client_closed = false;
  record.streamed_bytes = 0;
  let open = true;
  res.on('close', () => {
    open = false;
    record.client_closed = true;
    record.last_byte_ms = nowMs();
  });
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const piece = 'x'.repeat(64 * 1024);
  const chunk = (delta) => `data: ${JSON.stringify({ id: 'chatcmpl-replay-endless', object: 'chat.completion.chunk',
    created: 0, model: 'replay', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
  const each = kind === 'event' ? piece
    : kind === 'reasoning' ? chunk({ reasoning_content: piece })
    : kind === 'arguments' ? chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] })
    : chunk({ content: piece });
  if (kind === 'event') await new Promise((ok) => res.write('data: ', ok));
  if (kind === 'arguments')
    await new Promise((ok) => res.write(chunk({ tool_calls: [{ index: 0, id: 'call_endless', type: 'function',
      function: { name: 'call-member', arguments: '' } }] }), ok));
  // A client that stops reading is waited for ('drain'); one that closes ends the loop.
  for (let i = 0; open && i < 1e6; ++i) {
    record.streamed_bytes += each.length;
    if (!res.write(each)) await new Promise((ok) => { res.once('drain', ok); res.once('close', ok); });
  }
  if (open) res.end();
}

// A scripted fault ({status, body, headers} | {hang} | {die_after_bytes} | {stream_error} |
// {endless}) that ends the answer here; true when it did. die_after_bytes is left to the caller
// (it cuts the answer's bytes).
function applyFault(res, record, fault, auth) {
  if (fault?.hang) {
    hang(res);
    return true;
  }
  if (typeof fault?.stream_error === 'string') {
    sendStreamError(res, record, fault.stream_error, auth);
    return true;
  }
  if (typeof fault?.endless === 'string') {
    sendEndless(res, record, fault.endless);
    return true;
  }
  if (fault?.status) {
    sendFile(res, record, fault.status, fault.body, fault.headers ?? {});
    return true;
  }
  return false;
}

async function scenarioAnswer(res, record, e, body, auth) {
  const conv = conversationOf(body);
  record.state = conv.state;
  const rule = pickRule(e.rules, conv);
  if (!rule)
    return sendError(res, record, 400, `replay scenario '${e.name}' has no rule for a conversation in state ${conv.state}`,
      'invalid_request_error', null);
  if (rule.hold !== undefined) await passGate(rule.hold);
  if (rule.delay_ms) await sleep(rule.delay_ms);
  if (applyFault(res, record, rule.fault, auth)) return;
  const msg = assistantMessage(rule, conv);
  const model = typeof body.model === 'string' ? body.model : e.name;
  // A cut falls inside the answer: at most one byte short of its end.
  const cutWithin = (total) => (rule.fault?.die_after_bytes === undefined ? undefined : Math.min(rule.fault.die_after_bytes, total - 1));
  if (body.stream === true) {
    const events = completionEvents(model, body, msg);
    return sendStream(res, record, events, cutWithin(events.reduce((n, e) => n + e.length, 0)));
  }
  const bytes = completionBody(model, body, msg);
  const cut = cutWithin(bytes.length);
  if (cut === undefined) return sendBytes(res, record, 200, bytes);
  record.status = 200;
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
  res.write(bytes.subarray(0, cut), () => {
    record.last_byte_ms = nowMs();
    res.socket?.destroy();
  });
}

async function chat(req, res, raw, record) {
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    received.push(record);
    return sendError(res, record, 400, 'the request body is not JSON', 'invalid_request_error', null);
  }
  const marker = /\[replay:([A-Za-z0-9._-]+)\]/.exec(lastUserText(body.messages));
  const name = marker ? marker[1] : body.model;
  const auth = req.headers.authorization;
  Object.assign(record, { model: body.model, entry: name, body, authorization: auth ? 'bearer' : 'none' });
  received.push(record);
  const e = typeof name === 'string' ? entry(name) : undefined;
  if (!e) return sendError(res, record, 404, `The model '${name}' does not exist`, 'invalid_request_error', 'model_not_found');

  if (e.api_key !== undefined && auth !== `Bearer ${e.api_key}`)
    return sendFile(res, record, 401, 'error-401.json');
  if (e.refuse_tool_choice_auto && body.tool_choice === 'auto')
    return sendFile(res, record, 400, e.refuse_tool_choice_auto);

  const n = counts.get(name) ?? 0;
  counts.set(name, n + 1);
  const faults = e.faults ?? [];
  let fault = faults[n];
  if (!fault && faults.length && faults[faults.length - 1].repeat) fault = faults[faults.length - 1];
  if (applyFault(res, record, fault, auth)) return;
  if (e.scenario) return scenarioAnswer(res, record, e, body, auth);

  const wantsStream = body.stream === true;
  const mode = wantsStream ? e.stream : e.plain;
  if (!mode)
    return sendError(res, record, 400, `replay entry '${name}' has no ${wantsStream ? 'streamed' : 'non-streamed'} fixture; ` +
      `send stream: ${!wantsStream}`, 'invalid_request_error', null);
  if (!wantsStream) return sendFile(res, record, 200, mode.file);
  return sendStream(res, record, sseEvents(fixtureBytes(mode.file)), fault?.die_after_bytes);
}

const server = createServer((req, res) => {
  const record = { path: req.url, arrived_ms: nowMs(), last_byte_ms: null, status: 0 };
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size > maxBodyBytes) req.destroy();
    else chunks.push(c);
  });
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    const [path, query = ''] = (req.url ?? '').split('?');
    const none = {}; // the control routes are not recorded
    if (req.method === 'POST' && path.endsWith('/chat/completions'))
      return chat(req, res, raw, record).catch((err) => {
        process.stderr.write(`replay_server: ${err.stack ?? err}\n`);
        res.socket?.destroy();
      });
    if (req.method === 'GET' && path.endsWith('/models') && !path.startsWith('/__replay'))
      return sendJson(res, none, 200, {
        object: 'list',
        data: [...Object.keys(index.models), ...Object.keys(scenarios)]
          .map((id) => ({ id, object: 'model', created: 0, owned_by: 'replay' })),
      });
    if (req.method === 'GET' && path === '/__replay/requests') return sendJson(res, none, 200, received);
    if (req.method === 'POST' && path === '/__replay/release') {
      const name = new URLSearchParams(query).get('gate');
      if (!name) return sendError(res, none, 400, 'name the gate: ?gate=NAME', 'invalid_request_error', null);
      const g = gate(name);
      g.open = true;
      for (const ok of g.waiters.splice(0)) ok();
      return sendJson(res, none, 200, { released: name });
    }
    if (req.method === 'POST' && path === '/__replay/reset') {
      counts.clear();
      received = [];
      for (const g of gates.values()) g.open = false;
      return sendJson(res, none, 200, { reset: true });
    }
    if (req.method === 'POST' && path === '/__replay/stop') {
      sendJson(res, none, 200, { stopping: true });
      return stop();
    }
    sendError(res, none, 404, `no route ${req.method} ${path}`, 'invalid_request_error', null);
  });
});

function stop() {
  for (const res of hanging) res.socket?.destroy();
  server.close(() => process.exit(0));
  server.closeAllConnections?.();
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}/v1\n`);
});
