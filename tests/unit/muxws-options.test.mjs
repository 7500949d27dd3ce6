// Pins the connect options of a muxws peer (muxws/options.ts and the muxws module's peer_new):
// an option of the wrong type (a count not a non-negative whole number) is a TypeError from the
// driver; an option not given takes the
// module's default (the heartbeat, the frame cap, the reconnect schedule); a value out of range is
// refused by the module (class Config) and thrown as a TypeError naming the option as
// connectMuxws names it. A refused peer dials nothing and leaves nothing behind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { muxwsSetup } from './kit.mjs';

const { clock, server, pkg } = await muxwsSetup();

const URL = 'ws://mux.test/ws';

/** connectMuxws(URL, options) rejects with a TypeError matching `message`, having dialled nothing. */
async function refused(options, message) {
  const before = server.sockets.length;
  await assert.rejects(pkg.connectMuxws(URL, { reconnect: false, ...options }), (error) => {
    assert.ok(error instanceof TypeError, `a TypeError, not ${error?.constructor?.name}: ${error?.message}`);
    assert.match(error.message, message);
    return true;
  });
  assert.equal(server.sockets.length, before, 'nothing dialled');
}

test('an option of the wrong type (a count that is not a non-negative whole number) is a TypeError naming it', async () => {
  await refused({ pingIntervalMs: '5' }, /^pingIntervalMs must be a non-negative whole number$/);
  await refused({ maxFrameBytes: NaN }, /^maxFrameBytes must be a non-negative whole number$/);
  await refused({ reconnect: { factor: '2' } }, /^reconnect\.factor must be a number$/);
  await refused({ reconnect: { maxDelayMs: NaN } }, /^reconnect\.maxDelayMs must be a number$/);
  await refused({ pingTimeoutMs: -1 }, /^pingTimeoutMs must be a non-negative whole number$/);
  await refused({ helloTimeoutMs: 1.5 }, /^helloTimeoutMs must be a non-negative whole number$/);
  await refused({ lazy: 1 }, /^lazy must be a boolean$/);
});

test('a value out of range is refused by the module, named as connectMuxws names it', async () => {
  await refused({ callConcurrency: 0 }, /^callConcurrency must be at least 1$/);
  await refused({ maxPayloadBytes: 0 }, /^maxPayloadBytes must be at least 1$/);
  await refused({ maxFrameBytes: 10 }, /^maxFrameBytes 10 is below the floor of 64/);
  await refused({ reconnect: { initialDelayMs: 0 } }, /^reconnect\.initialDelayMs must be a number greater than 0$/);
  await refused({ reconnect: { factor: 0.5 } }, /^reconnect\.factor must be a finite number of at least 1$/);
  await refused({ reconnect: { jitter: 2 } }, /^reconnect\.jitter must be between 0 and 1$/);
  await refused({ reconnect: { maxAttempts: -1 } }, /^reconnect\.maxAttempts must be a number of at least 0$/);
});

test('options not given take the module\'s defaults: a message over 65536 bytes is over the frame cap, one at it is not', async () => {
  server.accept = () => true;
  server.answer = () => 'drop';
  const peer = await pkg.connectMuxws(URL, { reconnect: false });
  const socket = server.sockets.at(-1);
  assert.deepEqual(socket.offered, ['muxws.v1.json']);
  // Headers that fit the default cap go out; longer ones are refused before the module is asked.
  const fits = peer.open(null, { headers: { 'x-fill': 'a'.repeat(60_000) } });
  assert.equal(typeof fits.id, 'number');
  fits.cancel();
  assert.throws(() => peer.open(null, { headers: { 'x-fill': 'a'.repeat(70_000) } }), /longer than the frame cap/);
  const closing = peer.close();
  await clock.advance(100);
  await closing;
});
