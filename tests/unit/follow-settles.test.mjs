// When a follower's `ready` and `catchUp()` settle, as events.ts's doc comments say: `ready` once
// the follower has heard the server (its first poll answered, or its subscribe) and handed out
// what that answer brought, also when it starts from a rev it already holds; `catchUp()` on a
// follower the server refused rejects with the refusal, also after its onRefused returned.
// Two defects the follower's mutation run found (tests/mutation/README.md).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { flush } from './fake-clock.mjs';
import { HANG } from './fake-fetch.mjs';
import { observe, restSetup } from './kit.mjs';

const realSetTimeout = globalThis.setTimeout;
const { clock, server, pkg } = await restSetup(() => HANG);

/** The polls that carried `topic`. */
const pollsOf = (topic) => server.requests.filter((request) => Object.hasOwn(JSON.parse(request.text).cursors, topic));

/** Waits (in real time: the follower's chunk loads on demand) until `count` polls carried `topic`; returns them. */
async function polls(topic, count) {
  for (let i = 0; i < 200 && pollsOf(topic).length < count; i++) {
    await new Promise((resolve) => realSetTimeout(resolve, 5));
    await clock.advance(0);
  }
  assert.equal(pollsOf(topic).length, count, `${count} poll(s) of ${topic}`);
  return pollsOf(topic);
}
const BASE = 'http://backend.test';
const consoleError = console.error;
const warnings = [];
console.error = (...args) => warnings.push(args);
after(() => {
  console.error = consoleError;
});

test('ready with from: a rev waits for the first poll\'s answer and the events it brought', async () => {
  const seen = [];
  const follower = pkg.follow('from-rev', { baseUrl: BASE, from: 5, onEvent: (event) => seen.push(event.rev) });
  const ready = observe(follower.ready);
  const [first] = await polls('from-rev', 1);
  assert.deepEqual(JSON.parse(first.text).cursors, { 'from-rev': 5 });
  assert.equal(ready.settled, false, 'ready waits: nothing was heard from the server yet');
  first.respond({ status: 200, body: { topics: { 'from-rev': { rev: 7, events: [{ rev: 6, prev: 5, event: 'e', version: 1, payload: null }, { rev: 7, prev: 6, event: 'e', version: 1, payload: null }] } }, poll_after_ms: 0 } });
  await flush();
  await clock.advance(10);
  assert.deepEqual(seen, [6, 7]);
  assert.deepEqual(ready, { settled: true, ok: true, value: undefined, error: undefined }, 'ready resolved once the answer was handed out');
  await follower.close();
  await clock.advance(100_000);
  server.requests.length = 0;
});

test('ready with from: a rev rejects when the first poll fails', async () => {
  const follower = pkg.follow('from-rev-fails', { baseUrl: BASE, from: 5 });
  const ready = observe(follower.ready);
  const [first] = await polls('from-rev-fails', 1);
  assert.equal(ready.settled, false);
  first.respond({ status: 503, body: { detail: 'later' } });
  await flush();
  await clock.advance(10);
  assert.equal(ready.settled, true);
  assert.equal(ready.ok, false, 'the first poll failed: ready rejects');
  assert.equal(ready.error.status, 503);
  await follower.close();
  await clock.advance(100_000);
  server.requests.length = 0;
});

test('catchUp() on a refused follower rejects with the refusal, also after its onRefused returned', async () => {
  const refusals = [];
  const follower = pkg.follow('refused-late', { baseUrl: BASE, onRefused: (error) => void refusals.push(error) });
  const [first] = await polls('refused-late', 1);
  first.respond({ status: 403, body: { detail: 'not yours' } });
  await assert.rejects(follower.ready, (error) => error.status === 403);
  await flush();
  await clock.advance(10);
  assert.equal(refusals.length, 1, 'onRefused ran and returned');
  assert.equal(follower.mode, 'refused');
  const caught = observe(follower.catchUp());
  await flush();
  await clock.advance(10);
  assert.equal(caught.settled, true);
  assert.equal(caught.ok, false, 'catchUp() of a refused follower rejects');
  assert.equal(caught.error, refusals[0], "with the refusal's error");
  assert.equal(pollsOf('refused-late').length, 1, 'nothing more was polled');
  await follower.close();
  await clock.advance(100_000);
  server.requests.length = 0;
});
