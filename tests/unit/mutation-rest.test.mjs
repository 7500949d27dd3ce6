// Written for the mutants of rest.ts that the rest of the unit suite let live (see
// tests/mutation/README.md): how an answer's body is read by its content type, what the errors of a
// REST attempt say, Retry-After's forms, answers that are not Responses, interceptors' returns.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { networkError } from './fake-fetch.mjs';
import { assertNoLeaks, observe, restItems, restSetup } from './kit.mjs';

const { clock, server, pkg } = await restSetup();

after(async () => {
  await assertNoLeaks(pkg, clock);
  server.uninstall();
  clock.uninstall();
});

test('JSON is parsed for application/json with parameters, in any case, and for +json types; other types stay text', async () => {
  const answers = {
    a: { status: 200, body: '{"a":1}', headers: { 'content-type': 'application/json; charset=utf-8' } },
    b: { status: 200, body: '{"b":2}', headers: { 'content-type': ' Application/JSON ;charset=utf-8' } },
    c: { status: 200, body: '{"c":3}', headers: { 'content-type': 'application/problem+json' } },
    d: { status: 200, body: '{"d":4}', headers: { 'content-type': 'text/plain' } },
    e: { status: 200, body: '{"e":5}', headers: { 'content-type': 'application/jsonx' } },
    f: { status: 200, body: '{"f":6}' },
    g: { status: 200, body: '' , headers: { 'content-type': 'application/json' } },
  };
  server.script = (request) => answers[request.headers['x-which']];
  const items = restItems(pkg);
  const seen = Object.fromEntries(Object.keys(answers).map((which) => [which, observe(items.list({ headers: { 'X-Which': which } }))]));
  await clock.settle();
  assert.deepEqual(seen.a.value, { a: 1 });
  assert.deepEqual(seen.b.value, { b: 2 });
  assert.deepEqual(seen.c.value, { c: 3 });
  assert.equal(seen.d.value, '{"d":4}');
  assert.equal(seen.e.value, '{"e":5}');
  assert.equal(seen.f.value, '{"f":6}', 'a string body the fake sends as text/plain');
  assert.equal(seen.g.value, null, 'an empty body is null');
});

test('JSON that does not parse: InvalidResponseError under 400 says so with status, text and headers; from 400 on the text is the HttpError\'s body', async () => {
  server.script = (request) =>
    request.headers['x-which'] === 'ok'
      ? { status: 399, body: '{bad', headers: { 'content-type': 'application/json', 'x-id': 'i1' } }
      : { status: 400, body: '{bad', headers: { 'content-type': 'application/json' } };
  const items = restItems(pkg);
  const ok = observe(items.list({ headers: { 'X-Which': 'ok' } }));
  const bad = observe(items.list({ headers: { 'X-Which': 'bad' } }));
  await clock.settle();
  assert.ok(ok.error instanceof pkg.InvalidResponseError, `InvalidResponseError (${ok.error?.name})`);
  assert.equal(ok.error.message, 'GET /items answered 399 with JSON that does not parse');
  assert.equal(ok.error.status, 399);
  assert.equal(ok.error.text, '{bad');
  assert.equal(ok.error.headers['x-id'], 'i1');
  assert.ok(ok.error.cause instanceof SyntaxError);
  assert.ok(bad.error instanceof pkg.HttpError, `HttpError (${bad.error?.name})`);
  assert.equal(bad.error.status, 400);
  assert.equal(bad.error.body, '{bad');
});

test('a network error\'s NetworkError says the request got no answer, with fetch\'s error as its cause', async () => {
  server.script = () => networkError('connect ECONNREFUSED');
  const seen = observe(restItems(pkg, { repeat: { withinMs: 0 } }).list());
  await clock.settle();
  assert.ok(seen.error instanceof pkg.NetworkError);
  assert.equal(seen.error.message, 'the request got no answer: connect ECONNREFUSED');
  assert.ok(seen.error.cause instanceof TypeError);
  assert.equal(seen.error.cause.message, 'connect ECONNREFUSED');
});

test('fetch resolving with what is not a Response ends the call with a TypeError saying so; a Response-like object of another realm is read', async () => {
  const installed = globalThis.fetch;
  const answers = [
    null,
    { status: 200 },
    { status: 200, text: async () => '{"x":1}' },
    { status: '200', text: async () => '{"x":1}', headers: new Headers() },
    { status: 200, text: async () => '{"x":1}', headers: new Headers({ 'content-type': 'application/json' }) },
  ];
  let next = 0;
  globalThis.fetch = async () => answers[next++];
  try {
    const items = restItems(pkg, { repeat: { withinMs: 0 } });
    const seen = answers.map(() => observe(items.list()));
    await clock.settle();
    for (const [i, one] of seen.slice(0, 4).entries()) {
      assert.ok(one.error instanceof TypeError, `answer ${i}: a TypeError (${one.error?.name})`);
      assert.match(one.error.message, /^fetch resolved with .*, which is not a Response$/);
    }
    assert.equal(seen[0].error.message, 'fetch resolved with null, which is not a Response');
    assert.deepEqual(seen[4].value, { x: 1 }, 'read as an answer');
  } finally {
    globalThis.fetch = installed;
  }
});

test('Retry-After: blanks around the seconds are allowed; a date in the past is now (0 s, the backoff\'s floor applies); nonsense is ignored', async () => {
  const start = clock.now();
  const pastDate = new Date(start - 60_000).toUTCString();
  const which = { a: ' 5 ', b: pastDate, c: 'soon', d: '5s', e: '' };
  const seenCount = new Map();
  server.script = (request) => {
    const key = request.headers['x-which'];
    const n = (seenCount.get(key) ?? 0) + 1;
    seenCount.set(key, n);
    return n === 1 ? { status: 503, body: 'busy', headers: { 'retry-after': which[key] } } : { status: 200, body: {} };
  };
  const items = restItems(pkg, { repeat: { delayMs: 1_000 } });
  const calls = Object.fromEntries(Object.keys(which).map((key) => [key, items.list({ headers: { 'X-Which': key } })]));
  await clock.advance(10_000);
  const times = (key) => server.requestsWithKey(calls[key].key).map((request) => request.at - start);
  assert.deepEqual(times('a'), [0, 5_000], '" 5 " is 5 s');
  assert.deepEqual(times('b'), [0, 1_000], 'a date in the past: the delay');
  assert.deepEqual(times('c'), [0, 1_000], 'not a date: the delay');
  assert.deepEqual(times('d'), [0, 1_000], '"5s" is neither');
  assert.deepEqual(times('e'), [0, 1_000], 'empty');
  for (const call of Object.values(calls)) await call;
});

test('a request interceptor returning a new request: its headers (a Headers, pairs) are what goes out; returning a primitive changes nothing', async () => {
  server.script = () => ({ status: 200, body: {} });
  const items = restItems(pkg, {
    interceptors: [
      () => 'ignored',
      (request) => ({ ...request, headers: new Headers({ 'X-From': 'headers-object', 'Idempotency-Key': 'spoofed' }) }),
      (request) => ({ ...request, headers: [...new Headers(request.headers), ['X-Pair', 'p']] }),
      () => null,
    ],
  });
  const call = items.list();
  await clock.settle();
  await call;
  const [sent] = server.requestsWithKey(call.key);
  assert.ok(sent, 'the call\'s own key went out');
  assert.equal(sent.headers['x-from'], 'headers-object');
  assert.equal(sent.headers['x-pair'], 'p');
});

test('a promise-returning interceptor is refused with a TypeError that says why', async () => {
  const items = restItems(pkg, { interceptors: [async () => {}] });
  await assert.rejects(items.list(), (error) => error instanceof TypeError && error.message === 'a request interceptor must be synchronous; it returned a promise');
  const thenable = restItems(pkg, { interceptors: [() => ({ then() {} })] });
  await assert.rejects(thenable.list(), TypeError);
  const notThenable = restItems(pkg, { interceptors: [(request) => ({ ...request, then: 1 })] });
  server.script = () => ({ status: 200, body: {} });
  const call = notThenable.list();
  await clock.settle();
  await call;
});

test('a FormData body: the bytes are read once, with fetch\'s content type unless the caller set one; an abort before they are read sends nothing', async () => {
  server.script = () => ({ status: 200, body: {} });
  const items = restItems(pkg);
  const form = new FormData();
  form.append('name', 'x');
  const plain = items.echo(form);
  const typed = items.echo(form, { headers: { 'Content-Type': 'multipart/form-data; boundary=custom' } });
  await clock.settle();
  await plain;
  await typed;
  const [p] = server.requestsWithKey(plain.key);
  const [t] = server.requestsWithKey(typed.key);
  assert.match(p.headers['content-type'], /^multipart\/form-data; boundary=/);
  assert.ok(p.text.includes('name="name"'));
  assert.equal(t.headers['content-type'], 'multipart/form-data; boundary=custom', 'the caller\'s content type kept');

  const controller = new AbortController();
  const cancelled = observe(items.echo(form, { signal: controller.signal }));
  controller.abort();
  await clock.settle();
  assert.ok(cancelled.error instanceof pkg.CallCancelled);
  assert.equal(server.requests.filter((request) => request.headers['idempotency-key'] === `"${cancelled.error.key}"`).length, 0, 'nothing sent');
});

test('a header an interceptor sets that is not valid is refused naming the interceptor\'s headers; a caller\'s content type on a JSON body is kept', async () => {
  const bad = restItems(pkg, { interceptors: [(request) => ({ ...request, headers: { 'bad name': 'x' } })] });
  await assert.rejects(bad.list(), (error) => error instanceof TypeError && error.message.startsWith('the headers an interceptor set'));
  server.script = () => ({ status: 200, body: {} });
  const items = restItems(pkg);
  const call = items.echo({ a: 1 }, { headers: { 'Content-Type': 'application/vnd.api+json' } });
  await clock.settle();
  await call;
  assert.equal(server.requestsWithKey(call.key)[0].headers['content-type'], 'application/vnd.api+json');
});

test('with delayMs 0, a gateway status without a usable Retry-After is repeated at once (no 1 ms floor)', async () => {
  const seenCount = new Map();
  server.script = (request) => {
    const key = request.headers['idempotency-key'];
    const n = (seenCount.get(key) ?? 0) + 1;
    seenCount.set(key, n);
    const headers = request.headers['x-which'] === 'date' ? { 'retry-after': 'soon' } : {};
    return n === 1 ? { status: 503, body: 'busy', headers } : { status: 200, body: {} };
  };
  const items = restItems(pkg, { repeat: { delayMs: 0 } });
  const start = clock.now();
  const none = items.list({ headers: { 'X-Which': 'none' } });
  const nonsense = items.list({ headers: { 'X-Which': 'date' } });
  await clock.advance(1_000);
  await none;
  await nonsense;
  for (const call of [none, nonsense]) assert.deepEqual(server.requestsWithKey(call.key).map((r) => r.at - start), [0, 0]);
});
