// Application code written as 0.6 users write it (the runnable twin of tests/types/compat/compat-0.6.ts
// and compat-0.6-axios.ts, which tsc --strict checks against the package's .d.ts), run against the
// real backend's catalog (tests/backend/catalog.py): route_rest in both 0.6 shapes with a class as the
// type token, mixins extended as classes, list params, listPage/listCursor, CRUD and the bulk actions,
// lookup, ViewSetRequestError and axios errors, translateApiError, the class factories with 0.6
// options, a RestProxyImpl subclass. Runs unchanged in Node 20 (tests/e2e/compat06.test.mjs) and in
// headless Chromium (tests/browser/e2e.test.mjs). A scenario gets { pkg, baseUrl, ctl }.
import { inOrder } from './catalog-scenarios.mjs';
import { equal, ok, rejects, same } from './check.mjs';

async function axiosModule() {
  return (await import('axios')).default;
}

/** Vue's reactivity (the package Vue itself uses): state wraps what it holds in proxies. */
async function vueReactivity() {
  return import('@vue/reactivity');
}

/** How often each catalog action ran between two readings of the counters. */
function ranSince(before, after) {
  const ran = {};
  for (const [name, value] of Object.entries(after)) if (name.includes('.') && value !== (before[name] ?? 0)) ran[name] = value - (before[name] ?? 0);
  return inOrder(ran);
}

export const compat06Scenarios = {
  async '0.6 style: route_rest positional and with options, over an axios instance: list params, pages, cursor, CRUD, bulk, lookup'({ pkg, baseUrl, ctl }) {
    const axios = await axiosModule();
    await ctl.seedCatalog();
    const before = await ctl.counters();
    const http = axios.create({ baseURL: baseUrl });
    let intercepted = 0;
    http.interceptors.request.use((config) => {
      intercepted += 1;
      config.headers.set('X-Trace', 'compat');
      return config;
    });

    // the type token: a class extending the mixins, its static declares for the schema check
    class BookViewSet extends pkg.BulkViewSetMixin {
      static declares = [pkg.BulkViewSetMixin, pkg.LookupMixin];
    }
    const books = pkg.route_rest(BookViewSet, '/catalog/bulk', 'id', http);
    const plainBooks = pkg.route_rest(BookViewSet, { basePath: '/catalog/books', pkFieldName: 'id', validateSchema: false, axiosInstance: http });
    class PagesViewSet extends pkg.PaginatedListMixin {}
    const pages = pkg.route_rest(PagesViewSet, '/catalog/pages', 'id', http);
    class CursorViewSet extends pkg.CursorListMixin {}
    const cursor = pkg.route_rest(CursorViewSet, { basePath: '/catalog/cursor', pkFieldName: 'id', axiosInstance: http });
    equal(books.pkFieldName, 'id', 'proxy.pkFieldName');

    // CRUD and bulk
    const all = await books.list();
    equal(all.length, 12, 'list()');
    same(await books.retrieve(all[0].id), all[0], 'retrieve');
    const created = await books.create({ title: 'Lilith', author: 'Butler', year: 1989 });
    equal(created.id, 13, 'create');
    const replaced = await books.update(created.id, { id: created.id, title: "Lilith's Brood", author: 'Butler' });
    same([replaced.title, replaced.year], ["Lilith's Brood", null], 'update: the whole record');
    equal((await books.partialUpdate(created.id, { year: 2000 })).year, 2000, 'partialUpdate');
    const destroyed = await books.destroy(created.id);
    equal(destroyed[created.id], null, 'destroy: { pk: null }');
    const made = await books.bulkCreate([
      { title: 'Ice', author: 'Kavan', year: 1967 },
      { title: 'Roadside Picnic', author: 'Strugatsky' },
    ]);
    same(made.map((b) => b.id), [14, 15], 'bulkCreate');
    equal((await books.bulkUpdate({ [made[0].id]: { ...made[0], year: 1968 } }))[0].year, 1968, 'bulkUpdate');
    equal((await books.bulkPartialUpdate({ [made[1].id]: { year: 1972 } }))[0].year, 1972, 'bulkPartialUpdate');
    same(await books.bulkDestroy(made.map((b) => b.id)), [{ 14: null }, { 15: null }], 'bulkDestroy: the pks as the JSON body');
    const choices = await books.lookup();
    same(choices.map((item) => `${item.group}: ${item.title}`).slice(0, 2), ['anonymous: Beowulf', 'anonymous: Gilgamesh'], 'lookup()');
    equal(choices[0].icon, null, 'LookupItem.icon');

    // list params: sort and filters as the query
    same((await plainBooks.list({ sort: 'year:desc,title', author__icontains: 'dick' })).map((b) => b.title), ['Valis', 'Ubik'], 'list(params)');
    same((await plainBooks.list({ year__in: [1815, 1817], sort: 'title' })).map((b) => b.title), ['Emma', 'Persuasion'], 'an array filter');
    same((await plainBooks.list({ year__isnull: true, author: undefined, title__icontains: null })).map((b) => b.id), [7, 10], 'null/undefined left out');

    // listPage / listCursor with the 0.6 renames
    const page = await pages.listPage({ limit: 5, offset: 5, sort: 'title' });
    same([page.results.length, page.offset, page.limit, page.count, page.hasMore, page.hasPrevious], [5, 5, 5, 12, true, true], 'listPage');
    const walked = [];
    let at = await cursor.listCursor({ limit: 3, sort: 'year:desc' });
    walked.push(...at.results);
    while (at.hasMore && at.next !== null) {
      at = await cursor.listCursor({ limit: 3, sort: 'year:desc', cursor: at.next });
      walked.push(...at.results);
    }
    equal(walked.length, 12, 'the cursor walk');
    same([at.hasPrevious, at.limit], [true, 3], 'the last page');

    ok(intercepted >= 20, `the instance's interceptor ran on every call (${intercepted})`);
    same(
      ranSince(before, await ctl.counters()),
      inOrder({
        'bulk.list': 1, 'bulk.retrieve': 1, 'bulk.create': 1, 'bulk.update': 1, 'bulk.partial_update': 1, 'bulk.destroy': 1,
        'bulk.bulk_create': 1, 'bulk.bulk_update': 1, 'bulk.bulk_partial_update': 1, 'bulk.bulk_destroy': 1, 'bulk.lookup': 1,
        'books.list': 3, 'pages.list': 1, 'cursor.list': 4,
      }),
      'each call ran once on the server',
    );
  },

  async '0.6 style: errors read as 0.6 read them: axios errors with axiosInstance, ViewSetRequestError otherwise; translateApiError'({ pkg, baseUrl, ctl }) {
    const axios = await axiosModule();
    await ctl.seedCatalog();
    class BookViewSet extends pkg.BulkViewSetMixin {}
    const overAxios = pkg.route_rest(BookViewSet, '/catalog/bulk', 'id', axios.create({ baseURL: baseUrl }));
    const overFetch = pkg.route_rest(BookViewSet, { basePath: '/catalog/bulk', pkFieldName: 'id', baseUrl });

    pkg.translateStrings((code) => (code === 'not_found' ? 'Ni knjige {pk}' : undefined));
    try {
      const axiosError = await rejects(overAxios.retrieve(99), Error, 'over axios');
      ok(axios.isAxiosError(axiosError), 'axios.isAxiosError(e), as 0.6 REST code checks');
      equal(axiosError.response.status, 404, 'e.response.status');
      equal(axiosError.response.data.detail, 'Item with pk 99 not found', 'e.response.data.detail');
      equal(pkg.translateApiError(axiosError.response.data), 'Ni knjige 99', 'translateApiError(body), the namespaced code found');

      const error = await rejects(overFetch.destroy(99), pkg.ViewSetRequestError, 'over fetch');
      equal(error.response.status, 404, 'error.response.status');
      same(error.response.data.detail_params, { pk: 99 }, 'error.response.data');
      equal(error.response.headers['content-type'], 'application/json', "error.response.headers['content-type']");
      ok(error.message.length > 0, 'error.message');
      equal(pkg.translateApiError(error), 'Ni knjige 99', 'translateApiError(error)');

      // a code without a template: the backend's detail
      const reused = await rejects(overFetch.bulkDestroy([1], { key: error.key }), pkg.ViewSetRequestError, 'a key reused for another body');
      equal(reused.response.status, 422, 'status');
      equal(reused.response.data.detail_code, 'fastapi-viewsets.idempotency_key_reused', 'code');
      ok(pkg.translateApiError(reused).includes(error.key), `the English template with the key (${pkg.translateApiError(reused)})`);

      // no answer: no response (as axios errors without one)
      const offline = pkg.route_rest(BookViewSet, { basePath: '/catalog/bulk', pkFieldName: 'id', baseUrl: 'http://127.0.0.1:9', repeat: { withinMs: 0 } });
      const lost = await rejects(offline.list(), pkg.NetworkError, 'nothing answered');
      ok(!(lost instanceof pkg.ViewSetRequestError) && lost.response === undefined, 'no response');

      // the callback of 0.6's @dynamicforms/translatable: (key, defaultValue, placeholders), null for English
      const seen = [];
      pkg.translateStrings((key, defaultValue, placeholders) => {
        seen.push([key, defaultValue, placeholders]);
        return key === 'not_found' ? `Ni knjige ${placeholders.pk}` : null;
      });
      equal(pkg.translateApiError(error), 'Ni knjige 99', 'the template from a three-argument callback');
      same(seen.at(-1), ['not_found', 'No record has the primary key {pk}', { pk: '{pk}' }], "the callback's arguments");
      ok(pkg.translateApiError(reused).includes(error.key), 'null keeps the English template');
    } finally {
      pkg.translateStrings(() => undefined);
    }
  },

  async '0.6 style: proxies kept in Vue state (reactive, ref, as a Pinia store holds them) are left as they are, no markRaw, and call, keys and all'({ pkg, baseUrl, ctl }) {
    const { reactive, ref, isReactive } = await vueReactivity();
    await ctl.seedCatalog();
    class Books extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {
      titles() {
        return this.request('GET', '', { query: { sort: 'title' } });
      }
    }
    class BookViewSet extends pkg.ListMixin {}
    const state = reactive({
      books: new Books({ basePath: '/catalog/books', baseUrl, schemaCheck: false }),
      plain: pkg.route_rest(BookViewSet, { basePath: '/catalog/books', pkFieldName: 'id', baseUrl, validateSchema: false }),
    });
    ok(!isReactive(state.books), 'the proxy is left as it is: it marks itself for Vue (__v_skip), as 0.6 users had to with markRaw');
    const listed = state.books.list();
    equal((await listed).length, 12, 'a built-in action through the state');
    equal((await ctl.entriesOf(listed.key)).length, 1, 'its key on the wire');
    const titles = state.books.titles();
    equal((await titles)[0].title, 'Beowulf', "the class's own method, calling this.request");
    equal(typeof titles.key, 'string', 'with its key');
    equal((await state.plain.list()).length, 12, 'a route_rest proxy in reactive state');
    const held = ref(new pkg.RestProxyImpl({ basePath: '/catalog/books', pkFieldName: 'id', baseUrl }));
    const retrieved = held.value.retrieve(1);
    equal((await retrieved).id, 1, 'a RestProxyImpl in a ref');
    equal(await ctl.runsOf(retrieved.key), 1, 'ran once');
  },

  async '0.6 style: the class factories with 0.6 options, and a RestProxyImpl subclass with its own endpoints'({ pkg, baseUrl, ctl }) {
    const axios = await axiosModule();
    await ctl.seedCatalog();

    class BookApi extends pkg.restViewSet()('id', [pkg.ViewSetMixin, pkg.LookupMixin]) {
      async oldest() {
        return this.request('GET', '', { query: { sort: 'year', year__isnull: false } });
      }
    }
    const api = new BookApi({ basePath: '/catalog/bulk', validateSchema: false, axiosInstance: axios.create({ baseURL: baseUrl }) });
    equal(api.pkFieldName, 'id', 'pkFieldName');
    equal(BookApi.declares.length, 2, 'static declares: the mixins');
    same((await api.oldest()).slice(0, 2).map((b) => b.title), ['Emma', 'Persuasion'], 'its own method');
    const made = await api.create({ title: 'Dawn', author: 'Butler' });
    equal(made.id, 13, 'create');
    equal((await api.lookup()).length, 13, 'lookup');
    equal(typeof api.bulkDestroy, 'undefined', 'no undeclared action');

    class BookProxy extends pkg.RestProxyImpl {
      async count() {
        const all = await this.request('GET', '');
        return all.length;
      }
      async first() {
        const answer = await this.http.get(`${this.basePath}/1`);
        return answer.data;
      }
    }
    // given with a trailing slash, as 0.6 allowed: it drops one, so `${this.basePath}/1` stays one path
    const proxy = new BookProxy({ basePath: '/catalog/books/', pkFieldName: 'id', validateSchema: false, axiosInstance: axios.create({ baseURL: baseUrl }) });
    equal(proxy.basePath, '/catalog/books', 'basePath without its trailing slash');
    equal(await proxy.count(), 13, 'a custom endpoint on this.request');
    equal((await proxy.first()).title, 'Dune', 'this.http is the axios instance');
    equal((await proxy.list({ sort: 'title' }))[0].title, 'Beowulf', 'list(params) on the proxy class');
    equal(proxy.pkFieldName, 'id', 'pkFieldName');
    same(await proxy.destroy(made.id), { [made.id]: null }, 'destroy');

    const plain = new pkg.RestProxyImpl({ basePath: '/catalog/books', pkFieldName: 'id', baseUrl });
    const call = plain.retrieve(1);
    equal(typeof call.key, 'string', 'a 0.6 proxy call has its key too');
    equal((await call).title, 'Dune', 'over fetch');
  },
};

/**
 * The same over muxws: 0.6's `route_muxws(Class, options)` and `MuxwsProxyImpl`, the peer given as
 * a peer or as a function (called once, at the first call), errors as `ViewSetRequestError`.
 * Needs { pkg, wsUrl, ctl }.
 */
export const compat06MuxwsScenarios = {
  async '0.6 style over muxws: route_muxws with a peer: list params, lookup, bulk destroy; ViewSetRequestError without pseudo-headers'({ pkg, wsUrl, ctl }) {
    await ctl.seedCatalog();
    const before = await ctl.counters();
    const peer = await pkg.connectMuxws(wsUrl);
    try {
      class BookViewSet extends pkg.BulkViewSetMixin {
        static declares = [pkg.BulkViewSetMixin, pkg.LookupMixin];
      }
      const books = pkg.route_muxws(BookViewSet, { basePath: '/catalog/bulk', pkFieldName: 'id', peer, timeoutMs: 10_000, headers: { 'x-trace': 'compat' } });
      const listed = books.list({ sort: 'title', year__in: [1815, 1817] });
      same((await listed).map((b) => b.title), ['Emma', 'Persuasion'], 'list(params): the array filter applies over muxws too');
      equal((await ctl.entriesOf(listed.key))[0].headers['x-trace'], 'compat', 'the headers option');
      equal((await books.lookup()).length, 12, 'lookup');
      same(await books.bulkDestroy([1]), [{ 1: null }], 'bulkDestroy');
      const error = await rejects(books.destroy(99), pkg.ViewSetRequestError, 'destroy(99)');
      equal(error.response.status, 404, 'response.status (from :status)');
      equal(error.response.data.detail_code, 'fastapi-viewsets.not_found', 'response.data');
      ok(!Object.keys(error.response.headers).some((name) => name.startsWith(':')), `no pseudo-headers (${Object.keys(error.response.headers)})`);
      ok(Object.values(error.response.headers).every((value) => typeof value === 'string'), 'string values');
      // The backend counts destroy when the action is invoked, before it finds no item 99 (a REST
      // DELETE of a missing id counts it the same way): the 404 ran destroy once.
      same(
        ranSince(before, await ctl.counters()),
        inOrder({ 'bulk.list': 1, 'bulk.lookup': 1, 'bulk.bulk_destroy': 1, 'bulk.destroy': 1 }),
        'ran once each (the 404 ran destroy once, as over REST)',
      );
    } finally {
      await peer.close();
    }
  },

  async '0.6 style over muxws: a peer kept in Vue state is a peer: left as it is, proxies take it, its getters and methods work'({ pkg, wsUrl, ctl }) {
    const { reactive, isReactive } = await vueReactivity();
    await ctl.seedCatalog();
    const state = reactive({ peer: await pkg.connectMuxws(wsUrl) });
    try {
      ok(!isReactive(state.peer), 'the peer is left as it is: it marks itself for Vue (__v_skip)');
      equal(state.peer.isOpen, true, 'isOpen');
      class Books extends pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]) {}
      const books = reactive(new Books({ basePath: '/catalog/books', peer: state.peer, schemaCheck: false }));
      const listed = books.list();
      equal((await listed).length, 12, 'a proxy given the peer from state, itself in state');
      equal(await ctl.runsOf(listed.key), 1, 'ran once, over muxws');
      equal((await ctl.entriesOf(listed.key))[0].transport, 'muxws', 'over muxws');
      const reply = await state.peer.requestWithHeaders(null, { headers: { ':method': 'GET', ':path': '/catalog/books/1' } });
      equal(reply.payload.id, 1, "the peer's own request");
    } finally {
      await state.peer.close();
    }
    equal(state.peer.isClosed, true, 'closed');
  },

  async '0.6 style over muxws: a lazy peer is called once, at the first call; calls issued before it resolved are pending and settle'({ pkg, wsUrl, ctl }) {
    await ctl.seedCatalog();
    let called = 0;
    let peer;
    const source = () => {
      called += 1;
      return pkg.connectMuxws(wsUrl).then((connected) => (peer = connected));
    };
    try {
      class ReadOnly extends pkg.ReadOnlyViewSetMixin {}
      const books = pkg.route_muxws(ReadOnly, { basePath: '/catalog/books', pkFieldName: 'id', validateSchema: false, peer: source });
      equal(called, 0, 'not called before the first call');
      const early = [books.retrieve(1), books.retrieve(2), books.list({ author: 'Lem' })];
      equal(called, 1, 'called once, by the first call');
      ok(early.every((call) => typeof call.key === 'string' && call.key.length === 36), 'each call has its key at once');
      const pending = pkg.pendingCalls().filter((call) => early.some((c) => c.key === call.key));
      equal(pending.length, 3, 'the calls waiting for the peer are pending');
      ok(pending.every((call) => call.transport === 'muxws'), 'over muxws');
      same((await Promise.all(early)).map((answer) => (Array.isArray(answer) ? answer.map((b) => b.title) : answer.title)), ['Dune', 'Emma', ['Solaris', 'Fiasco']], 'answers');
      equal((await books.retrieve(3)).title, 'Ubik', 'a call once the peer is known');
      equal(called, 1, 'still called once');
    } finally {
      await peer?.close();
    }
  },

  async '0.6 style over muxws: a lazy peer that fails rejects the waiting calls with its error; the next call calls it again'({ pkg, wsUrl, ctl }) {
    await ctl.seedCatalog();
    let called = 0;
    let peer;
    const source = async () => {
      called += 1;
      if (called === 1) throw new Error('not yet');
      return (peer = await pkg.connectMuxws(wsUrl));
    };
    try {
      const Books = pkg.muxwsViewSet()('id', [pkg.CursorListMixin, pkg.RetrieveMixin]);
      const cursor = new Books({ basePath: '/catalog/cursor', peer: source, validateSchema: false });
      const first = cursor.retrieve(1);
      const error = await rejects(first, Error, 'the first call');
      equal(error.message, 'not yet', "the source's error");
      equal(error.key, first.key, 'carrying the key');
      const page = await cursor.listCursor({ limit: 2 });
      same([page.results.map((b) => b.id), page.hasMore], [[1, 2], true], 'the next call connects');
      equal(called, 2, 'called again after the failure, then kept');
    } finally {
      await peer?.close();
    }
  },

  async '0.6 style over muxws: a MuxwsProxyImpl subclass with its own endpoint'({ pkg, wsUrl, ctl }) {
    await ctl.seedCatalog();
    const peer = await pkg.connectMuxws(wsUrl);
    try {
      class BookProxy extends pkg.MuxwsProxyImpl {
        async count() {
          return (await this.request('GET', '')).length;
        }
      }
      const proxy = new BookProxy({ basePath: '/catalog/books', pkFieldName: 'id', peer, validateSchema: false });
      equal(await proxy.count(), 12, 'a custom endpoint on this.request');
      equal(proxy.pkFieldName, 'id', 'pkFieldName');
      const pages = new pkg.MuxwsProxyImpl({ basePath: '/catalog/pages', pkFieldName: 'id', peer, validateSchema: false });
      const page = await pages.listPage({ limit: 4, offset: 8 });
      same([page.results.map((b) => b.id), page.hasMore, page.hasPrevious], [[9, 10, 11, 12], false, true], 'listPage');
    } finally {
      await peer.close();
    }
  },
};
