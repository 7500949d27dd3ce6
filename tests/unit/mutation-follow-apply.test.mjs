// applyChanges() of a REST proxy, against a scripted fake fetch (the survivors of the follower's
// mutation run, tests/mutation/README.md): what it checks and the TypeError it throws, which
// records it reads (each pk once, in the change's order, at most 8 at a time, none after a
// failure), and the rows it gives back (created appended, updated replaced where they stand,
// deleted and 404 removed, pks compared exactly; what cannot be a pk refused before any read).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { flush } from './fake-clock.mjs';
import { HANG, installFetch } from './fake-fetch.mjs';
import { restItems } from './kit.mjs';

/** The records the fake server holds, by the pk in the URL. */
const records = new Map();
/** pk -> an answer of the test's own (status, body), or HANG. */
const special = new Map();
const server = installFetch((request) => {
  const pk = decodeURIComponent(new URL(request.url).pathname.replace(/^\/items\//, '').replace(/\/$/, ''));
  if (special.has(pk)) return special.get(pk);
  if (!records.has(pk)) return { status: 404, body: { detail: 'Not found.' } };
  return { status: 200, body: records.get(pk) };
});
const pkg = await import('../../pkg/index.js');
const items = restItems(pkg);

/** The pks the fake server was asked for, in order. */
const asked = () => server.requests.map((request) => decodeURIComponent(new URL(request.url).pathname.replace(/^\/items\//, '').replace(/\/$/, '')));

function reset() {
  records.clear();
  special.clear();
  server.requests.length = 0;
}

const SHAPE = "applyChanges: change must be { op: 'created' | 'updated' | 'deleted', changes: [{ pk }] }";

test('what is not rows or a change is a TypeError naming what is wrong, and nothing is read', async () => {
  reset();
  await assert.rejects(items.applyChanges({ length: 0 }, { op: 'deleted', changes: [] }), { name: 'TypeError', message: 'applyChanges: rows must be an array' });
  for (const change of [
    null,
    'created',
    [],
    { op: 'removed', changes: [] },
    { op: 'created' },
    { op: 'updated', changes: { 0: { pk: 1 } } },
    { op: 'deleted', changes: [{ id: 1 }] },
    { op: 'deleted', changes: [{ pk: 1 }, null] },
    { op: 'deleted', changes: [{ pk: 1 }, [1]] },
    { op: 'deleted', changes: [Object.create({ pk: 1 })] },
  ]) {
    await assert.rejects(items.applyChanges([], change), { name: 'TypeError', message: SHAPE }, JSON.stringify(change));
  }
  // each op is taken
  assert.deepEqual(await items.applyChanges([{ id: 1 }], { op: 'deleted', changes: [{ pk: 1 }] }), []);
  assert.deepEqual(await items.applyChanges([{ id: 1 }], { op: 'created', changes: [] }), [{ id: 1 }]);
  assert.deepEqual(await items.applyChanges([{ id: 1 }], { op: 'updated', changes: [] }), [{ id: 1 }]);
  assert.equal(server.requests.length, 0, 'nothing read');
});

test('on an object that is not a proxy, or a proxy without retrieve(): a TypeError', async () => {
  reset();
  const apply = items.applyChanges;
  await assert.rejects(apply.call({}, [], { op: 'deleted', changes: [] }), { name: 'TypeError', message: 'applyChanges() was called on an object that is not a ViewSet proxy' });
  await assert.rejects(apply.call({ pkFieldName: 7 }, [], { op: 'deleted', changes: [] }), { name: 'TypeError', message: 'applyChanges() was called on an object that is not a ViewSet proxy' });
  // deleted needs no retrieve
  assert.deepEqual(await apply.call({ pkFieldName: 'id' }, [{ id: 1 }, { id: 2 }], { op: 'deleted', changes: [{ pk: 2 }] }), [{ id: 1 }]);
  for (const op of ['created', 'updated']) {
    await assert.rejects(apply.call({ pkFieldName: 'id', retrieve: 'no' }, [], { op, changes: [{ pk: 1 }] }), {
      name: 'TypeError',
      message: 'applyChanges: the proxy has no retrieve() to read the changed records with',
    });
  }
  // retrieve is called on the proxy itself
  const seen = [];
  const own = {
    pkFieldName: 'code',
    retrieve(pk) {
      seen.push([this, pk]);
      return Promise.resolve({ code: pk, by: 'own' });
    },
  };
  assert.deepEqual(await apply.call(own, [], { op: 'created', changes: [{ pk: 'a' }] }), [{ code: 'a', by: 'own' }]);
  assert.equal(seen.length, 1);
  assert.equal(seen[0][0], own, 'retrieve() called with the proxy as this');
  assert.equal(seen[0][1], 'a');
});

test('created: each pk read once, in the change\'s order, appended; one already there replaced where it stands', async () => {
  reset();
  records.set('3', { id: 3, v: 'three' });
  records.set('1', { id: 1, v: 'one, new' });
  records.set('5', { id: 5, v: 'five' });
  const rows = [{ id: 1, v: 'one' }, { id: 2, v: 'two' }];
  const out = await items.applyChanges(rows, { op: 'created', changes: [{ pk: 3 }, { pk: 1 }, { pk: 3 }, { pk: 5 }] });
  assert.deepEqual(out, [{ id: 1, v: 'one, new' }, { id: 2, v: 'two' }, { id: 3, v: 'three' }, { id: 5, v: 'five' }]);
  assert.deepEqual(asked(), ['3', '1', '5'], 'each pk once, in order');
  assert.deepEqual(rows, [{ id: 1, v: 'one' }, { id: 2, v: 'two' }], 'the rows given are not changed');
  assert.notEqual(out, rows);
});

test('updated: replaced where they stand; a record gone (404) removes its row; rows keep their duplicates but the first is the one replaced', async () => {
  reset();
  records.set('2', { id: 2, v: 'two, new' });
  records.set('4', { id: 4, v: 'four, new' });
  const rows = [{ id: 1 }, { id: 2, v: 'two' }, 'not an object', { id: 3 }, { id: 2, v: 'two again' }, { id: 4 }];
  const out = await items.applyChanges(rows, { op: 'updated', changes: [{ pk: 4 }, { pk: 3 }, { pk: 2 }] });
  assert.deepEqual(out, [{ id: 1 }, { id: 2, v: 'two, new' }, 'not an object', { id: 2, v: 'two again' }, { id: 4, v: 'four, new' }]);
  // a 404 of a pk that is in no row: nothing happens
  assert.deepEqual(await items.applyChanges([{ id: 1 }], { op: 'updated', changes: [{ pk: 9 }] }), [{ id: 1 }]);
  // nothing gone: the rows as they were (a new array)
  const same = [{ id: 1 }];
  const kept = await items.applyChanges(same, { op: 'updated', changes: [] });
  assert.deepEqual(kept, same);
  assert.notEqual(kept, same);
});

test('deleted: the rows of those pks go, the first row of each pk, nothing is read', async () => {
  reset();
  const out = await items.applyChanges([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 2, dup: true }], { op: 'deleted', changes: [{ pk: 2 }, { pk: 3 }, { pk: 7 }] });
  assert.deepEqual(out, [{ id: 1 }, { id: 2, dup: true }]);
  assert.equal(server.requests.length, 0);
});

test('pks compare exactly: a number and its string differ, an integer and its bigint are one; what cannot be a pk is refused before anything is read', async () => {
  reset();
  const apply = items.applyChanges;
  // a string pk does not match a number row
  assert.deepEqual(await apply.call({ pkFieldName: 'id' }, [{ id: 1 }, { id: '1' }], { op: 'deleted', changes: [{ pk: '1' }] }), [{ id: 1 }]);
  assert.deepEqual(await apply.call({ pkFieldName: 'id' }, [{ id: 1 }, { id: '1' }], { op: 'deleted', changes: [{ pk: 1 }] }), [{ id: '1' }]);
  // a bigint pk is the integer it writes (issue 36: compared exactly)
  assert.deepEqual(await apply.call({ pkFieldName: 'id' }, [{ id: 1n }, { id: 2n }, { id: 3 }], { op: 'deleted', changes: [{ pk: 2n }, { pk: 3n }] }), [{ id: 1n }]);
  // rows whose pk is no pk are never matched
  const odd = [{}, { id: null }, { id: { a: 1 } }, { id: NaN }, { id: [1] }];
  assert.deepEqual(await apply.call({ pkFieldName: 'id' }, odd, { op: 'deleted', changes: [{ pk: 1 }] }), odd);
  // objects, arrays, null, NaN, Infinity, a number past 2^53, '' and dot segments are refused, in every op, before any read
  const reads = [];
  const reader = { pkFieldName: 'id', retrieve: (pk) => (reads.push(pk), Promise.resolve({ id: pk })) };
  for (const pk of [{ a: 1 }, [1, 2], null, undefined, NaN, Infinity, 2 ** 53, 0.5, false, '', '.', '..']) {
    for (const op of ['created', 'updated', 'deleted']) {
      await assert.rejects(apply.call(reader, [], { op, changes: [{ pk: 1 }, { pk }] }), { name: 'TypeError' }, `${op} ${String(pk)}`);
    }
  }
  assert.deepEqual(reads, [], 'nothing read');
  // a change listing the same pk twice (a number and its bigint) reads it once (as it was given last)
  assert.deepEqual(await apply.call(reader, [], { op: 'created', changes: [{ pk: 7 }, { pk: 7n }] }), [{ id: 7n }]);
  assert.deepEqual(reads, [7n]);
});

test('a retrieve that answers another pk (or not a record) is a TypeError, never a duplicated row', async () => {
  reset();
  records.set('1', { id: 2, v: 'the wrong one' });
  await assert.rejects(items.applyChanges([{ id: 1 }, { id: 2 }], { op: 'updated', changes: [{ pk: 1 }] }), {
    name: 'TypeError',
    message: 'applyChanges: retrieve(1) answered a record whose id is not 1',
  });
  records.set('1', { id: '1' });
  await assert.rejects(items.applyChanges([], { op: 'created', changes: [{ pk: 1 }] }), { name: 'TypeError', message: 'applyChanges: retrieve(1) answered a record whose id is not 1' });
  const apply = items.applyChanges;
  for (const answer of [null, 7, [1], 'x']) {
    await assert.rejects(apply.call({ pkFieldName: 'id', retrieve: () => Promise.resolve(answer) }, [], { op: 'created', changes: [{ pk: 1 }] }), /retrieve\(1\) answered a record whose id is not 1/);
  }
});

test('a failure other than 404 rejects with its error, and no read starts after it', async () => {
  reset();
  for (let pk = 1; pk <= 20; pk++) records.set(String(pk), { id: pk });
  special.set('3', { status: 500, body: { detail: 'boom' } });
  const changes = Array.from({ length: 20 }, (_, i) => ({ pk: i + 1 }));
  const error = await items.applyChanges([], { op: 'created', changes }).then(
    () => assert.fail('resolved'),
    (e) => e,
  );
  assert.ok(error instanceof pkg.HttpError, `an HttpError (${error})`);
  assert.equal(error.status, 500);
  await flush();
  // (the schema is asked first: whether the list takes id__in; a 404 here)
  const reads = server.requests.filter((request) => !request.url.endsWith('/schema')).length;
  assert.ok(reads <= 10, `no read after the failure (${reads} of 20 read)`);
  // a 403 is no 404: it rejects too
  reset();
  records.set('1', { id: 1 });
  special.set('2', { status: 403, body: { detail: 'no' } });
  await assert.rejects(items.applyChanges([{ id: 2 }], { op: 'updated', changes: [{ pk: 1 }, { pk: 2 }] }), (e) => e instanceof pkg.HttpError && e.status === 403);
  // a thrown error that is no HttpError rejects as it is
  const apply = items.applyChanges;
  const odd = new Error('odd');
  await assert.rejects(apply.call({ pkFieldName: 'id', retrieve: () => Promise.reject(odd) }, [], { op: 'created', changes: [{ pk: 1 }] }), (e) => e === odd);
  const plain = Object.assign(new Error('plain 404'), { status: 404 });
  await assert.rejects(apply.call({ pkFieldName: 'id', retrieve: () => Promise.reject(plain) }, [], { op: 'created', changes: [{ pk: 1 }] }), (e) => e === plain, 'only an HttpError of 404 means gone');
});

test('at most 8 reads in flight; each answer starts the next; every record in the change\'s order', async () => {
  reset();
  const apply = items.applyChanges;
  const waiting = [];
  let inFlight = 0;
  let most = 0;
  const proxy = {
    pkFieldName: 'id',
    retrieve: (pk) =>
      new Promise((resolve) => {
        inFlight++;
        most = Math.max(most, inFlight);
        waiting.push(() => {
          inFlight--;
          resolve({ id: pk });
        });
      }),
  };
  const changes = Array.from({ length: 20 }, (_, i) => ({ pk: i }));
  const done = apply.call(proxy, [], { op: 'created', changes });
  await flush();
  assert.equal(waiting.length, 8, '8 reads started');
  // answered last first: the order of the rows is the change's
  waiting.pop()();
  await flush();
  assert.equal(waiting.length, 8, 'one answer, one more read');
  while (waiting.length) {
    waiting.shift()();
    await flush(2);
  }
  const out = await done;
  assert.equal(most, 8);
  assert.deepEqual(out.map((row) => row.id), changes.map((change) => change.pk));
  // fewer than 8: as many as there are
  reset();
  const few = [];
  const two = apply.call({ pkFieldName: 'id', retrieve: (pk) => new Promise((resolve) => few.push(() => resolve({ id: pk }))) }, [], { op: 'created', changes: [{ pk: 1 }, { pk: 2 }] });
  await flush();
  assert.equal(few.length, 2);
  few.forEach((answer) => answer());
  assert.deepEqual(await two, [{ id: 1 }, { id: 2 }]);
});

test('over REST: the 8 reads go out at once, the rest as answers come', async () => {
  reset();
  for (let pk = 1; pk <= 12; pk++) special.set(String(pk), HANG);
  const done = items.applyChanges([], { op: 'created', changes: Array.from({ length: 12 }, (_, i) => ({ pk: i + 1 })) });
  await flush();
  assert.equal(server.requests.length, 8);
  for (const request of server.requests.splice(0)) request.respond({ status: 404, body: {} });
  await flush();
  assert.equal(server.requests.length, 4);
  for (const request of server.requests.splice(0)) request.respond({ status: 404, body: {} });
  assert.deepEqual(await done, []);
  server.uninstall();
});
