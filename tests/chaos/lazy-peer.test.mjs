// The muxws `peer` option given as a function (0.6's lazy peer), against a stand-in peer transport
// registered through the runtime's `registerPeer` (the contract the muxws driver registers its peers
// with, docs/boundary.md): the function is called once, at the first call; calls issued before its
// peer is known are pending at once and are sent, as they were issued, once it is; a failure rejects
// the waiting calls and the next call calls the function again. End to end over the real muxws
// driver: tests/e2e/compat06-scenarios.mjs (compat06MuxwsScenarios).
//
// `registerPeer` is internal: pkg/index.js is one bundle, so the test loads the facade as tsc
// compiled it before bundling (target/pkg-work/tsc, left by scripts/build.sh) with the package's
// wasm files, in a temporary folder: the same code, its modules reachable one by one.
//
//   bash scripts/build.sh && node --experimental-websocket --test tests/chaos/lazy-peer.test.mjs
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const staged = mkdtempSync(join(tmpdir(), 'lazy-peer-'));
after(() => rmSync(staged, { recursive: true, force: true }));
cpSync(join(repo, 'target', 'pkg-work', 'tsc'), staged, { recursive: true });
cpSync(join(repo, 'pkg', 'wasm'), join(staged, 'wasm'), { recursive: true });
writeFileSync(join(staged, 'package.json'), '{ "type": "module" }\n');
const pkg = await import(pathToFileURL(join(staged, 'index.js')).href);
const runtime = await import(pathToFileURL(join(staged, 'runtime.js')).href);

/** The engine's end code of a muxws reply (docs/boundary.md). */
const MUXWS_REPLY = 4;

/** A stand-in peer: answers every attempt with `{ path, query, body, headers }` after `delayMs`, or 404 for `/missing`. */
function standInPeer(delayMs = 5) {
  const handle = {};
  const opened = [];
  runtime.registerPeer(
    (peerId) => ({
      peerId,
      name: 'muxws',
      prepare: (parts) => ({ path: parts.path, query: parts.query, payload: JSON.stringify(parts.body ?? null), headers: Object.fromEntries([...parts.headers].map(([lower, [, value]]) => [lower, value])) }),
      openAttempt(call, attempt) {
        opened.push({ key: call.key, attempt, send: call.send });
        setTimeout(() => {
          const missing = call.send.path.endsWith('/missing');
          const status = missing ? 404 : 200;
          const body = missing ? { detail: 'gone', detail_code: 'fastapi-viewsets.not_found' } : { ...call.send, payload: JSON.parse(call.send.payload) };
          runtime.report(call.id, attempt, MUXWS_REPLY, status, { kind: 'answer', status, body, headers: () => ({ ':status': status, 'content-type': 'application/json' }) });
        }, delayMs);
        return call.send.headers;
      },
      abandon() {},
      reconnectNow() {},
    }),
    handle,
  );
  return { handle, opened, close: () => runtime.unregisterPeer() };
}

class Echo extends pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]) {
  echo(body) {
    return this.request('POST', '/echo', { body });
  }
}

test('a lazy peer is called once, at the first call; the calls issued before it resolved are pending, then sent as they were issued', async () => {
  const peer = standInPeer();
  let called = 0;
  let resolvePeer;
  const source = () => {
    called += 1;
    return new Promise((resolve) => (resolvePeer = resolve));
  };
  try {
    const items = new Echo({ basePath: '/items', peer: source, schemaCheck: false });
    assert.equal(called, 0, 'not called by the constructor');
    const body = { n: 1 };
    const early = [items.echo(body), items.list({ sort: 'name' }), items.create({ name: 'x' })];
    body.n = 2; // the caller changes its object after the call: what the call sends was fixed when it was issued
    assert.equal(called, 1, 'called once, by the first call');
    const pending = pkg.pendingCalls().filter((call) => early.some((c) => c.key === call.key));
    assert.equal(pending.length, 3, 'pending while the peer is not known');
    assert.ok(pending.every((call) => call.transport === 'muxws' && call.unansweredAttempts === 0));
    assert.equal(peer.opened.length, 0, 'nothing sent before the peer is known');

    resolvePeer(peer.handle);
    const [echoed, listed, created] = await Promise.all(early);
    assert.deepEqual(echoed.payload, { n: 1 }, 'the body as it was when the call was issued');
    assert.equal(listed.query, 'sort=name', 'the query');
    assert.deepEqual(created.payload, { name: 'x' }, 'the create body');
    assert.equal(echoed.headers['idempotency-key'], `"${early[0].key}"`, 'the call’s key');
    assert.deepEqual(peer.opened.map((o) => o.attempt), [1, 1, 1], 'one attempt each');

    const later = items.echo({ n: 3 });
    assert.equal(peer.opened.at(-1).key, later.key, 'a call once the peer is known is sent at once');
    assert.deepEqual((await later).payload, { n: 3 });
    assert.equal(called, 1, 'still called once');

    const missing = items.request('GET', '/missing');
    const error = await missing.then(() => null, (e) => e);
    assert.ok(error instanceof pkg.ViewSetRequestError && error instanceof pkg.HttpError, 'an error status: HttpError, a ViewSetRequestError');
    assert.equal(error.response.status, 404);
    assert.deepEqual(error.response.headers, { 'content-type': 'application/json' }, 'no :status among the headers');
  } finally {
    peer.close();
  }
  assert.equal(pkg.internalStats().calls, 0, 'no call left');
});

test('a lazy peer that throws or rejects rejects the waiting calls with its error, carrying their keys; the next call calls it again', async () => {
  const peer = standInPeer();
  let called = 0;
  const source = () => {
    called += 1;
    if (called === 1) throw new Error('no peer yet');
    if (called === 2) return Promise.reject(new Error('still none'));
    if (called === 3) return { not: 'a peer' };
    return peer.handle;
  };
  try {
    const items = new Echo({ basePath: '/items', peer: source, schemaCheck: false });
    for (const [attempt, message] of [[1, /no peer yet/], [2, /still none/], [3, /must return a MuxwsPeer from connectMuxws\(\)/]]) {
      const call = items.echo({ attempt });
      const error = await call.then(() => null, (e) => e);
      assert.match(error?.message ?? '', message, `call ${attempt}`);
      assert.equal(error.key, call.key, 'the error carries the key');
      if (attempt === 3) assert.ok(error instanceof TypeError, 'not a peer: a TypeError');
    }
    assert.deepEqual((await items.echo({ attempt: 4 })).payload, { attempt: 4 }, 'the fourth call connects');
    assert.equal(called, 4);
  } finally {
    peer.close();
  }
});

test('a call cancelled while it waits for the lazy peer is never sent', async () => {
  const peer = standInPeer();
  let resolvePeer;
  try {
    const items = new Echo({ basePath: '/items', peer: () => new Promise((resolve) => (resolvePeer = resolve)), schemaCheck: false });
    const controller = new AbortController();
    const call = items.list(undefined, { signal: controller.signal });
    controller.abort();
    await assert.rejects(call, pkg.CallCancelled);
    resolvePeer(peer.handle);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(peer.opened.length, 0, 'nothing sent');
    assert.deepEqual((await items.list()).path, '/items', 'the next call goes out');
  } finally {
    peer.close();
  }
});

test('a muxws proxy takes a MuxwsPeer or a function; anything else is a TypeError naming connectMuxws', () => {
  class Items extends pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]) {}
  for (const peer of [undefined, null, {}, 'ws://x', 5]) {
    assert.throws(() => new Items({ basePath: '/items', peer }), (error) => error instanceof TypeError && /options\.peer must be a MuxwsPeer from connectMuxws\(\), or a function/.test(error.message));
  }
  assert.ok(new Items({ basePath: '/items', peer: () => new Promise(() => {}), schemaCheck: false }), 'a function is taken as it is, not called');
});
