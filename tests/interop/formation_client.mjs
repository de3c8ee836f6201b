// A real formation for the interop tests: its capsules installed into a fresh MURMUR_HOME,
// `mur run --roster --json` started, and an @a2a-js/sdk client of its entry that bears the
// entry's operator token (read from the 0600 running record, never from argv or output).
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

// `capsules`: name → murmur.yaml after its name and version; `roster`: roster.yaml's text.
// `body` gets {client, env, entry, record}; the formation is stopped and everything removed after.
export async function withFormation(mur, capsules, roster, body) {
  const root = mkdtempSync(join(tmpdir(), 'mur-interop-'));
  const env = { ...process.env, MURMUR_HOME: join(root, 'home') };
  for (const [name, manifest] of Object.entries(capsules)) {
    const dir = join(root, 'capsules', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'murmur.yaml'), `name: ${name}\nversion: 1.0.0\n${manifest}`);
    execFileSync(mur, ['install', '-g', dir], { env, stdio: 'ignore' });
  }
  const project = join(root, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'roster.yaml'), roster);
  const run = spawn(mur, ['run', '--roster', project, '--json'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => run.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    const lines = createInterface({ input: run.stdout })[Symbol.asyncIterator]();
    await lines.next(); // the formation line
    const entry = JSON.parse((await lines.next()).value);
    const record = JSON.parse(readFileSync(join(env.MURMUR_HOME, 'running', `${entry.session_id}.json`), 'utf8'));
    const fetchImpl = (url, init = {}) => {
      const headers = new Headers(init.headers || {});
      headers.set('Authorization', `Bearer ${record.operator_token}`);
      return fetch(url, { ...init, headers });
    };
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default,
                                                    { transports: [new JsonRpcTransportFactory({ fetchImpl })] });
    const client = await new ClientFactory(options).createFromUrl(entry.url);
    await body({ client, env, entry, record });
  } finally {
    run.kill('SIGTERM');
    await exited;
    rmSync(root, { recursive: true, force: true });
  }
}
