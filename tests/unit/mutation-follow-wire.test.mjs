// What the follower takes from a poll's answer, at the edges of what it checks (follow/wire.ts): a
// topic's status alone, a status that is not a number, the 400 and 500 bounds; exactly 10 000
// events (read) and one more (a resync); each field of an event that makes it no event (the chain
// is left there); a scope of 1024 characters (taken) and 1025 (left out); a poll_after_ms that is
// not a rev; events over the 16 MiB a follower keeps (a resync). Written for the survivors of the
// follower's mutation run (tests/mutation/README.md). A scripted fake fetch, real timers.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { installFetch } from './fake-fetch.mjs';

const TOPIC = 'wire:1';
const answers = [];
const server = installFetch((request) => {
  const body = JSON.parse(request.text);
  const next = answers.shift();
  return next ? next(body) : { status: 200, body: { topics: { [TOPIC]: { rev: body.cursors[TOPIC] ?? 10, events: [] } }, poll_after_ms: 0 } };
});
const pkg = await import('../../pkg/index.js');
after(() => server.uninstall());

const ok = (topic) => () => ({ status: 200, body: { topics: { [TOPIC]: topic }, poll_after_ms: 0 } });
const event = (rev, prev, fields = {}) => ({ rev, prev, event: 'e', version: 1, payload: null, ...fields });

/** A follower at cursor 10 (from now), polled only by catchUp(); `got` its events, `resyncs` its resyncs, `refusals`. */
async function follower() {
  const got = [];
  const resyncs = [];
  const refusals = [];
  const handle = pkg.follow(TOPIC, {
    baseUrl: 'http://backend.test',
    pollIntervalMs: 600_000,
    onEvent: (e) => void got.push(e),
    onResync: (info) => void resyncs.push(info),
    onRefused: (error) => void refusals.push(error),
  });
  await handle.ready;
  assert.equal(handle.cursor, 10);
  return { handle, got, resyncs, refusals };
}

test("a topic's status: alone it still counts; a 4xx but 429 refuses, a status that is no number does not", async () => {
  for (const [entry, refused, message] of [
    [{ status: 404 }, true],
    [{ status: 400 }, true],
    [{ status: 499, error: {} }, true],
    [{ status: 503 }, false, 'the server could not answer for wire:1 now (503)'],
    [{ status: 500, error: {} }, false, 'the server could not answer for wire:1 now (500)'],
    [{ status: '404', error: { detail: 'no' } }, false, 'the server could not answer for wire:1 now (404)'],
    [{ error: 'x' }, false, 'the server could not answer for wire:1 now (undefined)'],
  ]) {
    const f = await follower();
    answers.push(ok({ rev: 12, events: [], ...entry }));
    const error = await f.handle.catchUp().then(() => assert.fail(`${JSON.stringify(entry)}: catchUp() resolved`), (e) => e);
    if (refused) {
      assert.equal(f.handle.mode, 'refused', `${JSON.stringify(entry)} refuses`);
      assert.equal(error.status, entry.status);
      assert.equal(f.refusals.length, 1);
    } else {
      assert.equal(f.handle.mode, 'poll', `${JSON.stringify(entry)} refuses nothing`);
      assert.equal(error.message, message);
      assert.equal(f.handle.cursor, 10, 'nothing taken of it');
    }
    await f.handle.close();
  }
});

test('10 000 events are read and handed out; 10 001 are not read: a resync to the rev', async () => {
  const f = await follower();
  const events = Array.from({ length: 10_000 }, (_, i) => event(11 + i, 10 + i));
  answers.push(ok({ rev: 10_010, events }));
  await f.handle.catchUp();
  assert.equal(f.got.length, 10_000, 'all of them');
  assert.equal(f.got.at(-1).rev, 10_010);
  assert.deepEqual(f.resyncs, []);
  const more = Array.from({ length: 10_001 }, (_, i) => event(10_011 + i, 10_010 + i));
  answers.push(ok({ rev: 20_011, events: more }));
  await f.handle.catchUp();
  assert.equal(f.got.length, 10_000, 'none of the 10 001');
  assert.deepEqual(f.resyncs, [{ topic: TOPIC, rev: 20_011 }]);
  assert.equal(f.handle.cursor, 20_011);
  await f.handle.close();
});

test('an event with any field that makes it no event: the ones before it are handed out, the cursor stays there', async () => {
  for (const bad of [
    event('12', 11),
    event(12, -1),
    event(12, 11.5),
    event(12, 12),
    event(12, 13),
    event(12, 11, { event: 5 }),
    event(12, 11, { version: 0 }),
    event(12, 11, { version: 1.5 }),
    event(12, 11, { version: '1' }),
    'x',
    null,
  ]) {
    const f = await follower();
    answers.push(ok({ rev: 20, events: [event(11, 10, { payload: { n: 1 } }), bad, event(13, 12)] }));
    await f.handle.catchUp();
    assert.deepEqual(f.got.map((e) => [e.rev, e.payload]), [[11, { n: 1 }]], `${JSON.stringify(bad)}: the event before it only`);
    assert.equal(f.handle.cursor, 11, `${JSON.stringify(bad)}: not past the break`);
    await f.handle.close();
  }
});

test('a scope of 1024 characters is taken, one of 1025 or that is no string is not', async () => {
  for (const [scope, taken] of [['s'.repeat(1024), true], ['s'.repeat(1025), false], [7, false]]) {
    const f = await follower();
    answers.push(ok({ rev: 11, scope, events: [event(11, 10)] }));
    await f.handle.catchUp();
    assert.equal(f.got.length, 1);
    assert.equal(f.handle.scope, taken ? scope : undefined);
    assert.equal(f.got[0].scope, taken ? scope : undefined);
    await f.handle.close();
  }
});

test('events past the 16 MiB a follower keeps are not kept: a resync to the rev', async () => {
  const f = await follower();
  const mib = 'x'.repeat(1024 * 1024);
  const events = Array.from({ length: 17 }, (_, i) => event(11 + i, 10 + i, { payload: mib }));
  answers.push(ok({ rev: 27, events }));
  await f.handle.catchUp();
  assert.equal(f.got.length, 0, 'none handed out');
  assert.deepEqual(f.resyncs, [{ topic: TOPIC, rev: 27 }]);
  // 15 of them fit
  answers.push(ok({ rev: 42, events: Array.from({ length: 15 }, (_, i) => event(28 + i, 27 + i, { payload: mib })) }));
  await f.handle.catchUp();
  assert.equal(f.got.length, 15);
  assert.equal(f.resyncs.length, 1);
  await f.handle.close();
});

test('a poll_after_ms that is no rev is no floor', async () => {
  for (const after of ['5000', -1, 1.5, null]) {
    const calls = server.requests.length;
    const handle = pkg.follow(TOPIC, { baseUrl: 'http://backend.test', pollIntervalMs: 20 });
    answers.push(() => ({ status: 200, body: { topics: { [TOPIC]: { rev: 10, events: [] } }, poll_after_ms: after } }));
    await handle.ready;
    await new Promise((resolve) => setTimeout(resolve, 300));
    await handle.close();
    assert.ok(server.requests.length - calls >= 4, `${JSON.stringify(after)}: polled at its interval (${server.requests.length - calls} polls in 300 ms)`);
  }
});
