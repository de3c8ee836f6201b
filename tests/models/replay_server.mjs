#!/usr/bin/env node
// replay_server.mjs — an OpenAI-compatible Chat Completions server that answers from recorded
// bytes: the fixtures in ./fixtures, described by fixtures/fixtures.json.
//
// Invariant: a response body is a fixture file's bytes exactly, unchanged (a streamed one is
// written one SSE event at a time, so clients meet real chunking; a scripted `die_after_bytes`
// fault writes that many bytes of it and then cuts the connection). It listens on 127.0.0.1
// only, sends nothing anywhere, keeps no state but per-model request counts (for scripted
// faults) and the requests it received, and ends on SIGINT/SIGTERM or `POST /__replay/stop`.
//
// Usage: node replay_server.mjs [--port N] [--event-delay-ms N]
//   Prints the endpoint (base URL before /chat/completions) as its first stdout line:
//   `http://127.0.0.1:PORT/v1`.
// Routes:
//   POST <any base>/chat/completions   the replay (a request picks an entry by its `model`, or
//                                      by a marker [replay:NAME] in its last user message)
//   GET  <any base>/models             the entries, as an OpenAI model list
//   GET  /__replay/requests            every request so far: {path, model, entry, body,
//                                      authorization: "none"|"bearer"} (never the key itself)
//   POST /__replay/reset               forgets the counts and the requests
//   POST /__replay/stop                ends the server
// Node >= 20; no dependencies.

import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

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

const index = JSON.parse(readFileSync(join(fixturesDir, 'fixtures.json'), 'utf8'));
const fileCache = new Map();
function fixtureBytes(file) {
  if (!fileCache.has(file)) fileCache.set(file, readFileSync(join(fixturesDir, file)));
  return fileCache.get(file);
}

// An entry with `use` resolved to the bodies it borrows.
function entry(name) {
  const e = index.models[name];
  if (!e) return undefined;
  const bodies = e.use ? index.models[e.use] : e;
  return { name, ...e, plain: bodies.plain, stream: bodies.stream };
}

const counts = new Map();
let received = [];
const hanging = new Set();

function sendJson(res, status, value, headers = {}) {
  const body = Buffer.from(JSON.stringify(value));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': body.length, ...headers });
  res.end(body);
}

function sendError(res, status, message, type, code) {
  sendJson(res, status, { error: { message, type, param: null, code } });
}

function sendFile(res, status, file, headers = {}) {
  const body = fixtureBytes(file);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': body.length, ...headers });
  res.end(body);
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

async function sendStream(res, file, dieAfterBytes) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  let sent = 0;
  for (const event of sseEvents(fixtureBytes(file))) {
    if (dieAfterBytes !== undefined && sent + event.length > dieAfterBytes) {
      const part = event.subarray(0, dieAfterBytes - sent);
      if (part.length) await new Promise((ok) => res.write(part, ok));
      res.socket?.destroy();
      return;
    }
    await new Promise((ok) => res.write(event, ok));
    sent += event.length;
    if (eventDelayMs) await sleep(eventDelayMs);
    else await new Promise((ok) => setImmediate(ok));
  }
  res.end();
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

async function chat(req, res, raw) {
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    return sendError(res, 400, 'the request body is not JSON', 'invalid_request_error', null);
  }
  const marker = /\[replay:([A-Za-z0-9._-]+)\]/.exec(lastUserText(body.messages));
  const name = marker ? marker[1] : body.model;
  const auth = req.headers.authorization;
  received.push({ path: req.url, model: body.model, entry: name, body, authorization: auth ? 'bearer' : 'none' });
  const e = typeof name === 'string' ? entry(name) : undefined;
  if (!e) return sendError(res, 404, `The model '${name}' does not exist`, 'invalid_request_error', 'model_not_found');

  if (e.api_key !== undefined && auth !== `Bearer ${e.api_key}`)
    return sendFile(res, 401, 'error-401.json');
  if (e.refuse_tool_choice_auto && body.tool_choice === 'auto') return sendFile(res, 400, e.refuse_tool_choice_auto);

  const n = counts.get(name) ?? 0;
  counts.set(name, n + 1);
  const faults = e.faults ?? [];
  let fault = faults[n];
  if (!fault && faults.length && faults[faults.length - 1].repeat) fault = faults[faults.length - 1];
  if (fault?.hang) {
    hanging.add(res);
    res.on('close', () => hanging.delete(res));
    return; // never answers
  }
  if (fault?.status) return sendFile(res, fault.status, fault.body, fault.headers ?? {});

  const wantsStream = body.stream === true;
  const mode = wantsStream ? e.stream : e.plain;
  if (!mode)
    return sendError(res, 400, `replay entry '${name}' has no ${wantsStream ? 'streamed' : 'non-streamed'} fixture; ` +
      `send stream: ${!wantsStream}`, 'invalid_request_error', null);
  if (!wantsStream) return sendFile(res, 200, mode.file);
  return sendStream(res, mode.file, fault?.die_after_bytes);
}

const server = createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size > maxBodyBytes) req.destroy();
    else chunks.push(c);
  });
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path.endsWith('/chat/completions'))
      return chat(req, res, raw).catch((err) => {
        process.stderr.write(`replay_server: ${err.stack ?? err}\n`);
        res.socket?.destroy();
      });
    if (req.method === 'GET' && path.endsWith('/models') && !path.startsWith('/__replay'))
      return sendJson(res, 200, {
        object: 'list',
        data: Object.keys(index.models).map((id) => ({ id, object: 'model', created: 0, owned_by: 'replay' })),
      });
    if (req.method === 'GET' && path === '/__replay/requests') return sendJson(res, 200, received);
    if (req.method === 'POST' && path === '/__replay/reset') {
      counts.clear();
      received = [];
      return sendJson(res, 200, { reset: true });
    }
    if (req.method === 'POST' && path === '/__replay/stop') {
      sendJson(res, 200, { stopping: true });
      return stop();
    }
    sendError(res, 404, `no route ${req.method} ${path}`, 'invalid_request_error', null);
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
