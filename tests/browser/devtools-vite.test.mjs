// The devtools subpath as an application gets it: `npm pack` of pkg/, installed into a fresh Vite app
// with no configuration, whose main.js imports `@dynamicforms/fastapi-viewsets/devtools` and calls
// `mountDevtools()`. Vite's dev server (dependency pre-bundling on) resolves the "development"
// condition: the panel's chunk loads from its URL beside the pre-bundled entry, opens, and shows the
// app's call by its key, under script-src 'self' 'wasm-unsafe-eval' and style-src 'self'. Vite's
// production build (its defaults) resolves the stub: no panel, no devtools file fetched, and the
// app's call goes out as it does without the import.
// Run: node --test tests/browser/devtools-vite.test.mjs (needs pkg/: bash scripts/build.sh)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';
import { createServer } from 'vite';

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
const call = items.request('POST', '/echo', { body: { from: 'devtools' } });
const answer = await call;
window.__result = { key: call.key, seen: answer.idempotency_key };
`;

/** Opens `url`, waits for the app's call, then (when `panel`) for the panel to list it; returns what the page saw. */
async function visit(url, panel) {
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
    let row = null;
    if (panel) {
      await page.waitForFunction(
        (key) => document.querySelector('[data-fastapi-viewsets-devtools]')?.shadowRoot?.querySelector(`tr.call[data-key="${key}"][data-state="settled"]`),
        result.key,
        { timeout: 60_000 },
      );
      row = await page.evaluate((key) => document.querySelector('[data-fastapi-viewsets-devtools]').shadowRoot.querySelector(`tr.call[data-key="${key}"]`).textContent, result.key);
    } else {
      // give a panel that should not come the time it would take
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const host = await page.evaluate(() => Boolean(document.querySelector('[data-fastapi-viewsets-devtools]')));
    const violations = await page.evaluate(() => window.__violations);
    return { ...result, row, host, violations, requests, errors };
  } finally {
    await page.close();
  }
}

before(async () => {
  stack = await startStack({});
  app = fs.mkdtempSync(path.join(os.tmpdir(), 'devtools-vite-'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', app, pkgDir], { encoding: 'utf8' }).trim().split('\n').pop();
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'devtools-vite', private: true, type: 'module' }));
  fs.writeFileSync(path.join(app, 'index.html'), '<!doctype html><script type="module" src="/main.js"></script>\n');
  fs.writeFileSync(path.join(app, 'main.js'), MAIN_JS);
  fs.mkdirSync(path.join(app, 'public'));
  fs.writeFileSync(path.join(app, 'public', 'config.json'), JSON.stringify({ baseUrl: stack.baseUrl }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', path.join(app, tarball)], { cwd: app, stdio: 'ignore' });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await stack?.stop();
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

test("Vite's dev server resolves the development entry: the panel loads on demand and lists the app's call, with no CSP violation", async () => {
  const server = await createServer({ root: app, configFile: false, logLevel: 'silent', server: { host: '127.0.0.1', port: 0, headers: { 'content-security-policy': POLICY } } });
  await server.listen();
  try {
    const result = await visit(`http://127.0.0.1:${server.httpServer.address().port}/`, true);
    assert.deepEqual(result.seen, [`"${result.key}"`], 'the call went out with its key');
    assert.ok(result.host, 'the panel is mounted');
    assert.match(result.row, /POST\/items\/echoREST.*settled 200/);
    assert.ok(result.requests.some((url) => /panel\.js/.test(url)), `the panel's chunk was fetched (${result.requests.join(', ')})`);
    assert.deepEqual(result.violations, []);
    assert.deepEqual(result.errors.filter((line) => /Content Security Policy|devtools/i.test(line)), []);
  } finally {
    await server.close();
  }
});

test("Vite's production build (its defaults) resolves the stub: no panel, no devtools file, the call as without it", async () => {
  // \`vite build\` in a process of its own, as an app runs it: the dev server above set this process's
  // NODE_ENV, which Vite's build would take as it is
  const env = { ...process.env };
  delete env.NODE_ENV;
  execFileSync(process.execPath, [path.join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'silent'], { cwd: app, env, stdio: 'ignore' });
  const dist = path.join(app, 'dist');
  const emitted = fs.readdirSync(path.join(dist, 'assets'));
  assert.ok(!emitted.some((file) => /panel/.test(file)), `no panel emitted (${emitted.join(', ')})`);
  const types = { '.js': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm', '.json': 'application/json' };
  const server = http.createServer((request, response) => {
    const pathname = new URL(request.url, 'http://x').pathname;
    const file = path.join(dist, pathname === '/' ? 'index.html' : pathname);
    if (!file.startsWith(dist) || !fs.existsSync(file)) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream', 'content-security-policy': POLICY });
    fs.createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const result = await visit(`http://127.0.0.1:${server.address().port}/`, false);
    assert.deepEqual(result.seen, [`"${result.key}"`]);
    assert.equal(result.host, false, 'no panel in production');
    assert.ok(!result.requests.some((url) => /panel|devtools/.test(url)), `no devtools file fetched (${result.requests.join(', ')})`);
    assert.deepEqual(result.violations, []);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
