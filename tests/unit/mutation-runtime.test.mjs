// Written for the mutants of runtime.ts that the rest of the unit suite let live (see
// tests/mutation/README.md): what a rejected call's error says (message, props, cause) for each way a
// call ends, the key on the promise, the console report of a failure nobody awaits.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { HANG, networkError } from './fake-fetch.mjs';
import { assertNoLeaks, observe, restItems, restSetup } from './kit.mjs';

const { clock, server, pkg } = await restSetup();

after(async () => {
  await assertNoLeaks(pkg, clock);
  server.uninstall();
  clock.uninstall();
});

/** Runs `fn` with console.error captured; returns what was reported, as [message, detail] pairs. */
async function capturingConsole(fn) {
  const real = console.error;
  const reported = [];
  console.error = (...args) => reported.push(args);
  try {
    await fn();
  } finally {
    console.error = real;
  }
  return reported;
}

test('an HttpError says method, path, status and the detail; a detail that is not a string says HTTP <status>', async () => {
  server.script = (request) =>
    request.url.endsWith('/items/1')
      ? { status: 404, body: { detail: 'No such item' }, headers: { 'x-request-id': 'r1' } }
      : { status: 500, body: { detail: 42 } };
  const items = restItems(pkg);
  const found = observe(items.retrieve(1));
  const broken = observe(items.echo({ a: 1 }));
  await clock.settle();
  assert.ok(found.error instanceof pkg.HttpError, `HttpError (${found.error?.name})`);
  assert.equal(found.error.message, 'GET /items/1 answered 404: No such item');
  assert.equal(found.error.status, 404);
  assert.deepEqual(found.error.body, { detail: 'No such item' });
  assert.equal(found.error.headers['x-request-id'], 'r1');
  assert.equal(typeof found.error.headers['content-type'], 'string');
  assert.equal(found.error.attempts, 1);
  assert.ok(broken.error instanceof pkg.HttpError);
  assert.equal(broken.error.message, 'POST /items/echo answered 500: HTTP 500');
});

test('a 200 resolves with its body even when an earlier attempt failed; the error of a settled network failure says its attempts', async () => {
  server.script = () => networkError();
  const items = restItems(pkg, { repeat: { withinMs: 2_500, delayMs: 1_000 } });
  const call = items.echo({ b: 2 });
  const seen = observe(call);
  await clock.advance(10_000);
  assert.ok(seen.error instanceof pkg.NetworkError, `NetworkError (${seen.error?.name})`);
  assert.equal(seen.error.key, call.key);
  assert.equal(seen.error.attempts, 2, 'at 0 and 1000 ms; the next (3000 ms) is past withinMs');
  assert.equal(server.requestsWithKey(call.key).length, 2);
});

test('CallCancelled and AttemptTimeoutError say method, path and why', async () => {
  server.script = () => HANG;
  const items = restItems(pkg, { repeat: { withinMs: 0 } });
  const controller = new AbortController();
  const cancelled = observe(items.echo({ c: 3 }, { signal: controller.signal }));
  await clock.settle();
  controller.abort();
  await clock.settle();
  assert.ok(cancelled.error instanceof pkg.CallCancelled);
  assert.equal(cancelled.error.message, 'POST /items/echo failed: it was cancelled by the caller');

  const timed = observe(restItems(pkg, { repeat: { withinMs: 0 }, attemptTimeoutMs: 500 }).echo({ d: 4 }));
  await clock.advance(600);
  assert.ok(timed.error instanceof pkg.AttemptTimeoutError, `AttemptTimeoutError (${timed.error?.name})`);
  assert.equal(timed.error.message, 'POST /items/echo failed: its attempt timed out');
  assert.equal(timed.error.attempts, 1);
});

test('an error that cannot carry the key (a thrown string, a frozen object) is wrapped in a ViewSetError whose cause it is', async () => {
  const installed = globalThis.fetch;
  const frozen = Object.freeze({ why: 'frozen' });
  const thrown = [];
  globalThis.fetch = () => {
    const value = thrown.shift();
    throw value;
  };
  try {
    const items = restItems(pkg);
    thrown.push('a string');
    const a = items.list();
    const seenA = observe(a);
    thrown.push(frozen);
    const seenB = observe(items.list());
    const plain = new Error('plain');
    thrown.push(plain);
    const c = items.list();
    const seenC = observe(c);
    await clock.settle();
    assert.equal(seenA.error?.constructor, pkg.ViewSetError, `a ViewSetError (${seenA.error?.name})`);
    assert.equal(seenA.error.message, 'GET /items failed: a string');
    assert.equal(seenA.error.cause, 'a string');
    assert.equal(seenA.error.key, a.key);
    assert.equal(seenA.error.attempts, 1);
    assert.equal(seenB.error?.constructor, pkg.ViewSetError);
    assert.equal(seenB.error.cause, frozen);
    assert.equal(Object.isFrozen(frozen) && frozen.key, undefined, 'the frozen object is left as it was');
    assert.equal(seenC.error, plain, 'an extensible error is the rejection itself');
    assert.equal(plain.key, c.key);
    assert.equal(plain.attempts, 1);
  } finally {
    globalThis.fetch = installed;
  }
});

test('an error whose key cannot be set (a throwing setter) is wrapped too', async () => {
  const installed = globalThis.fetch;
  const hostile = {};
  Object.defineProperty(hostile, 'key', {
    set() {
      throw new Error('no');
    },
  });
  globalThis.fetch = () => {
    throw hostile;
  };
  try {
    const seen = observe(restItems(pkg).list());
    await clock.settle();
    assert.equal(seen.error?.constructor, pkg.ViewSetError);
    assert.equal(seen.error.cause, hostile);
  } finally {
    globalThis.fetch = installed;
  }
});

test('the key on the promise is enumerable and read-only', async () => {
  server.script = () => ({ status: 200, body: {} });
  const call = restItems(pkg).list();
  assert.ok(Object.keys(call).includes('key'), 'enumerable');
  assert.throws(() => {
    'use strict';
    call.key = 'other';
  }, TypeError);
  await clock.settle();
  await call;
});

test('a throwing listener is reported on the console with the package\'s prefix and the error', async () => {
  server.script = () => ({ status: 200, body: {} });
  const failure = new Error('listener failure (expected by the test)');
  const stop = pkg.onCallActivity(() => {
    throw failure;
  });
  const reported = await capturingConsole(async () => {
    const call = restItems(pkg).list();
    await clock.settle();
    await call;
  });
  stop();
  assert.ok(reported.length >= 2, 'one report per event (start, settle)');
  for (const [message, detail] of reported) {
    assert.equal(message, '[fastapi-viewsets] an onCallActivity listener threw');
    assert.equal(detail, failure);
  }
});

test('internalStats(): the timer is armed while a repeat waits, calls and listeners are counted', async () => {
  server.script = () => networkError();
  const items = restItems(pkg, { repeat: { withinMs: 5_000, delayMs: 1_000 } });
  const stop = pkg.onCallActivity(() => {});
  const seen = observe(items.list());
  await clock.settle();
  const stats = pkg.internalStats();
  assert.equal(stats.timerArmed, true);
  assert.equal(stats.calls, 1);
  assert.equal(stats.engineCalls, 1);
  assert.equal(stats.listeners, 1);
  assert.equal(typeof stats.callsMemoryBytes, 'number');
  assert.ok(stats.callsMemoryBytes > 0);
  await clock.advance(10_000);
  assert.ok(seen.error instanceof pkg.NetworkError);
  stop();
  assert.equal(pkg.internalStats().timerArmed, false);
});

test('the listener on the caller\'s signal is removed once the call settles; a signal whose removal throws harms no call', async () => {
  server.script = () => ({ status: 200, body: { fine: true } });
  const items = restItems(pkg);
  const controller = new AbortController();
  const added = [];
  const removed = [];
  const { signal } = controller;
  const addEventListener = signal.addEventListener.bind(signal);
  const removeEventListener = signal.removeEventListener.bind(signal);
  signal.addEventListener = (type, listener, options) => {
    added.push([type, listener, options]);
    addEventListener(type, listener, options);
  };
  signal.removeEventListener = (type, listener) => {
    removed.push([type, listener]);
    removeEventListener(type, listener);
  };
  const call = items.list({ signal });
  assert.equal(added.length, 1);
  assert.equal(added[0][0], 'abort');
  assert.deepEqual(added[0][2], { once: true });
  assert.equal(removed.length, 0, 'not before it settles');
  await clock.settle();
  assert.deepEqual(await call, { fine: true });
  assert.deepEqual(removed, [['abort', added[0][1]]], 'the same listener, removed as it settled');

  const hostile = new AbortController();
  hostile.signal.removeEventListener = () => {
    throw new Error('a platform signal that throws (expected by the test)');
  };
  const second = items.list({ signal: hostile.signal });
  await clock.settle();
  assert.deepEqual(await second, { fine: true });
});

test('activity events carry only their own type\'s fields: no resumed on a call issued here, no reason on a start', async () => {
  server.script = () => ({ status: 200, body: {} });
  const events = [];
  const stop = pkg.onCallActivity((event) => events.push({ ...event }));
  const call = restItems(pkg).list();
  await clock.settle();
  await call;
  stop();
  const mine = events.filter((event) => event.key === call.key);
  assert.deepEqual(mine.map((event) => event.type), ['start', 'settle']);
  assert.deepEqual(Object.keys(mine[0]).sort(), ['at', 'background', 'key', 'method', 'path', 'transport', 'type']);
  assert.deepEqual(Object.keys(mine[1]).sort(), ['at', 'attempts', 'background', 'ended', 'key', 'method', 'ok', 'path', 'transport', 'type']);
});

test('a thrown function carries the key and attempts itself, as an object does', async () => {
  const installed = globalThis.fetch;
  const thrown = function oddThrow() {};
  globalThis.fetch = () => {
    throw thrown;
  };
  try {
    const call = restItems(pkg).list();
    const seen = observe(call);
    await clock.settle();
    assert.equal(seen.error, thrown);
    assert.equal(thrown.key, call.key);
    assert.equal(thrown.attempts, 1);
  } finally {
    globalThis.fetch = installed;
  }
});

test('a fetch that throws synchronously for one of two repeats sent at once (retryNow) leaves the other to go out once', async () => {
  server.script = () => networkError();
  const items = restItems(pkg, { repeat: { delayMs: 5_000, withinMs: 60_000 } });
  const a = items.list({ headers: { 'X-Which': 'a' } });
  const b = items.list({ headers: { 'X-Which': 'b' } });
  const seenA = observe(a);
  const seenB = observe(b);
  await clock.settle();
  const fake = globalThis.fetch;
  globalThis.fetch = (url, init) => {
    if (new Headers(init.headers).get('x-which') === 'a') throw new RangeError('a broken wrapper (expected by the test)');
    return fake(url, init);
  };
  server.script = () => ({ status: 200, body: { ok: 'b' } });
  try {
    pkg.retryNow();
    await clock.settle();
  } finally {
    globalThis.fetch = fake;
  }
  assert.ok(seenA.error instanceof RangeError, `a rejects with the thrown error (${seenA.error?.name})`);
  assert.deepEqual(seenB.value, { ok: 'b' });
  assert.equal(server.requestsWithKey(b.key).length, 2, 'b: its first attempt and the one retryNow() sent');
});
