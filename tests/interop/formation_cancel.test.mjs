// The @a2a-js/sdk client cancels a task at the entry of a real formation (lead → a → b, b
// thinking for a minute): its CancelTask, with the cancel extension's confirmWithinMs in its
// metadata, is answered once the whole chain has canceled, and the answer lists what was
// canceled below (docs/cancel.md).
// Run: MUR_BINARY=/path/to/mur node --test formation_cancel.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Role, TaskState } from '@a2a-js/sdk';
import { withFormation } from './formation_client.mjs';

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

const roster = 'roster_version: 1\nmembers:\n' +
  '  - {name: lead, capsule: cx-lead, version: 1.0.0, entry: true}\n' +
  '  - {name: a, capsule: cx-a, version: 1.0.0}\n  - {name: b, capsule: cx-b, version: 1.0.0}\n' +
  'reachability:\n  - {from: lead, to: [a]}\n  - {from: a, to: [b]}\n';

test('CancelTask from the SDK at a formation entry cancels the chain and lists it', async () => {
  await withFormation(MUR, capsules, roster, async ({ client: c, env, entry, record }) => {
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
  });
});
