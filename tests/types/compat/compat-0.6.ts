// Application code written against @dynamicforms/fastapi-viewsets 0.6.x, as its users write it
// (issue 13): it compiles unchanged under `tsc --strict` against the 0.7 package's .d.ts
// (`tsc -p tests/types/compat`, a step of scripts/test.sh). The routes are the test backend's
// /catalog viewsets (tests/backend/catalog.py); tests/e2e/compat06-scenarios.mjs runs the same calls
// against the real backend.
//
// `// @ts-expect-error` lines are 0.6 typing a 0.7 must keep: each is an error under 0.6 (create
// takes Omit<T, PK>, update takes the whole T, pks are typed K), and tsc fails on an expect-error
// that no longer errors.
//
// The mixins are written with three type arguments (`BulkViewSetMixin<number, Book, 'id'>`), the
// only form 0.6 compiles (its PK parameter has no default); compat-0.6-two-args.ts holds the
// two-argument shorthand the issue names.
import {
  BulkViewSetMixin,
  CursorListMixin,
  LookupMixin,
  muxwsViewSet,
  PaginatedListMixin,
  ReadOnlyViewSetMixin,
  RestProxyImpl,
  restViewSet,
  RetrieveMixin,
  route_muxws,
  route_rest,
  translateApiError,
  translateStrings,
  ViewSetMixin,
  ViewSetRequestError,
  type ApiErrorBody,
  type CursorPage,
  type CursorParams,
  type DestroyReturnData,
  type ListParams,
  type LookupItem,
  type MuxwsPeerLike,
  type PageParams,
  type PaginatedList,
} from '@dynamicforms/fastapi-viewsets';

interface Book {
  id: number;
  title: string;
  author: string;
  year?: number | null;
}

// ---------------------------------------------------------------- route_rest, both shapes
/** The type token route_rest takes: a class extending the mixins (0.6 docs' form). */
class BookViewSet extends BulkViewSetMixin<number, Book, 'id'> {
  static declares = [BulkViewSetMixin, LookupMixin];
}

/** Positional shape: (class, basePath, pkFieldName[, axiosInstance]). */
const books = route_rest<BulkViewSetMixin<number, Book, 'id'> & LookupMixin>(BookViewSet, '/catalog/bulk', 'id');

/** Options shape: (class, { basePath, pkFieldName, validateSchema, axiosInstance }). */
const plainBooks = route_rest<ViewSetMixin<number, Book, 'id'>>(BookViewSet, {
  basePath: '/catalog/books',
  pkFieldName: 'id',
  validateSchema: false,
});

class PagesViewSet extends PaginatedListMixin<Book> {}
const pages = route_rest<PaginatedListMixin<Book> & RetrieveMixin<number, Book>>(PagesViewSet, '/catalog/pages', 'id');

class CursorViewSet extends CursorListMixin<Book> {}
const cursor = route_rest<CursorListMixin<Book> & RetrieveMixin<number, Book>>(CursorViewSet, {
  basePath: '/catalog/cursor',
  pkFieldName: 'id',
});

// ---------------------------------------------------------------- CRUD and bulk, typed as in 0.6
export async function crud(): Promise<void> {
  const all: Book[] = await books.list();
  const one: Book = await books.retrieve(all[0].id);
  const created: Book = await books.create({ title: 'Lilith', author: 'Butler', year: 1989 });
  const replaced: Book = await books.update(created.id, { id: created.id, title: "Lilith's Brood", author: 'Butler' });
  const patched: Book = await books.partialUpdate(created.id, { year: 2000 });
  const destroyed: DestroyReturnData = await books.destroy(created.id);
  const gone: unknown = destroyed[created.id];

  const made: Book[] = await books.bulkCreate([
    { title: 'Ice', author: 'Kavan', year: 1967 },
    { title: 'Roadside Picnic', author: 'Strugatsky' },
  ]);
  const updated: Book[] = await books.bulkUpdate({ [made[0].id]: { ...made[0], year: 1968 } });
  const bulkPatched: Book[] = await books.bulkPartialUpdate({ [made[1].id]: { year: 1972 } });
  // 0.6 sent the pks as the JSON body of DELETE {base}/bulk, which is what the backend reads.
  const deleted: DestroyReturnData[] = await books.bulkDestroy(made.map((book) => book.id));

  const choices: LookupItem[] = await books.lookup();
  const labels: string[] = choices.map((item) => `${String(item.group)}: ${item.title}`);
  const icon: string | null = choices[0].icon;

  // @ts-expect-error create takes Omit<Book, 'id'>: title and author are required
  await books.create({});
  // @ts-expect-error update takes the whole record, not a part of it
  await books.update(1, { title: 'x' });
  // @ts-expect-error the pk is a number (K)
  await books.retrieve('1');
  // @ts-expect-error bulkDestroy takes K[]
  await books.bulkDestroy(['1']);
  // @ts-expect-error a ViewSetMixin proxy has no bulk actions
  await plainBooks.bulkCreate([]);

  void [one, replaced, patched, gone, updated, bulkPatched, deleted, labels, icon];
}

// ---------------------------------------------------------------- list params: sort and filters
export async function lists(): Promise<void> {
  const params: ListParams = { sort: 'year:desc,title', author__icontains: 'dick' };
  const byYear: Book[] = await plainBooks.list(params);
  const inYears: Book[] = await plainBooks.list({ year__in: [1815, 1817], sort: 'title' });
  const undated: Book[] = await plainBooks.list({ year__isnull: true, author: undefined, title__icontains: null });
  const everything: Book[] = await plainBooks.list();

  const pageParams: PageParams = { limit: 5, offset: 5, sort: 'title', author: 'Lem' };
  const page: PaginatedList<Book> = await pages.listPage(pageParams);
  const more: boolean = page.hasMore;
  const earlier: boolean = page.hasPrevious;
  const total: number | null = page.count;
  const size: number | null = page.limit;
  const start: number = page.offset;
  const first: Book | undefined = page.results[0];
  const defaultPage: PaginatedList<Book> = await pages.listPage();

  const walked: Book[] = [];
  let at: CursorPage<Book> = await cursor.listCursor({ limit: 3, sort: 'year:desc' });
  walked.push(...at.results);
  while (at.hasMore && at.next !== null) {
    const next: CursorParams = { limit: 3, sort: 'year:desc', cursor: at.next };
    at = await cursor.listCursor(next);
    walked.push(...at.results);
  }
  const edges: (string | null)[] = [at.previous, at.first, at.last];
  const pageLimit: number = at.limit;
  const backwards: boolean = at.hasPrevious;
  const viaRetrieve: Book = await cursor.retrieve(walked[0].id);

  void [byYear, inYears, undated, everything, more, earlier, total, size, start, first, defaultPage, edges, pageLimit, backwards, viaRetrieve];
}

// ---------------------------------------------------------------- errors
/** What 0.6 code reads off a failed call: `response.status` / `response.data` (/ `.headers`). */
export async function errors(): Promise<string | undefined> {
  translateStrings((code) => (code === 'not_found' ? 'Ni knjige {pk}' : undefined));
  try {
    await books.retrieve(99);
  } catch (error) {
    if (error instanceof ViewSetRequestError) {
      const status: number = error.response.status;
      const body = error.response.data as ApiErrorBody;
      const type: string | undefined = error.response.headers['content-type'];
      const message: string = error.message;
      if (status === 404) return translateApiError(body);
      return `${status} ${type ?? ''} ${message}`;
    }
    // The REST half of 0.6 threw axios errors: code that handles both reads the same fields.
    const failed = error as { response?: { status: number; data: unknown } };
    if (failed.response?.status === 404) {
      const body = failed.response.data as ApiErrorBody;
      const detail: string = body.detail;
      const code: string | undefined = body.detail_code;
      const params: Record<string, unknown> | undefined = body.detail_params;
      void [code, params];
      return detail;
    }
    throw error;
  }
  return undefined;
}

// ---------------------------------------------------------------- muxws: a peer, or a function giving one
declare const peer: MuxwsPeerLike;
declare function connectWhenNeeded(): Promise<MuxwsPeerLike>;

const wsBooks = route_muxws<BulkViewSetMixin<number, Book, 'id'> & LookupMixin>(BookViewSet, {
  basePath: '/catalog/bulk',
  pkFieldName: 'id',
  peer,
  timeoutMs: 10_000,
  headers: { 'x-trace': 'compat' },
});

/** Lazy: the function is called once, on the first call, and its peer kept. */
const lazyBooks = route_muxws<ReadOnlyViewSetMixin<number, Book>>(BookViewSet, {
  basePath: '/catalog/books',
  pkFieldName: 'id',
  validateSchema: false,
  peer: () => connectWhenNeeded(),
});

export async function overMuxws(): Promise<number> {
  const listed: Book[] = await wsBooks.list({ sort: 'title' });
  const looked: LookupItem[] = await wsBooks.lookup();
  const gone: DestroyReturnData[] = await wsBooks.bulkDestroy([listed[0].id]);
  const read: Book = await lazyBooks.retrieve(1);
  try {
    await wsBooks.destroy(99);
  } catch (error) {
    if (error instanceof ViewSetRequestError && error.response.status === 404) return 404;
    throw error;
  }
  void [looked, gone, read];
  return 200;
}

// ---------------------------------------------------------------- the class factories and a hand-written proxy
class BookApi extends restViewSet<Book>()('id', [ViewSetMixin, LookupMixin]) {
  async oldest(): Promise<Book[]> {
    return this.request<Book[]>('GET', '', { query: { sort: 'year', year__isnull: false } });
  }
}

class CursorApi extends muxwsViewSet<Book>()('id', [CursorListMixin, RetrieveMixin]) {}

/** Custom endpoints on a hand-written proxy, against `this.request()` (0.4+ docs). */
class BookProxy extends RestProxyImpl<number, Book, 'id'> {
  async count(): Promise<number> {
    const all = await this.request<Book[]>('GET', '');
    return all.length;
  }
}

export async function factories(): Promise<void> {
  const api = new BookApi({ basePath: '/catalog/bulk', validateSchema: false });
  const pk: 'id' = api.pkFieldName;
  const oldest: Book[] = await api.oldest();
  const made: Book = await api.create({ title: 'Dawn', author: 'Butler' });
  const found: LookupItem[] = await api.lookup();
  // @ts-expect-error BookApi declared no bulk actions
  await api.bulkDestroy([made.id]);

  const pagesOverWs = new CursorApi({ basePath: '/catalog/cursor', peer, timeoutMs: 5_000 });
  const firstPage: CursorPage<Book> = await pagesOverWs.listCursor({ limit: 2 });

  const proxy = new BookProxy({ basePath: '/catalog/books', pkFieldName: 'id', validateSchema: false });
  const counted: number = await proxy.count();
  const viaProxy: Book[] = await proxy.list({ sort: 'title' });
  const proxyPk: string = proxy.pkFieldName;

  void [pk, oldest, found, firstPage, counted, viaProxy, proxyPk];
}
