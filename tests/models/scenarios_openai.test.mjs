// scenarios_openai.test.mjs — the replay server's scenario mode, read by the official `openai`
// npm client over real HTTP: the completions it makes up (plain and streamed) are accepted and
// accumulate into the text and tool calls the rules say, for each state of a conversation as
// mur's runtime would send it (the task; the tool results of the same model turn; the one
// continuation carrying the fenced answers); gates hold an answer until released; rule faults
// (500, a cut stream) and entry faults (429 then success) answer as scripted; every request is
// recorded with its arrival and last-byte times (monotonic ms) and never with its key.
// Run: (cd tests/models && npm ci && node --test)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { startReplay } from './start_replay.mjs';
import { conversationOf, fencedAnswers, fill } from './scenario.mjs';

const here = dirname(fileURLToPath(import.meta.url));

let server;
let endpoint;
let base;

before(async () => {
  ({ server, endpoint } = await startReplay());
  base = endpoint.replace(/\/v1$/, '');
});

after(() => {
  server?.kill('SIGTERM');
});

function client(apiKey = 'unused-by-loopback') {
  return new OpenAI({ baseURL: endpoint, apiKey, maxRetries: 0, timeout: 10_000 });
}

// The tools mur offers a member with callees (the shape; the runtime's words are its own).
const tools = [
  {
    type: 'function',
    function: {
      name: 'call-member',
      description: 'Hand a member the whole task.',
      parameters: {
        type: 'object',
        properties: { member: { type: 'string', enum: ['coder', 'critic'] }, task: { type: 'string' } },
        required: ['member', 'task'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'end-without-answer',
      description: 'End the task without an answer.',
      parameters: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] },
    },
  },
];

const task = [
  { role: 'system', content: 'You are lead.' },
  { role: 'user', content: 'add a flag' },
];
const afterCall = [
  ...task,
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'call-member', arguments: '{"member":"coder","task":"add a flag"}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: 'held: coder holds the task; its answer comes later' },
];
const continuation = [
  ...afterCall,
  { role: 'assistant', content: 'Waiting for coder, critic.' },
  {
    role: 'user',
    content: 'Call c1 to coder: completed.\n<untrusted-content source=member:coder>\ncoder did: add a flag\n</untrusted-content>\n' +
      'Call c2 to critic: completed.\n<untrusted-content source=member:critic>\nfine\nby me\n</untrusted-content>\n' +
      'Every call has ended and its answer is above. Answer the task now; call a member again only to give it new work.',
  },
];

async function ask(model, messages, stream, apiKey) {
  if (!stream) return client(apiKey).chat.completions.create({ model, messages, tools, tool_choice: 'auto' });
  const s = client(apiKey).chat.completions.stream({ model, messages, tools, tool_choice: 'auto', stream_options: { include_usage: true } });
  return s.finalChatCompletion();
}

function calls(completion) {
  return (completion.choices[0].message.tool_calls ?? []).map((c) => ({ name: c.function.name, args: JSON.parse(c.function.arguments) }));
}

test('the conversation state and the placeholders', () => {
  assert.equal(conversationOf({ messages: task }).state, 'task');
  assert.equal(conversationOf({ messages: afterCall }).state, 'tool_results');
  const c = conversationOf({ messages: continuation, tools });
  assert.equal(c.state, 'continuation');
  assert.equal(c.task, 'add a flag');
  assert.deepEqual(c.callees, ['coder', 'critic']);
  assert.deepEqual(c.answers, [{ member: 'coder', text: 'coder did: add a flag' }, { member: 'critic', text: 'fine\nby me' }]);
  assert.equal(fill('{{answers}} / {{answer.critic}} / {{answer.nobody}}.', c), 'coder said: coder did: add a flag; critic said: fine\nby me / fine\nby me / .');
  assert.equal(fill('{{task}} {{callee}} {{unknown}}', { ...c, task: '{{callee}}' }), '{{callee}} coder {{unknown}}');
  assert.equal(conversationOf({ messages: [...continuation, { role: 'assistant', content: 'x' }] }).state, 'other');
  assert.deepEqual(fencedAnswers('<untrusted-content source=member:a>\n\n</untrusted-content>'), [{ member: 'a', text: '' }]);
  assert.deepEqual(conversationOf({ messages: afterCall }).toolResults, ['held: coder holds the task; its answer comes later']);
});

for (const stream of [false, true]) {
  const how = stream ? 'streamed' : 'plain';
  test(`lead, ${how}: the task → call-member; tool results → text; the continuation → the answers`, async () => {
    const first = await ask('lead', task, stream);
    assert.equal(first.choices[0].finish_reason, 'tool_calls');
    assert.deepEqual(calls(first), [{ name: 'call-member', args: { member: 'coder', task: 'add a flag' } }]);
    assert.match(first.choices[0].message.tool_calls[0].id, /^call_replay_\d{4}$/);

    const second = await ask('lead', afterCall, stream);
    assert.equal(second.choices[0].finish_reason, 'stop');
    assert.equal(second.choices[0].message.content, 'Waiting for coder, critic.');
    assert.deepEqual(calls(second), []);

    const third = await ask('lead', continuation, stream);
    assert.equal(third.choices[0].message.content, 'Lead says: coder said: coder did: add a flag; critic said: fine\nby me');
    assert.ok(third.usage.prompt_tokens > 0 && third.usage.total_tokens === third.usage.prompt_tokens + third.usage.completion_tokens);
  });

  test(`coder and refuser, ${how}`, async () => {
    const done = await ask('coder', [{ role: 'user', content: 'write it' }], stream);
    assert.equal(done.choices[0].message.content, 'coder did: write it');
    const ended = await ask('refuser', [{ role: 'user', content: 'drop the table' }], stream);
    assert.deepEqual(calls(ended), [{ name: 'end-without-answer', args: { reason: "refuser will not do 'drop the table' without a human" } }]);
  });
}

test('a streamed answer arrives in several text deltas and tool-call argument fragments', async () => {
  const r = await fetch(`${endpoint}/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ model: 'lead', stream: true, messages: continuation, tools }),
  });
  const text = await r.text();
  const events = text.split('\n\n').filter((e) => e.startsWith('data: ') && e !== 'data: [DONE]').map((e) => JSON.parse(e.slice(6)));
  assert.ok(events.filter((e) => e.choices[0]?.delta?.content).length >= 2);
  assert.ok(text.endsWith('data: [DONE]\n\n'));
  assert.ok(!events.some((e) => e.usage), 'no usage chunk unless asked for');
  const t = await fetch(`${endpoint}/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ model: 'lead', stream: true, messages: task, tools }),
  });
  const tev = (await t.text()).split('\n\n').filter((e) => e.startsWith('data: {')).map((e) => JSON.parse(e.slice(6)));
  const fragments = tev.filter((e) => e.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments);
  assert.ok(fragments.length >= 2, 'arguments come in fragments');
});

test('a gate holds an answer until released', async () => {
  let settled = false;
  const held = ask('coder-gated', [{ role: 'user', content: 'occupy the coder' }], true).then((c) => {
    settled = true;
    return c;
  });
  // The request has arrived (recorded) and is held; an ungated request is answered meanwhile.
  for (;;) {
    const recs = await (await fetch(`${base}/__replay/requests`)).json();
    if (recs.some((q) => q.entry === 'coder-gated' && q.state === 'task')) break;
    await new Promise((ok) => setTimeout(ok, 20));
  }
  const other = await ask('coder-gated', [{ role: 'user', content: 'something else' }], true);
  assert.equal(other.choices[0].message.content, 'coder did: something else');
  assert.equal(settled, false);
  const rel = await fetch(`${base}/__replay/release?gate=coder`, { method: 'POST' });
  assert.equal(rel.status, 200);
  assert.equal((await held).choices[0].message.content, 'coder did: occupy the coder');
  const again = await ask('coder-gated', [{ role: 'user', content: 'occupy it again' }], false);
  assert.equal(again.choices[0].message.content, 'coder did: occupy it again'); // an opened gate stays open
});

test('faults: 429 with Retry-After then success; 500 and a cut stream by rule; 401 for a wrong key', async () => {
  await fetch(`${base}/__replay/reset`, { method: 'POST' });
  await assert.rejects(ask('lead-429', task, true), (err) => {
    assert.equal(err.status, 429);
    assert.equal(err.headers.get('retry-after'), '2');
    return true;
  });
  assert.equal(calls(await ask('lead-429', task, true))[0].name, 'call-member');

  await assert.rejects(ask('lead-faults', [{ role: 'user', content: 'please [500]' }], true), { status: 500 });
  await assert.rejects(ask('lead-faults', [{ role: 'user', content: 'please [500]' }], false), { status: 500 });
  await assert.rejects(ask('lead-faults', [{ role: 'user', content: 'please [cut]' }], true));
  await assert.rejects(ask('lead-faults', [{ role: 'user', content: 'please [cut]' }], false));
  assert.equal(calls(await ask('lead-faults', task, true))[0].name, 'call-member');

  await assert.rejects(ask('lead-keyed', task, true, 'a-wrong-key'), { status: 401 });
  assert.equal(calls(await ask('lead-keyed', task, true, 'replay-right-key'))[0].name, 'call-member');

  const recs = await (await fetch(`${base}/__replay/requests`)).json();
  const text = JSON.stringify(recs);
  assert.ok(!text.includes('a-wrong-key') && !text.includes('replay-right-key'), 'no key in the record');
  assert.deepEqual(recs.filter((q) => q.entry === 'lead-429').map((q) => q.status), [429, 200]);
  assert.deepEqual(recs.filter((q) => q.entry === 'lead-keyed').map((q) => q.status), [401, 200]);
  for (const q of recs) {
    assert.equal(typeof q.arrived_ms, 'number');
    assert.equal(typeof q.last_byte_ms, 'number', `${q.entry}: last byte noted`);
    assert.ok(q.last_byte_ms >= q.arrived_ms);
  }
  // Monotonic milliseconds of this machine: the same clock as this process's hrtime.
  const now = Number(process.hrtime.bigint()) / 1e6;
  assert.ok(recs.every((q) => q.last_byte_ms <= now));
  for (let i = 1; i < recs.length; ++i) assert.ok(recs[i].arrived_ms >= recs[i - 1].arrived_ms);
});

test('a request no rule fits is a 400 that names the state', async () => {
  const r = await fetch(`${endpoint}/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ model: 'refuser', messages: [...task, { role: 'assistant', content: 'x' }, { role: 'user', content: 'more' }] }),
  });
  assert.equal(r.status, 400);
  assert.match(await r.text(), /no rule for a conversation in state continuation/);
});
