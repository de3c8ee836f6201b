#!/usr/bin/env node
// A `transport: process` harness that, during its own turn, runs the MCP conformance runner's
// server scenarios against the tool server it was handed (the token lives only as long as the
// turn, so the runner has to run inside it). The token goes to the runner through a 0600 file
// read by with_bearer.mjs, never through argv or the environment.
//
// stdin: the turn's JSON object. stdout: "conformance: <scenario> passed" per scenario, exit 0
// when every scenario passed; otherwise the runner's output for the failed one and exit 1.
// Scenarios: the words after "conformance:" in the task, else server-initialize and tools-list.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const runner = join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

function runScenario(url, scenario, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [runner, 'server', '--url', url, '--scenario', scenario],
                        { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code) => resolve({ code, out }));
  });
}

async function main() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const turn = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const asked = /conformance:\s*([\w\s-]+)/.exec(String(turn.task ?? ''));
  const scenarios = asked ? asked[1].trim().split(/\s+/) : ['server-initialize', 'tools-list'];
  const dir = mkdtempSync(join(tmpdir(), 'mur-conformance-'));
  try {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, turn.tools.token + '\n', { mode: 0o600 });
    const env = { ...process.env, MCP_BEARER_TOKEN_FILE: tokenFile,
                  NODE_OPTIONS: `--import=${join(here, 'with_bearer.mjs')}` };
    const lines = [];
    for (const scenario of scenarios) {
      const r = await runScenario(turn.tools.url, scenario, env);
      if (r.code !== 0 || !/Passed: (\d+)\/\1, 0 failed/.test(r.out)) {
        process.stdout.write(lines.join('') + `conformance: ${scenario} FAILED\n` + r.out.slice(-4000));
        return 1;
      }
      lines.push(`conformance: ${scenario} passed\n`);
    }
    process.stdout.write(lines.join(''));
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code), (err) => {
  process.stderr.write(`conformance_harness: ${err?.stack ?? err}\n`);
  process.exit(1);
});
