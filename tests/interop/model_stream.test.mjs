// A real A2A v1.0 client (@a2a-js/sdk) streaming from a member whose model is an
// OpenAI-compatible server (the replay server of tests/models, streaming a recorded answer in
// fragments): while the model streams, the client receives the text as artifact appends, then
// the whole answer (replacing them) and the final status; SendMessage and GetTask see only the
// final answer.
// Run: MUR_BINARY=/path/to/mur node --test model_stream.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';

const here = dirname(fileURLToPath(import.meta.url));
const MUR = process.env.MUR_BINARY || process.argv[2];
assert.ok(MUR, 'set MUR_BINARY to the mur executable');

const home = mkdtempSync(join(tmpdir(), 'mur-stream-'));
let replay, door;

function firstLine(child, what) {
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${what} exited ${code} before its first line`)));
  });
}

before(async () => {
  // Each SSE event of the recorded answer 40 ms apart, so the fragments arrive one by one.
  replay = spawn(process.execPath, [join(here, '../models/replay_server.mjs'), '--event-delay-ms', '40'],
                 { stdio: ['ignore', 'pipe', 'inherit'] });
  const endpoint = await firstLine(replay, 'the replay server');
  const capsule = join(home, 'asker');
  mkdirSync(capsule);
  writeFileSync(join(capsule, 'murmur.yaml'),
                `name: asker\nversion: 0.1.0\ninference: {transport: http, endpoint: '${endpoint}', model: openai-answer}\n` +
                'lifecycle: {task_acceptance: queue, queue_depth: 4, after_task: sleep}\n');
  const child = spawn(MUR, ['run', '--manifest', capsule, '--json', '--workdir', home],
                      { env: { ...process.env, MURMUR_HOME: home }, stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = JSON.parse(await firstLine(child, 'mur'));
  door = { child, url: ready.url, exited: new Promise((r) => child.once('exit', (code) => r(code))) };
});

after(async () => {
  door?.child.kill('SIGTERM');
  if (door) assert.equal(await door.exited, 0);
  replay?.kill('SIGTERM');
  rmSync(home, { recursive: true, force: true });
});

const message = (text) => ({ message: { messageId: `m-${Date.now()}`, role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text } }] } });
const kind = (ev) => ev.payload?.$case;
const value = (ev) => ev.payload?.value;
const answer = 'The capital of France is Paris.';

test('sendMessageStream: the text as it streams, then the whole answer and the final status', async () => {
  const c = await new ClientFactory(ClientFactoryOptions.default).createFromUrl(door.url);
  const events = [];
  for await (const ev of c.sendMessageStream(message('What is the capital of France?'))) events.push(ev);
  assert.equal(kind(events[0]), 'task');
  const artifacts = events.filter((e) => kind(e) === 'artifactUpdate').map(value);
  const chunks = artifacts.filter((a) => !a.lastChunk);
  assert.ok(chunks.length >= 2, `the text came in fragments (${chunks.length})`);
  assert.equal(chunks[0].append, false);
  for (const c of chunks.slice(1)) assert.equal(c.append, true);
  const text = (a) => a.artifact.parts.map((p) => p.content.value).join('');
  assert.equal(chunks.map(text).join(''), answer);
  const last = artifacts[artifacts.length - 1];
  assert.equal(last.lastChunk, true);
  assert.equal(text(last), answer);
  const end = events[events.length - 1];
  assert.equal(kind(end), 'statusUpdate');
  assert.equal(value(end).status.state, TaskState.TASK_STATE_COMPLETED);
});

test('sendMessage and getTask see only the final answer', async () => {
  const c = await new ClientFactory(ClientFactoryOptions.default).createFromUrl(door.url);
  const task = await c.sendMessage(message('What is the capital of France?'));
  assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
  assert.equal(task.artifacts.length, 1);
  assert.equal(task.artifacts[0].parts[0].content.value, answer);
  const again = await c.getTask({ id: task.id });
  assert.equal(again.artifacts[0].parts[0].content.value, answer);
});
