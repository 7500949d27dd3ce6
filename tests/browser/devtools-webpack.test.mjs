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
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import webpack from 'webpack';
import WebpackDevServer from 'webpack-dev-server';

import { packedAppHooks } from './consumer-app.mjs';
import { devtoolsMain, POLICY, visit } from './devtools-app.mjs';

const fixture = packedAppHooks('devtools-webpack', (app, stack) => {
  fs.mkdirSync(path.join(app, 'src'));
  fs.writeFileSync(path.join(app, 'src', 'main.js'), devtoolsMain('devtools in webpack'));
  fs.mkdirSync(path.join(app, 'public'));
  fs.writeFileSync(path.join(app, 'public', 'index.html'), '<!doctype html><title>devtools in webpack</title><script src="/main.js"></script>\n');
  fs.writeFileSync(path.join(app, 'public', 'config.json'), JSON.stringify({ baseUrl: stack.baseUrl }));
}, { pkgDir: process.env.PKG_DIR });

/** Starts webpack-dev-server on the app (`devtool` as given, webpack's default when undefined, `headers` on every answer); returns it with its URL. */
async function startDevServer({ devtool, headers = {} }) {
  const { app } = fixture;
  const config = { mode: 'development', context: app, entry: './src/main.js', output: { path: path.join(app, 'dist'), publicPath: '/' }, infrastructureLogging: { level: 'error' }, stats: 'errors-only' };
  if (devtool !== undefined) config.devtool = devtool;
  const compiler = webpack(config);
  const server = new WebpackDevServer({ host: '127.0.0.1', port: 'auto', static: { directory: path.join(app, 'public'), watch: false }, headers, hot: true, liveReload: false, client: { logging: 'error' } }, compiler);
  await server.start();
  return { server, url: `http://127.0.0.1:${server.server.address().port}/` };
}

test("webpack-dev-server with webpack's development defaults: the development entry, the panel loaded on demand, listing the app's call by its key", async () => {
  const { server, url } = await startDevServer({});
  try {
    const result = await visit(fixture.browser, url);
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
    const result = await visit(fixture.browser, url);
    assert.deepEqual(result.seen, [`"${result.key}"`]);
    assert.match(result.row, /POST\/items\/echoREST.*settled 200/);
    assert.deepEqual(result.violations, []);
    assert.deepEqual(result.errors.filter((line) => /Content Security Policy|devtools|panel/i.test(line)), []);
  } finally {
    await server.stop();
  }
});
