// The follower over REST on the fake clock, a scripted fake fetch and a faked online source: the
// survivors of the follower's mutation run that a REST test tells (tests/mutation/README.md, "The
// follower's survivors (89), triaged"): a catchUp() pending at close(), resyncs in a row and the
// resync to the cursor's own rev, a catchUp() during a poll that fails, back online before the
// interval, a topic twice among the followers due together, a filtered rev whose event comes
// later, a hung poll of one topic, a topic's refusal as an HttpError of no call.
import assert from 'node:assert/strict';
import { after, afterEach, test } from 'node:test';

import { flush, installClock } from './fake-clock.mjs';
import { HANG, installFetch } from './fake-fetch.mjs';
import { assertNoLeaks, importPackage } from './kit.mjs';

const handlers = new Map();
Object.defineProperty(globalThis, 'navigator', { value: { onLine: true }, configurable: true, writable: true });
globalThis.addEventListener = (type, listener) => handlers.set(type, listener);

/** The server's logs: topic -> rev (no events unless a test scripts them). */
const revs = new Map();
/** An answer of the test's own for the next poll: (body, request) => answer. */
const next = [];
const clock = installClock();
const server = installFetch((request) => {
  const body = JSON.parse(request.text);
  const own = next.shift();
  if (own) return own(body, request);
  const topics = {};
  for (const topic of Object.keys(body.cursors)) topics[topic] = { rev: revs.get(topic) ?? 100, events: [] };
  return { status: 200, body: { topics, poll_after_ms: 0 } };
});
const pkg = await importPackage();
const BASE = 'http://backend.test';
const polls = () => server.requests.map((request) => JSON.parse(request.text));
const warnings = [];
const consoleError = console.error;
console.error = (message, detail) => warnings.push([message, detail]);

after(async () => {
  await assertNoLeaks(pkg, clock);
  console.error = consoleError;
  server.uninstall();
  clock.uninstall();
  delete globalThis.addEventListener;
  delete globalThis.navigator;
});

/** Every follower a test started: closed after it, whatever it asserted (a kill shows in its own test only). */
const live = [];
const follow = (...args) => {
  const follower = pkg.follow(...args);
  live.push(follower);
  return follower;
};
afterEach(async () => {
  if (!globalThis.navigator.onLine) setOnline(true);
  for (const follower of live.splice(0)) await follower.close();
  next.length = 0;
  revs.clear();
  await clock.advance(100_000);
  server.requests.length = 0;
  warnings.length = 0;
});

function setOnline(online) {
  globalThis.navigator.onLine = online;
  handlers.get(online ? 'online' : 'offline')();
}

test('a catchUp() waiting for its poll resolves when the follower is closed (#724)', async () => {
  const follower = follow('closing', { baseUrl: BASE, pollIntervalMs: 1000 });
  await follower.ready;
  next.push(() => HANG);
  const caught = follower.catchUp();
  await flush();
  assert.equal(server.requests.length, 2, 'the catch-up poll went');
  await follower.close();
  await caught;
  assert.equal(follower.mode, 'closed');
});

test('resyncs: two in a row and one after an answer wait the interval; a resync to the rev of the cursor is a resync (#672, #632, #652)', async () => {
  const got = [];
  const follower = follow('gaps', { baseUrl: BASE, pollIntervalMs: 1000, onResync: (info) => got.push(info.rev) });
  await follower.ready;
  assert.equal(follower.cursor, 100);
  const gap = (rev) => () => ({ status: 200, body: { topics: { gaps: { rev, events: null } }, poll_after_ms: 0 } });
  const steps = [
    [gap(200), 200],
    [gap(300), 300], // the second resync in a row: still the interval (backoff(1) is at most it)
    [() => ({ status: 200, body: { topics: { gaps: { rev: 300, events: [] } }, poll_after_ms: 0 } }), undefined],
    [gap(400), 400], // the first after an answer that fitted
    [gap(400), 400], // events: null at the rev of the cursor: a resync to it, not a rev gone back
  ];
  for (const [answer, resync] of steps) {
    const before = server.requests.length;
    const last = server.requests.at(-1).at;
    next.push(answer);
    await clock.advance(999);
    assert.equal(server.requests.length, before, 'not before the interval');
    await clock.advance(1);
    assert.equal(server.requests.length, before + 1, 'a poll at the interval');
    assert.equal(server.requests.at(-1).at - last, 1000);
    await flush();
    if (resync !== undefined) assert.equal(got.at(-1), resync);
    assert.equal(follower.error, undefined);
  }
  assert.deepEqual(got, [200, 300, 400, 400]);
  assert.equal(follower.cursor, 400);
  await clock.advance(1000);
  assert.equal(server.requests.length, 7, 'and on at the interval');
});

test('a catchUp() during a poll that then fails: the next poll goes at once, not after the backoff (#824)', async () => {
  const follower = follow('again', { baseUrl: BASE, pollIntervalMs: 1000 });
  await follower.ready;
  next.push(() => HANG);
  await clock.advance(1000);
  assert.equal(server.requests.length, 2);
  const hung = server.requests[1];
  const caught = follower.catchUp();
  await flush();
  assert.equal(server.requests.length, 2, 'one poll at a time');
  hung.respond({ status: 200, body: { topics: { again: 'garbled' }, poll_after_ms: 0 } });
  await flush();
  assert.equal(server.requests.length, 3, 'the catch-up poll at once');
  assert.equal(server.requests[2].at, hung.at);
  await caught;
});

test('back online before the interval is up: a poll at once (#496, #500)', async () => {
  const follower = follow('early', { baseUrl: BASE, pollIntervalMs: 1000 });
  await follower.ready;
  const start = server.requests[0].at;
  await clock.advance(100);
  setOnline(false);
  await clock.settle();
  assert.equal(follower.mode, 'paused');
  await clock.advance(100);
  setOnline(true);
  await clock.settle();
  assert.equal(follower.mode, 'poll');
  assert.equal(server.requests.length, 2, 'a poll at once');
  assert.equal(server.requests[1].at - start, 200);
});

test('three followers due together, two of one topic: the topic once a poll (#1008)', async () => {
  setOnline(false);
  await clock.settle();
  const x = follow('x', { baseUrl: BASE, pollIntervalMs: 1000 });
  const y = follow('y', { baseUrl: BASE, pollIntervalMs: 1000 });
  const x2 = follow('x', { baseUrl: BASE, pollIntervalMs: 1000 });
  await flush();
  assert.equal(server.requests.length, 0, 'none while offline');
  setOnline(true);
  await clock.settle();
  await Promise.all([x.ready, y.ready, x2.ready]);
  assert.deepEqual(polls().map((body) => Object.keys(body.cursors).sort()), [['x', 'y'], ['x']]);
});

test("a rev the server's filters passed, its event brought by a later poll: the event is handed out (#788, #800)", async () => {
  const got = [];
  let release;
  const follower = follow('late', {
    baseUrl: BASE,
    from: 100,
    pollIntervalMs: 1000,
    onEvent: (event) => {
      got.push([event.rev, event.event]);
      if (event.rev === 101) return new Promise((resolve) => (release = resolve));
    },
  });
  // 101, then the answer's rev 103 past two filtered events: a move of the cursor queued after 101
  next.push(() => ({ status: 200, body: { topics: { late: { rev: 103, events: [{ rev: 101, prev: 100, event: 'a', version: 1, payload: 1 }] } }, poll_after_ms: 0 } }));
  await flush();
  assert.deepEqual(got, [[101, 'a']]);
  // while 101's handler runs, a poll from 101 brings 103 itself
  next.push(() => ({ status: 200, body: { topics: { late: { rev: 103, events: [{ rev: 103, prev: 101, event: 'c', version: 1, payload: 3 }] } }, poll_after_ms: 0 } }));
  const caught = follower.catchUp();
  await flush();
  assert.deepEqual(polls().at(-1).cursors, { late: 101 });
  release();
  await caught;
  await flush();
  assert.deepEqual(got, [[101, 'a'], [103, 'c']], 'the event in place of the move');
  assert.equal(follower.cursor, 103);
});

test('a hung poll of one topic does not keep it alone: its next poll carries the others due with it (#520)', async () => {
  const a = follow('solo', { baseUrl: BASE, pollIntervalMs: 1000 });
  await a.ready;
  next.push(() => HANG);
  await clock.advance(1000);
  assert.equal(server.requests.length, 2);
  await clock.advance(15_000);
  assert.ok(server.requests[1].aborted, 'abandoned at 15 s');
  setOnline(false);
  await clock.settle();
  const b = follow('other', { baseUrl: BASE, pollIntervalMs: 1000 });
  await flush();
  const before = server.requests.length;
  setOnline(true);
  await clock.settle();
  await b.ready;
  const sent = polls().slice(before).map((body) => Object.keys(body.cursors).sort());
  assert.deepEqual(sent, [['other', 'solo']], 'one poll with both');
});

test("a topic refused in a poll's answer: an HttpError that is no call's, with no Idempotency-Key and one attempt (index.ts #1192)", async () => {
  next.push(() => ({ status: 200, body: { topics: { denied: { status: 403, error: { detail: 'not yours' } } }, poll_after_ms: 0 } }));
  const follower = follow('denied', { baseUrl: BASE, onRefused: () => {} });
  const error = await follower.ready.then(() => assert.fail('ready resolved'), (e) => e);
  assert.ok(error instanceof pkg.HttpError);
  assert.equal(error.status, 403);
  assert.equal(error.key, '', 'no call of its own: no key');
  assert.equal(error.attempts, 1);
  assert.equal(follower.mode, 'refused');
});
