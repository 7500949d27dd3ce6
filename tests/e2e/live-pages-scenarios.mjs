// Live lists bigger than a page (issue 38) end to end against the real backend (tests/backend/big.py:
// a paginated and a cursor ViewSet of 5 000 rows, 100 a page) through the fault proxy: the window
// starts with the first page; loadMore() reads the next one; the rows are always exactly a fresh
// read of the same pages, in the server's order, after a second client's creates, updates and
// deletes inside and outside the window (over REST polling and muxws push), also when rows move
// between two loadMore() calls; a resync with four pages loaded reads each page once, in order;
// an own create in a sorted cursor list is pending at once under its key, then lands in its sorted
// place or stays beyond the window. Each scenario runs unchanged in Node 20
// (tests/e2e/live-pages.test.mjs) and in headless Chromium (tests/browser/live-pages.test.mjs).
// A scenario gets { pkg, baseUrl, wsUrl, ctl }.
import { equal, ok, same } from './check.mjs';
import { sleep } from './control.mjs';
import { other, until } from './events-scenarios.mjs';

const POLL_MS = 200;
const PAGES = '/catalog/big-pages';
const CURSOR = '/catalog/big-cursor';

async function seed(ctl, baseUrl) {
  await ctl.clearFaults();
  await other(baseUrl, 'POST', '/__test/big/seed');
}

function restRows(pkg, baseUrl, path) {
  const mixins = [path === PAGES ? pkg.PaginatedListMixin : pkg.CursorListMixin, pkg.CreateMixin, pkg.RetrieveMixin, pkg.UpdateMixin, pkg.DestroyMixin];
  const Api = pkg.restViewSet()('id', mixins);
  return new Api({ basePath: path, baseUrl, schemaCheck: false, repeat: { delayMs: 50 } });
}

function muxRows(pkg, peer, path) {
  const mixins = [path === PAGES ? pkg.PaginatedListMixin : pkg.CursorListMixin, pkg.CreateMixin, pkg.RetrieveMixin, pkg.UpdateMixin, pkg.DestroyMixin];
  const Api = pkg.muxwsViewSet()('id', mixins);
  return new Api({ basePath: path, peer, schemaCheck: false });
}

const query = (params) => new URLSearchParams(Object.entries(params).filter(([, value]) => value != null).map(([name, value]) => [name, String(value)])).toString();

/** A fresh read of `pages` pages of `path` by a second client, as the list reads them: offsets, or each page from the one before's `next`. */
async function freshPages(baseUrl, path, pages, params = {}) {
  const rows = [];
  let page = null;
  for (let i = 0; i < pages; i++) {
    if (page && !page.has_more) break;
    const at = path === PAGES ? { offset: i * 100, limit: 100 } : page ? { cursor: page.next, limit: 100 } : {};
    page = await other(baseUrl, 'GET', `${path}?${query({ ...params, ...at })}`);
    rows.push(...page.results);
  }
  return { rows, count: page.count ?? null, hasMore: page.has_more };
}

const pairs = (rows) => rows.map((row) => `${row.id}:${row.name}`);

/** Resolves once the list's rows are a fresh read of `pages` pages; throws after `ms` with where they differ. */
async function untilFresh(list, baseUrl, path, pages, what, params = {}, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const fresh = await freshPages(baseUrl, path, pages, params);
    const mine = pairs(list.rows);
    const theirs = pairs(fresh.rows);
    if (JSON.stringify(mine) === JSON.stringify(theirs) && !list.status.stale) return fresh;
    if (Date.now() > deadline) {
      const at = mine.findIndex((pair, i) => pair !== theirs[i]);
      throw new Error(`${what}: ${mine.length} rows against ${theirs.length}, first difference at ${at}: ${mine.slice(at, at + 3)} | ${theirs.slice(at, at + 3)}`);
    }
    await sleep(50);
  }
}

/** No row twice in `rows`. */
function noDuplicate(rows, what) {
  const ids = rows.map((row) => row.id);
  equal(new Set(ids).size, ids.length, `${what}: no row twice`);
}

/** Watches every `rows` the list publishes: fails the check when one held a row twice. */
function watchDuplicates(list) {
  const seen = [];
  const stop = list.subscribe((current) => {
    const ids = current.rows.map((row) => row.id);
    if (new Set(ids).size !== ids.length) seen.push(ids.length);
  });
  return () => {
    stop();
    equal(seen.length, 0, `no published rows held a duplicate (${seen.length} did)`);
  };
}

function firstPagesScenario(path) {
  return async ({ pkg, baseUrl, ctl }) => {
    await seed(ctl, baseUrl);
    const list = pkg.liveList(restRows(pkg, baseUrl, path), undefined, { pollIntervalMs: POLL_MS });
    try {
      equal(list.status.window, 'loading-first-page', 'loading the first page at first');
      await list.ready;
      equal(list.rows.length, 100, 'the first page, 100 rows');
      same(list.rows.slice(0, 2).map((row) => row.id), [1, 2], 'from the first row');
      equal(list.status.window, 'can-load-more', 'more can be loaded');
      equal(list.status.total, path === PAGES ? 5000 : null, 'total: the server’s count (a cursor list has none)');
      for (let i = 2; i <= 4; i++) {
        const more = list.loadMore();
        await until(() => list.status.window === 'loading-more' || list.rows.length === i * 100, 2000, 'loading more');
        await more;
        equal(list.rows.length, i * 100, `${i} pages after loadMore()`);
        equal(list.status.window, 'can-load-more', 'more can still be loaded');
      }
      const fresh = await untilFresh(list, baseUrl, path, 4, '400 rows in the server’s order');
      same(list.rows.map((row) => row.id), Array.from({ length: 400 }, (_, i) => i + 1), 'ids 1 to 400');
      equal(list.status.total, fresh.count, 'total equals the server’s count');
      noDuplicate(list.rows, 'four pages');
      ok(Object.isFrozen(list.rows), 'rows frozen');
    } finally {
      await list.close();
    }
  };
}

function betweenLoadsScenario(path) {
  return async ({ pkg, baseUrl, ctl }) => {
    await seed(ctl, baseUrl);
    // sorted by rank: a row created with a small rank lands inside the window
    const params = { sort: 'rank' };
    const list = pkg.liveList(restRows(pkg, baseUrl, path), params, { pollIntervalMs: POLL_MS });
    const check = watchDuplicates(list);
    try {
      await list.ready;
      await list.loadMore();
      await untilFresh(list, baseUrl, path, 2, 'two pages', params);
      // between two loadMore() calls: a create at the top of the window and a delete in its first page
      const made = await other(baseUrl, 'POST', path, { name: 'made between', rank: 3 });
      const gone = list.rows[50];
      await other(baseUrl, 'DELETE', `${path}/${gone.id}`);
      await list.loadMore();
      noDuplicate(list.rows, 'right after the third page');
      await untilFresh(list, baseUrl, path, 3, 'three pages after a create and a delete', params);
      ok(list.rows.some((row) => row.id === made.id), 'the created row is in the window');
      ok(!list.rows.some((row) => row.id === gone.id), 'the deleted row left it');
      // and the other way round: a delete first, then a create, then the fourth page at once
      await other(baseUrl, 'DELETE', `${path}/${list.rows[10].id}`);
      await other(baseUrl, 'POST', path, { name: 'made between, 2', rank: 150 });
      await list.loadMore();
      noDuplicate(list.rows, 'right after the fourth page');
      const fresh = await untilFresh(list, baseUrl, path, 4, 'four pages after a delete and a create', params);
      equal(list.rows.length, 400, 'four whole pages');
      if (path === PAGES) equal(list.status.total, fresh.count, 'total');
    } finally {
      check();
      await list.close();
    }
  };
}

function otherClientScenario(path, transport) {
  return async ({ pkg, baseUrl, wsUrl, ctl }) => {
    await seed(ctl, baseUrl);
    const peer = transport === 'muxws' ? await pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 50, maxDelayMs: 400, jitter: 0 } }) : null;
    const proxy = peer ? muxRows(pkg, peer, path) : restRows(pkg, baseUrl, path);
    const params = path === CURSOR ? { sort: 'rank' } : {};
    const list = pkg.liveList(proxy, params, { pollIntervalMs: peer ? 60_000 : POLL_MS });
    const check = watchDuplicates(list);
    try {
      await list.ready;
      if (peer) await until(() => list.status.mode === 'push', 3000, 'push mode');
      for (let i = 0; i < 3; i++) await list.loadMore();
      await untilFresh(list, baseUrl, path, 4, 'four pages', params);
      const inside = list.rows[120];
      const beyond = path === PAGES ? 4000 : (await freshPages(baseUrl, path, 10, params)).rows[900].id;
      // inside the window: an update, a delete, a create (on the paginated list a create goes last: beyond it)
      await other(baseUrl, 'PATCH', `${path}/${inside.id}`, { name: 'renamed inside' });
      await until(() => list.rows.some((row) => row.name === 'renamed inside'), 5000, 'the update inside');
      await untilFresh(list, baseUrl, path, 4, 'an update inside', params);
      await other(baseUrl, 'DELETE', `${path}/${list.rows[250].id}`);
      await untilFresh(list, baseUrl, path, 4, 'a delete inside', params);
      equal(list.rows.length, 400, 'still four whole pages');
      const created = await other(baseUrl, 'POST', path, { name: 'created', rank: 7 });
      const fresh = await untilFresh(list, baseUrl, path, 4, 'a create', params);
      equal(list.rows.some((row) => row.id === created.id), path === CURSOR, path === CURSOR ? 'in its sorted place inside the window' : 'beyond the window: not inside it');
      if (path === PAGES) await until(() => list.status.total === fresh.count, 5000, `total ${fresh.count}`);
      // beyond the window: an update and a delete; the window stays as the server holds it
      await other(baseUrl, 'PATCH', `${path}/${beyond}`, { name: 'renamed beyond' });
      await other(baseUrl, 'DELETE', `${path}/${beyond + 1}`);
      await sleep(peer ? 300 : 3 * POLL_MS);
      await untilFresh(list, baseUrl, path, 4, 'changes beyond the window', params);
      ok(!list.rows.some((row) => row.name === 'renamed beyond'), 'a row beyond the window does not appear inside it');
      equal(list.status.window, 'can-load-more', 'more can be loaded');
    } finally {
      check();
      await list.close();
      await peer?.close();
    }
  };
}

/**
 * The last entry of the backend's request log (its `seq`): the requests after a mark are those
 * answered after it (a mark, not a time: a read made just before a time taken with some slack
 * would count).
 */
async function logMark(ctl) {
  return Math.max(0, ...(await ctl.log()).map((entry) => entry.seq));
}

/**
 * The list's own requests to `path` answered after `mark` (logMark): its page reads and
 * retrieves, not the follower's polls nor the schema. Over REST they carry an Idempotency-Key (the
 * test's own reads and writes do not); over muxws they come by the socket.
 */
async function listReads(ctl, path, mark, transport) {
  return (await ctl.log()).filter((entry) => entry.seq > mark && entry.method === 'GET' && (entry.path === path || (entry.path.startsWith(`${path}/`) && !/\/(events|schema)$/.test(entry.path))) && (transport === 'muxws' ? entry.transport === 'muxws' : entry.transport !== 'muxws' && entry.idempotency_key));
}

const described = (entries) => entries.map((entry) => `${entry.path}?${entry.query}`).join(' ');

/**
 * Window patching (issue 38 §2): four pages of an unsorted list, another client changes rows; each
 * change costs the reads it needs, not a read of the window: an update inside, its row alone; a
 * delete inside, the last page again (a cursor page: from its cursor, one row more); a create beyond
 * the window, the last page again for the count (paginated) or nothing (cursor). After each, the
 * window is a fresh read of the same four pages: no row twice, none missing at a page boundary.
 */
function patchScenario(path, transport) {
  return async ({ pkg, baseUrl, wsUrl, ctl }) => {
    await seed(ctl, baseUrl);
    const peer = transport === 'muxws' ? await pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 50, maxDelayMs: 400, jitter: 0 } }) : null;
    const proxy = peer ? muxRows(pkg, peer, path) : restRows(pkg, baseUrl, path);
    const list = pkg.liveList(proxy, undefined, { pollIntervalMs: peer ? 60_000 : POLL_MS });
    const check = watchDuplicates(list);
    // the reads one change made: after it shows, and after the list is current, a while for any read still to come
    const settle = () => sleep(peer ? 400 : 4 * POLL_MS);
    try {
      await list.ready;
      if (peer) await until(() => list.status.mode === 'push', 3000, 'push mode');
      for (let i = 0; i < 3; i++) await list.loadMore();
      await untilFresh(list, baseUrl, path, 4, 'four pages');
      await settle();

      // an update inside the window: the row alone is read
      let since = await logMark(ctl);
      const inside = list.rows[150];
      await other(baseUrl, 'PATCH', `${path}/${inside.id}`, { name: 'patched inside' });
      await until(() => list.rows[150]?.name === 'patched inside', 10_000, 'the update inside');
      await settle();
      let reads = await listReads(ctl, path, since, transport);
      same(reads.map((entry) => entry.path), [`${path}/${inside.id}`], `one read, the row's (${described(reads)})`);
      await untilFresh(list, baseUrl, path, 4, 'an update inside');

      // a delete inside (the third page): the last page is read again, nothing else
      since = await logMark(ctl);
      const gone = list.rows[250];
      const last = list.rows[399];
      await other(baseUrl, 'DELETE', `${path}/${gone.id}`);
      await until(() => !list.rows.some((row) => row.id === gone.id) && list.rows.length === 400, 10_000, 'the delete inside, and the window whole again');
      await untilFresh(list, baseUrl, path, 4, 'a delete inside');
      await settle();
      reads = await listReads(ctl, path, since, transport);
      equal(reads.length, 1, `one page read (${described(reads)})`);
      const query = new URLSearchParams(reads[0].query);
      if (path === PAGES) equal(query.get('offset'), '300', 'the last page, at its offset');
      else equal(query.get('limit'), '101', 'the last page from its cursor, one row more');
      equal(list.rows[398].id, last.id, 'the rows after the delete moved up one place');
      ok(list.rows[399].id > last.id, 'the row after the window entered at its end');

      // deletes at a page boundary (the last row of the second page, then the first of the third),
      // each once the window is whole again after the one before (two deletes the list learns of
      // apart while the server has made both: the last page read for the first shows the second's
      // rows moved already, and the window is read whole instead)
      since = await logMark(ctl);
      const edge = [list.rows[199].id, list.rows[200].id];
      for (const id of edge) {
        await other(baseUrl, 'DELETE', `${path}/${id}`);
        await until(() => !list.rows.some((row) => row.id === id) && list.rows.length === 400, 10_000, 'a delete at a page boundary');
      }
      await untilFresh(list, baseUrl, path, 4, 'deletes at a page boundary');
      await settle();
      reads = await listReads(ctl, path, since, transport);
      equal(reads.length, 2, `the last page read again for each (${described(reads)})`);
      ok(reads.every((entry) => new URLSearchParams(entry.query).get(path === PAGES ? 'offset' : 'cursor')), 'only the last page');

      // a create beyond the window: not in it; a paginated list reads its last page for the count
      since = await logMark(ctl);
      const count = list.status.total;
      const created = await other(baseUrl, 'POST', path, { name: 'created beyond', rank: 1 });
      const fresh = await untilFresh(list, baseUrl, path, 4, 'a create beyond the window');
      if (path === PAGES) await until(() => list.status.total === count + 1, 10_000, `total ${count + 1}`);
      await settle();
      reads = await listReads(ctl, path, since, transport);
      equal(reads.length, path === PAGES ? 1 : 0, `${path === PAGES ? 'the last page read again' : 'nothing read'} (${described(reads)})`);
      ok(!list.rows.some((row) => row.id === created.id), 'not inside the window');
      equal(list.status.total, fresh.count, 'total: the server’s count');
      equal(list.status.window, 'can-load-more', 'more can be loaded');
      equal(list.status.stale, false, 'current');
      // and the window still grows from where it ends
      await list.loadMore();
      await untilFresh(list, baseUrl, path, 5, 'a fifth page after the changes');
      noDuplicate(list.rows, 'five pages');
    } finally {
      check();
      await list.close();
      await peer?.close();
    }
  };
}

export const livePagesScenarios = {
  'pages: a paginated list: the first page, loadMore() three times gives 400 rows in the server’s order, total the server’s count': firstPagesScenario(PAGES),
  'pages: a cursor list: the first page, loadMore() three times gives 400 rows in the server’s order': firstPagesScenario(CURSOR),
  'pages: a paginated list sorted: a create and a delete between two loadMore() calls leave no duplicate and no gap': betweenLoadsScenario(PAGES),
  'pages: a cursor list sorted: a create and a delete between two loadMore() calls leave no duplicate and no gap': betweenLoadsScenario(CURSOR),
  'pages: a paginated list over REST polling follows another client inside and outside the window': otherClientScenario(PAGES, 'rest'),
  'pages: a cursor list over REST polling follows another client inside and outside the window': otherClientScenario(CURSOR, 'rest'),
  'pages: a paginated list over muxws push follows another client inside and outside the window': otherClientScenario(PAGES, 'muxws'),
  'pages: a cursor list over muxws push follows another client inside and outside the window': otherClientScenario(CURSOR, 'muxws'),
  'pages: a paginated list over REST polling is patched: an update inside reads the row, a delete inside the last page, a create beyond only the count': patchScenario(PAGES, 'rest'),
  'pages: a cursor list over REST polling is patched: an update inside reads the row, a delete inside the last page, a create beyond nothing': patchScenario(CURSOR, 'rest'),
  'pages: a paginated list over muxws push is patched: an update inside reads the row, a delete inside the last page, a create beyond only the count': patchScenario(PAGES, 'muxws'),
  'pages: a cursor list over muxws push is patched: an update inside reads the row, a delete inside the last page, a create beyond nothing': patchScenario(CURSOR, 'muxws'),

  async 'pages: the option shape asks a paginated ViewSet for cursor pages (X-List-Shape); loadMore() follows their next cursors'({ pkg, baseUrl, ctl }) {
    await seed(ctl, baseUrl);
    const since = Date.now() / 1000 - 0.05;
    // a proxy with listPage() only: the cursor pages are asked for with the header
    const list = pkg.liveList(restRows(pkg, baseUrl, PAGES), undefined, { pollIntervalMs: POLL_MS, shape: 'cursor', pageSize: 50 });
    try {
      await list.ready;
      same(list.rows.map((row) => row.id), Array.from({ length: 50 }, (_, i) => i + 1), 'the first page, 50 rows (pageSize)');
      equal(list.status.total, null, 'a cursor list has no count');
      await list.loadMore();
      same(list.rows.map((row) => row.id), Array.from({ length: 100 }, (_, i) => i + 1), 'the next page from its cursor');
      const reads = (await ctl.log()).filter((entry) => entry.t >= since && entry.method === 'GET' && entry.path === PAGES);
      equal(reads.length, 2, 'two page reads');
      ok(reads.every((entry) => entry.headers['x-list-shape'] === 'cursor'), 'each with X-List-Shape: cursor');
      ok(new URLSearchParams(reads[1].query).get('cursor'), 'the second with the first one’s next cursor');
      await other(baseUrl, 'PATCH', `${PAGES}/70`, { name: 'renamed' });
      await until(() => list.rows[69]?.name === 'renamed', 5000, 'the change in the second page');
      equal(list.rows.length, 100, 'two pages still');
    } finally {
      await list.close();
    }
  },

  async 'pages: a window started further on loads the pages before it: loadMore(\'previous\') by offset and by previous cursor'({ pkg, baseUrl, ctl }) {
    await seed(ctl, baseUrl);
    const ids = (list) => list.rows.map((row) => row.id);
    const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
    const paged = pkg.liveList(restRows(pkg, baseUrl, PAGES), { offset: 300 }, { pollIntervalMs: POLL_MS });
    try {
      await paged.ready;
      same(ids(paged), range(301, 400), 'the page at offset 300');
      equal(paged.status.hasPrevious, true, 'a page before it');
      for (let i = 0; i < 3; i++) await paged.loadMore('previous');
      same(ids(paged), range(1, 400), 'the three pages before it, in order');
      equal(paged.status.hasPrevious, false, 'none before the first');
      await paged.loadMore('previous');
      equal(paged.rows.length, 400, 'nothing more before the first page');
      await other(baseUrl, 'PATCH', `${PAGES}/150`, { name: 'renamed before' });
      await until(() => paged.rows[149]?.name === 'renamed before', 5000, 'a change in a page loaded before the start');
      same(ids(paged), range(1, 400), 'the window as it was');
    } finally {
      await paged.close();
    }
    const second = await other(baseUrl, 'GET', `${CURSOR}?limit=100`);
    const third = await other(baseUrl, 'GET', `${CURSOR}?${query({ limit: 100, cursor: second.next })}`);
    const cursor = pkg.liveList(restRows(pkg, baseUrl, CURSOR), { cursor: third.next }, { pollIntervalMs: POLL_MS });
    try {
      await cursor.ready;
      same(ids(cursor), range(201, 300), 'the page the cursor names');
      equal(cursor.status.hasPrevious, true, 'a page before it');
      await cursor.loadMore('previous');
      same(ids(cursor), range(101, 300), 'the page before, from its previous cursor');
      await cursor.loadMore();
      same(ids(cursor), range(101, 400), 'and the page after');
      await other(baseUrl, 'DELETE', `${CURSOR}/150`);
      await until(() => !cursor.rows.some((row) => row.id === 150), 5000, 'the delete');
      await until(() => cursor.rows.length === 299 && !cursor.status.stale, 5000, 'read again');
      same(ids(cursor), range(101, 400).filter((id) => id !== 150), 'each page read from its cursor again');
    } finally {
      await cursor.close();
    }
  },

  async 'pages: a resync with four pages loaded reads each page once, in order, and the window is right'({ pkg, baseUrl, wsUrl, ctl }) {
    await seed(ctl, baseUrl);
    const peer = await pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 600, maxDelayMs: 600, jitter: 0 } });
    let resyncs = 0;
    let changes = 0;
    const list = pkg.liveList(muxRows(pkg, peer, PAGES), undefined, { pollIntervalMs: 60_000, onResync: () => resyncs++, onChange: () => changes++ });
    try {
      await list.ready;
      await until(() => list.status.mode === 'push', 3000, 'push mode');
      for (let i = 0; i < 3; i++) await list.loadMore();
      await untilFresh(list, baseUrl, PAGES, 4, 'four pages');
      // the list's reads from here on: those answered after the log's last entry now
      const since = await logMark(ctl);
      // 40 writes (more than the log's 32) inside the window while the socket passes nothing, then
      // the socket cut: the peer comes back after every write is done, its cursor too old: a resync.
      // (Cut first, the writes could outlast the reconnect delay on a loaded machine, and the last
      // of them would come as changes after the resync, each a read of its own.)
      await ctl.silenceWs();
      await Promise.all(Array.from({ length: 40 }, (_, i) => other(baseUrl, 'PATCH', `${PAGES}/${i * 9 + 1}`, { name: `missed ${i}` })));
      await ctl.killWs();
      await until(() => list.rows[0].name === 'missed 0', 10_000, 'read again after the resync');
      await untilFresh(list, baseUrl, PAGES, 4, 'the window after the resync');
      // the list's reads go over its peer (the fresh reads of this test over REST)
      const reads = (await ctl.log()).filter((entry) => entry.seq > since && entry.method === 'GET' && entry.path === PAGES && entry.transport === 'muxws');
      const offsets = reads.map((entry) => new URLSearchParams(entry.query).get('offset') ?? '0');
      equal(resyncs, 1, 'one resync');
      // (a read of the window under way before the silence may still end with its last pages)
      const start = offsets.indexOf('0');
      equal(offsets.filter((offset) => offset === '0').length, 1, `one read of the window (${offsets})`);
      same(offsets.slice(start), ['0', '100', '200', '300'], `each page read once, in order (${changes} changes told)`);
      equal(list.status.stale, false, 'current');
    } finally {
      await list.close();
      await peer.close();
    }
  },

  async 'pages: own writes in a patched paginated window: an update shows in place at once (its place known), a delete leaves and the window is whole again from its last page, a create beyond stays out'({ pkg, baseUrl, ctl }) {
    await seed(ctl, baseUrl);
    const proxy = restRows(pkg, baseUrl, PAGES);
    const list = pkg.liveList(proxy, undefined, { pollIntervalMs: POLL_MS });
    const check = watchDuplicates(list);
    try {
      await list.ready;
      await list.loadMore();
      await untilFresh(list, baseUrl, PAGES, 2, 'two pages');
      const row = list.rows[120];
      const update = proxy.partialUpdate(row.id, { name: 'own rename' });
      equal(list.rows[120].name, 'own rename', 'in place, in the task of the call');
      equal(list.pendingOf(list.rows[120])?.key, update.key, 'marked with its key');
      equal(list.pendingOf(list.rows[120])?.placed, true, 'its place known (the order does not follow values)');
      await update;
      await untilFresh(list, baseUrl, PAGES, 2, 'after the own update');
      const gone = list.rows[50];
      const destroy = proxy.destroy(gone.id);
      equal(list.pendingOf(list.rows[50])?.op, 'destroy', 'a pending delete stays, marked');
      await destroy;
      await until(() => !list.rows.some((r) => r.id === gone.id) && list.rows.length === 200, 10_000, 'the row left, the window whole again');
      await untilFresh(list, baseUrl, PAGES, 2, 'after the own delete');
      const create = proxy.create({ name: 'own create', rank: 0 });
      equal(list.pending[0]?.key, create.key, 'a create pending under its key');
      ok(!list.rows.some((r) => r.name === 'own create'), 'not inside a window that has more after it');
      const made = await create;
      const fresh = await untilFresh(list, baseUrl, PAGES, 2, 'after the own create');
      ok(!list.rows.some((r) => r.id === made.id), 'beyond the window');
      await until(() => list.status.total === fresh.count, 10_000, `total ${fresh.count}`);
      equal(list.pending.length, 0, 'nothing pending');
    } finally {
      check();
      await list.close();
    }
  },

  async 'pages: an own create in a sorted cursor list is pending at once under its key, then lands in its sorted place or beyond the window'({ pkg, baseUrl, ctl }) {
    await seed(ctl, baseUrl);
    const params = { sort: 'name' };
    const proxy = restRows(pkg, baseUrl, CURSOR);
    const list = pkg.liveList(proxy, params, { pollIntervalMs: POLL_MS });
    const check = watchDuplicates(list);
    try {
      await list.ready;
      await list.loadMore();
      // "row 0050a" sorts between row 0050 and row 0051: inside the window
      const call = proxy.create({ name: 'row 0050a', rank: 1 });
      equal(list.pending.length, 1, 'pending at once');
      equal(list.pending[0].key, call.key, 'under its key');
      equal(list.pending[0].op, 'create', 'a create');
      ok(!list.rows.some((row) => row.name === 'row 0050a'), 'not inside the window before its place is known');
      const made = await call;
      await until(() => list.rows.some((row) => row.id === made.id), 5000, 'the create in the window');
      equal(list.rows[50].id, made.id, 'in its sorted place');
      equal(list.pending.length, 0, 'no longer pending');
      await untilFresh(list, baseUrl, CURSOR, 2, 'two pages with the own create', params);
      // "zzz" sorts after every row: beyond the window
      const beyond = proxy.create({ name: 'zzz', rank: 2 });
      equal(list.pending[0]?.key, beyond.key, 'pending at once under its key');
      const far = await beyond;
      await untilFresh(list, baseUrl, CURSOR, 2, 'two pages after a create beyond them', params);
      ok(!list.rows.some((row) => row.id === far.id), 'not inside the window');
      equal(list.pending.length, 0, 'no longer pending');
    } finally {
      check();
      await list.close();
    }
  },
};
