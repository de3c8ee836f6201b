// fixtures_openai.test.mjs — every replay fixture, read by a client nobody here wrote: the
// official `openai` npm package (pinned in package.json / package-lock.json), talking to
// replay_server.mjs over real HTTP.
//
// What it proves: each non-streamed fixture is a chat completion that
// `chat.completions.create` accepts, and each streamed fixture accumulates, through
// `chat.completions.stream(...).finalChatCompletion()`, into the text, tool calls (ids, names,
// arguments), finish_reason and usage that fixtures.json says it holds — the same expectations
// tests/unit/chat_completions_test.cpp checks mur's own codec against. It also checks that the
// served bytes are the fixture files exactly, and the scripted faults the process tests rely on.
// Run: (cd tests/models && npm ci && node --test)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { startReplay } from './start_replay.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const index = JSON.parse(readFileSync(join(here, 'fixtures', 'fixtures.json'), 'utf8'));

let server;
let endpoint;

before(async () => {
  ({ server, endpoint } = await startReplay());
});

after(() => {
  server?.kill('SIGTERM');
});

function client(apiKey = 'unused-by-loopback') {
  return new OpenAI({ baseURL: endpoint, apiKey, maxRetries: 0, timeout: 10_000 });
}

function checkMessage(completion, expect, label) {
  assert.equal(completion.choices.length, 1, `${label}: one choice`);
  const choice = completion.choices[0];
  assert.equal(choice.finish_reason, expect.finish_reason, `${label}: finish_reason`);
  assert.equal(choice.message.content ?? '', expect.text, `${label}: text`);
  const calls = (choice.message.tool_calls ?? []).map((c) => ({
    id: c.id,
    name: c.function.name,
    arguments: c.function.arguments,
  }));
  assert.deepEqual(calls, expect.tool_calls, `${label}: tool calls`);
  for (const c of choice.message.tool_calls ?? []) {
    assert.equal(c.type, 'function', `${label}: tool call type`);
    JSON.parse(c.function.arguments); // the concatenated arguments are JSON
  }
  assert.equal(completion.usage?.prompt_tokens, expect.usage.prompt_tokens, `${label}: prompt tokens`);
  assert.equal(completion.usage?.completion_tokens, expect.usage.completion_tokens, `${label}: completion tokens`);
  assert.equal(completion.usage?.total_tokens, expect.usage.total_tokens, `${label}: total tokens`);
}

const question = [{ role: 'user', content: 'What does the fixture say?' }];

for (const [model, entry] of Object.entries(index.models)) {
  if (entry.plain) {
    test(`${model}: non-streamed fixture through chat.completions.create`, async () => {
      const completion = await client().chat.completions.create({ model, messages: question });
      assert.equal(completion.object, 'chat.completion');
      checkMessage(completion, entry.plain.expect, `${model} (plain)`);
    });
  }
  if (entry.stream) {
    test(`${model}: streamed fixture through chat.completions.stream().finalChatCompletion()`, async () => {
      const stream = client().chat.completions.stream({
        model,
        messages: question,
        stream_options: { include_usage: true },
      });
      const fragments = [];
      stream.on('content', (delta) => fragments.push(delta));
      const completion = await stream.finalChatCompletion();
      checkMessage(completion, entry.stream.expect, `${model} (stream)`);
      assert.equal(fragments.join(''), entry.stream.expect.text, `${model}: content events add up to the text`);
      assert.equal(fragments.filter((f) => f !== '').length, entry.stream.expect.text_fragments, `${model}: text fragments`);
    });
  }
}

test('bytes served are the fixture files exactly', async () => {
  for (const [model, entry] of Object.entries(index.models)) {
    for (const [mode, spec] of [['plain', entry.plain], ['stream', entry.stream]]) {
      if (!spec) continue;
      const r = await fetch(`${endpoint}/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model, stream: mode === 'stream', messages: question }),
      });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), mode === 'stream' ? 'text/event-stream' : 'application/json');
      const got = Buffer.from(await r.arrayBuffer());
      assert.ok(got.equals(readFileSync(join(here, 'fixtures', spec.file))), `${model} ${mode}: byte-exact`);
    }
  }
});

test('a marker in the last user message picks the entry whatever the model', async () => {
  const completion = await client().chat.completions.create({
    model: 'any-model-name',
    messages: [{ role: 'user', content: 'first [replay:openai-tools]' }, { role: 'user', content: 'go [replay:openai-answer]' }],
  });
  assert.equal(completion.choices[0].message.content, index.models['openai-answer'].plain.expect.text);
});

test('scripted faults: 429 with Retry-After then success, 500 for ever, 401 for a wrong key, vLLM 400, 404', async () => {
  await fetch(`${endpoint.replace(/\/v1$/, '')}/__replay/reset`, { method: 'POST' });
  await assert.rejects(client().chat.completions.create({ model: 'rate-limited', messages: question }), (err) => {
    assert.equal(err.status, 429);
    assert.equal(err.headers.get('retry-after'), '1');
    return true;
  });
  const ok = await client().chat.completions.create({ model: 'rate-limited', messages: question });
  assert.equal(ok.choices[0].message.content, index.models['openai-answer'].plain.expect.text);

  for (let i = 0; i < 3; ++i)
    await assert.rejects(client().chat.completions.create({ model: 'always-500', messages: question }), { status: 500 });

  await assert.rejects(client('wrong').chat.completions.create({ model: 'needs-key', messages: question }), { status: 401 });
  const keyed = await client('replay-test-key').chat.completions.create({ model: 'needs-key', messages: question });
  assert.equal(keyed.choices[0].finish_reason, 'stop');

  await assert.rejects(
    client().chat.completions.create({
      model: 'vllm-no-parser',
      messages: question,
      tools: [{ type: 'function', function: { name: 'noop', parameters: { type: 'object', properties: {} } } }],
      tool_choice: 'auto',
    }),
    { status: 400 },
  );
  const raw = await fetch(`${endpoint}/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ model: 'vllm-no-parser', tool_choice: 'auto', messages: question }),
  });
  assert.equal(raw.status, 400);
  assert.match(await raw.text(), /--enable-auto-tool-choice and --tool-call-parser/);
  await assert.rejects(client().chat.completions.create({ model: 'no-such-model', messages: question }), { status: 404 });
});

test('scripted faults: a stream cut mid-way and a server that never answers', async () => {
  await assert.rejects(async () => {
    const stream = client().chat.completions.stream({ model: 'dies-mid-stream', messages: question });
    await stream.finalChatCompletion();
  });
  const slow = new OpenAI({ baseURL: endpoint, apiKey: 'x', maxRetries: 0, timeout: 300 });
  await assert.rejects(slow.chat.completions.create({ model: 'hangs', messages: question }), (err) =>
    /timed? ?out/i.test(err.constructor.name + ' ' + err.message),
  );
});

test('the server records requests without their keys', async () => {
  const r = await fetch(`${endpoint.replace(/\/v1$/, '')}/__replay/requests`);
  const text = await r.text();
  assert.ok(!text.includes('replay-test-key'), 'no key in the record');
  const requests = JSON.parse(text);
  assert.ok(requests.some((q) => q.entry === 'needs-key' && q.authorization === 'bearer'));
});
