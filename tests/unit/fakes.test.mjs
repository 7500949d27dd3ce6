// Pins the unit suite's own fakes, so that a facade test failing means the facade: the fake clock
// runs due timers in time order (ties in the order armed), runs timers armed by timers within the
// same advance(), keeps Date.now(), new Date() and performance.timeOrigin + performance.now() equal,
// repeats intervals and clears timers; the fake fetch records requests and honours abort signals;
// the fake WebSocket fires its events through on* handlers and listeners.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { installClock } from './fake-clock.mjs';
import { HANG, installFetch, networkError } from './fake-fetch.mjs';
import { FakeWebSocket, installMuxwsServer } from './fake-websocket.mjs';

test('the fake clock: timers in time order, nested timers, Date and performance in step, intervals, clearing', async () => {
  const clock = installClock({ start: Date.UTC(2030, 0, 1) });
  try {
    const ran = [];
    setTimeout(() => ran.push(['b', Date.now() - Date.UTC(2030, 0, 1)]), 200);
    setTimeout(() => {
      ran.push(['a', Date.now() - Date.UTC(2030, 0, 1)]);
      setTimeout(() => ran.push(['nested', Date.now() - Date.UTC(2030, 0, 1)]), 50);
      Promise.resolve().then(() => ran.push(['microtask', Date.now() - Date.UTC(2030, 0, 1)]));
    }, 100);
    setTimeout(() => ran.push(['b2', Date.now() - Date.UTC(2030, 0, 1)]), 200);
    const cleared = setTimeout(() => ran.push(['cleared']), 10);
    clearTimeout(cleared);
    let ticks = 0;
    const interval = setInterval(() => ticks++, 30);
    await clock.advance(199);
    assert.deepEqual(ran, [['a', 100], ['microtask', 100], ['nested', 150]]);
    await clock.advance(1);
    assert.deepEqual(ran.slice(3), [['b', 200], ['b2', 200]], 'ties in the order armed');
    assert.equal(ticks, 6);
    clearInterval(interval);
    assert.equal(clock.timerCount(), 0);
    assert.equal(new Date().getTime(), Date.now());
    assert.equal(Math.round(performance.timeOrigin + performance.now()), Date.now());
    assert.equal(clock.now(), Date.UTC(2030, 0, 1) + 200);
    assert.ok(new Date(0).getTime() === 0 && Date.parse('2030-01-01T00:00:00Z') === Date.UTC(2030, 0, 1), 'other Date uses unchanged');
  } finally {
    clock.uninstall();
  }
  assert.ok(Math.abs(Date.now() - (performance.timeOrigin + performance.now())) < 50, 'uninstalled: real time again');
});

test('the fake fetch: records method, URL, lower-case headers and bytes; scripted answers; an abort rejects with the signal\'s reason', async () => {
  const server = installFetch([{ status: 201, body: { a: 1 } }, networkError(), HANG]);
  try {
    const answer = await fetch('http://x.test/a', { method: 'post', headers: { 'X-One': '1' }, body: 'hi' });
    assert.equal(answer.status, 201);
    assert.deepEqual(await answer.json(), { a: 1 });
    assert.deepEqual(server.requests[0].headers, { 'x-one': '1' });
    assert.equal(server.requests[0].method, 'POST');
    assert.equal(server.requests[0].text, 'hi');
    await assert.rejects(fetch('http://x.test/b'), (error) => error instanceof TypeError && error.message === 'fetch failed');
    const controller = new AbortController();
    const pending = fetch('http://x.test/c', { signal: controller.signal });
    controller.abort();
    await assert.rejects(pending, (error) => error.name === 'AbortError');
    assert.equal(server.requests[2].aborted, true);
    assert.equal(server.requests[2].answered, false);
  } finally {
    server.uninstall();
  }
});

test('the fake WebSocket: on* handlers and listeners both fire; the client\'s close completes cleanly; the server answers streams', async () => {
  const server = installMuxwsServer({ answer: () => ({ status: 204, payload: 'p' }) });
  try {
    const socket = new WebSocket('ws://x.test/ws', ['muxws.v1.json']);
    assert.ok(socket instanceof FakeWebSocket);
    const events = [];
    socket.onopen = () => events.push('onopen');
    socket.addEventListener('open', () => events.push('open listener'));
    socket.onmessage = (event) => events.push(JSON.parse(event.data));
    socket.onclose = (event) => events.push(['close', event.code, event.wasClean]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(socket.readyState, 1);
    assert.equal(socket.protocol, 'muxws.v1.json');
    socket.send(JSON.stringify({ type: 'open', stream: 1, headers: { ':method': 'GET', ':path': '/x' }, payload: null, end: true }));
    socket.send(JSON.stringify({ type: 'ping', nonce: 7 }));
    await new Promise((resolve) => setImmediate(resolve));
    socket.close(1000, 'bye');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(events, [
      'onopen',
      'open listener',
      { type: 'data', stream: 1, headers: { ':status': 204 }, payload: 'p', end: true },
      { type: 'pong', nonce: 7 },
      ['close', 1000, true],
    ]);
    assert.equal(server.opens.length, 1);
    assert.throws(() => socket.send('{}'), (error) => error.name === 'InvalidStateError');
  } finally {
    server.uninstall();
  }
});
