// The Vue bindings (@dynamicforms/fastapi-viewsets/vue) in a real Vue 3 app: tests/vue-app (single
// file components, TypeScript, the proxy kept in a ref), built by Vite with @vitejs/plugin-vue
// against the package as an app installs it (`npm pack` of pkg/), served as a production build and
// driven in headless Chromium against the real backend behind the fault proxy. Nothing is mocked:
// two tabs, own writes, a failed read, a replayed answer after a delete, a sorted list, a start-up
// race, a silent socket, a cut socket with a resync, and an unmounted component.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import vue from '@vitejs/plugin-vue';
import { chromium } from 'playwright-core';
import { build } from 'vite';

import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const appDir = path.join(repoRoot, 'target', 'vue-app');
let stack;
let browser;
let server;
let origin;

/** The server's rows (a second client, plain fetch) as `id:name` strings. */
async function serverRows(pathAndQuery = '/items', field = 'name') {
  const response = await fetch(`${stack.baseUrl}${pathAndQuery}`);
  return (await response.json()).map((row) => `${row.id}:${row[field]}`);
}

async function write(method, pathname, body) {
  const response = await fetch(`${stack.baseUrl}${pathname}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  assert.ok(response.ok, `${method} ${pathname}: ${response.status}`);
  return response.json();
}

async function reset() {
  await fetch(`${stack.baseUrl}/__test/reset`, { method: 'POST' });
  await stack.clearFaults();
}

/** A tab of the app (`query`: transport, sort, …), once its list has read. */
async function tab(query = '') {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // (a missing favicon is no error of the app's)
  page.on('console', (message) => message.type() === 'error' && !/Failed to load resource/.test(message.text()) && errors.push(message.text()));
  await page.goto(`${origin}/${query}`);
  await page.waitForSelector('#status[data-loading="false"]', { timeout: 15_000 }).catch((error) => {
    throw new Error(`the app did not read its list: ${errors.join('; ') || error.message}`);
  });
  page.errors = errors;
  return page;
}

/** The rows a tab shows, as `id:name` strings (a pending create without an id as `:name`). */
const shown = (page) => page.$$eval('#rows li', (items) => items.map((li) => `${li.dataset.id ?? ''}:${li.textContent.trim()}`));

/** Waits until the tab shows what the server holds. */
async function untilSame(page, what, pathAndQuery, field) {
  const deadline = Date.now() + 8000;
  for (;;) {
    const [rows, server] = [await shown(page), await serverRows(pathAndQuery, field)];
    if (JSON.stringify(rows) === JSON.stringify(server)) return rows;
    if (Date.now() > deadline) throw new Error(`${what}: the tab shows ${JSON.stringify(rows)}, the server holds ${JSON.stringify(server)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const why = (page) => page.$eval('#status', (p) => p.dataset.why);

before(async () => {
  stack = await startStack({});
  // the app as an app gets the package: packed, installed (vue and the plugin come from the workspace)
  fs.rmSync(appDir, { recursive: true, force: true });
  fs.cpSync(path.join(repoRoot, 'tests', 'vue-app'), appDir, { recursive: true });
  fs.writeFileSync(path.join(appDir, 'package.json'), JSON.stringify({ name: 'vue-app', private: true, type: 'module' }));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', appDir, path.join(repoRoot, 'pkg')], { encoding: 'utf8' }).trim().split('\n').pop();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', '--no-package-lock', path.join(appDir, tarball)], { cwd: appDir, stdio: 'ignore' });
  fs.mkdirSync(path.join(appDir, 'public'), { recursive: true });
  fs.writeFileSync(path.join(appDir, 'public', 'config.json'), JSON.stringify({ baseUrl: stack.baseUrl, wsUrl: stack.wsUrl }));
  await build({ root: appDir, configFile: false, logLevel: 'silent', plugins: [vue()], build: { outDir: 'dist', target: 'es2022' } });
  const dist = path.join(appDir, 'dist');
  const types = { '.js': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm', '.json': 'application/json' };
  server = http.createServer((request, response) => {
    const pathname = new URL(request.url, 'http://x').pathname;
    const file = path.join(dist, pathname === '/' ? 'index.html' : pathname);
    if (!file.startsWith(dist) || !fs.existsSync(file)) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  console.log(`chromium ${browser.version()}, vue ${JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules', 'vue', 'package.json'), 'utf8')).version}`);
});

after(async () => {
  await browser?.close();
  if (server) await new Promise((resolve) => server.close(resolve));
  await stack?.stop();
});

test('vue: two tabs over REST — a write in one shows in the other; the app ships the live list and the composables', async () => {
  await reset();
  const [a, b] = [await tab(), await tab()];
  try {
    await a.evaluate(() => window.app.items().create({ name: 'from A' }));
    await untilSame(b, 'tab B');
    await b.evaluate(() => window.app.items().create({ name: 'from B' }));
    const rows = await untilSame(a, 'tab A');
    assert.equal(rows.length, 2);
    assert.deepEqual([...a.errors, ...b.errors], []);
  } finally {
    await a.close();
    await b.close();
  }
});

test('vue: two tabs over muxws — pushed; an own write shows at once, marked, and is reconciled without a duplicate', async () => {
  await reset();
  const [a, b] = [await tab('?transport=muxws'), await tab('?transport=muxws')];
  try {
    await a.waitForSelector('#status[data-mode="push"]');
    // in one task: the call, then the DOM after Vue's update (a microtask)
    const atOnce = await a.evaluate(async () => {
      const call = window.app.items().create({ name: 'mine' });
      // microtasks only (the list's batch, then Vue's update): still the task of the call
      for (let i = 0; i < 10; i++) await Promise.resolve();
      const li = [...document.querySelectorAll('#rows li')].find((item) => item.textContent.trim() === 'mine');
      const state = li?.dataset.state;
      const marked = li?.dataset.key === call.key;
      const html = document.querySelector('#rows').innerHTML + document.querySelector('#pending').innerHTML;
      await call;
      return { state, marked, ...(li ? {} : { html }) };
    });
    assert.deepEqual(atOnce, { state: 'sending', marked: true }, `shown before the answer, marked with the call (${a.errors.join('; ')})`);
    const rows = await untilSame(a, 'tab A reconciled');
    assert.equal(rows.length, 1, 'no duplicate');
    assert.equal(await a.$eval('#rows li', (li) => li.dataset.state), '', 'no longer pending');
    await untilSame(b, 'tab B got the push');
  } finally {
    await a.close();
    await b.close();
  }
});

test('vue: a change whose read fails is read again; the status says so meanwhile', async () => {
  await reset();
  const page = await tab('?delay=50');
  try {
    // the retrieve of the change fails with 500 (stored outcomes aside, a 500 is not repeated)
    await stack.fault('status:500', { count: 2, path: '/items/', method: 'GET' });
    await write('POST', '/items', { name: 'second' });
    await page.waitForSelector('#status[data-why="read-failed"]', { timeout: 5000 });
    await untilSame(page, 'read again');
    await page.waitForSelector('#status[data-why=""]', { timeout: 5000 });
  } finally {
    await stack.clearFaults();
    await page.close();
  }
});

test('vue: a replayed answer after another tab deleted the row does not bring it back', async () => {
  await reset();
  const x = await write('POST', '/items', { name: 'X' });
  const page = await tab('?delay=1500');
  try {
    // The loss is made here, not left to the browser: the backend runs the PATCH, the proxy sends the
    // answer's head and half its body, then closes. Response bytes arrived, so no browser resends the
    // request by itself (as Chromium does when a reused connection closes before any answer); the
    // package alone sees the loss and repeats under the same key.
    await stack.fault('truncate_after', { count: 1, path: `/items/${x.id}`, method: 'PATCH' });
    await page.evaluate((id) => {
      window.renamed = window.app.items().partialUpdate(id, { name: 'X-renamed' });
    }, x.id);
    await page.waitForSelector('#pending li[data-state="repeating"]', { timeout: 5000 }).catch(async (error) => {
      throw new Error(`${error.message}: ${await page.$eval('body', (body) => body.innerHTML)}`);
    });
    await write('DELETE', `/items/${x.id}`);
    await page.waitForFunction(() => document.querySelectorAll('#rows li').length === 0, null, { timeout: 5000 });
    const answer = await page.evaluate(() => window.renamed);
    assert.equal(answer.name, 'X-renamed', 'the repeat got the stored outcome');
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.deepEqual(await shown(page), [], 'the row stays deleted');
  } finally {
    await page.close();
  }
});

test('vue: a sorted, filtered list shows the server’s order after each change', async () => {
  await fetch(`${stack.baseUrl}/__test/catalog/seed`, { method: 'POST' });
  const page = await tab('?books');
  try {
    for (const title of ['banana', 'aardvark', 'apple']) await write('POST', '/catalog/books', { title, author: 'Zed' });
    const rows = await untilSame(page, 'sorted', '/catalog/books?sort=title&author=Zed', 'title');
    assert.deepEqual(rows.map((row) => row.split(':')[1]), ['aardvark', 'apple', 'banana']);
  } finally {
    await page.close();
    await fetch(`${stack.baseUrl}/__test/catalog/seed`, { method: 'POST' });
  }
});

test('vue: writes during the first read are all shown (start-up race)', async () => {
  await reset();
  await write('POST', '/items', { name: 'before' });
  await stack.fault('delay:1', { count: 1, path: '/items', method: 'GET' });
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const a = await write('POST', '/items', { name: 'during' });
    await write('PATCH', '/items/1', { name: 'before, renamed' });
    await write('POST', '/items', { name: 'during 2' });
    await write('DELETE', `/items/${a.id}`);
    await page.waitForSelector('#status[data-loading="false"]', { timeout: 10_000 });
    await untilSame(page, 'after the first read');
  } finally {
    await page.close();
  }
});

test('vue: a silent muxws socket shows "may be behind" before its ping times out', async () => {
  await reset();
  const page = await tab('?transport=muxws&ping=400&silent=700');
  try {
    await page.waitForSelector('#status[data-mode="push"]');
    await new Promise((resolve) => setTimeout(resolve, 1200));
    assert.equal(await why(page), '', 'a healthy socket is current');
    await stack.silenceWs();
    await page.waitForSelector('#status[data-why="silent"]', { timeout: 3000 });
    assert.equal(await page.evaluate(() => window.app.peer.isOpen), true, 'before the ping timed out');
    await stack.unsilenceWs();
    await page.waitForSelector('#status[data-why=""]', { timeout: 5000 });
  } finally {
    await stack.clearFaults();
    await page.close();
  }
});

test('vue: a cut socket and a resync (more writes than the log holds) — the list reads again', async () => {
  await reset();
  const page = await tab('?transport=muxws');
  try {
    await page.waitForSelector('#status[data-mode="push"]');
    await stack.killWs();
    await Promise.all(Array.from({ length: 40 }, (_, i) => write('POST', '/items', { name: `missed ${i}` })));
    const rows = await untilSame(page, 'after the resync');
    assert.equal(rows.length, 40);
    await page.waitForSelector('#status[data-mode="push"][data-why=""]', { timeout: 8000 });
  } finally {
    await page.close();
  }
});

test('vue: a persisted write resumed after a reload shows as pending again, then answered once', async () => {
  await reset();
  const page = await tab('?persist&delay=60000');
  try {
    // its first attempt is lost before the backend; the repeat waits a minute
    await stack.fault('drop_before', { count: 2, path: '/items', method: 'POST' });
    const key = await page.evaluate(() => {
      const call = window.app.items().create({ name: 'persisted' });
      call.catch(() => {});
      return call.key;
    });
    await page.waitForSelector(`#pending li[data-key="${key}"][data-state="repeating"]`, { timeout: 5000 });
    await new Promise((resolve) => setTimeout(resolve, 500)); // stored in IndexedDB in the task of the call; let it commit
    await stack.clearFaults();
    // the resumed attempt is held 2 s by the proxy: long enough to see it pending after the reload
    await stack.fault('delay_before:2', { count: 1, path: '/items', method: 'POST' });
    await page.reload();
    await page.waitForSelector(`#pending li[data-key="${key}"][data-resumed="true"]`, { timeout: 10_000 });
    assert.equal(await page.$eval(`#rows li[data-key="${key}"]`, (li) => li.textContent.trim()), 'persisted', 'the row shown, marked with its call');
    await page.waitForFunction((k) => !document.querySelector(`#pending li[data-key="${k}"]`), key, { timeout: 10_000 });
    const rows = await untilSame(page, 'answered');
    assert.deepEqual(rows.map((row) => row.split(':')[1]), ['persisted'], 'created once');
  } finally {
    await stack.clearFaults();
    await page.close();
  }
});

test('vue: a component unmounted leaves the server no subscription of that socket', async () => {
  await reset();
  const page = await tab('?transport=muxws');
  try {
    await page.waitForSelector('#status[data-mode="push"]');
    const held = async () => (await (await fetch(`${stack.baseUrl}/__test/events/subscriptions`)).json()).sockets;
    assert.ok((await held()).some((topics) => topics.includes('/items')), 'subscribed while mounted');
    await page.evaluate(() => window.app.hide());
    await page.waitForSelector('#hidden');
    const deadline = Date.now() + 5000;
    while ((await held()).some((topics) => topics.includes('/items'))) {
      assert.ok(Date.now() < deadline, `a subscription is left: ${JSON.stringify(await held())}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(await page.evaluate(() => window.app.peer.isOpen), true, 'the socket itself stays');
  } finally {
    await page.close();
  }
});

/** The server's first `pages` cursor pages of /catalog/big-cursor sorted by rank, as `id:name` strings (what the scroll's window holds). */
async function bigPages(pages) {
  const rows = [];
  let page = null;
  for (let i = 0; i < pages && (!page || page.has_more); i++) {
    const query = new URLSearchParams({ sort: 'rank', ...(page ? { cursor: page.next } : {}) });
    page = await (await fetch(`${stack.baseUrl}/catalog/big-cursor?${query}`)).json();
    rows.push(...page.results.map((row) => `${row.id}:${row.name}`));
  }
  return rows;
}

test('vue: an infinite scroll of 5 000 rows (IntersectionObserver) scrolled to row 1 000, kept live: a delete at row 950 and a create at the top show as the server holds them, never a row twice', async () => {
  await fetch(`${stack.baseUrl}/__test/big/seed`, { method: 'POST' });
  await stack.clearFaults();
  const page = await tab('?scroll');
  try {
    // every animation frame the page draws is checked for a row shown twice
    await page.evaluate(() => {
      window.twice = [];
      const check = () => {
        const ids = [...document.querySelectorAll('#rows li')].map((li) => li.dataset.id);
        if (new Set(ids).size !== ids.length) window.twice.push(ids.length);
        window.checking = requestAnimationFrame(check);
      };
      check();
    });
    const count = () => page.$$eval('#rows li', (items) => items.length);
    // scrolled to the end again and again: the observer asks for the next page each time
    const deadline = Date.now() + 30_000;
    while ((await count()) < 1000) {
      assert.ok(Date.now() < deadline, `scrolled to ${await count()} rows`);
      await page.evaluate(() => document.querySelector('#end').scrollIntoView());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await page.waitForSelector('#status[data-window="can-load-more"]');
    // (the last scroll may have asked for a page more)
    const pages = (await count()) / 100;
    assert.ok(pages === 10 || pages === 11, `whole pages: ${pages}`);
    const shownRows = () => shown(page);
    assert.deepEqual(await shownRows(), await bigPages(pages), 'the server’s first rows in its order');
    // another client deletes the row shown 950th and creates one at the top
    const row950 = (await shown(page))[949].split(':')[0];
    await write('DELETE', `/catalog/big-cursor/${row950}`);
    const top = await write('POST', '/catalog/big-cursor', { name: 'at the top', rank: -1 });
    // (each change reads the window's 10 pages again, one at a time: seconds on a loaded machine)
    const until = Date.now() + 40_000;
    for (;;) {
      const [rows, server] = [await shownRows(), await bigPages(pages)];
      if (JSON.stringify(rows) === JSON.stringify(server)) break;
      const status = await page.evaluate(() => JSON.stringify({ status: window.scroll.list.value.status, follower: [window.scroll.list.value.follower?.mode, window.scroll.list.value.follower?.cursor], calls: window.scroll.pendingCalls().map((call) => [call.method, call.path, call.waitingFor]) }));
      const at = rows.findIndex((row, i) => row !== server[i]);
      assert.ok(Date.now() < until, `the rows shown are not the server's: ${rows.length} against ${server.length}, from ${at}: ${rows.slice(at, at + 2)} | ${server.slice(at, at + 2)}; ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const rows = await shown(page);
    assert.equal(rows[0], `${top.id}:at the top`, 'the created row at the top');
    assert.ok(!rows.some((row) => row.startsWith(`${row950}:`)), 'the deleted row gone');
    assert.deepEqual(await page.evaluate(() => window.twice), [], 'no frame showed a row twice');
    assert.deepEqual(page.errors, []);
  } finally {
    await page.evaluate(() => cancelAnimationFrame(window.checking)).catch(() => {});
    await page.close();
  }
});
