// Preload for the MCP conformance runner, which has no option for request headers: adds
// `Authorization: Bearer <token>` to every HTTP request it makes, by each of the three ways it
// makes them (0.2.0-alpha.12 uses all three; 0.1.13 only the first):
//   - the global `fetch` (its MCP client, and most scenarios' own requests);
//   - `request` of the npm `undici` in the runner's own tree (dns-rebinding-protection, which sets
//     its own Host and Origin): through that undici's global dispatcher, which the runner's
//     undici would install itself on load, here made first and wrapped (found from the main
//     script, process.argv[1]: the runner);
//   - `node:http`'s request/get (http-header-validation, http-custom-header-server-validation).
// A request that already carries an Authorization header keeps it. The token is read from the
// file named by MCP_BEARER_TOKEN_FILE (never from argv or the environment itself); when
// MCP_BEARER_ORIGIN (e.g. http://127.0.0.1:PORT, not a secret) is set, only requests to that
// origin get it.
//   MCP_BEARER_TOKEN_FILE=/path/to/token NODE_OPTIONS="--import=$PWD/with_bearer.mjs" \
//     npx conformance server --url http://127.0.0.1:<port>/mcp --scenario server-initialize
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';

const file = process.env.MCP_BEARER_TOKEN_FILE;
if (file) {
  const bearer = `Bearer ${readFileSync(file, 'utf8').trim()}`;
  const origin = process.env.MCP_BEARER_ORIGIN ? new URL(process.env.MCP_BEARER_ORIGIN) : null;
  // Whether a request to host:port (port a string, '' for the scheme's) gets the token.
  const meant = (host, port) => !origin || (host.replace(/^\[|\]$/g, '') === origin.hostname.replace(/^\[|\]$/g, '') &&
                                            String(port || '80') === (origin.port || '80'));
  const meantUrl = (url) => { try { const u = new URL(String(url)); return meant(u.hostname, u.port); } catch { return false; } };

  const originalFetch = globalThis.fetch;
  globalThis.fetch = (input, init = {}) => {
    const url = input instanceof Request ? input.url : input;
    if (!meantUrl(url)) return originalFetch(input, init);
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!headers.has('authorization')) headers.set('Authorization', bearer);
    return originalFetch(input, { ...init, headers });
  };

  // node:http: the header is set on the request before anything is written (get is request +
  // end, as node's own, so that it goes through the wrapped request).
  const originalRequest = http.request;
  http.request = function (...args) {
    const req = originalRequest.apply(this, args);
    const first = args[0];
    const target = typeof first === 'string' || first instanceof URL ? meantUrl(first)
      : meant(String(first?.hostname ?? first?.host ?? 'localhost'), first?.port ?? '');
    if (target && !req.hasHeader('authorization')) req.setHeader('Authorization', bearer);
    return req;
  };
  http.get = (...args) => { const req = http.request(...args); req.end(); return req; };

  // The runner's undici (absent from 0.1.13's tree): its default dispatcher, wrapped.
  let undici = null;
  try { undici = createRequire(process.argv[1] ?? import.meta.url)('undici'); } catch { /* not in this tree */ }
  if (undici?.getGlobalDispatcher && undici.setGlobalDispatcher) {
    const hasAuth = (h) => Array.isArray(h)
      ? h.some((x, i) => (Array.isArray(x) ? String(x[0]) : i % 2 === 0 ? String(x) : '').toLowerCase() === 'authorization')
      : h != null && Object.keys(h).some((k) => k.toLowerCase() === 'authorization');
    const withAuth = (h) => {
      if (h == null) return { authorization: bearer };
      if (!Array.isArray(h) && typeof h[Symbol.iterator] === 'function') h = Array.from(h); // Headers, Map
      if (hasAuth(h)) return h;
      if (Array.isArray(h)) return Array.isArray(h[0]) ? [...h, ['authorization', bearer]] : [...h, 'authorization', bearer];
      return { ...h, authorization: bearer };
    };
    undici.setGlobalDispatcher(undici.getGlobalDispatcher().compose((dispatch) => (opts, handler) =>
      dispatch(meantUrl(opts.origin) ? { ...opts, headers: withAuth(opts.headers) } : opts, handler)));
  }
}
