// The package as an application gets it: `npm pack` of pkg/, installed into a fresh Vite app with no
// configuration at all (no optimizeDeps, no wasm plugin, no init call), then used from Chromium through
// Vite's dev server (dependency pre-bundling on) and through a production build. Each page issues one
// keyed call to the real backend, and the test checks the key on the wire: index.html over REST,
// mux.html over muxws (whose module the driver fetches from a URL relative to its own, which
// pre-bundling moves). Both are served with the policy the README names, script-src 'self'
// 'wasm-unsafe-eval' (issue 29: with Vite's default build.assetsInlineLimit, axios-send.js was
// inlined as a data: URL, which the policy refuses, and every axios call failed after its repeats).
// PKG_DIR=<folder> packs another build of the package (to reproduce a failure of an older one).
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { build, createServer } from 'vite';

import { packedAppHooks, pageResult, POLICY, serveDist } from './consumer-app.mjs';

// One page, two runs: / over REST (a fetch proxy, watch() over REST, an axios proxy), /?mux over muxws
// (a muxws proxy, watch() over muxws). connectMuxws() is imported by both: the REST run never calls
// it, so it fetches nothing of muxws.
const MAIN_JS = `
import { restViewSet, muxwsViewSet, connectMuxws, ViewSetMixin } from '@dynamicforms/fastapi-viewsets';

async function overRest() {
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
  // (a short repeat window: a sending half that never loads fails the call within seconds)
  const viaAxios = new ItemApi({ basePath: '/items', baseUrl, schemaCheck: false, axiosInstance: axiosLike, repeat: { withinMs: 3000, delayMs: 500 } });
  const axiosCall = viaAxios.echo({ from: 'axios' });
  const axiosAnswer = await axiosCall;
  return { key: call.key, seen: answer.idempotency_key, cursor, axiosKey: axiosCall.key, axiosSeen: axiosAnswer.idempotency_key };
}

async function overMuxws() {
  const { wsUrl } = await (await fetch('/config.json')).json();
  class MuxApi extends muxwsViewSet()('id', [ViewSetMixin]) {
    echo(body) { return this.request('POST', '/echo', { body }); }
  }
  const peer = await connectMuxws(wsUrl);
  const items = new MuxApi({ basePath: '/items', peer, schemaCheck: false });
  const call = items.echo({ from: 'vite' });
  const answer = await call;
  // watch() over muxws: the follower subscribes the peer's socket
  const follower = items.watch({ onChange() {} });
  await follower.ready;
  const mode = follower.mode;
  await follower.close();
  await peer.close();
  return { key: call.key, seen: answer.idempotency_key, mode };
}

// A muxws proxy over a lazy peer, made at module scope as an api/items.ts makes it, its schema
// check on (the default); the page calls over REST only.
async function lazyPeerUnused() {
  const { baseUrl, wsUrl } = await (await fetch('/config.json')).json();
  class MuxApi extends muxwsViewSet()('id', [ViewSetMixin]) {}
  const lazy = new MuxApi({ basePath: '/items', peer: () => connectMuxws(wsUrl, { lazy: true }) });
  class ItemApi extends restViewSet()('id', [ViewSetMixin]) {}
  const items = new ItemApi({ basePath: '/items', baseUrl, schemaCheck: false });
  await items.list();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  return { made: typeof lazy.list };
}

({ '?mux': overMuxws, '?lazy': lazyPeerUnused }[location.search] ?? overRest)().then(
  (result) => { window.__result = result; },
  (error) => { window.__result = { error: String(error && error.stack || error) }; },
);
`;

const fixture = packedAppHooks('vite-consumer', (app, stack) => {
  fs.writeFileSync(path.join(app, 'index.html'), '<!doctype html><script type="module" src="/main.js"></script>\n');
  fs.writeFileSync(path.join(app, 'main.js'), MAIN_JS);
  fs.mkdirSync(path.join(app, 'public'), { recursive: true });
  fs.writeFileSync(path.join(app, 'public', 'config.json'), JSON.stringify({ baseUrl: stack.baseUrl, wsUrl: stack.wsUrl }));
}, { pkgDir: process.env.PKG_DIR });

test("the installed package works in a Vite dev server with no configuration, under script-src 'self' 'wasm-unsafe-eval'", async () => {
  // (server.headers only sends the policy, as the app's own server would)
  const server = await createServer({ root: fixture.app, configFile: false, logLevel: 'silent', server: { host: '127.0.0.1', port: 0, headers: { 'content-security-policy': POLICY } } });
  await server.listen();
  try {
    const { port } = server.httpServer.address();
    const result = await pageResult(fixture.browser, `http://127.0.0.1:${port}/`);
    assert.match(result.key, /^[0-9a-f-]{36}$/);
    assert.deepEqual(result.seen, [`"${result.key}"`]);
    assert.equal(typeof result.cursor, 'number', 'watch() loaded its engine and the first poll was answered');
    assert.deepEqual(result.axiosSeen, [`"${result.axiosKey}"`], 'the axios sending half loaded and sent the call');
    assert.ok(result.requests.some((url) => /axios-send/.test(url)), `the axios sending half was fetched (${result.requests.join(', ')})`);
    const mux = await pageResult(fixture.browser, `http://127.0.0.1:${port}/?mux`);
    assert.match(mux.key, /^[0-9a-f-]{36}$/);
    assert.deepEqual(mux.seen, [`"${mux.key}"`]);
    assert.ok(mux.requests.some((url) => /muxws_bg\.wasm/.test(url)), `the muxws module was fetched (${mux.requests.join(', ')})`);
    assert.equal(mux.mode, 'push', 'watch() over muxws subscribed');
  } finally {
    await server.close();
  }
});

test("the installed package works in a Vite production build with no configuration, under script-src 'self' 'wasm-unsafe-eval'", async () => {
  await build({ root: fixture.app, configFile: false, logLevel: 'silent', build: { outDir: 'dist' } });
  const dist = path.join(fixture.app, 'dist');
  const server = await serveDist(dist, fixture.stack);
  try {
    const wasmFiles = fs.readdirSync(path.join(dist, 'assets')).filter((f) => f.endsWith('.wasm'));
    // The calls module travels inside the package's JS: no asset for it, nothing to configure.
    assert.ok(!wasmFiles.some((f) => f.startsWith('calls_bg')), `the calls module is not a separate asset (${wasmFiles})`);
    const result = await pageResult(fixture.browser, server.url);
    assert.deepEqual(result.seen, [`"${result.key}"`]);
    assert.deepEqual(result.axiosSeen, [`"${result.axiosKey}"`], 'the axios sending half, an asset of the build, loaded and sent the call');
    // The muxws module (and its driver) may be emitted for connectMuxws(), but a REST app never loads it.
    assert.ok(!result.requests.some((url) => /muxws/.test(url)), `a REST app fetched no muxws file (${result.requests.join(', ')})`);
    assert.ok(!result.requests.some((url) => /\.wasm$/.test(url)), `a REST app fetched no .wasm (${result.requests.join(', ')})`);
    // a lazy peer stays lazy: no socket, no muxws module, no warning (the schema check waits for the peer)
    const lazy = await pageResult(fixture.browser, `${server.url}?lazy`);
    assert.deepEqual(lazy.sockets, [], 'no WebSocket was opened');
    assert.ok(!lazy.requests.some((url) => /muxws/.test(url)), `no muxws file was fetched (${lazy.requests.join(', ')})`);
    assert.deepEqual(lazy.warnings, [], 'nothing was warned');
    const mux = await pageResult(fixture.browser, `${server.url}?mux`);
    assert.deepEqual(mux.seen, [`"${mux.key}"`], 'a muxws call under the policy');
    assert.equal(mux.mode, 'push', 'watch() over muxws subscribed');
  } finally {
    await server.close();
  }
});
