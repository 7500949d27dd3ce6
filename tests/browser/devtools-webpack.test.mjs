// The devtools subpath in webpack's dev server (issue 37 §3), as an application gets it: `npm pack`
// of pkg/, installed into a fresh app with no configuration of the package, whose src/main.js
// imports `@dynamicforms/fastapi-viewsets/devtools` and calls `mountDevtools()`. webpack-dev-server 5
// (webpack 5, mode development: its "development" condition resolves the subpath's development
// entry; hot updates and its client on) serves the app from memory: the panel's file, an asset
// module webpack emits for the entry's `new URL('./panel.js', import.meta.url)`, loads on demand,
// opens, and lists the app's call by its key, the call having gone out with that key to the real
// backend. First with webpack's development defaults (`devtool: 'eval'`, which needs
// 'unsafe-eval': served without a policy), then with a devtool that evaluates nothing, under the
// README's policy with style-src 'self': no violation.
// Run: node --test tests/browser/devtools-webpack.test.mjs (needs pkg/: bash scripts/build.sh)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';
import webpack from 'webpack';
import WebpackDevServer from 'webpack-dev-server';

import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkgDir = process.env.PKG_DIR ?? path.join(repoRoot, 'pkg');
const POLICY = "script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
let stack;
let browser;
let app;

const MAIN_JS = `
import { restViewSet, ViewSetMixin } from '@dynamicforms/fastapi-viewsets';
import { mountDevtools } from '@dynamicforms/fastapi-viewsets/devtools';

window.__violations = [];
document.addEventListener('securitypolicyviolation', (event) => window.__violations.push(event.violatedDirective + ' ' + event.blockedURI));
mountDevtools({ open: true });
const { baseUrl } = await (await fetch('/config.json')).json();
class Items extends restViewSet()('id', [ViewSetMixin]) {}
const items = new Items({ basePath: '/items', baseUrl, schemaCheck: false });
const call = items.request('POST', '/echo', { body: { from: 'devtools in webpack' } });
const answer = await call;
window.__result = { key: call.key, seen: answer.idempotency_key };
`;

/** Starts webpack-dev-server on the app (`devtool` as given, webpack's default when undefined, `headers` on every answer); returns it with its URL. */
async function startDevServer({ devtool, headers = {} }) {
  const config = { mode: 'development', context: app, entry: './src/main.js', output: { path: path.join(app, 'dist'), publicPath: '/' }, infrastructureLogging: { level: 'error' }, stats: 'errors-only' };
  if (devtool !== undefined) config.devtool = devtool;
  const compiler = webpack(config);
  const server = new WebpackDevServer({ host: '127.0.0.1', port: 'auto', static: { directory: path.join(app, 'public'), watch: false }, headers, hot: true, liveReload: false, client: { logging: 'error' } }, compiler);
  await server.start();
  return { server, url: `http://127.0.0.1:${server.server.address().port}/` };
}

/** Opens `url`, waits for the app's call and for the panel to list it settled; returns what the page saw. */
async function visit(url) {
  const page = await browser.newPage();
  const requests = [];
  const errors = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 60_000 });
    const result = await page.evaluate(() => window.__result);
    await page.waitForFunction(
      (key) => document.querySelector('[data-fastapi-viewsets-devtools]')?.shadowRoot?.querySelector(`tr.call[data-key="${key}"][data-state="settled"]`),
      result.key,
      { timeout: 60_000 },
    );
    const row = await page.evaluate((key) => document.querySelector('[data-fastapi-viewsets-devtools]').shadowRoot.querySelector(`tr.call[data-key="${key}"]`).textContent, result.key);
    const violations = await page.evaluate(() => window.__violations);
    return { ...result, row, violations, requests, errors };
  } finally {
    await page.close();
  }
}

before(async () => {
  stack = await startStack({});
  app = fs.mkdtempSync(path.join(os.tmpdir(), 'devtools-webpack-'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', app, pkgDir], { encoding: 'utf8' }).trim().split('\n').pop();
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'devtools-webpack', private: true, type: 'module' }));
  fs.mkdirSync(path.join(app, 'src'));
  fs.writeFileSync(path.join(app, 'src', 'main.js'), MAIN_JS);
  fs.mkdirSync(path.join(app, 'public'));
  fs.writeFileSync(path.join(app, 'public', 'index.html'), '<!doctype html><title>devtools in webpack</title><script src="/main.js"></script>\n');
  fs.writeFileSync(path.join(app, 'public', 'config.json'), JSON.stringify({ baseUrl: stack.baseUrl }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', path.join(app, tarball)], { cwd: app, stdio: 'ignore' });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await stack?.stop();
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

test("webpack-dev-server with webpack's development defaults: the development entry, the panel loaded on demand, listing the app's call by its key", async () => {
  const { server, url } = await startDevServer({});
  try {
    const result = await visit(url);
    assert.deepEqual(result.seen, [`"${result.key}"`], 'the call went out with its key');
    assert.match(result.row, /POST\/items\/echoREST.*settled 200/);
    // the panel's file is an asset module webpack names by its hash: fetched on demand, apart from main.js
    const panelFile = result.requests.find((one) => one.endsWith('.js?no-inline'));
    assert.ok(panelFile && !panelFile.includes('main.js'), `the panel's file was fetched (${result.requests.join(', ')})`);
    assert.match(await (await fetch(panelFile)).text(), /data-fastapi-viewsets-devtools/, "that file is the panel's code");
    assert.deepEqual(result.errors.filter((line) => /devtools|panel/i.test(line)), []);
  } finally {
    await server.stop();
  }
});

test("webpack-dev-server under script-src 'self' 'wasm-unsafe-eval' and style-src 'self' (a devtool that evaluates nothing): the panel lists the call, no violation", async () => {
  const { server, url } = await startDevServer({ devtool: 'source-map', headers: { 'content-security-policy': POLICY } });
  try {
    const result = await visit(url);
    assert.deepEqual(result.seen, [`"${result.key}"`]);
    assert.match(result.row, /POST\/items\/echoREST.*settled 200/);
    assert.deepEqual(result.violations, []);
    assert.deepEqual(result.errors.filter((line) => /Content Security Policy|devtools|panel/i.test(line)), []);
  } finally {
    await server.stop();
  }
});
