#!/usr/bin/env node
// A tool server on the official MCP TypeScript SDK v2 (@modelcontextprotocol/server, pinned in
// package.json), which speaks the stateless revision 2026-07-28 beside 2025-11-25: the tools
// tests check that a member finds it modern (server/discover) and calls it with its revision in
// every request's _meta. Its tools: `shout`, its `text` upper-cased; `wait`, which answers only
// after 60 s; `after`, which says whether a `wait` call's HTTP request was closed by the client
// (it waits up to 10 s for that) — under 2026-07-28 closing it is how a call is cancelled.
//   node sdk2_server.mjs stdio   — over stdin/stdout
//   node sdk2_server.mjs http    — over streamable HTTP on a free loopback port; its URL is the
//                                  first line of stdout. Every request's method and
//                                  MCP-Protocol-Version header go to stderr, one JSON line each.
import http from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

let waitClosed = false; // a tools/call of `wait` was closed by the client before its answer

function factory() {
  const server = new McpServer({ name: 'sdk2-probe', version: '1.0.0' });
  server.registerTool('shout', { description: 'Upper-cases a text.', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }));
  server.registerTool('wait', { description: 'Answers after a minute.', inputSchema: z.object({}) },
    () => new Promise((resolve) => setTimeout(() => resolve({ content: [{ type: 'text', text: 'waited' }] }), 60000).unref()));
  server.registerTool('after', { description: 'Was a wait call closed?', inputSchema: z.object({}) }, async () => {
    for (let i = 0; i < 100 && !waitClosed; ++i) await new Promise((r) => setTimeout(r, 100));
    return { content: [{ type: 'text', text: waitClosed ? 'wait closed' : 'wait still open' }] };
  });
  return server;
}

if (process.argv[2] === 'stdio') {
  serveStdio(factory);
} else {
  const handler = createMcpHandler(factory);
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    let method = null;
    try { method = JSON.parse(body.toString('utf8')).method ?? null; } catch { /* not JSON */ }
    const log = (verb) => process.stderr.write(JSON.stringify({ verb, method, version: req.headers['mcp-protocol-version'] ?? null,
                                                              mcp_method: req.headers['mcp-method'] ?? null,
                                                              name: req.headers['mcp-name'] ?? null }) + '\n');
    log(req.method);
    res.on('close', () => {
      if (res.writableEnded) return;
      log('CLOSED');
      if (req.headers['mcp-name'] === 'wait') waitClosed = true;
    });
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method, headers: req.headers, body: ['GET', 'HEAD'].includes(req.method) ? undefined : body,
    });
    const response = await handler.fetch(request);
    if (res.destroyed) return; // the client closed it (a call it gave up on)
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  });
  server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/mcp`));
}
