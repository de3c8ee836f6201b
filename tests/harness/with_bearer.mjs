// Preload for the MCP conformance runner, which has no option for request headers: adds
// `Authorization: Bearer <token>` to every fetch it makes. The token is read from the file named
// by MCP_BEARER_TOKEN_FILE (never from argv or the environment itself).
//   MCP_BEARER_TOKEN_FILE=/path/to/token NODE_OPTIONS="--import=$PWD/with_bearer.mjs" \
//     npx conformance server --url http://127.0.0.1:<port>/mcp --scenario server-initialize
import { readFileSync } from 'node:fs';

const file = process.env.MCP_BEARER_TOKEN_FILE;
if (file) {
  const token = readFileSync(file, 'utf8').trim();
  const original = globalThis.fetch;
  globalThis.fetch = (input, init = {}) => {
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!headers.has('authorization')) headers.set('Authorization', `Bearer ${token}`);
    return original(input, { ...init, headers });
  };
}
