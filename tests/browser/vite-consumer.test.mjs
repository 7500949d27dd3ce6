// The package as an application gets it: `npm pack` of pkg/, installed into a fresh Vite app with no
// configuration at all (no optimizeDeps, no wasm plugin, no init call), then used from Chromium through
// Vite's dev server (dependency pre-bundling on) and through a production build. Each page issues one
// keyed call to the real backend, and the test checks the key on the wire: index.html over REST,
// mux.html over muxws (whose module the driver fetches from a URL relative to its own, which
// pre-bundling moves).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';
import { build, createServer } from 'vite';

import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let stack;
let browser;
let app;

const MAIN_JS = `
import { restViewSet, ViewSetMixin } from '@dynamicforms/fastapi-viewsets';

const { baseUrl } = await (await fetch('/config.json')).json();
class ItemApi extends restViewSet()('id', [ViewSetMixin]) {
  echo(body) { return this.request('POST', '/echo', { body }); }
}
const items = new ItemApi({ basePath: '/items', baseUrl, schemaCheck: false });
const call = items.echo({ from: 'vite' });
const answer = await call;
// The follower's engine is a module of the package that the app's bundler emits as an asset.
const follower = items.watch({ onChange() {} });
await follower.ready;
const cursor = follower.cursor;
await follower.close();
// The axios transport's sending half is such a module too: an object with axios's request() (its
// transforms run, as axios runs them) stands in for axios, which this app does not install.
const axiosLike = {
  async request(config) {
    let data = config.data;
    for (const transform of config.transformRequest) data = transform.call(config, data, config.headers);
    const response = await fetch(config.url, { method: config.method, headers: config.headers, body: typeof data === 'string' ? data : JSON.stringify(data) });
    return { status: response.status, data: await response.json(), headers: {} };
  },
};
const viaAxios = new ItemApi({ basePath: '/items', baseUrl, schemaCheck: false, axiosInstance: axiosLike });
const axiosCall = viaAxios.echo({ from: 'axios' });
const axiosAnswer = await axiosCall;
window.__result = { key: call.key, seen: answer.idempotency_key, cursor, axiosKey: axiosCall.key, axiosSeen: axiosAnswer.idempotency_key };
`;

const MUX_JS = `
import { connectMuxws, muxwsViewSet, ViewSetMixin } from '@dynamicforms/fastapi-viewsets';

const { wsUrl } = await (await fetch('/config.json')).json();
class ItemApi extends muxwsViewSet()('id', [ViewSetMixin]) {
  echo(body) { return this.request('POST', '/echo', { body }); }
}
const peer = await connectMuxws(wsUrl);
const items = new ItemApi({ basePath: '/items', peer, schemaCheck: false });
const call = items.echo({ from: 'vite' });
const answer = await call;
await peer.close();
window.__result = { key: call.key, seen: answer.idempotency_key };
`;

function writeApp(dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'vite-consumer', private: true, type: 'module' }));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><script type="module" src="/main.js"></script>\n');
  fs.writeFileSync(path.join(dir, 'main.js'), MAIN_JS);
  fs.writeFileSync(path.join(dir, 'mux.html'), '<!doctype html><script type="module" src="/mux.js"></script>\n');
  fs.writeFileSync(path.join(dir, 'mux.js'), MUX_JS);
  fs.mkdirSync(path.join(dir, 'public'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'public', 'config.json'), JSON.stringify({ baseUrl: stack.baseUrl, wsUrl: stack.wsUrl }));
}

async function pageResult(url) {
  const page = await browser.newPage();
  const errors = [];
  const requests = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(url);
  try {
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30000 });
  } catch (error) {
    throw new Error(`the page did not finish: ${errors.join('; ') || error.message}`);
  }
  const result = await page.evaluate(() => window.__result);
  await page.close();
  return { ...result, requests };
}

before(async () => {
  stack = await startStack({});
  app = fs.mkdtempSync(path.join(os.tmpdir(), 'vite-consumer-'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', app, path.join(repoRoot, 'pkg')], { encoding: 'utf8' }).trim().split('\n').pop();
  writeApp(app);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', path.join(app, tarball)], { cwd: app, stdio: 'ignore' });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await stack?.stop();
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

test('the installed package works in a Vite dev server with no configuration', async () => {
  const server = await createServer({ root: app, configFile: false, logLevel: 'silent', server: { host: '127.0.0.1', port: 0 } });
  await server.listen();
  try {
    const { port } = server.httpServer.address();
    const result = await pageResult(`http://127.0.0.1:${port}/`);
    assert.match(result.key, /^[0-9a-f-]{36}$/);
    assert.deepEqual(result.seen, [`"${result.key}"`]);
    assert.equal(typeof result.cursor, 'number', 'watch() loaded its engine and the first poll was answered');
    assert.deepEqual(result.axiosSeen, [`"${result.axiosKey}"`], 'the axios sending half loaded and sent the call');
    assert.ok(result.requests.some((url) => /axios-send/.test(url)), `the axios sending half was fetched (${result.requests.join(', ')})`);
    const mux = await pageResult(`http://127.0.0.1:${port}/mux.html`);
    assert.match(mux.key, /^[0-9a-f-]{36}$/);
    assert.deepEqual(mux.seen, [`"${mux.key}"`]);
    assert.ok(mux.requests.some((url) => /muxws_bg\.wasm/.test(url)), `the muxws module was fetched (${mux.requests.join(', ')})`);
  } finally {
    await server.close();
  }
});

test('the installed package works in a Vite production build with no configuration', async () => {
  await build({ root: app, configFile: false, logLevel: 'silent', build: { outDir: 'dist' } });
  const dist = path.join(app, 'dist');
  const types = { '.js': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm', '.json': 'application/json' };
  const server = http.createServer((request, response) => {
    const file = path.join(dist, new URL(request.url, 'http://x').pathname === '/' ? 'index.html' : new URL(request.url, 'http://x').pathname);
    if (!file.startsWith(dist) || !fs.existsSync(file)) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const wasmFiles = fs.readdirSync(path.join(dist, 'assets')).filter((f) => f.endsWith('.wasm'));
    // The calls module travels inside the package's JS: no asset for it, nothing to configure.
    assert.ok(!wasmFiles.some((f) => f.startsWith('calls_bg')), `the calls module is not a separate asset (${wasmFiles})`);
    const result = await pageResult(`http://127.0.0.1:${server.address().port}/`);
    assert.deepEqual(result.seen, [`"${result.key}"`]);
    assert.deepEqual(result.axiosSeen, [`"${result.axiosKey}"`], 'the axios sending half, an asset of the build, loaded and sent the call');
    // The muxws module (and its driver) may be emitted for connectMuxws(), but a REST app never loads it.
    assert.ok(!result.requests.some((url) => /muxws/.test(url)), `a REST app fetched no muxws file (${result.requests.join(', ')})`);
    assert.ok(!result.requests.some((url) => /\.wasm$/.test(url)), `a REST app fetched no .wasm (${result.requests.join(', ')})`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
