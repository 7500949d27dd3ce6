// The Vue bindings (@dynamicforms/fastapi-viewsets/vue) in a real Vue 3 app: tests/vue-app (single
// file components, TypeScript, the proxy kept in a ref), built by Vite with @vitejs/plugin-vue
// against the package as an app installs it (`npm pack` of pkg/), served as a production build and
// driven in headless Chromium against the real backend behind the fault proxy. Nothing is mocked:
// two tabs, own writes, a failed read, a replayed answer after a delete, a sorted list, a start-up
// race, a silent socket, a cut socket with a resync, and an unmounted component.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import vue from '@vitejs/plugin-vue';
import { chromium } from 'playwright-core';
import { build } from 'vite';

import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';
import { serveDist } from './consumer-app.mjs';

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
  // PKG_DIR: another build of the package (an earlier one, to see these tests fail on it)
  const pkgDir = process.env.PKG_DIR ? path.resolve(process.env.PKG_DIR) : path.join(repoRoot, 'pkg');
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', appDir, pkgDir], { encoding: 'utf8' }).trim().split('\n').pop();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', '--no-package-lock', path.join(appDir, tarball)], { cwd: appDir, stdio: 'ignore' });
  fs.mkdirSync(path.join(appDir, 'public'), { recursive: true });
  fs.writeFileSync(path.join(appDir, 'public', 'config.json'), JSON.stringify({ baseUrl: stack.baseUrl, wsUrl: stack.wsUrl }));
  await build({ root: appDir, configFile: false, logLevel: 'silent', plugins: [vue()], build: { outDir: 'dist', target: 'es2022' } });
  const dist = path.join(appDir, 'dist');
  server = await serveDist(dist, stack, { policy: null });
  origin = new URL(server.url).origin;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  console.log(`chromium ${browser.version()}, vue ${JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules', 'vue', 'package.json'), 'utf8')).version}`);
});

after(async () => {
  await browser?.close();
  await server?.close();
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
    // the writes go while the first read is held: once its GET reached the proxy (the delay fault taken), not after a time
    const deadline = Date.now() + 10_000;
    while ((await stack.faults()).faults.length > 0) {
      assert.ok(Date.now() < deadline, 'the first read reached the proxy');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
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
    // stored in IndexedDB in the task of the call: wait until its record is there (read in the page),
    // not for a time (the package opened the database before this open, so this one creates nothing)
    await page.waitForFunction(
      (k) =>
        new Promise((resolve) => {
          const open = indexedDB.open('fastapi-viewsets');
          open.onerror = () => resolve(false);
          open.onsuccess = () => {
            const db = open.result;
            if (!db.objectStoreNames.contains('calls')) return db.close(), resolve(false);
            const get = db.transaction('calls').objectStore('calls').get(k);
            get.onsuccess = () => (db.close(), resolve(get.result !== undefined));
            get.onerror = () => (db.close(), resolve(false));
          };
        }),
      key,
      { timeout: 5000, polling: 100 },
    );
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

// ------------------------------------------------------------------ what a new user hit (issue 38)

/** Records every state of the rows the page shows, as Vue commits it (a MutationObserver: every DOM change, not only painted frames). */
async function recordRows(page) {
  await page.evaluate(() => {
    const rows = document.querySelector('#rows');
    const snap = () => [...rows.querySelectorAll('li')].map((li) => li.textContent.trim());
    window.states = [snap()];
    new MutationObserver(() => window.states.push(snap())).observe(rows, { childList: true, subtree: true, characterData: true });
  });
}

/** The package as the app installed it (the packed tarball). */
const installedPkg = () => path.join(appDir, 'node_modules', '@dynamicforms', 'fastapi-viewsets');

test('vue: an own create over muxws never leaves the rows, though the echo is pushed before the answer', async () => {
  await reset();
  const page = await tab('?transport=muxws');
  try {
    await page.waitForSelector('#status[data-mode="push"]');
    await recordRows(page);
    const names = Array.from({ length: 8 }, (_, i) => `row${i}`);
    for (const name of names) await page.evaluate((n) => window.app.items().create({ name: n }), name);
    await untilSame(page, 'all created');
    const states = await page.evaluate(() => window.states);
    for (const name of names) {
      const first = states.findIndex((rows) => rows.includes(name));
      assert.ok(first >= 0, `${name} shown`);
      const gone = states.slice(first).find((rows) => !rows.includes(name));
      assert.equal(gone, undefined, `${name} left the rows after it was shown: ${JSON.stringify(states.slice(first, first + 6))}`);
      assert.ok(states.every((rows) => rows.filter((row) => row === name).length <= 1), `${name} never twice`);
    }
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test('vue: the live list’s own reads are background calls — the busy indicator stays at 0 while they are held', async () => {
  await reset();
  const page = await tab();
  try {
    await page.evaluate(() => {
      const busy = document.querySelector('#busy');
      window.busiest = Number(busy.dataset.count);
      new MutationObserver(() => (window.busiest = Math.max(window.busiest, Number(busy.dataset.count)))).observe(busy, { attributes: true });
    });
    // another client creates 4 rows; the list's reads of them (GET /items/N) are held 1 s each by the proxy
    await stack.fault('delay:1', { count: 4, path: '/items/', method: 'GET' });
    for (let i = 0; i < 4; i++) await write('POST', '/items', { name: `theirs ${i}` });
    await untilSame(page, 'read');
    const held = (await stack.proxyLog()).requests.filter((entry) => entry.method === 'GET' && /^\/items\/\d+/.test(entry.path) && /delay/.test(entry.fault ?? ''));
    assert.ok(held.length >= 1, `the list's reads went out, held (${JSON.stringify(held)})`);
    assert.equal(await page.evaluate(() => window.busiest), 0, 'the tab wrote nothing: nothing counted as busy');
  } finally {
    await stack.clearFaults();
    await page.close();
  }
});

test('vue: in a sorted list an own write stands in its sorted place at once; where the params give no order, pendingOf(row) says its place is not known', async () => {
  await fetch(`${stack.baseUrl}/__test/catalog/seed`, { method: 'POST' });
  const page = await tab('?books');
  try {
    const made = {};
    for (const title of ['a-row', 'c-row', 'm-row']) made[title] = await page.evaluate((t) => window.app.books().create({ title: t, author: 'Zed' }), title);
    await untilSame(page, 'sorted', '/catalog/books?sort=title&author=Zed', 'title');
    await recordRows(page);
    const atOnce = await page.evaluate(async (id) => {
      const rename = window.app.books().partialUpdate(id, { title: 'b-row' });
      const create = window.app.books().create({ title: 'aa-row', author: 'Zed' });
      for (let i = 0; i < 10; i++) await Promise.resolve();
      const shown = [...document.querySelectorAll('#rows li')].map((li) => `${li.textContent.trim()}:${li.dataset.placed}`);
      await Promise.all([rename, create]);
      return shown;
    }, made['m-row'].id);
    assert.deepEqual(atOnce, ['a-row:', 'aa-row:true', 'b-row:true', 'c-row:'], 'pending, in the server’s order');
    await untilSame(page, 'answered', '/catalog/books?sort=title&author=Zed', 'title');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const states = await page.evaluate(() => window.states);
    const sorted = (rows) => rows.every((row, i) => i === 0 || rows[i - 1] <= row);
    assert.deepEqual(states.filter((rows) => !sorted(rows)), [], 'never out of order, pending, answered or read again');
  } finally {
    await page.close();
  }
  const unsorted = await tab('?books=unsorted');
  try {
    // a filter without a sort: the server's order is not known from the params
    await stack.fault('delay:1', { count: 1, path: '/catalog/books', method: 'POST' });
    const placed = await unsorted.evaluate(async () => {
      const call = window.app.books().create({ title: 'zz-row', author: 'Zed' });
      for (let i = 0; i < 10; i++) await Promise.resolve();
      const li = [...document.querySelectorAll('#rows li')].find((item) => item.textContent.trim() === 'zz-row');
      await call;
      return li?.dataset.placed;
    });
    assert.equal(placed, 'false', 'its place is not yet known');
    await untilSame(unsorted, 'read again', '/catalog/books?author=Zed', 'title');
  } finally {
    await stack.clearFaults();
    await unsorted.close();
    await fetch(`${stack.baseUrl}/__test/catalog/seed`, { method: 'POST' });
  }
});

test('vue: a pending delete stays shown, marked, until answered; a failed one brings nothing back because nothing left', async () => {
  await reset();
  const x = await write('POST', '/items', { name: 'X' });
  const page = await tab();
  /** Deletes X through the app, and tells how its row stood in the task of the call. */
  const destroy = () =>
    page.evaluate(async (id) => {
      const call = window.app.save(window.app.items().destroy(id));
      for (let i = 0; i < 10; i++) await Promise.resolve();
      const li = document.querySelector(`#rows li[data-id="${id}"]`);
      const during = li ? `${li.textContent.trim()}:${li.dataset.op}:${li.dataset.state}` : 'gone';
      await call;
      return during;
    }, x.id);
  try {
    // refused (500, not forwarded): the row was marked "deleting", then stands unmarked
    await stack.fault('status:500', { count: 1, path: `/items/${x.id}`, method: 'DELETE' });
    assert.equal(await destroy(), 'X:destroy:sending', 'marked while pending');
    await page.waitForFunction((id) => document.querySelector(`#rows li[data-id="${id}"]`)?.dataset.state === '', x.id, { timeout: 5000 });
    assert.deepEqual(await untilSame(page, 'after the failed delete'), [`${x.id}:X`]);
    // answered after 1 s: marked until then (or until the server's event of it)
    await stack.fault('delay:1', { count: 1, path: `/items/${x.id}`, method: 'DELETE' });
    assert.equal(await destroy(), 'X:destroy:sending', 'marked while pending');
    assert.deepEqual(await untilSame(page, 'deleted'), []);
  } finally {
    await stack.clearFaults();
    await page.close();
  }
});

test('vue: a pending create’s row is typed without its primary key (tsc --strict against the installed package)', () => {
  fs.writeFileSync(
    path.join(appDir, 'tsconfig.typecheck.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', skipLibCheck: true, types: [] }, files: ['src/typecheck.ts'] }),
  );
  const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', path.join(appDir, 'tsconfig.typecheck.json')], { encoding: 'utf8' });
  } catch (error) {
    assert.fail(`tsc: ${error.stdout}${error.stderr}`);
  }
});

test('vue: offline, a write shows the same connectivity notice over REST and over muxws', async () => {
  for (const transport of ['rest', 'muxws']) {
    await reset();
    const page = await tab(`?transport=${transport}`);
    try {
      if (transport === 'muxws') await page.waitForSelector('#status[data-mode="push"]');
      await page.context().setOffline(true);
      await page.waitForFunction(() => /offline/.test(document.querySelector('#busy').textContent));
      const key = await page.evaluate(() => {
        const call = window.app.items().create({ name: 'offline' });
        call.catch(() => {});
        return call.key;
      });
      await page.waitForSelector(`#busy .repeating[data-key="${key}"]`, { timeout: 5000 }).catch(async (error) => {
        throw new Error(`${transport}: no connectivity notice for the write (${error.message}): ${await page.$eval('#busy', (p) => p.outerHTML)}`);
      });
      await page.context().setOffline(false);
      await untilSame(page, `${transport}: sent once back online`);
      assert.equal((await shown(page)).length, 1, `${transport}: created once`);
    } finally {
      await page.context().setOffline(false);
      await page.close();
    }
  }
});

test('vue: a failed write is reported once — by its call, caught where the app writes; the list rolls the row back and keeps no entry', async () => {
  await reset();
  const page = await tab();
  try {
    // the server refuses it: 422 (name is not a string)
    await page.evaluate(() => window.app.save(window.app.items().create({ name: 5 })));
    await page.waitForSelector('#errors li');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await page.$$eval('#errors li', (items) => items.length), 1, 'one report, where the app wrote');
    assert.deepEqual(await page.$$eval('#pending li', (items) => items.map((li) => li.textContent.trim())), [], 'no second report in the list');
    assert.deepEqual(await shown(page), [], 'rolled back');
    assert.deepEqual(page.errors, [], 'nothing unhandled');
  } finally {
    await page.close();
  }
});

test('vue: a 500 with an HTML body says its status and reason, not the page; the page stays on the error', async () => {
  await reset();
  const page = await tab();
  try {
    await stack.fault('status:500', { count: 1, path: '/items', method: 'POST' });
    await page.evaluate(() => window.app.save(window.app.items().create({ name: 'refused' })));
    await page.waitForSelector('#errors li');
    assert.deepEqual(await page.$$eval('#errors li', (items) => items.map((li) => li.textContent.trim())), ['POST /items answered 500: Internal Server Error'], 'translateApiError(error)');
    const error = await page.evaluate(() => ({ message: window.lastError.message, status: window.lastError.status, body: window.lastError.body }));
    assert.equal(error.message, 'POST /items answered 500: Internal Server Error');
    assert.equal(error.status, 500);
    assert.match(error.body, /^<html>/, 'the page, on the error');
  } finally {
    await stack.clearFaults();
    await page.close();
  }
});

test('vue: silentAfterMs has one default — the code’s, the types’ and the README’s (the installed package)', () => {
  const code = fs.readFileSync(path.join(installedPkg(), 'live', 'live-list.js'), 'utf8');
  const types = fs.readFileSync(path.join(installedPkg(), 'vocabulary', 'live-types.d.ts'), 'utf8');
  const readme = fs.readFileSync(path.join(installedPkg(), 'README.md'), 'utf8');
  const number = (text) => (text === undefined ? undefined : Number(text.replace(/[ _]/g, '')));
  // the chunk is minified: the default is the number given with the option's name
  const inCode = number(/[`'"]silentAfterMs[`'"],\s*([\d_.e]+)\)/.exec(code)?.[1]);
  const doc = types.slice(0, types.indexOf('silentAfterMs?:'));
  const inTypes = number([...doc.slice(doc.lastIndexOf('/**')).matchAll(/default (\d[\d_]*)/g)][0]?.[1]);
  const inReadme = number(/`silentAfterMs`,\s+default (\d[\d ]*\d)/.exec(readme)?.[1]);
  assert.ok(inCode > 0, `the code's default (${inCode})`);
  assert.deepEqual({ types: inTypes, readme: inReadme }, { types: inCode, readme: inCode });
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
  // the list reads of the cursor ViewSet the server serves from here on: this tab's alone
  const readsBefore = (await stack.counters())['big_cursor.list'] ?? 0;
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
    const atRest = () => page.waitForFunction(() => window.scroll.list.value.status.window === 'can-load-more', null, { timeout: 20_000, polling: 50 });
    // scrolled to the end row, as a user does, each time the window is at rest, until row 1 000 is there
    const deadline = Date.now() + 60_000;
    while ((await count()) < 1000) {
      assert.ok(Date.now() < deadline, `scrolled to ${await count()} rows`);
      await atRest();
      const before = await count();
      await page.evaluate(() => document.querySelector('#end').scrollIntoView());
      await page.waitForFunction((before) => document.querySelectorAll('#rows li').length > before, before, { timeout: 20_000, polling: 50 });
    }
    // Then scrolled back to the top: the end row is far from the screen (1 000 rows above it), and
    // once the page's observer has said so, no loadMore() can start. An observer of the test's, made
    // after the scroll, tells at the same time: the page's observer (made before) hears of the same
    // rendering first, in the same task. The page read then in flight lands, and the window is at rest.
    await page.evaluate(() => {
      window.scrollTo(0, 0);
      window.endNear = undefined;
      new IntersectionObserver((entries) => (window.endNear = entries.at(-1).isIntersecting), { rootMargin: '200px' }).observe(document.querySelector('#end'));
    });
    await page.waitForFunction(() => window.endNear === false && window.scroll.list.value.status.window === 'can-load-more', null, { timeout: 20_000, polling: 50 });
    await page.waitForFunction(() => document.querySelectorAll('#rows li').length === window.scroll.list.value.rows.length, null, { timeout: 10_000, polling: 50 });
    // The count is exact: the window holds every page the server served this tab, each once (the
    // first page, then one per loadMore()), and nothing else. Row 1 000 is on the tenth page; the
    // README's scroll reads on while the end row stays near, and the observer tells that it left
    // only once the new rows are drawn: a page that lands with the end row still near starts the
    // next one (each scroll here read two pages, 12 in all, in every run we made; three when the page
    // lands before the new rows are drawn). So the pages are 10 or more, and exactly the reads the
    // server counted.
    const pages = (await stack.counters())['big_cursor.list'] - readsBefore;
    assert.ok(pages >= 10, `row 1 000 is on the tenth page: ${pages} pages read`);
    assert.equal(await count(), pages * 100, `the rows shown: the ${pages} pages the server served, each once`);
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
