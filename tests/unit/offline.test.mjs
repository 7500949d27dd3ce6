// Pins the README's offline rules with a browser-like platform faked in Node (navigator.onLine and
// the window's online/offline events, installed before the package is imported), a fake fetch and
// a fake clock: while offline a repeat waits without spending attempts or growing its delay
// (pendingCalls waitingFor 'offline', nextAttemptAt null, a `wait` event), and every waiting repeat
// goes at once when the platform is online again; an attempt under way is left alone; a call issued
// offline still makes its first attempt; withinMs still ends the wait; a muxws peer waiting out a
// reconnect delay redials at once on `online`.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { installClock } from './fake-clock.mjs';
import { HANG, installFetch, networkError } from './fake-fetch.mjs';
import { installMuxwsServer } from './fake-websocket.mjs';
import { assertNoLeaks, importPackage, observe, recordActivity, restItems } from './kit.mjs';

// The platform: a navigator that says whether it is online, and the global scope's events.
const scope = new EventTarget();
let online = true;
globalThis.navigator = { get onLine() { return online; } };
globalThis.addEventListener = scope.addEventListener.bind(scope);
globalThis.removeEventListener = scope.removeEventListener.bind(scope);
function goOffline() {
  online = false;
  scope.dispatchEvent(new Event('offline'));
}
function goOnline() {
  online = true;
  scope.dispatchEvent(new Event('online'));
}

const clock = installClock();
const server = installFetch(() => networkError());
const mux = installMuxwsServer();
const pkg = await importPackage();

after(async () => {
  goOnline();
  await assertNoLeaks(pkg, clock);
  mux.uninstall();
  server.uninstall();
  clock.uninstall();
  delete globalThis.navigator;
  delete globalThis.addEventListener;
  delete globalThis.removeEventListener;
});

const timesOf = (call, start) => server.requestsWithKey(call.key).map((request) => request.at - start);

test('offline, a waiting repeat sends nothing and spends no attempt; online again it goes at once; the doubling did not grow', async () => {
  let failures = 2;
  server.script = () => (failures-- > 0 ? networkError() : { status: 200, body: { back: true } });
  const items = restItems(pkg, { repeat: { delayMs: 1000 } });
  const activity = recordActivity(pkg);
  const start = clock.now();
  const call = items.list();
  await clock.advance(500);
  goOffline();
  await clock.settle();
  let [pending] = pkg.pendingCalls().filter((p) => p.key === call.key);
  assert.equal(pending.waitingFor, 'offline');
  assert.equal(pending.nextAttemptAt, null, 'not at a known time');
  assert.equal(pending.unansweredAttempts, 1);
  await clock.advance(60_000);
  assert.deepEqual(timesOf(call, start), [0], 'nothing sent while offline');
  goOnline();
  await clock.settle();
  assert.deepEqual(timesOf(call, start), [0, 60_500], 'sent at once when online');
  // The repeat failed again (online): its delay is the first doubling, 2000, not more.
  const retries = activity.of(call.key).filter((event) => event.type === 'retry');
  assert.deepEqual(retries.map((event) => event.delayMs), [1000, 2000]);
  await clock.advance(2000);
  assert.deepEqual(await call, { back: true });
  const waits = activity.of(call.key).filter((event) => event.type === 'wait');
  assert.deepEqual(waits.map((event) => event.reason), ['offline', 'in-flight'], 'wait events: offline, then its end with the repeat sent');
  activity.stop();
});

test('a call issued offline still makes its first attempt; when it fails the call waits for online with unansweredAttempts 1', async () => {
  server.script = (request) => (online ? { status: 200, body: 'online' } : networkError());
  const items = restItems(pkg, { repeat: { delayMs: 1000 } });
  goOffline();
  const start = clock.now();
  const call = items.list();
  await clock.advance(10_000);
  assert.deepEqual(timesOf(call, start), [0], 'the first attempt went out');
  const [pending] = pkg.pendingCalls().filter((p) => p.key === call.key);
  assert.equal(pending.waitingFor, 'offline');
  assert.equal(pending.unansweredAttempts, 1);
  goOnline();
  await clock.settle();
  assert.equal(await call, 'online');
  assert.deepEqual(timesOf(call, start), [0, 10_000]);
});

test('an attempt under way is left alone when the platform goes offline', async () => {
  server.script = () => HANG;
  const items = restItems(pkg);
  const call = items.list();
  await clock.advance(100);
  goOffline();
  await clock.advance(100);
  const [request] = server.requestsWithKey(call.key);
  assert.equal(request.aborted, false, 'not aborted');
  assert.equal(pkg.pendingCalls().find((p) => p.key === call.key)?.waitingFor, 'in-flight');
  request.respond({ status: 200, body: 'answered offline' });
  await clock.settle();
  assert.equal(await call, 'answered offline');
  goOnline();
  await clock.settle();
});

test('withinMs still ends a wait for online: the call settles with its last attempt\'s error', async () => {
  server.script = () => networkError();
  const items = restItems(pkg, { repeat: { delayMs: 1000, withinMs: 30_000 } });
  const call = items.list();
  const seen = observe(call);
  await clock.settle();
  goOffline();
  await clock.advance(29_000);
  assert.equal(seen.settled, false);
  await clock.advance(2000);
  assert.ok(seen.error instanceof pkg.NetworkError, `NetworkError (${seen.error?.name})`);
  assert.equal(server.requestsWithKey(call.key).length, 1);
  goOnline();
  await clock.settle();
});

test('online again: a muxws peer waiting out a reconnect delay redials at once', async () => {
  mux.accept = () => true;
  mux.answer = () => ({ status: 200, payload: 'ok' });
  const closes = [];
  const peer = await pkg.connectMuxws('ws://mux.test/ws', { reconnect: { initialDelayMs: 20_000, jitter: 0 }, onClose: (reason) => closes.push(reason) });
  try {
    const dialled = mux.sockets.length;
    goOffline();
    mux.sockets.at(-1).drop();
    await clock.advance(5000);
    assert.equal(closes.length, 1);
    assert.equal(mux.sockets.length, dialled, 'waiting out its 20 s delay');
    goOnline();
    await clock.settle();
    assert.equal(mux.sockets.length, dialled + 1, 'redialled at once');
    assert.equal(peer.isOpen, true);
  } finally {
    const closing = peer.close();
    await clock.advance(100);
    await closing;
  }
});
