// Persisted cursors (`persist: true`) over a small fake IndexedDB installed in this file's process
// only: a follower's cursor is kept per origin, events path and topic, read back by the next
// follower of the same topic (its first poll carries it), and what is stored that is no cursor,
// or a read that fails, is ignored (the follower follows from now). Written for the survivors of
// follow/persist.ts in the follower's mutation run (tests/mutation/README.md).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { flush } from './fake-clock.mjs';
import { installIndexedDB } from './fake-indexeddb.mjs';
import { restSetup } from './kit.mjs';

const realSetTimeout = globalThis.setTimeout;
/** The server's rev per topic; every poll is answered with it (no events). */
const revs = new Map();
const { clock, server, pkg } = await restSetup((request) => {
  const { cursors } = JSON.parse(request.text);
  const topics = {};
  for (const topic of Object.keys(cursors)) topics[topic] = { rev: revs.get(topic) ?? 1, events: [] };
  return { status: 200, body: { topics, poll_after_ms: 0 } };
});
const idb = installIndexedDB();
const BASE = 'http://backend.test';
const consoleError = console.error;
const warnings = [];
console.error = (...args) => warnings.push(args);
after(() => {
  console.error = consoleError;
  delete globalThis.indexedDB;
});

/** The polls that carried `topic`, as sent: { cursor, scope }. */
const pollsOf = (topic) =>
  server.requests
    .map((request) => JSON.parse(request.text))
    .filter((body) => Object.hasOwn(body.cursors, topic))
    .map((body) => ({ cursor: body.cursors[topic], scope: body.scopes[topic] }));

/** Waits (in real time: the chunk and the database answer on their own turns) until a poll carried `topic`; its first poll. */
async function firstPoll(topic) {
  for (let i = 0; i < 200 && !pollsOf(topic).length; i++) {
    await new Promise((resolve) => realSetTimeout(resolve, 5));
    await clock.advance(0);
  }
  assert.ok(pollsOf(topic).length, `a poll of ${topic} went`);
  return pollsOf(topic)[0];
}

async function followOnce(topic, options = {}) {
  server.requests.length = 0;
  const follower = pkg.follow(topic, { baseUrl: BASE, persist: true, ...options });
  const poll = await firstPoll(topic);
  await follower.ready;
  await flush();
  await follower.close();
  await clock.advance(10);
  return { poll, follower };
}

/** The key under which the cursor of `topic` is stored (the one put with it). */
function keyOf(topic) {
  const keys = [...idb.stores.get('cursors').keys()].filter((key) => key.endsWith(` ${topic}`));
  assert.equal(keys.length, 1, `one stored cursor of ${topic}`);
  return keys[0];
}

test('a cursor is kept per origin, events path and topic, and read back by the next follower of that topic', async () => {
  revs.set('kept', 10);
  const first = await followOnce('kept');
  assert.deepEqual(first.poll, { cursor: null, scope: undefined }, 'nothing stored yet: from now');
  assert.deepEqual(idb.opened.filter(([name]) => name === 'fastapi-viewsets-cursors'), [['fastapi-viewsets-cursors', 1]], 'the database the docs name');
  assert.equal(first.follower.cursor, 10);
  const key = keyOf('kept');
  assert.deepEqual(idb.stores.get('cursors').get(key).rev, 10, 'the cursor was stored');

  revs.set('kept', 12);
  const second = await followOnce('kept');
  assert.deepEqual(second.poll, { cursor: 10, scope: undefined }, 'the next follower of the topic polls from the stored cursor');
  assert.equal(second.follower.cursor, 12);

  // another topic, another events path, another origin, or no persist: not that cursor
  assert.deepEqual((await followOnce('other')).poll.cursor, null, 'another topic');
  assert.deepEqual((await followOnce('kept', { eventsPath: '/events2' })).poll.cursor, null, 'another events path');
  assert.deepEqual((await followOnce('kept', { baseUrl: 'http://elsewhere.test' })).poll.cursor, null, 'another origin');
  const puts = idb.puts.length;
  revs.set('kept', 20);
  const unkept = await followOnce('kept', { persist: false });
  assert.equal(unkept.poll.cursor, null, 'without persist nothing is read');
  assert.equal(idb.puts.length, puts, 'and nothing is stored');
  assert.equal(idb.stores.get('cursors').get(key).rev, 12);
  assert.equal([...idb.stores.get('cursors').keys()].filter((stored) => stored.endsWith(' kept')).length, 3, 'one cursor per origin and events path');
  assert.equal(idb.opened.filter(([name]) => name === 'fastapi-viewsets-cursors').length, 1, 'the database is opened once');
});

test('the scope is kept with the cursor; stored values that are no cursor are ignored', async () => {
  revs.set('values', 5);
  await followOnce('values');
  const key = keyOf('values');
  const rows = idb.stores.get('cursors');
  rows.set(key, { rev: 7, scope: 'org:1' });
  assert.deepEqual((await followOnce('values')).poll, { cursor: 7, scope: 'org:1' }, 'a stored scope is sent with the cursor');
  rows.set(key, { rev: 0 });
  assert.deepEqual((await followOnce('values')).poll, { cursor: 0, scope: undefined }, 'rev 0 is a cursor');
  rows.set(key, { rev: 7, scope: 3 });
  assert.deepEqual((await followOnce('values')).poll, { cursor: 7, scope: undefined }, 'a scope that is no string is left out');
  for (const value of [{ rev: '7' }, { rev: 1.5 }, { rev: -1 }, { rev: 2 ** 53 }, { rev: null }, {}, null, 'x']) {
    rows.set(key, value);
    assert.deepEqual((await followOnce('values')).poll.cursor, null, `${JSON.stringify(value)} is no cursor: from now`);
  }
});

test('a read that fails or throws, and a write that throws: the follower follows from now and goes on', async () => {
  revs.set('broken', 3);
  await followOnce('broken');
  idb.failGet = true;
  assert.equal((await followOnce('broken')).poll.cursor, null, 'a read that fails: from now');
  idb.failGet = false;
  idb.throwGet = true;
  assert.equal((await followOnce('broken')).poll.cursor, null, 'a read that throws: from now');
  idb.throwGet = false;
  idb.throwPut = true;
  revs.set('broken', 9);
  const { follower } = await followOnce('broken');
  assert.equal(follower.cursor, 9, 'a write that throws loses only the cursor');
  idb.throwPut = false;
  assert.equal(idb.stores.get('cursors').get(keyOf('broken')).rev, 3, 'what was stored before stays');
  assert.deepEqual(warnings, [], 'nothing was reported');
});
