// The follower's promises of issue 36 (§2, §3, §4), each against a hostile server of the suite's own
// (the scripted muxws server and fake fetch, the fake clock; no backend), each failing on the
// package of the branch point (VIEWSETS_PKG=<its pkg>/index.js) and passing on this one:
//   - a follower closed at once (follow() then close(), 0 ms) unsubscribes: a subscribe under way is
//     answered, then undone;
//   - a rev that goes back is a resync (onResync and the new cursor), not a permanent stop: a push
//     that moved the cursor to 2^53-1 is repaired as the next push comes (a push below the cursor
//     asks a poll, once per cursor), a store that lost its log by the next poll, and so is an
//     answer whose rev is below the cursor;
//   - a subscribe never answered: the follower polls meanwhile, at its poll interval;
//   - a poll_after_ms holds only the follower it was given to, and catchUp() polls now;
//   - a pushed stream the server never ends: while the peer holds so many that its next pushes may
//     be refused, its followers poll at their poll interval (a new event waits no check poll);
//   - applyChanges(): a pk that cannot be a pk is refused before anything is sent, integers compared
//     exactly (a number past 2^53 refused, a bigint equal to its number); 10 000 records read by a
//     few `{pk}__in` list calls where the schema declares it, the reads still bounded.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { installFetch } from './fake-fetch.mjs';
import { followKit, peerOptions, topicLog } from './follow-kit.mjs';
import { muxwsSetup, restItems } from './kit.mjs';

const { clock, server, pkg } = await muxwsSetup();
console.warn = console.error = () => {};

const { serveLogs, push, within } = followKit({ clock, server }, { firstStream: 5000 });
const paths = (path) => server.opens.filter((open) => open.frame.headers[':path'] === path);

/** Advances fake time in steps of `step` until `check()` holds, at most `ms`; the time it took. */
async function until(check, ms, what, step = 100) {
  const started = clock.now();
  while (!check()) {
    if (clock.now() - started > ms) assert.fail(`${what}: not within ${ms} ms of fake time`);
    await clock.advance(step);
  }
  return clock.now() - started;
}

test('§2 follow() then close() at once, 20 topics, the subscribes answered after: 20 subscribes and 20 unsubscribes; the socket holds none of them', async () => {
  const held = new Set();
  // the subscribes are answered a little later, as over a network: after every close() was called
  const answers = [];
  server.answer = (open, socket) => {
    const path = open.headers[':path'];
    const topic = open.payload?.topic;
    if (path === '/events/subscribe') {
      held.add(topic);
      answers.push(() => server.reply(socket, open.stream, { status: 200, payload: { rev: 1000 } }));
      return 'drop';
    }
    if (path === '/events/unsubscribe') return held.delete(topic), { status: 204, payload: null };
    return { status: 404, payload: null };
  };
  const peer = await pkg.connectMuxws('ws://events.test/ws', peerOptions);
  const subscribes = paths('/events/subscribe').length;
  const unsubscribes = paths('/events/unsubscribe').length;
  try {
    for (let i = 0; i < 20; i++) {
      const follower = pkg.follow(`early.${i}`, { peer });
      await follower.close();
    }
    await clock.advance(1);
    for (const answer of answers.splice(0)) answer();
    await clock.advance(100);
    assert.equal(paths('/events/subscribe').length - subscribes, 20, '20 subscribes');
    assert.equal(paths('/events/unsubscribe').length - unsubscribes, 20, 'each undone by its unsubscribe');
    assert.deepEqual([...held], [], 'the socket holds none of them');
    // and a follower of after is subscribed and served as usual
    const later = pkg.follow('early.later', { peer });
    await clock.advance(1);
    for (const answer of answers.splice(0)) answer();
    await within(later.ready);
    assert.equal(later.mode, 'push');
    await later.close();
    await clock.advance(10);
    assert.deepEqual([...held], []);
    // a subscribe whose answer is a failure that refuses nothing (503: the server may have
    // subscribed the socket all the same), its follower closed meanwhile: undone by an unsubscribe
    const before = paths('/events/unsubscribe').length;
    for (let i = 0; i < 5; i++) await pkg.follow(`lost.${i}`, { peer }).close();
    await clock.advance(1);
    for (const open of paths('/events/subscribe').slice(-5)) server.reply(open.socket, open.frame.stream, { status: 503, payload: { detail: 'busy' } });
    await clock.advance(100);
    assert.equal(paths('/events/unsubscribe').length - before, 5, 'each undone by an unsubscribe');
    assert.deepEqual([...held], []);
  } finally {
    await within(peer.close({ drainMs: 0 }));
  }
});

test('§3 a push that moved the cursor to 2^53-1 is repaired as the next push comes (a poll from the cursor), not left to the check poll: one onResync to the server\'s rev, later events delivered', async () => {
  const log = topicLog();
  serveLogs({ far: log });
  const peer = await pkg.connectMuxws('ws://events.test/ws', peerOptions);
  const socket = server.live()[0];
  const got = [];
  const resyncs = [];
  const follower = pkg.follow('far', { peer, checkIntervalMs: 600_000, onEvent: (event) => got.push(event.rev), onResync: (info) => resyncs.push(info) });
  try {
    await within(follower.ready);
    assert.equal(follower.cursor, 1000);
    // a hostile push: the next link of the chain, with a rev no log of the server holds
    push(socket, 'far', { rev: 2 ** 53 - 1, prev: 1000, event: 'records_changed', payload: null });
    await clock.advance(1);
    assert.equal(follower.cursor, 2 ** 53 - 1, 'it took the push');
    const real = log.publish({ n: 1 });
    push(socket, 'far', real);
    // the real push is below the cursor: a poll from it, whose answer (events: null) is the resync
    await until(() => resyncs.length > 0, 2000, 'a resync', 10);
    assert.deepEqual(resyncs, [{ topic: 'far', rev: real.rev }], "one resync, to the server's rev");
    assert.equal(follower.cursor, real.rev, "the cursor is the server's rev again");
    assert.equal(follower.error, undefined, 'no error stays');
    const next = log.publish({ n: 2 });
    push(socket, 'far', next);
    await clock.advance(1);
    assert.equal(got.at(-1), next.rev, 'a later event is delivered by push');
    assert.equal(follower.mode, 'push');
  } finally {
    await within(follower.close());
    await within(peer.close({ drainMs: 0 }));
  }
});

test('§3 a store that lost its log (revs start again below the cursor): a resync to the new rev, not errors with backoff', async () => {
  let log = topicLog(5000);
  const fetched = installFetch((request) => ({ status: 200, body: { topics: { wiped: log.answer(JSON.parse(request.text).cursors.wiped) }, poll_after_ms: 0 } }));
  const got = [];
  const resyncs = [];
  const follower = pkg.follow('wiped', { baseUrl: 'http://events.test', pollIntervalMs: 1000, onEvent: (event) => got.push(event.rev), onResync: (info) => resyncs.push(info.rev) });
  try {
    await within(follower.ready);
    assert.equal(follower.cursor, 5000);
    // the server's store is wiped: its revs start again at 12
    log = topicLog(12);
    await until(() => resyncs.length > 0, 5000, 'a resync');
    assert.deepEqual(resyncs, [12], 'a resync to the rev the server holds now');
    assert.equal(follower.cursor, 12);
    assert.equal(follower.error, undefined, 'no error');
    const event = log.publish({ after: true });
    await until(() => got.includes(event.rev), 5000, 'the next event');
    // an answer whose rev is below the cursor it was asked from, with no events: a resync too
    log.rev = 3;
    log.kept = [];
    await until(() => resyncs.length > 1, 5000, 'a second resync');
    assert.deepEqual(resyncs, [12, 3]);
    assert.equal(follower.cursor, 3);
  } finally {
    await within(follower.close());
    fetched.uninstall();
  }
});

test('§3 an answer whose rev is below the cursor it was asked from ({rev, events: []}) is a resync, not a cursor held above every later event', async () => {
  let answer = null;
  const fetched = installFetch((request) => {
    const cursor = JSON.parse(request.text).cursors.low;
    return { status: 200, body: { topics: { low: answer ?? { rev: cursor ?? 900, events: [] } }, poll_after_ms: 0 } };
  });
  const resyncs = [];
  const got = [];
  const follower = pkg.follow('low', { baseUrl: 'http://events.test', pollIntervalMs: 60_000, onEvent: (event) => got.push(event.rev), onResync: (info) => resyncs.push(info.rev) });
  try {
    await within(follower.ready);
    assert.equal(follower.cursor, 900);
    answer = { rev: 40, events: [] };
    await within(follower.catchUp());
    assert.deepEqual(resyncs, [40]);
    assert.equal(follower.cursor, 40);
    answer = { rev: 41, events: [{ rev: 41, prev: 40, event: 'x', version: 1, payload: null }] };
    await within(follower.catchUp());
    assert.deepEqual(got, [41], 'the event after it is delivered');
  } finally {
    await within(follower.close());
    fetched.uninstall();
  }
});

test('§3 a subscribe never answered: the follower polls meanwhile (ready by poll within its poll interval), and takes push once it is answered', async () => {
  const log = topicLog();
  let hold = true;
  serveLogs({ deaf: log }, { subscribe: () => (hold ? 'drop' : undefined) });
  const peer = await pkg.connectMuxws('ws://events.test/ws', peerOptions);
  const polls = paths('/events/poll').length;
  const got = [];
  const follower = pkg.follow('deaf', { peer, pollIntervalMs: 2000, onEvent: (event) => got.push([event.rev, event.via]) });
  try {
    const took = await until(() => follower.cursor !== null, 5000, 'a cursor by poll');
    assert.ok(took <= 2500, `within the poll interval (${took} ms)`);
    await within(follower.ready, 1000);
    assert.equal(follower.mode, 'poll');
    assert.ok(paths('/events/poll').length > polls, 'it polled');
    const event = log.publish({ n: 1 });
    await until(() => got.length > 0, 5000, 'the event by poll');
    assert.deepEqual(got, [[event.rev, 'poll']]);
  } finally {
    hold = false;
    await within(follower.close());
    await within(peer.close({ drainMs: 0 }));
  }
});

test('§3 a poll_after_ms holds only the follower it was given to: a follower of another topic of the origin is ready at once, even after the first closed; catchUp() polls now', async () => {
  const logs = { slow: topicLog(100), quick: topicLog(200), next: topicLog(300) };
  const fetched = installFetch((request) => {
    const { cursors } = JSON.parse(request.text);
    const topics = Object.fromEntries(Object.entries(cursors).map(([topic, cursor]) => [topic, logs[topic].answer(cursor)]));
    // the server asks the followers of `slow` to wait 5 minutes
    return { status: 200, body: { topics, poll_after_ms: 'slow' in cursors ? 300_000 : 0 } };
  });
  const base = { baseUrl: 'http://events.test', pollIntervalMs: 1000 };
  const slow = pkg.follow('slow', base);
  try {
    await within(slow.ready, 2000);
    const quick = pkg.follow('quick', base);
    await within(quick.ready, 2000, 100, "another topic's ready");
    await within(quick.close());
    await within(slow.close());
    const slow2 = pkg.follow('slow', base);
    await within(slow2.ready, 2000);
    await within(slow2.close());
    const next = pkg.follow('next', base);
    await within(next.ready, 2000, 100, 'ready of a follower after the first closed');
    await within(next.close());
    // catchUp() polls now, the floor notwithstanding
    const held = pkg.follow('slow', base);
    await within(held.ready, 2000);
    const event = logs.slow.publish({ n: 1 });
    await within(held.catchUp(), 1000, 100, 'catchUp()');
    assert.equal(held.cursor, event.rev, 'caught up');
    await within(held.close());
  } finally {
    fetched.uninstall();
  }
});

test('§3 pushed streams the server never ends: while the peer holds so many, a new event (its push refused) comes by poll within the poll interval, not the check poll; push again once reclaimed', async () => {
  const log = topicLog();
  serveLogs({ open: log });
  const peer = await pkg.connectMuxws('ws://events.test/ws', peerOptions);
  const socket = server.live()[0];
  const got = [];
  const follower = pkg.follow('open', { peer, pollIntervalMs: 2000, onEvent: (event) => got.push([event.rev, event.via]) });
  try {
    await within(follower.ready);
    assert.equal(follower.mode, 'push');
    // 100 pushes whose stream the server never ends: every remote stream the peer admits at once
    for (let i = 0; i < 100; i++) push(socket, 'open', log.publish({ i }), false);
    await clock.advance(1);
    assert.equal(got.length, 100, 'the 100 handed out');
    assert.equal(follower.mode, 'poll', 'its pushes may be refused: poll mode');
    await clock.advance(500);
    const later = log.publish({ later: true });
    push(socket, 'open', later);
    const took = await until(() => got.some(([rev]) => rev === later.rev), 5000, 'the refused push by poll');
    assert.ok(took <= 2500, `by poll within the poll interval (${took} ms)`);
    // the held streams reset and reclaimed: push again
    await until(() => follower.mode === 'push', 10_000, 'push mode again');
    const last = log.publish({ last: true });
    push(socket, 'open', last);
    await clock.advance(1);
    assert.deepEqual(got.at(-1), [last.rev, 'push']);
  } finally {
    await within(follower.close());
    await within(peer.close({ drainMs: 0 }));
  }
});

test('§3 applyChanges(): a pk that cannot be a pk is refused before anything is sent; integers compared exactly', async () => {
  const fetched = installFetch((request) => ({ status: 200, body: { id: Number(request.url.split('/').at(-1)), name: 'read' } }));
  try {
    const items = restItems(pkg, { repeat: { withinMs: 0 } });
    for (const pk of [{ id: 1 }, [1], null, true, 1.5, Number.NaN, 2 ** 53 + 1, -(2 ** 53), '', '.', '..']) {
      for (const op of ['created', 'updated', 'deleted']) {
        const outcome = await within(items.applyChanges([{ id: 2 ** 53, name: 'neighbour' }], { op, changes: [{ pk: 3 }, { pk }] }).then((rows) => rows, (error) => error), 1000, 10);
        assert.ok(outcome instanceof TypeError, `${op} ${String(pk)}: a TypeError (${JSON.stringify(outcome)})`);
      }
    }
    assert.equal(fetched.requests.length, 0, 'nothing was sent');
    // a bigint and its safe number are one pk; past 2^53 a bigint is compared exactly
    const own = {
      pkFieldName: 'id',
      retrieve: (pk) => Promise.resolve({ id: pk, name: 'new' }),
    };
    const apply = items.applyChanges;
    assert.deepEqual(await apply.call(own, [{ id: 5, name: 'old' }], { op: 'updated', changes: [{ pk: 5n }] }), [{ id: 5n, name: 'new' }], '5n is the row of 5');
    const big = [{ id: 2n ** 53n, name: 'neighbour' }];
    assert.deepEqual(await apply.call(own, big, { op: 'created', changes: [{ pk: 2n ** 53n + 1n }] }), [...big, { id: 2n ** 53n + 1n, name: 'new' }], 'its neighbour is left as it was');
    assert.deepEqual(await apply.call(own, big, { op: 'deleted', changes: [{ pk: '9007199254740992' }] }), big, "a string is not the bigint's row");
  } finally {
    fetched.uninstall();
  }
});

test('§4 applyChanges() of 10 000 records where the schema declares {pk}__in: a few list calls, at most 8 in flight, no retrieve; every record once', async () => {
  let inFlight = 0;
  let most = 0;
  const lists = [];
  const retrieves = [];
  const fetched = installFetch((request) => {
    const url = new URL(request.url);
    if (url.pathname === '/items/schema') {
      return { status: 200, body: { paths: { '/items': { get: { parameters: [{ in: 'query', name: 'id__in' }] } }, '/items/{pk}': {} } } };
    }
    if (url.pathname !== '/items') {
      retrieves.push(url.pathname);
      return { status: 200, body: { id: Number(url.pathname.split('/').at(-1)) } };
    }
    const ids = url.searchParams.getAll('id__in').map(Number);
    lists.push({ ids, length: request.url.length });
    inFlight++;
    most = Math.max(most, inFlight);
    setTimeout(() => {
      inFlight--;
      // the last one of each list is gone meanwhile; a record nobody asked for is left out
      request.respond({ status: 200, body: [...ids.slice(0, -1).map((id) => ({ id, name: `r${id}` })), { id: 0, name: 'not asked' }] });
    }, 1);
    return undefined;
  });
  try {
    const items = restItems(pkg, { repeat: { withinMs: 0 } });
    const pks = Array.from({ length: 10_000 }, (_, i) => i + 1);
    const rows = [{ id: 1, name: 'old' }, { id: 20_000, name: 'kept' }];
    const out = await within(items.applyChanges(rows, { op: 'created', changes: pks.map((pk) => ({ pk })) }), 10_000, 1);
    assert.equal(retrieves.length, 0, 'no retrieve');
    assert.ok(lists.length <= 25, `a few list calls (${lists.length})`);
    assert.ok(most <= 8, `at most 8 in flight (${most})`);
    assert.ok(lists.every((list) => list.length < 8000), `each URL under 8000 characters (the longest ${Math.max(...lists.map((list) => list.length))})`);
    const asked = lists.flatMap((list) => list.ids);
    assert.equal(asked.length, 10_000, 'every pk asked');
    assert.equal(new Set(asked).size, 10_000, 'each once');
    const gone = new Set(lists.map((list) => list.ids.at(-1)));
    assert.equal(out.length, 2 + 9999 - gone.size, 'every record read, the row of 1 replaced, those gone left out, no record not asked');
    assert.deepEqual(out[0], { id: 1, name: 'r1' }, 'the row of 1 replaced where it stood');
    assert.deepEqual(out[1], { id: 20_000, name: 'kept' });
    assert.ok(!out.some((row) => row.id === 0), 'a record not asked for is not added');
    // a few pks: their retrieves (one round), the schema not asked again
    const schemaReads = fetched.requests.filter((request) => request.url.endsWith('/schema')).length;
    await within(items.applyChanges([], { op: 'updated', changes: [{ pk: 3 }, { pk: 4 }] }), 1000, 1);
    assert.deepEqual(retrieves, ['/items/3', '/items/4']);
    await within(items.applyChanges([], { op: 'updated', changes: pks.slice(0, 20).map((pk) => ({ pk })) }), 1000, 1);
    assert.equal(fetched.requests.filter((request) => request.url.endsWith('/schema')).length, schemaReads, 'the schema is read once per proxy');
  } finally {
    fetched.uninstall();
  }
});
