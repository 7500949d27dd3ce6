// Pins call activity for REST calls, with a fake fetch on a fake clock: onCallActivity's start,
// retry (attempt, ended, delayMs) and settle (ok, attempts) events in order, each with the call's
// key, method, path, transport and the clock's time; background calls reported with background
// true and left out of pendingCallCount(); pendingCalls() oldest first with waitingFor, nextAttemptAt
// and unansweredAttempts; retryNow() sends a waiting repeat at once, and a manual attempt that
// fails leaves the next automatic repeat when it was; retryNow(key) sends one call's alone; listeners that are removed or throw.
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

const gateway = () => ({ status: 503, body: '<html>503</html>', headers: { 'content-type': 'text/html' } });

/** Answers each key's first `n` requests with `failure`, later ones 200 `{ note }` from the body. */
function failFirst(n, failure) {
  const seen = new Map();
  return (request) => {
    const key = request.headers['idempotency-key'];
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    return count <= n ? failure() : { status: 200, body: { attempt: count } };
  };
}

test('a repeated call reports start → retry → retry → settle, each with its key, details and the clock\'s time', async () => {
  server.script = failFirst(2, gateway);
  const items = restItems(pkg, { repeat: { delayMs: 100 } });
  const activity = recordActivity(pkg);
  const start = clock.now();
  const call = items.create({ name: 'observed' });
  assert.deepEqual(activity.typesOf(call.key), ['start'], 'start is reported as the call is issued');
  await clock.advance(1000);
  assert.deepEqual(await call, { attempt: 3 });
  const events = activity.of(call.key);
  assert.deepEqual(events.map((event) => event.type), ['start', 'retry', 'retry', 'settle']);
  for (const event of events) {
    assert.equal(event.key, call.key);
    assert.equal(event.method, 'POST');
    assert.equal(event.path, '/items');
    assert.equal(event.transport, 'rest');
    assert.equal(event.background, false);
  }
  assert.deepEqual(events.map((event) => event.at - start), [0, 0, 100, 300], 'at: when each happened, on the clock');
  assert.deepEqual(
    events.filter((event) => event.type === 'retry').map((event) => [event.attempt, event.ended, event.delayMs, event.waitsForReconnect]),
    [[1, 'gateway-status', 100, false], [2, 'gateway-status', 200, false]],
  );
  const settle = events.at(-1);
  assert.equal(settle.ok, true);
  assert.equal(settle.attempts, 3);
  activity.stop();
});

test('a call that rejects settles with ok false and its attempts; a network error is labelled network-error', async () => {
  server.script = () => networkError();
  const items = restItems(pkg, { repeat: { delayMs: 100, withinMs: 250 } });
  const activity = recordActivity(pkg);
  const call = items.list();
  const seen = observe(call);
  await clock.advance(1000);
  assert.ok(seen.error instanceof pkg.NetworkError);
  const events = activity.of(call.key);
  // Attempts at 0 and 100; the next would be due at 300, past withinMs 250.
  assert.deepEqual(events.map((event) => event.type), ['start', 'retry', 'settle']);
  assert.deepEqual(events.filter((event) => event.type === 'retry').map((event) => event.ended), ['network-error']);
  assert.equal(events.at(-1).ok, false);
  assert.equal(events.at(-1).attempts, 2);
  assert.equal(events.at(-1).ended, 'network-error', 'settle says how the last attempt ended');
  activity.stop();
});

test('pendingCalls() lists unsettled calls oldest first with waitingFor; pendingCallCount() leaves background calls out', async () => {
  server.script = failFirst(1, networkError);
  const items = restItems(pkg, { repeat: { delayMs: 20_000 } });
  const activity = recordActivity(pkg);
  const before = pkg.pendingCallCount();
  const issuedAt = clock.now();
  // The fake fetch records at once but answers after its body is read: the attempts are out, unanswered.
  const foreground = items.create({ name: 'foreground' });
  await clock.advance(10);
  const background = items.create({ name: 'background' }, { background: true });
  const listed = () => pkg.pendingCalls().filter((p) => p.key === foreground.key || p.key === background.key);

  let mine = listed();
  assert.deepEqual(mine.map((p) => p.key), [foreground.key, background.key], 'oldest first');
  assert.equal(pkg.pendingCallCount() - before, 1, 'the background call is not counted');

  await clock.settle();
  mine = listed();
  assert.equal(mine.length, 2);
  for (const pending of mine) {
    assert.equal(pending.waitingFor, 'delay');
    assert.equal(pending.unansweredAttempts, 1);
    assert.equal(pending.waitingForReconnect, false);
    assert.equal(pending.transport, 'rest');
    assert.equal(pending.method, 'POST');
    assert.equal(pending.path, '/items');
    assert.equal(pending.resumed, false);
  }
  assert.equal(mine[0].issuedAt, issuedAt);
  assert.equal(mine[1].issuedAt, issuedAt + 10);
  assert.equal(mine[0].nextAttemptAt, issuedAt + 20_000, 'next attempt at its delay\'s end');
  assert.equal(mine[1].nextAttemptAt, issuedAt + 10 + 20_000);
  assert.equal(mine[0].background, false);
  assert.equal(mine[1].background, true);
  assert.equal(pkg.pendingCallCount() - before, 1);

  const backgroundEvents = activity.of(background.key);
  assert.ok(backgroundEvents.length >= 2 && backgroundEvents.every((event) => event.background === true), 'reported with background true');

  await clock.advance(20_010);
  await Promise.all([foreground, background]);
  assert.equal(listed().length, 0, 'settled calls leave the list');
  assert.equal(pkg.pendingCallCount(), before);
  activity.stop();
});

test('pendingCalls(): waitingFor is in-flight while an attempt is out; unansweredAttempts stays above 0 during the repeat', async () => {
  const requests = [];
  server.script = (request) => {
    requests.push(request);
    return requests.length === 1 ? networkError() : HANG;
  };
  const items = restItems(pkg, { repeat: { delayMs: 1000 } });
  const call = items.list();
  await clock.settle();
  let [pending] = pkg.pendingCalls().filter((p) => p.key === call.key);
  assert.equal(pending.waitingFor, 'delay');
  await clock.advance(1000);
  [pending] = pkg.pendingCalls().filter((p) => p.key === call.key);
  assert.equal(pending.waitingFor, 'in-flight', 'the repeat is out');
  assert.equal(pending.unansweredAttempts, 1, 'the first attempt went unanswered');
  assert.equal(pending.nextAttemptAt, null, 'no repeat waits');
  requests[1].respond({ status: 200, body: [] });
  await clock.settle();
  assert.deepEqual(await call, []);
});

test('retryNow() sends a waiting repeat at once', async () => {
  server.script = failFirst(1, gateway);
  const items = restItems(pkg, { repeat: { delayMs: 20_000 } });
  const start = clock.now();
  const call = items.list();
  await clock.advance(3000);
  assert.equal(server.requestsWithKey(call.key).length, 1);
  pkg.retryNow();
  await clock.settle();
  assert.deepEqual(server.requestsWithKey(call.key).map((request) => request.at - start), [0, 3000], 'sent at once');
  assert.deepEqual(await call, { attempt: 2 });
});

test('retryNow() never makes things worse: a manual attempt that fails leaves the next repeat when it was', async () => {
  server.script = failFirst(2, networkError);
  const items = restItems(pkg, { repeat: { delayMs: 10_000 } });
  const activity = recordActivity(pkg);
  const start = clock.now();
  const call = items.list();
  await clock.advance(2000);
  pkg.retryNow();
  await clock.settle();
  const retries = activity.of(call.key).filter((event) => event.type === 'retry');
  assert.equal(retries.length, 2);
  assert.equal(retries[1].delayMs, 8000, 'the rest of the interrupted delay');
  const [pending] = pkg.pendingCalls().filter((p) => p.key === call.key);
  assert.equal(pending.nextAttemptAt, start + 10_000, 'the next automatic repeat where it was');
  await clock.advance(8000);
  assert.deepEqual(server.requestsWithKey(call.key).map((request) => request.at - start), [0, 2000, 10_000]);
  assert.deepEqual(await call, { attempt: 3 });
  activity.stop();
});

test('retryNow(key) sends that call\'s waiting repeat alone, under its key; a key that names no waiting call does nothing and returns 0', async () => {
  server.script = failFirst(1, gateway);
  const items = restItems(pkg, { repeat: { delayMs: 20_000 } });
  const start = clock.now();
  const a = items.create({ name: 'a' });
  const b = items.create({ name: 'b' });
  await clock.advance(3000);
  assert.equal(pkg.retryNow(b.key), 1, 'one waiting repeat went');
  await clock.settle();
  assert.deepEqual(server.requestsWithKey(b.key).map((request) => request.at - start), [0, 3000], 'b sent at once, under its key');
  assert.deepEqual(server.requestsWithKey(a.key).map((request) => request.at - start), [0], 'a keeps waiting');
  assert.deepEqual(await b, { attempt: 2 });
  assert.equal(pkg.retryNow(b.key), 0, 'a settled call: nothing');
  assert.equal(pkg.retryNow('no-such-key'), 0, 'an unknown key: nothing');
  assert.equal(pkg.retryNow(''), 0, 'an empty key names no call');
  await clock.advance(1000);
  assert.equal(server.requestsWithKey(a.key).length, 1);
  // an argument that is not a string (the event a click handler passes) counts as none: every waiting repeat goes
  assert.equal(pkg.retryNow({ type: 'click' }), 1);
  await clock.settle();
  assert.deepEqual(server.requestsWithKey(a.key).map((request) => request.at - start), [0, 4000]);
  assert.deepEqual(await a, { attempt: 2 });
});

test('retryNow() with nothing waiting changes nothing', async () => {
  const before = server.requests.length;
  pkg.retryNow();
  await clock.advance(1000);
  assert.equal(server.requests.length, before);
});

test('a removed listener gets nothing; a throwing listener harms neither the call nor other listeners', async () => {
  server.script = () => ({ status: 200, body: { ok: true } });
  const items = restItems(pkg);
  const removed = [];
  const stopRemoved = pkg.onCallActivity((event) => removed.push(event));
  stopRemoved();
  const stopThrowing = pkg.onCallActivity(() => {
    throw new Error('listener failure (expected by the test)');
  });
  const activity = recordActivity(pkg);
  const realError = console.error;
  const reported = [];
  console.error = (...args) => reported.push(args.map(String).join(' '));
  try {
    const call = items.list();
    await clock.settle();
    assert.deepEqual(await call, { ok: true });
    assert.deepEqual(activity.typesOf(call.key), ['start', 'settle']);
    assert.equal(removed.length, 0);
    assert.ok(reported.some((line) => line.includes('onCallActivity listener threw')), 'reported on the console');
  } finally {
    console.error = realError;
    stopThrowing();
    activity.stop();
  }
  assert.throws(() => pkg.onCallActivity('not a function'), TypeError);
});
