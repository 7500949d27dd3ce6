// follow() against a hostile server (a scripted fake fetch, no backend): answers it must not trust.
// An answer with 10^6 events is not read (a cap before any work), revs that are not revs are
// ignored, a broken prev chain delivers nothing past the break, topics the poll did not ask about
// are never read, a huge poll_after_ms is capped; the follower goes on with the next good answer.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { installFetch } from './fake-fetch.mjs';

const TOPIC = 'imports:7';
const answers = [];
const server = installFetch((request) => {
  const body = JSON.parse(request.text);
  const next = answers.shift();
  return next ? next(body) : { status: 200, body: { topics: { [TOPIC]: { rev: body.cursors[TOPIC] ?? 10, events: [] } }, poll_after_ms: 0 } };
});
const pkg = await import('../../pkg/index.js');

after(() => server.uninstall());

const ok = (topic) => ({ status: 200, body: { topics: { [TOPIC]: topic }, poll_after_ms: 0 } });

test('an answer with more events than the cap is not read: a resync to its rev, never the same answer again', async () => {
  const resyncs = [];
  const follower = pkg.follow(TOPIC, { baseUrl: 'http://backend.test', pollIntervalMs: 60_000, onEvent: () => assert.fail('no event'), onResync: (info) => resyncs.push(info) });
  try {
    await follower.ready;
    assert.equal(follower.cursor, 10);
    // 10^6 events: not read at all
    answers.push(() => ({ status: 200, body: `{"topics":{"${TOPIC}":{"rev":99,"events":[${'0,'.repeat(999_999)}0]}},"poll_after_ms":0}`, headers: { 'content-type': 'application/json' } }));
    const started = Date.now();
    await follower.catchUp();
    assert.ok(Date.now() - started < 2000, `answered quickly (${Date.now() - started} ms)`);
    assert.deepEqual(resyncs, [{ topic: TOPIC, rev: 99 }], 'one resync, to the answer\'s rev');
    assert.equal(follower.cursor, 99);
    await follower.catchUp();
    assert.deepEqual(JSON.parse(server.requests.at(-1).text).cursors, { [TOPIC]: 99 }, 'the next poll asks from the resynced cursor');
    assert.equal(resyncs.length, 1);
  } finally {
    await follower.close();
  }
});

test('hostile poll answers are capped and checked; the next good answer is delivered once', async () => {
  const got = [];
  const follower = pkg.follow(TOPIC, { baseUrl: 'http://backend.test', pollIntervalMs: 60_000, onEvent: (event) => got.push(event) });
  try {
    await follower.ready;
    assert.equal(follower.cursor, 10, 'the first answer gives the cursor');
    // revs that are not revs
    for (const rev of ['11', 2 ** 53, -1, 1.5, null, { valueOf: 11 }]) {
      answers.push(() => ok({ rev, events: [] }));
      await assert.rejects(follower.catchUp(), /not understood/, 'the catchUp() of an answer not understood rejects');
      assert.equal(follower.cursor, 10, `rev ${JSON.stringify(rev)} is ignored`);
      assert.match(follower.error.message, /not understood/, 'the follower says why');
    }
    // a chain that does not start at the cursor, an event whose rev is not above its prev, a bad version
    answers.push(() => ok({ rev: 13, events: [{ rev: 12, prev: 9, event: 'x', version: 1 }, { rev: 13, prev: 12, event: 'x', version: 1 }] }));
    await follower.catchUp();
    answers.push(() => ok({ rev: 13, events: [{ rev: 10, prev: 10, event: 'x', version: 1 }] }));
    await follower.catchUp();
    answers.push(() => ok({ rev: 13, events: [{ rev: 11, prev: 10, event: 'x', version: '1' }] }));
    await follower.catchUp();
    assert.deepEqual(got, [], 'nothing delivered from a broken chain');
    assert.equal(follower.cursor, 10, 'the cursor stays');
    // other topics, an error without a status, a huge poll_after_ms: nothing breaks
    answers.push(() => ({ status: 200, body: { topics: { __proto__: { rev: 1 }, other: { rev: 5, events: [] } }, poll_after_ms: 1e300 } }));
    await follower.catchUp().catch(() => {});
    answers.push(() => ok({ error: { detail: 'odd' }, rev: 11, events: [] }));
    await assert.rejects(follower.catchUp());
    assert.equal(follower.mode, 'poll', 'an error without a 4xx status refuses nothing');
    // the good answer: delivered once, in order, and the cursor follows the answer's rev
    answers.push(() => ok({ rev: 15, events: [{ rev: 11, prev: 10, event: 'x', version: 1, payload: { __proto__: { a: 1 } } }, { rev: 12, prev: 11, event: 'x', version: 2, payload: 2 }] }));
    await follower.catchUp();
    assert.equal(follower.error, undefined, 'an answer clears the error');
    assert.deepEqual(got.map((event) => [event.rev, event.prev, event.version]), [[11, 10, 1], [12, 11, 2]], 'the good events, once, in order');
    assert.equal(follower.cursor, 15, "the answer's rev covers what filters left out");
    // the cursors went out as the follower held them, each poll its own key
    const keys = server.requests.map((request) => request.headers['idempotency-key']);
    assert.equal(new Set(keys).size, keys.length, 'a new key per poll');
    assert.deepEqual(JSON.parse(server.requests.at(-1).text), { cursors: { [TOPIC]: 10 }, scopes: {} }, 'the polls sent the cursor held');
    await follower.catchUp();
    assert.deepEqual(JSON.parse(server.requests.at(-1).text), { cursors: { [TOPIC]: 15 }, scopes: {} }, 'the next poll sends the new cursor');
    await follower.close();
    assert.equal(follower.mode, 'closed');
  } finally {
    await follower.close();
  }
});
