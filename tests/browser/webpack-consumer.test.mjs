// The package as a webpack application gets it: `npm pack` of pkg/, installed into a fresh app, built
// by webpack 5 in production mode with no configuration of the package (no wasm rule, no loader),
// and loaded as webpack emits it: a classic `<script>`, which the browser decodes in the page's
// encoding. The page declares windows-1250 (as a Central European page may), so any character of
// the shipped JS outside ASCII would read back as another one. Each page issues a keyed call over
// REST and over muxws to the real backend, and the test checks the keys on the wire.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';
import webpack from 'webpack';

import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let stack;
let browser;
let app;

const MAIN_JS = `
import { restViewSet, muxwsViewSet, connectMuxws, ViewSetMixin } from '@dynamicforms/fastapi-viewsets';

async function run({ baseUrl, wsUrl }) {
  const echo = (self, body) => self.request('POST', '/echo', { body });
  class RestItems extends restViewSet()('id', [ViewSetMixin]) {}
  class MuxItems extends muxwsViewSet()('id', [ViewSetMixin]) {}
  const restItems = new RestItems({ basePath: '/items', baseUrl, schemaCheck: false });
  const restCall = echo(restItems, { from: 'webpack' });
  const restAnswer = await restCall;
  // The follower's engine is a module of the package that webpack emits as an asset.
  const follower = restItems.watch({ onChange() {} });
  await follower.ready;
  const cursor = follower.cursor;
  await follower.close();
  const peer = await connectMuxws(wsUrl);
  const muxCall = echo(new MuxItems({ basePath: '/items', peer, schemaCheck: false }), { from: 'webpack' });
  const muxAnswer = await muxCall;
  await peer.close();
  return {
    charset: document.characterSet,
    rest: { key: restCall.key, seen: restAnswer.idempotency_key, cursor },
    muxws: { key: muxCall.key, seen: muxAnswer.idempotency_key },
  };
}
fetch('/config.json').then((answer) => answer.json()).then(run).then(
  (result) => { window.__result = result; },
  (error) => { window.__result = { error: String(error && error.stack || error) }; },
);
`;

before(async () => {
  stack = await startStack({});
  app = fs.mkdtempSync(path.join(os.tmpdir(), 'webpack-consumer-'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', app, path.join(repoRoot, 'pkg')], { encoding: 'utf8' }).trim().split('\n').pop();
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'webpack-consumer', private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', path.join(app, tarball)], { cwd: app, stdio: 'ignore' });
  fs.mkdirSync(path.join(app, 'src'));
  fs.writeFileSync(path.join(app, 'src', 'main.mjs'), MAIN_JS);
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await stack?.stop();
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

/** Runs webpack with its production defaults; resolves with the output folder. */
function build() {
  const dist = path.join(app, 'dist');
  const compiler = webpack({ mode: 'production', context: app, entry: './src/main.mjs', output: { path: dist, publicPath: 'auto' } });
  return new Promise((resolve, reject) => {
    compiler.run((error, stats) => {
      compiler.close(() => {});
      if (error) return reject(error);
      if (stats.hasErrors()) return reject(new Error(stats.toString({ all: false, errors: true })));
      resolve(dist);
    });
  });
}

test('a webpack build loads the package as a classic script on a windows-1250 page, and calls over REST and muxws', async () => {
  const dist = await build();
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><meta charset="windows-1250"><title>webpack</title><script src="main.js"></script>\n');
  fs.writeFileSync(path.join(dist, 'config.json'), JSON.stringify({ baseUrl: stack.baseUrl, wsUrl: stack.wsUrl }));
  // Served as a plain static server does: no charset on the scripts.
  const types = { '.js': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm', '.json': 'application/json' };
  const server = http.createServer((request, response) => {
    const pathname = new URL(request.url, 'http://x').pathname;
    const file = path.join(dist, pathname === '/' ? 'index.html' : pathname);
    if (!file.startsWith(dist) || !fs.existsSync(file)) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30000 }).catch(() => {});
    const result = await page.evaluate(() => window.__result);
    assert.ok(result && !result.error, `the page finished with ${JSON.stringify(result)} ${errors.join('; ')}`);
    assert.equal(result.charset, 'windows-1250');
    assert.match(result.rest.key, /^[0-9a-f-]{36}$/);
    assert.deepEqual(result.rest.seen, [`"${result.rest.key}"`]);
    assert.equal(typeof result.rest.cursor, 'number', 'watch() loaded its engine and the first poll was answered');
    assert.match(result.muxws.key, /^[0-9a-f-]{36}$/);
    assert.deepEqual(result.muxws.seen, [`"${result.muxws.key}"`]);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    await new Promise((resolve) => server.close(resolve));
  }
});
