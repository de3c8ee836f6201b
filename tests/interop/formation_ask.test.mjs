// The @a2a-js/sdk client answers a member's question at the entry of a real formation
// (lead → a → b, b asks the operator): a blocking SendMessage comes back once the entry's task
// is input-required with b's question, SendMessage on that task's id answers it, the answer
// travels down to b and the entry's task completes with it; the task, once ended, takes no
// further answer. A second test cancels a task that waits for input.
// Run: MUR_BINARY=/path/to/mur node --test formation_ask.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Role, TaskState } from '@a2a-js/sdk';
import { JsonRpcUnsupportedOperationError } from '@a2a-js/sdk/errors';
import { withFormation as withChain } from './formation_client.mjs';

const MUR = process.env.MUR_BINARY || process.argv[2];
assert.ok(MUR, 'set MUR_BINARY to the mur executable');

const peer = (capabilities) => 'lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n' +
  `exports: {peer_tasks: {accept: true}}\ncapabilities: ${capabilities}\n` +
  'network: {authentication: {scheme: bearer}}\n';
const capsules = {
  'ax-lead': 'inference:\n  transport: script\n  turns:\n    - call: {member: a, task: "{{task}}"}\n    - reply: "{{answer.a}}"\n' +
             'capabilities: {network: {allow: [localhost]}}\nnetwork: {authentication: {scheme: bearer}}\n',
  'ax-a': 'inference:\n  transport: script\n  turns:\n    - call: {member: b, task: "{{task}}"}\n    - reply: "{{answer.b}}"\n' +
          peer('{network: {allow: [localhost]}}'),
  'ax-b': 'inference:\n  transport: script\n  turns:\n    - ask: "which colour for {{task}}?"\n    - reply: "b: {{tool_results}}"\n' +
          peer('{network: {allow: [localhost]}, ask_operator: true}'),
};

const textOf = (parts) => (parts || []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
const userMessage = (messageId, text, taskId) => ({
  messageId, role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text } }], ...(taskId ? { taskId } : {}),
});

const roster = 'roster_version: 1\nmembers:\n' +
  '  - {name: lead, capsule: ax-lead, version: 1.0.0, entry: true}\n' +
  '  - {name: a, capsule: ax-a, version: 1.0.0}\n  - {name: b, capsule: ax-b, version: 1.0.0}\n' +
  'reachability:\n  - {from: lead, to: [a]}\n  - {from: a, to: [b]}\n';
const withFormation = (body) => withChain(MUR, capsules, roster, ({ client }) => body(client));

// Sends "go" blocking: the answer is the entry's task, waiting for the operator with b's question.
async function askedTask(c) {
  const asked = await c.sendMessage({ message: userMessage('m-1', 'go') });
  assert.ok(asked.id && asked.status, `a task, not a message: ${JSON.stringify(asked)}`);
  assert.equal(asked.status.state, TaskState.TASK_STATE_INPUT_REQUIRED, JSON.stringify(asked.status));
  assert.equal(textOf(asked.status.message?.parts), 'b asks: which colour for go?');
  return asked;
}

test('SendMessage on the task id from the SDK answers a question two calls down', async () => {
  await withFormation(async (c) => {
    const asked = await askedTask(c);
    const got = await c.getTask({ id: asked.id });
    assert.equal(got.status.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    assert.equal(textOf(got.status.message?.parts), 'b asks: which colour for go?');

    // A blocking answer comes back once the task has ended (it asks nothing more), with b's reply.
    const done = await c.sendMessage({ message: userMessage('m-2', 'blue', asked.id) });
    assert.equal(done.id, asked.id, `the answer continues the same task: ${JSON.stringify(done)}`);
    assert.equal(done.status.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(done.status));
    assert.equal(done.artifacts.map((a) => textOf(a.parts)).join(''), 'b: The operator answered: blue');
    const ended = await c.getTask({ id: asked.id });
    assert.equal(ended.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(ended.artifacts.map((a) => textOf(a.parts)).join(''), 'b: The operator answered: blue');

    // The task has ended: a further answer to it is refused (-32004 UnsupportedOperation).
    await assert.rejects(c.sendMessage({ message: userMessage('m-3', 'red', asked.id) }), (e) => {
      assert.ok(e instanceof JsonRpcUnsupportedOperationError, `${e?.constructor?.name}: ${e?.message}`);
      assert.equal(e.envelopeCode, -32004);
      return true;
    });
  });
});

test('CancelTask from the SDK cancels a task that waits for input', async () => {
  await withFormation(async (c) => {
    const asked = await askedTask(c);
    const canceled = await c.cancelTask({ id: asked.id });
    assert.equal(canceled.status.state, TaskState.TASK_STATE_CANCELED, JSON.stringify(canceled.status));
    assert.equal(textOf(canceled.status.message?.parts), 'the task was canceled by the operator; canceled below it: a, b');
    assert.deepEqual(canceled.metadata.murmur.noAnswerBelow, [{ member: 'a', status: 'canceled' }, { member: 'b', status: 'canceled' }]);
    const got = await c.getTask({ id: asked.id });
    assert.equal(got.status.state, TaskState.TASK_STATE_CANCELED);
    // Canceled, it waits for nothing: an answer to it is refused.
    await assert.rejects(c.sendMessage({ message: userMessage('m-2', 'blue', asked.id) }),
                         (e) => e instanceof JsonRpcUnsupportedOperationError);
  });
});
