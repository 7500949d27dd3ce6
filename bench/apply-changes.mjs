// applyChanges() of many records (issue 36 §4), in Node against the local backend directly (no fault
// proxy): a `records_changed` of N pks applied through a proxy whose schema declares `id__in` on its
// list (/catalog/indexed: `{pk}__in` list calls, 8 in flight at most), through a proxy of the same
// books whose schema does not (/catalog/books: N retrieves, 8 in flight at most), and one list call
// that reads every book at once (the floor). The wire counts come from the backend's counters.
// Then one change applied by a live list of 10 000 rows (Node, REST): a plain list (/catalog/bulk,
// the whole list read once) and a paginated one with 10 000 rows loaded in 100 pages of 100
// (/catalog/big-pages, grown to 10 000 rows; no sort, so each change is placed in the window): an
// update by another client, timed from its row's retrieve answer to the list's listener, and (the
// paged list) a delete inside the window, timed from the answer of the window's last page, read
// again, to the listener. The list's reads of each change are counted by the backend's counters.
//
//   node --experimental-websocket bench/run.mjs --only apply-changes [--quick]
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { median, ratio } from './stats.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** How many pks one change carries, and how many rounds of the three are timed. */
export function applyCounts(quick) {
  return { pks: quick ? 1000 : 10_000, rounds: quick ? 1 : 3 };
}

async function call(baseUrl, method, route, body) {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : null;
}

/** Times applyChanges() of `pks` records three ways; answers the figures `renderApplyChanges` prints. */
export async function measureApplyChanges({ stack, quick, log, counts = applyCounts(quick) }) {
  const baseUrl = stack.directUrls[0];
  const pkg = await import(pathToFileURL(path.join(repoRoot, 'pkg', 'index.js')).href);
  const Api = pkg.restViewSet()('id', [pkg.ViewSetMixin]);
  const indexed = new Api({ basePath: '/catalog/indexed', baseUrl, schemaCheck: false });
  const books = new Api({ basePath: '/catalog/books', baseUrl, schemaCheck: false });
  const counter = async (name) => (await call(baseUrl, 'GET', '/__test/counters'))[name] ?? 0;
  log(`applyChanges: ${counts.pks} books made`);
  await call(baseUrl, 'POST', '/__test/catalog/seed');
  const ids = [];
  try {
    for (let made = 0; made < counts.pks; made += 1000) {
      const batch = Array.from({ length: Math.min(1000, counts.pks - made) }, (_, i) => ({ title: `bench ${made + i}`, author: 'Bench', year: 1900 + ((made + i) % 100) }));
      ids.push(...(await call(baseUrl, 'POST', '/catalog/bulk/bulk', batch)).map((book) => book.id));
    }
    const change = { op: 'updated', changes: ids.map((pk) => ({ pk })) };
    // warm-up: the schema read once per proxy, connections open
    await indexed.applyChanges([], { op: 'updated', changes: ids.slice(0, 20).map((pk) => ({ pk })) });
    await books.applyChanges([], { op: 'updated', changes: ids.slice(0, 20).map((pk) => ({ pk })) });
    const out = { pks: counts.pks, byIn: [], byRetrieve: [], oneList: [], lists: 0, retrieves: 0, rows: 0 };
    for (let round = 0; round < counts.rounds; round += 1) {
      log(`applyChanges: round ${round + 1} of ${counts.rounds}`);
      let lists = await counter('indexed.list');
      let started = performance.now();
      const rows = await indexed.applyChanges([], change);
      out.byIn.push(performance.now() - started);
      out.lists = (await counter('indexed.list')) - lists;
      out.rows = rows.length;
      const retrieves = await counter('books.retrieve');
      started = performance.now();
      await books.applyChanges([], change);
      out.byRetrieve.push(performance.now() - started);
      out.retrieves = (await counter('books.retrieve')) - retrieves;
      lists = await counter('indexed.list');
      started = performance.now();
      const all = await indexed.list();
      out.oneList.push(performance.now() - started);
      if (!Array.isArray(all) || all.length < counts.pks || (await counter('indexed.list')) - lists !== 1) throw new Error('the one list call did not read every book');
    }
    out.live = await measureLiveApply({ pkg, baseUrl, quick, log, counter });
    return out;
  } finally {
    await call(baseUrl, 'POST', '/__test/catalog/seed');
    await call(baseUrl, 'POST', '/__test/big/seed');
  }
}

/** Resolves with the time the listener of `list` first sees `check` true. */
function seen(list, check) {
  return new Promise((resolve) => {
    const stop = list.subscribe((current) => {
      if (check(current)) {
        stop();
        resolve(performance.now());
      }
    });
  });
}

/** Wraps `proxy[name]` so that `answers.at` is the time its last answer came. */
function stamp(proxy, name, answers) {
  const action = proxy[name];
  proxy[name] = function (...args) {
    return action.apply(this, args).then((value) => {
      answers.at = performance.now();
      return value;
    });
  };
}

/**
 * One change applied by a live list of `rows` rows (Node, REST, 50 ms polls): a plain list of the
 * books (the catalog holds ≥ `rows` after measureApplyChanges), and a paginated list grown to
 * `rows` rows and loaded in pages of 100. `changes` updates each (answer → listener), and on the
 * paged list `changes` deletes inside its window (the last page's answer → listener).
 */
async function measureLiveApply({ pkg, baseUrl, quick, log, counter }) {
  const rows = quick ? 1000 : 10_000;
  const changes = quick ? 5 : 20;
  const out = { rows, pages: rows / 100, changes, plain: [], pagedUpdate: [], pagedDelete: [], plainRows: 0, pagedRows: 0, updateReads: 0, deleteReads: 0 };
  const Plain = pkg.restViewSet()('id', [pkg.ViewSetMixin]);
  const plainProxy = new Plain({ basePath: '/catalog/bulk', baseUrl, schemaCheck: false });
  const answers = { at: 0 };
  stamp(plainProxy, 'retrieve', answers);
  const plain = pkg.liveList(plainProxy, undefined, { pollIntervalMs: 50 });
  try {
    await plain.ready;
    out.plainRows = plain.rows.length;
    log(`live lists: one change, a plain list of ${out.plainRows} rows`);
    for (let i = 0; i < changes; i += 1) {
      const target = plain.rows[plain.rows.length - 1 - i];
      const title = `changed ${i} ${Math.random()}`;
      const shown = seen(plain, (current) => current.rows[current.rows.length - 1 - i]?.title === title);
      await call(baseUrl, 'PUT', `/catalog/bulk/${target.id}`, { id: target.id, title, author: target.author });
      out.plain.push((await shown) - answers.at);
    }
  } finally {
    await plain.close();
  }

  const path = '/catalog/big-pages';
  await call(baseUrl, 'POST', '/__test/big/seed');
  log(`live lists: ${path} grown to ${rows} rows`);
  // rows beyond the 100 pages too: a delete inside the window brings one in at its end
  const total = rows + 2 * changes + 100;
  let made = 5000;
  while (made < total) {
    const batch = Math.min(8, total - made);
    await Promise.all(Array.from({ length: batch }, (_, i) => call(baseUrl, 'POST', path, { name: `row ${made + i + 1}`, rank: made + i })));
    made += batch;
  }
  const Paged = pkg.restViewSet()('id', [pkg.PaginatedListMixin, pkg.CreateMixin, pkg.RetrieveMixin, pkg.UpdateMixin, pkg.DestroyMixin]);
  const pagedProxy = new Paged({ basePath: path, baseUrl, schemaCheck: false });
  stamp(pagedProxy, 'retrieve', answers);
  stamp(pagedProxy, 'listPage', answers);
  const paged = pkg.liveList(pagedProxy, undefined, { pollIntervalMs: 50, pageSize: 100 });
  try {
    await paged.ready;
    while (paged.rows.length < rows && paged.status.window === 'can-load-more') await paged.loadMore();
    out.pagedRows = paged.rows.length;
    log(`live lists: one change, a paginated list of ${out.pagedRows} rows in ${out.pages} pages`);
    const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
    await settle();
    for (let i = 0; i < changes; i += 1) {
      const at = 1000 + i * 37;
      const target = paged.rows[at];
      const name = `changed ${i} ${Math.random()}`;
      const shown = seen(paged, (current) => current.rows[at]?.name === name);
      const before = (await counter('big_pages.retrieve')) + (await counter('big_pages.list'));
      await call(baseUrl, 'PATCH', `${path}/${target.id}`, { name });
      out.pagedUpdate.push((await shown) - answers.at);
      await settle();
      out.updateReads = (await counter('big_pages.retrieve')) + (await counter('big_pages.list')) - before;
    }
    for (let i = 0; i < changes; i += 1) {
      const at = 2000 + i * 41;
      const target = paged.rows[at];
      const length = paged.rows.length;
      // the row leaves at once; the window is whole again once its last page is read again
      const shown = seen(paged, (current) => current.rows.length === length && !current.rows.some((row) => row.id === target.id));
      const before = await counter('big_pages.list');
      await call(baseUrl, 'DELETE', `${path}/${target.id}`);
      out.pagedDelete.push((await shown) - answers.at);
      await settle();
      out.deleteReads = (await counter('big_pages.list')) - before;
    }
  } finally {
    await paged.close();
  }
  return out;
}

/** The section's Markdown lines. */
export function renderApplyChanges(r, { table, ms }) {
  const row = (what, calls, times) => [what, calls, `${ms(median(times))} ms`, ratio(median(times), median(r.oneList))];
  return [
    '## applyChanges() of many records',
    '',
    `One \`records_changed\` of ${r.pks} pks applied in Node against the local backend directly (the same books behind two ViewSets; median of ${r.byIn.length} rounds; the backend's counters give the calls):`,
    '',
    table(
      ['how', 'calls', 'time', 'vs one list call'],
      [
        row('applyChanges(), the schema declares `id__in` (/catalog/indexed)', `${r.lists} list calls`, r.byIn),
        row('applyChanges(), no `id__in` (/catalog/books)', `${r.retrieves} retrieves`, r.byRetrieve),
        row('one list call of every book (the floor)', '1 list call', r.oneList),
      ],
    ),
    '',
    `One change applied by a live list of ${r.live.rows} rows, in Node over REST (polls every 50 ms): another client changes a row, timed from the answer of the list's read of it to the listener (the rows made again); median of ${r.live.changes} changes each. The paginated list is /catalog/big-pages grown to ${r.live.rows} rows, loaded in ${r.live.pages} pages of 100 (no sort: each change is placed in the window); a delete inside it is timed from the answer of its last page, read again, to the listener. Reads: the backend's counters, per change.`,
    '',
    table(
      ['change', 'list', 'reads', 'time (median)', 'max', 'budget'],
      [
        ['an update', `plain, ${r.live.plainRows} rows`, '1 retrieve', `${ms(median(r.live.plain))} ms`, `${ms(Math.max(...r.live.plain))} ms`, '≤ 2 ms'],
        ['an update', `${r.live.pagedRows} rows loaded in ${r.live.pages} pages`, `${r.live.updateReads} (the row's retrieve)`, `${ms(median(r.live.pagedUpdate))} ms`, `${ms(Math.max(...r.live.pagedUpdate))} ms`, '≤ 2 ms'],
        ['a delete inside', `${r.live.pagedRows} rows loaded in ${r.live.pages} pages`, `${r.live.deleteReads} (the last page)`, `${ms(median(r.live.pagedDelete))} ms`, `${ms(Math.max(...r.live.pagedDelete))} ms`, '≤ 2 ms'],
      ],
    ),
    '',
  ];
}
