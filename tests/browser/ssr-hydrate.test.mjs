// Server rendering handed over to the browser (issue 35 §2), with no Nuxt: one Vue app (render
// functions, no build step of its own for the server) rendered in Node by createSSRApp +
// renderToString inside the `/ssr` subpath's request scope, and the same app built by Vite for the
// browser, hydrating that HTML in headless Chromium from the payload (`viewsetsSSR(payload)`).
// Against the real backend behind the fault proxy, with the package as an app installs it (`npm pack`
// of pkg/). Checked: no hydration warning (Vue's production build told to report mismatches), no
// second read of the list in the backend's log, a note created between the render and the
// hydration shown once, later ones by poll over REST and by push over muxws, and a read that failed
// on the server showing its error on the client with no mismatch, also while another request's
// call is in flight.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';
import { build } from 'vite';

import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';
import { serveDist } from './consumer-app.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const appDir = path.join(repoRoot, 'target', 'ssr-app');
let stack;
let browser;
let server;
let origin;
/** The app's server side, imported from the installed package (target/ssr-app/src/server.js). */
let app;
/** What the test's HTTP server does before answering a page (a write between render and hydration). */
let beforeAnswer = async () => {};

/** The app: the page and its proxies (one module for the server and the browser). */
const APP = `import { h, createSSRApp, defineComponent, shallowRef } from 'vue';
import { connectMuxws, muxwsViewSet, restViewSet, ViewSetMixin } from '@dynamicforms/fastapi-viewsets';
import { useCallActivity, useFollow, useLiveList, viewsetsSSR } from '@dynamicforms/fastapi-viewsets/vue';
import { config } from './config.js';

class RestItems extends restViewSet()('id', [ViewSetMixin]) {
  slow(seconds) { return this.request('POST', '/slow', { query: { sleep: seconds }, body: { note: 'slow' } }); }
}
class MuxItems extends muxwsViewSet()('id', [ViewSetMixin]) {}
// module-level proxies, as the README writes them
export const items = new RestItems({ basePath: '/items', baseUrl: config.baseUrl, schemaCheck: false });
export const missing = new RestItems({ basePath: '/nothing-here', baseUrl: config.baseUrl, schemaCheck: false, repeat: { withinMs: 0 } });

const Page = defineComponent({
  props: { proxy: Object, fail: Boolean },
  setup(props) {
    const list = useLiveList(props.fail ? missing : props.proxy, undefined, { ssrKey: props.fail ? 'missing' : 'items', pollIntervalMs: 200 });
    const { pendingCount } = useCallActivity();
    // the pks of the changes useFollow delivers (the client's: none on the server)
    const delivered = shallowRef([]);
    const followed = useFollow('/items', { baseUrl: config.baseUrl, pollIntervalMs: 200, onEvent: (event) => void (delivered.value = [...delivered.value, ...event.payload.changes.map((change) => change.pk)]) });
    return () => h('main', [
      h('p', { id: 'busy' }, 'busy: ' + pendingCount.value),
      h('p', { id: 'status', 'data-why': list.status.value.why ?? '', 'data-mode': list.status.value.mode }, (list.status.value.why ?? 'live') + (list.status.value.error ? ': ' + list.status.value.error.message : '')),
      h('p', { id: 'cursor' }, 'cursor: ' + followed.cursor.value),
      h('p', { id: 'followed' }, delivered.value.join(',')),
      h('ul', { id: 'rows' }, list.rows.value.map((row) => h('li', { key: row.id }, row.name))),
    ]);
  },
});

/** The app for one page: on the server \`payload\` is undefined; the browser gives the server's. */
export function makeApp({ proxy = items, fail = false, payload } = {}) {
  const viewsets = viewsetsSSR(payload);
  const app = createSSRApp(Page, { proxy, fail }).use(viewsets);
  return { app, viewsets };
}

/** The browser's muxws proxy (a peer of its own). */
export async function muxItems() {
  return new MuxItems({ basePath: '/items', peer: await connectMuxws(config.wsUrl), schemaCheck: false });
}
`;

/** The server's render of one request (Node). */
const SERVER = `import { renderToString } from 'vue/server-renderer';
import { runInRequest } from '@dynamicforms/fastapi-viewsets/ssr';
import { pendingCallCount } from '@dynamicforms/fastapi-viewsets';
import { items, makeApp } from './app.js';

/** One request's render as its user (\`authorization\`): the app's HTML and the payload as a script. */
export function renderPage({ fail = false, authorization }) {
  return runInRequest(async () => {
    const { app, viewsets } = makeApp({ fail });
    const html = await renderToString(app);
    return { html, script: 'window.__VIEWSETS__=' + viewsets.serialize() + ';', pending: pendingCallCount() };
  }, { headers: { authorization } });
}

/** Another request with a slow call in flight for \`seconds\` (its render waits for it). */
export function slowRequest(seconds) {
  return runInRequest(() => items.slow(seconds), { headers: { authorization: 'Bearer other' } });
}
`;

/** The browser's entry: hydrates the server's HTML from its payload. */
const CLIENT = `import { makeApp, muxItems } from './app.js';

const query = new URLSearchParams(location.search);
const proxy = query.get('transport') === 'muxws' ? await muxItems() : undefined;
// ?busy: a call of the client's own under way as it hydrates (the server rendered busy: 0)
if (query.has('busy')) window.busyCall = (await import('./app.js')).items.slow(1);
const { app } = makeApp({ proxy, fail: query.has('fail'), payload: window.__VIEWSETS__ });
app.mount('#app');
// what the page shows as it hydrates (before the list's own code has loaded)
window.atHydration = document.querySelector('#status').textContent;
window.hydrated = true;
`;

before(async () => {
  stack = await startStack({});
  fs.rmSync(appDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(appDir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(appDir, 'package.json'), JSON.stringify({ name: 'ssr-app', private: true, type: 'module' }));
  fs.writeFileSync(path.join(appDir, 'index.html'), '<!doctype html><html><body><div id="app"></div><script type="module" src="/src/client.js"></script></body></html>\n');
  fs.writeFileSync(path.join(appDir, 'src', 'config.js'), `export const config = ${JSON.stringify({ baseUrl: stack.baseUrl, wsUrl: stack.wsUrl })};\n`);
  fs.writeFileSync(path.join(appDir, 'src', 'app.js'), APP);
  fs.writeFileSync(path.join(appDir, 'src', 'server.js'), SERVER);
  fs.writeFileSync(path.join(appDir, 'src', 'client.js'), CLIENT);
  // the package as an app installs it (vue comes from the workspace)
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', appDir, path.join(repoRoot, 'pkg')], { encoding: 'utf8' }).trim().split('\n').pop();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', '--no-package-lock', path.join(appDir, tarball)], { cwd: appDir, stdio: 'ignore' });
  // Vue's production build reports hydration mismatches only when told to
  await build({ root: appDir, configFile: false, logLevel: 'silent', define: { __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'true' }, build: { outDir: 'dist', target: 'es2022' } });
  app = await import(pathToFileURL(path.join(appDir, 'src', 'server.js')).href);
  const dist = path.join(appDir, 'dist');
  const template = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  server = await serveDist(dist, stack, {
    policy: null,
    root: async (url) => {
      const page = await app.renderPage({ fail: url.searchParams.has('fail'), authorization: 'Bearer reader' });
      await beforeAnswer();
      return template.replace('<div id="app"></div>', `<div id="app">${page.html}</div><script>${page.script}</script>`);
    },
  });
  origin = new URL(server.url).origin;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await stack?.stop();
});

async function write(name) {
  const response = await fetch(`${stack.baseUrl}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  assert.ok(response.ok);
  return response.json();
}

async function log() {
  return (await fetch(`${stack.baseUrl}/__test/log`)).json();
}

/** A page of the app, hydrated: its messages (console and errors), and the rows it shows. */
async function open(query = '') {
  const page = await browser.newPage();
  const messages = [];
  page.on('pageerror', (error) => messages.push(`pageerror: ${error.message}`));
  page.on('console', (message) => !/Failed to load resource/.test(message.text()) && messages.push(`${message.type()}: ${message.text()}`));
  const served = await page.goto(`${origin}/${query}`);
  assert.equal(served.status(), 200, await served.text());
  await page.waitForFunction(() => window.hydrated === true, undefined, { timeout: 15_000 }).catch((error) => {
    throw new Error(`not hydrated: ${messages.join('; ') || error.message}`);
  });
  page.messages = messages;
  return page;
}

const rows = (page) => page.$$eval('#rows li', (items) => items.map((li) => li.textContent));

async function untilRows(page, expected, what) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const shown = await rows(page);
    if (JSON.stringify(shown) === JSON.stringify(expected)) return;
    if (Date.now() > deadline) throw new Error(`${what}: the page shows ${JSON.stringify(shown)} (${page.messages.join('; ')})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const hydrationWarnings = (page) => page.messages.filter((message) => /hydrat|mismatch/i.test(message));

for (const transport of ['rest', 'muxws']) {
  test(`ssr in chromium (${transport}): the server's HTML holds the rows, hydrates with no warning and no second read; a note created between render and hydration shows once, a later one by ${transport === 'rest' ? 'poll' : 'push'}`, async () => {
    await fetch(`${stack.baseUrl}/__test/reset`, { method: 'POST' });
    await stack.clearFaults();
    for (const name of ['one', 'two']) await write(name);
    // after the server's read and before the browser hydrates: a note of another client
    let between;
    beforeAnswer = async () => void (between = await write('between'));
    const logFrom = (await log()).length;
    // another request with a call in flight while this one renders
    const other = app.slowRequest(1.5);
    let page;
    try {
      page = await open(`?transport=${transport}`);
      assert.deepEqual(hydrationWarnings(page), [], 'no hydration warning');
      await untilRows(page, ['one', 'two', 'between'], 'the note made between render and hydration, once');
      if (transport === 'muxws') await page.waitForSelector('#status[data-mode="push"]', { timeout: 10_000 });
      const later = await write('later');
      await untilRows(page, ['one', 'two', 'between', 'later'], `a later note by ${transport === 'rest' ? 'poll' : 'push'}`);
      // useFollow went on from the server's cursor: the change made between, once, then the later one
      const expected = `${between.id},${later.id}`;
      await page.waitForFunction((text) => document.querySelector('#followed').textContent === text, expected, { timeout: 10_000 }).catch(async () => {
        throw new Error(`useFollow delivered ${await page.$eval('#followed', (p) => p.textContent)}, expected ${expected}`);
      });
      assert.equal(await page.$eval('#busy', (p) => p.textContent), 'busy: 0', 'the other request’s call shows nowhere');
      const reads = (await log()).slice(logFrom).filter((entry) => entry.method === 'GET' && entry.path === '/items');
      assert.equal(reads.length, 1, `the list read once, by the server: ${JSON.stringify(reads.map((entry) => entry.transport))}`);
      assert.deepEqual(hydrationWarnings(page), []);
      assert.deepEqual(page.messages.filter((message) => /^(error|pageerror)/.test(message)), [], 'no error in the page');
    } finally {
      beforeAnswer = async () => {};
      await page?.close();
      await other;
    }
  });
}

test('ssr in chromium: a read that failed on the server shows its error on the client, with no hydration mismatch', async () => {
  await fetch(`${stack.baseUrl}/__test/reset`, { method: 'POST' });
  const page = await open('?fail');
  try {
    assert.deepEqual(hydrationWarnings(page), [], 'no hydration warning');
    assert.match(await page.evaluate(() => window.atHydration), /^read-failed: GET \/nothing-here answered 404/, 'the server’s error, on the client as it hydrates');
    // the client reads again, and follows: its list says the topic is refused or the read failed
    await page.waitForSelector('#status[data-why="read-failed"], #status[data-why="refused"]', { timeout: 10_000 });
    assert.match(await page.$eval('#status', (p) => p.textContent), /nothing-here/);
    assert.deepEqual(hydrationWarnings(page), []);
  } finally {
    await page.close();
  }
});

test('ssr in chromium: a call of the client’s own under way as it hydrates — the busy indicator matches the server’s HTML, then counts it once mounted', async () => {
  await fetch(`${stack.baseUrl}/__test/reset`, { method: 'POST' });
  const page = await open('?busy');
  try {
    assert.deepEqual(hydrationWarnings(page), [], 'no hydration warning');
    await page.waitForFunction(() => document.querySelector('#busy').textContent === 'busy: 1', undefined, { timeout: 5000 });
    await page.evaluate(() => window.busyCall);
    await page.waitForFunction(() => document.querySelector('#busy').textContent === 'busy: 0', undefined, { timeout: 5000 });
  } finally {
    await page.close();
  }
});
