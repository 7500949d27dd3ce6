// Pins what REST proxies put on the wire, through the public API, with a fake fetch and clock: the
// built-in actions' methods, paths, queries and bodies (ViewSetMixin, BulkViewSetMixin, LookupMixin);
// 0.6's route_rest shapes; the bodies fetch takes (FormData, URLSearchParams, Blob) sent with the same
// bytes and content type on every attempt; the startup schema check as one background call, repeated
// as the proxy's calls are, warning about a declared action the backend lacks; persist in Node (no IndexedDB): sent as
// any other call, and resumeCalls() resolves with none.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { networkError } from './fake-fetch.mjs';
import { assertNoLeaks, observe, recordActivity, restItems, restSetup } from './kit.mjs';

const { clock, server, pkg } = await restSetup(() => ({ status: 200, body: {} }));

after(async () => {
  await assertNoLeaks(pkg, clock);
  server.uninstall();
  clock.uninstall();
});

/** The method, URL (without the origin) and body text of each request from `from` on. */
const wire = (from) => server.requests.slice(from).map((request) => [request.method, request.url.replace('http://api.test', ''), request.text]);

test('the built-in actions of ViewSetMixin, BulkViewSetMixin and LookupMixin on the wire', async () => {
  class Api extends pkg.restViewSet()('id', [pkg.ViewSetMixin, pkg.BulkViewSetMixin, pkg.LookupMixin]) {}
  const api = new Api({ basePath: '/items/', baseUrl: 'http://api.test', schemaCheck: false });
  const from = server.requests.length;
  await Promise.all([
    api.list({ sort: 'name:asc', name__icontains: 'a b', id: [1, 2] }),
    api.retrieve('a/b'),
    api.create({ name: 'x' }),
    api.update(3, { name: 'y' }),
    api.partialUpdate(3, { qty: 1 }),
    api.destroy(3),
    api.bulkCreate([{ name: 'p' }]),
    api.bulkDestroy([1, 2]),
    api.lookup({ q: 'x' }),
  ]);
  assert.deepEqual(wire(from), [
    ['GET', '/items?sort=name%3Aasc&name__icontains=a+b&id=1&id=2', null],
    ['GET', '/items/a%2Fb', null],
    ['POST', '/items', '{"name":"x"}'],
    ['PUT', '/items/3', '{"name":"y"}'],
    ['PATCH', '/items/3', '{"qty":1}'],
    ['DELETE', '/items/3', null],
    ['POST', '/items/bulk', '[{"name":"p"}]'],
    ['DELETE', '/items/bulk', '[1,2]'],
    ['GET', '/items/lookup?q=x', null],
  ]);
  assert.equal(api.pkFieldName, 'id');
  assert.equal(api.basePath, '/items', 'one trailing slash dropped');
});

test('0.6\'s route_rest(Cls, basePath, pkFieldName) and route_rest(Cls, options) make proxies with every built-in action', async () => {
  class ItemViewSet {}
  const a = pkg.route_rest(ItemViewSet, { basePath: '/things', pkFieldName: 'uuid', baseUrl: 'http://api.test', validateSchema: false });
  assert.equal(a.pkFieldName, 'uuid');
  const from = server.requests.length;
  const call = a.retrieve('u1');
  assert.match(call.key, /^[0-9a-f-]{36}$/);
  await call;
  await a.list();
  assert.deepEqual(wire(from), [['GET', '/things/u1', null], ['GET', '/things', null]]);
  assert.throws(() => pkg.route_rest(ItemViewSet, '/things', 'uuid'), TypeError, 'outside a page, fetch needs baseUrl');
});

test('FormData, URLSearchParams and Blob bodies: the same bytes and content type on every attempt', async () => {
  let failures = 3;
  server.script = () => (failures-- > 0 ? networkError() : { status: 200, body: {} });
  const items = restItems(pkg, { repeat: { delayMs: 100 } });
  const form = new FormData();
  form.append('name', 'x');
  form.append('file', new Blob(['file bytes'], { type: 'text/plain' }), 'a.txt');
  const calls = [
    items.request('POST', '/upload', { body: form }),
    items.request('POST', '/form', { body: new URLSearchParams({ a: '1', b: 'two words' }) }),
    items.request('POST', '/blob', { body: new Blob([new Uint8Array([1, 2, 3])], { type: 'application/x-bytes' }) }),
  ];
  await clock.advance(5000);
  await Promise.all(calls);
  for (const call of calls) {
    const attempts = server.requestsWithKey(call.key);
    assert.ok(attempts.length >= 2, `repeated (${attempts.length})`);
    for (const attempt of attempts) {
      assert.deepEqual(attempt.bytes, attempts[0].bytes, `${attempt.url}: the same bytes`);
      assert.equal(attempt.headers['content-type'], attempts[0].headers['content-type'], `${attempt.url}: the same content type`);
    }
  }
  const [upload, urlencoded, blob] = calls.map((call) => server.requestsWithKey(call.key)[0]);
  assert.match(upload.headers['content-type'], /^multipart\/form-data; boundary=/);
  assert.ok(upload.text.includes('file bytes') && upload.text.includes('filename="a.txt"'));
  assert.equal(urlencoded.text, 'a=1&b=two+words');
  assert.match(urlencoded.headers['content-type'], /^application\/x-www-form-urlencoded/);
  assert.deepEqual([...blob.bytes], [1, 2, 3]);
  assert.equal(blob.headers['content-type'], 'application/x-bytes');
  server.script = () => ({ status: 200, body: {} });
});

test('the startup schema check: one background GET {basePath}/schema, repeated as the proxy repeats its calls, a warning for a declared action the backend lacks', async () => {
  const activity = recordActivity(pkg);
  const warnings = [];
  const realWarn = console.warn;
  console.warn = (...args) => warnings.push(args.map(String).join(' '));
  try {
    server.script = (request) =>
      request.url.endsWith('/schema')
        ? { status: 200, body: { openapi: '3.1.0', paths: { '/widgets': { get: {}, post: {} }, '/widgets/{id}': { get: {}, put: {}, patch: {} } } } }
        : { status: 200, body: [] };
    class Widgets extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {}
    const before = pkg.pendingCallCount();
    const from = server.requests.length;
    new Widgets({ basePath: '/widgets', baseUrl: 'http://api.test' });
    await clock.settle();
    const checks = server.requests.slice(from);
    assert.deepEqual(checks.map((request) => [request.method, request.url]), [['GET', 'http://api.test/widgets/schema']]);
    assert.equal(pkg.pendingCallCount(), before);
    const events = activity.events.filter((event) => event.path === '/widgets/schema');
    assert.ok(events.length >= 2 && events.every((event) => event.background === true), 'reported as a background call');
    // the comparison is a chunk of its own (schema-check.js): its import takes real time on a loaded machine
    for (let turn = 0; turn < 500 && !warnings.length; turn++) await clock.settle();
    assert.ok(warnings.some((line) => line.includes('destroy()') && line.includes('DELETE /widgets/{pk}')), `warned (${warnings})`);
    assert.equal(warnings.length, 1, 'only the missing route');

    // A call of the proxy like any other: with the proxy's repeat.withinMs 0 a network error ends it
    // (a warning that it failed); with a window, a lost answer is repeated and the check goes on.
    // schemaCheck: false sends none.
    server.script = () => networkError();
    const from2 = server.requests.length;
    new Widgets({ basePath: '/widgets2', baseUrl: 'http://api.test', repeat: { withinMs: 0 } });
    new Widgets({ basePath: '/widgets3', baseUrl: 'http://api.test', schemaCheck: false });
    await clock.advance(60_000);
    assert.deepEqual(server.requests.slice(from2).map((request) => request.url), ['http://api.test/widgets2/schema']);
    assert.ok(warnings.some((line) => line.includes('/widgets2') && line.includes('schema check failed')));
    let lost = 1;
    server.script = (request) =>
      lost-- > 0 ? networkError() : { status: 200, body: { openapi: '3.1.0', paths: { '/widgets4': { get: {}, post: {} }, '/widgets4/{id}': { get: {}, put: {}, patch: {}, delete: {} } } } };
    const from4 = server.requests.length;
    const warned = warnings.length;
    new Widgets({ basePath: '/widgets4', baseUrl: 'http://api.test', repeat: { delayMs: 100 } });
    await clock.advance(1_000);
    assert.deepEqual(server.requests.slice(from4).map((request) => request.url), ['http://api.test/widgets4/schema', 'http://api.test/widgets4/schema'], 'repeated once');
    const settled = activity.events.filter((event) => event.path === '/widgets4/schema' && event.type === 'settle');
    assert.deepEqual(settled.map((event) => [event.ok, event.attempts]), [[true, 2]], 'the document, at the second attempt');
    for (let turn = 0; turn < 50; turn++) await clock.settle();
    assert.deepEqual(warnings.slice(warned), [], 'every route served: nothing to warn');
  } finally {
    console.warn = realWarn;
    activity.stop();
    server.script = () => ({ status: 200, body: {} });
  }
});

test('persist in Node (no IndexedDB): the call goes out as any other; resumeCalls() resolves with no calls', async () => {
  const items = restItems(pkg, { persist: true });
  const call = items.create({ name: 'kept' });
  const seen = observe(call);
  await clock.settle();
  assert.equal(seen.ok, true);
  assert.equal(server.requestsWithKey(call.key).length, 1);
  const settled = [];
  const resumed = await pkg.resumeCalls({ onSettle: (pending, outcome) => settled.push([pending, outcome]) });
  assert.equal(settled.length, 0);
  assert.deepEqual(resumed, [], 'no calls');
});
