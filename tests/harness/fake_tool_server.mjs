#!/usr/bin/env node
// A stand-in for mur's loopback tool server, built from @modelcontextprotocol/sdk's own server
// side, to check the harnesses (examples/harness/capsules/agent/agent.py, sdk_harness.mjs) and
// the conformance command line before mur's server exists. Not a model of mur's rules.
//
// stdin, first line: the bearer token. stdout: one line {"url": …}, then one JSON line per tool
// call received: {"tool": name, "arguments": {…}}. `--json` answers with JSON bodies instead of
// SSE. Missing or wrong bearer ⇒ 401. Tools: call-member(member ∈ --callee …, task),
// end-without-answer(reason).
import http from 'node:http';
import readline from 'node:readline';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const callees = args.flatMap((a, i) => (args[i - 1] === '--callee' ? [a] : []));

const token = await new Promise((resolve) => {
  const rl = readline.createInterface({ input: process.stdin });
  rl.once('line', (line) => { rl.close(); resolve(line.trim()); });
});

const tools = [
  {
    name: 'call-member',
    description: 'Give a task to another member of your formation.',
    inputSchema: {
      type: 'object',
      properties: { member: { type: 'string', enum: callees }, task: { type: 'string' } },
      required: ['member', 'task'],
      additionalProperties: false,
    },
  },
  {
    name: 'end-without-answer',
    description: 'End this task without an answer.',
    inputSchema: {
      type: 'object',
      properties: { reason: { type: 'string' } },
      required: ['reason'],
      additionalProperties: false,
    },
  },
];

const called = new Set();
function newServer() {
  const server = new Server({ name: 'fake-mur-tools', version: '0.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const { name, arguments: a = {} } = req.params;
    process.stdout.write(JSON.stringify({ tool: name, arguments: a }) + '\n');
    if (name === 'call-member') {
      if (!callees.includes(a.member)) return { content: [{ type: 'text', text: 'tool error: not a callee' }], isError: true };
      if (called.has(a.member)) return { content: [{ type: 'text', text: `tool error: a call to ${a.member} is still out` }], isError: true };
      called.add(a.member);
      return { content: [{ type: 'text', text: `started: ${a.member} holds the task` }], isError: false };
    }
    if (name === 'end-without-answer') return { content: [{ type: 'text', text: 'ended' }], isError: false };
    return { content: [{ type: 'text', text: `tool error: unknown tool ${name}` }], isError: true };
  });
  return server;
}

const httpServer = http.createServer(async (req, res) => {
  if (req.url !== '/mcp') { res.writeHead(404).end(); return; }
  if (req.headers.authorization !== `Bearer ${token}`) { res.writeHead(401).end(); return; }
  if (req.method !== 'POST') { res.writeHead(405, { Allow: 'POST' }).end(); return; }
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: json });
  const server = newServer();
  res.on('close', () => { transport.close(); server.close(); });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
});
httpServer.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${httpServer.address().port}/mcp` }) + '\n');
});
