// start_replay.mjs — starts replay_server.mjs on a free loopback port for a node test and
// resolves to {server, endpoint} once it printed its endpoint (its first stdout line); rejects
// if it exits first. Extra arguments go to the server (e.g. ['--event-delay-ms', '40']).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export async function startReplay(extra = []) {
  const server = spawn(process.execPath, [join(here, 'replay_server.mjs'), '--port', '0', ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const endpoint = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (c) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    server.on('exit', (code) => reject(new Error(`replay server exited (${code})`)));
  });
  return { server, endpoint };
}
