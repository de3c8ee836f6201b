// The @a2a-js/sdk client cancels a task at the entry of a real formation (lead → a → b, b
// thinking for a minute): its CancelTask, with the cancel extension's confirmWithinMs in its
// metadata, is answered once the whole chain has canceled, and the answer lists what was
// canceled below (docs/cancel.md).
// Run: MUR_BINARY=/path/to/mur node --test formation_cancel.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';

const MUR = process.env.MUR_BINARY || process.argv[2];
assert.ok(MUR, 'set MUR_BINARY to the mur executable');

const peer = 'lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n' +
  'exports: {peer_tasks: {accept: true}}\ncapabilities: {network: {allow: [localhost]}}\n' +
  'network: {authentication: {scheme: bearer}}\n';
const capsules = {
  'cx-lead': 'inference:\n  transport: script\n  turns:\n    - call: {member: a, task: "{{task}}"}\n    - reply: "{{answer.a}}"\n' +
             'capabilities: {network: {allow: [localhost]}}\nnetwork: {authentication: {scheme: bearer}}\n',
  'cx-a': 'inference:\n  transport: script\n  turns:\n    - call: {member: b, task: "{{task}}"}\n    - reply: "{{answer.b}}"\n' + peer,
  'cx-b': 'inference:\n  transport: script\n  turns:\n    - {think_ms: 60000, reply: late}\n' + peer,
};

test('CancelTask from the SDK at a formation entry cancels the chain and lists it', async () => {
  const root = mkdtempSync(join(tmpdir(), 'mur-cancel-interop-'));
  const env = { ...process.env, MURMUR_HOME: join(root, 'home') };
  for (const [name, body] of Object.entries(capsules)) {
    const dir = join(root, 'capsules', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'murmur.yaml'), `name: ${name}\nversion: 1.0.0\n${body}`);
    execFileSync(MUR, ['install', '-g', dir], { env, stdio: 'ignore' });
  }
  const project = join(root, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'roster.yaml'), 'roster_version: 1\nmembers:\n' +
    '  - {name: lead, capsule: cx-lead, version: 1.0.0, entry: true}\n' +
    '  - {name: a, capsule: cx-a, version: 1.0.0}\n  - {name: b, capsule: cx-b, version: 1.0.0}\n' +
    'reachability:\n  - {from: lead, to: [a]}\n  - {from: a, to: [b]}\n');
  const run = spawn(MUR, ['run', '--roster', project, '--json'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => run.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    const lines = createInterface({ input: run.stdout })[Symbol.asyncIterator]();
    await lines.next(); // the formation line
    const entry = JSON.parse((await lines.next()).value);
    const record = JSON.parse(readFileSync(join(env.MURMUR_HOME, 'running', `${entry.session_id}.json`), 'utf8'));
    const fetchImpl = (url, init = {}) => {
      const headers = new Headers(init.headers || {});
      headers.set('Authorization', `Bearer ${record.operator_token}`);
      return fetch(url, { ...init, headers });
    };
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default,
                                                    { transports: [new JsonRpcTransportFactory({ fetchImpl })] });
    const c = await new ClientFactory(options).createFromUrl(entry.url);
    const sent = await c.sendMessage({
      message: { messageId: 'm-1', role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: 'go' } }] },
      configuration: { returnImmediately: true },
    });
    // b has its task once its session's trace says so (a wait on another process, bounded).
    const bDir = join(env.MURMUR_HOME, 'formations', entry.formation_id ?? record.formation_id, 'b', '.murmur');
    for (let i = 0; i < 600; ++i) {
      let started = false;
      try {
        for (const s of readdirSync(bDir)) started ||= readFileSync(join(bDir, s, 'trace.jsonl'), 'utf8').includes('"task_start"');
      } catch { /* not there yet */ }
      if (started) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const canceled = await c.cancelTask({ id: sent.id, metadata: { murmur: { confirmWithinMs: 4000 } } });
    assert.equal(canceled.status.state, TaskState.TASK_STATE_CANCELED);
    const text = canceled.status.message.parts.map((p) => p.content.value).join('');
    assert.equal(text, 'the task was canceled by the operator; canceled below it: a, b');
    assert.deepEqual(canceled.metadata.murmur.noAnswerBelow, [{ member: 'a', status: 'canceled' }, { member: 'b', status: 'canceled' }]);
    await assert.rejects(c.cancelTask({ id: sent.id })); // ended: -32002
  } finally {
    run.kill('SIGTERM');
    await exited;
    rmSync(root, { recursive: true, force: true });
  }
});
