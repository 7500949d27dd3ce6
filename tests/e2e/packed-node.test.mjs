// The package as a Node 20 application gets it, with no bundler: `npm pack` of pkg/, installed into a
// fresh app, imported by its name from a script run by `node --experimental-websocket`, against the
// real backend. Every part it loads by URL loads from the installed files: a fetch proxy, an axios
// proxy (axios-send.js), watch() over REST (follow-engine.js), a schema check that finds an undeclared
// action (schema-check.js), a muxws proxy (wasm/muxws_bg.wasm) and watch() over muxws. (The other
// Node tests import pkg/index.js by its path; this one, the tarball by its name.)
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { startStack } from '../harness/stack.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let stack;
let app;

const APP_JS = (axiosUrl) => `
import { restViewSet, muxwsViewSet, connectMuxws, ViewSetMixin, LookupMixin } from '@dynamicforms/fastapi-viewsets';
import axios from ${JSON.stringify(axiosUrl)};

const [baseUrl, wsUrl] = process.argv.slice(2);
const warnings = [];
console.warn = (...args) => warnings.push(args.map(String).join(' '));
class ItemApi extends restViewSet()('id', [ViewSetMixin]) {
  echo(body) { return this.request('POST', '/echo', { body }); }
}
class MuxApi extends muxwsViewSet()('id', [ViewSetMixin]) {
  echo(body) { return this.request('POST', '/echo', { body }); }
}
const items = new ItemApi({ basePath: '/items', baseUrl, schemaCheck: false });
const restCall = items.echo({ from: 'node' });
const restAnswer = await restCall;
const follower = items.watch({ onChange() {} });
await follower.ready;
const cursor = follower.cursor;
await follower.close();
const viaAxios = new ItemApi({ basePath: '/items', baseUrl, schemaCheck: false, axiosInstance: axios.create(), repeat: { withinMs: 3000 } });
const axiosCall = viaAxios.echo({ from: 'axios' });
const axiosAnswer = await axiosCall;
// the schema check (on by default) of a proxy declaring an action /catalog/pages lacks
class Pages extends restViewSet()('id', [LookupMixin]) {}
new Pages({ basePath: '/catalog/pages', baseUrl });
for (let i = 0; i < 100 && !warnings.length; i++) await new Promise((resolve) => setTimeout(resolve, 50));
const peer = await connectMuxws(wsUrl);
const wsItems = new MuxApi({ basePath: '/items', peer, schemaCheck: false });
const muxCall = wsItems.echo({ from: 'muxws' });
const muxAnswer = await muxCall;
const wsFollower = wsItems.watch({ onChange() {} });
await wsFollower.ready;
const mode = wsFollower.mode;
await wsFollower.close();
await peer.close();
console.log(JSON.stringify({
  rest: { key: restCall.key, seen: restAnswer.idempotency_key, cursor },
  axios: { key: axiosCall.key, seen: axiosAnswer.idempotency_key },
  muxws: { key: muxCall.key, seen: muxAnswer.idempotency_key, mode },
  warnings,
}));
`;

before(async () => {
  stack = await startStack({});
  app = fs.mkdtempSync(path.join(os.tmpdir(), 'node-consumer-'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', app, path.join(repoRoot, 'pkg')], { encoding: 'utf8' }).trim().split('\n').pop();
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'node-consumer', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', path.join(app, tarball)], { cwd: app, stdio: 'ignore' });
  fs.writeFileSync(path.join(app, 'app.mjs'), APP_JS(pathToFileURL(path.join(repoRoot, 'node_modules', 'axios', 'index.js')).href));
});

after(async () => {
  await stack?.stop();
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

test('the installed package in Node 20 without a bundler: every part loads (fetch, axios, watch() over REST, the schema check, muxws, watch() over muxws)', async () => {
  const child = spawn(process.execPath, ['--experimental-websocket', '--no-warnings=ExperimentalWarning', 'app.mjs', stack.baseUrl, stack.wsUrl], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => { out += chunk; });
  child.stderr.on('data', (chunk) => { err += chunk; });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, `the app ended with ${code}: ${err}`);
  const result = JSON.parse(out.trim().split('\n').pop());
  assert.deepEqual(result.rest.seen, [`"${result.rest.key}"`], 'a fetch proxy call');
  assert.equal(typeof result.rest.cursor, 'number', 'watch() over REST loaded follow-engine.js');
  assert.deepEqual(result.axios.seen, [`"${result.axios.key}"`], 'an axios proxy call: axios-send.js loaded');
  assert.ok(result.warnings.some((w) => w.includes('/catalog/pages/lookup')), `schema-check.js loaded and compared (${result.warnings})`);
  assert.ok(!result.warnings.some((w) => /not run|not loaded/.test(w)), `nothing failed to load (${result.warnings})`);
  assert.deepEqual(result.muxws.seen, [`"${result.muxws.key}"`], 'a muxws call: wasm/muxws_bg.wasm loaded');
  assert.equal(result.muxws.mode, 'push', 'watch() over muxws subscribed');
});
