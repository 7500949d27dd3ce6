// What the consumer apps share, the one in a page built by each bundler (tests/browser/consumer-app.mjs)
// and the one run by Node 20 from the installed tarball (tests/e2e/packed-node.test.mjs): the packed
// package installed into a fresh app folder, the app's calls of every part of the package, and the
// checks of what those calls saw.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A fresh app folder (under the system's temporary folder, prefix `name`) with `pkgDir` packed
 * (`npm pack`) and installed from its tarball, offline, as an app's `npm install` does.
 */
export function installPacked(name, pkgDir = path.join(repoRoot, 'pkg')) {
  const app = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', app, pkgDir], { encoding: 'utf8' }).trim().split('\n').pop();
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', path.join(app, tarball)], { cwd: app, stdio: 'ignore' });
  return app;
}

/** The names the app's module imports from the package for `EVERY_PART`. */
export const EVERY_PART_IMPORTS = 'restViewSet, muxwsViewSet, connectMuxws, liveList, ViewSetMixin';

/**
 * Source text for the app's module (after its imports of `EVERY_PART_IMPORTS` and of axios):
 * `everyPart({ baseUrl, wsUrl }, axios, between)` calls through a fetch proxy, follows over REST
 * (`watch()`, the follower's file), opens a live list (its file), calls through an axios proxy (the
 * sending half's file; a short repeat window, so a half that never loads fails within seconds),
 * awaits `between()`, then calls through a muxws proxy (the module's wasm) and follows over muxws.
 * Resolves with what each saw.
 */
export const EVERY_PART = `
class ItemApi extends restViewSet()('id', [ViewSetMixin]) {
  echo(body) { return this.request('POST', '/echo', { body }); }
}
class MuxApi extends muxwsViewSet()('id', [ViewSetMixin]) {
  echo(body) { return this.request('POST', '/echo', { body }); }
}

async function everyPart({ baseUrl, wsUrl }, axios, between = async () => {}) {
  const items = new ItemApi({ basePath: '/items', baseUrl, schemaCheck: false });
  const restCall = items.echo({ from: 'rest' });
  const restAnswer = await restCall;
  const follower = items.watch({ onChange() {} });
  await follower.ready;
  const cursor = follower.cursor;
  await follower.close();
  const list = liveList(items);
  await list.ready;
  const live = { rows: Array.isArray(list.rows), loading: list.status.loading };
  await list.close();
  const viaAxios = new ItemApi({ basePath: '/items', baseUrl, schemaCheck: false, axiosInstance: axios.create(), repeat: { withinMs: 3000, delayMs: 500 } });
  const axiosCall = viaAxios.echo({ from: 'axios' });
  const axiosAnswer = await axiosCall;
  await between();
  const peer = await connectMuxws(wsUrl);
  const wsItems = new MuxApi({ basePath: '/items', peer, schemaCheck: false });
  const muxCall = wsItems.echo({ from: 'muxws' });
  const muxAnswer = await muxCall;
  const wsFollower = wsItems.watch({ onChange() {} });
  await wsFollower.ready;
  const mode = wsFollower.mode;
  await wsFollower.close();
  await peer.close();
  return {
    rest: { key: restCall.key, seen: restAnswer.idempotency_key, cursor, live },
    axios: { key: axiosCall.key, seen: axiosAnswer.idempotency_key },
    muxws: { key: muxCall.key, seen: muxAnswer.idempotency_key, mode },
  };
}
`;

/** The checks of `everyPart()`'s result: each call went out with its key and was answered, each file it needs loaded. */
export function checkParts(assert, result) {
  assert.match(result.rest.key, /^[0-9a-f-]{36}$/);
  assert.deepEqual(result.rest.seen, [`"${result.rest.key}"`], 'a fetch proxy call');
  assert.equal(typeof result.rest.cursor, 'number', 'watch() over REST loaded follow-engine.js and the first poll was answered');
  assert.deepEqual(result.rest.live, { rows: true, loading: false }, 'liveList() loaded live/live-list.js and its first read landed');
  assert.deepEqual(result.axios.seen, [`"${result.axios.key}"`], 'an axios proxy call: axios-send.js loaded');
  assert.deepEqual(result.muxws.seen, [`"${result.muxws.key}"`], 'a muxws proxy call: the muxws module loaded');
  assert.equal(result.muxws.mode, 'push', 'watch() over muxws subscribed');
}
