// Written for the mutants of timer.ts that the rest of the unit suite let live (see
// tests/mutation/README.md): where setTimeout returns a number, as in browsers, the handle has no
// ref()/unref(): a timer left armed, or kept for a later deadline, must not be asked for them.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { HANG } from './fake-fetch.mjs';
import { assertNoLeaks, observe, restItems, restSetup } from './kit.mjs';

const { clock, server, pkg } = await restSetup();
const fakeSet = globalThis.setTimeout;
// The fake clock's clearTimeout takes a number id as well as its handle.
globalThis.setTimeout = (fn, ms, ...args) => fakeSet(fn, ms, ...args).id;

after(async () => {
  await assertNoLeaks(pkg, clock);
  globalThis.setTimeout = fakeSet;
  server.uninstall();
  clock.uninstall();
});

test('number timer ids: a later deadline keeps the armed timer, a settled call leaves it stale, and calls settle as usual', async () => {
  server.script = () => HANG;
  const fast = restItems(pkg, { attemptTimeoutMs: 1_000, repeat: { withinMs: 0 } });
  const slow = restItems(pkg, { attemptTimeoutMs: 5_000, repeat: { withinMs: 0 } });
  const controller = new AbortController();
  const a = observe(fast.list({ signal: controller.signal }));
  const b = observe(slow.list());
  await clock.settle();
  controller.abort();
  await clock.settle();
  assert.ok(a.error instanceof pkg.CallCancelled, `a: CallCancelled (${a.error?.name})`);
  await clock.advance(5_000);
  assert.ok(b.error instanceof pkg.AttemptTimeoutError, `b: AttemptTimeoutError (${b.error?.name})`);
});

test('number timer ids: the only call cancelled leaves its timer stale (nothing due), and the next call is sent and answered', async () => {
  await clock.advance(60_000);
  server.script = () => HANG;
  const items = restItems(pkg, { attemptTimeoutMs: 3_000, repeat: { withinMs: 0 } });
  const controller = new AbortController();
  const a = observe(items.list({ signal: controller.signal }));
  await clock.settle();
  controller.abort();
  await clock.settle();
  assert.ok(a.error instanceof pkg.CallCancelled, `CallCancelled (${a.error?.name})`);
  server.script = () => ({ status: 200, body: { next: true } });
  const b = observe(items.list());
  await clock.settle();
  assert.deepEqual(b.value, { next: true });
});
