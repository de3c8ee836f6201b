#!/usr/bin/env node
// A tool server on the official MCP TypeScript SDK v2 (@modelcontextprotocol/server, pinned in
// package.json), which speaks the stateless revision 2026-07-28 beside 2025-11-25: the tools
// tests check that a member finds it modern (server/discover) and calls it with its revision in
// every request's _meta. One tool, `shout`: its `text` upper-cased.
//   node sdk2_server.mjs stdio   — over stdin/stdout
//   node sdk2_server.mjs http    — over streamable HTTP on a free loopback port; its URL is the
//                                  first line of stdout. Every request's method and
//                                  MCP-Protocol-Version header go to stderr, one JSON line each.
import http from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

function factory() {
  const server = new McpServer({ name: 'sdk2-probe', version: '1.0.0' });
  server.registerTool('shout', { description: 'Upper-cases a text.', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }));
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
    process.stderr.write(JSON.stringify({ verb: req.method, method, version: req.headers['mcp-protocol-version'] ?? null,
                                          mcp_method: req.headers['mcp-method'] ?? null }) + '\n');
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method, headers: req.headers, body: ['GET', 'HEAD'].includes(req.method) ? undefined : body,
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  });
  server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/mcp`));
}
