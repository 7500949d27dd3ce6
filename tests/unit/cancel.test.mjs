// Pins a caller's cancellation of a REST call through RequestOptions.signal (fake fetch, fake
// clock): the attempt's fetch is aborted and the call rejects with CallCancelled carrying its key and
// attempts; nothing is repeated, whether the abort comes while the attempt is out or while a repeat
// waits; an already-aborted signal sends nothing; a signal that is not an AbortSignal is a TypeError.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { HANG, networkError } from './fake-fetch.mjs';
import { assertNoLeaks, observe, recordActivity, restItems, restSetup } from './kit.mjs';

const { clock, server, pkg } = await restSetup();

after(async () => {
  await assertNoLeaks(pkg, clock);
  server.uninstall();
  clock.uninstall();
});

test('an abort while the attempt is out aborts its fetch; the call rejects with CallCancelled; nothing is repeated', async () => {
  server.script = () => HANG;
  const items = restItems(pkg, { repeat: { delayMs: 100 } });
  const activity = recordActivity(pkg);
  const controller = new AbortController();
  const call = items.create({ name: 'cancelled' }, { signal: controller.signal });
  const seen = observe(call);
  await clock.advance(500);
  const [request] = server.requestsWithKey(call.key);
  assert.equal(request.aborted, false);
  controller.abort();
  await clock.settle();
  assert.equal(request.aborted, true, 'the fetch was aborted');
  assert.ok(seen.error instanceof pkg.CallCancelled, `CallCancelled (${seen.error?.name})`);
  assert.equal(seen.error.key, call.key);
  assert.equal(seen.error.attempts, 1);
  await clock.advance(60_000);
  assert.equal(server.requestsWithKey(call.key).length, 1, 'not repeated');
  const events = activity.of(call.key);
  assert.deepEqual(events.map((event) => event.type), ['start', 'settle']);
  assert.equal(events[1].ok, false);
  assert.equal(events[1].ended, 'cancelled');
  activity.stop();
});

test('an abort while a repeat waits for its delay: no further attempt, CallCancelled', async () => {
  server.script = () => networkError();
  const items = restItems(pkg, { repeat: { delayMs: 5000 } });
  const controller = new AbortController();
  const call = items.list({}, { signal: controller.signal });
  const seen = observe(call);
  await clock.advance(1000);
  assert.equal(pkg.pendingCalls().find((p) => p.key === call.key)?.waitingFor, 'delay');
  controller.abort();
  await clock.settle();
  assert.ok(seen.error instanceof pkg.CallCancelled, `CallCancelled (${seen.error?.name})`);
  assert.equal(seen.error.attempts, 1);
  await clock.advance(60_000);
  assert.equal(server.requestsWithKey(call.key).length, 1);
});

test('an already-aborted signal: the call rejects with CallCancelled; its one fetch is aborted at once, nothing repeated', async () => {
  // Today the first attempt's fetch is still called, with a signal aborted in the same task (the
  // docs say nothing either way; the platform's fetch sends nothing for an aborted signal).
  server.script = () => ({ status: 200, body: {} });
  const items = restItems(pkg);
  const call = items.list({}, { signal: AbortSignal.abort() });
  const sentSync = server.requestsWithKey(call.key);
  assert.ok(sentSync.every((request) => request.signal.aborted), 'any fetch started had its signal aborted before the caller got the promise');
  await assert.rejects(call, pkg.CallCancelled);
  await clock.advance(60_000);
  const sent = server.requestsWithKey(call.key);
  assert.ok(sent.length <= 1, 'at most the first attempt');
  assert.ok(sent.every((request) => request.aborted && !request.answered), 'and it was aborted, not answered');
});

test('an abort after the call settled changes nothing', async () => {
  server.script = () => ({ status: 200, body: { done: true } });
  const items = restItems(pkg);
  const controller = new AbortController();
  const call = items.list({}, { signal: controller.signal });
  assert.deepEqual(await call, { done: true });
  controller.abort();
  await clock.advance(1000);
  assert.equal(server.requestsWithKey(call.key).length, 1);
  assert.equal(server.requestsWithKey(call.key)[0].aborted, false);
});

test('a signal that is not an AbortSignal rejects with a TypeError; nothing is sent', async () => {
  const items = restItems(pkg);
  const before = server.requests.length;
  await assert.rejects(items.list({}, { signal: { aborted: false } }), TypeError);
  await clock.advance(1000);
  assert.equal(server.requests.length, before);
});
