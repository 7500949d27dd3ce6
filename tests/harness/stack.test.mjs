// Self-test of the harness: the stack is the real backend (fastapi-viewsets Idempotency, muxws,
// Redis) behind the real fault proxy. Run: node --test tests/harness/
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';

import { findLeftovers, isAlive } from './no-leftovers.mjs';
import { RawWebSocket } from './rawws.mjs';
import { startStack } from './stack.mjs';

const ORIGIN = 'http://127.0.0.1:5173';
const started = []; // every stack of this file, for the leftover check at the end

const sf = (key) => `"${key}"`; // an Idempotency-Key header value: a Structured Field string

function post(base, route, { key, body, headers = {} } = {}) {
  return fetch(`${base}${route}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'Idempotency-Key': key }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function answer(responsePromise) {
  const response = await responsePromise;
  const text = await response.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: response.status, headers: response.headers, text, json };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function launch(options) {
  const stack = await startStack(options);
  started.push(stack);
  return stack;
}

describe('one process, in-memory records, behind the fault proxy', () => {
  let stack;
  before(async () => {
    stack = await launch({ lockTtl: 6 });
  });
  after(() => stack?.stop());
  beforeEach(() => stack.resetAll());

  it('replays a keyed POST: identical body, the action ran once', async () => {
    const key = sf(randomUUID());
    const first = await answer(post(stack.baseUrl, '/items/slow?sleep=0.1', { key, body: { note: 'a' } }));
    const repeat = await answer(post(stack.baseUrl, '/items/slow?sleep=0.1', { key, body: { note: 'a' } }));
    assert.equal(first.status, 200);
    assert.equal(repeat.status, 200);
    assert.equal(repeat.text, first.text);
    assert.deepEqual(first.json, { action: 'slow', executions: 1, slept: 0.1, note: 'a', served_by: 'A' });
    assert.deepEqual(await stack.counters(), { slow: 1 });
    const log = await stack.log();
    assert.deepEqual(log.map((entry) => [entry.idempotency_key, entry.ran]), [[key, true], [key, false]]);
  });

  it('rejects an unquoted key with 400 idempotency_key_invalid, before the action', async () => {
    const bad = await answer(post(stack.baseUrl, '/items/slow', { key: randomUUID(), body: { note: 'a' } }));
    assert.equal(bad.status, 400);
    assert.equal(bad.json.detail_code, 'fastapi-viewsets.idempotency_key_invalid');
    assert.deepEqual(await stack.counters(), {});
  });

  it('answers a key reused with another body 422 idempotency_key_reused', async () => {
    const key = sf(randomUUID());
    await answer(post(stack.baseUrl, '/items/slow', { key, body: { note: 'a' } }));
    const other = await answer(post(stack.baseUrl, '/items/slow', { key, body: { note: 'b' } }));
    assert.equal(other.status, 422);
    assert.equal(other.json.detail_code, 'fastapi-viewsets.idempotency_key_reused');
  });

  it('drop_after: the answer is lost although the action ran; the repeat gets the stored outcome', async () => {
    await stack.fault('drop_after', { path: '/items/slow', method: 'POST' });
    const key = sf(randomUUID());
    await assert.rejects(post(stack.baseUrl, '/items/slow', { key, body: { note: 'lost' } }), TypeError);
    assert.deepEqual(await stack.counters(), { slow: 1 });
    const repeat = await answer(post(stack.baseUrl, '/items/slow', { key, body: { note: 'lost' } }));
    assert.equal(repeat.status, 200);
    assert.equal(repeat.json.executions, 1);
    assert.equal(repeat.json.note, 'lost');
    assert.deepEqual(await stack.counters(), { slow: 1 });
  });

  it('drop_before: nothing reaches the backend; the repeat runs the action', async () => {
    await stack.fault('drop_before', { path: '/items/slow' });
    const key = sf(randomUUID());
    await assert.rejects(post(stack.baseUrl, '/items/slow', { key, body: {} }), TypeError);
    assert.deepEqual(await stack.counters(), {});
    const repeat = await answer(post(stack.baseUrl, '/items/slow', { key, body: {} }));
    assert.equal(repeat.json.executions, 1);
  });

  it('status:503 from the proxy: HTML body, CORS headers, nothing forwarded', async () => {
    await stack.fault('status:503', { path: '/items/slow', retryAfter: 2 });
    const response = await answer(post(stack.baseUrl, '/items/slow', { key: sf(randomUUID()), body: {}, headers: { Origin: ORIGIN } }));
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('content-type'), 'text/html');
    assert.equal(response.text, '<html><body><h1>503 Service Unavailable</h1></body></html>');
    assert.equal(response.headers.get('access-control-allow-origin'), ORIGIN);
    assert.equal(response.headers.get('retry-after'), '2');
    assert.deepEqual(await stack.counters(), {});
  });

  it('status_after:502: the action ran, the client sees the HTML 502, the repeat gets the outcome', async () => {
    await stack.fault('status_after:502', { path: '/items/slow' });
    const key = sf(randomUUID());
    const first = await answer(post(stack.baseUrl, '/items/slow', { key, body: { note: 'x' } }));
    assert.equal(first.status, 502);
    assert.equal(first.text, '<html><body><h1>502 Bad Gateway</h1></body></html>');
    const repeat = await answer(post(stack.baseUrl, '/items/slow', { key, body: { note: 'x' } }));
    assert.equal(repeat.json.executions, 1);
    assert.deepEqual(await stack.counters(), { slow: 1 });
  });

  it("the application's own 503 has a JSON detail, and is stored as the outcome", async () => {
    const key = sf(randomUUID());
    const first = await answer(post(stack.baseUrl, '/items/gateway', { key }));
    assert.equal(first.status, 503);
    assert.match(first.headers.get('content-type'), /^application\/json/);
    assert.equal(typeof first.json.detail, 'string');
    assert.equal(first.json.detail_code, 'fastapi-viewsets.result_reader_stopped');
    const repeat = await answer(post(stack.baseUrl, '/items/gateway', { key }));
    assert.equal(repeat.text, first.text);
    assert.deepEqual(await stack.counters(), { gateway: 1 });
  });

  it('stores 409 and 500 outcomes; never a cookie outcome', async () => {
    const conflictKey = sf(randomUUID());
    const boomKey = sf(randomUUID());
    const cookieKey = sf(randomUUID());
    for (let i = 0; i < 2; i += 1) {
      const conflict = await answer(post(stack.baseUrl, '/items/conflict', { key: conflictKey }));
      assert.equal(conflict.status, 409);
      assert.equal(conflict.json.detail, 'conflict #1');
      const boom = await answer(post(stack.baseUrl, '/items/boom', { key: boomKey }));
      assert.equal(boom.status, 500);
      assert.equal(boom.json.detail_code, 'fastapi-viewsets.unhandled_error');
      const cookie = await answer(post(stack.baseUrl, '/items/cookie', { key: cookieKey }));
      assert.equal(cookie.headers.get('set-cookie'), `sid=s${i + 1}; Path=/; SameSite=lax`);
    }
    assert.deepEqual(await stack.counters(), { conflict: 1, boom: 1, cookie: 2 });
  });

  it('CORS preflight through the proxy allows Idempotency-Key and X-Trace', async () => {
    const response = await fetch(`${stack.baseUrl}/items/slow`, {
      method: 'OPTIONS',
      headers: {
        Origin: ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'idempotency-key,content-type,x-trace',
      },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), ORIGIN);
    const allowed = response.headers.get('access-control-allow-headers').toLowerCase().split(/,\s*/);
    assert.ok(allowed.includes('idempotency-key'), allowed.join());
    assert.ok(allowed.includes('x-trace'), allowed.join());
    assert.match(response.headers.get('access-control-allow-methods'), /POST/);
  });

  it('the echo action shows the key and the interceptor headers as they were on the wire', async () => {
    const uuid = randomUUID();
    const response = await answer(post(stack.baseUrl, '/items/echo', { key: sf(uuid), body: { a: 1 }, headers: { 'X-Trace': 't-1' } }));
    assert.equal(response.status, 200);
    assert.equal(response.json.headers['idempotency-key'], `"${uuid}"`);
    assert.equal(response.json.headers['x-trace'], 't-1');
    assert.deepEqual(response.json.body, { a: 1 });
    assert.equal(response.headers.get('x-served-by'), 'A');
    const [entry] = await stack.log();
    assert.equal(entry.idempotency_key, `"${uuid}"`);
    assert.equal(entry.headers['x-trace'], 't-1');
    assert.equal(entry.ran, true);
  });

  it('CRUD: create answers 200, PUT without id keeps the pk (workaround), DELETE answers {pk: null}', async () => {
    const one = await answer(post(stack.baseUrl, '/items', { body: { name: 'one' } }));
    const two = await answer(post(stack.baseUrl, '/items', { body: { name: 'two' } }));
    assert.deepEqual([one.status, one.json, two.json], [200, { id: 1, name: 'one', qty: 0 }, { id: 2, name: 'two', qty: 0 }]);
    const put = await answer(fetch(`${stack.baseUrl}/items/1`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'renamed', qty: 5 }),
    }));
    assert.deepEqual(put.json, { id: 1, name: 'renamed', qty: 5 });
    const three = await answer(post(stack.baseUrl, '/items', { body: { name: 'three' } }));
    assert.equal(three.json.id, 3);
    const removed = await answer(fetch(`${stack.baseUrl}/items/2`, { method: 'DELETE' }));
    assert.deepEqual(removed.json, { 2: null });
    const list = await answer(fetch(`${stack.baseUrl}/items`));
    assert.deepEqual(list.json.map((item) => item.id), [1, 3]);
  });

  it('serves the viewset schema at GET /items/schema (OpenAPI, with x-viewset-action)', async () => {
    const schema = await answer(fetch(`${stack.baseUrl}/items/schema`));
    assert.equal(schema.status, 200);
    assert.match(schema.json.openapi, /^3\./);
    assert.equal(schema.json.paths['/items/slow'].post['x-viewset-action'], 'slow');
    assert.equal(schema.json.paths['/items'].get['x-viewset-action'], 'list_items');
    assert.ok(schema.json.components.schemas.Item);
  });

  it('muxws through the proxy tunnel: a keyed call and its replay', async () => {
    const ws = await RawWebSocket.connect(stack.wsUrl, { protocol: 'muxws.v1.json', origin: ORIGIN });
    try {
      assert.equal(ws.protocol, 'muxws.v1.json');
      const headers = { ':method': 'POST', ':path': '/items/echo', 'idempotency-key': sf('ws-1'), 'x-trace': 'w' };
      ws.sendJson({ type: 'open', stream: 1, headers, payload: { n: 1 }, end: true });
      ws.sendJson({ type: 'open', stream: 3, headers, payload: { n: 1 }, end: true });
      const first = await ws.nextJson((frame) => frame.stream === 1);
      const repeat = await ws.nextJson((frame) => frame.stream === 3);
      assert.equal(first.headers[':status'], 200);
      assert.equal(first.payload.transport, 'muxws');
      assert.equal(first.payload.headers['idempotency-key'], '"ws-1"');
      assert.equal(first.payload.headers['x-trace'], 'w');
      assert.deepEqual(repeat.payload, first.payload);
      assert.deepEqual(await stack.counters(), { echo: 1 });
    } finally {
      ws.destroy();
    }
  });

  it('goaway(): the server peer sends goaway, then closes cleanly (1000)', async () => {
    const ws = await RawWebSocket.connect(stack.wsUrl, { protocol: 'muxws.v1.json' });
    ws.sendJson({ type: 'ping', nonce: 'n1' });
    assert.deepEqual(await ws.nextJson((frame) => frame.type === 'pong'), { type: 'pong', nonce: 'n1' });
    assert.equal(await stack.goaway({ drain: 1 }), 1);
    const goaway = await ws.nextJson((frame) => frame.type === 'goaway');
    assert.equal(goaway.code, 0);
    const closed = await ws.closed;
    assert.deepEqual([closed.code, closed.clean], [1000, true]);
  });

  it('closeSockets(): the backend cuts the socket without a close frame (1006)', async () => {
    const ws = await RawWebSocket.connect(stack.wsUrl, { protocol: 'muxws.v1.json' });
    ws.sendJson({ type: 'ping', nonce: 'n2' });
    await ws.nextJson((frame) => frame.type === 'pong');
    assert.equal(await stack.closeSockets(), 1);
    const closed = await ws.closed;
    assert.deepEqual([closed.code, closed.clean], [1006, false]);
  });

  it('kill_ws and ws_drop:S cut the tunnel at the proxy', async () => {
    const ws = await RawWebSocket.connect(stack.wsUrl, { protocol: 'muxws.v1.json' });
    ws.sendJson({ type: 'ping', nonce: 'n3' });
    await ws.nextJson((frame) => frame.type === 'pong');
    assert.equal((await stack.killWs()).killed, 1);
    assert.equal((await ws.closed).code, 1006);

    await stack.fault('ws_drop:0.3', { path: '/ws', method: 'GET' });
    const opened = Date.now();
    const dropped = await RawWebSocket.connect(stack.wsUrl, { protocol: 'muxws.v1.json' });
    const closed = await dropped.closed;
    assert.equal(closed.code, 1006);
    assert.ok(Date.now() - opened >= 250, `cut after ${Date.now() - opened} ms`);
  });
});

describe('the boundary actions (raw, cutjson, big) and the silence modes', () => {
  let stack;
  before(async () => {
    stack = await launch({ lockTtl: 6 });
  });
  after(() => stack?.stop());
  beforeEach(() => stack.resetAll());

  const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

  it('raw reports the body as received: length, sha256, content type, headers; repeats are fingerprinted', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 255, 10, 13]);
    const key = sf(randomUUID());
    const send = (body) => answer(fetch(`${stack.baseUrl}/items/raw`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-test', 'Idempotency-Key': key, 'X-Test-A': 'a' },
      body,
    }));
    const first = await send(bytes);
    assert.equal(first.status, 200);
    assert.equal(first.json.length, bytes.length);
    assert.equal(first.json.sha256, sha256(bytes));
    assert.equal(first.json.content_type, 'application/x-test');
    assert.equal(first.json.headers['x-test-a'], 'a');
    assert.equal(first.json.multipart, null);
    assert.deepEqual(await send(bytes), first, 'the same bytes again: the stored outcome');
    const reused = await send(Buffer.from([0, 1, 2]));
    assert.equal(reused.status, 422);
    assert.equal(reused.json.detail_code, 'fastapi-viewsets.idempotency_key_reused');
    assert.deepEqual(await stack.counters(), { raw: 1 });
  });

  it('raw: a FormData sent twice with one key gets two boundaries and 422; its boundary-normalised digest is equal', async () => {
    const form = () => {
      const data = new FormData();
      data.append('text', 'hello');
      data.append('file', new Blob([Buffer.from([1, 2, 3])], { type: 'application/octet-stream' }), 'f.bin');
      return data;
    };
    const key = sf(randomUUID());
    const send = () => answer(fetch(`${stack.baseUrl}/items/raw`, { method: 'POST', headers: { 'Idempotency-Key': key }, body: form() }));
    const first = await send();
    assert.equal(first.status, 200);
    const { multipart } = first.json;
    assert.ok(first.json.content_type.startsWith('multipart/form-data; boundary='), first.json.content_type);
    assert.equal(multipart.boundary, first.json.content_type.split('boundary=')[1]);
    assert.equal(multipart.framed, true);
    const again = await send();
    assert.equal(again.status, 422, 'a new boundary: other bytes, the key is reused');
    assert.equal(again.json.detail_code, 'fastapi-viewsets.idempotency_key_reused');
    const unkeyed = await answer(fetch(`${stack.baseUrl}/items/raw`, { method: 'POST', body: form() }));
    assert.notEqual(unkeyed.json.multipart.boundary, multipart.boundary);
    assert.notEqual(unkeyed.json.sha256, first.json.sha256);
    assert.equal(unkeyed.json.multipart.sha256, multipart.sha256);
  });

  it('raw over muxws: the payload re-encoded by the server, content type application/json', async () => {
    const ws = await RawWebSocket.connect(stack.wsUrl, { protocol: 'muxws.v1.json' });
    try {
      ws.sendJson({ type: 'open', stream: 1, headers: { ':method': 'POST', ':path': '/items/raw', 'x-test-a': 'm' }, payload: { a: 1 }, end: true });
      const reply = await ws.nextJson((frame) => frame.stream === 1);
      assert.equal(reply.headers[':status'], 200);
      assert.equal(reply.payload.transport, 'muxws');
      assert.equal(reply.payload.length, Buffer.byteLength('{"a": 1}'));
      assert.equal(reply.payload.sha256, sha256('{"a": 1}'));
      assert.equal(reply.payload.content_type, 'application/json');
      assert.equal(reply.payload.headers['x-test-a'], 'm');
    } finally {
      ws.destroy();
    }
  });

  it('cutjson answers 200 application/json with {"cut":  sent whole (right content-length); a keyed repeat replays it', async () => {
    const key = sf(randomUUID());
    const send = () => answer(fetch(`${stack.baseUrl}/items/cutjson`, { method: 'POST', headers: { 'Idempotency-Key': key } }));
    const first = await send();
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('content-type'), 'application/json');
    assert.equal(first.headers.get('content-length'), '8');
    assert.equal(first.text, '{"cut": ');
    assert.equal(first.json, null, 'does not parse');
    assert.equal((await send()).text, '{"cut": ');
    assert.deepEqual(await stack.counters(), { cutjson: 1 });
  });

  it('big answers JSON of exactly the size asked for', async () => {
    const big = await answer(fetch(`${stack.baseUrl}/items/big?size=10000000`));
    assert.equal(big.status, 200);
    assert.equal(big.text.length, 10_000_000);
    assert.equal(big.json.size, 10_000_000);
    assert.equal(big.json.action, 'big');
    assert.match(big.json.fill, /^x+$/);
  });

  it('silence_ws: nothing passes either way, the socket stays open; unsilence_ws lets the held bytes go on', async () => {
    const ws = await RawWebSocket.connect(stack.wsUrl, { protocol: 'muxws.v1.json' });
    try {
      ws.sendJson({ type: 'ping', nonce: 's1' });
      await ws.nextJson((frame) => frame.type === 'pong');
      assert.equal((await stack.silenceWs()).silenced, 1);
      assert.equal((await stack.faults()).ws_tunnels[0].silenced, true);
      ws.sendJson({ type: 'ping', nonce: 's2' });
      await assert.rejects(ws.nextJson((frame) => frame.type === 'pong', 1500), /no matching message/);
      const open = await Promise.race([ws.closed.then(() => false), sleep(100).then(() => true)]);
      assert.ok(open, 'the socket is still open');
      assert.equal((await stack.unsilenceWs()).unsilenced, 1);
      assert.deepEqual(await ws.nextJson((frame) => frame.type === 'pong'), { type: 'pong', nonce: 's2' });
      assert.equal((await stack.faults()).ws_tunnels[0].silenced, false);
    } finally {
      ws.destroy();
    }
  });

  it('silence (HTTP): the request is held unanswered until cleared, then the connection closes; nothing reached the backend', async () => {
    await stack.fault('silence', { path: '/items/slow', method: 'POST' });
    const pending = fetch(`${stack.baseUrl}/items/slow`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const early = await Promise.race([pending.then(() => 'settled', () => 'settled'), sleep(700).then(() => 'pending')]);
    assert.equal(early, 'pending');
    await stack.clearFaults();
    await assert.rejects(pending, TypeError);
    assert.deepEqual(await stack.counters(), {});
  });
});

describe('two processes sharing Redis, behind the fault proxy', () => {
  let stack;
  before(async () => {
    stack = await launch({ redis: true, processes: 2, lockTtl: 3 });
  });
  after(() => stack?.stop());
  beforeEach(() => stack.resetAll());

  it('a repeat on the other process attaches to the running call (counter 1)', async () => {
    await stack.pin(0, { path: '/items/slow', method: 'POST' });
    await stack.pin(1, { path: '/items/slow', method: 'POST' });
    const key = sf(randomUUID());
    const firstPromise = answer(post(stack.baseUrl, '/items/slow?sleep=1.5', { key, body: { note: 'cross' } }));
    await sleep(400);
    const started = Date.now();
    const repeat = await answer(post(stack.baseUrl, '/items/slow?sleep=1.5', { key, body: { note: 'cross' } }));
    const first = await firstPromise;
    assert.ok(Date.now() - started >= 900, 'the repeat waited for the running call');
    assert.equal(first.headers.get('x-served-by'), 'A');
    assert.equal(repeat.headers.get('x-served-by'), 'B');
    assert.equal(repeat.text, first.text);
    assert.deepEqual(first.json, { action: 'slow', executions: 1, slept: 1.5, note: 'cross', served_by: 'A' });
    assert.deepEqual(await stack.counters(), { slow: 1 });
    const log = await stack.log();
    assert.deepEqual(
      log.map((entry) => [entry.served_by, entry.ran]).sort(),
      [['A', true], ['B', false]],
    );
  });

  it('shares counters and items between the processes', async () => {
    const [a, b] = stack.directUrls;
    const created = await answer(post(a, '/items', { body: { name: 'shared' } }));
    const seen = await answer(fetch(`${b}/items/${created.json.id}`));
    assert.deepEqual(seen.json, created.json);
    await answer(post(b, '/items/slow', { body: {} }));
    assert.deepEqual(await stack.countersByProcess(), [{ create: 1, retrieve: 1, slow: 1 }, { create: 1, retrieve: 1, slow: 1 }]);
  });

  it('drop_after on one process, the repeat on the other gets the stored outcome', async () => {
    await stack.pin(0, { path: '/items/slow' });
    await stack.pin(1, { path: '/items/slow' });
    await stack.fault('drop_after', { path: '/items/slow' });
    const key = sf(randomUUID());
    await assert.rejects(post(stack.baseUrl, '/items/slow', { key, body: { note: 'gone' } }), TypeError);
    const repeat = await answer(post(stack.baseUrl, '/items/slow', { key, body: { note: 'gone' } }));
    assert.equal(repeat.headers.get('x-served-by'), 'B');
    assert.equal(repeat.json.served_by, 'A');
    assert.deepEqual(await stack.counters(), { slow: 1 });
  });
});

describe('lifecycle', () => {
  it('stop() leaves no process behind', async () => {
    const stack = await launch({ redis: true, processes: 2 });
    const pids = Object.values(stack.pids);
    assert.equal(pids.length, 4);
    assert.equal(findLeftovers({ owner: process.pid, pids }).length, 4);
    await stack.stop();
    assert.deepEqual(findLeftovers({ owner: process.pid, pids }), []);
    for (const pid of pids) assert.equal(isAlive({ pid }), false, `pid ${pid} still alive`);
  });

  it('no process of any stack of this file is left', async () => {
    await Promise.all(started.map((stack) => stack.stop()));
    assert.deepEqual(findLeftovers({ owner: process.pid }), []);
  });
});
