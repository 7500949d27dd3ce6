// Every mixin action of fastapi-viewsets 0.14.0 end to end, against the test backend's catalog
// (tests/backend/catalog.py: /catalog/books, /catalog/pages, /catalog/cursor, /catalog/bulk), over
// REST and over muxws: the answers, what reached the server (the request log: method, path, query,
// content type, key) and how often each action ran there (the catalog's counters). Each scenario
// seeds the catalog first (POST /__test/catalog/seed: the twelve books, ids 1–12, next id 13) and
// reads the counters as differences, so the scenarios run in any order beside the others. They run
// unchanged in Node 20 (tests/e2e/catalog.test.mjs, catalog-muxws.test.mjs) and in headless
// Chromium (tests/browser/e2e.test.mjs). A scenario gets { pkg, baseUrl, wsUrl, ctl }.
import { equal, ok, rejects, same, UUID_V4 } from './check.mjs';
import { recordActivity, sleep } from './control.mjs';

/** The seeded books, by id: [title, author, year]. */
const SEED = {
  1: ['Dune', 'Herbert', 1965],
  2: ['Emma', 'Austen', 1815],
  3: ['Ubik', 'Dick', 1969],
  4: ['Persuasion', 'Austen', 1817],
  5: ['Solaris', 'Lem', 1961],
  6: ['Valis', 'Dick', 1981],
  7: ['Beowulf', 'anonymous', null],
  8: ['Kindred', 'Butler', 1979],
  9: ['Fiasco', 'Lem', 1986],
  10: ['Gilgamesh', 'anonymous', null],
  11: ['Neuromancer', 'Gibson', 1984],
  12: ['Dawn', 'Butler', 1987],
};

/** Book `id` of the seed, as the backend answers it. */
function book(id) {
  const [title, author, year] = SEED[id];
  return { id, title, author, year };
}

const titles = (books) => books.map((b) => b.title);
const ids = (books) => books.map((b) => b.id);

/** The query of a request-log entry as [name, value] pairs, decoded (the same for REST and muxws). */
const queryOf = (entry) => [...new URLSearchParams(entry.query)];

/** `counts` with its names in order, so that two sets of counts compare as JSON whatever their order. */
export const inOrder = (counts) => Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Counters before and after: `delta()` answers how often each `<viewset>.<action>` ran since `track()`. */
async function track(ctl) {
  const before = await ctl.counters();
  return {
    async delta() {
      const after = await ctl.counters();
      const changed = {};
      for (const [name, value] of Object.entries(after)) {
        if (name.includes('.') && value !== (before[name] ?? 0)) changed[name] = value - (before[name] ?? 0);
      }
      return inOrder(changed);
    },
  };
}

/** The one request-log entry of the call with `key` (it must have reached the server once). */
async function entryOf(ctl, key) {
  const entries = await ctl.entriesOf(key);
  equal(entries.length, 1, `log entries of ${key}`);
  return entries[0];
}

/**
 * The scenarios over one transport: `open(ctx)` gives `{ make(basePath, mixins, options), close() }`,
 * where `make` builds a proxy of the catalog with the package's factory of that transport;
 * `lose(ctl)`, when given, queues a fault that loses the answer of the next bulk destroy.
 */
function catalogScenarios(transport, open, lose) {
  const name = (what) => `catalog ${transport}: ${what}`;

  async function withCatalog(ctx, body) {
    await ctx.ctl.seedCatalog();
    const api = await open(ctx);
    try {
      return await body(api);
    } finally {
      await api.close();
    }
  }

  const scenarios = {
    async [name('list with sort and filters: the query as the backend reads it, arrays as repeated keys')](ctx) {
      const { pkg, ctl } = ctx;
      await withCatalog(ctx, async ({ make }) => {
        const books = make('/catalog/books', [pkg.ViewSetMixin]);
        const counters = await track(ctl);

        const byYear = books.list({ sort: 'year:desc,title', author__icontains: 'dick' });
        same(titles(await byYear), ['Valis', 'Ubik'], 'sorted and filtered');
        same(queryOf(await entryOf(ctl, byYear.key)), [['sort', 'year:desc,title'], ['author__icontains', 'dick']], 'the query on the wire');

        const inYears = books.list({ year__in: [1817, 1815], sort: 'title' });
        same(titles(await inYears), ['Emma', 'Persuasion'], 'year__in');
        same(queryOf(await entryOf(ctl, inYears.key)), [['year__in', '1817'], ['year__in', '1815'], ['sort', 'title']], 'an array as repeated keys');

        const undated = books.list({ year__isnull: true, author: undefined, title__icontains: null });
        same(ids(await undated), [7, 10], 'year__isnull');
        same(queryOf(await entryOf(ctl, undated.key)), [['year__isnull', 'true']], 'null and undefined are left out');

        const range = books.list({ year__gte: 1961, year__lte: 1969, sort: 'year' });
        same(titles(await range), ['Solaris', 'Dune', 'Ubik'], 'a range');

        const all = books.list();
        same(await all, Object.keys(SEED).map((id) => book(Number(id))), 'no params: every book, in id order');
        equal((await entryOf(ctl, all.key)).query, '', 'no query');

        // 0.1's form: the query under `query`, told apart by its object value; options beside params
        const lem = books.list({ query: { author: 'Lem' } });
        same(titles(await lem), ['Solaris', 'Fiasco'], 'list({ query })');
        const traced = books.list({ author: 'Austen' }, { headers: { 'X-Trace': 'catalog' } });
        same(titles(await traced), ['Emma', 'Persuasion'], 'list(params, options)');
        equal((await entryOf(ctl, traced.key)).headers['x-trace'], 'catalog', 'the options reached the wire');

        same(await counters.delta(), inOrder({ 'books.list': 7 }), 'each list ran once on the server');
      });
    },

    async [name('the paginated list: pages with hasMore/hasPrevious, offset and limit as the query')](ctx) {
      const { pkg, ctl } = ctx;
      await withCatalog(ctx, async ({ make }) => {
        const pages = make('/catalog/pages', [pkg.PaginatedListMixin, pkg.RetrieveMixin]);
        const counters = await track(ctl);

        const call = pages.listPage({ limit: 3, offset: 3, sort: 'title' });
        ok(UUID_V4.test(call.key), 'the page call has its key at once');
        const page = await call;
        same(titles(page.results), ['Emma', 'Fiasco', 'Gilgamesh'], 'the page');
        same(
          { offset: page.offset, limit: page.limit, count: page.count, hasMore: page.hasMore, hasPrevious: page.hasPrevious },
          { offset: 3, limit: 3, count: 12, hasMore: true, hasPrevious: true },
          'the envelope',
        );
        ok(!('has_more' in page) && !('has_previous' in page), 'the backend names are renamed, not doubled');
        same(queryOf(await entryOf(ctl, call.key)), [['limit', '3'], ['offset', '3'], ['sort', 'title']], 'the query on the wire');

        const first = await pages.listPage();
        same(ids(first.results), [1, 2, 3, 4, 5], 'the default page');
        same([first.offset, first.limit, first.hasMore, first.hasPrevious], [0, 5, true, false], 'the default envelope');

        const lem = await pages.listPage({ limit: 2, author: 'Lem', sort: 'year:desc' });
        same([titles(lem.results), lem.count, lem.hasMore], [['Fiasco', 'Solaris'], 2, false], 'filtered');

        same(await pages.retrieve(1), book(1), 'retrieve on the paginated viewset');
        same(await counters.delta(), inOrder({ 'pages.list': 3, 'pages.retrieve': 1 }), 'runs on the server');
      });
    },

    async [name('the cursor list: walking next to the end and previous back, a stale cursor refused')](ctx) {
      const { pkg, ctl } = ctx;
      await withCatalog(ctx, async ({ make }) => {
        const cursor = make('/catalog/cursor', [pkg.CursorListMixin, pkg.RetrieveMixin]);
        const counters = await track(ctl);

        const pages = [await cursor.listCursor({ limit: 3, sort: 'year:desc' })];
        same(titles(pages[0].results), ['Dawn', 'Fiasco', 'Neuromancer'], 'the first page');
        same([pages[0].limit, pages[0].hasMore, pages[0].hasPrevious, pages[0].previous], [3, true, false, null], 'its envelope');
        ok(typeof pages[0].next === 'string' && typeof pages[0].first === 'string' && typeof pages[0].last === 'string', 'its cursors');
        while (pages.at(-1).hasMore) {
          const call = cursor.listCursor({ limit: 3, sort: 'year:desc', cursor: pages.at(-1).next });
          pages.push(await call);
          ok(queryOf(await entryOf(ctl, call.key)).some(([key, value]) => key === 'cursor' && value === pages.at(-2).next), 'the cursor on the wire');
          ok(pages.length < 10, 'the walk ends');
        }
        const walked = pages.flatMap((page) => page.results);
        same(ids(walked.slice(0, 10)), [12, 9, 11, 6, 8, 3, 1, 5, 4, 2], 'newest first');
        same(ids(walked.slice(10)).sort((a, b) => a - b), [7, 10], 'the books without a year last');
        same([pages.at(-1).hasMore, pages.at(-1).next, pages.at(-1).hasPrevious], [false, null, true], 'the last envelope');

        const back = await cursor.listCursor({ limit: 3, sort: 'year:desc', cursor: pages[1].previous });
        same(titles(back.results), ['Dawn', 'Fiasco', 'Neuromancer'], 'previous of the second page is the first');

        // a cursor of another sort: 400 cursor_stale, as 0.6 code reads it and translated
        const stale = await rejects(cursor.listCursor({ limit: 3, sort: 'title', cursor: pages[0].next }), pkg.HttpError, 'stale cursor');
        ok(stale instanceof pkg.ViewSetRequestError, 'a ViewSetRequestError');
        equal(stale.response.status, 400, 'response.status');
        equal(stale.response.data.detail_code, 'fastapi-viewsets.cursor_stale', 'response.data.detail_code');
        equal(pkg.translateApiError(stale), pkg.translatableStrings.cursor_stale, 'translateApiError without the namespace');

        same(await cursor.retrieve(12), book(12), 'retrieve on the cursor viewset');
        same(await counters.delta(), inOrder({ 'cursor.list': pages.length + 1, 'cursor.retrieve': 1 }), 'runs on the server (the stale cursor ran no list)');
      });
    },

    async [name('create, retrieve, update, partial update, destroy: answers, bodies and runs')](ctx) {
      const { pkg, ctl } = ctx;
      await withCatalog(ctx, async ({ make }) => {
        const books = make('/catalog/books', [pkg.ViewSetMixin]);
        const counters = await track(ctl);

        const create = books.create({ title: 'Lilith', author: 'Butler', year: 1989 });
        const made = await create;
        same(made, { id: 13, title: 'Lilith', author: 'Butler', year: 1989 }, 'created, its id from the server');
        const posted = await entryOf(ctl, create.key);
        same([posted.method, posted.path, posted.ran, posted.action], ['POST', '/catalog/books', true, 'books.create'], 'POST {base}, ran');
        ok(String(posted.headers['content-type']).startsWith('application/json'), 'a JSON body');
        equal(posted.idempotency_key, `"${create.key}"`, 'the key on the wire');

        same(await books.retrieve(13), made, 'retrieve');
        const replaced = await books.update(13, { id: 13, title: "Lilith's Brood", author: 'Butler', year: 2000 });
        same(replaced, { id: 13, title: "Lilith's Brood", author: 'Butler', year: 2000 }, 'update: the whole record');
        const patched = books.partialUpdate(13, { year: 1989 });
        same(await patched, { id: 13, title: "Lilith's Brood", author: 'Butler', year: 1989 }, 'partial update: the rest kept');
        same([(await entryOf(ctl, patched.key)).method, (await entryOf(ctl, patched.key)).path], ['PATCH', '/catalog/books/13'], 'PATCH {base}/{pk}');
        same(await books.destroy(13), { 13: null }, 'destroy');

        // gone: 404, read as 0.6 code reads it; no pseudo-headers
        const missing = await rejects(books.retrieve(13), pkg.HttpError, 'retrieve after destroy');
        ok(missing instanceof pkg.ViewSetRequestError, 'a ViewSetRequestError');
        same([missing.response.status, missing.status], [404, 404], 'status');
        same(missing.response.data, missing.body, 'response.data is the body');
        equal(missing.response.data.detail_code, 'fastapi-viewsets.not_found', 'detail_code');
        same(missing.response.data.detail_params, { pk: 13 }, 'detail_params');
        ok(String(missing.response.headers['content-type']).startsWith('application/json'), 'response.headers');
        ok(Object.keys(missing.response.headers).every((header) => !header.startsWith(':')), 'no pseudo-headers');
        ok(Object.values(missing.response.headers).every((value) => typeof value === 'string'), 'string values');
        same(missing.fieldErrors, {}, 'no field errors');
        equal(pkg.translateApiError(missing), 'No record has the primary key 13', 'translated');
        equal(missing.key.length, 36, 'the error carries the key');

        // field errors: per field, a list of { code, params, detail }
        const invalid = await rejects(books.create({ author: 'Nobody' }), pkg.HttpError, 'create without a title');
        equal(invalid.status, 422, 'status');
        equal(invalid.detailCode, 'fastapi-viewsets.validation_failed', 'detailCode');
        equal(invalid.fieldErrors.title[0].code, 'pydantic.missing', 'the field error code');
        ok(typeof invalid.fieldErrors.title[0].detail === 'string' && typeof invalid.fieldErrors.title[0].params === 'object', 'its detail and params');
        const assigned = await rejects(books.create({ id: 50, title: 'T', author: 'A' }), pkg.HttpError, 'create with a pk');
        equal(assigned.fieldErrors.id[0].code, 'fastapi-viewsets.pk_assigned_by_server', 'the pk is the server’s');

        same(
          await counters.delta(),
          inOrder({ 'books.create': 1, 'books.retrieve': 2, 'books.update': 1, 'books.partial_update': 1, 'books.destroy': 1 }),
          'each action ran once (the refused creates never ran)',
        );
      });
    },

    async [name('the four bulk actions: arrays and {pk: record} bodies, bulk destroy’s pks as the JSON body')](ctx) {
      const { pkg, ctl } = ctx;
      await withCatalog(ctx, async ({ make }) => {
        const bulk = make('/catalog/bulk', [pkg.BulkViewSetMixin, pkg.LookupMixin]);
        const counters = await track(ctl);

        const made = await bulk.bulkCreate([
          { title: 'Ice', author: 'Kavan', year: 1967 },
          { title: 'Roadside Picnic', author: 'Strugatsky' },
        ]);
        same(made, [
          { id: 13, title: 'Ice', author: 'Kavan', year: 1967 },
          { id: 14, title: 'Roadside Picnic', author: 'Strugatsky', year: null },
        ], 'bulk create');

        const updated = await bulk.bulkUpdate({ 13: { ...made[0], year: 1968 }, 14: { ...made[1], year: 1972 } });
        same(updated.map((b) => [b.id, b.year]), [[13, 1968], [14, 1972]], 'bulk update');
        const patched = await bulk.bulkPartialUpdate({ 14: { title: 'Picnic' } });
        same(patched, [{ id: 14, title: 'Picnic', author: 'Strugatsky', year: 1972 }], 'bulk partial update');

        const destroy = bulk.bulkDestroy([13, 14]);
        same(await destroy, [{ 13: null }, { 14: null }], 'bulk destroy');
        const wire = await entryOf(ctl, destroy.key);
        same([wire.method, wire.path, wire.query, wire.ran], ['DELETE', '/catalog/bulk/bulk', '', true], 'DELETE {base}/bulk, no ?pk=');
        ok(String(wire.headers['content-type']).startsWith('application/json'), 'the pks as a JSON body');
        same(ids(await bulk.list()), Object.keys(SEED).map(Number), 'the catalog is back to the seed');

        same(
          await counters.delta(),
          inOrder({ 'bulk.bulk_create': 1, 'bulk.bulk_update': 1, 'bulk.bulk_partial_update': 1, 'bulk.bulk_destroy': 1, 'bulk.list': 1 }),
          'each ran once',
        );
      });
    },

    async [name('lookup: LookupItems grouped by author, q as the query')](ctx) {
      const { pkg, ctl } = ctx;
      await withCatalog(ctx, async ({ make }) => {
        const bulk = make('/catalog/bulk', [pkg.BulkViewSetMixin, pkg.LookupMixin]);
        const counters = await track(ctl);
        const call = bulk.lookup();
        const items = await call;
        equal(items.length, 12, 'every book');
        same(items.slice(0, 4), [
          { group: 'anonymous', pk: 7, title: 'Beowulf', icon: null },
          { group: 'anonymous', pk: 10, title: 'Gilgamesh', icon: null },
          { group: 'Austen', pk: 2, title: 'Emma', icon: null },
          { group: 'Austen', pk: 4, title: 'Persuasion', icon: null },
        ], 'LookupItems by author, then title');
        same([(await entryOf(ctl, call.key)).path, (await entryOf(ctl, call.key)).query], ['/catalog/bulk/lookup', ''], 'GET {base}/lookup');
        const found = bulk.lookup({ q: 'an' });
        same(await found, [{ group: 'Gibson', pk: 11, title: 'Neuromancer', icon: null }], 'q');
        same(queryOf(await entryOf(ctl, found.key)), [['q', 'an']], 'q on the wire');
        same(await counters.delta(), inOrder({ 'bulk.lookup': 2 }), 'ran twice');
      });
    },

    async [name('the schema check finds every declared action on the catalog’s viewsets')](ctx) {
      const { pkg } = ctx;
      const warnings = [];
      const realWarn = console.warn;
      console.warn = (...args) => warnings.push(args.join(' '));
      const activity = recordActivity(pkg);
      try {
        await withCatalog(ctx, async ({ make }) => {
          make('/catalog/books', [pkg.ViewSetMixin], { schemaCheck: true });
          make('/catalog/pages', [pkg.PaginatedListMixin, pkg.RetrieveMixin], { schemaCheck: true });
          make('/catalog/cursor', [pkg.CursorListMixin, pkg.RetrieveMixin], { schemaCheck: true });
          make('/catalog/bulk', [pkg.BulkViewSetMixin, pkg.LookupMixin], { schemaCheck: undefined, validateSchema: true });
          make('/catalog/pages', [pkg.LookupMixin], { schemaCheck: true });
          for (let i = 0; i < 200 && activity.events.filter((e) => e.type === 'settle' && e.path.endsWith('/schema')).length < 5; i++) await sleep(20);
          // The comparison runs in a chunk loaded after the document settles: wait for the warning
          // itself, not for the settles. Every check's document is in by now and each imports the one
          // chunk already loaded, so the others' comparisons follow within a few ticks: the short wait
          // after it only gives a wrong warning the chance to show (the check below of none).
          const reported = () => warnings.some((w) => w.includes('lookup()') && w.includes('/catalog/pages/lookup'));
          for (let i = 0; i < 500 && !reported(); i++) await sleep(20);
          await sleep(100);
        });
        same(warnings.filter((w) => !w.includes('/catalog/pages/lookup')), [], 'no warning for the declared actions');
        ok(warnings.some((w) => w.includes('lookup()') && w.includes('/catalog/pages/lookup')), `an undeclared route is reported (${warnings})`);
      } finally {
        console.warn = realWarn;
        activity.stop();
      }
    },
  };
  if (!lose) return scenarios;
  const lossScenario = {
    async [name('a bulk destroy whose answer is lost is repeated with its key and runs once')](ctx) {
      const { pkg, ctl } = ctx;
      await withCatalog(ctx, async ({ make }) => {
        const bulk = make('/catalog/bulk', [pkg.BulkViewSetMixin]);
        const counters = await track(ctl);
        const activity = recordActivity(pkg);
        try {
          await lose(ctl);
          const call = bulk.bulkDestroy([1, 2]);
          same(await call, [{ 1: null }, { 2: null }], 'the first execution’s answer');
          ok(activity.retriesOf(call.key).length >= 1, 'repeated');
          equal(await ctl.runsOf(call.key), 1, 'ran once');
          same(await counters.delta(), inOrder({ 'bulk.bulk_destroy': 1 }), 'counted once');
        } finally {
          activity.stop();
          await ctl.clearFaults();
        }
      });
    },
  };
  return { ...scenarios, ...lossScenario };
}

/** REST: the factory's classes with the stack's base URL. */
export const catalogRestScenarios = catalogScenarios('rest', async ({ pkg, baseUrl }) => ({
  make: (basePath, mixins, options = {}) =>
    new (pkg.restViewSet()('id', mixins))({ basePath, baseUrl, schemaCheck: false, repeat: { delayMs: 50 }, ...options }),
  close: async () => {},
}), // the answer cut off after the backend ran it: response bytes arrived, so no browser sends the
// request again by itself (as Chromium does when a reused connection closes before any answer)
(ctl) => ctl.fault('truncate_after', { count: 1, path: '/catalog/bulk/bulk', method: 'DELETE' }));

/**
 * muxws: the factory's classes over one peer per scenario. (A lost answer over muxws is the muxws
 * scenarios' subject: a socket cut under a running action.)
 */
export const catalogMuxwsScenarios = catalogScenarios('muxws', async ({ pkg, wsUrl }) => {
  const peer = await pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 100, maxDelayMs: 1000 } });
  return {
    make: (basePath, mixins, options = {}) =>
      new (pkg.muxwsViewSet()('id', mixins))({ basePath, peer, schemaCheck: false, repeat: { delayMs: 100 }, ...options }),
    close: () => peer.close(),
  };
});
