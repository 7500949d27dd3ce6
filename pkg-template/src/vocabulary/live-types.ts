/**
 * The types of a live list (types only): what `liveList()` takes and gives.
 */
import type { EventMessage, Follower, FollowerMode, RecordsChanged, ResyncInfo } from './events.js';
import type { ListParams } from '../mixins.js';

/**
 * Why a live list's rows may be behind the server (`status.why` while `status.stale`):
 * - `'loading'`: the first read has not landed yet;
 * - `'reading'`: a change could not be patched in (a sorted, filtered or paged list, a resync, an
 *   own write of unknown outcome) and the list is being read again;
 * - `'read-failed'`: a read failed (`status.error` says why); it is tried again;
 * - `'paused'`: the platform is offline;
 * - `'reconnecting'`: a muxws list lost its socket and polls until it is subscribed again;
 * - `'silent'`: a muxws list's socket has said nothing for `silentAfterMs` (it may be dead; the
 *   peer's ping will tell);
 * - `'follow-failed'`: the follower's polls or subscribes fail (`status.error`); it keeps trying;
 * - `'refused'`: the server refused the topic (`status.error`); the rows stay as they were;
 * - `'closed'`: `close()` was called.
 */
export type LiveStaleReason = 'loading' | 'reading' | 'read-failed' | 'paused' | 'reconnecting' | 'silent' | 'follow-failed' | 'refused' | 'closed';

/**
 * The shape of a ViewSet's list (the backend's `list_shape`, asked for with `X-List-Shape`):
 * `'plain'`, the whole list in one array; `'paginated'`, pages by offset and limit with a count;
 * `'cursor'`, pages by the cursors of the next and previous pages.
 */
export type ListShape = 'plain' | 'paginated' | 'cursor';

/**
 * Where a live list's window of pages stands:
 * - `'loading-first-page'`: the first read has not landed yet;
 * - `'can-load-more'`: a page follows the window (`loadMore()` reads it);
 * - `'loading-more'`: `loadMore()` is reading a page;
 * - `'exhausted'`: the window ends where the list ends (a plain list, once read, always).
 */
export type LiveWindowState = 'loading-first-page' | 'can-load-more' | 'loading-more' | 'exhausted';

/** What a live list knows of its own freshness (a new frozen object per change). */
export interface LiveStatus {
  /** The follower's mode (`'push'`, `'poll'`, `'paused'`, `'refused'`, `'closed'`). */
  readonly mode: FollowerMode;
  /** No read has landed yet: `rows` is empty because nothing was read, not because the list is. */
  readonly loading: boolean;
  /** The rows may be behind the server; `why` says why. */
  readonly stale: boolean;
  /** Why the rows may be behind (the first reason that holds), null when they are current. */
  readonly why: LiveStaleReason | null;
  /** The error behind `why` (a failed read, a refused topic, the follower's failing polls), else null. */
  readonly error: Error | null;
  /** Where the window of pages stands (whether `loadMore()` has more to read). */
  readonly window: LiveWindowState;
  /** A page comes before the window (a cursor or offset in the params started it further on): `loadMore('previous')` reads it. */
  readonly hasPrevious: boolean;
  /** The server's count of the whole list, filters applied (a paginated list), else null. */
  readonly total: number | null;
}

/**
 * How an own write stands:
 * - `'sending'`: its first attempt is out;
 * - `'repeating'`: an attempt went unanswered and it is being repeated (under its key: it runs once);
 * - `'unknown'`: it gave up unanswered, so whether the server ran it is unknown; the row is rolled
 *   back and the list reads again, which shows what the server holds;
 * - `'failed'`: the server answered it with an error: the row is rolled back, `error` says why.
 *
 * A write that failed or whose outcome is unknown is reported by its call's rejection and leaves
 * `pending` at once; the last two states are listed only with the option `keepFailed`.
 */
export type PendingState = 'sending' | 'repeating' | 'unknown' | 'failed';

/** An own write a live list shows before (or instead of) the server's answer. */
export interface PendingWrite<T = unknown> {
  /** The call's Idempotency-Key (its `ViewSetCall.key`, its activity events' `key`). */
  readonly key: string;
  readonly op: 'create' | 'update' | 'partialUpdate' | 'destroy';
  /** The primary key it writes (undefined for a create until it is answered). */
  readonly pk: unknown;
  readonly state: PendingState;
  /** The row as shown while it is pending (for a destroy, the row it deletes while it stays shown). */
  readonly row: T | undefined;
  /**
   * Whether the row stands where the server will list it: true in a list without params (rows in
   * the order the server created them) and in a list sorted by fields of the row (`sort` over
   * fields the row has, placed by the server's comparison); false while its place is not known yet
   * (a filtered list without such a sort: the row stays where it was, a create at the end, until
   * the list is read again).
   */
  readonly placed: boolean;
  /** Why it failed or its outcome is unknown. */
  readonly error: Error | null;
  /** Resumed after a reload (a persisted call). */
  readonly resumed: boolean;
}

/** The options of `liveList()`. */
export interface LiveOptions {
  /** The interval of the follower's polls (ms, default 2000). */
  pollIntervalMs?: number;
  /** The follower's check polls while pushes flow (ms, default 30000). */
  checkIntervalMs?: number;
  /** The path the events viewset is registered under (default `/events`). */
  eventsPath?: string;
  /**
   * Over muxws: the rows count as possibly behind (`why: 'silent'`) once the peer's socket has said
   * nothing this long (ms; default 21000: a peer's default `pingIntervalMs`, 20000, and a second;
   * give yours and a little).
   */
  silentAfterMs?: number;
  /**
   * Keep a write that failed or whose outcome is unknown in `pending` (state `'failed'` or
   * `'unknown'`) until `dismiss(key)`, for an app that shows failures in the list rather than where
   * it writes. Default false: the call's rejection is the one report of a failure (catch it where
   * the write is made) and the list only rolls the row back.
   */
  keepFailed?: boolean;
  /** How many records one `{pk}__in` list call asks at most (default 50). */
  batch?: number;
  /**
   * The shape to read the list in, where the ViewSet allows more than one: the proxy's
   * `listCursor()` or `listPage()` reads it, else the list is asked for with `X-List-Shape`.
   * Default: the shape of the proxy's list action (`list()`, `listCursor()`, `listPage()`, the
   * first it has), as the answer tells it.
   */
  shape?: ListShape;
  /** Records a page (sent as `limit`, at most the ViewSet's maximum); default the ViewSet's page size. */
  pageSize?: number;
  /**
   * Pages the first read reads (from the page the params name on, each from where the one before
   * ended; a whole number, default 1): the window `loadMore()` grows. A plain list is one page.
   */
  pages?: number;
  /** Told of each change the list applies (for a log or a highlight): what it throws is reported, nothing else. */
  onChange?(change: RecordsChanged, event: EventMessage<RecordsChanged>): void;
  /** Told that the server no longer held what was missed: the list reads again. */
  onResync?(info: ResyncInfo): void;
  /**
   * Rows read elsewhere (a server render's `readLiveList()`) and the rev they are as of: the list
   * shows them at once, reads nothing, and follows from `rev`, so each change made since is
   * delivered once.
   */
  initial?: {
    rows: readonly unknown[];
    rev: number;
    /**
     * The window the rows are (`readLiveList()`'s `window`): `status.window`, `total` and
     * `hasPrevious` are right at once, and `loadMore()` reads on from where it ended. Checked as
     * input from a server: a TypeError for what is not such a window. Without it, a plain list's
     * rows are the whole list, and a paged list's window is not known: its first `loadMore()` reads
     * the window again with one page more.
     */
    window?: LiveWindowSeed | null;
  };
}

/**
 * One page of a window read elsewhere, as the live list keeps it (JSON-safe): its shape, the
 * server's count (paginated), whether pages follow or come before it, the cursors of the pages
 * after and before it (cursor lists), where it starts and how many it holds at most (paginated).
 */
export interface LivePageSeed {
  shape: ListShape;
  count: number | null;
  hasMore: boolean;
  hasPrevious: boolean;
  next: string | null;
  previous: string | null;
  offset: number;
  limit: number;
}

/**
 * The window of pages a server render read (`readLiveList()`), handed to the client with the rows
 * (`initial.window`, JSON-safe): how many pages, its first and its last page.
 */
export interface LiveWindowSeed {
  /** Pages read, from the page the params name on (1 for a plain list). */
  pages: number;
  head: LivePageSeed;
  tail: LivePageSeed;
}

/**
 * A list of a ViewSet's records kept current: read once, then patched with each change its topic
 * carries (or read again when the client cannot tell where a changed row belongs), with the
 * writes of this page's proxies shown at once.
 */
export interface LiveList<T, PK extends PropertyKey = never> {
  /** The rows: a new frozen array per change (a pending create's row has no primary key yet: {@link LiveRow}). */
  readonly rows: readonly LiveRow<T, PK>[];
  /** Freshness: the follower's mode, loading, stale and why, error. */
  readonly status: LiveStatus;
  /** The own writes not settled yet, and those that failed or whose outcome is unknown (until `dismiss`), oldest first. */
  readonly pending: readonly PendingWrite<LiveRow<T, PK>>[];
  /** The follower of the list's topic (its mode, cursor, scope), once the list's code is loaded. */
  readonly follower: Follower | null;
  /** Resolves once the first read landed (the follower holds its cursor from before that read); rejects when closed first. */
  readonly ready: Promise<void>;
  /** The pending write a row of `rows` shows, if any (a destroy's row too, until it is answered). */
  pendingOf(row: LiveRow<T, PK>): PendingWrite<LiveRow<T, PK>> | undefined;
  /** Forgets a failed or unknown write (`pending`). */
  dismiss(key: string): void;
  /**
   * Calls `listener` once per batch of changes of `rows`, `status` or `pending`, after all three
   * are consistent; returns its remover. A listener that throws is reported and harms nothing.
   */
  subscribe(listener: (list: LiveList<T, PK>) => void): () => void;
  /** Reads the list again (every page of the window, in order; coalesced with a read under way); resolves once a read started after this call landed. */
  refresh(): Promise<void>;
  /**
   * Reads the page after the window (`'previous'`: before it, where the server gives a previous
   * page) and adds it to the window, which is kept current from then on. Resolves once the page
   * is in `rows` (at once when there is none: `status.window` is `'exhausted'`); rejects when the
   * read fails (it is tried again as a read of the whole window). Calls while one reads share it.
   */
  loadMore(direction?: 'next' | 'previous'): Promise<void>;
  /** Stops following and forgets the rows' listeners (the server's subscription of the socket ends). */
  close(): Promise<void>;
}

/**
 * A row of a live list: a record of the server's, or the row of a pending create, which has no
 * primary key until the server answers it (field `PK` absent: with `id: number`, `row.id` is
 * `number | undefined`). Without `PK` (a proxy whose key field the types do not know), `T`.
 */
export type LiveRow<T, PK extends PropertyKey = never> = [PK] extends [never] ? T : T | PendingRow<T, PK>;

/** The row of a pending create: the record as written, without its primary key `PK`. */
export type PendingRow<T, PK extends PropertyKey> = Omit<T, PK> & { readonly [F in PK]?: undefined };

/** The primary key field of a proxy as its type names it (`restViewSet<Item>()('id', …)`: `'id'`), never when only `string` is known. */
export type PkFieldOf<P> = P extends { readonly pkFieldName: infer K extends PropertyKey } ? (string extends K ? never : K) : never;

/** The query of a live list: a list's sort and filters, and a page's (the client reads again on every change). */
export type LiveParams = ListParams & Record<string, unknown>;

/** @internal The handle `liveList()` returns, as the chunk writes it (its one writer). */
export type LiveHandle = { -readonly [K in keyof LiveList<unknown>]: LiveList<unknown>[K] };
