// Written for the mutants of runtime.ts that the rest of the unit suite let live (see
// tests/mutation/README.md): the store of persisted calls as the runtime tells it (issued, settled)
// and a resumed call as the runtime shows it (pendingCalls(), activity events), over a small fake
// IndexedDB installed in this file's process only.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { flush } from './fake-clock.mjs';
import { HANG } from './fake-fetch.mjs';
import { installIndexedDB } from './fake-indexeddb.mjs';
import { assertNoLeaks, observe, recordActivity, restItems, restSetup } from './kit.mjs';

const { clock, server, pkg } = await restSetup();
const idb = installIndexedDB();

after(async () => {
  await assertNoLeaks(pkg, clock);
  idb.uninstall();
  server.uninstall();
  clock.uninstall();
});

test('a call with persist is stored as it is issued and removed once it settles; a resumed call shows resumed, its first issue time', async () => {
  const items = restItems(pkg);
  const issuedAt = clock.now() - 5_000;
  idb.seed.set('resumed-key-1', {
    key: 'resumed-key-1',
    basePath: '/items',
    method: 'POST',
    path: '/echo',
    query: '',
    headers: [['x-kept', 'yes']],
    body: '{"again":true}',
    form: null,
    issuedAt,
    withinMs: 60_000,
    delayMs: 1_000,
    jitter: 0,
  });
  server.script = () => HANG;
  const activity = recordActivity(pkg);
  const resumed = await pkg.resumeCalls();
  assert.equal(resumed.length, 1);
  const [entry] = resumed;
  assert.equal(entry.key, 'resumed-key-1');
  assert.equal(entry.call.key, 'resumed-key-1');
  await flush();
  const [sent] = server.requestsWithKey('resumed-key-1');
  assert.equal(sent.text, '{"again":true}', 'the stored bytes');
  assert.equal(sent.headers['x-kept'], 'yes');

  const pending = pkg.pendingCalls().find((call) => call.key === 'resumed-key-1');
  assert.equal(pending.resumed, true, 'pendingCalls() says it was resumed');
  assert.equal(pending.issuedAt, issuedAt, 'with its first issue time, not the time it was sent again');
  assert.ok(activity.of('resumed-key-1').length > 0);
  for (const event of activity.of('resumed-key-1')) assert.equal(event.resumed, true, `${event.type} event says resumed`);

  // A new call with persist: stored as it is issued (credentials left out), removed when it settles.
  const call = items.echo({ n: 1 }, { persist: true, headers: { Authorization: 'Bearer secret', 'X-Note': 'n' } });
  const seen = observe(call);
  await flush();
  const stored = idb.rows().find((row) => row.key === call.key);
  assert.ok(stored, 'the call was put in the store as it was issued');
  assert.equal(stored.method, 'POST');
  assert.equal(stored.path, '/echo');
  assert.equal(stored.body, '{"n":1}');
  assert.deepEqual(
    stored.headers.map(([name]) => name.toLowerCase()).filter((name) => name === 'authorization' || name === 'x-note'),
    ['x-note'],
    'its credentials are not stored',
  );
  assert.equal(pkg.pendingCalls().find((p) => p.key === call.key).resumed, false, 'a call issued here is not resumed');
  // A call without persist is never stored, the store installed or not.
  const plain = items.echo({ n: 2 });
  const seenPlain = observe(plain);
  await flush();
  assert.equal(idb.log.filter(([op, value]) => op === 'put' && value.key === plain.key).length, 0, 'a call without persist is not stored');

  for (const request of server.requests) if (!request.answered) request.respond({ status: 200, body: { done: request.headers['idempotency-key'] } });
  await flush();
  await clock.settle?.();
  await flush();
  assert.equal(seen.ok, true);
  assert.equal(seenPlain.ok, true);
  assert.ok(!idb.log.some(([op, key]) => op === 'delete' && key === plain.key), 'nor removed from it');
  assert.deepEqual(
    idb.rows().map((row) => row.key),
    [],
    'both settled calls were removed from the store',
  );
  assert.ok(idb.log.some(([op, key]) => op === 'delete' && key === call.key), 'the new call was deleted on settling');
  // The recorder was the first listener of this process: every event it got was an event of a call.
  assert.ok(activity.events.every((event) => typeof event.type === 'string' && typeof event.key === 'string'), 'only call events');
  activity.stop();
});

test('a URLSearchParams body is stored as its text with the content type fetch gives it, unless the caller set one', async () => {
  server.script = () => HANG;
  const items = restItems(pkg);
  const plain = items.echo(new URLSearchParams({ a: '1', b: 'two' }), { persist: true });
  const typed = items.echo(new URLSearchParams({ c: '3' }), { persist: true, headers: { 'Content-Type': 'text/x-mine' } });
  await flush();
  const row = (call) => idb.rows().find((r) => r.key === call.key);
  assert.equal(row(plain).body, 'a=1&b=two');
  assert.deepEqual(
    row(plain).headers.filter(([name]) => name.toLowerCase() === 'content-type'),
    [['content-type', 'application/x-www-form-urlencoded;charset=UTF-8']],
  );
  assert.equal(row(typed).body, 'c=3');
  assert.deepEqual(row(typed).headers.filter(([name]) => name.toLowerCase() === 'content-type').map(([, value]) => value), ['text/x-mine']);
  assert.equal(row(plain).form, null);
  for (const request of server.requests) if (!request.answered) request.respond({ status: 200, body: {} });
  await flush();
  await plain;
  await typed;
  await flush();
});
