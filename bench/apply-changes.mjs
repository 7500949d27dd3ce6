// applyChanges() of many records (issue 36 §4), in Node against the local backend directly (no fault
// proxy): a `records_changed` of N pks applied through a proxy whose schema declares `id__in` on its
// list (/catalog/indexed: `{pk}__in` list calls, 8 in flight at most), through a proxy of the same
// books whose schema does not (/catalog/books: N retrieves, 8 in flight at most), and one list call
// that reads every book at once (the floor). The wire counts come from the backend's counters.
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
    return out;
  } finally {
    await call(baseUrl, 'POST', '/__test/catalog/seed');
  }
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
  ];
}
