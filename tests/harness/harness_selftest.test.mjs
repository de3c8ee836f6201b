// The harnesses mur's process tests and users start — examples/harness/capsules/agent/agent.py
// (standard library only) and sdk_harness.mjs (@modelcontextprotocol/sdk) — against a stand-in
// tool server made from the SDK's own server side (fake_tool_server.mjs), SSE and JSON bodies;
// and the conformance runner's server scenarios through the bearer preload (with_bearer.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';

const here = dirname(fileURLToPath(import.meta.url));
const agentPy = join(here, '../../examples/harness/capsules/agent/agent.py');

function run(cmd, args, { input = '', env = process.env } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: here, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(input);
  });
}

async function startServer(extra = []) {
  const token = randomBytes(16).toString('hex');
  const child = spawn(process.execPath, [join(here, 'fake_tool_server.mjs'), '--callee', 'helper', '--callee', 'other', ...extra],
                      { cwd: here, stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.write(token + '\n');
  const lines = [];
  let buffered = '';
  let onLine = null;
  child.stdout.on('data', (d) => {
    buffered += d;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
      if (onLine) onLine();
    }
  });
  await new Promise((resolve) => { onLine = () => { if (lines.length) resolve(); }; });
  const { url } = lines[0];
  return {
    url,
    token,
    calls: () => lines.slice(1),
    stop: () => child.kill(),
  };
}

function turn(server, mode, extra = {}) {
  return JSON.stringify({
    session: { id: 'hs_test', mode },
    member: 'agent',
    callees: ['helper', 'other'],
    task: 'find the bug',
    message: mode === 'new' ? 'find the bug' : extra.message,
    turn: mode === 'new' ? 1 : 2,
    tools: { url: server.url, token: server.token },
    ...extra,
  }) + '\n';
}

// Runs `body(server)` against a fresh stand-in tool server (started with `extra` arguments), which
// is stopped afterwards whatever happened.
async function withServer(body, extra = []) {
  const server = await startServer(extra);
  try {
    return await body(server);
  } finally {
    server.stop();
  }
}

// One turn (`mode`, `extra` fields; see turn) of agent.py, or of the node harness `file`, at `server`.
const agent = (server, mode, extra) => run('python3', [agentPy], { input: turn(server, mode, extra) });
const harness = (file, server, mode, extra) => run(process.execPath, [file], { input: turn(server, mode, extra) });

const continuation =
  'Call c1 to helper: completed.\n<untrusted-content source=member:helper>\nIt is in parse().\n</untrusted-content>\n' +
  'Answer with what you have.';

for (const mode of ['sse', 'json']) {
  test(`agent.py asks the first callee through call-member (${mode} bodies)`, () => withServer(async (server) => {
    const r = await agent(server, 'new');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /I asked helper/);
    assert.deepEqual(server.calls(), [{ tool: 'call-member', arguments: { member: 'helper', task: 'find the bug' } }]);
  }, mode === 'json' ? ['--json'] : []));
}

test('agent.py answers from the answers on resume, says what the runtime said when none came, and works alone without callees', () => withServer(async (server) => {
  const answers = [{ member: 'helper', status: 'completed', text: 'It is in parse().' }];
  const resumed = await agent(server, 'resume', { message: continuation, answers });
  assert.equal(resumed.code, 0, resumed.err);
  assert.match(resumed.out, /helper said: It is in parse\(\)\./);
  const failed = [{ member: 'helper', status: 'failed', text: 'helper gave no answer' }];
  const none = await agent(server, 'resume', { message: 'Call c1 to helper: failed.', answers: failed });
  assert.match(none.out, /No member answered\. What the runtime said:\nCall c1 to helper: failed\./);
  const alone = await agent(server, 'new', { callees: [] });
  assert.equal(alone.code, 0, alone.err);
  assert.match(alone.out, /my own answer to: find the bug/);
  assert.deepEqual(server.calls(), []);
}));

test('agent.py with a wrong token fails with the HTTP status and calls nothing', () => withServer(async (server) => {
  const r = await agent(server, 'new', { tools: { url: server.url, token: 'wrong' } });
  assert.notEqual(r.code, 0);
  assert.match(r.err, /HTTP 401/);
  assert.deepEqual(server.calls(), []);
}));

test('sdk_harness.mjs lists the tools, calls call-member, and answers on resume', () => withServer(async (server) => {
  const r = await harness('sdk_harness.mjs', server, 'new');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'asked helper');
  assert.match(r.err, /tools: call-member, end-without-answer/);
  assert.deepEqual(server.calls(), [{ tool: 'call-member', arguments: { member: 'helper', task: 'find the bug' } }]);
  const resumed = await harness('sdk_harness.mjs', server, 'resume', { message: continuation });
  assert.equal(resumed.code, 0, resumed.err);
  assert.equal(resumed.out, 'harness answer: ' + continuation);
}));

test('sdk_harness.mjs calls every callee with [all-callees]', () => withServer(async (server) => {
  const all = await harness('sdk_harness.mjs', server, 'new', { task: '[all-callees]' });
  assert.equal(all.code, 0, all.err);
  assert.equal(all.out, 'asked helper, other');
  assert.deepEqual(server.calls().map((c) => c.arguments.member), ['helper', 'other']);
}));

test('sdk_harness.mjs task words: call-twice, end-without-answer, crash, flood', () => withServer(async (server) => {
  const twice = await harness('sdk_harness.mjs', server, 'new', { task: 'x [call-twice]' });
  assert.equal(twice.code, 0, twice.err);
  assert.match(twice.err, /tool call-member: \(error\) /);
  const ended = await harness('sdk_harness.mjs', server, 'new', { task: '[end-without-answer]' });
  assert.equal(ended.code, 0, ended.err);
  assert.deepEqual(server.calls().map((c) => [c.tool, c.arguments.member ?? c.arguments.reason]), [
    ['call-member', 'helper'],
    ['call-member', 'helper'],
    ['end-without-answer', 'the harness was asked to end without an answer'],
  ]);
  const crash = await harness('sdk_harness.mjs', server, 'new', { task: '[crash]' });
  assert.equal(crash.code, 3);
  assert.match(crash.err, /crashed on purpose/);
  const flood = await harness('sdk_harness.mjs', server, 'new', { task: '[flood]' });
  assert.equal(flood.code, 0, flood.err);
  assert.equal(flood.out.length, 10 * 1024 * 1024);
}));

test('the conformance runner passes server-initialize and tools-list only with the bearer preload', () => withServer(async (server) => {
  const dir = mkdtempSync(join(tmpdir(), 'mur-conformance-'));
  try {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, server.token + '\n', { mode: 0o600 });
    const conformance = join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
    const env = { ...process.env, MCP_BEARER_TOKEN_FILE: tokenFile, NODE_OPTIONS: `--import=${join(here, 'with_bearer.mjs')}` };
    for (const scenario of ['server-initialize', 'tools-list']) {
      const r = await run(process.execPath, [conformance, 'server', '--url', server.url, '--scenario', scenario], { env });
      assert.equal(r.code, 0, r.out + r.err);
      assert.match(r.out, /Passed: 1\/1, 0 failed/);
    }
    const bare = await run(process.execPath, [conformance, 'server', '--url', server.url, '--scenario', 'tools-list']);
    assert.notEqual(bare.code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}));

test('conformance_harness.mjs runs the server scenarios inside its turn with the token it was handed', () => withServer(async (server) => {
  const r = await harness('conformance_harness.mjs', server, 'new');
  assert.equal(r.code, 0, r.out + r.err);
  assert.equal(r.out, 'conformance: server-initialize passed\nconformance: tools-list passed\n');
  const one = await harness('conformance_harness.mjs', server, 'new', { task: 'conformance: ping' });
  assert.equal(one.code, 0, one.out + one.err);
  assert.equal(one.out, 'conformance: ping passed\n');
  const wrong = await harness('conformance_harness.mjs', server, 'new', { tools: { url: server.url, token: 'wrong' } });
  assert.equal(wrong.code, 1);
  assert.equal(wrong.out, '');
  assert.match(wrong.err, /conformance: server-initialize FAILED/);
  assert.match(wrong.err, /conformance: FAILED: server-initialize tools-list\n$/);
}));

// The preload's fetch and node:http paths (the undici one needs the runner's own undici, which
// the newest runner's tree, tests/conformance, has: the process tests run it there).
test('with_bearer.mjs gives the token to fetch and node:http requests to its origin only', async () => {
  const start = () => new Promise((ok) => {
    const s = http.createServer((q, r) => r.end(q.headers.authorization ?? '-'));
    s.listen(0, '127.0.0.1', () => ok(s));
  });
  const [meant, other] = [await start(), await start()];
  const url = (s) => `http://127.0.0.1:${s.address().port}/mcp`;
  // Each way, to the URL in argv: plain, then with an Authorization of its own.
  const probe = `
    import http from 'node:http';
    const body = (r, ok) => { let b = ''; r.on('data', (d) => { b += d; }); r.on('end', () => ok(b)); };
    const viaHttp = (u, headers) => new Promise((ok) => http.request(u, { method: 'POST', headers }, (r) => body(r, ok)).end('{}'));
    const viaOptions = (u) => new Promise((ok) => { const { hostname, port, pathname: path } = new URL(u);
      http.request({ hostname, port, path, method: 'POST' }, (r) => body(r, ok)).end('{}'); });
    const viaGet = (u) => new Promise((ok) => http.get(u, (r) => body(r, ok)));
    const own = { Authorization: 'Bearer own' };
    const seen = [];
    for (const u of process.argv.slice(1))
      seen.push(await (await fetch(u)).text(), await viaHttp(u, {}), await viaOptions(u), await viaGet(u),
                await (await fetch(u, { headers: own })).text(), await viaHttp(u, own));
    process.stdout.write(JSON.stringify(seen));`;
  const dir = mkdtempSync(join(tmpdir(), 'mur-bearer-'));
  try {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'tok123\n', { mode: 0o600 });
    const env = { ...process.env, MCP_BEARER_TOKEN_FILE: tokenFile, MCP_BEARER_ORIGIN: new URL(url(meant)).origin,
                  NODE_OPTIONS: `--import=${join(here, 'with_bearer.mjs')}` };
    const r = await run(process.execPath, ['--input-type=module', '-e', probe, url(meant), url(other)], { env });
    assert.equal(r.code, 0, r.err);
    const t = 'Bearer tok123';
    assert.deepEqual(JSON.parse(r.out), [t, t, t, t, 'Bearer own', 'Bearer own', '-', '-', '-', '-', 'Bearer own', 'Bearer own']);
  } finally {
    meant.close();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
