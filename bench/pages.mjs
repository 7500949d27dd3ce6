// Live lists bigger than a page (issue 38's budgets), against the real backend directly (no fault
// proxy):
// - time: one `loadMore()` of a live list over the 5 000-row cursor ViewSet (tests/backend/big.py,
//   100 a page) beside one `listCursor()` call of the same page through the same proxy, in Node 20,
//   over REST and over muxws. The two take turns (ABAB…, the first of each pair alternating), warm.
//   The list's own page read is timed too (the proxy's listCursor as the list calls it), so that
//   loadMore() splits into that read and what the list does with the page.
// - memory: 10 000 rows as a live list holds them (100 pages loaded with loadMore()) beside the same
//   rows as parsed JSON held in an array, in Chromium: the JS heap after a forced GC (CDP), less the
//   page's heap before (the package imported, the proxy made), in fresh pages taking turns.
//
//   node --experimental-websocket bench/run.mjs --only pages [--quick]
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { median, quantile } from './stats.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CURSOR = '/catalog/big-cursor';
const LIMIT = 100;

/** How many rounds of each measure. */
export function pagesCounts(quick) {
  return {
    // second page: a fresh list per round, its first loadMore() beside listCursor() of page 2
    rounds: quick ? 6 : 80,
    // a deep window: lists grown from 1 to 50 pages, each loadMore() beside listCursor() of that page
    deepLists: quick ? 1 : 4,
    warmup: quick ? 2 : 10,
    // memory: fresh pages of each kind, taking turns
    memoryRounds: quick ? 1 : 3,
  };
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

const MIXINS = (pkg) => [pkg.CursorListMixin, pkg.CreateMixin, pkg.RetrieveMixin, pkg.UpdateMixin, pkg.DestroyMixin];

/**
 * A proxy of the cursor ViewSet whose listCursor() also times the calls the live list makes
 * (`inner`): an own property over the class's method, which the list calls as the proxy's action.
 */
function timedProxy(proxy) {
  const inner = [];
  const own = Object.getPrototypeOf(proxy).listCursor;
  let fromList = true;
  proxy.listCursor = function listCursor(query, options) {
    if (!fromList) return own.call(this, query, options);
    const started = performance.now();
    const call = own.call(this, query, options);
    call.then(() => inner.push(performance.now() - started), () => {});
    return call;
  };
  /** listCursor() as the bench calls it (not counted as the list's). */
  const direct = (query) => {
    fromList = false;
    try {
      return proxy.listCursor(query);
    } finally {
      fromList = true;
    }
  };
  return { proxy, inner, direct };
}

/** Times `loadMore()` against `listCursor()` of the same page over one transport. */
async function measureTransport(pkg, proxy, counts, log, transport) {
  const { inner, direct } = timedProxy(proxy);
  // the 50 pages' cursors, as the list reads them (each from the `next` of the page before)
  const cursors = [undefined];
  for (let page = await direct({ limit: LIMIT }); page.hasMore; page = await direct({ cursor: page.next, limit: LIMIT })) cursors.push(page.next);
  if (cursors.length !== 50) throw new Error(`${CURSOR}: ${cursors.length} pages, not 50 (seeded?)`);
  const pageOf = (k) => direct({ cursor: cursors[k], limit: LIMIT });
  const out = { transport, second: { more: [], cursor: [], inner: [] }, deep: { more: [], cursor: [], inner: [], window: [] } };
  // one pair: loadMore() of page k and listCursor() of page k, in the order `first`
  const pair = async (list, k, first, into, record) => {
    const timeMore = async () => {
      const before = inner.length;
      const started = performance.now();
      await list.loadMore();
      const took = performance.now() - started;
      if (list.rows.length !== (k + 1) * LIMIT) throw new Error(`${transport}: ${list.rows.length} rows after loading page ${k + 1}`);
      if (inner.length !== before + 1) throw new Error(`${transport}: loadMore() made ${inner.length - before} page reads`);
      if (record) {
        into.more.push(took);
        into.inner.push(inner.at(-1));
      }
    };
    const timeCursor = async () => {
      const started = performance.now();
      const page = await pageOf(k);
      const took = performance.now() - started;
      if (page.results.length !== LIMIT) throw new Error(`${transport}: page ${k + 1} has ${page.results.length} rows`);
      if (record) into.cursor.push(took);
    };
    if (first === 'more') {
      await timeMore();
      await timeCursor();
    } else {
      await timeCursor();
      await timeMore();
    }
  };
  const open = async () => {
    const list = pkg.liveList(proxy);
    await list.ready;
    if (list.rows.length !== LIMIT) throw new Error(`${transport}: the first page has ${list.rows.length} rows`);
    return list;
  };
  log(`pages, ${transport}: the second page, ${counts.warmup} + ${counts.rounds} pairs`);
  for (let round = 0; round < counts.warmup + counts.rounds; round++) {
    const list = await open();
    try {
      await pair(list, 1, round % 2 ? 'cursor' : 'more', out.second, round >= counts.warmup);
    } finally {
      await list.close();
    }
  }
  log(`pages, ${transport}: ${counts.deepLists} windows grown to 50 pages, a pair per page`);
  for (let n = 0; n < counts.deepLists; n++) {
    const list = await open();
    try {
      for (let k = 1; k < 50; k++) {
        const before = out.deep.more.length;
        await pair(list, k, (k + n) % 2 ? 'cursor' : 'more', out.deep, true);
        if (out.deep.more.length > before) out.deep.window.push(k * LIMIT);
      }
      if (list.status.window !== 'exhausted') throw new Error(`${transport}: 50 pages and the window is ${list.status.window}`);
    } finally {
      await list.close();
    }
  }
  return out;
}

/** A page of memory measures (serialised into Chromium). */
async function memoryInPage({ baseUrl, kind, pages }) {
  const pkg = await import(globalThis.PKG_URL ?? '/pkg/index.js');
  const Api = pkg.restViewSet()('id', [pkg.CursorListMixin, pkg.CreateMixin, pkg.RetrieveMixin, pkg.UpdateMixin, pkg.DestroyMixin]);
  const proxy = new Api({ basePath: '/catalog/cursor', baseUrl, schemaCheck: false });
  globalThis.benchProxy = proxy;
  if (kind === 'rows') {
    // the rows themselves: the same pages as parsed JSON, their rows in one array
    globalThis.benchHeld = async () => {
      const rows = [];
      let query = `limit=100`;
      for (let i = 0; i < pages; i++) {
        const page = await (await fetch(`${baseUrl}/catalog/cursor?${query}`)).json();
        for (const row of page.results) rows.push(row);
        if (!page.has_more) break;
        query = `limit=100&cursor=${encodeURIComponent(page.next)}`;
      }
      globalThis.held = rows;
      return rows.length;
    };
  } else {
    globalThis.benchHeld = async () => {
      const list = pkg.liveList(proxy, { limit: 100 });
      await list.ready;
      while (list.rows.length < pages * 100 && list.status.window === 'can-load-more') await list.loadMore();
      globalThis.held = list;
      return list.rows.length;
    };
  }
}

/** The JS heap of `page` after a full GC (CDP), in bytes. */
async function heapAfterGc(cdp) {
  for (let i = 0; i < 3; i++) await cdp.send('HeapProfiler.collectGarbage');
  return (await cdp.send('Runtime.getHeapUsage')).usedSize;
}

/**
 * A heap snapshot of the page (CDP) summed by kind: the self size and count of its nodes by V8's
 * type and constructor name (strings and numbers each as one kind).
 */
async function heapByKind(cdp) {
  const chunks = [];
  const take = (event) => chunks.push(event.chunk);
  cdp.on('HeapProfiler.addHeapSnapshotChunk', take);
  try {
    await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  } finally {
    cdp.off('HeapProfiler.addHeapSnapshotChunk', take);
  }
  const snapshot = JSON.parse(chunks.join(''));
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const [type, name, size] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field));
  const kinds = {};
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const t = types[snapshot.nodes[i + type]];
    const label = t.endsWith('string') ? 'strings' : t === 'number' ? 'heap numbers' : `${t}: ${snapshot.strings[snapshot.nodes[i + name]].slice(0, 40) || '(no name)'}`;
    const kind = (kinds[label] ??= { count: 0, bytes: 0 });
    kind.count++;
    kind.bytes += snapshot.nodes[i + size];
  }
  return kinds;
}

/** 10 000 rows in Chromium: a live list of 100 pages against the same rows as parsed JSON in an array. */
async function measureMemory({ browser, runnerUrl, baseUrl, rounds, log }) {
  const out = { rows: [], list: [], rows1: [], list1: [], count: 0, kinds: {} };
  for (let round = 0; round < rounds; round++) {
    for (const kind of round % 2 ? ['list', 'rows'] : ['rows', 'list']) {
      for (const pages of [100, 1]) {
        const context = await browser.newContext();
        try {
          const page = await context.newPage();
          await page.goto(runnerUrl);
          await page.evaluate(memoryInPage, { baseUrl, kind, pages });
          const cdp = await context.newCDPSession(page);
          const before = await heapAfterGc(cdp);
          const count = await page.evaluate(() => globalThis.benchHeld());
          if (count !== pages * 100) throw new Error(`memory, ${kind}: ${count} rows held, not ${pages * 100}`);
          const after = await heapAfterGc(cdp);
          (pages === 100 ? out[kind] : out[`${kind}1`]).push(after - before);
          if (pages === 100) out.count = count;
          // where the bytes are, once: the kinds of heap nodes of each page with 10 000 rows
          if (pages === 100 && round === 0) out.kinds[kind] = await heapByKind(cdp);
        } finally {
          await context.close();
        }
      }
      log(`pages, memory: round ${round + 1}, ${kind}: ${(out[kind].at(-1) / 1024).toFixed(0)} KiB`);
    }
  }
  return out;
}

/** Both measures: the time of loadMore() in Node over REST and muxws, the memory in Chromium. */
export async function measurePages({ stack, browser, runnerUrl, quick, log, counts = pagesCounts(quick) }) {
  const baseUrl = stack.directUrls[0];
  const pkg = await import(pathToFileURL(path.join(repoRoot, 'pkg', 'index.js')).href);
  await call(baseUrl, 'POST', '/__test/big/seed');
  const Rest = pkg.restViewSet()('id', MIXINS(pkg));
  const Mux = pkg.muxwsViewSet()('id', MIXINS(pkg));
  const result = { counts, transports: [] };
  result.transports.push(await measureTransport(pkg, new Rest({ basePath: CURSOR, baseUrl, schemaCheck: false }), counts, log, 'REST'));
  const peer = await pkg.connectMuxws(stack.directWsUrls[0], {});
  try {
    result.transports.push(await measureTransport(pkg, new Mux({ basePath: CURSOR, peer, schemaCheck: false }), counts, log, 'muxws'));
  } finally {
    await peer.close?.();
  }
  // memory: 10 000 books (the catalog's views share them), read 100 a page from /catalog/cursor
  log('pages, memory: 10 000 books');
  await call(baseUrl, 'POST', '/__test/catalog/seed');
  try {
    for (let made = 12; made < 10_000; made += 1000) {
      const batch = Array.from({ length: Math.min(1000, 10_000 - made) }, (_, i) => ({ title: `book ${made + i}`, author: 'Bench', year: 1900 + ((made + i) % 100) }));
      await call(baseUrl, 'POST', '/catalog/bulk/bulk', batch);
    }
    result.memory = await measureMemory({ browser, runnerUrl, baseUrl, rounds: counts.memoryRounds, log });
  } finally {
    await call(baseUrl, 'POST', '/__test/catalog/seed');
  }
  return result;
}

/** The section of BENCHMARKS.md. */
export function renderPages(r, { table, ms }) {
  const p90 = (xs) => quantile(xs, 0.9);
  const x = (a, b) => `${(a / b).toFixed(2)}×`;
  const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
  const rows = [];
  for (const t of r.transports) {
    const s = t.second;
    rows.push([`${t.transport}: page 2 (window 100 → 200 rows), ${s.more.length} pairs`, `${ms(median(s.more))} ms (p90 ${ms(p90(s.more))})`, `${ms(median(s.cursor))} ms (p90 ${ms(p90(s.cursor))})`, `${x(median(s.more), median(s.cursor))} (p90 ${x(p90(s.more), p90(s.cursor))})`, `${ms(median(s.inner))} ms`, `${ms(median(s.more.map((m, i) => m - s.inner[i])))} ms`, x(median(s.cursor) + median(s.more.map((m, i) => m - s.inner[i])), median(s.cursor))]);
    const d = t.deep;
    for (const [from, to] of [[100, 1000], [1000, 3000], [3000, 4900]]) {
      const at = d.window.map((w, i) => (w >= from && w <= to ? i : -1)).filter((i) => i >= 0);
      const pick = (xs) => at.map((i) => xs[i]);
      const [more, cursor, inner] = [pick(d.more), pick(d.cursor), pick(d.inner)];
      rows.push([`${t.transport}: pages ${from / 100 + 1}–${to / 100 + 1} (window ${from}…${to} rows before), ${more.length} pairs`, `${ms(median(more))} ms (p90 ${ms(p90(more))})`, `${ms(median(cursor))} ms (p90 ${ms(p90(cursor))})`, `${x(median(more), median(cursor))} (p90 ${x(p90(more), p90(cursor))})`, `${ms(median(inner))} ms`, `${ms(median(more.map((m, i) => m - inner[i])))} ms`, x(median(cursor) + median(more.map((m, i) => m - inner[i])), median(cursor))]);
    }
  }
  const m = r.memory;
  const per = (xs, ys) => median(xs.map((v, i) => v - ys[i]));
  // the kinds of heap nodes the list's page holds beyond the rows' page, largest first
  const labels = new Set([...Object.keys(m.kinds.list), ...Object.keys(m.kinds.rows)]);
  const kinds = [...labels]
    .map((label) => {
      const [list, rows] = [m.kinds.list[label] ?? { count: 0, bytes: 0 }, m.kinds.rows[label] ?? { count: 0, bytes: 0 }];
      return { label, bytes: list.bytes - rows.bytes, count: list.count - rows.count };
    })
    .sort((a, b) => Math.abs(b.bytes) - Math.abs(a.bytes))
    .slice(0, 8);
  return [
    '## Live lists bigger than a page (issue 38)',
    '',
    `\`bench/pages.mjs\`, against the backend directly (no fault proxy). Time, Node ${process.version}: \`liveList(proxy)\` over the 5 000-row cursor ViewSet (\`/catalog/big-cursor\`, 100 a page, no params), its \`loadMore()\` of one page beside \`proxy.listCursor({ cursor, limit: 100 })\` of the same page through the same proxy, the two taking turns (the first of each pair alternating), after ${r.counts.warmup} warm-up pairs. Page 2: a fresh list per pair (its first page read untimed). Deeper: ${r.counts.deepLists} lists per transport grown page by page to all 50 pages, a pair per page. \`loadMore()\` is timed until its promise resolves (the rows published to the listeners); "its read" is the proxy's listCursor() as the list calls it, timed the same way; "the rest" is loadMore() less its read, per pair: what the list does with the page. The last column adds only that to listCursor()'s median: the ratio without the shared machine's noise in the two reads.`,
    '',
    table(
      ['measure', 'loadMore()', 'listCursor(), same page', 'ratio (goal ≤ 1.1×)', 'its read', 'the rest', '(listCursor() + the rest) ÷ listCursor()'],
      rows,
    ),
    '',
    `Memory, Chromium (headless): ${m.count} books (\`{id, title, author, year}\`, the catalog seeded to 10 000) read from \`/catalog/cursor\` 100 a page over REST; in a fresh page each time, the package imported and a proxy made, the JS heap (CDP \`HeapProfiler.collectGarbage\` three times, then \`Runtime.getHeapUsage\` usedSize) before and after; the difference is what is held. "Rows": each page fetched and parsed with \`response.json()\`, its rows pushed into one array. "Live list": \`liveList(proxy, { limit: 100 })\` and \`loadMore()\` until 100 pages; it holds its follower (REST polling) too. Medians of ${m.rows.length}; the same with one page (100 rows) gives the fixed part of each.`,
    '',
    table(
      ['measure', 'live list', 'rows in an array', 'ratio (goal ≤ 1.2×)'],
      [
        [`${m.count} rows (100 pages)`, kib(median(m.list)), kib(median(m.rows)), x(median(m.list), median(m.rows))],
        ['100 rows (1 page)', kib(median(m.list1)), kib(median(m.rows1)), x(median(m.list1), median(m.rows1))],
        [`per row, the 9 900 rows after the first page`, `${(per(m.list, m.list1) / 9900).toFixed(0)} B`, `${(per(m.rows, m.rows1) / 9900).toFixed(0)} B`, x(per(m.list, m.list1), per(m.rows, m.rows1))],
      ],
    ),
    '',
    `Where the live list's extra bytes are: a heap snapshot (CDP \`HeapProfiler.takeHeapSnapshot\`) of each page of the first round with ${m.count} rows, the self sizes summed by V8's node type and constructor name, the list's page less the rows' page (the eight largest differences; "array: (no name)" are V8's internal arrays, among them the backing tables of \`Map\`s, "code" compiled code and bytecode, not per row):`,
    '',
    table(['kind of heap node', 'bytes more', 'nodes more', '÷ rows'], kinds.map((k) => [k.label, `${(k.bytes / 1024).toFixed(0)} KiB`, String(k.count), `${(k.bytes / m.count).toFixed(1)} B`])),
    '',
  ];
}
