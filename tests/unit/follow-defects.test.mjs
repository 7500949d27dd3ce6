// The follower's defects that issue 27 measured on c7ef532, each against a hostile server of the
// suite's own (the scripted fake fetch and muxws server, the fake clock; no backend), each failing
// on that build (VIEWSETS_PKG=<its pkg>/index.js) and passing on this one:
//   - queued pushes capped by bytes, not by count (4 460 pushes of 1 MB ran the process out of memory);
//   - applyChanges() with 10 000 pks: a few retrieves in flight, not 10 000 at once; the first failure stops it;
//   - an answer over the peer's maxPayloadBytes: a resync, not the same poll for ever;
//   - polls that fail (500 pages): follower.error, ready and catchUp() settle, subscribe() told;
//   - pushed streams the server never ends: their slots reclaimed, later pushes still arrive;
//   - one topic's hung poll does not hold another topic of the same origin;
//   - a storm of `events: null` backs off;
//   - applyChanges() checks the pk a retrieve answers, and compares pks by value (an object pk, since
//     issue 36, is refused: follow-promises.test.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { installFetch } from './fake-fetch.mjs';
import { followKit, peerOptions, topicLog } from './follow-kit.mjs';
import { muxwsSetup, restItems } from './kit.mjs';

const { clock, server, pkg } = await muxwsSetup();
console.warn = console.error = () => {};

const { serveLogs, push, within } = followKit({ clock, server });

test('queued pushes are capped by bytes: 400 pushes of 60 KB (24 MB) while onEvent is held are not all kept; the follower resyncs', async () => {
  const log = topicLog(1000, 1000);
  serveLogs({ big: log });
  // frames as large as the catch-up answer (the scripted server does not fragment): what is capped here is the follower's queue
  const peer = await pkg.connectMuxws('ws://events.test/ws', { ...peerOptions, maxFrameBytes: 32 * 1024 * 1024 });
  const socket = server.live()[0];
  let release;
  const held = new Promise((resolve) => (release = resolve));
  const got = [];
  const resyncs = [];
  const follower = pkg.follow('big', { peer, checkIntervalMs: 600_000, onEvent: (event) => (got.push(event.via), got.length === 1 ? held : undefined), onResync: (info) => resyncs.push(info.rev) });
  try {
    await within(follower.ready);
    const blob = 'x'.repeat(60 * 1024);
    for (let i = 0; i < 400; i++) push(socket, 'big', log.publish({ blob }));
    await clock.advance(1);
    release();
    await clock.advance(100);
    await within(follower.catchUp());
    assert.equal(follower.cursor, log.rev, 'caught up to the last rev');
    const pushed = got.filter((via) => via === 'push').length;
    assert.ok(pushed < 400, `not all 24 MB kept and handed out by push (${pushed} by push)`);
    assert.deepEqual(resyncs, [log.rev], 'the pushes past 16 MiB dropped, and the catch-up answer (the same 24 MB) a resync');
  } finally {
    await within(follower.close());
    await within(peer.close({ drainMs: 0 }));
  }
});

test('applyChanges() with 10 000 pks: at most 8 retrieves in flight, every record read once; the first failure rejects and stops it', async () => {
  let inFlight = 0;
  let most = 0;
  let failAt = -1;
  const seen = [];
  const fetched = installFetch((request) => {
    // the schema (whether its list takes id__in): not found, so retrieves
    if (request.url.endsWith('/schema')) return { status: 404, body: { detail: 'no schema' } };
    const pk = Number(request.url.split('/').at(-1));
    seen.push(pk);
    inFlight++;
    most = Math.max(most, inFlight);
    setTimeout(() => {
      inFlight--;
      request.respond(pk === failAt ? { status: 500, body: { detail: 'no' } } : { status: 200, body: { id: pk, name: `r${pk}` } });
    }, 1);
    return undefined;
  });
  try {
    const items = restItems(pkg, { repeat: { withinMs: 0 } });
    const pks = Array.from({ length: 10_000 }, (_, i) => i + 1);
    let rows;
    items.applyChanges([], { op: 'created', changes: pks.map((pk) => ({ pk })) }).then((value) => (rows = value), (error) => (rows = error));
    for (let i = 0; i < 5000 && rows === undefined; i++) await clock.advance(1);
    assert.equal(rows.length, 10_000, 'every record');
    assert.equal(new Set(seen).size, 10_000, 'each read once');
    assert.ok(most <= 8, `at most 8 in flight (${most})`);
    seen.length = 0;
    failAt = 20;
    const failing = items.applyChanges([], { op: 'updated', changes: pks.map((pk) => ({ pk })) }).then(
      () => 'resolved',
      (error) => error.status,
    );
    assert.equal(await within(failing, 2000, 1), 500, 'the 500 rejects the call');
    assert.ok(seen.length < 40, `no retrieve starts after the failure (${seen.length} sent)`);
  } finally {
    fetched.uninstall();
  }
});

test("an answer over the peer's maxPayloadBytes is a resync, not the same poll for ever", async () => {
  const log = topicLog();
  serveLogs({ wide: log });
  const peer = await pkg.connectMuxws('ws://events.test/ws', { ...peerOptions, maxPayloadBytes: 64 * 1024 });
  const socket = server.live()[0];
  const resyncs = [];
  const got = [];
  const follower = pkg.follow('wide', { peer, checkIntervalMs: 600_000, onEvent: (event) => got.push(event.rev), onResync: (info) => resyncs.push(info.rev) });
  try {
    await within(follower.ready);
    const wide = 'w'.repeat(20 * 1024);
    // five events of 20 KB, none pushed: the catch-up poll's answer is 100 KB, over the cap
    for (let i = 0; i < 5; i++) log.publish({ wide });
    push(socket, 'wide', log.publish({ small: 1 }));
    for (let i = 0; i < 30 && !resyncs.length; i++) await clock.advance(1000);
    assert.deepEqual(resyncs, [log.rev], 'a resync to the rev the poll from now answered');
    assert.equal(follower.cursor, log.rev);
    const polls = server.opens.filter((open) => open.frame.headers[':path'] === '/events/poll').length;
    await clock.advance(20_000);
    assert.equal(server.opens.filter((open) => open.frame.headers[':path'] === '/events/poll').length, polls, 'the poll over the cap is not sent again');
  } finally {
    await within(follower.close());
    await within(peer.close({ drainMs: 0 }));
  }
});

test('polls that fail (500 pages): follower.error says why, ready and catchUp() reject, subscribe() is told the recovery', async () => {
  let broken = true;
  const log = topicLog();
  const fetched = installFetch((request) =>
    broken
      ? { status: 500, body: '<html>Internal Server Error</html>', headers: { 'content-type': 'text/html' } }
      : { status: 200, body: { topics: { flaky: log.answer(JSON.parse(request.text).cursors.flaky) }, poll_after_ms: 0 } },
  );
  const follower = pkg.follow('flaky', { baseUrl: 'http://events.test', pollIntervalMs: 1000 });
  const told = [];
  follower.subscribe((f) => told.push([f.mode, f.cursor, f.error ? 'error' : 'ok']));
  try {
    const ready = follower.ready.then(() => 'resolved', () => 'rejected');
    assert.equal(await within(ready, 30_000, 1000), 'rejected', 'ready settles: the first poll failed');
    assert.ok(follower.error instanceof Error, 'follower.error says why');
    const caught = follower.catchUp().then(() => 'resolved', () => 'rejected');
    assert.equal(await within(caught, 30_000, 1000), 'rejected', "catchUp() of a poll that failed rejects");
    broken = false;
    for (let i = 0; i < 70 && follower.cursor === null; i++) await clock.advance(1000);
    assert.equal(follower.cursor, log.rev, 'the next answer gives the cursor');
    assert.equal(follower.error, undefined, 'and clears the error');
    assert.deepEqual(told.at(-1), ['poll', log.rev, 'ok'], 'subscribe() was told the recovery');
    assert.ok(told.some(([, , error]) => error === 'error'), 'and the failure before it');
  } finally {
    await within(follower.close());
    fetched.uninstall();
  }
});

test('pushed streams the server never ends: their slots are reclaimed, a later push still arrives by push', async () => {
  const log = topicLog();
  serveLogs({ slots: log });
  const peer = await pkg.connectMuxws('ws://events.test/ws', peerOptions);
  const socket = server.live()[0];
  const got = [];
  const follower = pkg.follow('slots', { peer, checkIntervalMs: 600_000, onEvent: (event) => got.push(event) });
  try {
    await within(follower.ready);
    // 100 pushes whose stream the server never ends: the 100 remote streams muxws admits at once
    for (let i = 0; i < 100; i++) push(socket, 'slots', log.publish({ i }), false);
    await clock.advance(1);
    assert.equal(got.length, 100, 'the 100 handed out');
    await clock.advance(6000);
    const later = log.publish({ later: true });
    push(socket, 'slots', later);
    await clock.advance(1);
    assert.deepEqual(got.at(-1) && [got.at(-1).rev, got.at(-1).via], [later.rev, 'push'], 'the later push arrives by push, at once');
    assert.equal(follower.mode, 'push');
  } finally {
    await within(follower.close());
    await within(peer.close({ drainMs: 0 }));
  }
});

test("one topic's hung poll does not hold another topic of the same origin", async () => {
  const logs = { stuck: topicLog(), free: topicLog() };
  const fetched = installFetch((request) => {
    const { cursors } = JSON.parse(request.text);
    // every poll that carries `stuck` hangs (a slow authorizer, a lock)
    if ('stuck' in cursors) return undefined;
    return { status: 200, body: { topics: Object.fromEntries(Object.entries(cursors).map(([topic, cursor]) => [topic, logs[topic].answer(cursor)])), poll_after_ms: 0 } };
  });
  const got = [];
  const stuck = pkg.follow('stuck', { baseUrl: 'http://events.test', pollIntervalMs: 1000 });
  const free = pkg.follow('free', { baseUrl: 'http://events.test', pollIntervalMs: 1000, onEvent: (event) => got.push([event.rev, clock.now()]) });
  try {
    await clock.advance(1);
    const published = logs.free.publish({ n: 1 });
    const at = clock.now();
    // the first poll carried both topics and hangs; it is abandoned at its deadline, and `free` is polled alone
    for (let i = 0; i < 40 && !got.length; i++) await clock.advance(1000);
    assert.equal(got[0]?.[0], published.rev, 'the free topic gets its event');
    assert.ok(got[0][1] - at <= 20_000, `within the poll's deadline and an interval (${got[0][1] - at} ms)`);
    const next = logs.free.publish({ n: 2 });
    const then = clock.now();
    for (let i = 0; i < 10 && got.length < 2; i++) await clock.advance(500);
    assert.equal(got[1]?.[0], next.rev);
    assert.ok(got[1][1] - then <= 2000, `then at its interval (${got[1][1] - then} ms)`);
  } finally {
    await within(stuck.close());
    await within(free.close());
    fetched.uninstall();
  }
});

test('a storm of events: null backs off', async () => {
  let polls = 0;
  const fetched = installFetch(() => {
    polls++;
    return { status: 200, body: { topics: { storm: { rev: 5000 + polls, events: null } }, poll_after_ms: 0 } };
  });
  const resyncs = [];
  const follower = pkg.follow('storm', { baseUrl: 'http://events.test', from: 1, pollIntervalMs: 1000, onResync: (info) => resyncs.push(info.rev) });
  try {
    for (let i = 0; i < 120; i++) await clock.advance(1000);
    assert.ok(resyncs.length >= 3, `it resyncs (${resyncs.length})`);
    assert.ok(polls <= 20, `in 120 s, ${polls} polls: backed off, not one a second`);
  } finally {
    await within(follower.close());
    fetched.uninstall();
  }
});

test('applyChanges() checks the pk a retrieve answers, and compares pks by value', async () => {
  const fetched = installFetch((request) => {
    const pk = decodeURIComponent(request.url.split('/').at(-1));
    // a server that answers another record for pk 7
    return { status: 200, body: { id: pk === '7' ? 8 : Number(pk), name: `r${pk}` } };
  });
  try {
    const items = restItems(pkg, { repeat: { withinMs: 0 } });
    const rows = [{ id: 8, name: 'eight' }];
    const error = await within(items.applyChanges(rows, { op: 'updated', changes: [{ pk: 7 }] }).then(() => 'resolved', (failure) => failure), 1000, 10);
    assert.ok(error instanceof TypeError && /answered a record/.test(error.message), `a record of another pk rejects (${error})`);
    // pks by value: '1' (a string) and 1 (a number) are different rows
    const mixed = [{ id: '1', name: 'string one' }];
    assert.deepEqual(await within(items.applyChanges(mixed, { op: 'deleted', changes: [{ pk: 1 }] }), 1000, 10), mixed, "deleting 1 leaves the row of '1'");
    // an object is no pk (a path segment): refused, never "[object Object]" for every such row (issue 36)
    class Composite extends pkg.restViewSet()('key', [pkg.ViewSetMixin]) {}
    const composite = new Composite({ basePath: '/c', baseUrl: 'http://api.test', schemaCheck: false });
    const objects = [{ key: { a: 1, b: 2 }, n: 1 }, { key: { a: 2, b: 1 }, n: 2 }];
    const refused = await within(composite.applyChanges(objects, { op: 'deleted', changes: [{ pk: { b: 2, a: 1 } }] }).then(() => 'resolved', (failure) => failure), 1000, 10);
    assert.ok(refused instanceof TypeError, `an object pk is refused (${refused})`);
  } finally {
    fetched.uninstall();
  }
});
