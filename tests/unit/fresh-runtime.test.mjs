// The call runtime's state is one object a test can make afresh (internalFreshRuntime, runtime.ts's
// freshRuntime): what a test left behind (a call waiting for its repeat, a hanging attempt, an
// activity listener) is forgotten by the runtime and the engine, the hanging attempt is aborted, and
// its late report names no call of after; the next test starts from nothing, ids going on.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { HANG, networkError } from './fake-fetch.mjs';
import { assertNoLeaks, observe, recordActivity, restItems, restSetup } from './kit.mjs';

const { clock, server, pkg } = await restSetup();

after(async () => {
  await assertNoLeaks(pkg, clock);
  server.uninstall();
  clock.uninstall();
});

test('a test that leaves calls and a listener behind: the runtime made afresh holds nothing, and the next call works as the first', async () => {
  const items = restItems(pkg);
  // left behind: a call waiting for its repeat, one whose attempt hangs, a listener never removed
  server.script = (request) => (request.url.endsWith('/items/1') ? networkError() : HANG);
  const leftBehind = recordActivity(pkg);
  const waiting = observe(items.retrieve(1));
  const hanging = observe(items.retrieve(2));
  await clock.advance(10);
  const before = pkg.internalStats();
  assert.deepEqual([before.calls, before.engineCalls, before.listeners, before.timerArmed], [2, 2, 1, true]);
  assert.equal(pkg.pendingCallCount(), 2);
  const hangingRequest = server.requests.find((request) => request.url.endsWith('/items/2'));
  assert.equal(hangingRequest.aborted, false);

  // nothing goes wrong on the way (the runtime warns on the console when something does)
  const warnings = [];
  const consoleError = console.error;
  console.error = (...args) => warnings.push(args.map(String).join(' '));
  try {
    pkg.internalFreshRuntime();
  } finally {
    console.error = consoleError;
  }
  assert.deepEqual(warnings, []);

  const after = pkg.internalStats();
  assert.deepEqual([after.calls, after.engineCalls, after.listeners, after.timerArmed], [0, 0, 0, false]);
  assert.equal(pkg.pendingCallCount(), 0);
  assert.deepEqual(pkg.pendingCalls(), []);
  assert.equal(clock.timerCount(), 0, 'the platform timer is disarmed');
  await clock.advance(60_000);
  assert.equal(hangingRequest.aborted, true, 'the hanging attempt was abandoned');
  assert.equal(server.requests.filter((request) => request.url.endsWith('/items/1')).length, 1, 'the waiting repeat never went out');
  assert.equal(waiting.settled, false, 'a call of before never settles');
  assert.equal(hanging.settled, false);
  assert.equal(leftBehind.events.filter((event) => event.type === 'settle').length, 0);

  // the next call: its own events only, to a new listener; answered; nothing left after it
  server.script = () => ({ status: 200, body: { id: 3 } });
  const activity = recordActivity(pkg);
  const call = items.retrieve(3);
  assert.deepEqual(await call, { id: 3 });
  assert.deepEqual(activity.events.map((event) => [event.type, event.key]), [['start', call.key], ['settle', call.key]]);
  assert.deepEqual(leftBehind.events.filter((event) => event.key === call.key), [], 'the listener of before hears nothing');
  activity.stop();
  leftBehind.stop();
});
