// Pins how a REST attempt's end decides the call (the README's "What is repeated" table), with a fake
// fetch on a fake clock: the attempt's own timeout aborts its fetch and repeats at once; a 502/503/504
// whose body is not a JSON object with `detail` is repeated after the delay, and its Retry-After
// (seconds or an HTTP date) is a floor for that delay; a 503 with a JSON detail, a 4xx and a 500
// settle at once (HttpError); a 200 resolves with the parsed body, a 204 with null.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { HANG } from './fake-fetch.mjs';
import { assertNoLeaks, observe, recordActivity, restItems, restSetup } from './kit.mjs';

const { clock, server, pkg } = await restSetup();

after(async () => {
  await assertNoLeaks(pkg, clock);
  server.uninstall();
  clock.uninstall();
});

const gatewayPage = (status, headers = {}) => ({ status, body: `<html><h1>${status}</h1></html>`, headers: { 'content-type': 'text/html', ...headers } });

/** Answers the requests of each key in turn from `answers` (its last one for every later request). */
function perKey(answers) {
  const seen = new Map();
  return (request) => {
    const key = request.headers['idempotency-key'];
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    const answer = answers[Math.min(n, answers.length - 1)];
    return typeof answer === 'function' ? answer() : answer;
  };
}

const timesOf = (call, start) => server.requestsWithKey(call.key).map((request) => request.at - start);

test('a 200 resolves with the parsed JSON body; a text body as text; a 204 with null', async () => {
  server.script = (request) =>
    request.url.endsWith('/json') ? { status: 200, body: { id: 1, name: 'x' } }
    : request.url.endsWith('/text') ? { status: 200, body: 'hello', headers: { 'content-type': 'text/plain' } }
    : { status: 204 };
  const items = restItems(pkg);
  assert.deepEqual(await items.request('GET', '/json'), { id: 1, name: 'x' });
  assert.equal(await items.request('GET', '/text'), 'hello');
  assert.equal(await items.request('DELETE', '/none'), null);
});

test('the attempt timeout aborts the fetch and repeats at once with the same key', async () => {
  server.script = perKey([HANG, { status: 200, body: { late: 'answer' } }]);
  const items = restItems(pkg, { attemptTimeoutMs: 5000 });
  const activity = recordActivity(pkg);
  const start = clock.now();
  const call = items.create({ name: 'slow' });
  const seen = observe(call);
  await clock.advance(4999);
  const [first] = server.requestsWithKey(call.key);
  assert.equal(first.aborted, false, 'not aborted before its timeout');
  assert.equal(first.signal.aborted, false);
  await clock.advance(1);
  assert.equal(first.aborted, true, 'the fetch was aborted through its signal');
  assert.equal(first.signal.aborted, true);
  assert.deepEqual(timesOf(call, start), [0, 5000], 'the repeat went out at once');
  assert.deepEqual(seen.value, { late: 'answer' });
  const [, second] = server.requestsWithKey(call.key);
  assert.equal(second.aborted, false, 'the last fetch was not aborted');
  assert.deepEqual(second.bytes, first.bytes, 'the same body bytes');
  const retry = activity.of(call.key).find((event) => event.type === 'retry');
  assert.equal(retry.ended, 'timeout');
  assert.equal(retry.delayMs, 0);
  activity.stop();
});

test('an attempt timeout past withinMs rejects with AttemptTimeoutError carrying key and attempts', async () => {
  server.script = () => HANG;
  const items = restItems(pkg, { attemptTimeoutMs: 1000, repeat: { withinMs: 2500 } });
  const start = clock.now();
  const call = items.list();
  const seen = observe(call);
  await clock.advance(10_000);
  assert.deepEqual(timesOf(call, start), [0, 1000, 2000]);
  assert.ok(seen.error instanceof pkg.AttemptTimeoutError, `an AttemptTimeoutError (${seen.error?.name})`);
  assert.equal(seen.error.key, call.key);
  assert.equal(seen.error.attempts, 3);
  assert.ok(server.requestsWithKey(call.key).every((request) => request.aborted), 'every timed-out fetch was aborted');
});

test('attemptTimeoutMs 0 sets no timeout: an attempt may take as long as it takes', async () => {
  server.script = () => HANG;
  const items = restItems(pkg, { attemptTimeoutMs: 0 });
  const call = items.list();
  const seen = observe(call);
  await clock.advance(120_000);
  assert.equal(seen.settled, false);
  const [request] = server.requestsWithKey(call.key);
  assert.equal(server.requestsWithKey(call.key).length, 1);
  request.respond({ status: 200, body: [1] });
  await clock.settle();
  assert.deepEqual(seen.value, [1]);
});

for (const status of [502, 503, 504]) {
  test(`a ${status} whose body is not a JSON object with detail is repeated after the delay`, async () => {
    server.script = perKey([gatewayPage(status), { status: 200, body: { ok: status } }]);
    const items = restItems(pkg, { repeat: { delayMs: 1000 } });
    const activity = recordActivity(pkg);
    const start = clock.now();
    const call = items.list();
    await clock.advance(999);
    assert.equal(server.requestsWithKey(call.key).length, 1, 'not before the delay');
    await clock.advance(1);
    assert.deepEqual(await call, { ok: status });
    assert.deepEqual(timesOf(call, start), [0, 1000]);
    const retry = activity.of(call.key).find((event) => event.type === 'retry');
    assert.deepEqual([retry.attempt, retry.ended, retry.delayMs], [1, 'gateway-status', 1000]);
    activity.stop();
  });
}

test('a 503 whose JSON is not an object with detail (an array, another object) is repeated too', async () => {
  server.script = perKey([{ status: 503, body: ['busy'] }, { status: 503, body: { message: 'busy' } }, { status: 200, body: 'ok', headers: { 'content-type': 'text/plain' } }]);
  const items = restItems(pkg, { repeat: { delayMs: 100 } });
  const call = items.list();
  await clock.advance(1000);
  assert.equal(await call, 'ok');
  assert.equal(server.requestsWithKey(call.key).length, 3);
});

test('a 503 with a JSON {"detail": …} is the application\'s answer: it settles, HttpError 503, no repeat', async () => {
  server.script = () => ({ status: 503, body: { detail: 'result reader stopped', detail_code: 'result_reader_stopped' } });
  const items = restItems(pkg, { repeat: { delayMs: 100 } });
  const activity = recordActivity(pkg);
  const call = items.create({ name: 'x' });
  const seen = observe(call);
  await clock.settle();
  assert.ok(seen.error instanceof pkg.HttpError, `an HttpError (${seen.error?.name})`);
  assert.equal(seen.error.status, 503);
  assert.equal(seen.error.body.detail, 'result reader stopped');
  assert.equal(seen.error.detailCode, 'result_reader_stopped');
  assert.equal(seen.error.key, call.key);
  assert.equal(seen.error.attempts, 1);
  await clock.advance(10_000);
  assert.equal(server.requestsWithKey(call.key).length, 1, 'not repeated');
  assert.deepEqual(activity.typesOf(call.key), ['start', 'settle']);
  const settle = activity.of(call.key).at(-1);
  assert.equal(settle.ok, false);
  activity.stop();
});

test('a 404 and a 500 settle at once with HttpError: status, parsed body, headers, key; nothing repeated', async () => {
  server.script = (request) =>
    request.url.includes('/items/9')
      ? { status: 404, body: { detail: 'Not found', detail_code: 'fastapi-viewsets.not_found', detail_params: { pk: 9 } }, headers: { 'x-request-id': 'r1' } }
      : { status: 500, body: 'Internal Server Error', headers: { 'content-type': 'text/plain' } };
  const items = restItems(pkg, { repeat: { delayMs: 100 } });
  const missing = items.retrieve(9);
  const broken = items.list();
  const [a, b] = [observe(missing), observe(broken)];
  await clock.advance(5000);
  assert.ok(a.error instanceof pkg.HttpError && a.error instanceof pkg.ViewSetRequestError && a.error instanceof pkg.ViewSetError);
  assert.equal(a.error.status, 404);
  assert.equal(a.error.response.status, 404, '0.6\'s response.status');
  assert.equal(a.error.detailCode, 'fastapi-viewsets.not_found');
  assert.deepEqual(a.error.detailParams, { pk: 9 });
  assert.equal(a.error.headers['x-request-id'], 'r1');
  assert.equal(a.error.key, missing.key);
  assert.ok(b.error instanceof pkg.HttpError);
  assert.equal(b.error.status, 500);
  assert.equal(b.error.body, 'Internal Server Error');
  assert.equal(server.requestsWithKey(missing.key).length, 1);
  assert.equal(server.requestsWithKey(broken.key).length, 1);
});

test('Retry-After (seconds) on a 503 sets a longer delay; the backoff goes on from there', async () => {
  server.script = perKey([gatewayPage(503, { 'retry-after': '5' }), gatewayPage(503), { status: 200, body: {} }]);
  const items = restItems(pkg, { repeat: { delayMs: 1000 } });
  const start = clock.now();
  const call = items.list();
  await clock.advance(20_000);
  await call;
  assert.deepEqual(timesOf(call, start), [0, 5000, 7000], 'Retry-After 5 s, then the doubled 2000 ms');
});

test('Retry-After is a floor, never a shorter wait: Retry-After 0 on every answer gets 1, 2, 4 s', async () => {
  server.script = perKey([gatewayPage(503, { 'retry-after': '0' }), gatewayPage(502, { 'retry-after': '0' }), gatewayPage(504, { 'retry-after': '0' }), { status: 200, body: {} }]);
  const items = restItems(pkg, { repeat: { delayMs: 1000 } });
  const start = clock.now();
  const call = items.list();
  await clock.advance(20_000);
  await call;
  assert.deepEqual(timesOf(call, start), [0, 1000, 3000, 7000]);
});

test('Retry-After as an HTTP date is read against the clock', async () => {
  const at = new Date(clock.now() + 8000).toUTCString();
  server.script = perKey([gatewayPage(503, { 'retry-after': at }), { status: 200, body: {} }]);
  const items = restItems(pkg, { repeat: { delayMs: 1000 } });
  const start = clock.now();
  const call = items.list();
  await clock.advance(20_000);
  await call;
  assert.deepEqual(timesOf(call, start), [0, 8000]);
});

test('a Retry-After beyond withinMs settles the call at once with that answer', async () => {
  server.script = () => gatewayPage(503, { 'retry-after': '120' });
  const items = restItems(pkg, { repeat: { delayMs: 1000, withinMs: 60_000 } });
  const call = items.list();
  const seen = observe(call);
  await clock.settle();
  assert.equal(seen.settled, true, 'settled without waiting');
  assert.ok(seen.error instanceof pkg.HttpError);
  assert.equal(seen.error.status, 503);
  assert.equal(seen.error.headers['retry-after'], '120');
  await clock.advance(200_000);
  assert.equal(server.requestsWithKey(call.key).length, 1);
});

test('Retry-After on a 503 with a JSON detail changes nothing: it settles', async () => {
  server.script = () => ({ status: 503, body: { detail: 'down' }, headers: { 'retry-after': '1' } });
  const items = restItems(pkg);
  const call = items.list();
  await assert.rejects(call, (error) => error instanceof pkg.HttpError && error.status === 503);
  await clock.advance(10_000);
  assert.equal(server.requestsWithKey(call.key).length, 1);
});

test('a body cut off mid-read is no answer: repeated after the delay', async () => {
  let first = true;
  server.script = () => {
    if (!first) return { status: 200, body: { whole: true } };
    first = false;
    // A Response whose body stream errors: the platform's text() rejects, as when the connection is cut.
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"partial":'));
        controller.error(new TypeError('terminated'));
      },
    });
    return { status: 200, body: new Response(body).body, headers: { 'content-type': 'application/json' } };
  };
  const items = restItems(pkg, { repeat: { delayMs: 500 } });
  const activity = recordActivity(pkg);
  const start = clock.now();
  const call = items.list();
  await clock.advance(1000);
  assert.deepEqual(await call, { whole: true });
  assert.deepEqual(timesOf(call, start), [0, 500]);
  assert.equal(activity.of(call.key).find((event) => event.type === 'retry').ended, 'network-error');
  activity.stop();
});

test('a 200 whose JSON does not parse is an answer of the application: it settles (InvalidResponseError), not repeated', async () => {
  server.script = () => ({ status: 200, body: '{"cut":', headers: { 'content-type': 'application/json' } });
  const items = restItems(pkg, { repeat: { delayMs: 100 } });
  const call = items.list();
  const seen = observe(call);
  await clock.advance(5000);
  assert.ok(seen.error instanceof pkg.InvalidResponseError, `InvalidResponseError (${seen.error?.name})`);
  assert.equal(seen.error.key, call.key);
  assert.equal(server.requestsWithKey(call.key).length, 1);
});

test('a fetch that throws synchronously ends the call with that error, not repeated', async () => {
  const installed = globalThis.fetch;
  let calls = 0;
  globalThis.fetch = () => {
    calls += 1;
    throw new RangeError('a wrapper of fetch broke');
  };
  try {
    const items = restItems(pkg, { repeat: { delayMs: 100 } });
    const call = items.list();
    const seen = observe(call);
    await clock.advance(5000);
    assert.ok(seen.error instanceof RangeError, `the thrown error (${seen.error?.name})`);
    assert.equal(seen.error.key, call.key, 'carrying the key');
    assert.equal(calls, 1);
  } finally {
    globalThis.fetch = installed;
  }
});

test('200 calls under random failures: each settles once with its own answer, the network saw only its own key', async () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  server.script = (request) => {
    const roll = random();
    if (roll < 0.2) return networkError();
    if (roll < 0.35) return gatewayPage(503);
    return { status: 200, body: { echo: JSON.parse(request.text).n } };
  };
  const items = restItems(pkg, { repeat: { delayMs: 100 } });
  const calls = Array.from({ length: 200 }, (_, n) => items.create({ n }));
  await clock.advance(60_000);
  const answers = await Promise.all(calls);
  answers.forEach((answer, n) => assert.deepEqual(answer, { echo: n }));
  for (const [n, call] of calls.entries()) {
    const attempts = server.requestsWithKey(call.key);
    assert.ok(attempts.length >= 1 && attempts.every((request) => request.text === JSON.stringify({ n })), `call ${n}`);
  }
  assert.equal(pkg.internalStats().calls, 0);
});
