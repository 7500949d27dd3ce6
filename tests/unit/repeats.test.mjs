// Pins how REST calls (fetch transport) are repeated when an attempt ends without an answer, on a
// fake clock with a fake fetch: a network error is repeated after repeat.delayMs, doubled after each
// (1000, 2000, 4000 …, at most 30000), with the same key, the same body bytes and the headers of the
// first attempt (interceptors included); repeat.jitter draws each delay from [d·(1−jitter), d];
// withinMs ends repeating and the call rejects with its last attempt's error; withinMs 0 never repeats.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { networkError } from './fake-fetch.mjs';
import { assertNoLeaks, observe, recordActivity, restItems, restSetup } from './kit.mjs';

const { clock, server, pkg } = await restSetup();

after(async () => {
  await assertNoLeaks(pkg, clock);
  server.uninstall();
  clock.uninstall();
});

/** Fails the first `failures` requests of each key with `failure`, then answers 200 with `{ n }`. */
function failFirst(failures, failure = networkError) {
  const seen = new Map();
  return (request) => {
    const key = request.headers['idempotency-key'];
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n <= failures ? failure() : { status: 200, body: { n } };
  };
}

/** The fake clock times at which requests with `key` went out, relative to `start`. */
function timesOf(key, start) {
  return server.requestsWithKey(key).map((request) => request.at - start);
}

test('a network error is repeated after the delay with the same key, body bytes and first-attempt headers; delays double', async () => {
  server.script = failFirst(4);
  let trace = 'trace-1';
  const items = restItems(pkg, {
    headers: { Authorization: 'Bearer t' },
    interceptors: [(request) => { request.headers['X-Trace'] = trace; }],
    repeat: { delayMs: 1000 },
  });
  const activity = recordActivity(pkg);
  const start = clock.now();
  const call = items.echo({ name: 'x', list: [1, 2, 3] }, { headers: { 'X-Call': 'c1' } });
  const seen = observe(call);
  trace = 'trace-2'; // set after the caller's synchronous part: no attempt may carry it
  await clock.advance(999);
  assert.equal(server.requestsWithKey(call.key).length, 1, 'no repeat before the delay');
  await clock.advance(20_000);
  assert.equal(seen.ok, true, 'resolved');
  assert.deepEqual(seen.value, { n: 5 }, 'with the answer of the fifth attempt');
  assert.deepEqual(timesOf(call.key, start), [0, 1000, 3000, 7000, 15000], 'delays 1000, 2000, 4000, 8000');

  const attempts = server.requestsWithKey(call.key);
  const [first] = attempts;
  assert.equal(first.text, JSON.stringify({ name: 'x', list: [1, 2, 3] }), 'a JSON body');
  assert.equal(first.headers['content-type'], 'application/json');
  for (const attempt of attempts) {
    assert.equal(attempt.method, 'POST');
    assert.equal(attempt.url, 'http://api.test/items/echo');
    assert.deepEqual(attempt.bytes, first.bytes, 'the same body bytes');
    assert.deepEqual(attempt.headers, first.headers, 'the headers of the first attempt');
  }
  assert.equal(first.headers['x-trace'], 'trace-1', 'the interceptor\'s header from the synchronous part');
  assert.equal(first.headers['x-call'], 'c1');
  assert.equal(first.headers.authorization, 'Bearer t');

  const retries = activity.of(call.key).filter((event) => event.type === 'retry');
  assert.deepEqual(
    retries.map((event) => [event.attempt, event.ended, event.delayMs]),
    [[1, 'network-error', 1000], [2, 'network-error', 2000], [3, 'network-error', 4000], [4, 'network-error', 8000]],
  );
  activity.stop();
});

test('the doubling stops at 30000 ms', async () => {
  server.script = failFirst(7);
  const items = restItems(pkg, { repeat: { delayMs: 5000 } });
  const start = clock.now();
  const call = items.list();
  await clock.advance(200_000);
  assert.deepEqual(await call, { n: 8 });
  const times = timesOf(call.key, start);
  const gaps = times.slice(1).map((at, i) => at - times[i]);
  assert.deepEqual(gaps, [5000, 10000, 20000, 30000, 30000, 30000, 30000]);
});

test('a byte body (Uint8Array) and a string body go out byte for byte on every attempt', async () => {
  server.script = failFirst(1);
  const items = restItems(pkg, { repeat: { delayMs: 100 } });
  const bytes = new Uint8Array([0, 1, 2, 250, 255]);
  const binary = items.request('PUT', '/blob', { body: bytes, headers: { 'Content-Type': 'application/octet-stream' } });
  const text = items.request('POST', '/text', { body: 'plain ü', headers: { 'Content-Type': 'text/plain' } });
  await clock.advance(1000);
  await Promise.all([binary, text]);
  for (const [call, expected] of [[binary, [...bytes]], [text, [...new TextEncoder().encode('plain ü')]]]) {
    const attempts = server.requestsWithKey(call.key);
    assert.equal(attempts.length, 2, 'repeated once');
    for (const attempt of attempts) assert.deepEqual([...attempt.bytes], expected);
  }
});

test('repeat.jitter draws each delay from [d·(1−jitter), d]; the default schedule is exact', async () => {
  server.script = failFirst(4);
  const items = restItems(pkg, { repeat: { delayMs: 1000, jitter: 0.5 } });
  const calls = Array.from({ length: 6 }, () => items.list());
  const start = clock.now();
  await clock.advance(30_000);
  await Promise.all(calls);
  const gapsSeen = new Set();
  for (const call of calls) {
    const times = timesOf(call.key, start);
    assert.equal(times.length, 5);
    times.slice(1).forEach((at, i) => {
      const gap = at - times[i];
      const d = 1000 * 2 ** i;
      assert.ok(gap >= d * 0.5 && gap <= d, `gap ${i + 1} is ${gap}, within [${d * 0.5}, ${d}]`);
      gapsSeen.add(gap);
    });
  }
  assert.ok(gapsSeen.size > 4, 'the delays are drawn, not fixed');
  await assert.rejects(items.list({}, { repeat: { jitter: 2 } }), TypeError, 'jitter above 1 is refused');
});

test('withinMs ends repeating: the call rejects with its last attempt\'s error (a NetworkError), carrying key and attempts', async () => {
  server.script = () => networkError();
  const items = restItems(pkg, { repeat: { withinMs: 5000, delayMs: 1000 } });
  const start = clock.now();
  const call = items.create({ name: 'never' });
  const seen = observe(call);
  await clock.advance(3000);
  assert.deepEqual(timesOf(call.key, start), [0, 1000, 3000]);
  // The next repeat would be due at 7000, past withinMs: none is sent; by 5000 the call has settled.
  await clock.advance(2000);
  assert.equal(seen.settled, true, 'settled within withinMs');
  await clock.advance(10_000);
  assert.equal(server.requestsWithKey(call.key).length, 3, 'nothing sent past withinMs');
  assert.ok(seen.error instanceof pkg.NetworkError, `a NetworkError (${seen.error?.name})`);
  assert.ok(seen.error.cause instanceof TypeError, 'caused by fetch\'s TypeError');
  assert.equal(seen.error.key, call.key);
  assert.equal(seen.error.attempts, 3);
});

test('withinMs past a gateway status: the call rejects with that last answer, an HttpError 503 with its HTML body', async () => {
  server.script = () => ({ status: 503, body: '<html>Service Unavailable</html>', headers: { 'content-type': 'text/html' } });
  const items = restItems(pkg, { repeat: { withinMs: 2500, delayMs: 1000 } });
  const call = items.list();
  const seen = observe(call);
  await clock.advance(10_000);
  assert.ok(seen.error instanceof pkg.HttpError, `an HttpError (${seen.error?.name})`);
  assert.equal(seen.error.status, 503);
  assert.equal(seen.error.body, '<html>Service Unavailable</html>');
  assert.equal(seen.error.attempts, 2);
  assert.equal(server.requestsWithKey(call.key).length, 2, 'at 0 and 1000; the one due at 3000 was past withinMs');
});

test('withinMs 0 turns repeating off: one attempt, and the call rejects with NetworkError', async () => {
  server.script = () => networkError();
  const items = restItems(pkg, { repeat: { withinMs: 0 } });
  const activity = recordActivity(pkg);
  const call = items.list();
  await assert.rejects(call, pkg.NetworkError);
  await clock.advance(60_000);
  assert.equal(server.requestsWithKey(call.key).length, 1);
  assert.deepEqual(activity.typesOf(call.key), ['start', 'settle']);
  activity.stop();
});

test('a per-call repeat option overrides the proxy\'s', async () => {
  server.script = failFirst(2);
  const items = restItems(pkg, { repeat: { delayMs: 1000 } });
  const start = clock.now();
  const call = items.list({}, { repeat: { delayMs: 300 } });
  await clock.advance(2000);
  await call;
  assert.deepEqual(timesOf(call.key, start), [0, 300, 900]);
});
