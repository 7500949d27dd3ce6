// Pins the platform socket of a muxws peer (muxws/socket.ts) against the fake WebSocket: a socket
// whose send() throws is lost exactly once (one onClose, code 1006, the reason naming the failed
// send; the close event the platform sends after the driver's close() is not a second loss), and
// the peer redials, the call going out again on the new socket with the same key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { muxwsSetup } from './kit.mjs';

const { clock, server, pkg } = await muxwsSetup();

test('a socket whose send() throws is lost once: one onClose 1006, a redial, the call repeated with its key', async () => {
  server.accept = () => true;
  server.answer = () => ({ status: 200, payload: ['ok'] });
  const closes = [];
  const peer = await pkg.connectMuxws('ws://mux.test/ws', { reconnect: { initialDelayMs: 100, jitter: 0 }, onClose: (reason) => closes.push(reason) });
  class Items extends pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]) {}
  const items = new Items({ basePath: '/items', peer, schemaCheck: false });
  const first = server.sockets.at(-1);
  first.send = () => {
    throw new Error('the platform says no');
  };
  const call = items.list();
  await clock.advance(0);
  assert.equal(closes.length, 1, 'one loss');
  assert.equal(closes[0].code, 1006);
  assert.match(closes[0].reason, /the socket could not send: .*the platform says no/);
  assert.equal(closes[0].willRetry, true);
  assert.ok(first.closedByClient, 'the driver closed the socket that could not send');
  // The redial after 100 ms; the repeat after its delay (the proxy's repeat.delayMs).
  await clock.advance(100);
  assert.equal(server.sockets.length, 2, 'redialled once');
  await clock.advance(5000);
  assert.deepEqual(await call, ['ok']);
  assert.equal(closes.length, 1, 'the close event after the driver\'s close() is no second loss');
  assert.equal(server.sockets.length, 2, 'no further dial');
  const opens = server.opens.filter(({ socket }) => socket === server.sockets[1]);
  assert.equal(opens.length, 1, 'the call went out on the new socket');
  assert.equal(opens[0].frame.headers['idempotency-key'], `"${call.key}"`);
  const closing = peer.close();
  await clock.advance(100);
  await closing;
});
