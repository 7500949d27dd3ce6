// What the facade's unit test files share: the fakes installed before the package is imported,
// a REST proxy class of the README's shape, an activity recorder and the leak check every file
// runs in its after().
import assert from 'node:assert/strict';
import { installClock } from './fake-clock.mjs';
import { HANG, installFetch } from './fake-fetch.mjs';
import { installMuxwsServer } from './fake-websocket.mjs';
import { after } from 'node:test';

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The package's public API, imported once the fakes are installed (the package may read globals at import). */
export async function importPackage() {
  // VIEWSETS_PKG: another build's pkg/index.js (a test run against an older package, to show what it catches)
  return import(process.env.VIEWSETS_PKG ? new URL(`file://${process.env.VIEWSETS_PKG}`).href : '../../pkg/index.js');
}

/** Installs the fake clock and the fake fetch (script: see fake-fetch.mjs), then imports the package. */
export async function restSetup(script = () => HANG) {
  const clock = installClock();
  const server = installFetch(script);
  const pkg = await importPackage();
  return { clock, server, pkg };
}

/**
 * Installs the fake clock and the scripted muxws server (fake-websocket.mjs), then imports the
 * package; the file's after() checks for leaks and that every peer closed for good, then removes
 * the fakes.
 */
export async function muxwsSetup() {
  const clock = installClock();
  const server = installMuxwsServer();
  const pkg = await importPackage();
  after(async () => {
    await assertNoLeaks(pkg, clock);
    assert.equal(pkg.internalStats().peers, 0, 'every peer closed for good');
    server.uninstall();
    clock.uninstall();
  });
  return { clock, server, pkg };
}

/** An ItemApi as the README writes it (restViewSet + ViewSetMixin, own methods on request()). */
export function restItems(pkg, options = {}) {
  class ItemApi extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {
    async approve(pk, key) {
      return this.request('POST', `/${pk}/approve`, { key });
    }
    echo(body, options = {}) {
      return this.request('POST', '/echo', { ...options, body });
    }
  }
  return new ItemApi({ basePath: '/items', baseUrl: 'http://api.test', schemaCheck: false, ...options });
}

/** Records every activity event (copies) until stop(). */
export function recordActivity(pkg) {
  const events = [];
  const stop = pkg.onCallActivity((event) => events.push({ ...event }));
  return {
    events,
    stop,
    /** The events of the call with `key`. */
    of: (key) => events.filter((event) => event.key === key),
    /** The types of the events of the call with `key`, in order. */
    typesOf: (key) => events.filter((event) => event.key === key).map((event) => event.type),
  };
}

/** The promise's outcome without throwing: { ok, value } or { ok: false, error }; `settled` false while pending. */
export function observe(promise) {
  const seen = { settled: false, ok: undefined, value: undefined, error: undefined };
  promise.then(
    (value) => Object.assign(seen, { settled: true, ok: true, value }),
    (error) => Object.assign(seen, { settled: true, ok: false, error }),
  );
  return seen;
}

/**
 * The leak check of every file's after(): every call settled, no listener left, the engine's timer
 * disarmed; after time passes for any stale platform timer to fire, no fake timer armed either.
 */
export async function assertNoLeaks(pkg, clock) {
  await clock.advance(60_000);
  const stats = pkg.internalStats();
  assert.equal(stats.calls, 0, 'no call left in the runtime');
  assert.equal(stats.engineCalls, 0, 'no call left in the engine');
  assert.equal(stats.listeners, 0, 'no activity listener left');
  assert.equal(stats.timerArmed, false, 'the engine has no timer armed');
  assert.equal(pkg.pendingCallCount(), 0, 'pendingCallCount() is 0');
  assert.deepEqual(pkg.pendingCalls(), [], 'pendingCalls() is empty');
  assert.equal(clock.timerCount(), 0, `no platform timer left armed (due in ${clock.dueTimes().map((at) => at - clock.now())} ms)`);
}
