// follow() over a muxws peer by push, against the scripted muxws server (fake WebSocket, fake clock,
// no backend): the subscribe and its key, pushes delivered once and in order, a push's stream ended
// at once however slow onEvent is, a gap caught up by a poll from the cursor, a socket loss and
// the new subscribe (a new key) with its catch-up poll, a refused subscribe, close() unsubscribing.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { installFetch } from './fake-fetch.mjs';
import { muxwsSetup } from './kit.mjs';

const { clock, server, pkg } = await muxwsSetup();
const TOPIC = 'imports:7';

/** The server's log of TOPIC: events { rev, prev, event, version, payload }, the rev now. */
const log = { events: [], rev: 100 };
/** Subscribes refused with this status (null: answered). */
let refuseWith = null;
server.answer = (open) => {
  const path = open.headers[':path'];
  if (path === '/events/subscribe') {
    if (refuseWith) return { status: refuseWith, payload: { detail: 'no', detail_code: 'fastapi-viewsets.event_topic_refused', detail_params: {}, field_errors: {} } };
    return { status: 200, payload: { rev: log.rev } };
  }
  if (path === '/events/unsubscribe') return { status: 204, payload: null };
  if (path === '/events/poll') {
    const cursor = open.payload.cursors[TOPIC];
    const at = log.events.findIndex((event) => event.prev === cursor);
    const events = cursor === null || cursor === log.rev ? [] : at < 0 ? null : log.events.slice(at);
    return { status: 200, payload: { topics: { [TOPIC]: { rev: log.rev, events } }, poll_after_ms: 0 } };
  }
  return { status: 404, payload: null };
};

/** Appends an event to the log and pushes it on `socket` (unless `push` is false). */
let streamId = 0;
function publish(socket, { push = true, payload } = {}) {
  const event = { rev: log.rev + 1, prev: log.rev, event: 'import_finished', version: 1, payload: payload ?? { n: log.events.length } };
  log.events.push(event);
  log.rev = event.rev;
  streamId += 2;
  if (push) {
    socket.push({
      type: 'open',
      stream: streamId,
      end: true,
      headers: { ':event': event.event, ':version': 1, ':topic': TOPIC, ':rev': event.rev, ':prev': event.prev },
      payload: event.payload,
    });
  }
  return event;
}

const paths = (path) => server.opens.filter((open) => open.frame.headers[':path'] === path);

test('a followed topic is subscribed, its pushes delivered once, in order, each stream ended at once however slow onEvent is', async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', { reconnect: { initialDelayMs: 100, jitter: 0 } });
  const socket = server.live()[0];
  const got = [];
  const release = [];
  const follower = pkg.follow(TOPIC, { peer, onEvent: (event) => new Promise((resolve) => release.push(() => resolve(got.push(event)))) });
  await clock.advance(1);
  await follower.ready;
  assert.equal(follower.mode, 'push');
  assert.equal(follower.cursor, 100, 'the subscribe answer is the cursor');
  assert.equal(paths('/events/subscribe').length, 1, 'one subscribe');
  assert.equal(paths('/events/poll').length, 0, 'no poll: the subscribe answered the cursor');
  const subscribe = paths('/events/subscribe')[0].frame;
  assert.deepEqual(subscribe.payload, { topic: TOPIC });
  assert.match(subscribe.headers['idempotency-key'], /^"[0-9a-f-]{36}"$/, 'the subscribe has its own key');

  const sent = [];
  // 150 messages in one task (undici's WebSocket dispatches a chunk's messages so): more than the
  // 100 remote streams muxws admits at once, were the pushed streams not ended as they come
  for (let i = 0; i < 150; i++) sent.push(publish(socket));
  await clock.advance(1);
  // every pushed stream ended (the implicit end) before any onEvent returned; nothing refused
  const ended = socket.sent.filter((frame) => frame.type === 'data' && frame.end && frame.stream % 2 === 0);
  assert.equal(ended.length, 150, 'each push stream ended at once');
  assert.equal(socket.sent.filter((frame) => frame.type === 'reset').length, 0, 'no push refused');
  while (release.length) {
    release.shift()();
    await clock.advance(1);
  }
  assert.deepEqual(got.map((event) => event.rev), sent.map((event) => event.rev), 'every push once, in order');
  assert.ok(got.every((event, i) => event.via === 'push' && event.prev === (i ? got[i - 1].rev : 100)), 'via push, prev the rev before');
  // a push at or below the cursor, and one again, are dropped
  socket.push({ type: 'open', stream: (streamId += 2), end: true, headers: { ':event': 'x', ':version': 1, ':topic': TOPIC, ':rev': sent[3].rev, ':prev': sent[2].rev } });
  await clock.advance(1);
  assert.equal(got.length, 150, 'an old push is not delivered again');
  await follower.close();
  assert.equal(paths('/events/unsubscribe').length, 1, 'close() unsubscribes');
  await peer.close({ drainMs: 0 });
});

test('a push whose prev is not the cursor: a poll from the cursor catches up, the queued pushes follow in order', async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', { reconnect: { initialDelayMs: 100, jitter: 0 } });
  const socket = server.live()[0];
  const got = [];
  const follower = pkg.follow(TOPIC, { peer, onEvent: (event) => got.push(event) });
  await clock.advance(1);
  await follower.ready;
  const polls = paths('/events/poll').length;
  const lost = publish(socket, { push: false });
  const next = publish(socket);
  await clock.advance(1);
  assert.equal(paths('/events/poll').length, polls + 1, 'one catch-up poll');
  assert.equal(paths('/events/poll').at(-1).frame.payload.cursors[TOPIC], lost.prev, 'from the cursor held');
  assert.deepEqual(got.map((event) => [event.rev, event.via]), [[lost.rev, 'poll'], [next.rev, 'push']], 'the lost one by the poll, then the next as it was pushed, once each');
  const after = publish(socket);
  await clock.advance(1);
  assert.deepEqual(got.at(-1).via, 'push', 'then by push again');
  assert.equal(got.at(-1).rev, after.rev);
  assert.equal(paths('/events/poll').length, polls + 1, 'no other poll');
  await follower.close();
  await peer.close({ drainMs: 0 });
});

test('a socket lost: poll mode; the new socket is subscribed again with a new key, and a poll catches up what it missed', async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', { reconnect: { initialDelayMs: 100, jitter: 0 } });
  const first = server.live()[0];
  const got = [];
  const follower = pkg.follow(TOPIC, { peer, onEvent: (event) => got.push(event) });
  await clock.advance(1);
  await follower.ready;
  const subscribes = paths('/events/subscribe').length;
  first.drop();
  await clock.advance(1);
  assert.equal(follower.mode, 'poll', 'between sockets');
  const missed = [publish(first, { push: false }), publish(first, { push: false })];
  await clock.advance(200);
  assert.equal(server.live().length, 1, 'redialled');
  assert.notEqual(server.live()[0], first);
  const again = paths('/events/subscribe').slice(subscribes);
  assert.equal(again.length, 1, 'subscribed again');
  assert.equal(again[0].socket, server.live()[0], 'on the new socket');
  assert.notEqual(again[0].frame.headers['idempotency-key'], paths('/events/subscribe')[subscribes - 1].frame.headers['idempotency-key'], 'with a new key');
  assert.deepEqual(got.map((event) => event.rev), missed.map((event) => event.rev), 'the missed events, by the catch-up poll');
  assert.equal(follower.mode, 'push', 'pushes flow again');
  await follower.close();
  await peer.close({ drainMs: 0 });
});

test('a subscribe refused with 403: onRefused, mode refused, ready rejects; a 503 is asked again later', async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', { reconnect: { initialDelayMs: 100, jitter: 0 } });
  refuseWith = 503;
  const refusals = [];
  const follower = pkg.follow(TOPIC, { peer, onRefused: (error) => refusals.push(error) });
  const subscribes = paths('/events/subscribe').length;
  await clock.advance(1);
  assert.equal(follower.mode, 'poll', 'not pushing while the subscribe is refused for now');
  refuseWith = 403;
  await clock.advance(1000);
  assert.equal(paths('/events/subscribe').length, subscribes + 2, 'asked again after a second');
  assert.equal(refusals.length, 1);
  assert.equal(refusals[0].status, 403);
  assert.equal(refusals[0].detailCode, 'fastapi-viewsets.event_topic_refused');
  assert.equal(follower.mode, 'refused');
  // meanwhile it followed by poll: its first poll's answer gave the cursor, so ready had resolved
  await follower.ready;
  assert.equal(follower.cursor, log.rev, 'the poll held the cursor while the subscribe was refused for now');
  refuseWith = null;
  await peer.close({ drainMs: 0 });
});

test('a peer closed for good: the follower polls over REST at its origin, the events go on', async () => {
  const fetched = installFetch((request) => {
    const cursor = JSON.parse(request.text).cursors[TOPIC];
    const at = log.events.findIndex((event) => event.prev === cursor);
    return { status: 200, body: { topics: { [TOPIC]: { rev: log.rev, events: cursor === log.rev ? [] : log.events.slice(at) } }, poll_after_ms: 0 } };
  });
  try {
    const peer = await pkg.connectMuxws('wss://events.test:8443/ws', { reconnect: { initialDelayMs: 100, jitter: 0 } });
    const got = [];
    const follower = pkg.follow(TOPIC, { peer, pollIntervalMs: 500, onEvent: (event) => got.push(event) });
    await clock.advance(1);
    await follower.ready;
    await peer.close({ drainMs: 0 });
    await clock.advance(1);
    assert.equal(follower.mode, 'poll', 'no more pushes');
    const later = publish(server.sockets.at(-1), { push: false });
    await clock.advance(600);
    assert.ok(fetched.requests.length >= 1, 'polled over REST');
    assert.equal(fetched.requests[0].url, 'https://events.test:8443/events/poll', "at the peer's origin");
    assert.deepEqual(got.map((event) => [event.rev, event.via]), [[later.rev, 'poll']], 'the event after the close, by poll');
    await follower.close();
  } finally {
    fetched.uninstall();
  }
});

test('two channels on one peer follow the same topic: the first to close leaves the socket subscribed for the other', async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', { reconnect: { initialDelayMs: 100, jitter: 0 } });
  const socket = server.live()[0];
  const a = [];
  const b = [];
  const first = pkg.follow(TOPIC, { peer, onEvent: (event) => a.push(event) });
  // a lazy peer option: a channel of its own on the same peer
  const second = pkg.follow(TOPIC, { peer: () => peer, onEvent: (event) => b.push(event) });
  await clock.advance(1);
  await Promise.all([first.ready, second.ready]);
  const unsubscribes = paths('/events/unsubscribe').length;
  await first.close();
  assert.equal(paths('/events/unsubscribe').length, unsubscribes, 'no unsubscribe while another follows the topic on that socket');
  const event = publish(socket);
  await clock.advance(1);
  assert.deepEqual(b.map((got) => [got.rev, got.via]), [[event.rev, 'push']], 'the other still gets pushes');
  assert.equal(a.length, 0);
  await second.close();
  assert.equal(paths('/events/unsubscribe').length, unsubscribes + 1, 'the last one unsubscribes');
  await peer.close({ drainMs: 0 });
});

test('two scopes of one topic on one peer: the socket holds one subscription, the other scope polls and never gets a foreign push', async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', { reconnect: { initialDelayMs: 100, jitter: 0 } });
  const socket = server.live()[0];
  const answer = server.answer;
  // the scope is the caller's x-org header, as the test backend's /scoped resolves it
  server.answer = (open) =>
    open.headers[':path'] === '/events/subscribe' ? { status: 200, payload: { rev: log.rev, scope: open.headers['x-org'] } } : answer(open);
  const Api = pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]);
  const org7 = new Api({ basePath: '/scoped', peer, schemaCheck: false, headers: { 'X-Org': '7' } });
  const org8 = new Api({ basePath: '/scoped', peer, schemaCheck: false, headers: { 'X-Org': '8' } });
  const seen7 = [];
  const seen8 = [];
  const f7 = org7.watch({ pollIntervalMs: 60_000, onChange: (change, event) => seen7.push(event) });
  await clock.advance(1);
  const f8 = org8.watch({ pollIntervalMs: 60_000, onChange: (change, event) => seen8.push(event) });
  await clock.advance(1);
  await Promise.all([f7.ready, f8.ready]);
  assert.equal(f8.mode, 'push', 'the last subscribe holds the socket');
  assert.equal(f7.mode, 'poll', 'the replaced scope polls');
  socket.push({ type: 'open', stream: (streamId += 2), end: true, headers: { ':event': 'records_changed', ':version': 1, ':topic': '/scoped', ':rev': log.rev + 1, ':prev': log.rev, ':scope': '8' }, payload: { op: 'created', changes: [{ pk: 1 }] } });
  await clock.advance(1);
  assert.deepEqual(seen8.map((event) => [event.scope, event.via]), [['8', 'push']], "org 8's own event");
  assert.equal(seen7.length, 0, "org 7 never gets org 8's push");
  assert.equal(f7.scope, '7');
  server.answer = answer;
  await f7.close();
  await f8.close();
  await peer.close({ drainMs: 0 });
});

test('closed while its subscribe is under way: once answered, the socket is unsubscribed', async () => {
  const peer = await pkg.connectMuxws('ws://events.test/ws', { reconnect: { initialDelayMs: 100, jitter: 0 } });
  const socket = server.live()[0];
  const answer = server.answer;
  server.answer = (open) => (open.headers[':path'] === '/events/subscribe' ? 'drop' : answer(open));
  const follower = pkg.follow(TOPIC, { peer });
  await clock.advance(1);
  const subscribe = paths('/events/subscribe').at(-1).frame;
  const unsubscribes = paths('/events/unsubscribe').length;
  await follower.close();
  assert.equal(paths('/events/unsubscribe').length, unsubscribes, 'nothing to unsubscribe yet');
  server.answer = answer;
  server.reply(socket, subscribe.stream, { status: 200, payload: { rev: log.rev } });
  await clock.advance(1);
  assert.equal(paths('/events/unsubscribe').length, unsubscribes + 1, 'the late answer is followed by an unsubscribe');
  await peer.close({ drainMs: 0 });
});
