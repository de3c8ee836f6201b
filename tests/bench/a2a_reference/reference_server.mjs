// reference_server.mjs — the @a2a-js/sdk 1.3 express echo server (docs/spec/a2a.md §Reference
// client and server), the
// reference the mur door is measured against (tests/bench/run_a2a_side_by_side.sh).
// JSON-RPC at "/", agent card at /.well-known/agent-card.json, InMemoryTaskStore; each task is
// answered with an artifact echoing the message text, then COMPLETED.
// Prints one JSON line {"url": "http://127.0.0.1:PORT"} on stdout once listening.
// Usage: node reference_server.mjs [port]   (port 0 or omitted = an ephemeral port)
import express from 'express';
import { randomUUID } from 'node:crypto';
import { TaskState, AGENT_CARD_PATH } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore, AgentEvent } from '@a2a-js/sdk/server';
import { jsonRpcHandler, agentCardHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const now = () => new Date().toISOString();
let base = 'http://127.0.0.1:0'; // fixed once listening; the card reads it lazily
const card = () => ({
  name: 'Echo reference', description: 'echo', version: '1.0.0',
  supportedInterfaces: [{ url: `${base}/`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {}, securityRequirements: [], signatures: [],
  defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['echo'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
});

const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId, userMessage } = ctx;
    const text = userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    bus.publish(AgentEvent.task(ctx.task ?? { id: taskId, contextId, artifacts: [], history: [userMessage], metadata: undefined,
      status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now(), message: undefined } }));
    bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, append: false, lastChunk: true, metadata: undefined,
      artifact: { artifactId: randomUUID(), name: 'echo', description: '', metadata: undefined, extensions: [],
        parts: [{ content: { $case: 'text', value: `echo: ${text}` }, mediaType: 'text/plain', filename: '', metadata: undefined }] } }));
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, metadata: undefined,
      status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: now(), message: undefined } }));
    bus.finished();
  },
  async cancelTask() {},
};

const rh = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
const app = express();
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: { getAgentCard: async () => card() } }));
app.use(jsonRpcHandler({ requestHandler: rh, userBuilder: UserBuilder.noAuthentication }));
const server = app.listen(Number(process.argv[2] || process.env.PORT || 0), '127.0.0.1', () => {
  base = `http://127.0.0.1:${server.address().port}`;
  process.stdout.write(`${JSON.stringify({ url: base, pid: process.pid })}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
