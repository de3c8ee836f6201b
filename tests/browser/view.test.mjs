// mur view's page in a real headless browser (Debian's chromium, driven over the DevTools
// protocol by playwright-core). A three-member formation — lead → coder → reviewer: the lead and
// the coder are the scripted capsules of examples/review, the reviewer an http member whose model
// (the replay server's `coder-gated` scenario) holds its answer until the test opens the gate —
// runs one task with `mur run --roster --task … --ui`. While the reviewer is held, the page must
// show all three members and the calls lead → coder and coder → reviewer as running; once the gate
// opens, the formation ends and the page shows the finished tree. Then `mur view frm_…` serves the
// ended formation: a request naming another host is refused (403), the page shows the same tree,
// and mur view ends once the page has it. A second formation — lead → a → b, b's script asks the
// operator "which colour?" — shows the question on the entry's task; the test types the answer
// into the page and presses Answer, and the entry's answer carries it. While calls are in flight
// the graph has an SVG node per member and the calls on their edges, the timeline a bar per
// task. A third formation, whose entry records its transcripts (trace.capture: content) and
// answers with HTML: a click on its task shows the transcript, the HTML as text. Every wait is a
// wait for a condition, with a generous bound; nothing is timed.
// With MUR_VIEW_SCREENSHOT=FILE, the page is also saved as a PNG while the calls are in flight
// (docs/images/view.png is made so); with MUR_VIEW_TRANSCRIPT_SCREENSHOT=FILE, the transcript
// panel of the third (docs/images/view-transcript.png).
// Run: MUR_BINARY=/path/to/mur node --test view.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';
import { startReplay } from '../models/start_replay.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const examples = join(here, '../../examples/review');
const MUR = process.env.MUR_BINARY || process.argv[2];
assert.ok(MUR, 'set MUR_BINARY to the mur executable');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const generous = 60_000; // a bound on every wait, never a speed asserted

const home = mkdtempSync(join(tmpdir(), 'mur-view-'));
const project = join(home, 'project');
const children = [];
let browser, replay;

after(async () => {
  await browser?.close();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  replay?.kill('SIGTERM');
  rmSync(home, { recursive: true, force: true });
});

const env = { ...process.env, MURMUR_HOME: join(home, 'murmur') };

function mur(args, opts = {}) {
  const r = spawnSync(MUR, args, { env, encoding: 'utf8', ...opts });
  assert.equal(r.status, 0, `mur ${args.join(' ')}: ${r.stderr}`);
  return r;
}

// Starts mur; resolves with {child, url, stdout(), stderr(), exited} once it printed its `view: URL` line.
function launch(args, cwd) {
  const child = spawn(MUR, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let err = '', out = '';
  const exited = new Promise((r) => child.once('exit', (code, sig) => r(code ?? 128)));
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
  const url = new Promise((resolve, reject) => {
    createInterface({ input: child.stderr }).on('line', (line) => {
      err += line + '\n';
      const m = /^view: (http:\/\/127\.0\.0\.1:\d+\/)(#key=[0-9a-f]{64})?$/.exec(line);
      if (m) resolve({ url: m[1], page: m[1] + (m[2] ?? '') });
    });
    child.once('exit', (code) => reject(new Error(`mur ${args.join(' ')} exited ${code} before its view line:\n${err}`)));
  });
  return url.then((u) => ({ child, url: u.url, page: u.page, stdout: () => out, stderr: () => err, exited }));
}

// A `run --ui --task` whose formation ended keeps serving its view, says so, and ends on Ctrl-C
// with the formation's own code (0 here), not 130.
async function endKeptView(run) {
  const until = Date.now() + generous;
  while (!/keeps showing its last state until Ctrl-C/.test(run.stderr()) && Date.now() < until)
    await new Promise((r) => setTimeout(r, 50));
  assert.match(run.stderr(), /keeps showing its last state until Ctrl-C/);
  assert.equal(run.child.exitCode, null, 'the view outlives the formation');
  assert.equal((await get(run.url)).statusCode, 200, 'the page is still served');
  run.child.kill('SIGINT');
  assert.equal(await run.exited, 0, run.stderr());
}

function get(url, headers) {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res));
    });
    req.on('error', reject);
    req.end();
  });
}

const arrow = ' \u2192 ';
const inFlight = (caller, callee) => `#in-flight li.in-flight[data-caller="${caller}"][data-callee="${callee}"]`;

// The finished tree: lead's task, its call to the coder, the coder's task, its call to the
// reviewer, the reviewer's task — each ended, none running.
async function assertFinishedTree(page) {
  await page.waitForSelector('body[data-running="false"]', { timeout: generous });
  const tree = page.locator('#tree');
  const leadCall = tree.locator('li.tree-call[data-caller="lead"][data-callee="coder"]');
  await assert.doesNotReject(leadCall.waitFor({ timeout: generous }));
  assert.equal(await leadCall.getAttribute('data-status'), 'completed');
  const coderCall = leadCall.locator('li.tree-call[data-caller="coder"][data-callee="reviewer"]');
  assert.equal(await coderCall.getAttribute('data-status'), 'completed');
  assert.equal(await coderCall.locator('li.tree-task[data-member="reviewer"]').count(), 1);
  assert.equal(await tree.locator('.status.running').count(), 0);
  assert.match(await tree.innerText(), /reviewer ok/);
  assert.equal(await page.locator('#in-flight li.in-flight').count(), 0);
}

test('the page shows the members, the calls in flight, then the finished tree; mur view shows it after the end', async () => {
  // The formation: examples/review's lead and coder, a gated http reviewer.
  const started = await startReplay();
  replay = started.server;
  mkdirSync(project);
  for (const c of ['lead', 'coder']) mur(['install', '-g', join(examples, 'capsules', c)]);
  const reviewer = join(home, 'reviewer');
  mkdirSync(reviewer);
  writeFileSync(join(reviewer, 'murmur.yaml'),
    'name: review-reviewer\nversion: 1.0.0\n' +
    `inference: {transport: http, endpoint: '${started.endpoint}', model: coder-gated}\n` +
    'lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n' +
    'exports: {peer_tasks: {accept: true}}\nnetwork: {authentication: {scheme: bearer}}\n');
  mur(['install', '-g', reviewer]);
  copyFileSync(join(examples, 'roster.yaml'), join(project, 'roster.yaml'));

  const run = await launch(['run', '--roster', project, '--task', 'occupy the reviewer with a flag', '--ui'], project);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1000, height: 420 } });
  const outside = [];
  page.on('request', (r) => { if (!r.url().startsWith(run.url)) outside.push(r.url()); });
  await page.goto(run.url);

  // Every member, by name, in its own card.
  for (const name of ['lead', 'coder', 'reviewer'])
    await page.waitForSelector(`.member[data-member="${name}"] h3:text-is("${name}")`, { timeout: generous });
  // The calls in flight while the reviewer's model is held: caller → callee, running.
  for (const [caller, callee] of [['lead', 'coder'], ['coder', 'reviewer']]) {
    const row = page.locator(inFlight(caller, callee));
    await row.waitFor({ timeout: generous });
    const text = await row.innerText();
    assert.ok(text.includes(caller + arrow + callee), text);
    assert.match(text, /running/);
  }
  assert.equal(await page.locator('body').getAttribute('data-running'), 'true');
  // The graph: an SVG node per member, the two calls in flight drawn on their edges; the
  // timeline: a bar per member's task.
  for (const name of ['lead', 'coder', 'reviewer']) {
    assert.equal(await page.locator(`#graph svg g.node[data-member="${name}"]`).count(), 1, name);
    await page.waitForSelector(`#timeline svg rect.bar.task[data-member="${name}"]`, { timeout: generous });
  }
  for (const [from, to] of [['lead', 'coder'], ['coder', 'reviewer']])
    await page.waitForSelector(`#graph svg path.edge.in-flight[data-from="${from}"][data-to="${to}"]`,
                               { state: 'attached', timeout: generous }); // a straight edge has no height: "hidden"
  assert.equal(await page.locator('#graph svg path.edge.in-flight').count(), 2);
  assert.equal(await page.locator('#timeline svg rect.bar.task').count(), 3);
  if (process.env.MUR_VIEW_SCREENSHOT) await page.screenshot({ path: process.env.MUR_VIEW_SCREENSHOT, fullPage: true });

  // Open the gate: the reviewer answers, the task ends, the formation ends.
  await fetch(started.endpoint.replace(/\/v1$/, '') + '/__replay/release?gate=coder', { method: 'POST' });
  await assertFinishedTree(page);
  assert.equal(await page.locator('#graph svg path.edge.in-flight').count(), 0, 'nothing in flight once ended');
  await endKeptView(run);
  assert.deepEqual(outside, [], 'the page asked for nothing outside its own origin');
  const frm = /formation (frm_[0-9a-f]{32})/.exec(run.stderr())?.[1];
  assert.ok(frm, run.stderr());

  // mur view of the ended formation.
  const view = await launch(['view', frm], project);
  const port = new URL(view.url).port;
  const rebound = await get(view.url, { Host: `rebound.example:${port}` });
  assert.equal(rebound.statusCode, 403);
  const foreign = await get(view.url + 'events', { Origin: 'http://rebound.example' });
  assert.equal(foreign.statusCode, 403);
  const csp = (await get(view.url)).headers['content-security-policy'];
  assert.match(csp, /default-src 'self'/);
  const again = await browser.newPage();
  await again.goto(view.url);
  for (const name of ['lead', 'coder', 'reviewer'])
    await again.waitForSelector(`.member[data-member="${name}"]`, { timeout: generous });
  await assertFinishedTree(again);
  assert.equal(await view.exited, 0, view.stderr());
});

test('the page shows the question a task waits on and answers it', async () => {
  // lead → a → b, script capsules; b asks the operator.
  const peer = (capabilities) => 'lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n' +
    `exports: {peer_tasks: {accept: true}}\ncapabilities: ${capabilities}\nnetwork: {authentication: {scheme: bearer}}\n`;
  const capsules = {
    'vq-lead': 'inference:\n  transport: script\n  turns:\n    - call: {member: a, task: "go {{task}}"}\n' +
               '    - reply: "lead: {{answer.a}}"\ncapabilities: {network: {allow: [localhost]}}\n' +
               'network: {authentication: {scheme: bearer}}\n',
    'vq-a': 'inference:\n  transport: script\n  turns:\n    - call: {member: b, task: "from a"}\n' +
            '    - reply: "a: {{answer.b}}"\n' + peer('{network: {allow: [localhost]}}'),
    'vq-b': 'inference:\n  transport: script\n  turns:\n    - ask: "which colour?"\n    - reply: "b: {{tool_results}}"\n' +
            peer('{network: {allow: [localhost]}, ask_operator: true}'),
  };
  for (const [name, body] of Object.entries(capsules)) {
    const dir = join(home, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'murmur.yaml'), `name: ${name}\nversion: 1.0.0\n` + body);
    mur(['install', '-g', dir]);
  }
  const asking = join(home, 'asking');
  mkdirSync(asking);
  writeFileSync(join(asking, 'roster.yaml'), 'roster_version: 1\nmembers:\n' +
    '  - {name: lead, capsule: vq-lead, version: 1.0.0, entry: true}\n' +
    '  - {name: a, capsule: vq-a, version: 1.0.0}\n  - {name: b, capsule: vq-b, version: 1.0.0}\n' +
    'reachability:\n  - {from: lead, to: [a]}\n  - {from: a, to: [b]}\n');

  const run = await launch(['run', '--roster', asking, '--task', 'now', '--deadline', '120s', '--ui'], asking);
  browser ??= await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  const page = await browser.newPage();
  // The page itself carries no key: only the URL printed on the operator's terminal does.
  assert.doesNotMatch(await (await fetch(run.url)).text(), /[0-9a-f]{64}/);
  await page.goto(run.page);

  // Another page cannot answer: without the page's key the server refuses.
  const port = new URL(run.url).port;
  const keyless = await fetch(run.url + 'answer', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ task_id: 'tsk_x', text: 'red' }) });
  assert.equal(keyless.status, 403);
  const foreign = await fetch(run.url + 'answer', { method: 'POST', body: '{}', headers: {
    'Content-Type': 'application/json', Origin: 'http://rebound.example',
    'X-Mur-View-Key': new URL(run.page).hash.slice('#key='.length) } });
  assert.equal(foreign.status, 403, `port ${port}`);

  // The question, on the entry's task only, then the answer typed and sent.
  const ask = page.locator('.member[data-member="lead"] .ask');
  await ask.waitFor({ timeout: generous });
  assert.equal(await ask.locator('.question').innerText(), 'b asks: which colour?');
  assert.equal(await page.locator('.ask').count(), 1);
  await ask.locator('input').fill('blue');
  await ask.locator('button').click();
  await page.waitForFunction(() => document.body.dataset.running === 'false' || document.querySelector('.ask .outcome.bad'),
                             null, { timeout: generous });
  assert.equal(await page.locator('.ask .outcome.bad').count(), 0, await page.locator('.ask').allInnerTexts().then(String));
  await endKeptView(run);
  assert.match(run.stdout(), /lead: a: b: The operator answered: blue/);
  assert.equal(await page.locator('.ask').count(), 0); // answered: the task asks nothing more
});

test('a click on a task shows its transcript, recorded with trace.capture: content, its HTML as text', async () => {
  // lead → w, script capsules; the lead records its transcripts and answers with markup.
  const hostile = '<script>alert(1)</script><b>x</b>';
  const auth = 'network: {authentication: {scheme: bearer}}\n';
  const capsules = {
    'vt-lead': 'inference:\n  transport: script\n  turns:\n    - call: {member: w, task: "check {{task}}"}\n' +
               `    - reply: '${hostile} {{answer.w}}'\n` +
               'capabilities: {network: {allow: [localhost]}}\ntrace: {capture: content}\n' + auth,
    'vt-w': 'inference:\n  transport: script\n  turns:\n    - delegate: {capsule: vt-child, task: "sum {{task}}"}\n' +
            '    - reply: "checked: {{task}}"\n' +
            'lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n' +
            'exports: {peer_tasks: {accept: true}}\n' +
            'capabilities: {network: {allow: [localhost]}, spawn: {allow: [vt-child@1.0.0]}}\n' + auth,
    'vt-child': 'inference:\n  transport: script\n  turns:\n    - reply: "short {{task}}"\n',
  };
  for (const [name, body] of Object.entries(capsules)) {
    const dir = join(home, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'murmur.yaml'), `name: ${name}\nversion: 1.0.0\n` + body);
    mur(['install', '-g', dir]);
  }
  const dir = join(home, 'transcript');
  mkdirSync(dir);
  writeFileSync(join(dir, 'roster.yaml'), 'roster_version: 1\nmembers:\n' +
    '  - {name: lead, capsule: vt-lead, version: 1.0.0, entry: true}\n  - {name: w, capsule: vt-w, version: 1.0.0}\n' +
    'reachability:\n  - {from: lead, to: [w]}\n');

  const run = await launch(['run', '--roster', dir, '--task', 'the plan', '--ui'], dir);
  browser ??= await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  await page.goto(run.page);
  await page.waitForSelector('body[data-running="false"]', { timeout: generous });

  // The graph attaches w's delegated child to w: a node of its own, a delegation edge from w.
  await page.waitForSelector('#graph svg g.node.child[data-member="capsule:vt-child"]', { state: 'attached', timeout: generous });
  assert.equal(await page.locator('#graph svg path.edge.delegation[data-from="w"][data-to="capsule:vt-child"]').count(), 1);
  assert.equal(await page.locator('#graph svg path.edge.callee[data-from="lead"][data-to="w"]').count(), 1);

  // Without the page's key, no transcript.
  const leadTask = await page.locator('#timeline rect.bar.task[data-member="lead"]').getAttribute('data-task-id');
  assert.match(leadTask, /^tsk_[0-9a-f]{32}$/);
  assert.equal((await fetch(run.url + 'transcript?task=' + leadTask)).status, 403);

  // The lead's task: its bar in the timeline opens the transcript (system prompt, task, the call,
  // its result, the continuation that delivered it, the answer).
  await page.locator('#timeline rect.bar.task[data-member="lead"]').click();
  const answer = page.locator('#detail .msg.answer pre.content');
  await answer.waitFor({ timeout: generous });
  assert.equal(await answer.textContent(), hostile + ' checked: check the plan');
  const roles = await page.locator('#detail .msg .role').allTextContents();
  assert.deepEqual(roles.map((r) => r.split(' \u00b7 ')[0]), ['system', 'user', 'assistant', 'tool result', 'user', 'assistant']);
  assert.equal(await page.locator('#detail .msg.user pre.content').first().textContent(), 'the plan');
  assert.match(await page.locator('#detail .msg.system pre.content').textContent(), /\S/);
  assert.match(await page.locator('#detail .tool-call .tool-name').textContent(), /call-member/);
  assert.match(await page.locator('#detail .tool-call pre.args').textContent(), /"member": "w"/);
  assert.match(await page.locator('#detail .msg.tool pre.content').textContent(), /w is now working on this call/);
  assert.match(await page.locator('#detail .msg.user pre.content').nth(1).textContent(), /checked: check the plan/);
  // A script model reports no tokens: n/a, never 0 (as mur trace show words it), and no cost.
  const facts = await page.locator('#detail .facts').innerText();
  assert.match(facts, /usage\s+n\/a tokens \u00b7 requests \d+ \u00b7 tool calls 0 \u00b7 calls 1\s/);
  assert.ok(!/cost/.test(facts), facts);
  // The answer's markup stayed text: no element was made of it, no dialog opened.
  assert.equal(await page.locator('script').count(), 1, 'only the page\'s own script');
  assert.equal(await page.locator('#detail b, #tree b:text-is("x"), #members b').count(), 0);
  assert.deepEqual(dialogs, []);
  if (process.env.MUR_VIEW_TRANSCRIPT_SCREENSHOT)
    await page.screenshot({ path: process.env.MUR_VIEW_TRANSCRIPT_SCREENSHOT, fullPage: true });

  // The callee records no transcript: its task says how to turn it on.
  await page.locator('#timeline rect.bar.task[data-member="w"]').click();
  await page.waitForSelector('#detail .note.missing', { timeout: generous });
  assert.match(await page.locator('#detail .note.missing').textContent(), /trace: \{capture: content\}/);
  await endKeptView(run);
});
