// The typing rules 0.7 adds (issue 13, item 8), compiled under --strict against the package's .d.ts
// (tsc -p tests/types): `key: string` on every call of a class-based proxy, errors typed as each
// transport fills them, `fieldErrors` in the backend's documented shape; and how the 0.1 forms sit
// beside the 0.6 ones. `// @ts-expect-error` lines must stay errors.
import {
  BulkViewSetMixin,
  onCallActivity,
  pendingCallCount,
  pendingCalls,
  retryNow,
  HttpError,
  LookupMixin,
  PaginatedListMixin,
  RestProxyImpl,
  restViewSet,
  route_rest,
  ViewSetMixin,
  ViewSetRequestError,
  type FieldError,
  type ListMixin,
  type ListParams,
  type LookupItem,
  type MuxwsPeer,
  type MuxwsPeerSource,
  type PaginatedList,
  type RequestOptions,
  type ViewSetActionCall,
  type ViewSetCall,
} from '@dynamicforms/fastapi-viewsets';

interface Book {
  id: number;
  title: string;
  author: string;
  year?: number | null;
}

class BookApi extends restViewSet<Book>()('id', [BulkViewSetMixin, LookupMixin, PaginatedListMixin]) {
  /** Overriding a built-in action: it returns a ViewSetCall (the key stays typed as a string). */
  override retrieve(pk: number, options?: RequestOptions): ViewSetCall<Book> {
    return super.retrieve(pk, { ...options, background: true });
  }
}
const books = new BookApi({ basePath: '/catalog/bulk', baseUrl: 'http://127.0.0.1:8000' });

// ------------------------------------------------------------------ the key, without `!`
const created = books.create({ title: 'Dawn', author: 'Butler' });
const key: string = created.key;
const keys: string[] = [books.list().key, books.listPage({ limit: 2 }).key, books.lookup({ q: 'an' }).key, books.bulkDestroy([1]).key, books.retrieve(1).key];
const bare = route_rest<Book>()('id', [ViewSetMixin], { basePath: '/catalog/books', baseUrl: 'http://127.0.0.1:8000' });
const bareKey: string = bare.destroy(1).key;

class Overridden extends restViewSet<Book>()('id', [ViewSetMixin]) {
  // @ts-expect-error an async override returns a plain Promise, which has no key: not a ViewSetCall
  override async list(): Promise<Book[]> {
    return [];
  }
}

// The overrides MIGRATING.md shows ("Overriding a built-in action"): returning the call, or a
// promise of one's own with the call's key
class OverriddenRight extends restViewSet<Book>()('id', [ViewSetMixin]) {
  override retrieve(pk: number, options?: RequestOptions) {
    return super.retrieve(pk, { ...options, background: true });
  }
  override list(params?: ListParams, options?: RequestOptions) {
    const call = super.list(params, options);
    return Object.assign(call.then((books) => books.filter((book) => book.year !== null)), { key: call.key });
  }
}
const overriddenKey: string = new OverriddenRight({ basePath: '/catalog/books' }).list({ sort: 'title' }).key;
// 0.1's list({ query }) still types on a class-based proxy
const queried: string = books.list({ query: { sort: 'title' }, background: true }).key;

// 0.6's proxy classes keep 0.6's typing: an override may return a plain Promise (the key is optional)
class Cached extends RestProxyImpl<number, Book, 'id'> {
  private cache: Book[] | undefined;
  override async list(params?: ListParams): Promise<Book[]> {
    this.cache ??= await super.list(params);
    return this.cache;
  }
}
const maybeKey: string | undefined = new Cached({ basePath: '/catalog/books', pkFieldName: 'id' }).retrieve(1).key;

// a hand-written double of a 0.6 interface still fits it
const fake: ListMixin<Book> & LookupMixin = {
  list: async () => [],
  lookup: async (): Promise<LookupItem[]> => [],
};
const fromClass: ListMixin<Book> = books; // a class-based proxy fits the 0.6 interface
const loose: ViewSetActionCall<Book[]> = fake.list({ sort: 'title' });

// ------------------------------------------------------------------ list: params first, 0.1's options form kept
const byParams: ViewSetCall<Book[]> = books.list({ sort: 'title', year__in: [1815, 1817] }, { signal: new AbortController().signal });
const byOptions: ViewSetCall<Book[]> = books.list({ query: { sort: 'title' }, background: true });
const page: Promise<PaginatedList<Book>> = books.listPage({ limit: 5, offset: 5 });
// @ts-expect-error a filter value is a scalar or an array of scalars
books.list({ author: { name: 'Butler' } });

// ------------------------------------------------------------------ errors, exact per transport
export function read(error: unknown): string[] {
  const out: string[] = [];
  if (error instanceof HttpError) {
    const status: number = error.status;
    const headers: Record<string, string> = error.headers; // strings only, over muxws too (no :status)
    const type: string | undefined = headers['content-type'];
    const perField: Record<string, FieldError[]> | undefined = error.fieldErrors;
    for (const [field, problems] of Object.entries(perField ?? {})) {
      for (const problem of problems) out.push(`${field}: ${problem.code} ${problem.detail} ${JSON.stringify(problem.params)}`);
    }
    const sameAnswer: number = error.response.status;
    out.push(String(status), String(type), String(sameAnswer));
  }
  if (error instanceof ViewSetRequestError) out.push(String(error.response.data));
  return out;
}
// 0.6 test doubles construct the error as 0.6 did
const double = new ViewSetRequestError(404, { detail: 'gone' }, { 'content-type': 'application/json' });
const doubleStatus: number = double.response.status;

// ------------------------------------------------------------------ 0.6's guard: a factory-built class is not a type token
// @ts-expect-error route_rest would lose BookApi's own methods: the result is typed as a sentence
route_rest<ListMixin<Book>>(BookApi, '/catalog/bulk', 'id').list();

// ------------------------------------------------------------------ muxws: a peer or a function giving one
declare function connectLater(): Promise<MuxwsPeer>;
const lazy: MuxwsPeerSource = () => connectLater();

// ------------------------------------------------------------------ the README's busy indicator, as it is printed
declare const busy: HTMLElement;
declare const notice: HTMLElement;
declare const tryAgainButton: HTMLButtonElement;
onCallActivity(() => {
  busy.hidden = pendingCallCount() === 0;                // background calls are left out
  // A call whose answer was lost stays listed through its repeats: unansweredAttempts stays above 0
  // while the repeat is in flight too, whereas nextAttemptAt is set only while a repeat waits.
  notice.textContent = pendingCalls()
    .filter((call) => call.unansweredAttempts > 0)
    .map((call) => {
      const state =
        call.nextAttemptAt !== null ? `in ${Math.ceil((call.nextAttemptAt - Date.now()) / 1000)} s`
        : call.waitingFor === 'in-flight' ? 'under way'
        : `waiting for ${call.waitingFor === 'offline' ? 'the network' : 'the connection'}`;
      return `${call.method} ${call.path}: attempt ${call.unansweredAttempts + 1} ${state}`;
    })
    .join('\n');
});
tryAgainButton.onclick = () => retryNow();
// one call's waiting repeat, under its key: how many went (0 or 1)
const wentForOne: number = retryNow(pendingCalls()[0]?.key ?? '');
// @ts-expect-error a key is a string
retryNow(7);

export { key, keys, bareKey, Overridden, maybeKey, fromClass, loose, byParams, byOptions, page, doubleStatus, lazy, wentForOne };

// ------------------------------------------------------------------ live data (follow, watch, applyChanges)
import {
  connectMuxws as dial,
  follow,
  muxwsViewSet,
  type EventMessage,
  type Follower,
  type FollowOptions,
  type RecordsChanged,
} from '@dynamicforms/fastapi-viewsets';

interface ImportDone {
  file: string;
  rows: number;
}

const followOptions: FollowOptions<ImportDone> = {
  baseUrl: 'https://api.example.com',
  from: 'now',
  pollIntervalMs: 5000,
  async onEvent(event: EventMessage<ImportDone>) {
    const rows: number = event.payload.rows;
    const via: 'push' | 'poll' = event.via;
    const scope: string | undefined = event.scope;
    void [rows, via, scope];
  },
  onResync: ({ topic, rev }) => void [topic.length, rev + 1],
  onRefused: (error) => void error.detailCode,
};
const imports: Follower = follow<ImportDone>('imports:7', followOptions);
const cursor: number | null = imports.cursor;
const mode: 'push' | 'poll' | 'paused' | 'refused' | 'closed' = imports.mode;
void [cursor, mode, imports.ready, imports.catchUp(), imports.close()];
// @ts-expect-error: from is 'now' or a rev
follow('imports:7', { from: 'latest' });
// @ts-expect-error: Follower is read-only
imports.cursor = 3;

const liveBooks = new BookApi({ basePath: '/books' });
const watcher: Follower = liveBooks.watch({
  onChange(change, event) {
    const pks: number[] = change.changes.map((item) => item.pk);
    const op: 'created' | 'updated' | 'deleted' = change.op;
    const rev: number = event.rev;
    void [pks, op, rev];
  },
  persist: true,
});
void watcher;
// over a muxws peer: pushes, with check polls at checkIntervalMs
const overPeer: Follower = follow('/books', { peer: () => dial('/ws'), checkIntervalMs: 60_000, onEvent: (event) => void event.via });
void overPeer;
// @ts-expect-error: checkIntervalMs is a number of milliseconds
follow('/books', { checkIntervalMs: '60s' });
// @ts-expect-error: the pk of BookApi is a number
liveBooks.watch({ onChange: (change) => change.changes.map((item): string => item.pk) });
// @ts-expect-error: onChange is required
liveBooks.watch({ persist: true });

async function liveRows(rows: Book[], change: RecordsChanged<number>): Promise<Book[]> {
  const next: Book[] = await liveBooks.applyChanges(rows, change);
  // @ts-expect-error: a change of string pks does not fit a number pk
  await liveBooks.applyChanges(rows, { op: 'deleted', changes: [{ pk: 'x' }] });
  return next;
}
void liveRows;

interface Tag {
  slug: string;
  label: string;
}
class TagsOverWs extends muxwsViewSet<Tag>()('slug', [ViewSetMixin]) {}
declare const peer: MuxwsPeer;
const tags = new TagsOverWs({ basePath: '/tags', peer });
tags.watch({ onChange: (change) => void change.changes.map((item): string => item.pk) });
async function liveTags(rows: Tag[], change: RecordsChanged<string>): Promise<Tag[]> {
  return tags.applyChanges(rows, change);
}
void liveTags;
// A peer's last ping round trip: read-only, null until the first pong.
const roundTrip: number | null = peer.rttMs;
void roundTrip;
// @ts-expect-error rttMs is read-only
peer.rttMs = 5;
