// Written for the mutants of timer.ts that the rest of the unit suite let live (see
// tests/mutation/README.md): the runtime's one platform timer, seen through a spy on the fake
// clock's setTimeout/clearTimeout (in a REST-only process the runtime's wakeup is their only user):
// when it is set and for how long, when a timer due early is left alone, unref'd while nothing is
// due and ref'd again.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { HANG, networkError } from './fake-fetch.mjs';
import { assertNoLeaks, observe, restItems, restSetup } from './kit.mjs';

const { clock, server, pkg } = await restSetup();

/** Every setTimeout / clearTimeout / ref / unref the package makes, in order. */
const log = [];
const fakeSet = globalThis.setTimeout;
const fakeClear = globalThis.clearTimeout;
globalThis.setTimeout = (fn, ms, ...args) => {
  const handle = fakeSet(fn, ms, ...args);
  const id = handle.id;
  log.push(['set', id, ms, clock.now()]);
  const { ref, unref } = handle;
  handle.ref = function () {
    log.push(['ref', id]);
    return ref.call(this);
  };
  handle.unref = function () {
    log.push(['unref', id]);
    return unref.call(this);
  };
  return handle;
};
globalThis.clearTimeout = (handle) => {
  log.push(['clear', handle?.id]);
  return fakeClear(handle);
};

after(async () => {
  await assertNoLeaks(pkg, clock);
  globalThis.setTimeout = fakeSet;
  globalThis.clearTimeout = fakeClear;
  server.uninstall();
  clock.uninstall();
});

const sets = () => log.filter(([what]) => what === 'set');
/** The log without the handles' ids and times: [what, ms] for a set, [what] otherwise. */
const steps = () => log.map(([what, , ms]) => (what === 'set' ? [what, ms] : [what]));

/** Lets any stale timer of an earlier test fire, then starts the log afresh. */
async function fresh() {
  await clock.advance(60_000);
  log.length = 0;
}

test('the timer is set for the engine\'s deadline; an earlier one replaces it; a later one leaves it alone (ref\'d); set again when it fires', async () => {
  await fresh();
  let failures = 1;
  server.script = (request) => {
    if (request.headers['x-which'] === 'b') return HANG;
    return failures-- > 0 ? networkError() : { status: 200, body: { which: 'a' } };
  };
  const items = restItems(pkg, { repeat: { delayMs: 1_000, withinMs: 60_000 } });
  const a = observe(items.list({ headers: { 'X-Which': 'a' } }));
  await clock.settle();
  assert.deepEqual(steps(), [['set', 30_000], ['clear'], ['set', 1_000]], 'the attempt timeout (30 s), replaced by the repeat\'s delay (1 s)');
  const armed = log.at(-1)[1];

  log.length = 0;
  const slow = restItems(pkg, { attemptTimeoutMs: 10_000, repeat: { withinMs: 0 } });
  const b = observe(slow.list({ headers: { 'X-Which': 'b' } }));
  await clock.settle();
  assert.deepEqual(log, [['ref', armed]], 'a later deadline (10 s) leaves the timer due first as it is, ref\'d');

  log.length = 0;
  await clock.advance(1_000);
  assert.deepEqual(a.value, { which: 'a' }, 'the repeat went at 1 s');
  assert.deepEqual(steps()[0], ['set', 9_000], 'set again when it fired, for the earliest deadline: b\'s, 9 s from now');
  assert.ok(steps().slice(1).every(([what]) => what === 'ref'), 'then only ref\'d (a deadline is still due)');

  log.length = 0;
  await clock.advance(9_000);
  assert.ok(b.error instanceof pkg.AttemptTimeoutError, `AttemptTimeoutError (${b.error?.name})`);
  assert.deepEqual(steps(), [], 'nothing is due once both settled: no timer set');
});

test('a timer left armed when nothing is due any more is unref\'d, not cleared; when it fires nothing is set again', async () => {
  await fresh();
  server.script = () => HANG;
  const items = restItems(pkg, { attemptTimeoutMs: 3_000, repeat: { withinMs: 0 } });
  const controller = new AbortController();
  const call = observe(items.list({ signal: controller.signal }));
  await clock.settle();
  assert.deepEqual(steps(), [['set', 3_000]]);
  const id = log[0][1];
  log.length = 0;
  controller.abort();
  await clock.settle();
  assert.ok(call.error instanceof pkg.CallCancelled);
  assert.ok(log.length > 0, 'told');
  assert.ok(log.every(([what, which]) => what === 'unref' && which === id), 'the stale timer is unref\'d, and not cleared');
  log.length = 0;
  await clock.advance(3_000);
  assert.deepEqual(log, [], 'it fired, found nothing due and set nothing');
  assert.equal(clock.timerCount(), 0);
});

test('a deadline past setTimeout\'s largest delay is waited for in steps of at most 2147483647 ms', async () => {
  await fresh();
  server.script = () => HANG;
  const items = restItems(pkg, { attemptTimeoutMs: 3_000_000_000, repeat: { withinMs: 0 } });
  const call = observe(items.list());
  await clock.settle();
  assert.deepEqual(steps(), [['set', 2_147_483_647]]);
  await clock.advance(2_147_483_647);
  assert.equal(call.settled, false, 'not due yet');
  assert.deepEqual(steps(), [['set', 2_147_483_647], ['set', 3_000_000_000 - 2_147_483_647]], 'set again for the rest');
  await clock.advance(3_000_000_000 - 2_147_483_647);
  assert.ok(call.error instanceof pkg.AttemptTimeoutError);
});
