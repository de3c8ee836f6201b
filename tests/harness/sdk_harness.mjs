#!/usr/bin/env node
// A `transport: process` harness for mur's tests, written against a real MCP client nobody here
// wrote: @modelcontextprotocol/sdk's Client over StreamableHTTPClientTransport (pinned in
// package-lock.json). Per turn, mur writes one JSON object on stdin (docs/harness.md, "The
// protocol").
//
//   mode "new":    list the tools, call `call-member` (member = the first callee, task = the
//                  task as received), print "asked <member>", exit 0.
//   mode "resume": print "harness answer: " + message (the continuation with the fenced answers).
//
// Extra behaviours for the process tests, chosen by a word in the task (mode "new" only):
//   [end-without-answer]  call `end-without-answer` instead of `call-member`
//   [call-twice]          call `call-member` twice for the same member (the second is refused)
//   [all-callees]         call every callee, not only the first
//   [crash]               write "crashed on purpose" to stderr and exit 3
//   [hang]                never write, never exit (the turn timeout must end it)
//   [flood]               write 10 MiB to stdout and exit 0
//   [ask]                 call `ask-operator` and answer with its result
// The result text of every tool call goes to stderr, one line each: `tool <name>: <text>`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function textOf(result) {
  return (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

async function connect(tools) {
  const client = new Client({ name: 'mur-sdk-harness', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(tools.url), {
    requestInit: { headers: { Authorization: `Bearer ${tools.token}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

async function callTool(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  process.stderr.write(`tool ${name}: ${result.isError ? '(error) ' : ''}${textOf(result)}\n`);
  return result;
}

function writeAll(text) {
  return new Promise((resolve) => process.stdout.write(text, resolve));
}

async function main() {
  const turn = await readStdin();
  if (turn.session?.mode === 'resume') {
    await writeAll(`harness answer: ${turn.message}`);
    return 0;
  }
  const task = String(turn.task ?? '');
  if (task.includes('[crash]')) {
    process.stderr.write('crashed on purpose\n');
    return 3;
  }
  if (task.includes('[hang]')) {
    await new Promise(() => setInterval(() => {}, 1 << 30));
  }
  if (task.includes('[flood]')) {
    const line = 'x'.repeat(1023) + '\n';
    await writeAll(line.repeat(10 * 1024));
    return 0;
  }
  const callees = turn.callees ?? [];
  const { client } = await connect(turn.tools);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    process.stderr.write(`tools: ${names.join(', ')}\n`);
    if (task.includes('[ask]')) {
      const result = await callTool(client, 'ask-operator', { question: 'which colour?' });
      await writeAll(`harness answer: ${textOf(result)}`);
      return 0;
    }
    if (task.includes('[end-without-answer]')) {
      await callTool(client, 'end-without-answer', { reason: 'the harness was asked to end without an answer' });
      await writeAll('ended without an answer');
      return 0;
    }
    if (callees.length === 0) {
      await writeAll(`harness answer: ${task}`);
      return 0;
    }
    if (!names.includes('call-member')) {
      process.stderr.write('the tool server offers no call-member\n');
      return 4;
    }
    const targets = task.includes('[all-callees]') ? callees : [callees[0]];
    for (const member of targets) {
      const result = await callTool(client, 'call-member', { member, task });
      if (task.includes('[call-twice]')) await callTool(client, 'call-member', { member, task });
      if (result.isError && !task.includes('[call-twice]')) {
        process.stderr.write(`call-member ${member} refused\n`);
        return 5;
      }
    }
    await writeAll(`asked ${targets.join(', ')}`);
    return 0;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`sdk_harness: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
