// The axios transport's sending half (axios-send.js) is a module of its own, loaded as the first
// axios proxy is made. A load the network fails is an attempt that ended without an answer: the
// call is repeated after the delay, with its key, and the repeat loads the module under a URL of
// its own (a browser answers a failed module URL with the same failure) and goes through axios.
import assert from 'node:assert/strict';
import { register } from 'node:module';
import { after, test } from 'node:test';
import { installClock } from './fake-clock.mjs';
import { assertNoLeaks, importPackage, recordActivity } from './kit.mjs';

register('./axios-load-hooks.mjs', import.meta.url);
const clock = installClock();
const pkg = await importPackage();
const { default: axios } = await import('axios');

after(async () => {
  await assertNoLeaks(pkg, clock);
  clock.uninstall();
});

/** Turns of the event loop (real time; the fake clock stands still) until `done()`, for at most 10 s. */
async function realTimeUntil(done) {
  const end = process.hrtime.bigint() + 10_000_000_000n;
  while (!done() && process.hrtime.bigint() < end) await new Promise((resolve) => setImmediate(resolve));
}

test('the sending half fails to load: the attempt ends as a network error, the repeat loads it again and goes through axios, same key', async () => {
  const seen = [];
  const adapter = async (config) => {
    seen.push({ key: config.headers.toJSON()['Idempotency-Key'], at: Date.now() });
    return { status: 200, statusText: '', data: { id: 1 }, headers: {}, config, request: {} };
  };
  const instance = axios.create({ baseURL: 'http://api.test', adapter });
  class ItemApi extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {}
  const items = new ItemApi({ basePath: '/items', axiosInstance: instance, schemaCheck: false, repeat: { delayMs: 1000 } });
  const activity = recordActivity(pkg);
  const start = clock.now();
  const call = items.retrieve(1);
  // the first attempt waits for the load, which fails (in real time: module loading is not the clock's)
  await realTimeUntil(() => activity.of(call.key).some((event) => event.type === 'retry'));
  assert.deepEqual(
    activity.of(call.key).filter((event) => event.type === 'retry').map((event) => [event.ended, event.delayMs]),
    [['network-error', 1000]],
  );
  assert.equal(seen.length, 0, 'nothing went through axios');
  await clock.advance(1000);
  await realTimeUntil(() => seen.length > 0);
  assert.deepEqual(await call, { id: 1 });
  assert.equal(seen.length, 1);
  assert.equal(seen[0].key, `"${call.key}"`);
  assert.equal(seen[0].at - start, 1000);
  // the next call loads nothing again
  assert.deepEqual(await items.retrieve(1), { id: 1 });
  assert.equal(seen.length, 2);
  activity.stop();
});
