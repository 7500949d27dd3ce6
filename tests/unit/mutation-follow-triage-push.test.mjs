// The follower by push against the scripted muxws server (fake WebSocket, fake clock): the
// survivors of the follower's mutation run that a push test tells (tests/mutation/README.md, "The
// follower's survivors (89), triaged"): a subscribe answering the rev the follower starts from, two
// topics and a second follower of one of them on one peer, two peers, a push before its subscribe's
// answer, a REST follower beside a peer that loses its socket, a subscribe failing after its socket
// was lost, two channels (eventsPath, scope) of one topic on one peer, a resync with pushes past it
// queued, a gap no poll fills.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { flush } from './fake-clock.mjs';
import { installFetch } from './fake-fetch.mjs';
import { muxwsSetup } from './kit.mjs';

const { clock, server, pkg } = await muxwsSetup();

/** The rev each topic's subscribe answers. */
const revs = new Map();
/** Subscribes left unanswered (the test answers them with server.reply) while true. */
let holdSubscribes = false;
/** Subscribes of the second channel (eventsPath /other, scope sB) left unanswered while true. */
let holdOther = false;
/** The first channel's poll answer for a cursor (the two-scope test's), else the default. */
let eventsPoll = null;
server.answer = (open) => {
  const path = open.headers[':path'];
  if (path === '/events/subscribe' && holdSubscribes) return 'drop';
  if (path === '/other/subscribe') return holdOther ? 'drop' : { status: 200, payload: { rev: revs.get(open.payload.topic) ?? 100, scope: 'sB' } };
  if (path === '/events/poll' && eventsPoll) return { status: 200, payload: eventsPoll(open.payload.cursors), poll_after_ms: 0 };
  if (path === '/events/subscribe') return { status: 200, payload: { rev: revs.get(open.payload.topic) ?? 100 } };
  if (path === '/events/unsubscribe') return { status: 204, payload: null };
  if (path === '/events/poll') {
    const topics = {};
    for (const [topic, cursor] of Object.entries(open.payload.cursors)) topics[topic] = { rev: revs.get(topic) ?? 100, events: [] };
    return { status: 200, payload: { topics, poll_after_ms: 0 } };
  }
  return { status: 404, payload: null };
};

/** A REST backend beside the peers: its polls garbled while `garble` is true. */
let garble = false;
const rest = installFetch((request) => {
  const body = JSON.parse(request.text);
  const topics = {};
  for (const topic of Object.keys(body.cursors)) topics[topic] = garble ? 'garbled' : { rev: 100, events: [] };
  return { status: 200, body: { topics, poll_after_ms: 0 } };
});
after(() => rest.uninstall());

let streamId = 0;
function push(socket, topic, rev, scope) {
  streamId += 2;
  const headers = { ':event': 'changed', ':version': 1, ':topic': topic, ':rev': rev, ':prev': rev - 1, ...(scope === undefined ? {} : { ':scope': scope }) };
  socket.push({ type: 'open', stream: streamId, end: true, headers, payload: { topic, rev } });
}
const paths = (socket, path) => socket.sent.filter((frame) => frame.type === 'open' && frame.headers[':path'] === path);
/** Real turns of the event loop (no virtual time) until `done()`: the follower's chunk loads in its own time. */
async function until(done) {
  for (let i = 0; i < 200 && !done(); i++) await flush(2);
}
const RECONNECT = { reconnect: { initialDelayMs: 100, jitter: 0 } };

test('following from the rev the subscribe answers: ready resolves with no poll (#408, #416)', async () => {
  revs.set('from', 100);
  const peer = await pkg.connectMuxws('ws://events.test/ws', RECONNECT);
  const socket = server.live().at(-1);
  let ready = false;
  const follower = pkg.follow('from', { peer, from: 100, checkIntervalMs: 60_000 });
  follower.ready.then(() => (ready = true));
  await until(() => paths(socket, '/events/subscribe').length > 0);
  await clock.advance(1);
  await until(() => ready);
  assert.equal(paths(socket, '/events/subscribe').length, 1);
  assert.equal(ready, true, 'ready once the subscribe answered the cursor');
  assert.equal(paths(socket, '/events/poll').length, 0, 'no catch-up poll: nothing came since the cursor');
  assert.equal(follower.mode, 'push');
  await follower.close();
  await peer.close({ drainMs: 0 });
  revs.clear();
});

test("two topics on one peer, a second follower of one: each push to its topic's followers, both in push mode; the last follower of a topic unsubscribes it while the other topic is followed (#444, #376, #748, #752, #756)", async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', RECONNECT);
  const socket = server.live().at(-1);
  const got = { a: [], a2: [], b: [] };
  const a = pkg.follow('ta', { peer, onEvent: (event) => got.a.push([event.topic, event.rev]) });
  const b = pkg.follow('tb', { peer, onEvent: (event) => got.b.push([event.topic, event.rev]) });
  await clock.advance(1);
  await Promise.all([a.ready, b.ready]);
  assert.equal(a.mode, 'push');
  push(socket, 'ta', 101);
  await clock.advance(1);
  assert.deepEqual(got.a, [['ta', 101]]);
  assert.deepEqual(got.b, [], "a push of ta is not tb's");
  // a second follower of ta on the same channel: subscribed again (answering 101), both by push
  revs.set('ta', 101);
  const a2 = pkg.follow('ta', { peer, onEvent: (event) => got.a2.push([event.topic, event.rev]) });
  await clock.advance(1);
  await a2.ready;
  assert.equal(paths(socket, '/events/subscribe').length, 3);
  assert.equal(a.mode, 'push');
  assert.equal(a2.mode, 'push', 'its own channel is not replaced by itself');
  push(socket, 'ta', 102);
  await clock.advance(1);
  assert.deepEqual(got.a2.at(-1), ['ta', 102]);
  assert.deepEqual(got.a.at(-1), ['ta', 102]);
  // ta's followers close: ta is unsubscribed though tb is still followed on the peer
  await a.close();
  await clock.advance(1);
  assert.equal(paths(socket, '/events/unsubscribe').length, 0, 'ta still has a follower');
  await a2.close();
  await clock.advance(1);
  assert.deepEqual(paths(socket, '/events/unsubscribe').map((frame) => frame.payload.topic), ['ta']);
  await b.close();
  await clock.advance(1);
  assert.deepEqual(paths(socket, '/events/unsubscribe').map((frame) => frame.payload.topic), ['ta', 'tb']);
  await peer.close({ drainMs: 0 });
  revs.clear();
});

test("one peer closed for good: another peer's follower of the same topic stays in push mode (#340)", async () => {
  const one = await pkg.connectMuxws('ws://one.test/ws', RECONNECT);
  const two = await pkg.connectMuxws('ws://two.test/ws', RECONNECT);
  const first = pkg.follow('shared', { peer: one });
  const second = pkg.follow('shared', { peer: two });
  await clock.advance(1);
  await Promise.all([first.ready, second.ready]);
  assert.equal(first.mode, 'push');
  assert.equal(second.mode, 'push');
  await one.close({ drainMs: 0 });
  await clock.advance(1);
  assert.equal(second.mode, 'push', "the other peer's subscription still holds");
  await first.close();
  await second.close();
  await two.close({ drainMs: 0 });
});

test('a push before its subscribe is answered: queued, and handed out once the answer says where the cursor is (#464, #856)', async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', RECONNECT);
  const socket = server.live().at(-1);
  holdSubscribes = true;
  try {
    // from a rev: the push that follows it, come before the answer, is handed out by push
    const got = [];
    const from = pkg.follow('early', { peer, from: 100, onEvent: (event) => got.push([event.rev, event.via]) });
    await until(() => paths(socket, '/events/subscribe').length > 0);
    push(socket, 'early', 101);
    await clock.advance(1);
    revs.set('early', 101);
    server.reply(socket, paths(socket, '/events/subscribe').at(-1).stream, { status: 200, payload: { rev: 101 } });
    await clock.advance(1);
    await until(() => got.length > 0);
    assert.deepEqual(got, [[101, 'push']], 'the early push, not lost');
    await from.close();
    // from now: a push at or below the subscribe's rev is dropped, and the next is handed out
    const now = [];
    const fresh = pkg.follow('fresh', { peer, onEvent: (event) => now.push(event.rev) });
    await until(() => paths(socket, '/events/subscribe').length > 1);
    push(socket, 'fresh', 101);
    await clock.advance(1);
    revs.set('fresh', 101);
    server.reply(socket, paths(socket, '/events/subscribe').at(-1).stream, { status: 200, payload: { rev: 101 } });
    await clock.advance(1);
    await fresh.ready;
    assert.equal(fresh.cursor, 101);
    push(socket, 'fresh', 102);
    await clock.advance(1);
    await until(() => now.length > 0);
    assert.deepEqual(now, [102], 'the next push, not held behind the one the cursor passed');
    await fresh.close();
  } finally {
    holdSubscribes = false;
    revs.clear();
  }
  await peer.close({ drainMs: 0 });
});

test("a peer's socket lost: a REST follower backing off keeps its backoff (#344, #348)", async () => {
  const backend = () => rest.requests.filter((request) => request.url.startsWith('http://backend.test/'));
  const random = Math.random;
  Math.random = () => 0;
  const peer = await pkg.connectMuxws('ws://events.test/ws', RECONNECT);
  const pushed = pkg.follow('pushed', { peer });
  const polled = pkg.follow('polled', { baseUrl: 'http://backend.test', pollIntervalMs: 1000 });
  try {
    await clock.advance(1);
    await Promise.all([pushed.ready, polled.ready]);
    assert.equal(backend().length, 1);
    garble = true;
    await clock.advance(1000);
    await clock.advance(1000);
    assert.equal(backend().length, 3, 'two failures');
    const failed = backend().at(-1).at;
    // the peer's socket drops (and comes back 100 ms later): nothing of the REST follower's backoff changes
    server.live().at(-1).drop();
    await clock.advance(1);
    assert.equal(pushed.mode, 'poll');
    garble = false;
    await clock.advance(1998);
    await clock.advance(600);
    assert.deepEqual(backend().slice(3).map((request) => request.at - failed), [2000], 'the backoff of its second failure, 2000 ms, then no other yet');
  } finally {
    Math.random = random;
    garble = false;
  }
  await pushed.close();
  await polled.close();
  await peer.close({ drainMs: 0 });
  await clock.advance(20_000);
});

test('a subscribe that fails after its socket was lost is not taken: the new socket is subscribed, the follower by push (#420)', async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', RECONNECT);
  const first = server.live().at(-1);
  holdSubscribes = true;
  const follower = pkg.follow('lost', { peer });
  try {
    await until(() => paths(first, '/events/subscribe').length > 0);
    first.drop();
    holdSubscribes = false;
    await clock.advance(1);
    await clock.advance(200);
    await follower.ready;
    const second = server.live().at(-1);
    assert.notEqual(second, first);
    assert.equal(paths(second, '/events/subscribe').length, 1);
    assert.equal(follower.mode, 'push');
  } finally {
    holdSubscribes = false;
  }
  await follower.close();
  await peer.close({ drainMs: 0 });
});

test("two channels (another eventsPath, another scope) of one topic on one peer: the socket's subscription is the last answered; the replaced channel polls, takes no push of the other scope, and a new follower of it polls at once (#860, #864, #456, #460, #384, #380)", async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', RECONNECT);
  const socket = server.live().at(-1);
  const gotA = [];
  const gotB = [];
  const a = pkg.follow('t', { peer, pollIntervalMs: 1000, checkIntervalMs: 60_000, onEvent: (event) => gotA.push([event.rev, event.via]) });
  await until(() => paths(socket, '/events/subscribe').length > 0);
  await clock.advance(1);
  await a.ready;
  assert.equal(a.mode, 'push');
  holdOther = true;
  const b = pkg.follow('t', { peer, eventsPath: '/other', pollIntervalMs: 1000, checkIntervalMs: 60_000, onEvent: (event) => gotB.push([event.rev, event.via, event.scope]) });
  try {
    await until(() => paths(socket, '/other/subscribe').length > 0);
    // the server moved the socket's subscription to sB: its push is no event of A's scope
    push(socket, 't', 101, 'sB');
    await clock.advance(1);
    assert.deepEqual(gotA, [], "a push of another scope is not handed to A's channel");
    revs.set('t', 101);
    server.reply(socket, paths(socket, '/other/subscribe').at(-1).stream, { status: 200, payload: { rev: 101, scope: 'sB' } });
    await clock.advance(1);
    await b.ready;
    assert.equal(b.mode, 'push');
    assert.equal(a.mode, 'poll', "A's subscription was replaced");
    const replacedAt = clock.now();
    push(socket, 't', 102, 'sB');
    await clock.advance(1);
    assert.deepEqual(gotB, [[102, 'push', 'sB']]);
    // A polls at its poll interval and gets its own scope's events, 102 included
    eventsPoll = (cursors) => ({ topics: { t: cursors.t === 100 ? { rev: 102, events: [{ rev: 101, prev: 100, event: 'changed', version: 1, payload: 1 }, { rev: 102, prev: 101, event: 'changed', version: 1, payload: 2 }] } : { rev: 102, events: [] } } });
    await clock.advance(1000);
    const aPolls = paths(socket, '/events/poll');
    assert.equal(aPolls.length, 1, 'A polls within its poll interval after the replacement');
    assert.ok(clock.now() - replacedAt <= 1001);
    await until(() => gotA.length >= 2);
    assert.deepEqual(gotA, [[101, 'poll'], [102, 'poll']], "A's own events, none lost to the other scope's push");
    // a new follower of A's channel: no subscribe (it would replace B's), a poll at once
    let ready = false;
    const a2 = pkg.follow('t', { peer, pollIntervalMs: 1000, checkIntervalMs: 60_000 });
    a2.ready.then(() => (ready = true));
    await until(() => ready);
    assert.equal(ready, true, 'polled at once, ready');
    assert.equal(paths(socket, '/events/subscribe').length, 1);
    await a2.close();
  } finally {
    holdOther = false;
    eventsPoll = null;
    revs.clear();
  }
  await a.close();
  await b.close();
  await peer.close({ drainMs: 0 });
});

test("another channel's subscribe answered after its last follower closed: the first channel keeps the socket's subscription (#744)", async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', RECONNECT);
  const socket = server.live().at(-1);
  const a = pkg.follow('u', { peer });
  await until(() => paths(socket, '/events/subscribe').length > 0);
  await clock.advance(1);
  await a.ready;
  holdOther = true;
  try {
    const b = pkg.follow('u', { peer, eventsPath: '/other' });
    await until(() => paths(socket, '/other/subscribe').length > 0);
    await b.close();
    server.reply(socket, paths(socket, '/other/subscribe').at(-1).stream, { status: 200, payload: { rev: 100, scope: 'sB' } });
    await clock.advance(1);
    assert.equal(a.mode, 'push', "A's subscription still holds the socket");
  } finally {
    holdOther = false;
  }
  await a.close();
  await peer.close({ drainMs: 0 });
});

test('a resync while pushes past its rev are queued: they follow the resync (#660)', async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', RECONNECT);
  const socket = server.live().at(-1);
  const got = [];
  let release;
  const follower = pkg.follow('r', {
    peer,
    onEvent: (event) => {
      got.push(['event', event.rev]);
      if (event.rev === 101) return new Promise((resolve) => (release = resolve));
    },
    onResync: (info) => got.push(['resync', info.rev]),
  });
  await until(() => paths(socket, '/events/subscribe').length > 0);
  await clock.advance(1);
  await follower.ready;
  try {
    push(socket, 'r', 101);
    push(socket, 'r', 102);
    push(socket, 'r', 103);
    await clock.advance(1);
    await until(() => release);
    assert.deepEqual(got, [['event', 101]]);
    // while 101's handler runs, a poll from 101 says the log no longer holds it: a resync to 102
    eventsPoll = () => ({ topics: { r: { rev: 102, events: null } } });
    const caught = follower.catchUp();
    await clock.advance(1);
    release();
    await caught;
    await until(() => got.length >= 3);
    assert.deepEqual(got, [['event', 101], ['resync', 102], ['event', 103]], '103, past the resync, still handed out');
    assert.equal(follower.cursor, 103);
  } finally {
    eventsPoll = null;
  }
  await follower.close();
  await peer.close({ drainMs: 0 });
});

test('a gap the catch-up poll does not fill: ready resolves, and the gap asks for one poll, not one after another (#912, #880)', async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', RECONNECT);
  const socket = server.live().at(-1);
  holdSubscribes = true;
  eventsPoll = () => ({ topics: { g: { rev: 100, events: [] } } });
  const follower = pkg.follow('g', { peer, checkIntervalMs: 60_000 });
  let ready = false;
  follower.ready.then(() => (ready = true));
  try {
    await until(() => paths(socket, '/events/subscribe').length > 0);
    // a push whose prev the follower never had, come before the subscribe's answer (rev 100)
    push(socket, 'g', 102);
    await clock.advance(1);
    server.reply(socket, paths(socket, '/events/subscribe').at(-1).stream, { status: 200, payload: { rev: 100 } });
    await clock.advance(1);
    await until(() => ready);
    assert.equal(ready, true, 'ready: nothing to hand out now, the server was heard');
    for (let i = 0; i < 5; i++) await clock.advance(1);
    await flush();
    assert.equal(paths(socket, '/events/poll').length, 1, 'one poll for the gap');
    assert.equal(follower.cursor, 100);
  } finally {
    holdSubscribes = false;
    eventsPoll = null;
    await follower.close();
  }
  await peer.close({ drainMs: 0 });
});
