// The follower over REST on the fake clock and a scripted fake fetch: when polls go and what they
// carry (topics of one origin in one poll, each once, 256 cursors at most), the server's
// poll_after_ms, failures backing off, a hung poll abandoned at 15 s and its topics polled alone,
// refusals, resyncs, what the handlers are given and in which order, the handle's state and its
// subscribe() listeners (the survivors of the follower's mutation run,
// tests/mutation/README.md).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { flush } from './fake-clock.mjs';
import { HANG, networkError } from './fake-fetch.mjs';
import { restSetup } from './kit.mjs';

/** The server's logs: topic -> { rev, events }. */
const logs = new Map();
/** An answer of the test's own for the next poll: (body, request) => answer. */
const next = [];
const { clock, server, pkg } = await restSetup((request) => {
  const body = JSON.parse(request.text);
  const own = next.shift();
  if (own) return own(body, request);
  return { status: 200, body: { topics: answerOf(body), poll_after_ms: 0 } };
});
const BASE = 'http://backend.test';

function logOf(topic) {
  if (!logs.has(topic)) logs.set(topic, { rev: 100, events: [] });
  return logs.get(topic);
}
function publish(topic, payload = { n: 1 }, { event = 'changed', version = 1 } = {}) {
  const log = logOf(topic);
  const item = { rev: log.rev + 1, prev: log.rev, event, version, payload };
  log.events.push(item);
  log.rev = item.rev;
  return item;
}
function answerOf(body) {
  const topics = {};
  for (const [topic, cursor] of Object.entries(body.cursors)) {
    const log = logOf(topic);
    const events = cursor === null ? [] : log.events.filter((event) => event.rev > cursor);
    topics[topic] = { rev: log.rev, events };
  }
  return topics;
}
const polls = () => server.requests.map((request) => JSON.parse(request.text));
const warnings = [];
const consoleError = console.error;
console.error = (message, detail) => warnings.push([message, detail]);

async function clean(...followers) {
  for (const follower of followers) await follower.close();
  next.length = 0;
  await clock.advance(100_000);
  server.requests.length = 0;
  warnings.length = 0;
}

test('two topics of one origin: one poll carrying both cursors; each delivered in rev order, the handlers one at a time', async () => {
  logs.clear();
  const order = [];
  const running = { a: 0, b: 0 };
  const overlaps = [];
  const slow = (name) => async (event) => {
    if (running[name]++) overlaps.push(event.rev);
    order.push(`${name}:${event.rev}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    running[name]--;
  };
  const a = pkg.follow('a', { baseUrl: BASE, pollIntervalMs: 1000, onEvent: slow('a') });
  const b = pkg.follow('b', { baseUrl: BASE, pollIntervalMs: 1000, onEvent: slow('b') });
  await Promise.all([a.ready, b.ready]);
  await clock.advance(1000);
  const first = polls();
  assert.ok(first.length >= 2);
  assert.deepEqual(first.at(-1), { cursors: { a: 100, b: 100 }, scopes: {} }, 'one poll with both cursors');
  publish('a');
  publish('a', { n: 2 });
  publish('b', { n: 3 });
  await clock.advance(1000);
  await clock.advance(100);
  assert.deepEqual(order.filter((x) => x.startsWith('a')), ['a:101', 'a:102']);
  assert.deepEqual(order.filter((x) => x.startsWith('b')), ['b:101']);
  assert.deepEqual(overlaps, [], "one handler of a follower at a time");
  assert.equal(a.cursor, 102);
  assert.equal(b.cursor, 101);
  await clean(a, b);
});

test('the message handed to onEvent, a scope and onResync: what each is given', async () => {
  logs.clear();
  const got = [];
  const follower = pkg.follow('scoped', { baseUrl: BASE, pollIntervalMs: 1000, from: 5, onEvent: (event) => got.push(['event', event]), onResync: (info) => got.push(['resync', info]) });
  next.push(() => ({ status: 200, body: { topics: { scoped: { rev: 8, scope: 'org:1', events: [{ rev: 7, prev: 5, event: 'made', version: 2, payload: { x: 1 } }] } }, poll_after_ms: 0 } }));
  // from a rev it polls from it at once; ready resolves once that answer was handed out
  await follower.ready;
  assert.deepEqual(got, [['event', { topic: 'scoped', event: 'made', version: 2, rev: 7, prev: 5, payload: { x: 1 }, via: 'poll', scope: 'org:1' }]]);
  assert.equal(follower.cursor, 8, "the answer's rev past filtered events");
  assert.equal(follower.scope, 'org:1');
  // the next poll sends the scope
  next.push(() => ({ status: 200, body: { topics: { scoped: { rev: 20, scope: 'org:2', events: null } }, poll_after_ms: 0 } }));
  await follower.catchUp();
  assert.deepEqual(polls().at(-1), { cursors: { scoped: 8 }, scopes: { scoped: 'org:1' } });
  assert.deepEqual(got.at(-1), ['resync', { topic: 'scoped', rev: 20, scope: 'org:2' }], 'events: null: a resync to the rev, in the new scope');
  assert.equal(follower.cursor, 20);
  assert.equal(follower.scope, 'org:2');
  // a resync without a scope has none
  next.push(() => ({ status: 200, body: { topics: { scoped: { rev: 30, events: null } }, poll_after_ms: 0 } }));
  await follower.catchUp();
  assert.deepEqual(got.at(-1), ['resync', { topic: 'scoped', rev: 30 }]);
  assert.equal(Object.hasOwn(got.at(-1)[1], 'scope'), false);
  assert.equal(follower.scope, undefined);
  // an event without a scope has no scope field
  next.push(() => ({ status: 200, body: { topics: { scoped: { rev: 31, events: [{ rev: 31, prev: 30, event: 'e', version: 1, payload: null }] } }, poll_after_ms: 0 } }));
  await follower.catchUp();
  assert.deepEqual(got.at(-1), ['event', { topic: 'scoped', event: 'e', version: 1, rev: 31, prev: 30, payload: null, via: 'poll' }]);
  assert.equal(Object.hasOwn(got.at(-1)[1], 'scope'), false);
  await clean(follower);
});

test('poll_after_ms holds the next poll back; an interval shorter than it waits for it; it is capped at 300 s', async () => {
  logs.clear();
  const follower = pkg.follow('floor', { baseUrl: BASE, pollIntervalMs: 100 });
  next.push((body) => ({ status: 200, body: { topics: answerOf(body), poll_after_ms: 700 } }));
  await follower.ready;
  const start = server.requests[0].at;
  await clock.advance(699);
  assert.equal(server.requests.length, 1, 'held back by poll_after_ms');
  await clock.advance(1);
  assert.equal(server.requests.length, 2);
  assert.equal(server.requests[1].at - start, 700);
  // back to the interval once the floor is 0
  await clock.advance(100);
  assert.equal(server.requests.length, 3);
  assert.equal(server.requests[2].at - server.requests[1].at, 100);
  // a huge floor is capped at 300 s; a negative one is 0
  next.push((body) => ({ status: 200, body: { topics: answerOf(body), poll_after_ms: 10_000_000 } }));
  await clock.advance(100);
  const at = server.requests.at(-1).at;
  await clock.advance(299_999);
  assert.equal(server.requests.at(-1).at, at, 'no poll before 300 s');
  await clock.advance(1);
  assert.equal(server.requests.at(-1).at - at, 300_000, 'the floor capped at 300 s');
  await clean(follower);
});

/** An answer the follower does not understand (no repeat of the call: the follower's own failure). */
const garbled = () => ({ status: 200, body: { topics: { [current]: 'garbled' }, poll_after_ms: 0 } });
let current = '';
/** The waits between the polls sent since `from`. */
const waitsSince = (from) => server.requests.slice(from).map((request, i, all) => (i ? request.at - all[i - 1].at : 0)).slice(1);

test('failures back off with jitter from the interval, doubling, and show as the error; an answer clears it', async () => {
  logs.clear();
  current = 'failing';
  const follower = pkg.follow('failing', { baseUrl: BASE, pollIntervalMs: 1000 });
  await follower.ready;
  const random = Math.random;
  Math.random = () => 0;
  try {
    server.requests.length = 0;
    for (let i = 0; i < 4; i++) next.push(garbled);
    const changes = [];
    const stop = follower.subscribe((f) => changes.push([f.mode, f.error?.message]));
    await clock.advance(1000);
    assert.equal(server.requests.length, 1);
    assert.equal(follower.error.message, "the poll's answer for failing is not an object", 'the failure is the error');
    assert.equal(follower.mode, 'poll');
    assert.ok(changes.some(([, message]) => message?.includes('not an object')), 'a listener was told');
    await clock.advance(1000 + 2000 + 4000 + 8000 + 1000);
    // random() 0: the full wait, the interval doubled per failure, then the interval again
    assert.deepEqual(waitsSince(0), [1000, 2000, 4000, 8000, 1000]);
    assert.equal(follower.error, undefined, 'the answer cleared the error');
    stop();
  } finally {
    Math.random = random;
  }
  // jitter: random() near 1 takes half off
  Math.random = () => 0.999_999;
  try {
    next.push(garbled);
    next.push(garbled);
    server.requests.length = 0;
    await clock.advance(1000);
    await clock.advance(500 + 1000 + 100);
    const waits = waitsSince(0);
    assert.ok(waits[0] >= 500 && waits[0] <= 501, `half of 1000 (${waits})`);
    assert.ok(waits[1] >= 1000 && waits[1] <= 1001, `half of 2000 (${waits})`);
  } finally {
    Math.random = random;
  }
  await clean(follower);
});

test('the backoff is capped at 60 s', async () => {
  logs.clear();
  current = 'capped';
  const follower = pkg.follow('capped', { baseUrl: BASE, pollIntervalMs: 20_000 });
  await follower.ready;
  const random = Math.random;
  Math.random = () => 0;
  try {
    server.requests.length = 0;
    for (let i = 0; i < 5; i++) next.push(garbled);
    await clock.advance(20_000);
    await clock.advance(20_000 + 40_000 + 60_000 + 60_000 + 60_000);
    assert.deepEqual(waitsSince(0), [20_000, 40_000, 60_000, 60_000, 60_000]);
  } finally {
    Math.random = random;
  }
  await clean(follower);
});

test('a 4xx refuses the topic for good: onRefused with an HttpError saying why, mode refused, ready and catchUp() reject', async () => {
  logs.clear();
  const refused = [];
  next.push(() => ({ status: 403, body: { detail: 'not yours' } }));
  let release;
  const follower = pkg.follow('refused', { baseUrl: BASE, onRefused: (error) => (refused.push(error), new Promise((resolve) => (release = resolve))), onEvent: () => assert.fail() });
  await assert.rejects(follower.ready, (error) => error instanceof pkg.HttpError && error.status === 403);
  await flush();
  assert.equal(refused.length, 1);
  assert.equal(follower.mode, 'refused');
  assert.equal(follower.error.status, 403);
  // while its onRefused runs, a catchUp() rejects with the refusal
  await assert.rejects(follower.catchUp(), (error) => error === follower.error);
  release();
  await flush();
  await clock.advance(60_000);
  assert.equal(server.requests.length, 1, 'never polled again');
  await clean(follower);

  // a topic's own refusal in a poll's answer: its message says the topic, the status and the detail
  const seen = [];
  next.push(() => ({ status: 200, body: { topics: { 'own-refusal': { status: 404, error: { detail: 'no such topic' } } }, poll_after_ms: 0 } }));
  const second = pkg.follow('own-refusal', { baseUrl: BASE, onRefused: (error) => seen.push(error) });
  await assert.rejects(second.ready);
  await flush();
  assert.equal(seen.length, 1);
  assert.ok(seen[0] instanceof pkg.HttpError);
  assert.equal(seen[0].status, 404);
  assert.equal(seen[0].message, 'following own-refusal was refused (404): no such topic');
  await clean(second);
  // without a detail: "HTTP <status>"
  next.push(() => ({ status: 200, body: { topics: { bare: { status: 410, error: 'gone' } }, poll_after_ms: 0 } }));
  const third = pkg.follow('bare', { baseUrl: BASE });
  const error = await third.ready.then(() => assert.fail(), (e) => e);
  assert.equal(error.message, 'following bare was refused (410): HTTP 410');
  assert.equal(third.mode, 'refused');
  await clean(third);
  // a 429 or 499-as-5xx are not refusals
  for (const status of [429, 500, 399]) {
    next.push(() => ({ status: 200, body: { topics: { later: { status, error: {} } }, poll_after_ms: 0 } }));
    const later = pkg.follow('later', { baseUrl: BASE });
    const e = await later.ready.then(() => assert.fail(), (x) => x);
    assert.equal(e.message, `the server could not answer for later now (${status})`);
    assert.equal(later.mode, 'poll');
    await clean(later);
  }
  // an HTTP 429 of the poll itself is not a refusal
  next.push(() => ({ status: 429, body: {} }));
  const busy = pkg.follow('busy', { baseUrl: BASE });
  await assert.rejects(busy.ready, (e) => e.status === 429);
  assert.equal(busy.mode, 'poll');
  await clean(busy);
});

test('answers that are no poll answer: a failure with its message; an entry missing for the topic too', async () => {
  logs.clear();
  for (const [answer, message] of [
    [{ status: 200, body: [1] }, 'the poll was not answered as the events viewset answers'],
    [{ status: 200, body: { topics: [] } }, 'the poll was not answered as the events viewset answers'],
    [{ status: 200, body: { topics: {} } }, "the poll's answer for odd is not an object"],
    [{ status: 200, body: { topics: { odd: 'x' } } }, "the poll's answer for odd is not an object"],
    [{ status: 200, body: { topics: { odd: { rev: 3, events: {} } } } }, "the poll's answer for odd is not understood"],
  ]) {
    next.push(() => answer);
    const follower = pkg.follow('odd', { baseUrl: BASE });
    const error = await follower.ready.then(() => assert.fail('ready resolved'), (e) => e);
    assert.equal(error.message, message);
    assert.equal(follower.error, error);
    await clean(follower);
  }
});

test('a poll that hangs is abandoned at 15 s; its topics are polled alone after it, then together again', async () => {
  logs.clear();
  const a = pkg.follow('h1', { baseUrl: BASE, pollIntervalMs: 1000 });
  const b = pkg.follow('h2', { baseUrl: BASE, pollIntervalMs: 1000 });
  await Promise.all([a.ready, b.ready]);
  await clock.advance(1000);
  server.requests.length = 0;
  next.push(() => HANG);
  await clock.advance(1000);
  assert.equal(server.requests.length, 1);
  assert.deepEqual(Object.keys(JSON.parse(server.requests[0].text).cursors).sort(), ['h1', 'h2']);
  const random = Math.random;
  Math.random = () => 0;
  try {
    await clock.advance(14_999);
    assert.equal(server.requests[0].aborted, false, 'not abandoned before 15 s');
    await clock.advance(1);
    await flush();
    assert.equal(server.requests[0].aborted, true, 'abandoned at 15 s');
    assert.match(a.error.message, /the poll was not answered in 15000 ms/);
    assert.match(b.error.message, /the poll was not answered in 15000 ms/);
    await clock.advance(1000);
    const alone = polls().slice(1);
    assert.equal(alone.length, 2, 'each polled alone');
    assert.deepEqual(alone.map((body) => Object.keys(body.cursors)).sort(), [['h1'], ['h2']]);
    assert.equal(a.error, undefined);
    await clock.advance(1000);
    assert.deepEqual(Object.keys(polls().at(-1).cursors).sort(), ['h1', 'h2'], 'together again once answered');
  } finally {
    Math.random = random;
  }
  await clean(a, b);
  // a poll of one topic that hangs is abandoned too, and the follower polls on
  const c = pkg.follow('h3', { baseUrl: BASE, pollIntervalMs: 1000 });
  await c.ready;
  next.push(() => HANG);
  await clock.advance(1000);
  await clock.advance(15_000);
  assert.match(c.error.message, /not answered in 15000 ms/);
  await clock.advance(60_000);
  assert.equal(c.error, undefined);
  await clean(c);
});

test('256 cursors a poll at most; the 257th topic goes in a second poll', async () => {
  logs.clear();
  const followers = Array.from({ length: 257 }, (_, i) => pkg.follow(`many:${i}`, { baseUrl: BASE, pollIntervalMs: 1000 }));
  await Promise.all(followers.map((f) => f.ready));
  server.requests.length = 0;
  await clock.advance(1000);
  const sizes = polls().map((body) => Object.keys(body.cursors).length);
  assert.deepEqual(sizes.sort((x, y) => y - x), [256, 1]);
  await clean(...followers);
});

test('two followers of one topic on one origin: one cursor in each poll for the topic, each follower polled', async () => {
  logs.clear();
  const got = [[], []];
  const one = pkg.follow('same', { baseUrl: BASE, pollIntervalMs: 1000, onEvent: (e) => got[0].push(e.rev) });
  const two = pkg.follow('same', { baseUrl: BASE, pollIntervalMs: 1000, from: 100, onEvent: (e) => got[1].push(e.rev) });
  await Promise.all([one.ready, two.ready]);
  for (const body of polls()) assert.equal(Object.keys(body.cursors).length, 1, 'a topic once a poll');
  publish('same');
  await clock.advance(1000);
  await clock.advance(1000);
  assert.deepEqual(got, [[101], [101]]);
  await clean(one, two);
});

test('catchUp(): polls now, resolves once what it brought was handed out; on a closed follower it resolves', async () => {
  logs.clear();
  const handled = [];
  const follower = pkg.follow('catch', { baseUrl: BASE, pollIntervalMs: 60_000, onEvent: async (e) => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    handled.push(e.rev);
  } });
  await follower.ready;
  publish('catch');
  publish('catch');
  server.requests.length = 0;
  let done = false;
  const caught = follower.catchUp().then(() => (done = true));
  await flush();
  assert.equal(server.requests.length, 1, 'a poll at once');
  await clock.advance(50);
  assert.equal(done, false, 'not before the last handler returned');
  await clock.advance(50);
  await caught;
  assert.deepEqual(handled, [101, 102]);
  // two catchUp() at once: one poll
  server.requests.length = 0;
  await Promise.all([follower.catchUp(), follower.catchUp()]);
  assert.ok(server.requests.length <= 2);
  await follower.close();
  await follower.catchUp();
  await clean(follower);
});

test('ready rejects when closed before the first answer; nothing is handed out after close()', async () => {
  logs.clear();
  next.push(() => HANG);
  const follower = pkg.follow('early', { baseUrl: BASE, onEvent: () => assert.fail('no event after close()') });
  await flush();
  await follower.close();
  const error = await follower.ready.then(() => assert.fail(), (e) => e);
  assert.equal(error.message, 'following early was closed');
  assert.equal(follower.mode, 'closed');
  await clean(follower);
});

test('a throwing onEvent is reported and the next event follows; a throwing listener is reported; a listener removed is not told', async () => {
  logs.clear();
  const got = [];
  const follower = pkg.follow('throws', { baseUrl: BASE, pollIntervalMs: 1000, onEvent: (e) => {
    got.push(e.rev);
    if (e.rev === 101) throw new Error('handler broke');
    if (e.rev === 102) return Promise.reject(new Error('async broke'));
  } });
  await follower.ready;
  const told = [];
  const remove = follower.subscribe(() => {
    told.push(follower.cursor);
    throw new Error('listener broke');
  });
  publish('throws');
  publish('throws');
  publish('throws');
  await clock.advance(1000);
  await flush();
  assert.deepEqual(got, [101, 102, 103]);
  assert.equal(follower.cursor, 103);
  const messages = warnings.map(([message]) => message);
  assert.ok(messages.includes('[fastapi-viewsets] onEvent of throws threw'), messages.join('; '));
  assert.equal(warnings.find(([m]) => m === '[fastapi-viewsets] onEvent of throws threw')[1].message, 'handler broke');
  assert.ok(warnings.some(([m, d]) => m === '[fastapi-viewsets] onEvent of throws threw' && d.message === 'async broke'));
  assert.ok(messages.includes("[fastapi-viewsets] a follower's subscribe() listener of throws threw"));
  assert.ok(told.length >= 1 && told.at(-1) === 103, `listeners see the handle as it is (${told})`);
  await remove();
  const before = told.length;
  publish('throws');
  await clock.advance(1000);
  assert.equal(follower.cursor, 104);
  assert.equal(told.length, before, 'a removed listener is not told');
  await clean(follower);
});

after(() => {
  console.error = consoleError;
});
