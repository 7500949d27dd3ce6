// The follower while the platform says it is offline (navigator.onLine and the online / offline
// events, faked before the package is imported): no polls, mode 'paused'; back online, a poll at
// once and mode 'poll' (the survivors of the follower's mutation run, tests/mutation/README.md).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { installClock } from './fake-clock.mjs';
import { installFetch } from './fake-fetch.mjs';
import { assertNoLeaks, importPackage } from './kit.mjs';

const handlers = new Map();
Object.defineProperty(globalThis, 'navigator', { value: { onLine: true }, configurable: true, writable: true });
globalThis.addEventListener = (type, listener) => handlers.set(type, listener);
const clock = installClock();
const server = installFetch((request) => {
  const body = JSON.parse(request.text);
  return { status: 200, body: { topics: { away: { rev: body.cursors.away ?? 9, events: [] } }, poll_after_ms: 0 } };
});
const pkg = await importPackage();

after(async () => {
  await assertNoLeaks(pkg, clock);
  server.uninstall();
  clock.uninstall();
  delete globalThis.addEventListener;
  delete globalThis.navigator;
});

test('offline: no polls, mode paused, its listeners told; online: a poll at once, mode poll', async () => {
  const follower = pkg.follow('away', { baseUrl: 'http://backend.test', pollIntervalMs: 1000 });
  await follower.ready;
  assert.equal(follower.mode, 'poll');
  const modes = [];
  follower.subscribe((f) => modes.push(f.mode));
  await clock.advance(1000);
  assert.equal(server.requests.length, 2);
  globalThis.navigator.onLine = false;
  handlers.get('offline')();
  await clock.settle();
  assert.equal(follower.mode, 'paused');
  assert.deepEqual(modes, ['paused'], 'told once');
  await clock.advance(10_000);
  assert.equal(server.requests.length, 2, 'no poll while offline');
  const at = clock.now();
  globalThis.navigator.onLine = true;
  handlers.get('online')();
  await clock.settle();
  assert.equal(follower.mode, 'poll');
  assert.deepEqual(modes, ['paused', 'poll']);
  assert.equal(server.requests.length, 3, 'a poll at once');
  assert.equal(server.requests[2].at, at);
  await clock.advance(1000);
  assert.equal(server.requests.length, 4, 'then at its interval');
  await follower.close();
  assert.equal(follower.mode, 'closed');
});
