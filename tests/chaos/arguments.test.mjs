// Bad arguments to a proxy give a TypeError that names what is wrong, before anything is sent.
//
//   node --experimental-websocket --test tests/chaos/arguments.test.mjs
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';

const pkg = await import('../../pkg/index.js');

// A local server that counts what reaches it: nothing may.
let server;
let baseUrl;
let received = 0;

before(async () => {
  server = http.createServer((request, response) => {
    received += 1;
    response.writeHead(500).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${server.address().port}`;
});
after(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

class Items extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {
  slow(options) {
    return this.request('POST', '/slow', options);
  }
}

/** `make()` throws a TypeError whose message matches `message`. */
function throwsTypeError(make, message) {
  assert.throws(make, (error) => {
    assert.ok(error instanceof TypeError, `a TypeError, not ${error?.constructor?.name}: ${error?.message}`);
    assert.match(error.message, message);
    return true;
  });
}

/** The call rejects with a TypeError whose message matches `message`. */
async function rejectsTypeError(call, message) {
  await assert.rejects(call, (error) => {
    assert.ok(error instanceof TypeError, `a TypeError, not ${error?.constructor?.name}: ${error?.message}`);
    assert.match(error.message, message);
    return true;
  });
}

const good = () => ({ basePath: '/items', baseUrl, schemaCheck: false });

test('proxy options: each mistake is a TypeError naming the option', () => {
  const cases = [
    ['no options', undefined, /options must be an object.*basePath/],
    ['missing basePath', { baseUrl }, /options\.basePath must be a string such as '\/items'/],
    ['basePath not a string', { basePath: 7, baseUrl }, /options\.basePath must be a string/],
    ['baseUrl not a string', { basePath: '/items', baseUrl: 8080 }, /options\.baseUrl must be a string such as 'https:/],
    ['no baseUrl in Node', { basePath: '/items' }, /options\.baseUrl is required outside a web page/],
    ['headers not an object', { ...good(), headers: 'X-A: 1' }, /options\.headers must be an object of header names to values/],
    ['bad header name', { ...good(), headers: { 'X Trace': '1' } }, /options\.headers: "X Trace" is not a valid header name/],
    ['header value with a line break', { ...good(), headers: { 'X-Trace': 'a\r\nInjected: 1' } }, /options\.headers: the value of header "X-Trace" holds a character outside printable ASCII/],
    ['header value outside ASCII', { ...good(), headers: { 'X-Trace': 'žaba' } }, /value of header "X-Trace" holds a character outside printable ASCII/],
    ['negative attemptTimeoutMs', { ...good(), attemptTimeoutMs: -1 }, /attemptTimeoutMs must be a non-negative whole number of milliseconds/],
    ['fractional attemptTimeoutMs', { ...good(), attemptTimeoutMs: 1.5 }, /attemptTimeoutMs must be a non-negative whole number/],
    ['attemptTimeoutMs as a string', { ...good(), attemptTimeoutMs: '1000' }, /attemptTimeoutMs must be a non-negative whole number/],
    ['repeat not an object', { ...good(), repeat: 3 }, /repeat must be an object \{ withinMs, delayMs \}/],
    ['repeat.delayMs negative', { ...good(), repeat: { delayMs: -5 } }, /delayMs must be a non-negative whole number/],
    ['repeat.withinMs not a number', { ...good(), repeat: { withinMs: 'forever' } }, /withinMs must be a non-negative whole number/],
    ['an interceptor not a function', { ...good(), interceptors: [(request) => request, 'addAuth'] }, /options\.interceptors must be an array of functions/],
    ['interceptors not an array', { ...good(), interceptors: () => {} }, /options\.interceptors must be an array of functions/],
  ];
  for (const [what, options, message] of cases) {
    try {
      throwsTypeError(() => new Items(options), message);
    } catch (error) {
      error.message = `${what}: ${error.message}`;
      throw error;
    }
  }
});

test('call options: each mistake rejects the call with a TypeError before anything is sent', async () => {
  const items = new Items(good());
  const cases = [
    ['query not an object', { query: 'sleep=0' }, /options\.query must be an object/],
    ['query a number', { query: 5 }, /options\.query must be an object/],
    ['bad header name', { headers: { 'a:b': '1' } }, /options\.headers: "a:b" is not a valid header name/],
    ['bad header value', { headers: { 'X-Trace': 'line\nbreak' } }, /value of header "X-Trace" holds a character outside printable ASCII/],
    ['repeat not an object', { repeat: true }, /repeat must be an object/],
    ['repeat.withinMs negative', { repeat: { withinMs: -1 } }, /withinMs must be a non-negative whole number/],
    ['key not a string', { key: 42 }, /options\.key must be a string/],
    ['empty key', { key: '' }, /invalid Idempotency-Key/],
    ['signal not an AbortSignal', { signal: { aborted: false } }, /options\.signal must be an AbortSignal/],
    ['body that is not JSON', { body: { big: 1n } }, /options\.body cannot be sent as JSON/],
  ];
  for (const [what, options, message] of cases) {
    try {
      await rejectsTypeError(items.slow(options), message);
    } catch (error) {
      error.message = `${what}: ${error.message}`;
      throw error;
    }
  }
  // a request interceptor that returns a promise
  const async = new Items({ ...good(), interceptors: [async () => {}] });
  await rejectsTypeError(async.slow({}), /a request interceptor must be synchronous/);

  assert.equal(received, 0, 'no request reached the server');
  assert.deepEqual(pkg.pendingCalls(), [], 'no call is pending');
  assert.equal(pkg.internalStats().calls, 0, 'no call is held');
});

test('muxws proxy and peer options', async () => {
  const Mux = pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]);
  class MuxItems extends Mux {}
  throwsTypeError(() => new MuxItems({ basePath: '/items', peer: { core: 5 } }), /options\.peer must be a MuxwsPeer from connectMuxws\(\)/);
  throwsTypeError(() => pkg.onCallActivity('listener'), /onCallActivity\(listener\) takes a function/);
  // a string that is no muxws URL: the muxws error class for it (without a WebSocket, a TypeError)
  if (typeof WebSocket === 'undefined') {
    await rejectsTypeError(pkg.connectMuxws('ws://127.0.0.1:9/ws', { reconnect: false }), /--experimental-websocket/);
    return;
  }
  await assert.rejects(pkg.connectMuxws('http://127.0.0.1:9/ws', { reconnect: false }), (error) => {
    assert.ok(error instanceof pkg.TransportUrlError, `a TransportUrlError, not ${error?.constructor?.name}`);
    assert.match(error.message, /muxws dials ws:\/\/ or wss:\/\/ URLs/);
    return true;
  });
  assert.equal(received, 0, 'no request reached the server');
});

test('connectMuxws: onStream takes a function or an array of functions, anything else is a TypeError naming it', async (t) => {
  if (typeof WebSocket === 'undefined') return t.skip('needs --experimental-websocket');
  await rejectsTypeError(pkg.connectMuxws('ws://127.0.0.1:9/ws', { reconnect: false, onStream: {} }), /onStream must be a function or an array of functions/);
});

test('connectMuxws with a URL that is not a string is a TypeError', async () => {
  await rejectsTypeError(pkg.connectMuxws(5, { reconnect: false }), /url|URL/);
  await rejectsTypeError(pkg.connectMuxws({ href: 'ws://127.0.0.1:9/ws' }, { reconnect: false }), /url|URL/);
});

test("connectMuxws refuses an option it does not have, such as the muxws package's upgrade headers, with a TypeError naming it", async (t) => {
  if (typeof WebSocket === 'undefined') return t.skip('needs --experimental-websocket');
  for (const name of ['headers', 'maxConcurrentStreams', 'codec']) {
    await rejectsTypeError(pkg.connectMuxws('ws://127.0.0.1:9/ws', { reconnect: false, [name]: {} }), new RegExp(`connectMuxws has no option "${name}"`));
  }
});

test("translateApiError never throws on a server's hostile error body: it returns text", () => {
  const odd = { toString: 1 };
  const bodies = [
    { detail: 'x', detail_code: ['a'] },
    { detail: 'x', detail_code: 'not_found', detail_params: { pk: [odd] } },
    { detail: 'x', detail_code: 'not_found', detail_params: { pk: odd } },
    { detail: 'x', detail_code: 'not_found', detail_params: 'pk' },
    { detail: odd },
    { detail: 'x', detail_code: 'fastapi-viewsets.not_found', detail_params: Object.create({ pk: 'inherited' }) },
  ];
  for (const body of bodies) assert.equal(typeof pkg.translateApiError(body), 'string', JSON.stringify(Object.keys(body)));
  assert.equal(pkg.translateApiError(bodies[5]), 'No record has the primary key {pk}', 'only own params fill placeholders');
});

test('a muxws proxy whose peer is not a MuxwsPeer names the peer; a REST proxy takes none', () => {
  class MuxItems extends pkg.muxwsViewSet()('id', []) {}
  throwsTypeError(() => new MuxItems({ basePath: '/items', peer: {} }), /peer/);
  throwsTypeError(() => new MuxItems({ basePath: '/items' }), /peer/);
  class RestItems extends pkg.restViewSet()('id', []) {}
  throwsTypeError(() => new RestItems({ basePath: '/items', baseUrl: 'http://127.0.0.1:9', peer: {} }), /peer/);
});

test('a built-in action given options that are not an object rejects with a TypeError, with a key', async () => {
  class Items extends pkg.restViewSet()('id', [pkg.ListMixin]) {}
  const items = new Items({ basePath: '/items', baseUrl: 'http://127.0.0.1:9', schemaCheck: false });
  const call = items.list(5);
  assert.match(call.key, /^[0-9a-f-]{36}$/);
  await rejectsTypeError(call, /options/);
});
