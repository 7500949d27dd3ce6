// Pins the Idempotency-Key of REST calls (fetch transport, fake fetch and clock, no backend): every
// call's promise carries a new v4 key before it settles, and the request's Idempotency-Key header is
// that key as a Structured Field string; RequestOptions.key is used as given (escaped); a key of the
// proxy's or the call's headers is replaced; a bad key rejects with a TypeError and sends nothing.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { assertNoLeaks, observe, restItems, restSetup, UUID_V4 } from './kit.mjs';

const { clock, server, pkg } = await restSetup(() => ({ status: 200, body: { ok: true } }));

after(async () => {
  await assertNoLeaks(pkg, clock);
  server.uninstall();
  clock.uninstall();
});

test('a call has a v4 key on its promise before it settles; the header is that key as a Structured Field string', async () => {
  const items = restItems(pkg);
  const call = items.list();
  const seen = observe(call);
  assert.match(call.key, UUID_V4, 'key readable at once');
  assert.equal(seen.settled, false, 'not yet settled when the key is read');
  assert.throws(() => {
    call.key = 'other'; // a module is strict code: assigning a read-only property throws
  }, TypeError, 'key is read-only');
  assert.deepEqual(await call, { ok: true });
  const [request] = server.requestsWithKey(call.key);
  assert.ok(request, 'the request carried the key');
  assert.equal(request.headers['idempotency-key'], `"${call.key}"`, 'a Structured Field string');
  assert.equal(request.method, 'GET');
  assert.equal(request.url, 'http://api.test/items');
});

test('every call gets a new key, GET included, the built-in actions and own methods alike', async () => {
  const items = restItems(pkg);
  const before = server.requests.length;
  const calls = [items.list(), items.retrieve(1), items.create({ name: 'x' }), items.approve(7), items.list()];
  await Promise.all(calls);
  const keys = calls.map((call) => call.key);
  keys.forEach((key) => assert.match(key, UUID_V4));
  assert.equal(new Set(keys).size, keys.length, 'all different');
  const sent = server.requests.slice(before).map((request) => request.headers['idempotency-key']);
  assert.deepEqual(sent, keys.map((key) => `"${key}"`), 'each request carried its call\'s key, in order');
});

test('RequestOptions.key is used as given, on the promise and on the wire ("" and \\ escaped)', async () => {
  const items = restItems(pkg);
  const key = pkg.newKey();
  assert.match(key, UUID_V4, 'newKey() is a v4 UUID');
  const first = items.approve(3, key);
  assert.equal(first.key, key, 'an own method\'s promise has the given key');
  await first;
  assert.equal(server.requests.at(-1).headers['idempotency-key'], `"${key}"`);

  const odd = 'my "key" \\ 1';
  const call = items.request('POST', '/echo', { key: odd });
  assert.equal(call.key, odd);
  await call;
  assert.equal(server.requests.at(-1).headers['idempotency-key'], '"my \\"key\\" \\\\ 1"', 'escaped as RFC 8941 says');
});

test('an Idempotency-Key in the proxy\'s or the call\'s headers, in any letter case, is replaced by the call\'s key', async () => {
  const items = restItems(pkg, { headers: { 'IDEMPOTENCY-key': '"from-proxy"', 'X-Trace': 'proxy' } });
  const call = items.echo({}, { headers: { 'idempotency-KEY': '"from-call"' } });
  await call;
  const request = server.requests.at(-1);
  assert.equal(request.headers['idempotency-key'], `"${call.key}"`);
  assert.equal(request.headers['x-trace'], 'proxy', 'other headers kept');
});

test('a bad key (empty, non-ASCII, a control character) rejects with a TypeError carrying it, and nothing is sent', async () => {
  const items = restItems(pkg);
  const before = server.requests.length;
  for (const key of ['', 'ключ', 'a\u0007b', 'tab\there']) {
    const call = items.approve(1, key);
    // A non-empty bad key stays the promise's key; an empty one cannot be a key, so the promise gets a new one.
    if (key) assert.equal(call.key, key, `the promise has the given key ${JSON.stringify(key)}`);
    else assert.match(call.key, UUID_V4);
    const error = await call.then(() => null, (thrown) => thrown);
    assert.ok(error instanceof TypeError, `key ${JSON.stringify(key)} rejects with a TypeError (${error})`);
    assert.equal(error.key, call.key, 'the error carries the promise\'s key');
  }
  await clock.advance(5000);
  assert.equal(server.requests.length, before, 'no request went out');
  assert.equal(pkg.internalStats().calls, 0, 'no call was issued');
});

test('a method that awaits before its first request has no key; one that returns request() at once has it', async () => {
  class Late extends pkg.restViewSet()('id', [pkg.ListMixin]) {
    async late() {
      await null;
      return this.request('GET', '/late');
    }
    async early() {
      return this.request('GET', '/early');
    }
  }
  const api = new Late({ basePath: '/items', baseUrl: 'http://api.test', schemaCheck: false });
  const late = api.late();
  const early = api.early();
  assert.equal(late.key, undefined);
  assert.match(early.key, UUID_V4);
  await Promise.all([late, early]);
  assert.equal(server.requests.at(-1).headers['idempotency-key'].length, 38, 'the late request still carried a key');
});

test('a request interceptor that returns a promise is refused with a TypeError; nothing is sent', async () => {
  const items = restItems(pkg, { interceptors: [async (request) => request] });
  const before = server.requests.length;
  await assert.rejects(items.list(), TypeError);
  await clock.advance(1000);
  assert.equal(server.requests.length, before);
});
