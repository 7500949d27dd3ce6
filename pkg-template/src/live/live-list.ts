/**
 * The live list (a module of the package of its own, loaded by the first `liveList()`): a ViewSet's
 * list read once and kept current from the follower of its topic, the writes of this page's
 * proxies shown at once.
 *
 * Order is decided by events. Every event and every request the list sends takes the next number
 * of one counter (`tick`); a value of a row is kept with the tick its request went out at
 * (`asOf`), and a row's last event is remembered (`seen`). A value is taken only if it was asked
 * for after the row's last event and is not older than what is held: an answer that comes late,
 * a replayed idempotent outcome included, never overrides a newer event, and a row deleted by an
 * event stays deleted.
 *
 * The follower starts first; the first read goes out once it holds a cursor, so every change after
 * the read's snapshot is delivered, and one delivered during the read is applied after it (the
 * ticks say which of the two is newer). Nothing the server sends is trusted: a change or a row
 * that is not what it should be makes the list read again.
 */
import { compareValues, isObject, isPk } from '../shared/values.js';
import type { CallActivityEvent, CallRecord } from '../vocabulary/call-types.js';
import type { Wakeup } from '../timer.js';
import type { EventMessage, Follower, RecordsChanged, ResyncInfo } from '../vocabulary/events.js';
import type { LiveServices } from '../live-services.js';
import type { ListShape, LiveHandle, LiveList, LiveOptions, LiveParams, LiveStaleReason, LiveStatus, LiveWindowSeed, PendingState, PendingWrite } from '../vocabulary/live-types.js';
import type { Held, PagedHost } from '../live-paged/patch.js';
import type { ListWindow, PageQuery } from '../live-paged/window.js';

/** The paged list's chunk (live-paged/, `live/paged.js`): loaded the first time a list turns out paged. */
type Paged = typeof import('../live-paged/index.js');


type Op = PendingWrite['op'];


/** An own write, as the list keeps it. */
interface Write {
  key: string;
  op: Op;
  /** The row's key (String of the pk); undefined for a create until answered. */
  k: string | undefined;
  pk: unknown;
  body: Record<string, unknown> | undefined;
  state: PendingState;
  error: Error | null;
  resumed: boolean;
  /** The tick it was issued at. */
  asOf: number;
  /** A create whose row an event brought before its answer: the key of that row. */
  absorbed?: string;
  /** Whether its row stands where the server will list it (set as the rows are made). */
  placed?: boolean;
  /** Its public snapshot, made again when it changes. */
  shown?: PendingWrite;
}

/**
 * The silence after which a muxws list's rows may be behind (ms): a peer's default
 * `pingIntervalMs` (20 000) and a second. The one definition of `silentAfterMs`'s default.
 */
const SILENT_AFTER_MS = 21_000;

/** A `sort` as the backend parses it (`title,year:desc`): each field and whether it descends; null when there is none. */
function parseSort(sort: unknown): [string, boolean][] | null {
  const fields: [string, boolean][] = [];
  if (typeof sort === 'string') {
    for (const entry of sort.split(',')) {
      const item = entry.trim();
      const at = item.lastIndexOf(':');
      const direction = at > 0 ? item.slice(at + 1) : 'asc';
      // an entry with another direction is skipped, as the backend skips it
      if (item && (direction === 'asc' || direction === 'desc')) fields.push([at > 0 ? item.slice(0, at) : item, direction === 'desc']);
    }
  }
  return fields.length ? fields : null;
}


interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** Shows `call` in `list` when it writes there; a body whose reading throws is not shown, and the call goes on. */
function showOwn(kit: LiveServices, list: LiveEngine, call: CallRecord): void {
  try {
    list.own(call, call.body, call.promise as Promise<unknown>);
  } catch (error) {
    kit.warn('a live list could not show a write', error);
  }
}

/** A number option: a whole number ≥ `min`, or `fallback` when not given. */
function count(options: LiveOptions | undefined, name: keyof LiveOptions, fallback: number, min = 1): number {
  const value = (options as Record<string, unknown> | undefined)?.[name] ?? fallback;
  if (!Number.isSafeInteger(value) || (value as number) < min) throw new TypeError(`liveList(): the option ${name} must be a whole number, ${min} or more`);
  return value as number;
}

/** What the live list uses of its window: a plain list's (`PlainWindow`) or a paged list's (`ListWindow`). */
interface LiveWindow {
  /** The shape of the list, once read. */
  readonly shape: ListShape | undefined;
  /** The server's count of the whole list (paginated lists), else null. */
  readonly total: number | null;
  /** Whether a page follows the window (true until the first read). */
  readonly hasMore: boolean;
  /** Whether a page comes before the window. */
  readonly hasPrevious: boolean;
  /** The window's last page, once read (a plain window has none). */
  readonly tail: unknown;
  /** One page more after (1) or before (-1) the window when next read whole. */
  grow(direction: number): void;
  /** Starts from a window read elsewhere (`initial`). */
  seed(window: LiveWindowSeed): void;
  /** Reads the whole window. */
  all(): Promise<{ rows: unknown[]; moved: boolean }>;
}

/**
 * The window of a list read whole (no page code: a plain list never loads the paged chunk). A read
 * whose answer is not an array (a page of records, or what is neither) makes the list paged: `paged`
 * loads the paged chunk, whose window takes over from that answer on (the pages asked for so far with it).
 */
class PlainWindow implements LiveWindow {
  shape: ListShape | undefined;
  readonly total = null;
  readonly hasPrevious = false;
  readonly tail = undefined;
  /** The pages `grow` asked for, handed to a paged window. */
  readonly #grown: number[] = [];
  readonly #read: () => Promise<unknown>;
  readonly #paged: (answer: unknown, grown: number[]) => Promise<{ rows: unknown[]; moved: boolean }>;

  constructor(read: () => Promise<unknown>, paged: (answer: unknown, grown: number[]) => Promise<{ rows: unknown[]; moved: boolean }>) {
    this.#read = read;
    this.#paged = paged;
  }

  get hasMore(): boolean {
    return !this.shape;
  }

  grow(direction: number): void {
    this.#grown.push(direction);
  }

  seed(): void {
    this.shape = 'plain';
  }

  async all(): Promise<{ rows: unknown[]; moved: boolean }> {
    const answer = await this.#read();
    if (!Array.isArray(answer)) return this.#paged(answer, this.#grown);
    // a plain list is one page: the pages asked for are read (as a paged window's read resets them)
    this.#grown.length = 0;
    this.shape = 'plain';
    return { rows: answer, moved: false };
  }
}

class LiveEngine {
  readonly #kit: LiveServices;
  readonly #handle: LiveHandle;
  readonly #listeners = new Set<{ listener: (list: LiveList<unknown>) => void }>();
  readonly #proxy: Record<string, (...args: unknown[]) => Promise<unknown>>;
  readonly #core: { basePath: string; transport: { name: string; peerId: number; pushPeer?: () => Promise<unknown> } };
  readonly #params: LiveParams | undefined;
  /** An unfiltered, unsorted, unpaged list: changes are patched in; otherwise it reads again. */
  #patches: boolean;
  /**
   * The ViewSet's schema says its list has no default sort, and the params name no sort nor filter
   * (only `limit`, `offset`, `cursor`): the server's order of a paged window does not depend on a
   * row's values (its container's order, or the pk for cursor pages), so a change is placed in the
   * window (see the paged chunk's `placeIn`) instead of reading it again.
   */
  #fixedOrder = false;
  /** Whether the params ask for no more than a page (so that the window may be patched). */
  readonly #pageParams: boolean;
  /** The pages the list holds (one, the whole list, for a plain list). */
  #window: LiveWindow;
  /** The paged list's chunk, once loaded (a list known paged at its start waits for it). */
  #pager: Paged | undefined;
  /** What a page read reads with first: the params, and the page size the options give. */
  readonly #query: PageQuery;
  /** The shape the options ask for. */
  readonly #shape: ListShape | undefined;
  readonly #pkField: string;
  readonly #batch: number;
  readonly #silentAfterMs: number;
  /** The params' `sort` (field, descending), when they have one: own writes are placed by it. */
  readonly #sort: [string, boolean][] | null;
  readonly #keepFailed: boolean;
  readonly #follower: Follower;
  /** Aborted by `close()`: a read of the list's still under way (or waiting to be repeated) is cancelled. */
  readonly #stop = new AbortController();
  /** The options of the list's own reads: background calls (a busy indicator leaves them out), cancelled by `close()`. */
  readonly #background = { background: true, signal: this.#stop.signal };
  readonly #unlisten: (() => void)[] = [];

  #tick = 0;
  #base = new Map<string, Held>();
  /** The tick of each row's last event, and whether that event deleted it. */
  readonly #seen = new Map<string, number>();
  readonly #gone = new Set<string>();
  /** Own answers kept over a row until the read an event asked for lands (no flicker back). */
  readonly #holds = new Map<string, { value: Record<string, unknown>; after: number }>();
  readonly #writes = new Map<string, Write>();

  // reading
  #loading = true;
  #reading = false;
  /** The next read reads the whole window (else only the page `#more` asks for, or the last page again). */
  #full = false;
  /** The next read reads the window's last page again (the paged chunk's `placeIn`, `readTail`). */
  #tailRead = false;
  /** Creates and deletes told so far: a last page read before the latest of them is not joined. */
  #shifts = 0;
  /** A page asked for by `loadMore()`: 1 after the window, -1 before it, 0 none. */
  #more = 0;
  /** A page asked for by `loadMore()` is being read. */
  #loadingMore = false;
  /** The read of the page `loadMore()` asked for last. */
  #moreRead: Promise<void> | undefined;
  #queued: Deferred | null = null;
  #readError: Error | null = null;
  #readFailures = 0;
  readonly #readTimer: Wakeup;
  /** The rows of changes to read (by key: the pk as the event gave it). */
  readonly #toFetch = new Map<string, string | number>();
  #fetching = 0;
  #fetchError: Error | null = null;
  #fetchFailures = 0;
  readonly #fetchTimer: Wakeup;
  /** Reads of changes wait for `#fetchTimer` (after a failure). */
  #fetchWaits = false;
  /** The ViewSet's list takes `{pk}__in` (its schema says so): changed rows are read by one list call. */
  #pkIn = false;

  // status
  #refused: Error | null = null;
  #wasPush = false;
  #silent = false;
  #peer: { heardAt?: number; isOpen: boolean } | null = null;
  readonly #silentTimer: Wakeup;
  #closed = false;
  /** A read is needed once the follower holds a cursor again (it had none when the rows were read). */
  #readOnRecovery = false;
  readonly #ready = deferred();

  // publishing
  #flushQueued = false;
  #rowsDirty = true;
  /** `rows` or `pending` were made since the listeners were last told. */
  #untold = false;
  #marks = new WeakMap<object, Write>();

  constructor(kit: LiveServices, handle: LiveHandle, proxy: object, params: LiveParams | undefined, options: LiveOptions | undefined, pager: Paged | undefined) {
    this.#kit = kit;
    this.#pager = pager;
    this.#readTimer = kit.wakeup(() => void this.#read());
    this.#fetchTimer = kit.wakeup(() => {
      this.#fetchWaits = false;
      this.#pumpFetch();
    });
    this.#silentTimer = kit.wakeup(() => this.#checkSilence());
    this.#handle = handle;
    this.#proxy = proxy as never;
    this.#core = kit.internalsOf(proxy) as never;
    for (const [name, value] of [['params', params], ['options', options]] as const) {
      if (value !== undefined && (value === null || typeof value !== 'object')) throw new TypeError(`liveList(): ${name} must be an object`);
    }
    this.#params = params && Object.keys(params).length ? { ...params } : undefined;
    this.#pageParams = Object.keys(this.#params ?? {}).every((name) => name === 'limit' || name === 'offset' || name === 'cursor');
    this.#pkField = String((proxy as { pkFieldName?: unknown }).pkFieldName);
    this.#batch = count(options, 'batch', 50);
    this.#silentAfterMs = count(options, 'silentAfterMs', SILENT_AFTER_MS);
    this.#sort = parseSort(this.#params?.sort);
    this.#keepFailed = options?.keepFailed === true;
    const shape = options?.shape;
    if (shape !== undefined && shape !== 'plain' && shape !== 'paginated' && shape !== 'cursor') throw new TypeError("liveList(): the option shape must be 'plain', 'paginated' or 'cursor'");
    this.#shape = shape;
    const size = options?.pageSize === undefined ? {} : { limit: count(options, 'pageSize', 100) };
    this.#query = { ...size, ...this.#params };
    this.#window = pager ? this.#pagedWindow(pager) : new PlainWindow(() => this.#page(this.#query), (answer, grown) => this.#turnPaged(answer, grown));
    // the first read reads `pages` pages
    for (let pages = count(options, 'pages', 1); pages > 1; pages--) this.#window.grow(1);
    const p = this.#proxy;
    if (typeof p.list !== 'function' && typeof p.listPage !== 'function' && typeof p.listCursor !== 'function' && !(shape && typeof p.request === 'function')) throw new TypeError('liveList(): the proxy has no list() to read its rows with');
    // a list read whole is patched; a paged one (by its options, its proxy or its first answer) is read again
    this.#patches = this.#params === undefined && (shape ?? (typeof p.list === 'function' ? 'plain' : 'paged')) === 'plain';
    this.#ready.promise.catch(() => {});
    handle.pendingOf = (row: unknown) => (row !== null && typeof row === 'object' ? this.#marks.get(row)?.shown : undefined);
    handle.dismiss = (key: string) => this.dismiss(key);
    handle.ready = this.#ready.promise;
    handle.refresh = () => this.refresh();
    handle.loadMore = (direction?: 'next' | 'previous') => this.loadMore(direction);
    handle.close = () => this.close();
    handle.subscribe = (listener) => this.subscribe(listener);

    // rows a server read (`readLiveList()`) and the rev they are as of: shown at once, no first read,
    // followed from that rev (a change made since is delivered once)
    const initial = options?.initial;
    // (its rev is checked as the follower's `from`)
    if (initial && !Array.isArray(initial.rows)) throw new TypeError('liveList(): initial.rows must be an array');
    if (initial) {
      // the window the server read (or, without it, a plain list's rows are the whole list): checked
      // before anything is listened to
      const plain = pager?.pageOf(initial.rows) as LiveWindowSeed['head'];
      const seed = initial.window ?? (this.#paged ? null : { pages: 1, head: plain, tail: plain });
      if (seed) this.#window.seed(seed);
      if (this.#paged) this.#patches = false;
    }

    // Told of own writes before anything can be sent; the writes issued before this list that have
    // not settled (those resumed after a reload among them) show too.
    this.#unlisten.push(kit.observeCalls({ issued: (call) => showOwn(kit, this, call), settled() {} }));
    for (const call of [...kit.openCalls()]) showOwn(kit, this, call);
    this.#unlisten.push(kit.addListener((event) => this.#activity(event)));

    // The follower first: the read goes out once it holds a cursor from before it. (An option not
    // given is undefined here, which the follower takes as not given.)
    this.#follower = kit.watchProxy(proxy, {
      pollIntervalMs: options?.pollIntervalMs,
      checkIntervalMs: options?.checkIntervalMs,
      eventsPath: options?.eventsPath,
      onChange: (change: RecordsChanged, event: EventMessage<RecordsChanged>) => {
        this.#change(change);
        this.#tell(options?.onChange, change, event);
      },
      onResync: (info: ResyncInfo) => {
        void this.#read();
        this.#tell(options?.onResync, info);
      },
      onRefused: (error: Error) => {
        this.#refused = error;
        this.#changed(false);
      },
    } as never, initial ? initial.rev : 'now');
    handle.follower = this.#follower;
    this.#unlisten.push(this.#follower.subscribe(() => this.#followerNews()));
    if (initial) this.#land(initial.rows as unknown[], ++this.#tick);
    else this.#follower.ready.then(
      () => this.#read(),
      () => {
        // refused, or its first poll failed (it keeps trying): the rows are read all the same, and
        // once it holds a cursor again they are read again, so nothing between is missed
        this.#readOnRecovery = !this.#refused;
        return this.#read();
      },
    ).catch(() => {});
    if (this.#core.transport.name === 'muxws') this.#watchSilence();
    if (this.#patches || this.#pageParams) this.#readSchema();
    this.#changed(false);
  }

  /**
   * Whether the ViewSet's list takes `{pk}__in` (its schema declares the query parameter): then the
   * records of a change are read by one list call a batch, else by a few retrieves at once. Asked
   * once, in the background; until it answers (or if it cannot), retrieves.
   */
  #readSchema(): void {
    const request = (this.#proxy as unknown as { request(method: string, path: string, options: object): Promise<unknown> }).request;
    if (typeof request !== 'function') return;
    request.call(this.#proxy, 'GET', '/schema', { ...this.#background, repeat: { withinMs: 0 } }).then(
      (document) => {
        const paths = isObject(document) && isObject(document.paths) ? document.paths : {};
        const list = Object.entries(paths).find(([path]) => path.replace(/\/$/, '') === this.#core.basePath.replace(/\/$/, ''))?.[1];
        const parameters = isObject(list) && isObject(list.get) && Array.isArray(list.get.parameters) ? list.get.parameters : [];
        this.#pkIn = typeof this.#proxy.list === 'function' && parameters.some((parameter) => isObject(parameter) && parameter.in === 'query' && parameter.name === `${this.#pkField}__in`);
        // a declared default sort is the `sort` parameter's default: the order then follows values
        const sort = parameters.find((parameter) => isObject(parameter) && parameter.in === 'query' && parameter.name === 'sort');
        const sortDefault = isObject(sort) && isObject(sort.schema) ? sort.schema.default : undefined;
        this.#fixedOrder = isObject(list) && sortDefault == null && (this.#pkIn || typeof this.#proxy.retrieve === 'function');
      },
      () => {},
    );
  }

  // ------------------------------------------------------------------------------- follower

  /** Calls an observer the options gave; what it throws is reported. */
  #tell(observer: ((...args: never[]) => unknown) | undefined, ...args: unknown[]): void {
    if (typeof observer !== 'function') return;
    try {
      (observer as (...args: unknown[]) => unknown)(...args);
    } catch (error) {
      this.#kit.warn('a live list observer failed', error);
    }
  }

  /** The follower's mode, cursor or error changed (its `subscribe`). */
  #followerNews(): void {
    if (this.#readOnRecovery && this.#follower.cursor !== null && !this.#follower.error) {
      this.#readOnRecovery = false;
      void this.#read();
    }
    this.#changed(false);
  }

  /** One `records_changed`: rows deleted at once, created or updated ones read (or the list read again). */
  #change(change: unknown): void {
    if (this.#closed) return;
    const tick = ++this.#tick;
    const op = isObject(change) ? change.op : undefined;
    const changes = isObject(change) ? change.changes : undefined;
    const pks = Array.isArray(changes) ? changes.map((item) => (isObject(item) ? item.pk : undefined)) : [];
    if ((op !== 'created' && op !== 'updated' && op !== 'deleted') || !pks.length || !pks.every(isPk)) {
      // not a change this list can read: read the list again
      void this.#read();
      return;
    }
    const placing = this.#placing;
    /** What the window needs after these changes: 0 nothing, 1 its last page read again, 2 a read of it whole. */
    let need = 0;
    for (const pk of pks as (string | number)[]) {
      const k = String(pk);
      this.#seen.set(k, tick);
      const held = this.#base.has(k);
      if (op === 'deleted') {
        this.#gone.add(k);
        this.#holds.delete(k);
        this.#toFetch.delete(k);
        this.#base.delete(k);
      } else {
        this.#gone.delete(k);
        if (this.#patches) {
          this.#toFetch.set(k, pk);
          if (op === 'created' && !this.#base.has(k)) this.#base.set(k, { value: undefined, asOf: -1 });
        }
      }
      if (!placing) continue;
      // a row of the window updated: read alone and patched in place; one outside it: nothing
      if (op === 'updated') {
        if (held) this.#toFetch.set(k, pk);
      } else {
        this.#shifts++;
        need = Math.max(need, (this.#pager as Paged).placeIn(this.#host, op, pk, held));
      }
    }
    if (placing) {
      if (need) void this.#read(0, need === 1);
    } else if ((op !== 'deleted' || this.#paged) && !this.#patches) {
      // a paged window is read again on a delete too: the pages after it move up
      void this.#read();
    }
    this.#pumpFetch();
    this.#changed(true);
  }

  /** The window is patched from changes (a paged list in the server's fixed order, read at least once). */
  get #placing(): boolean {
    return this.#fixedOrder && this.#pageParams && !this.#patches && this.#paged && !!this.#window.tail && !this.#loading;
  }

  // ------------------------------------------------------------------------------- reading

  refresh(): Promise<void> {
    return this.#read();
  }

  loadMore(direction?: 'next' | 'previous'): Promise<void> {
    if (direction !== undefined && direction !== 'next' && direction !== 'previous') return Promise.reject(new TypeError("loadMore(direction): 'next' or 'previous'"));
    const back = direction === 'previous';
    const window = this.#window;
    if (!this.#loading && (back ? !window.hasPrevious : !window.hasMore)) return Promise.resolve();
    // a page asked for and not read yet: this call shares its read
    if (this.#more || this.#loadingMore) return this.#moreRead as Promise<void>;
    this.#changed(false);
    return (this.#moreRead = this.#read(back ? -1 : 1));
  }

  /** A new row may be shown at the end of the rows: the window ends where the list ends. */
  get #placesNew(): boolean {
    return !this.#paged || !this.#window.hasMore;
  }

  /** The list is read a page at a time (its window is not the whole list). */
  get #paged(): boolean {
    const shape = this.#window.shape ?? this.#shape;
    return shape === undefined ? typeof this.#proxy.list !== 'function' : shape !== 'plain';
  }

  /** A paged list's window, reading with the list's query. */
  #pagedWindow(pager: Paged): ListWindow {
    return new pager.ListWindow((query) => this.#page(query), this.#query);
  }

  /**
   * The plain window's read answered with something else than an array: the list is paged (or its
   * answer wrong, which the paged window's read says). The paged chunk is loaded, and its window
   * takes over from that answer, with the pages asked for so far.
   */
  async #turnPaged(answer: unknown, grown: number[]): Promise<{ rows: unknown[]; moved: boolean }> {
    const pager = (this.#pager ??= await this.#kit.loadPaged());
    const window = this.#pagedWindow(pager);
    for (const direction of grown) window.grow(direction);
    this.#window = window;
    return window.all({ answer });
  }

  /** What the paged chunk's functions use of this list, by name (made once). */
  #hosted: PagedHost | undefined;
  get #host(): PagedHost {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const list = this;
    return (this.#hosted ??= {
      get window() {
        return list.#window as ListWindow;
      },
      get base() {
        return list.#base;
      },
      seen: this.#seen,
      gone: this.#gone,
      holds: this.#holds,
      toFetch: this.#toFetch,
      pkField: this.#pkField,
      get closed() {
        return list.#closed;
      },
      get shifts() {
        return list.#shifts;
      },
      get placing() {
        return list.#placing;
      },
      setBase: (base) => void (this.#base = base),
      absorb: (k, value, asOf) => this.#absorb(k, value, asOf),
      read: (more, tail) => this.#read(more, tail),
    });
  }

  /** Reads one page (the whole list when plain): the proxy's action of the shape, or the list asked for in that shape. */
  #page(query: PageQuery): Promise<unknown> {
    const proxy = this.#proxy;
    const shape = this.#shape;
    const action = shape === 'cursor' ? proxy.listCursor : shape === 'paginated' ? proxy.listPage : shape ? proxy.list : (proxy.list ?? proxy.listCursor ?? proxy.listPage);
    // the list's own reads are background calls: a busy indicator leaves them out
    if (typeof action === 'function') return action.call(proxy, query, this.#background);
    return proxy.request('GET', '', { query, headers: { 'X-List-Shape': shape }, ...this.#background });
  }

  subscribe(listener: (list: LiveList<unknown>) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('subscribe(listener) takes a function');
    const entry = { listener };
    this.#listeners.add(entry);
    return () => void this.#listeners.delete(entry);
  }

  dismiss(key: string): void {
    const write = this.#writes.get(key);
    if (write && (write.state === 'failed' || write.state === 'unknown')) {
      this.#writes.delete(key);
      this.#changed(true);
    }
  }

  /**
   * Reads the list: its whole window, or (`more`, from `loadMore()`) the page after it (1) or
   * before it (-1), or (`tail`) its last page again. Coalesced: one read in flight, at most one
   * waiting (which every later ask joins); a last page and a page more, or a read whole, are read
   * as the window whole.
   */
  #read(more = 0, tail = false): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (more) this.#more = more;
    else if (tail) this.#tailRead = true;
    else this.#full = true;
    if (this.#reading) return (this.#queued ??= deferred()).promise;
    const done = deferred();
    void this.#runRead(done);
    return done.promise;
  }

  async #runRead(done: Deferred): Promise<void> {
    this.#reading = true;
    this.#readTimer.clear();
    let asOf = ++this.#tick;
    const window = this.#window;
    const more = this.#more;
    const tail = this.#tailRead;
    // (a page more of a window not known paged yet: it is read whole, with that page)
    let full = this.#full || this.#loading || (tail && more !== 0) || (more !== 0 && !this.#pager);
    this.#full = false;
    this.#more = 0;
    this.#tailRead = false;
    this.#loadingMore = more !== 0;
    if (more) this.#changed(false);
    // the window holds the page loadMore() asked for (once read, or to be read with it)
    let grown = !more;
    try {
      if (full) {
        // every page of the window, in order (with the page loadMore() asked for)
        if (more) window.grow(more);
        grown = true;
      } else if (tail) {
        if (!(this.#pager && (await this.#pager.readTail(this.#host, asOf)))) {
          full = true;
          asOf = ++this.#tick;
        }
      } else {
        const whole = await (this.#pager as Paged).readMore(this.#host, more, asOf);
        grown = true;
        // a count that changed, or a row the window holds already: rows moved across the pages
        // since they were read, and the window (this page with it) is read again now, in this read
        if (whole) {
          full = true;
          asOf = ++this.#tick;
        }
      }
      if (full) {
        const { rows, moved } = await window.all();
        if (!this.#closed) {
          // (the window, a paged one since this read when its answer was a page)
          if (this.#window.shape !== 'plain') this.#patches = false;
          this.#land(rows, asOf);
          if (moved) void this.#read();
        }
      }
      this.#readError = null;
      this.#readFailures = 0;
      // the rows and status as this read left them, before whoever awaits it goes on
      this.#loadingMore = false;
      this.#changed(true);
      this.#flush();
      done.resolve();
    } catch (error) {
      // closed meanwhile: its reads were cancelled, and the read ends with nothing to tell
      if (this.#closed) return void done.resolve();
      this.#readError = error instanceof Error ? error : new Error(String(error));
      this.#readFailures++;
      // the page loadMore() asked for is read with the window when it is tried again
      if (!grown) this.#more ||= more;
      done.reject(error);
      // tried again (unless a read is already waiting), the delay doubling up to 30 s
      if (!this.#queued && !this.#closed) {
        this.#readTimer.set(this.#kit.now() + Math.min(30_000, 250 * 2 ** this.#readFailures));
      }
    } finally {
      this.#reading = false;
      this.#loadingMore = false;
      const queued = this.#queued;
      this.#queued = null;
      if (queued && !this.#closed) void this.#runRead(queued);
      else queued?.resolve();
      this.#changed(true);
    }
  }

  /** A read's rows, asked for at `asOf`, become the rows: what an event changed since is kept as the event left it. */
  #land(rows: unknown[], asOf: number): void {
    const next = new Map<string, Held>();
    const before = this.#base;
    for (const value of rows) {
      const pk = isObject(value) ? value[this.#pkField] : undefined;
      if (!isPk(pk)) continue;
      const k = String(pk);
      if (next.has(k)) continue;
      const seen = this.#seen.get(k) ?? 0;
      const held = before.get(k);
      if (seen > asOf) {
        // an event came after this read went out: deleted stays deleted; a newer value stays
        if (this.#gone.has(k)) continue;
        if (held && held.asOf > asOf) {
          next.set(k, held);
          continue;
        }
      }
      next.set(k, { value: value as Record<string, unknown>, asOf });
      if (!held?.value) this.#absorb(k, value as Record<string, unknown>, asOf);
    }
    if (this.#patches) {
      // rows read after this read went out (created meanwhile) stay, at the end
      // (and the places of rows created since, still being read)
      for (const [k, held] of before) if (!next.has(k) && (held.asOf > asOf || (held.value === undefined && (this.#seen.get(k) ?? 0) > asOf))) next.set(k, held);
      // the changes this read already shows need no read of their own
      for (const k of this.#toFetch.keys()) if ((this.#seen.get(k) ?? 0) < asOf) this.#toFetch.delete(k);
      if (!this.#toFetch.size) this.#fetchError = null;
    }
    for (const [k, hold] of this.#holds) if (hold.after < asOf) this.#holds.delete(k);
    this.#base = next;
    if (this.#loading) {
      this.#loading = false;
      this.#ready.resolve();
    }
  }

  /** Reads the rows of changes, a batch at a time: one `{pk}__in` list call, or a few retrieves at once. */
  #pumpFetch(): void {
    const limit = this.#pkIn ? 1 : 4;
    while (!this.#closed && this.#fetching < limit && this.#toFetch.size && !this.#fetchWaits) {
      const batch: [string, string | number][] = [];
      for (const entry of this.#toFetch) {
        batch.push(entry);
        this.#toFetch.delete(entry[0]);
        if (batch.length >= (this.#pkIn ? this.#batch : 1)) break;
      }
      this.#fetching++;
      void this.#fetch(batch, ++this.#tick);
    }
  }

  async #fetch(batch: [string, string | number][], asOf: number): Promise<void> {
    const proxy = this.#proxy;
    try {
      let found: unknown[];
      // one record: its retrieve (the server reads one row by its key); more: one `{pk}__in` list call
      if (this.#pkIn && batch.length > 1) {
        const answer = await proxy.list({ [`${this.#pkField}__in`]: batch.map(([, pk]) => pk) }, this.#background);
        if (!Array.isArray(answer)) throw new TypeError('the list answer is not an array of records');
        found = answer;
      } else {
        found = [
          await proxy.retrieve(batch[0][1], this.#background).catch((error: unknown) => {
            // a record gone meanwhile is removed
            if (error instanceof this.#kit.HttpError && error.status === 404) return undefined;
            throw error;
          }),
        ];
      }
      const byKey = new Map<string, Record<string, unknown>>();
      for (const value of found) {
        const pk = isObject(value) ? value[this.#pkField] : undefined;
        if (isPk(pk)) byKey.set(String(pk), value as Record<string, unknown>);
      }
      for (const [k] of batch) this.#take(k, byKey.get(k), asOf);
      this.#fetchFailures = 0;
      if (!this.#toFetch.size) this.#fetchError = null;
    } catch (error) {
      // no change is dropped: its rows are read again later, and the list says it may be behind
      for (const [k, pk] of batch) if ((this.#seen.get(k) ?? 0) < asOf && !this.#gone.has(k)) this.#toFetch.set(k, pk);
      this.#fetchError = error instanceof Error ? error : new Error(String(error));
      this.#fetchFailures++;
      if (!this.#fetchWaits && !this.#closed) {
        this.#fetchWaits = true;
        this.#fetchTimer.set(this.#kit.now() + Math.min(30_000, 250 * 2 ** this.#fetchFailures));
      }
    } finally {
      this.#fetching--;
      this.#pumpFetch();
      this.#changed(true);
    }
  }

  /** A value of row `k` asked for at `asOf` (undefined: it is gone); taken unless an event or a value is newer. */
  #take(k: string, value: Record<string, unknown> | undefined, asOf: number): void {
    if (this.#closed || (this.#seen.get(k) ?? 0) > asOf) return;
    const held = this.#base.get(k);
    if (held && held.asOf > asOf) return;
    // a paged window holds only the rows its pages hold
    if (!held && !this.#patches) return;
    const hold = this.#holds.get(k);
    if (hold && hold.after <= asOf) this.#holds.delete(k);
    if (value === undefined) {
      this.#base.delete(k);
      return;
    }
    this.#base.set(k, { value, asOf });
    if (!held?.value) this.#absorb(k, value, asOf);
  }

  // ------------------------------------------------------------------------------- own writes

  /** A call issued through any proxy: a create, update, partial update or destroy of this list's path and transport is shown at once. */
  own(call: CallRecord, body: unknown, promise: Promise<unknown>): void {
    const core = this.#core;
    const transport = call.transport;
    if (this.#closed || call.background || call.basePath !== core.basePath) return;
    if (transport !== core.transport && (transport.name !== core.transport.name || transport.peerId !== core.transport.peerId)) return;
    const rest = call.path.slice(call.basePath.length).replace(/\/$/, '');
    const segment = /^\/([^/]+)$/.exec(rest)?.[1];
    let op: Op | undefined;
    if (call.method === 'POST' && rest === '') op = 'create';
    else if (segment !== undefined && segment !== 'bulk') op = ({ PUT: 'update', PATCH: 'partialUpdate', DELETE: 'destroy' } as const)[call.method as 'PUT'];
    if (!op) return;
    let data = body;
    if (typeof data === 'string') {
      try {
        data = JSON.parse(data);
      } catch {
        data = undefined;
      }
    }
    if (op !== 'destroy' && !isObject(data)) return;
    let k: string | undefined;
    try {
      k = segment === undefined ? undefined : decodeURIComponent(segment);
    } catch {
      return;
    }
    const write: Write = {
      key: call.key,
      op,
      k,
      pk: k,
      body: op === 'destroy' ? undefined : (data as Record<string, unknown>),
      state: call.resumed || call.attempts > 1 ? 'repeating' : 'sending',
      error: null,
      resumed: Boolean(call.resumed),
      asOf: ++this.#tick,
    };
    this.#writes.set(write.key, write);
    promise.then(
      (answer) => this.#settled(write, answer),
      (error: unknown) => this.#failed(write, error),
    );
    // in the task of the call: the rows now; the listeners after the batch
    this.#changed(true);
    this.#render();
  }

  /** Activity of a call: a write being repeated. */
  #activity(event: CallActivityEvent): void {
    const write = this.#writes.get(event.key);
    if (write && event.type === 'retry' && write.state === 'sending') {
      write.state = 'repeating';
      this.#changed(true);
    }
  }

  #settled(write: Write, answer: unknown): void {
    if (this.#closed || this.#writes.get(write.key) !== write) return;
    this.#writes.delete(write.key);
    const { op, asOf } = write;
    if (op === 'destroy') {
      const k = write.k as string;
      if ((this.#seen.get(k) ?? 0) <= asOf) {
        this.#base.delete(k);
        this.#gone.add(k);
        this.#seen.set(k, ++this.#tick);
      }
    } else {
      const pk = isObject(answer) ? answer[this.#pkField] : undefined;
      if (isPk(pk)) {
        const k = String(pk);
        const seen = this.#seen.get(k) ?? 0;
        const held = this.#base.get(k);
        if (this.#gone.has(k) || (held && held.asOf > asOf)) {
          // deleted by an event, or read after this call went out: the server's state, not this answer
        } else if (seen > asOf) {
          // an event for the row came after this call went out: its read decides; until it lands
          // the answer stays over the row (what it showed while pending), so the row does not flicker back
          this.#holds.set(k, { value: answer as Record<string, unknown>, after: seen });
          if (!held && !this.#patches && this.#placesNew) this.#base.set(k, { value: answer as Record<string, unknown>, asOf, own: true });
        } else if (held || this.#placesNew) this.#base.set(k, { value: answer as Record<string, unknown>, asOf, own: !this.#patches });
        // a row a paged window does not hold: its place is known once the window is read again
        // (a window patched from changes places it when its create comes)
        else if (!this.#placing) void this.#read();
      } else void this.#read();
    }
    this.#changed(true);
  }

  #failed(write: Write, error: unknown): void {
    if (this.#closed || this.#writes.get(write.key) !== write) return;
    write.error = error instanceof Error ? error : new Error(String(error));
    // answered with an error: it did not happen; unanswered: it may have, so the list reads again
    write.state = error instanceof this.#kit.HttpError ? 'failed' : 'unknown';
    if (write.state === 'unknown') void this.#read();
    // the call's rejection reports it; the list keeps it only when asked to (keepFailed)
    if (!this.#keepFailed) this.#writes.delete(write.key);
    this.#changed(true);
  }

  /** A row that appeared (`k`, read at `asOf`) may be a pending create's, answered later: it is shown once, marked with that create. */
  #absorb(k: string, value: Record<string, unknown>, asOf: number): void {
    for (const write of this.#writes.values()) {
      if (write.op !== 'create' || write.absorbed !== undefined || write.asOf > asOf || (write.state !== 'sending' && write.state !== 'repeating')) continue;
      const body = write.body as Record<string, unknown>;
      if (Object.keys(body).every((name) => name === this.#pkField || JSON.stringify(body[name]) === JSON.stringify(value[name]))) {
        write.absorbed = k;
        return;
      }
    }
  }

  // ------------------------------------------------------------------------------- silence

  /** A muxws list: the rows may be behind once the peer's socket has said nothing for `silentAfterMs`. */
  #watchSilence(): void {
    this.#core.transport.pushPeer?.().then(
      (peer) => {
        if (this.#closed) return;
        this.#peer = peer as never;
        this.#checkSilence();
      },
      () => {},
    );
  }

  #checkSilence(): void {
    const peer = this.#peer;
    if (!peer || this.#closed) return;
    const heardAt = peer.heardAt ?? 0;
    const quiet = this.#kit.now() - heardAt;
    const silent = peer.isOpen && heardAt > 0 && quiet >= this.#silentAfterMs;
    if (silent !== this.#silent) {
      this.#silent = silent;
      this.#changed(false);
    }
    // while silent, looked at often (the first word heard ends it); else when it would become so
    const wait = silent || !peer.isOpen || heardAt === 0 ? 250 : Math.max(50, this.#silentAfterMs - quiet);
    this.#silentTimer.set(this.#kit.now() + wait);
  }

  // ------------------------------------------------------------------------------- publishing

  /** Something changed: the rows (when `rows`) and status are made again, and the listeners told once, after the batch. */
  #changed(rows: boolean): void {
    this.#rowsDirty ||= rows;
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    queueMicrotask(() => this.#flush());
  }

  #flush(): void {
    this.#flushQueued = false;
    const before = this.#handle.status;
    this.#render();
    const status = this.#status();
    const same = (Object.keys(status) as (keyof LiveStatus)[]).every((name) => status[name] === before[name]);
    if (!same) this.#handle.status = status;
    // rows made since the listeners were last told (own() makes them at once, in the task of the call)
    if (same && !this.#untold) return;
    this.#untold = false;
    for (const { listener } of [...this.#listeners]) {
      try {
        listener(this.#handle);
      } catch (error) {
        this.#kit.warn('a live list listener failed', error);
      }
    }
  }

  #status(): LiveStatus {
    const follower = this.#follower;
    const mode = follower.mode;
    if (mode === 'push') this.#wasPush = true;
    const followError = follower.error ?? null;
    const why: LiveStaleReason | null = this.#closed ? 'closed'
      : this.#loading ? (this.#readError ? 'read-failed' : 'loading')
      : mode === 'refused' || this.#refused ? 'refused'
      : this.#readError || this.#fetchError ? 'read-failed'
      : mode === 'paused' ? 'paused'
      : followError || this.#readOnRecovery ? 'follow-failed'
      : this.#wasPush && mode === 'poll' ? 'reconnecting'
      : this.#silent ? 'silent'
      : null;
    const window = this.#window;
    return Object.freeze({
      mode: this.#closed ? 'closed' : mode,
      loading: this.#loading,
      stale: why !== null,
      why,
      error: this.#refused ?? this.#readError ?? this.#fetchError ?? followError,
      window: this.#loading ? 'loading-first-page' : this.#more || this.#loadingMore ? 'loading-more' : window.hasMore ? 'can-load-more' : 'exhausted',
      hasPrevious: window.hasPrevious,
      total: window.total,
    });
  }

  /** Makes `rows` and `pending` again when the rows changed: the server's rows, own answers held over them, pending writes on top. */
  #render(): void {
    if (!this.#rowsDirty) return;
    this.#rowsDirty = false;
    const pkField = this.#pkField;
    const marks = new WeakMap<object, Write>();
    const over = new Map<string, Write[]>();
    const creates: Write[] = [];
    for (const write of this.#writes.values()) {
      write.shown = undefined;
      write.placed = true;
      if (write.state === 'failed' || write.state === 'unknown') continue;
      if (write.op === 'create') {
        if (write.absorbed === undefined) creates.push(write);
        else over.set(write.absorbed, [...(over.get(write.absorbed) ?? []), write]);
      } else over.set(write.k as string, [...(over.get(write.k as string) ?? []), write]);
    }
    // the server's rows in its order, and the rows whose place an own write decides (`moved`)
    const rows: Record<string, unknown>[] = [];
    const moved: Record<string, unknown>[] = [];
    const shownRow = new Map<Write, unknown>();
    for (const [k, held] of this.#base) {
      const hold = this.#holds.get(k);
      // an own answer held over a row an event created and not yet read shows (no flicker out)
      let value: Record<string, unknown> | undefined = hold?.value ?? held.value;
      if (value === undefined) continue;
      let float = Boolean(hold || held.own);
      const writes = over.get(k);
      let mark: Write | undefined;
      if (writes) {
        for (const write of writes) {
          mark = write;
          // a destroy: the row stays, marked, until it is answered (or an event deletes it)
          if (write.op === 'destroy') break;
          float = true;
          if (write.op === 'partialUpdate') value = { ...value, ...write.body };
          else if (write.op === 'update') value = { ...write.body, [pkField]: value[pkField] };
        }
        if (mark) {
          marks.set(value, mark);
          shownRow.set(mark, value);
        }
      }
      this.#float(float, value, mark, rows, moved);
    }
    for (const write of creates) {
      const value = { ...write.body };
      marks.set(value, write);
      shownRow.set(write, value);
      // in `pending` only while the window does not end where the list ends (its place may be beyond it)
      if (this.#placesNew) this.#float(true, value, write, rows, moved);
    }
    for (const value of moved) {
      const at = this.#placeOf(rows, value);
      rows.splice(at ?? rows.length, 0, value);
      const write = marks.get(value);
      if (write && at === undefined) write.placed = false;
    }
    const pending: PendingWrite[] = [];
    for (const write of this.#writes.values()) {
      write.shown = Object.freeze({
        key: write.key,
        op: write.op,
        pk: write.pk,
        state: write.state,
        row: shownRow.get(write),
        error: write.error,
        resumed: write.resumed,
        placed: write.placed !== false,
      });
      pending.push(write.shown);
    }
    this.#marks = marks;
    this.#untold = true;
    this.#handle.rows = Object.freeze(rows);
    if (pending.length || this.#handle.pending.length) this.#handle.pending = Object.freeze(pending);
  }

  /**
   * A row the list shows: in place (or, a create, at the end), or among the rows `moved` to their
   * sorted place when an own write decides its value in a list read with params. Where that place
   * cannot be known (no sort over fields the row has) it stays, and its write says so (`placed`).
   */
  #float(float: boolean, value: Record<string, unknown>, mark: Write | undefined, rows: Record<string, unknown>[], moved: Record<string, unknown>[]): void {
    if (!float || this.#patches || this.#placing) return void rows.push(value);
    if (this.#sort?.every(([field]) => field in value)) return void moved.push(value);
    rows.push(value);
    if (mark) mark.placed = false;
  }

  /**
   * Where `value` goes among `rows` (the server's, in its order) by the params' `sort`: after the
   * last row that sorts before or with it, as the backend's stable sort leaves it; undefined when
   * the list has no sort, or the row lacks a sorted field or holds a value the sort cannot compare.
   */
  #placeOf(rows: readonly Record<string, unknown>[], value: Record<string, unknown>): number | undefined {
    const sort = this.#sort;
    if (!sort || !sort.every(([field]) => field in value)) return undefined;
    let comparable = true;
    const compare = (row: Record<string, unknown>): number => {
      for (const [field, descending] of sort) {
        const order = compareValues(value[field] ?? null, row[field] ?? null);
        if (order === undefined) comparable = false;
        else if (order !== 0) return descending ? -order : order;
      }
      return 0;
    };
    // binary search: the first row `value` sorts before
    let [low, high] = [0, rows.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compare(rows[middle]) < 0) high = middle;
      else low = middle + 1;
    }
    return comparable ? low : undefined;
  }

  // ------------------------------------------------------------------------------- ready, close

  get ready(): Promise<void> {
    return this.#ready.promise;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#readTimer.clear();
    this.#fetchTimer.clear();
    this.#silentTimer.clear();
    // the list's reads under way end (a page read repeated after a lost answer would go on alone)
    this.#stop.abort();
    for (const stop of this.#unlisten) stop();
    this.#ready.reject(new Error('the live list was closed'));
    this.#queued?.resolve();
    this.#changed(false);
    await this.#follower.close();
  }
}

/**
 * Takes over the handle `liveList()` returned: the list reads, follows and shows own writes from
 * here. A list its options, its proxy (no `list()`) or a server's window (`initial.window`) say is
 * paged starts once the paged chunk is loaded; any other starts at once (its first answer may still
 * say it is paged).
 */
export function start(kit: LiveServices, handle: LiveHandle, proxy: object, params: LiveParams | undefined, options: LiveOptions | undefined): LiveEngine | Promise<LiveEngine> {
  const make = (pager?: Paged): LiveEngine => {
    try {
      return new LiveEngine(kit, handle, proxy, params, options, pager);
    } catch (error) {
      kit.warn('liveList() could not start', error);
      throw error;
    }
  };
  const given = (isObject(options) ? options : {}) as LiveOptions;
  const initial = given.initial as { window?: unknown } | undefined;
  const paged = (given.shape !== undefined && given.shape !== 'plain') || given.pageSize !== undefined || (given.pages !== undefined && given.pages !== 1) || (isObject(initial) && initial.window != null) || typeof (proxy as { list?: unknown }).list !== 'function';
  return paged ? kit.loadPaged().then(make) : make();
}
