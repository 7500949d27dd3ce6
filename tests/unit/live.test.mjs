// liveList(proxy) against a scripted server (a fake fetch, no backend): the rules a live list keeps
// that the real backend cannot be made to break on purpose. A late answer never overrides a newer
// event; hostile answers and changes make it read again (never a wrong row); reads of a sorted
// list are coalesced (one in flight, at most one waiting); a throwing listener harms nothing; the
// records of a change are read in batches of `batch` by `{pk}__in` where the schema declares it.
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';

import { HANG, installFetch } from './fake-fetch.mjs';

const BASE = 'http://backend.test';
/** The server: items by id, the topic's log, and requests a test holds back to answer itself. */
const db = new Map();
let rev = 100;
let log = [];
let hold = () => false;
let schemaIn = false;
/** When set, the list answers pages of this many rows (the backend's paginated envelope), whatever the proxy's action. */
let pageRows = 0;
const held = [];

function publish(op, pks) {
  const prev = rev;
  rev += 1;
  log.push({ rev, prev, event: 'records_changed', version: 1, payload: { op, changes: pks.map((pk) => ({ pk })) } });
}

const server = installFetch((request) => {
  const url = new URL(request.url);
  if (hold(request, url)) {
    held.push(request);
    return HANG;
  }
  if (url.pathname === '/events/poll') {
    const cursor = JSON.parse(request.text).cursors['/items'];
    const events = cursor === null ? [] : log.filter((event) => event.rev > cursor);
    return { status: 200, body: { topics: { '/items': { rev, events } }, poll_after_ms: 0 } };
  }
  if (url.pathname === '/items/schema') {
    return { status: 200, body: { paths: { '/items': { get: { parameters: schemaIn ? [{ name: 'id__in', in: 'query' }] : [] } } } } };
  }
  if (url.pathname === '/items') {
    const wanted = url.searchParams.getAll('id__in').map(Number);
    const rows = [...db.values()];
    if (pageRows && !wanted.length) {
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? pageRows);
      return { status: 200, body: { results: rows.slice(offset, offset + limit), count: rows.length, offset, limit, has_more: offset + limit < rows.length } };
    }
    return { status: 200, body: wanted.length ? rows.filter((row) => wanted.includes(row.id)) : rows };
  }
  const pk = Number(url.pathname.split('/')[2]);
  return db.has(pk) ? { status: 200, body: db.get(pk) } : { status: 404, body: { detail: 'not found', detail_code: 'fastapi-viewsets.not_found' } };
});
const pkg = await import('../../pkg/index.js');
after(() => server.uninstall());

beforeEach(() => {
  db.clear();
  log = [];
  hold = () => false;
  schemaIn = false;
  pageRows = 0;
  held.length = 0;
  server.requests.length = 0;
});

function items() {
  const Api = pkg.restViewSet()('id', [pkg.ViewSetMixin]);
  return new Api({ basePath: '/items', baseUrl: BASE, schemaCheck: false, repeat: { withinMs: 0 } });
}

const until = async (check, what, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const names = (list) => list.rows.map((row) => row.name);

test('a retrieve answered after a newer delete event does not bring the row back', async () => {
  db.set(1, { id: 1, name: 'one' });
  const list = pkg.liveList(items(), undefined, { pollIntervalMs: 20 });
  try {
    await list.ready;
    // the update's retrieve is held back; meanwhile the row is deleted
    hold = (request, url) => request.method === 'GET' && url.pathname === '/items/1';
    db.set(1, { id: 1, name: 'one, renamed' });
    publish('updated', [1]);
    await until(() => held.length === 1, 'the retrieve');
    db.delete(1);
    publish('deleted', [1]);
    await until(() => list.rows.length === 0, 'the delete');
    held[0].respond({ status: 200, body: { id: 1, name: 'one, renamed' } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(list.rows, [], 'the late answer is older than the delete');
  } finally {
    await list.close();
  }
});

test('a change that is not a change, and a list answer that is not a list: read again, the rows never wrong', async () => {
  db.set(1, { id: 1, name: 'one' });
  const list = pkg.liveList(items(), undefined, { pollIntervalMs: 20 });
  try {
    await list.ready;
    const reads = () => server.requests.filter((request) => request.method === 'GET' && new URL(request.url).pathname === '/items').length;
    const before = reads();
    db.set(2, { id: 2, name: 'two' });
    log.push({ rev: rev + 1, prev: rev, event: 'records_changed', version: 1, payload: { op: 'created', changes: [{ pk: { toString: 1 } }] } });
    rev += 1;
    await until(() => list.rows.length === 2, 'read again');
    assert.ok(reads() > before, 'the list was read again');
    // the next read answers something that is not an array of records
    hold = (request, url) => request.method === 'GET' && url.pathname === '/items';
    const refreshed = list.refresh();
    await until(() => held.length === 1, 'the read');
    held[0].respond({ status: 200, body: { not: 'a list' } });
    await assert.rejects(refreshed, /not an array/);
    assert.deepEqual(names(list), ['one', 'two'], 'the rows stay');
    assert.equal(list.status.why, 'read-failed');
    hold = () => false;
    await until(() => list.status.why === null, 'read again on its own', 5000);
  } finally {
    await list.close();
  }
});

test('a sorted list reads again on changes, one read in flight and at most one waiting', async () => {
  db.set(1, { id: 1, name: 'b' });
  const list = pkg.liveList(items(), { sort: 'name' }, { pollIntervalMs: 20 });
  try {
    await list.ready;
    hold = (request, url) => request.method === 'GET' && url.pathname === '/items';
    for (let i = 2; i < 7; i++) {
      db.set(i, { id: i, name: `n${i}` });
      publish('created', [i]);
    }
    await until(() => held.length === 1, 'the first read again');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(held.length, 1, 'one read in flight');
    hold = () => false;
    held[0].respond({ status: 200, body: [...db.values()].slice(0, 3) });
    await until(() => list.rows.length === 6, 'the waiting read');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const reads = server.requests.filter((request) => request.method === 'GET' && new URL(request.url).pathname === '/items');
    assert.ok(reads.length <= 3, `the first read, the one in flight, one waiting (${reads.length})`);
    assert.ok(reads.every((request) => new URL(request.url).searchParams.get('sort') === 'name'), 'with the params');
  } finally {
    await list.close();
  }
});

test('a listener that throws is warned about; the others are told and the list goes on', async () => {
  const warned = [];
  const original = console.error;
  console.error = (...args) => warned.push(args.join(' '));
  const list = pkg.liveList(items(), undefined, { pollIntervalMs: 20 });
  try {
    const told = [];
    list.subscribe(() => {
      throw new Error('listener bug');
    });
    list.subscribe((current) => told.push(current.rows.length));
    await list.ready;
    db.set(1, { id: 1, name: 'one' });
    publish('created', [1]);
    await until(() => told.at(-1) === 1, 'told');
    assert.ok(warned.some((line) => line.includes('listener bug')), 'warned');
  } finally {
    console.error = original;
    await list.close();
  }
});

test('a change of 120 records: three {pk}__in list calls of at most 50 where the schema declares id__in', async () => {
  schemaIn = true;
  const list = pkg.liveList(items(), undefined, { pollIntervalMs: 20 });
  try {
    await list.ready;
    await until(() => server.requests.some((request) => request.url.endsWith('/items/schema')), 'the schema');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const pks = Array.from({ length: 120 }, (_, i) => i + 1);
    for (const pk of pks) db.set(pk, { id: pk, name: `n${pk}` });
    publish('created', pks);
    await until(() => list.rows.length === 120, 'the records');
    const calls = server.requests.filter((request) => new URL(request.url).searchParams.has('id__in'));
    assert.deepEqual(calls.map((request) => new URL(request.url).searchParams.getAll('id__in').length), [50, 50, 20]);
    assert.equal(server.requests.filter((request) => /\/items\/\d+$/.test(new URL(request.url).pathname)).length, 0, 'no retrieve');
    assert.deepEqual(list.rows.map((row) => row.id), pks, 'in the order of the change');
  } finally {
    await list.close();
  }
});

test('own writes: the row at once, the answer in its place, a failure rolled back (reported by its call alone); a replayed answer after a delete event is not shown', async () => {
  const proxy = items();
  const list = pkg.liveList(proxy, undefined, { pollIntervalMs: 20 });
  try {
    await list.ready;
    hold = (request, url) => url.pathname.startsWith('/items') && (request.method === 'POST' || request.method === 'PATCH');
    const create = proxy.create({ name: 'mine' });
    assert.deepEqual(names(list), ['mine'], 'in the task of the call');
    assert.equal(list.pendingOf(list.rows[0]).key, create.key);
    db.set(7, { id: 7, name: 'mine' });
    await until(() => held.length === 1, 'the create sent');
    held[0].respond({ status: 200, body: { id: 7, name: 'mine' } });
    await create;
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(list.rows, [{ id: 7, name: 'mine' }]);
    const rename = proxy.partialUpdate(7, { name: 'renamed' });
    assert.deepEqual(names(list), ['renamed']);
    db.delete(7);
    publish('deleted', [7]);
    await until(() => list.rows.length === 0, 'the delete event');
    await until(() => held.length === 2, 'the update sent');
    held[1].respond({ status: 200, body: { id: 7, name: 'renamed' } });
    await rename;
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(list.rows, [], 'stays deleted');
    const bad = proxy.create({ name: 5 });
    assert.equal(list.rows.length, 1);
    await until(() => held.length === 3, 'the create sent');
    held[2].respond({ status: 422, body: { detail: 'The request failed validation', detail_code: 'fastapi-viewsets.validation_failed' } });
    const error = await bad.then(() => null, (reason) => reason);
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(list.rows, [], 'rolled back');
    assert.equal(error?.status, 422, 'the call reports it');
    assert.deepEqual(list.pending, [], 'and the list does not (no keepFailed)');
  } finally {
    await list.close();
  }
});

test('a list sorted by fields of the row places own writes by the backend’s comparison (desc, NULL last descending, ties by the next field); a sort it cannot read says placed: false', async () => {
  // the server's order for year:desc,name
  for (const row of [{ id: 1, name: 'a', year: 2001 }, { id: 2, name: 'b', year: 1999 }, { id: 3, name: 'c', year: null }]) db.set(row.id, row);
  const proxy = items();
  const list = pkg.liveList(proxy, { sort: 'year:desc,name' }, { pollIntervalMs: 20 });
  const unread = pkg.liveList(proxy, { sort: 'year:up' }, { pollIntervalMs: 20 });
  try {
    await Promise.all([list.ready, unread.ready]);
    hold = (request, url) => url.pathname.startsWith('/items') && (request.method === 'POST' || request.method === 'PATCH');
    const calls = [proxy.create({ name: 'x', year: 2000 }), proxy.create({ name: 'n', year: null }), proxy.partialUpdate(1, { year: 1990 })];
    for (const call of calls) call.catch(() => {});
    assert.deepEqual(list.rows.map((row) => `${row.name}:${row.year}`), ['x:2000', 'b:1999', 'a:1990', 'c:null', 'n:null'], 'in the task of the calls');
    assert.deepEqual(list.pending.map((write) => write.placed), [true, true, true]);
    // 'year:up' is no direction the backend reads: the list has no known order
    assert.deepEqual(unread.rows.map((row) => row.name), ['a', 'b', 'c', 'x', 'n'], 'in place, creates last');
    assert.deepEqual(unread.pending.map((write) => write.placed), [false, false, false]);
    // refused, so that no write is left open for the next test
    await until(() => held.length === 3, 'the writes sent');
    for (const request of held) request.respond({ status: 422, body: { detail: 'no' } });
    await Promise.allSettled(calls);
  } finally {
    await list.close();
    await unread.close();
  }
});

test('a pending destroy keeps its row, marked, until answered; a refused one only unmarks it', async () => {
  db.set(1, { id: 1, name: 'one' });
  const proxy = items();
  const list = pkg.liveList(proxy, undefined, { pollIntervalMs: 20 });
  try {
    await list.ready;
    hold = (request) => request.method === 'DELETE';
    const refused = proxy.destroy(1);
    assert.deepEqual(names(list), ['one']);
    assert.equal(list.pendingOf(list.rows[0])?.op, 'destroy');
    assert.equal(list.pendingOf(list.rows[0])?.key, refused.key);
    assert.equal(list.pending[0].row, list.rows[0], 'the row it deletes');
    await until(() => held.length === 1, 'the delete sent');
    held[0].respond({ status: 409, body: { detail: 'in use' } });
    await refused.catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(names(list), ['one']);
    assert.equal(list.pendingOf(list.rows[0]), undefined, 'unmarked');
    const done = proxy.destroy(1);
    await until(() => held.length === 2, 'the delete sent');
    assert.equal(list.pendingOf(list.rows[0])?.key, done.key);
    db.delete(1);
    held[1].respond({ status: 200, body: { 1: null } });
    await done;
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(list.rows, [], 'gone once answered');
  } finally {
    await list.close();
  }
});

test('a proxy with list() whose first answer is a page: the list turns paged from that answer (no second read of it), and loadMore() reads the next page', async () => {
  for (let id = 1; id <= 5; id++) db.set(id, { id, name: `n${id}` });
  pageRows = 2;
  const list = pkg.liveList(items(), undefined, { pollIntervalMs: 20 });
  try {
    await list.ready;
    assert.deepEqual(names(list), ['n1', 'n2']);
    assert.equal(list.status.window, 'can-load-more');
    assert.equal(list.status.total, 5);
    await list.loadMore();
    assert.deepEqual(names(list), ['n1', 'n2', 'n3', 'n4']);
    await list.loadMore();
    assert.deepEqual(names(list), ['n1', 'n2', 'n3', 'n4', 'n5']);
    assert.equal(list.status.window, 'exhausted');
    const reads = server.requests.map((request) => new URL(request.url)).filter((url) => url.pathname === '/items').map((url) => url.search);
    assert.deepEqual(reads, ['', '?offset=2&limit=2', '?offset=4&limit=2'], 'the first page read once, then one read a page');
  } finally {
    await list.close();
  }
});
