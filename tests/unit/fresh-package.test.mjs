// internalFreshRuntime makes everything the package keeps afresh in one call, not the call runtime
// alone: persistence is off again (a call with persist is no longer stored), the persisting proxies
// compose.ts keeps for resumed calls are forgotten (a stored call finds no proxy), and every
// follower of before is closed (its polls stop). Against a package whose internalFreshRuntime reset
// only the call runtime, each of the three assertions below fails.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { flush } from './fake-clock.mjs';
import { HANG } from './fake-fetch.mjs';
import { installIndexedDB } from './fake-indexeddb.mjs';
import { assertNoLeaks, restItems, restSetup } from './kit.mjs';

/** Polls of topic `items` answer at rev 7 with no event; every other request hangs. */
function script(request) {
  if (request.url.endsWith('/events/poll')) return { status: 200, body: { topics: { items: { rev: 7, events: [] } }, poll_after_ms: 0 } };
  return HANG;
}

const { clock, server, pkg } = await restSetup(script);
const idb = installIndexedDB();

after(async () => {
  await assertNoLeaks(pkg, clock);
  idb.uninstall();
  server.uninstall();
  clock.uninstall();
});

test('one call makes the package afresh: persistence off, no persisting proxy, every follower closed', async () => {
  await pkg.resumeCalls();
  const items = restItems(pkg);
  items.create({ name: 'stored' }, { persist: true }).catch(() => {});
  await flush();
  assert.equal(idb.rows().length, 1, 'a call with persist is stored');
  const follower = pkg.follow('items', { baseUrl: 'http://api.test', pollIntervalMs: 1000 });
  await follower.ready;
  assert.equal(follower.cursor, 7);

  pkg.internalFreshRuntime();
  await flush();

  assert.equal(follower.mode, 'closed', 'the follower of before is closed');
  const polls = server.requests.filter((request) => request.url.endsWith('/events/poll')).length;
  await clock.advance(10_000);
  assert.equal(server.requests.filter((request) => request.url.endsWith('/events/poll')).length, polls, 'it polls no more');

  const again = restItems(pkg);
  const fresh = again.create({ name: 'not stored' }, { persist: true });
  await flush();
  assert.equal(idb.rows().length, 1, 'persistence is off again: a call with persist is not stored');
  fresh.catch(() => {});

  pkg.internalFreshRuntime();
  const resumed = await pkg.resumeCalls();
  assert.deepEqual(resumed.map((call) => call.skipped), ['no-proxy'], 'the persisting proxies of before are forgotten');
  pkg.internalFreshRuntime();
  await flush();
});
