// Issue 37 in headless Chromium against the real backend behind the fault proxy: the devtools panel
// (`@dynamicforms/fastapi-viewsets/devtools`, its development entry) in a page served with the
// README's policy and `style-src 'self'`. Losses are made with the proxy's truncate_after (the
// action ran, the answer's head and half its body arrive, then the connection closes: no browser
// sends it again by itself). The page's server resolves the package's name in devtools/index.js to
// /pkg/index.js, as a bundler would (an inline import map would need 'unsafe-inline').
// Run: node --test tests/browser/devtools.test.mjs (needs pkg/: bash scripts/build.sh)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkgDir = path.join(repoRoot, 'pkg');
const artifacts = path.join(repoRoot, 'tests', 'artifacts');
const POLICY = "script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
const SECRET = 'Bearer devtools-s3cret-value';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The page's module: the package, the devtools mounted open with User Timing, a proxy whose calls carry a credential. */
const MAIN_JS = `
window.__violations = [];
document.addEventListener('securitypolicyviolation', (event) => window.__violations.push(event.violatedDirective + ' ' + event.blockedURI));
const { baseUrl } = await (await fetch('/config.json')).json();
const pkg = await import('/pkg/index.js');
const devtools = await import('/pkg/devtools/index.js');
class Items extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {}
const items = new Items({ basePath: '/items', baseUrl, schemaCheck: false, headers: { Authorization: ${JSON.stringify(SECRET)} } });
const outcomes = {};
/** Records how \`call\` (a ViewSetCall) settles; returns its key. */
window.issue = (call) => {
  outcomes[call.key] = { state: 'pending' };
  call.then((value) => (outcomes[call.key] = { state: 'ok', value }), (error) => (outcomes[call.key] = { state: 'error', error: String(error) }));
  return call.key;
};
window.outcome = (key) => outcomes[key];
// a proxy whose attempts time out after 1.5 s
const impatient = new Items({ basePath: '/items', baseUrl, schemaCheck: false, attemptTimeoutMs: 1500 });
Object.assign(window, { pkg, items, impatient, config: await (await fetch('/config.json')).json() });
window.unmountDevtools = devtools.mountDevtools({ open: true, userTiming: true });
window.__ready = true;
`;

/** A Vue 3 app (the runtime build: no template compiler, nothing to evaluate) whose one child is the panel's component. */
const VUE_JS = `
window.__violations = [];
document.addEventListener('securitypolicyviolation', (event) => window.__violations.push(event.violatedDirective + ' ' + event.blockedURI));
import { createApp, h, ref } from '/vue.js';
const { FastapiViewsetsDevtools } = await import('/pkg/devtools/index.js');
const shown = ref(true);
const app = createApp({ render: () => h('main', [shown.value ? h(FastapiViewsetsDevtools, { open: true }) : null]) });
app.mount('#app');
window.hidePanel = () => { shown.value = false; };
window.__ready = true;
`;

let stack;
let server;
let browser;
let page;
const consoleErrors = [];

/** The panel's shadow root, queried in the page. */
const inPanel = (fn, arg) => page.evaluate(([source, arg]) => new Function('root', 'arg', source)(document.querySelector('[data-fastapi-viewsets-devtools]')?.shadowRoot, arg), [fn, arg]);

/** Polls `probe` until it returns a truthy value; generous: the machine is shared. */
async function until(probe, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const settled = (key) => until(async () => {
  const outcome = await page.evaluate((key) => window.outcome(key), key);
  return outcome && outcome.state !== 'pending' ? outcome : null;
}, `the call ${key} to settle`);

/** The backend's log entries of the call with `key` (at least `count`: the backend may log an answer just after sending it). */
const entriesOf = (key, count = 1) =>
  until(async () => {
    const entries = (await stack.log()).filter((entry) => entry.idempotency_key === `"${key}"`);
    return entries.length >= count ? entries : null;
  }, `${count} log entries of ${key}`);

/** Selects the call with `key` in the list (once the panel lists it) and returns its detail's attempts and waits, as the panel shows them. */
async function detailOf(key) {
  await until(() => inPanel("const row = root.querySelector(`tr.call[data-key=\"${arg}\"]`); row?.click(); return root.querySelector('.detail .call-title')?.dataset.key === arg", key), `the panel to show the call ${key}`);
  return inPanel(`
    const detail = root.querySelector('.detail');
    return {
      title: detail.querySelector('.call-title')?.dataset.key,
      state: detail.querySelector('.state')?.dataset.state,
      attempts: [...detail.querySelectorAll('li.attempt')].map((li) => ({ n: +li.dataset.attempt, ended: li.dataset.ended, text: li.textContent })),
      waits: [...detail.querySelectorAll('li.wait')].map((li) => +li.dataset.ms),
      bars: [...detail.querySelectorAll('svg g.attempt')].map((g) => ({ n: +g.dataset.attempt, ended: g.dataset.ended, transport: g.dataset.transport, label: g.querySelector('title').textContent })),
      gaps: [...detail.querySelectorAll('svg g.wait')].map((g) => +g.dataset.ms),
    };
  `);
}

before(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  stack = await startStack({ proxy: true });
  server = http.createServer((request, response) => {
    const pathname = new URL(request.url, 'http://x').pathname;
    if (pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': POLICY });
      return response.end('<!doctype html><title>devtools</title><input id="app-input"><script type="module" src="/main.js"></script>\n');
    }
    if (pathname === '/main.js') return response.writeHead(200, { 'content-type': 'text/javascript' }).end(MAIN_JS);
    if (pathname === '/vue') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': POLICY });
      return response.end('<!doctype html><title>devtools in Vue</title><div id="app"></div><script type="module" src="/vue-main.js"></script>\n');
    }
    if (pathname === '/vue-main.js') return response.writeHead(200, { 'content-type': 'text/javascript' }).end(VUE_JS);
    if (pathname === '/vue.js') return response.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(path.join(repoRoot, 'node_modules', 'vue', 'dist', 'vue.runtime.esm-browser.prod.js')));
    if (pathname === '/config.json') return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ baseUrl: stack.baseUrl, wsUrl: stack.wsUrl }));
    const file = path.join(pkgDir, pathname.replace(/^\/pkg\//, ''));
    if (!pathname.startsWith('/pkg/') || !file.startsWith(pkgDir) || !fs.existsSync(file)) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript', 'content-security-policy': POLICY });
    let text = fs.readFileSync(file);
    // the package's name, resolved as a bundler resolves it
    if (pathname === '/pkg/devtools/index.js') text = text.toString().replaceAll('"@dynamicforms/fastapi-viewsets"', '"/pkg/index.js"');
    response.end(text);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${server.address().port}` });
  page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Failed to load resource|ERR_/.test(message.text())) consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => window.__ready === true, null, { timeout: 30_000 });
  await until(() => inPanel("return root?.querySelector('.panel') && !root.querySelector('.panel').hidden"), 'the panel to open');
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  await stack?.stop();
});

test("under script-src 'self' 'wasm-unsafe-eval' and style-src 'self' the panel opens with no violation, styled, out of the app's focus", async () => {
  const look = await inPanel(`
    const panel = root.querySelector('.panel');
    return { sheets: root.adoptedStyleSheets.length, styleElements: root.querySelectorAll('style').length, position: getComputedStyle(panel).position, hostPosition: getComputedStyle(root.host).position };
  `);
  assert.deepEqual(look, { sheets: 1, styleElements: 0, position: 'fixed', hostPosition: 'fixed' });
  // the app's field keeps the focus while the panel's buttons are pressed
  await page.focus('#app-input');
  await page.locator('[data-fastapi-viewsets-devtools] button[data-tab="live"]').click();
  await page.locator('[data-fastapi-viewsets-devtools] button[data-tab="calls"]').click();
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'app-input', 'the focus stayed in the app');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(consoleErrors.filter((line) => /Content Security Policy/i.test(line)), []);
});

test('a call with two answers lost, then answered: three attempts, how each ended and the waits between, in the list, the detail and the SVG timeline', async () => {
  await stack.resetAll();
  await stack.fault('truncate_after', { count: 2, path: '/items/slow', method: 'POST' });
  const key = await page.evaluate(() => window.issue(window.items.request('POST', '/slow', { query: { sleep: 0 }, body: { note: 'three' }, repeat: { delayMs: 400 } })));
  const outcome = await settled(key);
  assert.equal(outcome.state, 'ok', JSON.stringify(outcome));
  await until(async () => (await detailOf(key)).attempts.length === 3 && (await detailOf(key)).state === 'settled', 'the panel to show the settled call');
  const detail = await detailOf(key);
  assert.equal(detail.title, key);
  assert.deepEqual(detail.attempts.map((a) => [a.n, a.ended]), [[1, 'connection-lost'], [2, 'connection-lost'], [3, 'answered']]);
  assert.match(detail.attempts[2].text, /answered 200/);
  assert.equal(detail.waits.length, 2);
  // the delays were 400 ms, then 800 ms (doubled): each wait at least most of it
  assert.ok(detail.waits[0] >= 300 && detail.waits[1] >= 600, `waits ${detail.waits}`);
  assert.deepEqual(detail.bars.map((b) => [b.n, b.ended, b.transport]), [[1, 'connection-lost', 'rest'], [2, 'connection-lost', 'rest'], [3, 'answered', 'rest']]);
  assert.deepEqual(detail.gaps, detail.waits);
  const row = await inPanel("const tr = root.querySelector(`tr.call[data-key=\"${arg}\"]`); return { state: tr.dataset.state, text: tr.textContent }", key);
  assert.equal(row.state, 'settled');
  assert.match(row.text, /POST\/items\/slowREST.*settled 200\s*3$/);
  // the backend ran it once: the repeats were answered from its stored outcome
  const entries = await entriesOf(key, 3);
  assert.equal(entries.length, 3);
  assert.equal(entries.filter((entry) => entry.ran).length, 1);
  await page.locator('[data-fastapi-viewsets-devtools] .panel').screenshot({ path: path.join(artifacts, 'devtools-three-attempts.png') });
  // the Timeline tab: a lane per call shown, this call's three attempts in its lane
  await page.locator('[data-fastapi-viewsets-devtools] button[data-tab="timeline"]').click();
  const lane = await inPanel("const g = root.querySelector(`.list svg.timeline g.lane[data-key=\"${arg}\"]`); return g && [...g.querySelectorAll('g.attempt')].map((a) => a.dataset.ended)", key);
  assert.deepEqual(lane, ['connection-lost', 'connection-lost', 'answered']);
  await page.locator('[data-fastapi-viewsets-devtools] button[data-tab="calls"]').click();
  // User Timing: a measure per attempt, named by method, path and key
  const measures = await page.evaluate((key) => performance.getEntriesByType('measure').filter((m) => m.name.includes(key)).map((m) => m.name), key);
  assert.deepEqual(measures, [1, 2, 3].map((n) => `POST /items/slow ${key} #${n}`));
});

test("how attempts end: a gateway's 503, then answered; an attempt's own timeout, then answered by the repeat", async () => {
  await stack.resetAll();
  await stack.fault('status:503', { count: 1, path: '/items/slow', method: 'POST' });
  const key = await page.evaluate(() => window.issue(window.items.request('POST', '/slow', { query: { sleep: 0 }, body: { note: 'gateway' }, repeat: { delayMs: 200 } })));
  assert.equal((await settled(key)).state, 'ok');
  await until(async () => (await detailOf(key)).state === 'settled', 'the panel to show it settled');
  const gateway = await detailOf(key);
  assert.deepEqual(gateway.bars.map((bar) => bar.ended), ['gateway', 'answered']);
  assert.match(gateway.attempts[0].text, /503 from a gateway/);
  const slow = await page.evaluate(() => window.issue(window.impatient.request('POST', '/slow', { query: { sleep: 2.5 }, body: { note: 'timeout' } })));
  assert.equal((await settled(slow)).state, 'ok');
  await until(async () => (await detailOf(slow)).state === 'settled', 'the panel to show it settled');
  const timedOut = await detailOf(slow);
  assert.equal(timedOut.bars[0].ended, 'timeout');
  assert.equal(timedOut.bars.at(-1).ended, 'answered');
  assert.equal((await entriesOf(slow, timedOut.bars.length)).filter((entry) => entry.ran).length, 1, 'the action ran once');
  await page.locator('[data-fastapi-viewsets-devtools] .panel').screenshot({ path: path.join(artifacts, 'devtools-timeout.png') });
});

test('"try again now" on one of two waiting calls: only that call\'s repeat goes, at once, under its key, and the action runs once; the other keeps waiting', async () => {
  await stack.resetAll();
  await stack.fault('truncate_after', { count: 2, path: '/items/slow', method: 'POST' });
  // the proxy logs each request's target: the query tells the two calls apart on the wire
  const post = (who) => page.evaluate((who) => window.issue(window.items.request('POST', '/slow', { query: { sleep: 0, who }, body: { note: who }, repeat: { delayMs: 25000 } })), who);
  const first = await post('first');
  await until(async () => (await detailOf(first)).state === 'delay', 'the first call to wait for its repeat');
  const second = await post('second');
  await until(async () => (await detailOf(second)).state === 'delay', 'the second call to wait for its repeat');
  const waiting = await inPanel("return root.querySelector('.detail .state').textContent");
  assert.match(waiting, /^repeat in \d+(\.\d)? s \(network-error\)$/);
  const clickedAt = Date.now();
  // the button in the second call's detail
  await inPanel("root.querySelector('.detail button[data-action=\"retry-call\"]').click()");
  const outcome = await settled(second);
  assert.equal(outcome.state, 'ok');
  assert.ok(Date.now() - clickedAt < 15_000, 'the repeat did not wait for its 25 s delay');
  // on the wire: the second call's two POSTs, the repeat well before its delay was over; the first call's one
  const postsOf = async (who) => (await stack.proxyLog()).requests.filter((entry) => entry.path.startsWith('/items/slow') && entry.method === 'POST' && entry.path.includes(`who=${who}`));
  const posts = await until(async () => {
    const found = await postsOf('second');
    return found.length >= 2 ? found : null;
  }, "the second call's two POSTs in the proxy log");
  assert.equal(posts.length, 2);
  assert.ok((posts[1].t - posts[0].t) * 1000 < 15_000, `the repeat went ${(posts[1].t - posts[0].t).toFixed(1)} s after the first`);
  const entries = await entriesOf(second, 2);
  assert.equal(entries.length, 2, 'both attempts carried the same key');
  assert.equal(entries.filter((entry) => entry.ran).length, 1, 'the action ran once');
  const detail = await detailOf(second);
  assert.deepEqual(detail.attempts.map((a) => a.ended), ['connection-lost', 'answered']);
  // the first call was left alone: one POST, still waiting for its delay, as the panel and pendingCalls() say
  await sleep(500);
  assert.equal((await postsOf('first')).length, 1, "the first call's repeat did not go");
  assert.equal((await page.evaluate((key) => window.outcome(key), first)).state, 'pending');
  assert.equal((await detailOf(first)).state, 'delay');
  const pending = await page.evaluate((key) => window.pkg.pendingCalls().find((call) => call.key === key), first);
  assert.equal(pending.waitingFor, 'delay');
  // a key that names no waiting call (the settled one, an unknown one) does nothing and returns 0
  assert.deepEqual(await page.evaluate((key) => [window.pkg.retryNow(key), window.pkg.retryNow('no-such-key')], second), [0, 0]);
  assert.equal((await postsOf('first')).length, 1);
  // then its own key sends it (1 went), and it too runs once
  assert.equal(await page.evaluate((key) => window.pkg.retryNow(key), first), 1);
  assert.equal((await settled(first)).state, 'ok');
  assert.equal((await entriesOf(first, 2)).filter((entry) => entry.ran).length, 1);
});

test('"lose the next answer" on a create: the repeat is answered from the stored outcome, the action ran once, and the panel shows both', async () => {
  await stack.resetAll();
  await inPanel("root.querySelector('button[data-action=\"lose-next\"]').click()");
  await until(() => inPanel("return root.querySelector('button[data-action=\"lose-next\"]').getAttribute('aria-pressed') === 'true'"), 'the switch to show it is armed');
  const key = await page.evaluate(() => window.issue(window.items.create({ name: 'once', qty: 1 }, { repeat: { delayMs: 200 } })));
  const outcome = await settled(key);
  assert.equal(outcome.state, 'ok', JSON.stringify(outcome));
  assert.equal(outcome.value.name, 'once');
  const entries = await entriesOf(key, 2);
  assert.equal(entries.length, 2);
  assert.equal((await stack.counters()).create, 1, 'the create ran once');
  assert.equal(entries.filter((entry) => entry.ran).length, 1);
  await until(async () => (await detailOf(key)).state === 'settled', 'the panel to show the create settled');
  const detail = await detailOf(key);
  assert.deepEqual(detail.attempts.map((a) => a.ended), ['answer-lost', 'answered']);
  assert.match(detail.attempts[0].text, /answer thrown away \(devtools\)/);
  assert.match(detail.attempts[1].text, /answered 200/);
  await until(() => inPanel("return root.querySelector('button[data-action=\"lose-next\"]').getAttribute('aria-pressed') === 'false'"), 'the switch to be off again: it was armed for one answer');
});

test('cancel and copy a key from the panel', async () => {
  await stack.resetAll();
  await stack.fault('truncate_after', { count: 1, path: '/items/slow', method: 'POST' });
  const key = await page.evaluate(() => window.issue(window.items.request('POST', '/slow', { query: { sleep: 0 }, body: { note: 'cancel' }, repeat: { delayMs: 25000 } })));
  await until(async () => (await detailOf(key)).state === 'delay', 'the call to wait');
  await inPanel("root.querySelector('.detail button[data-action=\"copy-key\"]').click()");
  await until(() => inPanel("return root.querySelector('.detail button[data-action=\"copy-key\"]').textContent === 'copied'"), 'the key to be copied');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
  await inPanel("root.querySelector('.detail button[data-action=\"cancel\"]').click()");
  const outcome = await settled(key);
  assert.match(outcome.error, /CallCancelled|cancelled/);
  // cancelled while its repeat waited: its one attempt keeps how it ended, the call failed (cancelled)
  await until(async () => (await detailOf(key)).state === 'settled', 'the panel to show it settled');
  assert.deepEqual((await detailOf(key)).attempts.map((a) => a.ended), ['connection-lost']);
  assert.equal(await inPanel("return root.querySelector(`tr.call[data-key=\"${arg}\"] td.state`).textContent", key), 'failed (cancelled)');
});

test('refused: a final 4xx is one attempt, shown refused with its status in the detail, on the timeline and in the failed filter; not repeated, the action ran once', async () => {
  await stack.resetAll();
  const key = await page.evaluate(() => window.issue(window.items.request('POST', '/conflict', { body: { note: 'refused' }, repeat: { delayMs: 200 } })));
  const outcome = await settled(key);
  assert.equal(outcome.state, 'error');
  assert.match(outcome.error, /409/);
  await until(async () => (await detailOf(key)).state === 'settled', 'the panel to show it settled');
  const detail = await detailOf(key);
  assert.deepEqual(detail.attempts.map((a) => [a.n, a.ended]), [[1, 'refused']]);
  assert.match(detail.attempts[0].text, /refused 409/);
  assert.deepEqual(detail.bars.map((bar) => [bar.n, bar.ended, bar.transport]), [[1, 'refused', 'rest']]);
  assert.match(detail.bars[0].label, /#1 refused 409/);
  assert.deepEqual(detail.waits, [], 'no wait: nothing was repeated');
  const row = await inPanel("const tr = root.querySelector(`tr.call[data-key=\"${arg}\"]`); return { failed: tr.classList.contains('failed'), state: tr.querySelector('td.state').textContent }", key);
  assert.deepEqual(row, { failed: true, state: 'failed 409' });
  await page.locator('[data-fastapi-viewsets-devtools] button[data-filter="failed"]').click();
  await until(() => inPanel("return [...root.querySelectorAll('tr.call')].some((tr) => tr.dataset.key === arg)", key), 'the refused call among the failed ones');
  await page.locator('[data-fastapi-viewsets-devtools] button[data-filter="failed"]').click();
  const entries = await entriesOf(key);
  assert.equal(entries.length, 1, 'sent once');
  assert.equal((await stack.counters()).conflict, 1, 'the action ran once');
  await page.locator('[data-fastapi-viewsets-devtools] .panel').screenshot({ path: path.join(artifacts, 'devtools-refused.png') });
});

test('abandoned: a call cancelled mid-attempt (from the panel, and by its caller\'s AbortSignal) shows that attempt abandoned and the call failed (cancelled); the server still runs it to its end, once', async () => {
  await stack.resetAll();
  for (const how of ['panel', 'signal']) {
    const key = await page.evaluate((how) => {
      const controller = new AbortController();
      window.abortLast = () => controller.abort();
      return window.issue(window.items.request('POST', '/slow', { query: { sleep: 2, how }, body: { note: how }, signal: how === 'signal' ? controller.signal : undefined }));
    }, how);
    // the backend has the call (its action under way) and the panel shows its one attempt out
    await until(async () => (await stack.proxyLog()).requests.some((entry) => entry.path.includes(`how=${how}`)), 'the attempt on the wire');
    await until(async () => {
      const detail = await detailOf(key);
      return detail.state === 'in-flight' && detail.attempts.length === 1 && detail.attempts[0].ended === 'in-flight';
    }, 'the panel to show the attempt out');
    if (how === 'panel') await inPanel("root.querySelector('.detail button[data-action=\"cancel\"]').click()");
    else await page.evaluate(() => window.abortLast());
    const outcome = await settled(key);
    assert.match(outcome.error, /CallCancelled|cancelled/, how);
    await until(async () => (await detailOf(key)).state === 'settled', 'the panel to show it settled');
    const detail = await detailOf(key);
    assert.deepEqual(detail.attempts.map((a) => [a.n, a.ended]), [[1, 'abandoned']], how);
    assert.match(detail.attempts[0].text, /abandoned/);
    assert.deepEqual(detail.bars.map((bar) => bar.ended), ['abandoned'], how);
    assert.equal(await inPanel("return root.querySelector(`tr.call[data-key=\"${arg}\"] td.state`).textContent", key), 'failed (cancelled)');
    // the action was under way: the backend runs it to its end, once
    const entries = await entriesOf(key);
    assert.equal(entries.length, 1, how);
    assert.equal(entries.filter((entry) => entry.ran).length, 1, how);
  }
  await page.locator('[data-fastapi-viewsets-devtools] .panel').screenshot({ path: path.join(artifacts, 'devtools-abandoned.png') });
});

test('the export holds the calls, with no Authorization or cookie value, and no bodies unless asked for', async () => {
  await stack.resetAll();
  const key = await page.evaluate(() => window.issue(window.items.request('POST', '/cookie', { body: { note: 'cookie' } })));
  await settled(key);
  // credentials in a query and in a body
  const echo = await page.evaluate(() => window.issue(window.items.request('POST', '/echo', { query: { access_token: 'query-s3cret', page: 2 }, body: { note: 'echo', password: 'body-s3cret' } })));
  assert.equal((await settled(echo)).state, 'ok');
  const read = async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), inPanel("root.querySelector('button[data-action=\"export\"]').click()")]);
    return fs.readFileSync(await download.path(), 'utf8');
  };
  const text = await read();
  const exported = JSON.parse(text);
  assert.ok(exported.calls.some((call) => call.key === key));
  const call = exported.calls.find((one) => one.key === key);
  assert.equal(call.headers.authorization, '[redacted]');
  assert.ok(!text.includes('s3cret'), 'no Authorization value');
  assert.ok(!/sid=s\d/.test(text), 'no cookie value');
  assert.ok(!('body' in call) && !('answer' in call), 'no bodies by default');
  assert.equal(exported.calls.find((one) => one.key === echo).query, `access_token=${encodeURIComponent('[redacted]')}&page=2`);
  await inPanel("root.querySelector('button[data-action=\"bodies\"]').click()");
  const withBodies = await read();
  assert.deepEqual(JSON.parse(withBodies).calls.find((one) => one.key === key).body, { note: 'cookie' });
  assert.deepEqual(JSON.parse(withBodies).calls.find((one) => one.key === echo).body, { note: 'echo', password: '[redacted]' });
  assert.ok(!withBodies.includes('s3cret'));
});

test("live data: a live list's pending write under its key, a follower's mode and cursor as follower.mode and follower.cursor, a muxws peer and its ping round trip", async () => {
  await stack.resetAll();
  await page.evaluate(async () => {
    window.list = window.pkg.liveList(window.items);
    await window.list.ready;
    window.follower = window.pkg.follow('/items', { baseUrl: window.config.baseUrl, pollIntervalMs: 500 });
    await window.follower.ready;
    // a ping whenever nothing arrived for 300 ms: its round trip is the peer's rttMs
    window.peer = await window.pkg.connectMuxws(window.config.wsUrl, { pingIntervalMs: 300 });
  });
  await stack.fault('truncate_after', { count: 1, path: '/items', method: 'POST' });
  const key = await page.evaluate(() => window.issue(window.items.create({ name: 'pending', qty: 2 }, { repeat: { delayMs: 25000 } })));
  await until(() => page.evaluate((key) => window.list.pending.some((write) => write.key === key && write.state === 'repeating'), key), 'the live list to show the write repeating');
  await page.locator('[data-fastapi-viewsets-devtools] button[data-tab="live"]').click();
  await until(() => inPanel("return root.querySelector('table[data-live=\"lists\"]')?.textContent.includes(arg + ' create repeating')", key), 'the panel to show the pending write under its key');
  // the follower's row: its mode and cursor as the follower's own
  await until(async () => {
    const [mode, cursor] = await page.evaluate(() => [window.follower.mode, window.follower.cursor]);
    const rows = await inPanel("return [...root.querySelectorAll('table[data-live=\"followers\"] tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent))");
    return rows.some((cells) => cells[0] === '/items' && cells[1] === mode && cells[2] === String(cursor ?? '—'));
  }, "the follower's mode and cursor in the panel");
  // a call over the peer: muxws in the list and on its attempt
  const muxKey = await page.evaluate(() => window.issue(new (class extends window.pkg.muxwsViewSet()('id', [window.pkg.ViewSetMixin]) {})({ basePath: '/items', peer: window.peer, schemaCheck: false }).request('POST', '/echo', { body: { over: 'muxws' } })));
  assert.equal((await settled(muxKey)).state, 'ok');
  const peers = await inPanel("return [...root.querySelectorAll('table[data-live=\"peers\"] tbody tr')].map((tr) => tr.children[0].textContent)");
  assert.deepEqual(peers, ['open']);
  // its ping round trip, as the peer's own rttMs (null until a pong came; the panel draws it within a second)
  const rttCell = "return root.querySelector('table[data-live=\"peers\"] tbody tr')?.children[4].textContent";
  const shown = await until(async () => {
    const rtt = await page.evaluate(() => window.peer.rttMs);
    const cell = await inPanel(rttCell);
    return rtt !== null && cell === `${Math.round(rtt)} ms` && { rtt, cell };
  }, "the peer's ping round trip in the panel");
  assert.ok(Number.isFinite(shown.rtt) && shown.rtt >= 0, `a finite round trip: ${shown.rtt}`);
  assert.equal(await inPanel("return root.querySelector('table[data-live=\"peers\"] thead tr').children[4].textContent"), 'ping round trip');
  await page.locator('[data-fastapi-viewsets-devtools] .panel').screenshot({ path: path.join(artifacts, 'devtools-live-data.png') });
  await page.locator('[data-fastapi-viewsets-devtools] button[data-tab="calls"]').click();
  await until(async () => (await detailOf(muxKey)).state === 'settled', 'the muxws call settled in the panel');
  const mux = await detailOf(muxKey);
  assert.deepEqual(mux.bars.map((bar) => [bar.ended, bar.transport]), [['answered', 'muxws']]);
  assert.equal(await inPanel("return root.querySelector(`tr.call[data-key=\"${arg}\"] td.transport`).textContent", muxKey), 'muxws');
  await page.locator('[data-fastapi-viewsets-devtools] button[data-tab="live"]').click();
  // the write goes now and lands
  await inPanel("root.querySelector('button[data-action=\"retry-now\"]').click()");
  assert.equal((await settled(key)).state, 'ok');
  await until(() => page.evaluate((key) => !window.list.pending.some((write) => write.key === key), key), 'the write to land');
  await until(() => inPanel("return !root.querySelector('table[data-live=\"lists\"]')?.textContent.includes(arg)", key), 'the panel to show no pending write');
  await page.evaluate(async () => {
    await window.list.close();
    await window.follower.close();
    await window.peer.close({ drainMs: 0 });
  });
  await page.locator('[data-fastapi-viewsets-devtools] button[data-tab="calls"]').click();
});

test("a follower's resyncs, as the follower tells them: more events than the server's log holds, the cursor moves forward, the panel counts one", async () => {
  const ready = await (await fetch(`${stack.baseUrl}/__test/ready`)).json();
  const key = `devtools${Date.now()}`;
  const topic = `imports:${key}`;
  const cursorBefore = await page.evaluate(async (topic) => {
    window.resyncs = [];
    // no poll but the one catchUp() asks for
    window.resyncing = window.pkg.follow(topic, { baseUrl: window.config.baseUrl, from: 'now', pollIntervalMs: 600_000, onResync: (info) => void window.resyncs.push(info) });
    await window.resyncing.ready;
    return window.resyncing.cursor;
  }, topic);
  const published = await fetch(`${stack.baseUrl}/__test/events/publish?key=${key}&n=${ready.event_log_size + 5}`, { method: 'POST' });
  assert.equal(published.status, 200);
  const { revs } = await published.json();
  const after = await page.evaluate(async () => {
    await window.resyncing.catchUp();
    return { resyncs: window.resyncs.length, cursor: window.resyncing.cursor };
  });
  assert.deepEqual(after, { resyncs: 1, cursor: revs.at(-1) }, 'one resync, to the last rev');
  assert.ok(after.cursor > (cursorBefore ?? 0), 'the cursor moved forward (no cursor went back)');
  await page.locator('[data-fastapi-viewsets-devtools] button[data-tab="live"]').click();
  await until(async () => {
    const rows = await inPanel("return [...root.querySelectorAll('table[data-live=\"followers\"] tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent))");
    return rows.some((cells) => cells[0] === topic && cells[2] === String(revs.at(-1)) && cells[3] === '1');
  }, "the follower's one resync in the panel");
  await page.evaluate(() => window.resyncing.close());
  await page.locator('[data-fastapi-viewsets-devtools] button[data-tab="calls"]').click();
});

test('a muxws proxy whose peer cannot be had goes over REST: its attempt shown as REST in place of muxws', async () => {
  await stack.resetAll();
  const key = await page.evaluate(async () => {
    // nothing listens on port 1: the dial is refused at once, and the calls fall back to REST
    window.fallbackPeer = await window.pkg.connectMuxws('ws://127.0.0.1:1/ws', { restFallback: { baseUrl: window.config.baseUrl }, reconnect: { initialDelayMs: 60_000 } });
    return window.issue(new (class extends window.pkg.muxwsViewSet()('id', [window.pkg.ViewSetMixin]) {})({ basePath: '/items', peer: window.fallbackPeer, schemaCheck: false }).request('POST', '/echo', { body: { over: 'fallback' } }));
  });
  const outcome = await settled(key);
  assert.equal(outcome.state, 'ok', JSON.stringify(outcome));
  assert.equal(outcome.value.transport, 'rest');
  await until(async () => (await detailOf(key)).state === 'settled', 'the panel to show it settled');
  const detail = await detailOf(key);
  assert.deepEqual(detail.bars.map((bar) => bar.transport), ['rest-for-muxws']);
  assert.match(detail.bars[0].label, /REST in place of muxws/);
  assert.equal(await inPanel("return root.querySelector(`tr.call[data-key=\"${arg}\"] td.transport`).textContent", key), 'REST in place of muxws');
  await page.evaluate(() => window.fallbackPeer.close({ drainMs: 0 }));
});

test("a muxws call whose socket is cut waits for its socket, shown so, and is answered over the next one, the action run once", async () => {
  await stack.resetAll();
  const key = await page.evaluate(async () => {
    window.cutPeer = await window.pkg.connectMuxws(window.config.wsUrl, { reconnect: { initialDelayMs: 1500, jitter: 0 } });
    return window.issue(new (class extends window.pkg.muxwsViewSet()('id', [window.pkg.ViewSetMixin]) {})({ basePath: '/items', peer: window.cutPeer, schemaCheck: false }).request('POST', '/slow', { query: { sleep: 2 }, body: { note: 'socket' }, repeat: { delayMs: 100 } }));
  });
  // its attempt is out (whether the server had begun the action or not, it runs once): cut every socket
  await until(async () => (await detailOf(key)).attempts.length === 1, 'the attempt to go out');
  await stack.killWs();
  await until(async () => (await detailOf(key)).state === 'reconnect', 'the call to wait for its socket');
  assert.match(await inPanel("return root.querySelector('.detail .state').textContent"), /^waiting for its socket/);
  const outcome = await settled(key);
  assert.equal(outcome.state, 'ok', JSON.stringify(outcome));
  await until(async () => (await detailOf(key)).state === 'settled', 'the panel to show it settled');
  const detail = await detailOf(key);
  assert.deepEqual(detail.bars.map((bar) => [bar.ended, bar.transport]), [['connection-lost', 'muxws'], ['answered', 'muxws']]);
  assert.equal((await entriesOf(key, 2)).filter((entry) => entry.ran).length, 1);
  await page.evaluate(() => window.cutPeer.close({ drainMs: 0 }));
});

test('simulate offline: a repeat waits, shown offline, and goes once the panel says online again; the filters', async () => {
  await stack.resetAll();
  await inPanel("root.querySelector('button[data-action=\"offline\"]').click()");
  await until(() => inPanel("return root.querySelector('button[data-action=\"offline\"]').getAttribute('aria-pressed') === 'true'"), 'the offline switch on');
  await stack.fault('truncate_after', { count: 1, path: '/items/slow', method: 'POST' });
  const key = await page.evaluate(() => window.issue(window.items.request('POST', '/slow', { query: { sleep: 0 }, body: { note: 'offline' }, repeat: { delayMs: 200 } })));
  await until(async () => (await detailOf(key)).state === 'offline', 'the call to wait for the platform to be online');
  assert.match(await inPanel("return root.querySelector(`tr.call[data-key=\"${arg}\"] td.state`).textContent", key), /^offline/);
  // pending only: the waiting call is listed, the settled ones are not
  await page.locator('[data-fastapi-viewsets-devtools] button[data-filter="pending"]').click();
  await until(async () => {
    const keys = await inPanel("return [...root.querySelectorAll('tr.call')].map((tr) => tr.dataset.key)");
    return keys.length === 1 && keys[0] === key;
  }, 'only the pending call listed');
  await page.locator('[data-fastapi-viewsets-devtools] button[data-filter="pending"]').click();
  await inPanel("root.querySelector('button[data-action=\"offline\"]').click()");
  assert.equal((await settled(key)).state, 'ok');
  assert.equal((await entriesOf(key)).filter((entry) => entry.ran).length, 1);
  // failed only: the cancelled call; by path: the cookie call
  await page.locator('[data-fastapi-viewsets-devtools] button[data-filter="failed"]').click();
  await until(async () => {
    const rows = await inPanel("return [...root.querySelectorAll('tr.call')].map((tr) => tr.className)");
    return rows.length >= 1 && rows.every((name) => name.includes('failed'));
  }, 'only failed calls listed');
  await page.locator('[data-fastapi-viewsets-devtools] button[data-filter="failed"]').click();
  await page.locator('[data-fastapi-viewsets-devtools] input[data-filter="path"]').fill('/cookie');
  await until(async () => {
    const paths = await inPanel("return [...root.querySelectorAll('tr.call')].map((tr) => tr.children[2].textContent)");
    return paths.length >= 1 && paths.every((one) => one === '/items/cookie');
  }, 'only the calls of /items/cookie listed');
  await page.locator('[data-fastapi-viewsets-devtools] input[data-filter="path"]').fill('');
});

test('the panel as one Vue component: mounted with the app, removed with it, no violation', async () => {
  const vuePage = await page.context().newPage();
  try {
    await vuePage.goto(`http://127.0.0.1:${server.address().port}/vue`);
    await vuePage.waitForFunction(() => window.__ready === true, null, { timeout: 30_000 });
    await vuePage.waitForFunction(() => document.querySelector('[data-fastapi-viewsets-devtools]')?.shadowRoot?.querySelector('.panel:not([hidden])'), null, { timeout: 30_000 });
    await vuePage.evaluate(() => window.hidePanel());
    await vuePage.waitForFunction(() => !document.querySelector('[data-fastapi-viewsets-devtools]'), null, { timeout: 30_000 });
    assert.deepEqual(await vuePage.evaluate(() => window.__violations), []);
    // and the main page, after every test above drew its lists, timelines and live tables
    assert.deepEqual(await page.evaluate(() => window.__violations), []);
    assert.deepEqual(consoleErrors.filter((line) => /Content Security Policy/i.test(line)), []);
  } finally {
    await vuePage.close();
  }
});
