// Pins muxws ViewSet calls against a fake WebSocket and a scripted muxws server on a fake clock (no
// socket, no backend): connectMuxws dials with subprotocol muxws.v1.json; one call is one stream
// (`open` with :method, :path, :query, the headers, idempotency-key and the body as payload) and the
// reply's :status decides like an HTTP status, never repeated; the spec's Repeats table for muxws:
// a socket lost mid-call is repeated once the peer has reconnected, on the new socket, with the same
// key and the first stream's headers, and resolves once; StreamTimeout is repeated at once (after
// reset(TIMEOUT)); StreamRefused and a goaway after the delay; another reset settles; close() ends
// a wait for a reconnect with ConnectionClosed; cancellation resets the stream; connect failures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SUBPROTOCOL } from './fake-websocket.mjs';
import { muxwsSetup, observe, recordActivity, UUID_V4 } from './kit.mjs';

const { clock, server, pkg } = await muxwsSetup();

const OK = (payload) => () => ({ status: 200, payload });

/** Resets the server's script: every socket accepted, every stream answered 200 with `[]`. */
function resetServer() {
  server.accept = () => true;
  server.answer = OK([]);
}

/** A peer with a deterministic reconnect schedule, and a muxws ItemApi over it. */
async function connect({ peerOptions = {}, proxyOptions = {} } = {}) {
  resetServer();
  const closes = [];
  const reconnects = [];
  const peer = await pkg.connectMuxws('ws://mux.test/ws', {
    reconnect: { initialDelayMs: 100, jitter: 0 },
    onClose: (reason) => closes.push(reason),
    onReconnect: (attempt) => reconnects.push(attempt),
    ...peerOptions,
  });
  class Items extends pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]) {
    echo(body, options = {}) {
      return this.request('POST', '/echo', { ...options, body });
    }
  }
  const items = new Items({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 1000 }, ...proxyOptions });
  return { peer, items, closes, reconnects, socket: server.sockets.at(-1) };
}

/** Closes `peer` for good, letting its drain run on the fake clock. */
async function close(peer) {
  const closing = peer.close();
  await clock.advance(100);
  await closing;
}

/** The `open` frames whose idempotency-key is `key`'s, with their sockets. */
const opensOf = (key) => server.opens.filter(({ frame }) => frame.headers?.['idempotency-key'] === `"${key}"`);

test('connectMuxws dials the URL offering muxws.v1.json (then the extra subprotocols) and resolves once the socket is open', async () => {
  resetServer();
  const before = server.sockets.length;
  // connectMuxws() first loads the muxws module (real I/O and compilation, not the fake clock's).
  const peer = await pkg.connectMuxws('ws://mux.test/ws', { subprotocols: ['token.abc'], reconnect: false });
  assert.equal(server.sockets.length, before + 1, 'one socket');
  const socket = server.sockets.at(-1);
  assert.equal(socket.url, 'ws://mux.test/ws');
  assert.deepEqual(socket.offered, [SUBPROTOCOL, 'token.abc']);
  assert.equal(socket.readyState, 1);
  assert.ok(peer instanceof pkg.MuxwsPeer);
  assert.equal(peer.isOpen, true);
  await close(peer);
  assert.equal(peer.isClosed, true);
  assert.equal(socket.readyState, 3, 'the socket is closed');
});

test('a call is one stream: open with :method, :path, :query, headers and idempotency-key, the body as payload; the reply resolves it', async () => {
  const { peer, items, socket } = await connect({ proxyOptions: { headers: { 'X-App': 'unit' } } });
  peer.interceptOpen((headers) => {
    headers['x-trace'] = 'trace-1';
  });
  try {
    server.answer = (frame) => ({ status: 200, payload: frame.headers[':method'] === 'POST' ? { id: 7, ...frame.payload } : [{ id: 1 }] });
    const listed = items.list({ sort: 'name' });
    assert.match(listed.key, UUID_V4, 'the key at once');
    const created = items.create({ name: 'x' });
    await clock.settle();
    assert.deepEqual(await listed, [{ id: 1 }]);
    assert.deepEqual(await created, { id: 7, name: 'x' });
    const [list] = opensOf(listed.key);
    const [create] = opensOf(created.key);
    assert.equal(list.socket, socket);
    assert.deepEqual(list.frame.headers, {
      ':method': 'GET',
      ':path': '/items',
      ':query': 'sort=name',
      'x-app': 'unit',
      'x-trace': 'trace-1',
      'idempotency-key': `"${listed.key}"`,
    });
    assert.equal(list.frame.end, true, 'a unary stream');
    assert.equal(list.frame.stream % 2, 1, 'an odd (dialer) stream id');
    assert.equal(create.frame.headers[':method'], 'POST');
    assert.deepEqual(create.frame.payload, { name: 'x' });
    assert.notEqual(create.frame.stream, list.frame.stream);
  } finally {
    await close(peer);
  }
});

test('the reply\'s :status decides like an HTTP status: 404 rejects HttpError; a 503 is never repeated over muxws', async () => {
  const { peer, items } = await connect();
  const activity = recordActivity(pkg);
  try {
    server.answer = (frame) =>
      frame.headers[':path'] === '/items/9'
        ? { status: 404, payload: { detail: 'Not found', detail_code: 'fastapi-viewsets.not_found' }, headers: { 'x-request-id': 'r9' } }
        : { status: 503, payload: '<html>503</html>' };
    const missing = items.retrieve(9);
    const busy = items.list();
    const [a, b] = [observe(missing), observe(busy)];
    await clock.advance(10_000);
    assert.ok(a.error instanceof pkg.HttpError, `HttpError (${a.error?.name})`);
    assert.equal(a.error.status, 404);
    assert.equal(a.error.detailCode, 'fastapi-viewsets.not_found');
    assert.equal(a.error.headers['x-request-id'], 'r9');
    assert.ok(!Object.keys(a.error.headers).some((name) => name.startsWith(':')), 'no pseudo-headers in HttpError.headers');
    assert.equal(a.error.key, missing.key);
    assert.ok(b.error instanceof pkg.HttpError);
    assert.equal(b.error.status, 503);
    assert.equal(opensOf(busy.key).length, 1, 'a status is never repeated over muxws');
    assert.deepEqual(activity.typesOf(busy.key), ['start', 'settle']);
    assert.ok(activity.of(busy.key).every((event) => event.transport === 'muxws'));
  } finally {
    activity.stop();
    await close(peer);
  }
});

test('the socket lost mid-call: the repeat waits for the reconnect, goes out on the new socket with the same key and first headers, resolves once', async () => {
  const { peer, items, socket, closes, reconnects } = await connect();
  let trace = 'trace-1';
  peer.interceptOpen((headers) => {
    headers['x-trace'] = trace;
  });
  const activity = recordActivity(pkg);
  try {
    server.answer = () => 'drop';
    // The second socket is left connecting until the test accepts it.
    server.accept = (s) => s === socket;
    const start = clock.now();
    const call = items.create({ name: 'lost' });
    const seen = observe(call);
    await clock.advance(200);
    trace = 'trace-2';
    socket.drop(1006, 'gone', false);
    await clock.settle();
    assert.deepEqual(closes.map((c) => [c.code, c.wasClean, c.willRetry]), [[1006, false, true]], 'onClose(willRetry: true)');
    let [pending] = pkg.pendingCalls().filter((p) => p.key === call.key);
    assert.equal(pending.waitingForReconnect, true);
    assert.equal(pending.transport, 'muxws');
    await clock.advance(100);
    assert.equal(server.sockets.length >= 2, true, 'redialled after 100 ms');
    const second = server.sockets.at(-1);
    await clock.advance(2000);
    [pending] = pkg.pendingCalls().filter((p) => p.key === call.key);
    assert.equal(pending.waitingFor, 'reconnect', 'its delay is over, it still waits for the peer');
    assert.equal(opensOf(call.key).length, 1, 'nothing sent while between sockets');
    server.answer = (frame) => ({ status: 201, payload: { id: 5, ...frame.payload } });
    second.accept();
    await clock.settle();
    assert.deepEqual(reconnects, [1]);
    assert.deepEqual(seen.value, { id: 5, name: 'lost' });
    const opens = opensOf(call.key);
    assert.equal(opens.length, 2, 'one repeat');
    assert.equal(opens[0].socket, socket);
    assert.equal(opens[1].socket, second, 'on the new socket');
    assert.deepEqual(opens[1].frame.headers, opens[0].frame.headers, 'the first stream\'s headers, key included');
    assert.equal(opens[1].frame.headers['x-trace'], 'trace-1');
    assert.deepEqual(opens[1].frame.payload, { name: 'lost' });
    const events = activity.of(call.key);
    assert.deepEqual(events.map((event) => event.type), ['start', 'retry', 'settle']);
    assert.equal(events[1].ended, 'connection-lost');
    assert.equal(events[1].waitsForReconnect, true);
    assert.equal(events[1].delayMs, 1000);
    assert.equal(events[2].at - start, 2300, 'settled when the new socket opened');
  } finally {
    activity.stop();
    await close(peer);
  }
});

test('a stream that times out (timeoutMs) is reset with TIMEOUT and repeated at once with the same key', async () => {
  const { peer, items, socket } = await connect({ proxyOptions: { timeoutMs: 2000 } });
  const activity = recordActivity(pkg);
  try {
    let opened = 0;
    server.answer = () => (++opened === 1 ? 'drop' : { status: 200, payload: { second: true } });
    const start = clock.now();
    const call = items.list();
    const seen = observe(call);
    await clock.advance(1999);
    assert.equal(seen.settled, false);
    await clock.advance(1);
    assert.deepEqual(seen.value, { second: true });
    const opens = opensOf(call.key);
    assert.equal(opens.length, 2);
    const reset = socket.sent.find((frame) => frame.type === 'reset' && frame.stream === opens[0].frame.stream);
    assert.ok(reset, 'the timed-out stream was reset');
    assert.equal(reset.code, 6, 'TIMEOUT');
    const retry = activity.of(call.key).find((event) => event.type === 'retry');
    assert.deepEqual([retry.ended, retry.delayMs], ['stream-timeout', 0]);
    assert.equal(activity.of(call.key).at(-1).at - start, 2000, 'answered at once after the timeout');
  } finally {
    activity.stop();
    await close(peer);
  }
});

test("peer.request() with timeoutMs: the module's deadline, on the peer's one timer: reset with TIMEOUT, StreamTimeout; one answered in time leaves no timer", async () => {
  const { peer, socket } = await connect();
  try {
    server.answer = (frame) => (frame.payload?.slow ? 'drop' : { status: 200, payload: { fast: true } });
    const timersBefore = clock.dueTimes();
    const start = clock.now();
    const slow = observe(peer.request({ slow: true }, { timeoutMs: 1500 }));
    const fast = observe(peer.request({ slow: false }, { timeoutMs: 60_000 }));
    await clock.advance(1499);
    assert.deepEqual(fast.value, { fast: true });
    assert.equal(slow.settled, false);
    // the slow request's deadline is the peer's timer (the answered one's went with its stream)
    assert.deepEqual(clock.dueTimes().filter((at) => !timersBefore.includes(at)), [start + 1500]);
    await clock.advance(1);
    assert.ok(slow.error instanceof pkg.StreamTimeout, String(slow.error));
    const stream = server.opens.find(({ frame }) => frame.payload?.slow).frame.stream;
    const reset = socket.sent.find((frame) => frame.type === 'reset' && frame.stream === stream);
    assert.equal(reset?.code, 6, 'TIMEOUT');
    assert.deepEqual(clock.dueTimes().filter((at) => !timersBefore.includes(at)), [], 'no timer is left');
  } finally {
    await close(peer);
  }
});

test('timeoutMs past withinMs: the call rejects with StreamTimeout carrying its key', async () => {
  const { peer, items } = await connect({ proxyOptions: { timeoutMs: 1000, repeat: { withinMs: 1500 } } });
  try {
    server.answer = () => 'drop';
    const call = items.list();
    const seen = observe(call);
    await clock.advance(5000);
    assert.ok(seen.error instanceof pkg.StreamTimeout, `StreamTimeout (${seen.error?.name})`);
    assert.equal(seen.error.key, call.key);
    assert.equal(seen.error.attempts, 2);
  } finally {
    await close(peer);
  }
});

test('reset(REFUSED) is repeated after the delay, on the same live socket', async () => {
  const { peer, items, socket } = await connect();
  const activity = recordActivity(pkg);
  try {
    let opened = 0;
    server.answer = () => (++opened === 1 ? { reset: 4 } : { status: 200, payload: 'ok' });
    const start = clock.now();
    const call = items.list();
    await clock.advance(999);
    assert.equal(opensOf(call.key).length, 1);
    await clock.advance(1);
    assert.equal(await call, 'ok');
    assert.deepEqual(opensOf(call.key).map((open) => open.socket), [socket, socket]);
    const retry = activity.of(call.key).find((event) => event.type === 'retry');
    assert.deepEqual([retry.ended, retry.delayMs], ['stream-refused', 1000]);
    assert.equal(activity.of(call.key).at(-1).at - start, 1000);
  } finally {
    activity.stop();
    await close(peer);
  }
});

test('another reset (APPLICATION_ERROR) settles the call with the stream\'s error; nothing repeated', async () => {
  const { peer, items } = await connect();
  try {
    server.answer = () => ({ reset: 2, reason: 'who are you' });
    const call = items.list();
    const seen = observe(call);
    await clock.advance(10_000);
    assert.ok(seen.error instanceof pkg.StreamReset, `a StreamReset (${seen.error?.name})`);
    assert.equal(seen.error.code, 2);
    assert.equal(seen.error.key, call.key);
    assert.equal(opensOf(call.key).length, 1);
  } finally {
    await close(peer);
  }
});

test('a goaway that leaves the stream out: repeated after the delay on the next socket, answered once', async () => {
  const { peer, items, socket, reconnects } = await connect();
  const activity = recordActivity(pkg);
  try {
    server.answer = (frame, s) => (s === socket ? { goaway: 0 } : { status: 200, payload: { socket: server.sockets.indexOf(s) } });
    const call = items.list();
    const seen = observe(call);
    await clock.advance(5000);
    assert.equal(seen.ok, true, `resolved (${seen.error})`);
    const opens = opensOf(call.key);
    assert.equal(opens.length, 2);
    assert.notEqual(opens[1].socket, socket, 'on a new socket');
    assert.deepEqual(reconnects, [1]);
    const retry = activity.of(call.key).find((event) => event.type === 'retry');
    assert.equal(retry.ended, 'stream-refused', 'a stream above the goaway\'s last_stream fails Refused');
  } finally {
    activity.stop();
    await close(peer);
  }
});

test('close() while a call waits for a reconnect: it rejects with ConnectionClosed carrying its key', async () => {
  const { peer, items, socket, closes } = await connect({ peerOptions: { reconnect: { initialDelayMs: 5000, jitter: 0 } } });
  server.answer = () => 'drop';
  const call = items.list();
  const seen = observe(call);
  await clock.advance(100);
  socket.drop();
  await clock.advance(1000);
  assert.equal(pkg.pendingCalls().find((p) => p.key === call.key)?.waitingFor, 'reconnect');
  await close(peer);
  assert.ok(seen.error instanceof pkg.ConnectionClosed, `ConnectionClosed (${seen.error?.name})`);
  assert.equal(seen.error.key, call.key);
  assert.equal(closes.at(-1).willRetry, false, 'onClose(willRetry: false)');
});

test('retryNow() while a call waits for a peer in a long backoff makes the peer redial now', async () => {
  const { peer, items, socket, reconnects } = await connect({ peerOptions: { reconnect: { initialDelayMs: 20_000, jitter: 0 } } });
  try {
    server.answer = (frame, s) => (s === socket ? 'drop' : { status: 200, payload: 'again' });
    const call = items.list();
    await clock.advance(100);
    socket.drop();
    await clock.advance(2000);
    const dialled = server.sockets.length;
    const start = clock.now();
    pkg.retryNow();
    await clock.settle();
    assert.equal(server.sockets.length, dialled + 1, 'dialled at once');
    assert.equal(await call, 'again');
    assert.equal(clock.now(), start, 'long before the 20 s backoff');
    assert.deepEqual(reconnects, [1]);
  } finally {
    await close(peer);
  }
});

test('a call cancelled through its signal resets its stream (CANCELLED) and rejects with CallCancelled', async () => {
  const { peer, items, socket } = await connect();
  try {
    server.answer = () => 'drop';
    const controller = new AbortController();
    const call = items.list({}, { signal: controller.signal });
    const seen = observe(call);
    await clock.advance(100);
    controller.abort();
    await clock.settle();
    assert.ok(seen.error instanceof pkg.CallCancelled, `CallCancelled (${seen.error?.name})`);
    const [open] = opensOf(call.key);
    const reset = socket.sent.find((frame) => frame.type === 'reset' && frame.stream === open.frame.stream);
    assert.equal(reset?.code, 1, 'reset(CANCELLED)');
    await clock.advance(10_000);
    assert.equal(opensOf(call.key).length, 1, 'not repeated');
  } finally {
    await close(peer);
  }
});

test('a lazy peer resolves at once; a call issued before the first connection waits for it, then goes out once', async () => {
  resetServer();
  server.accept = () => false;
  const peer = await pkg.connectMuxws('ws://mux.test/ws', { lazy: true, reconnect: { initialDelayMs: 100, jitter: 0 } });
  try {
    assert.equal(peer.isOpen, false);
    class Items extends pkg.muxwsViewSet()('id', [pkg.ListMixin]) {}
    const items = new Items({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 1000 } });
    const start = clock.now();
    const call = items.list();
    const seen = observe(call);
    await clock.advance(2000);
    assert.equal(seen.settled, false);
    const [pending] = pkg.pendingCalls().filter((p) => p.key === call.key);
    assert.equal(pending.waitingFor, 'reconnect');
    assert.equal(pending.waitingForReconnect, true);
    assert.equal(opensOf(call.key).length, 0, 'nothing sent before the connection');
    server.answer = OK(['late']);
    server.sockets.at(-1).accept();
    await clock.settle();
    assert.deepEqual(seen.value, ['late'], 'sent as the peer connected');
    assert.equal(opensOf(call.key).length, 1);
    assert.equal(clock.now() - start, 2000);

    // Connected sooner than the call's repeat delay: the call goes out when that delay is over
    // (its first attempt found the peer between sockets, so it is a repeat, as after any reconnect).
    server.sockets.at(-1).drop();
    await clock.settle();
    server.accept = () => false;
    const early = items.list();
    const seenEarly = observe(early);
    await clock.advance(500);
    server.sockets.at(-1).accept();
    await clock.advance(499);
    assert.equal(opensOf(early.key).length, 0, 'not before its delay');
    await clock.advance(1);
    assert.deepEqual(seenEarly.value, ['late']);
  } finally {
    await close(peer);
  }
});

test('a socket that never opens rejects connectMuxws with ConnectionRefused; another subprotocol with CodecMismatch', async () => {
  resetServer();
  server.accept = (socket) => {
    queueMicrotask(() => socket.refuse());
    return false;
  };
  await assert.rejects(pkg.connectMuxws('ws://mux.test/refused', { reconnect: false }), pkg.ConnectionRefused);
  server.accept = () => 'other.v1';
  const error = await pkg.connectMuxws('ws://mux.test/other', { reconnect: false }).then(() => null, (thrown) => thrown);
  assert.ok(error instanceof pkg.CodecMismatch, `CodecMismatch (${error?.name})`);
  assert.ok(error.message.includes(SUBPROTOCOL), 'names the subprotocol offered');
  await clock.advance(1000);
  resetServer();
});

test('a socket that stops answering pings is dropped within pingIntervalMs + pingTimeoutMs, and the peer redials', async () => {
  const { peer, socket, closes } = await connect({ peerOptions: { pingIntervalMs: 1000, pingTimeoutMs: 500 } });
  try {
    // This socket goes deaf: no frame reaches the server, no pong comes back.
    socket.onClientFrame = () => {};
    await clock.advance(1000);
    assert.ok(socket.sent.some((frame) => frame.type === 'ping'), 'a ping after the idle interval');
    await clock.advance(500);
    assert.ok(closes.length >= 1, 'dropped');
    assert.equal(closes[0].willRetry, true);
    await clock.advance(200);
    assert.ok(server.sockets.at(-1) !== socket && server.sockets.at(-1).readyState === 1, 'a new socket is open');
    assert.equal(peer.isOpen, true);
  } finally {
    await close(peer);
  }
});

test('a repeat waits for the reconnect at most until withinMs: then the call rejects with its last attempt\'s error', async () => {
  const { peer, items, socket } = await connect({ proxyOptions: { repeat: { delayMs: 1000, withinMs: 5000 } } });
  try {
    server.answer = () => 'drop';
    server.accept = (s) => s === socket; // the peer never gets a new socket open
    const call = items.list();
    const seen = observe(call);
    await clock.advance(100);
    socket.drop();
    await clock.advance(4800);
    assert.equal(seen.settled, false, 'still waiting within withinMs');
    await clock.advance(200);
    assert.equal(seen.settled, true, 'settled once withinMs elapsed');
    assert.ok(seen.error instanceof pkg.ConnectionLost, `ConnectionLost (${seen.error?.name})`);
    assert.equal(seen.error.key, call.key);
    assert.equal(opensOf(call.key).length, 1);
  } finally {
    await close(peer);
  }
});

test('calls beyond callConcurrency wait, unsent, for a free stream', async () => {
  const { peer, items, socket } = await connect({ peerOptions: { callConcurrency: 2 } });
  try {
    server.answer = () => 'drop';
    const calls = [items.retrieve(1), items.retrieve(2), items.retrieve(3)];
    const seen = calls.map(observe);
    await clock.settle();
    assert.deepEqual(calls.map((call) => opensOf(call.key).length), [1, 1, 0], 'the third waits');
    const [first] = opensOf(calls[0].key);
    socket.push({ type: 'data', stream: first.frame.stream, headers: { ':status': 200 }, payload: { id: 1 }, end: true });
    await clock.settle();
    assert.deepEqual(seen[0].value, { id: 1 });
    assert.equal(opensOf(calls[2].key).length, 1, 'sent once a stream was free');
    for (const call of calls.slice(1)) {
      const [open] = opensOf(call.key);
      socket.push({ type: 'data', stream: open.frame.stream, headers: { ':status': 200 }, payload: { id: open.frame.headers[':path'] }, end: true });
    }
    await clock.settle();
    assert.deepEqual(seen.map((s) => s.ok), [true, true, true]);
  } finally {
    await close(peer);
  }
});

test('peer given as a function (0.6\'s lazy peer): called at the first call, once; calls issued meanwhile go out when it resolves', async () => {
  resetServer();
  let called = 0;
  let peerPromise = null;
  const source = () => {
    called += 1;
    peerPromise = pkg.connectMuxws('ws://mux.test/lazy', { reconnect: { initialDelayMs: 100, jitter: 0 } });
    return peerPromise;
  };
  class Items extends pkg.muxwsViewSet()('id', [pkg.ListMixin]) {}
  const items = new Items({ basePath: '/items', peer: source, schemaCheck: false });
  assert.equal(called, 0, 'not called before the first call');
  const first = items.list();
  const second = items.list({ page: 2 });
  assert.equal(called, 1);
  const peer = await peerPromise;
  try {
    await clock.settle();
    assert.deepEqual(await first, []);
    assert.deepEqual(await second, []);
    assert.equal(opensOf(first.key).length, 1);
    assert.equal(opensOf(second.key)[0].frame.headers[':query'], 'page=2');
    await items.list();
    assert.equal(called, 1, 'its peer is kept');
  } finally {
    await close(peer);
  }
});

test('the peer redials on its schedule (250 ms, doubling; jitter 0 here) and replays its hello on every new socket', async () => {
  resetServer();
  const hellos = [];
  server.answer = (frame) => {
    if (frame.headers[':path'] === '/hello') hellos.push(frame);
    return { status: 200, payload: 'hi' };
  };
  const peer = await pkg.connectMuxws('ws://mux.test/ws', {
    reconnect: { jitter: 0 },
    hello: { client: 'unit' },
    helloHeaders: { ':method': 'GET', ':path': '/hello' },
  });
  try {
    assert.equal(hellos.length, 1, 'the hello went out on the first socket');
    assert.deepEqual(hellos[0].payload, { client: 'unit' });
    const first = server.sockets.length;
    // Every new socket is refused for a while: the dial times show the schedule.
    const dialledAt = [];
    server.accept = (socket) => {
      dialledAt.push(clock.now());
      queueMicrotask(() => socket.refuse());
      return false;
    };
    const lostAt = clock.now();
    server.sockets.at(-1).drop();
    await clock.advance(250 + 500 + 1000 + 2000);
    assert.deepEqual(dialledAt.map((at) => at - lostAt), [250, 750, 1750, 3750], 'delays 250, 500, 1000, 2000');
    server.accept = () => true;
    await clock.advance(4000);
    assert.equal(server.sockets.length, first + 5);
    assert.equal(peer.isOpen, true);
    assert.equal(hellos.length, 2, 'the hello was replayed on the new socket');
  } finally {
    await close(peer);
  }
});

test('a peer whose reconnect attempts run out closes for good: a call waiting for it rejects with ConnectionClosed', async () => {
  const { peer, items, socket, closes } = await connect({ peerOptions: { reconnect: { initialDelayMs: 100, jitter: 0, maxAttempts: 2 } } });
  server.answer = () => 'drop';
  server.accept = (s) => {
    if (s === socket) return true;
    queueMicrotask(() => s.refuse());
    return false;
  };
  const call = items.list();
  const seen = observe(call);
  await clock.advance(100);
  socket.drop();
  await clock.advance(10_000);
  assert.equal(peer.isClosed, true, 'closed for good');
  assert.equal(closes.at(-1).willRetry, false);
  assert.ok(seen.error instanceof pkg.ConnectionClosed, `ConnectionClosed (${seen.error?.name})`);
  assert.equal(seen.error.key, call.key);
  await close(peer);
});

test('a call issued after a goaway, while the old socket drains: open() throws ConnectionGoingAway, repeated on the next socket', async () => {
  const { peer, items, socket, reconnects } = await connect();
  const activity = recordActivity(pkg);
  try {
    server.answer = (frame, s) => (s === socket ? 'drop' : { status: 200, payload: 'next socket' });
    const running = items.retrieve(1);
    await clock.settle();
    const [open] = opensOf(running.key);
    // The server goes away, keeping the stream it took (last_stream), and drains it before closing.
    socket.push({ type: 'goaway', code: 0, last_stream: open.frame.stream, reason: 'deploy' });
    await clock.settle();
    const late = items.list();
    const seenLate = observe(late);
    await clock.advance(10);
    assert.equal(opensOf(late.key).length, 0, 'nothing sent on the draining socket');
    socket.push({ type: 'data', stream: open.frame.stream, headers: { ':status': 200 }, payload: { id: 1 }, end: true });
    await clock.settle();
    assert.deepEqual(await running, { id: 1 }, 'the stream under last_stream was served');
    socket.drop(1000, 'deploy', true);
    await clock.advance(2000);
    assert.equal(seenLate.value, 'next socket');
    assert.equal(opensOf(late.key).length, 1);
    assert.notEqual(opensOf(late.key)[0].socket, socket);
    assert.deepEqual(reconnects, [1]);
    const retry = activity.of(late.key).find((event) => event.type === 'retry');
    assert.equal(retry.ended, 'going-away');
    assert.equal(retry.waitsForReconnect, true);
  } finally {
    activity.stop();
    await close(peer);
  }
});
