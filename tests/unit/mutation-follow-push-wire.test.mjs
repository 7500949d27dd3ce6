// Pushes whose headers make them no event push (follow/wire.ts readPush): each bad field alone is
// dropped, nothing handed out of it, and the next good push is delivered; a push's scope of 1025
// characters or that is no string drops it. The scripted muxws server, the fake clock. Written for
// the survivors of the follower's mutation run (tests/mutation/README.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { muxwsSetup } from './kit.mjs';

const { clock, server, pkg } = await muxwsSetup();
const TOPIC = 'pushes:1';
let rev = 100;
server.answer = (open) => {
  const path = open.headers[':path'];
  if (path === '/events/subscribe') return { status: 200, payload: { rev } };
  if (path === '/events/unsubscribe') return { status: 204, payload: null };
  if (path === '/events/poll') return { status: 200, payload: { topics: { [TOPIC]: { rev, events: [] } }, poll_after_ms: 0 } };
  return { status: 404, payload: null };
};
let stream = 0;
const push = (socket, headers, payload = { n: 1 }) => socket.push({ type: 'open', stream: (stream += 2), end: true, headers, payload });
const good = (at, more = {}) => ({ ':event': 'e', ':version': 1, ':topic': TOPIC, ':rev': at, ':prev': at - 1, ...more });

test('a push with any header that makes it no event push is dropped; the next good push is delivered', async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', { reconnect: { initialDelayMs: 100, jitter: 0 } });
  const socket = server.live()[0];
  const got = [];
  const follower = pkg.follow(TOPIC, { peer, onEvent: (event) => void got.push(event) });
  await clock.advance(1);
  await follower.ready;
  assert.equal(follower.mode, 'push');
  assert.equal(follower.cursor, 100);
  const bad = [
    { ':topic': 7 },
    { ':rev': '101' },
    { ':rev': 100.5 },
    { ':prev': -1 },
    { ':prev': '100' },
    { ':prev': 101 },
    { ':prev': 102 },
    { ':event': 3 },
    { ':version': 0 },
    { ':version': '1' },
    { ':scope': 's'.repeat(1025) },
    { ':scope': 4 },
  ];
  for (const fields of bad) {
    push(socket, good(101, fields));
    await clock.advance(1);
    assert.deepEqual(got, [], `${JSON.stringify(fields).slice(0, 60)}: dropped`);
    assert.equal(follower.cursor, 100);
  }
  push(socket, {});
  await clock.advance(1);
  assert.deepEqual(got, [], 'a push with no headers: dropped');
  push(socket, good(101), { n: 101 });
  await clock.advance(1);
  assert.deepEqual(got.map((event) => [event.rev, event.prev, event.via, event.payload]), [[101, 100, 'push', { n: 101 }]]);
  assert.equal(follower.cursor, 101);
  await follower.close();
  await peer.close({ drainMs: 0 });
});
