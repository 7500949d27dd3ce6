// A paged live list rendered on the server goes live on the client from the server's window (issue 35
// left it: the client's window was unknown after hydration, `status.window` 'exhausted', `loadMore()`
// reading nothing). In Node 20, against the real backend behind the fault proxy (tests/backend/big.py:
// a paginated and a cursor ViewSet of 5 000 rows, 100 a page): a Vue page made with createSSRApp and
// rendered with renderToString in a request scope (`useLiveList`, which reads with `readLiveList()`),
// its payload as JSON, then a client list hydrated from it (`liveList(proxy, params, { initial })`):
// the rows, `total` and `status.window` at once, no first read in the backend's log, `loadMore()`
// reading exactly the next page (offset 100 / the server's next cursor), the rows then a fresh read
// of those pages; a change after the server's rev delivered once; a window that is not one refused
// with a TypeError. The same in Chromium, in the Nuxt app: tests/browser/nuxt.test.mjs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { pkg } from './pkg-by-name.mjs';
import { control, sleep } from './control.mjs';
import { other } from './events-scenarios.mjs';

const vue = await import('vue');
const { renderToString } = await import('vue/server-renderer');
const { useLiveList, viewsetsSSR } = await import('../../pkg/vue/index.js');
const { runInRequest } = await import('../../pkg/ssr/index.js');
const { h, createSSRApp, defineComponent } = vue;

const PAGES = '/catalog/big-pages';
const CURSOR = '/catalog/big-cursor';

let stack;
let ctl;
before(async () => {
  stack = await startStack();
  ctl = control(stack.baseUrl);
});
after(async () => {
  await stack?.stop();
});

/** A module-level proxy of `path` (as an app writes one). */
function rowsOf(path) {
  const mixins = [path === PAGES ? pkg.PaginatedListMixin : pkg.CursorListMixin, pkg.CreateMixin, pkg.RetrieveMixin, pkg.UpdateMixin, pkg.DestroyMixin];
  return new (pkg.restViewSet()('id', mixins))({ basePath: path, baseUrl: stack.baseUrl, schemaCheck: false });
}

/** Waits until `check()` is true (every 20 ms), else fails with `what()`. */
async function until(check, what, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(what());
    await sleep(20);
  }
}

const query = (params) => new URLSearchParams(Object.entries(params).filter(([, value]) => value != null).map(([name, value]) => [name, String(value)])).toString();

/** A fresh read of `pages` pages of `path` by another client: offsets, or each page from the `next` of the one before. */
async function freshPages(path, pages) {
  const rows = [];
  let page = null;
  for (let at = 0; at < pages; at++) {
    if (page && !page.has_more) break;
    const where = path === PAGES ? { offset: at * 100, limit: 100 } : page ? { cursor: page.next, limit: 100 } : {};
    page = await other(stack.baseUrl, 'GET', `${path}?${query(where)}`);
    rows.push(...page.results);
  }
  return { rows, count: page.count ?? null };
}

const pairs = (rows) => rows.map((row) => `${row.id}:${row.name}`);

/** Resolves once `list`'s rows are a fresh read of `pages` pages (and not stale). */
async function untilFresh(list, path, pages, what) {
  let fresh;
  await until(
    async () => {
      fresh = await freshPages(path, pages);
      return JSON.stringify(pairs(list.rows)) === JSON.stringify(pairs(fresh.rows)) && !list.status.stale;
    },
    () => `${what}: ${list.rows.length} rows against ${fresh.rows.length}; status ${JSON.stringify(list.status)}`,
    20_000,
  );
  return fresh;
}

/** The page a server renders for one request: a paged live list, its window and total, its rows. */
function pageOf(proxy, options) {
  return defineComponent({
    setup() {
      const { rows, window, total } = useLiveList(proxy, undefined, options);
      return () => h('main', [h('p', { id: 'window' }, `${window.value} ${total.value}`), h('ul', rows.value.map((row) => h('li', row.name)))]);
    },
  });
}

/** Renders `component` as a server does (a request scope, the SSR plugin): its HTML and its payload as the client gets it (JSON). */
function render(component) {
  return runInRequest(
    async () => {
      const app = createSSRApp(component);
      const viewsets = viewsetsSSR();
      app.use(viewsets);
      const html = await renderToString(app);
      return { html, payload: JSON.parse(viewsets.serialize()) };
    },
    { headers: { authorization: 'Bearer reader' } },
  );
}

/** The page reads of `path` in the backend's log after `since` (s), as their queries. */
async function pageReads(path, since) {
  return (await ctl.log()).filter((entry) => entry.t > since && entry.method === 'GET' && entry.path === path).map((entry) => Object.fromEntries(new URLSearchParams(entry.query)));
}

/** Waits until the list's follower has polled `n` times since `since` (s): time enough for a first read to have gone out. */
async function polled(since, n) {
  await until(async () => (await ctl.log()).filter((entry) => entry.t > since && entry.path === '/events/poll').length >= n, () => `${n} polls of the hydrated list's follower`);
}

test('ssr window: a paginated list of 5 000 rows rendered on the server hydrates a client list with its window — rows, total 5000 and can-load-more at once, no first read, loadMore() reads offset 100 only and the rows are then a fresh read of two pages; a later change is delivered once', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  await other(stack.baseUrl, 'POST', '/__test/big/seed');
  const proxy = rowsOf(PAGES);
  const { html, payload } = await render(pageOf(proxy));
  assert.match(html, /<p id="window">can-load-more 5000<\/p>/, 'the server’s HTML shows the window and the count');
  assert.ok(html.includes('<li>row 0001</li>') && html.includes('<li>row 0100</li>') && !html.includes('row 0101'), 'the HTML holds the first page');
  const [entry] = payload[`live:${PAGES}|null`];
  assert.equal(entry.rows.length, 100);
  assert.deepEqual(entry.window, {
    pages: 1,
    head: { shape: 'paginated', count: 5000, hasMore: true, hasPrevious: false, next: null, previous: null, offset: 0, limit: 100 },
    tail: { shape: 'paginated', count: 5000, hasMore: true, hasPrevious: false, next: null, previous: null, offset: 0, limit: 100 },
  }, 'the payload carries the window');

  const since = Date.now() / 1000;
  const changes = [];
  const list = pkg.liveList(proxy, undefined, { initial: { rows: entry.rows, rev: entry.rev, window: entry.window }, pollIntervalMs: 150, onChange: (change) => changes.push(change) });
  try {
    await list.ready;
    assert.deepEqual(pairs(list.rows), pairs(entry.rows), 'the server’s rows');
    assert.equal(list.status.window, 'can-load-more', 'more can be loaded at once');
    assert.equal(list.status.total, 5000, 'total: the server’s count at once');
    assert.equal(list.status.hasPrevious, false);
    assert.equal(list.status.loading, false);
    await polled(since, 3);
    assert.deepEqual(await pageReads(PAGES, since), [], 'no first read of the list');

    const before = Date.now() / 1000;
    await list.loadMore();
    assert.deepEqual(await pageReads(PAGES, before), [{ offset: '100', limit: '100' }], 'loadMore() read exactly the next page');
    assert.deepEqual(list.rows.map((row) => row.id), Array.from({ length: 200 }, (_, i) => i + 1), 'two pages, in order');
    const fresh = await untilFresh(list, PAGES, 2, 'two pages');
    assert.equal(list.status.total, fresh.count);
    assert.equal(list.status.window, 'can-load-more');

    // a change after the server's rev, inside the window: delivered once
    await other(stack.baseUrl, 'PATCH', `${PAGES}/150`, { name: 'renamed after' });
    await until(() => list.rows[149]?.name === 'renamed after', () => `the change: ${list.rows[149]?.name}`);
    await untilFresh(list, PAGES, 2, 'after the change');
    await sleep(600);
    assert.equal(changes.filter((change) => change.changes?.some((item) => item.pk === 150)).length, 1, 'the change delivered once');
    assert.equal(list.rows.filter((row) => row.id === 150).length, 1, 'its row once');
  } finally {
    await list.close();
  }
});

test('ssr window: a cursor list rendered two pages deep on the server (option pages) — the client goes on from the server’s next cursor: one read, the rows then a fresh read of three pages', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  await other(stack.baseUrl, 'POST', '/__test/big/seed');
  const proxy = rowsOf(CURSOR);
  const { html, payload } = await render(pageOf(proxy, { pages: 2 }));
  assert.match(html, /<p id="window">can-load-more null<\/p>/, 'a cursor list: more, and no count');
  assert.ok(html.includes('<li>row 0200</li>') && !html.includes('row 0201'), 'the HTML holds two pages');
  const [entry] = payload[`live:${CURSOR}|null`];
  assert.equal(entry.rows.length, 200);
  assert.equal(entry.window.pages, 2);
  assert.equal(entry.window.tail.shape, 'cursor');
  assert.equal(typeof entry.window.tail.next, 'string', 'the last page’s next cursor');
  const serverReads = (await ctl.log()).filter((item) => item.method === 'GET' && item.path === CURSOR);
  assert.equal(serverReads.length, 2, 'the server read two pages');

  const since = Date.now() / 1000;
  const list = pkg.liveList(proxy, undefined, { initial: entry, pollIntervalMs: 150 });
  try {
    await list.ready;
    assert.equal(list.rows.length, 200);
    assert.equal(list.status.window, 'can-load-more');
    assert.equal(list.status.total, null);
    await polled(since, 3);
    assert.deepEqual(await pageReads(CURSOR, since), [], 'no first read');
    await list.loadMore();
    assert.deepEqual(await pageReads(CURSOR, since), [{ cursor: entry.window.tail.next, limit: '100' }], 'one read, from the server’s next cursor');
    assert.deepEqual(list.rows.map((row) => row.id), Array.from({ length: 300 }, (_, i) => i + 1));
    await untilFresh(list, CURSOR, 3, 'three pages');
  } finally {
    await list.close();
  }
});

test('ssr window: a change made between the server’s render and the hydration is delivered once, and the window is then a fresh read of its page', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  await other(stack.baseUrl, 'POST', '/__test/big/seed');
  const proxy = rowsOf(PAGES);
  const { payload } = await render(pageOf(proxy));
  const [entry] = payload[`live:${PAGES}|null`];
  await other(stack.baseUrl, 'PATCH', `${PAGES}/10`, { name: 'renamed between' });
  await other(stack.baseUrl, 'DELETE', `${PAGES}/20`);
  const changes = [];
  const list = pkg.liveList(proxy, undefined, { initial: entry, pollIntervalMs: 150, onChange: (change) => changes.push(change) });
  try {
    await list.ready;
    assert.equal(list.rows[9].name, 'row 0010', 'the server’s rows first');
    await until(() => list.rows[9]?.name === 'renamed between' && !list.rows.some((row) => row.id === 20), () => `the changes made between: ${list.rows[9]?.name}`);
    const fresh = await untilFresh(list, PAGES, 1, 'one page after the changes');
    assert.equal(list.status.total, fresh.count, `total ${fresh.count}`);
    assert.equal(list.rows.length, 100, 'a whole page (the row after it moved up)');
    await sleep(600);
    // (the rev may be one an earlier render of this process took less than 5 s ago: the changes
    // since it are delivered too, each once)
    const of = (op, pk) => changes.filter((change) => change.op === op && change.changes.some((item) => item.pk === pk)).length;
    assert.deepEqual([of('updated', 10), of('deleted', 20)], [1, 1], 'each change delivered once');
  } finally {
    await list.close();
  }
});

test('ssr window: initial.window is input from a server — a window that is not one is refused with a TypeError; a plain list hydrated without one is exhausted', async () => {
  await ctl.reset();
  const proxy = rowsOf(PAGES);
  const page = { shape: 'paginated', count: 5000, hasMore: true, hasPrevious: false, next: null, previous: null, offset: 0, limit: 100 };
  const bad = [
    'a window',
    { pages: 0, head: page, tail: page },
    { pages: 1.5, head: page, tail: page },
    { pages: 1, head: page },
    { pages: 1, head: page, tail: { ...page, shape: 'pages' } },
    { pages: 1, head: page, tail: { ...page, count: '5000' } },
    { pages: 1, head: page, tail: { ...page, offset: -1 } },
    { pages: 1, head: page, tail: { ...page, hasMore: 'yes' } },
    { pages: 1, head: page, tail: { ...page, shape: 'cursor', next: null } },
    { pages: 1, head: { ...page, previous: 7 }, tail: page },
  ];
  const listeners = pkg.internalStats().listeners;
  const warn = console.warn;
  console.warn = () => {};
  try {
    for (const window of bad) {
      const list = pkg.liveList(proxy, undefined, { initial: { rows: [], rev: 1, window } });
      await assert.rejects(list.ready, TypeError, `refused: ${JSON.stringify(window)}`);
      assert.equal(list.status.mode, 'closed');
    }
  } finally {
    console.warn = warn;
  }
  assert.equal(pkg.internalStats().listeners, listeners, 'a refused list listens to nothing');
  // a plain list: its rows are the whole list
  const items = new (pkg.restViewSet()('id', [pkg.ViewSetMixin]))({ basePath: '/items', baseUrl: stack.baseUrl, schemaCheck: false });
  const read = await pkg.readLiveList(items);
  assert.equal(read.window.tail.shape, 'plain');
  const plain = pkg.liveList(items, undefined, { initial: { rows: read.rows, rev: read.rev } });
  try {
    await plain.ready;
    assert.equal(plain.status.window, 'exhausted', 'a plain list hydrated without a window');
  } finally {
    await plain.close();
  }
});

test('ssr window: the option pages on the client — a list without SSR reads that many pages first, each from where the one before ended', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  await other(stack.baseUrl, 'POST', '/__test/big/seed');
  const since = Date.now() / 1000;
  const list = pkg.liveList(rowsOf(CURSOR), undefined, { pages: 3, pollIntervalMs: 150 });
  try {
    await list.ready;
    assert.deepEqual(list.rows.map((row) => row.id), Array.from({ length: 300 }, (_, i) => i + 1), 'three pages');
    assert.equal(list.status.window, 'can-load-more');
    const reads = await pageReads(CURSOR, since);
    assert.equal(reads.length, 3, `three page reads: ${JSON.stringify(reads)}`);
    assert.ok(reads[1].cursor && reads[2].cursor && reads[1].cursor !== reads[2].cursor, 'each from the cursor of the one before');
    await assert.rejects(Promise.resolve().then(() => pkg.readLiveList(rowsOf(CURSOR), undefined, { pages: 0 })), TypeError, 'readLiveList refuses pages 0');
  } finally {
    await list.close();
  }
});
