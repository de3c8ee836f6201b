// What mur exports over OTLP/HTTP, decoded by the official generated protobuf decoder of
// @opentelemetry/otlp-transformer (protobufjs static code generated from opentelemetry-proto):
// a real formation lead → coder → reviewer, where coder also delegates to a child capsule, run
// with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a receiver this test serves on loopback. The lead
// and the reviewer ask an http model (the replay server of tests/models), coder and the child
// are scripts. Then the same formation with nothing listening at the endpoint: it answers as
// usual and says what it could not export.
// Run: MUR_BINARY=/path/to/mur node --test otel_export.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReplay } from '../models/start_replay.mjs';

const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

const MUR = process.env.MUR_BINARY || process.argv[2];
assert.ok(MUR, 'set MUR_BINARY to the mur executable');
const SECRET = 'otel-header-s3cret-4f1d';

// An OTLP/HTTP receiver: every POST /v1/traces decoded; its spans kept with their resource.
async function startReceiver() {
  const got = { spans: [], requests: [] };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      got.requests.push({ url: req.url, type: req.headers['content-type'], key: req.headers['x-test-key'] });
      const body = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(Buffer.concat(chunks)),
                                                      { longs: String, bytes: String, defaults: false });
      for (const rs of body.resourceSpans || []) {
        const resource = attrs(rs.resource?.attributes);
        for (const ss of rs.scopeSpans || [])
          for (const s of ss.spans || []) got.spans.push({ ...s, attrs: attrs(s.attributes), resource, scope: ss.scope?.name });
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, got, endpoint: `http://127.0.0.1:${server.address().port}` };
}

function attrs(list) {
  const out = {};
  for (const kv of list || []) {
    const v = kv.value || {};
    out[kv.key] = v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue ?? v.doubleValue);
  }
  return out;
}
const hex = (b64) => (b64 ? Buffer.from(b64, 'base64').toString('hex') : '');

// The formation's capsules installed in a fresh MURMUR_HOME, its project with the roster.
function setUp(modelEndpoint) {
  const dir = mkdtempSync(join(tmpdir(), 'mur-otel-'));
  const env = { ...process.env, MURMUR_HOME: join(dir, 'home') };
  for (const k of Object.keys(env)) if (k.startsWith('OTEL_')) delete env[k];
  const peer = (caps) => 'lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n' +
    `exports: {peer_tasks: {accept: true}}\ncapabilities: ${caps}\nnetwork: {authentication: {scheme: bearer}}\n`;
  const capsules = {
    'ot-lead': `inference: {transport: http, endpoint: '${modelEndpoint}', model: lead}\n` +
               'capabilities: {network: {allow: [localhost]}}\nnetwork: {authentication: {scheme: bearer}}\n',
    'ot-coder': 'inference:\n  transport: script\n  turns:\n' +
                '    - delegate: {capsule: ot-helper, task: "sum {{task}}"}\n' +
                '    - call: {member: reviewer, task: "Review: {{task}}"}\n' +
                '    - reply: "Coder done; {{answer.reviewer}}"\n' +
                peer('{network: {allow: [localhost]}, spawn: {allow: [ot-helper@1.0.0]}}'),
    'ot-reviewer': `inference: {transport: http, endpoint: '${modelEndpoint}', model: coder}\ntrace: {capture: content}\n` +
                   peer('{network: {allow: [localhost]}}'),
    'ot-helper': 'inference:\n  transport: script\n  turns:\n    - reply: "short {{task}}"\n',
  };
  for (const [name, manifest] of Object.entries(capsules)) {
    const c = join(dir, 'capsules', name);
    mkdirSync(c, { recursive: true });
    writeFileSync(join(c, 'murmur.yaml'), `name: ${name}\nversion: 1.0.0\n${manifest}`);
    execFileSync(MUR, ['install', '-g', c], { env, stdio: 'ignore' });
  }
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'roster.yaml'), 'roster_version: 1\nmembers:\n' +
    '  - {name: lead, capsule: ot-lead, version: 1.0.0, entry: true}\n' +
    '  - {name: coder, capsule: ot-coder, version: 1.0.0}\n  - {name: reviewer, capsule: ot-reviewer, version: 1.0.0}\n' +
    'reachability:\n  - {from: lead, to: [coder]}\n  - {from: coder, to: [reviewer]}\n');
  return { dir, env, project };
}

function run(env, project, task) {
  const p = spawn(MUR, ['run', '--roster', project, '--task', task], { env, cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  p.stdout.on('data', (c) => { stdout += c; });
  p.stderr.on('data', (c) => { stderr += c; });
  return new Promise((resolve) => p.once('exit', (code) => resolve({ code, stdout, stderr })));
}

// Every file named `name` under `dir` (any name when null), as paths.
function filesNamed(dir, name) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (name === null || e.name === name) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}
// Every trace.jsonl under `dir`, as text.
const traces = (dir) => filesNamed(dir, 'trace.jsonl').map((p) => readFileSync(p, 'utf8'));

test('a three-member chain with a delegation exports one trace with its parent links and GenAI attributes', async () => {
  const receiver = await startReceiver();
  const { server: replay, endpoint: model } = await startReplay();
  const { dir, env, project } = setUp(model);
  try {
    const r = await run({ ...env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_HEADERS: `x-test-key=${SECRET}` },
                        project, 'add a flag');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Lead says: coder said: Coder done; coder did: Review: add a flag/);
    const spans = receiver.got.spans;
    assert.ok(receiver.got.requests.length > 0);
    for (const q of receiver.got.requests) {
      assert.equal(q.url, '/v1/traces');
      assert.equal(q.type, 'application/x-protobuf');
      assert.equal(q.key, SECRET); // the header reached the collector …
    }
    // … and nowhere else: not on the terminal, not in any trace.
    assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET));
    for (const t of traces(dir)) assert.ok(!t.includes(SECRET));

    // One trace for everything the operator's task caused.
    const traceIds = new Set(spans.map((s) => hex(s.traceId)));
    assert.equal(traceIds.size, 1, JSON.stringify([...traceIds]));
    const byName = (name) => spans.filter((s) => s.name === name);
    const one = (name) => { const l = byName(name); assert.equal(l.length, 1, `${name}: ${spans.map((s) => s.name)}`); return l[0]; };
    const lead = one('invoke_agent lead');
    const coder = one('invoke_agent coder');
    const reviewer = one('invoke_agent reviewer');
    const child = one('invoke_agent capsule:ot-helper');
    const calls = byName('execute_tool call-member');
    const delegation = one('execute_tool delegate');
    assert.equal(calls.length, 2);
    const id = (s) => hex(s.spanId), parent = (s) => hex(s.parentSpanId);
    const leadCall = calls.find((c) => c.attrs['mur.callee'] === 'coder');
    const coderCall = calls.find((c) => c.attrs['mur.callee'] === 'reviewer');
    assert.equal(parent(lead), ''); // the root
    assert.equal(parent(leadCall), id(lead));
    assert.equal(parent(coder), id(leadCall));
    assert.equal(parent(coderCall), id(coder));
    assert.equal(parent(reviewer), id(coderCall));
    assert.equal(parent(delegation), id(coder));
    assert.equal(parent(child), id(delegation));

    // GenAI attributes and mur's ids.
    const formation = lead.attrs['mur.formation.id'];
    assert.match(formation, /^frm_/);
    for (const [s, member] of [[lead, 'lead'], [coder, 'coder'], [reviewer, 'reviewer']]) {
      assert.equal(s.attrs['gen_ai.operation.name'], 'invoke_agent');
      assert.equal(s.attrs['gen_ai.agent.name'], member);
      assert.equal(s.attrs['mur.member'], member);
      assert.equal(s.attrs['mur.formation.id'], formation);
      assert.match(s.attrs['mur.task.id'], /^tsk_/);
      assert.match(s.attrs['mur.session.id'], /^ses_/);
      assert.equal(s.resource['service.name'], 'mur');
      assert.equal(s.resource['service.instance.id'], s.attrs['mur.session.id']);
      assert.equal(s.scope, 'mur');
      assert.equal(s.status?.code ?? 0, 0);
    }
    assert.equal(child.attrs['mur.formation.id'], formation);
    for (const c of [...calls, delegation]) {
      assert.equal(c.attrs['gen_ai.operation.name'], 'execute_tool');
      assert.match(c.attrs['gen_ai.tool.call.id'], /^(mcl|dlg)_/);
      assert.equal(c.attrs['mur.call.id'], c.attrs['gen_ai.tool.call.id']);
      assert.ok(BigInt(c.startTimeUnixNano) <= BigInt(c.endTimeUnixNano));
    }
    assert.equal(leadCall.attrs['gen_ai.tool.name'], 'call-member');
    assert.equal(delegation.attrs['gen_ai.tool.name'], 'delegate');
    // A chat span per model request: the http members' carry the model and the tokens.
    const chats = spans.filter((s) => s.attrs['gen_ai.operation.name'] === 'chat');
    const httpChats = chats.filter((s) => s.attrs['gen_ai.request.model']);
    assert.ok(httpChats.length >= 3, chats.map((s) => s.name).join(', ')); // lead: task and continuation, reviewer: one
    for (const c of httpChats) {
      assert.equal(c.name, `chat ${c.attrs['gen_ai.request.model']}`);
      assert.equal(c.attrs['gen_ai.provider.name'], 'openai');
      assert.ok(c.attrs['gen_ai.usage.input_tokens'] > 0);
      assert.ok(c.attrs['gen_ai.usage.output_tokens'] > 0);
      assert.ok([id(lead), id(reviewer)].includes(parent(c)));
    }
    assert.ok(chats.some((c) => parent(c) === id(coder)) && chats.some((c) => parent(c) === id(child)));
    // Exporting leaves trace.capture: content whole: the reviewer's transcript blob is written.
    const named = traces(dir).flatMap((t) => t.split('\n')).filter((l) => l.includes('"transcript_sha256"'))
      .map((l) => JSON.parse(l).transcript_sha256);
    assert.equal(named.length, 1);
    assert.ok(filesNamed(dir, named[0]).some((p) => p.includes('/blobs/')), 'the transcript blob was not written');
    // No text of the task or of an answer in any attribute.
    for (const s of spans)
      for (const v of Object.values(s.attrs)) assert.ok(typeof v !== 'string' || !/add a flag|Coder done/.test(v), v);
  } finally {
    replay.kill();
    receiver.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with the collector down the formation answers as usual and says what it could not export', async () => {
  // A port nothing listens on: one that was free a moment ago.
  const probe = createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const port = probe.address().port;
  await new Promise((r) => probe.close(r));
  const { server: replay, endpoint: model } = await startReplay();
  const { dir, env, project } = setUp(model);
  try {
    // A protocol mur does not speak is said once, by the launcher, not by each member.
    const r = await run({ ...env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
                        project, 'add a flag');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Lead says: coder said: Coder done; coder did: Review: add a flag/);
    assert.match(r.stderr, /W-OTL-003: (\d+) of \1 span\(s\) were not exported \(\1 failed: Couldn't connect/);
    assert.equal(r.stderr.match(/W-OTL-001/g)?.length, 1, r.stderr);
    // Each member's trace says it too.
    const ends = traces(dir).flatMap((t) => t.split('\n').filter((l) => l.includes('"otel_export"')).map((l) => JSON.parse(l)));
    assert.ok(ends.length >= 3, `${ends.length} otel_export events`);
    assert.ok(ends.every((e) => e.spans_exported === 0 && e.spans_failed + e.spans_dropped > 0), JSON.stringify(ends));
  } finally {
    replay.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a collector that never answers holds no task: each request gives up at OTEL_EXPORTER_OTLP_TIMEOUT', async () => {
  const held = [];
  const silent = createServer((req) => { held.push(req); req.resume(); }); // reads, never answers
  await new Promise((r) => silent.listen(0, '127.0.0.1', r));
  const { server: replay, endpoint: model } = await startReplay();
  const { dir, env, project } = setUp(model);
  try {
    const r = await run({ ...env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${silent.address().port}`,
                          OTEL_EXPORTER_OTLP_TIMEOUT: '300' }, project, 'add a flag');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Lead says: coder said: Coder done; coder did: Review: add a flag/);
    assert.match(r.stderr, /W-OTL-003: \d+ of \d+ span\(s\) were not exported \([^)]*failed: Timeout was reached/);
    assert.ok(held.length > 0);
  } finally {
    for (const q of held) q.socket.destroy();
    silent.close();
    replay.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
