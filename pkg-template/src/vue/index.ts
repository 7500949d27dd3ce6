/**
 * `@dynamicforms/fastapi-viewsets/vue`: Vue 3 composables over the package (vue >= 3.4, an optional
 * peer: an app that does not import this subpath ships none of it and needs no Vue).
 *
 * - `useLiveList(proxy, params?, options?)`: a live list as refs, closed when its effect scope ends;
 * - `useCallActivity()`: the busy indicator, the countdown of a waiting repeat, offline, try again;
 * - `useFollow(topic, options)`: any other topic.
 *
 * Each opens what it follows in the effect scope it is called in (a component's `setup()`, an
 * `effectScope()`, a Pinia setup store) and closes it when that scope ends. It imports the package
 * by its name (a package may import itself through its exports), so an app has one runtime.
 *
 * In a server render (`renderToString`) they open nothing: `useLiveList` reads once, awaited by the
 * render (`onServerPrefetch`), `useFollow` takes its topic's rev, `useCallActivity` shows nothing
 * pending; with `viewsetsSSR()` installed, what they read goes into a payload the client hydrates
 * from, with no second read, following from the rev the server's read is as of.
 */
import {
  computed,
  getCurrentInstance,
  inject,
  onMounted,
  onScopeDispose,
  onServerPrefetch,
  ref,
  shallowReadonly,
  shallowRef,
  ssrContextKey,
  toValue,
  watch,
  type App,
  type ComputedRef,
  type InjectionKey,
  type MaybeRefOrGetter,
  type Ref,
  type ShallowRef,
} from 'vue';
import {
  follow,
  HttpError,
  liveList,
  onCallActivity,
  pendingCalls,
  readLiveList,
  readRev,
  retryNow,
  type EventMessage,
  type Follower,
  type FollowerMode,
  type FollowOptions,
  type LiveList,
  type LiveOptions,
  type LiveParams,
  type LiveRow,
  type LiveStatus,
  type LiveWindowSeed,
  type MuxwsPeer,
  type PendingCall,
  type PendingWrite,
  type PkFieldOf,
  type Topic,
  type RecordOf,
  type ViewSetBase,
} from '@dynamicforms/fastapi-viewsets';

// Proxies and peers mark themselves `__v_skip` (Vue leaves them as they are); this tells Vue's
// types the same, so a proxy kept in ref(), reactive() or a Pinia store keeps its own type.
declare module '@vue/reactivity' {
  export interface RefUnwrapBailTypes {
    fastapiViewsets: ViewSetBase | MuxwsPeer;
  }
}

/**
 * The type of a live list's rows of a proxy, as `liveList()` types them: the record of its
 * `retrieve()`, or a pending create's row, without the primary key (`row.id` is `number | undefined`).
 */
export type LiveRowOf<P> = LiveRow<RecordOf<P>, PkFieldOf<P>>;

/** What `useLiveList()` gives. */
export interface UseLiveList<T> {
  /** The rows (a new frozen array per change). */
  rows: Readonly<ShallowRef<readonly T[]>>;
  /** Freshness: mode, loading, stale and why, error. */
  status: Readonly<ShallowRef<LiveStatus>>;
  /** The own writes not settled, failed or of unknown outcome. */
  pending: Readonly<ShallowRef<readonly PendingWrite<T>[]>>;
  /** The pending write a row shows, if any (for a class or a badge). */
  pendingOf(row: T): PendingWrite<T> | undefined;
  /** Forgets a failed or unknown write. */
  dismiss(key: string): void;
  /** Reads the list again. */
  refresh(): Promise<void>;
  /**
   * Reads the page after the window (`'previous'`: before it) into `rows` (`LiveList.loadMore`);
   * a call before the list is open, or while a page is read, shares that read.
   */
  loadMore(direction?: 'next' | 'previous'): Promise<void>;
  /** Where the window of pages stands: `'loading-first-page'`, `'can-load-more'`, `'loading-more'`, `'exhausted'`. */
  window: ComputedRef<LiveStatus['window']>;
  /** The server's count of the whole list (a paginated list), else null. */
  total: ComputedRef<number | null>;
  /** The live list itself (a new one when the proxy or the params change). */
  list: Readonly<ShallowRef<LiveList<T> | null>>;
}

const LOADING: LiveStatus = Object.freeze({ mode: 'poll', loading: true, stale: true, why: 'loading', error: null, window: 'loading-first-page', hasPrevious: false, total: null });

// ------------------------------------------------------------------------------------- SSR

/**
 * What a server render read, for the client to hydrate from: entries by key, the n-th use of a key
 * in the render at the n-th place. JSON-safe (rows as the server sent them, errors as plain objects).
 */
export type ViewsetsPayload = Record<string, unknown[]>;

/** A server's read of a live list, as the payload carries it. */
interface LiveEntry {
  rows: unknown[];
  /** The rev the read is as of (null: none could be had; the client reads again). */
  rev: number | null;
  /** The read's error, as a plain object (null: it succeeded). */
  error: PlainError | null;
  /** The window of pages the rows are (`readLiveList()`'s; absent from a payload of before it). */
  window?: LiveWindowSeed | null;
}

/** An error in the payload: what the client makes it again from (an `HttpError` when it had a status). */
interface PlainError {
  name: string;
  message: string;
  status?: number;
  body?: unknown;
}

/** The Vue plugin that carries a server render's reads to the client. */
export interface ViewsetsSSR {
  /** `app.use(viewsetsSSR(…))`: the composables of the app find it. */
  install(app: App): void;
  /** On the server, after the render: what it read, a JSON-safe plain object for the client. */
  payload(): ViewsetsPayload;
  /** `payload()` as JSON that is safe inside a `<script>` element (`<`, `>`, `&`, U+2028/9 escaped). */
  serialize(): string;
}

/** What the composables use of the plugin. */
interface Plugin extends ViewsetsSSR {
  /** Server: the place of the next use of `key`; the entry is written there once read. */
  reserve(key: string): (entry: unknown) => void;
  /** Client: the entry of the next use of `key`, if the server wrote one. */
  take(key: string): unknown;
  /** Client: a server's payload was given (the app hydrates the server's HTML). */
  readonly hydrates: boolean;
}

const PLUGIN: InjectionKey<Plugin> = Symbol('fastapi-viewsets ssr');

/**
 * The plugin that carries what a server render reads to the client. On the server
 * `app.use(viewsetsSSR())`, render, then put `payload()` (or `serialize()`) in the page; on the
 * client `app.use(viewsetsSSR(payload))` before mounting: `useLiveList` and `useFollow` start from
 * the server's rows and rev, with no second read. A payload that is not what the server wrote is
 * ignored (the composables read as without one).
 */
export function viewsetsSSR(payload?: ViewsetsPayload | null): ViewsetsSSR {
  const written: ViewsetsPayload = {};
  const given: Record<string, unknown> = payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? payload : {};
  const uses = new Map<string, number>();
  const next = (key: string): number => {
    const at = uses.get(key) ?? 0;
    uses.set(key, at + 1);
    return at;
  };
  const plugin: Plugin = {
    hydrates: given === payload,
    install(app) {
      app.provide(PLUGIN, plugin);
    },
    payload: () => JSON.parse(JSON.stringify(written)) as ViewsetsPayload,
    serialize: () => JSON.stringify(written).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    reserve(key) {
      const list = (written[key] ??= []);
      const at = next(key);
      list[at] = null;
      return (entry) => void (list[at] = entry);
    },
    take(key) {
      const list = Object.hasOwn(given, key) ? given[key] : undefined;
      const at = next(key);
      return Array.isArray(list) ? list[at] : undefined;
    },
  };
  return plugin;
}

/** In a component rendered on the server (`renderToString`), the plugin or null; undefined when not on a server. */
function onServer(): { plugin: Plugin | null } | undefined {
  if (!getCurrentInstance()) return undefined;
  return inject(ssrContextKey, null) ? { plugin: inject(PLUGIN, null) } : undefined;
}

/** The plugin in a component of the client, if installed. */
function hydrating(): Plugin | null {
  return getCurrentInstance() ? inject(PLUGIN, null) : null;
}

/** An error as the payload carries it. */
function plainError(error: Error): PlainError {
  const plain: PlainError = { name: error.name, message: error.message };
  if (error instanceof HttpError) Object.assign(plain, { status: error.status, body: error.body });
  return plain;
}

/** The error a payload carries, made again (an `HttpError` when it had a status). */
function errorOf(plain: PlainError): Error {
  const error = typeof plain.status === 'number' ? new HttpError(plain.status, plain.body, {}, plain.message) : new Error(String(plain.message));
  if (typeof plain.name === 'string') error.name = plain.name;
  return error;
}

/** A payload entry of a live list, if it is one. */
function liveEntry(value: unknown): LiveEntry | undefined {
  const entry = value as LiveEntry | null | undefined;
  return entry && typeof entry === 'object' && Array.isArray(entry.rows) && (entry.rev === null || Number.isSafeInteger(entry.rev)) && typeof (entry.window ?? {}) === 'object' ? entry : undefined;
}

/**
 * The status a server's read shows (the same on both sides of the hydration): its window's, as the
 * live list shows it from that window (the live list checks the window itself once opened).
 */
function readStatus(error: Error | null, seed?: LiveWindowSeed | null): LiveStatus {
  const count = seed?.tail?.count;
  const window = { window: seed?.tail?.hasMore === true ? 'can-load-more' : 'exhausted', hasPrevious: seed?.head?.hasPrevious === true, total: Number.isSafeInteger(count) ? (count as number) : null } as const;
  return Object.freeze(error ? { mode: 'poll', loading: false, stale: true, why: 'read-failed', error, ...window } : { mode: 'poll', loading: false, stale: false, why: null, error: null, ...window });
}

/** The payload key of a live list: `ssrKey`, else its proxy's base path and its params. */
function liveKey(proxy: unknown, params: unknown, options: { ssrKey?: string } | undefined): string {
  return options?.ssrKey ?? `live:${String((proxy as { basePath?: unknown } | null)?.basePath)}|${JSON.stringify(params ?? null)}`;
}

/**
 * A live list of `proxy`'s records (`liveList(proxy, params, options)`) as refs. `proxy` and `params`
 * may be refs or getters: a change opens the list again, its window back to the first page (the
 * rows shown until the new list's first read lands). The list is closed when the calling effect
 * scope ends. In a server render it reads the pages the options ask for (`pages`, `shape`,
 * `pageSize`) once; the client's list starts from them, its window where the server's ended.
 */
export function useLiveList<P extends ViewSetBase>(
  proxy: MaybeRefOrGetter<P>,
  params?: MaybeRefOrGetter<LiveParams | undefined>,
  options?: LiveOptions & { ssrKey?: string },
): UseLiveList<LiveRowOf<P>> {
  type T = LiveRowOf<P>;
  const rows = shallowRef<readonly T[]>(Object.freeze([]));
  const status = shallowRef<LiveStatus>(LOADING);
  const pending = shallowRef<readonly PendingWrite<T>[]>(Object.freeze([]));
  const list = shallowRef<LiveList<T> | null>(null);
  const { ssrKey, ...listOptions } = options ?? {};
  const server = onServer();
  if (server) {
    // a server render: one read, awaited by the render, and nothing opened
    const key = liveKey(toValue(proxy), toValue(params), { ssrKey });
    const write = server.plugin?.reserve(key);
    onServerPrefetch(async () => {
      const query = toValue(params);
      // the pages the options ask for (`pages`, `shape`, `pageSize`), read as the client's list reads them
      const read = await readLiveList(toValue(proxy), query && { ...query }, listOptions);
      rows.value = Object.freeze(read.rows) as readonly T[];
      status.value = readStatus(read.error, read.window);
      write?.({ rows: read.rows, rev: read.rev, error: read.error && plainError(read.error), window: read.window } satisfies LiveEntry);
    });
    return {
      rows: shallowReadonly(rows) as Readonly<ShallowRef<readonly T[]>>,
      status: shallowReadonly(status) as Readonly<ShallowRef<LiveStatus>>,
      pending: shallowReadonly(pending) as Readonly<ShallowRef<readonly PendingWrite<T>[]>>,
      pendingOf: () => undefined,
      dismiss: () => {},
      refresh: () => Promise.resolve(),
      loadMore: () => Promise.resolve(),
      window: computed(() => status.value.window),
      total: computed(() => status.value.total),
      list: shallowReadonly(list) as Readonly<ShallowRef<LiveList<T> | null>>,
    };
  }
  // the client of a server render: the server's rows and status first (the hydration matches)
  const entry = liveEntry(hydrating()?.take(liveKey(toValue(proxy), toValue(params), { ssrKey })));
  if (entry) {
    rows.value = Object.freeze([...entry.rows]) as readonly T[];
    status.value = readStatus(entry.error && errorOf(entry.error), entry.window);
  }
  let hydrated = entry;
  let stop: (() => void) | null = null;
  const close = (): void => {
    stop?.();
    stop = null;
    void list.value?.close();
  };
  watch(
    () => [toValue(proxy), toValue(params)] as const,
    ([target, query]) => {
      close();
      // hydrated: no first read, followed from the server's rev, its window going on from the
      // server's (a read that failed there is read again)
      const from = hydrated;
      hydrated = undefined;
      const initial = from && !from.error && from.rev !== null ? { initial: { rows: from.rows, rev: from.rev, window: from.window } } : {};
      const opened = liveList(target, query && { ...query }, { ...listOptions, ...initial }) as unknown as LiveList<T>;
      list.value = opened;
      const sync = (): void => {
        status.value = opened.status;
        pending.value = opened.pending;
        // the rows of before stay until this list has read
        if (!opened.status.loading) rows.value = opened.rows;
      };
      stop = opened.subscribe(sync);
      // hydrated: the refs keep the server's values until the list tells its own
      if (!from) sync();
    },
    { immediate: true, deep: true },
  );
  onScopeDispose(close);
  return {
    rows: shallowReadonly(rows) as Readonly<ShallowRef<readonly T[]>>,
    status: shallowReadonly(status) as Readonly<ShallowRef<LiveStatus>>,
    pending: shallowReadonly(pending) as Readonly<ShallowRef<readonly PendingWrite<T>[]>>,
    pendingOf: (row) => list.value?.pendingOf(row),
    dismiss: (key) => list.value?.dismiss(key),
    refresh: () => list.value?.refresh() ?? Promise.resolve(),
    loadMore: (direction) => list.value?.loadMore(direction) ?? Promise.resolve(),
    window: computed(() => status.value.window),
    total: computed(() => status.value.total),
    list: shallowReadonly(list) as Readonly<ShallowRef<LiveList<T> | null>>,
  };
}

/** What `useCallActivity()` gives. */
export interface UseCallActivity {
  /** The calls not settled, background calls (the package's own polls) left out, oldest first. */
  pending: Readonly<ShallowRef<readonly PendingCall[]>>;
  /** How many: the busy indicator. */
  pendingCount: ComputedRef<number>;
  /**
   * The connectivity notice: the calls whose answer was lost and that are being repeated, those
   * held for the network (`waitingFor: 'offline'`) or their muxws connection (`'reconnect'`), and
   * while the platform is offline every pending call. Offline, a REST call's first attempt fails at
   * once while a muxws call's may sit on a socket that has not noticed yet: both are listed, so the
   * two transports show the same notice.
   */
  repeating: ComputedRef<readonly PendingCall[]>;
  /** When the earliest waiting repeat goes (ms since the epoch), null when none waits for its delay. */
  nextAttemptAt: ComputedRef<number | null>;
  /** Whole seconds until then (ticks while a repeat waits), null when none waits. */
  secondsToNextAttempt: ComputedRef<number | null>;
  /** The platform says it is offline (browsers: `navigator.onLine`). */
  offline: Readonly<Ref<boolean>>;
  /**
   * Sends every waiting repeat now (the "try again now" button), or with `key` that call's alone;
   * returns how many went (the package's `retryNow`).
   */
  retryNow(key?: string): number;
}

/**
 * Call activity as refs: what a busy indicator, a countdown and a "try again now" button bind to.
 * Updated on every activity event, and every 250 ms while calls are pending (a waiting repeat
 * going out is no event, and the countdown ticks). Stops when the calling effect scope ends.
 */
export function useCallActivity(): UseCallActivity {
  const pending = shallowRef<readonly PendingCall[]>([]);
  const now = ref(Date.now());
  const nextAttemptAt = computed(() => {
    const due = pending.value.map((call) => call.nextAttemptAt).filter((at): at is number => at !== null);
    return due.length ? Math.min(...due) : null;
  });
  const activity = (offline: Ref<boolean>): UseCallActivity => ({
    pending: shallowReadonly(pending) as Readonly<ShallowRef<readonly PendingCall[]>>,
    pendingCount: computed(() => pending.value.length),
    repeating: computed(() => pending.value.filter((call) => offline.value || call.unansweredAttempts > 0 || call.waitingFor === 'offline' || call.waitingFor === 'reconnect')),
    nextAttemptAt,
    secondsToNextAttempt: computed(() => (nextAttemptAt.value === null ? null : Math.max(0, Math.ceil((nextAttemptAt.value - now.value) / 1000)))),
    offline: shallowReadonly(offline),
    retryNow,
  });
  // a server render: nothing pending, no listener, no timer (the server's calls are not the page's,
  // so the HTML is what the client shows when it hydrates)
  if (onServer()) return activity(ref(false));
  const scope = globalThis as { navigator?: { onLine?: unknown }; addEventListener?: (type: string, listener: () => void) => void; removeEventListener?: (type: string, listener: () => void) => void };
  // hydrating the server's HTML: its values (nothing pending, online) until the app is mounted, so
  // the hydration matches whatever the client has under way
  const hydrates = hydrating()?.hydrates === true;
  const offline = ref(!hydrates && scope.navigator?.onLine === false);
  let timer: ReturnType<typeof setInterval> | undefined;
  let mounted = !hydrates;
  const update = (): void => {
    if (!mounted) return;
    pending.value = Object.freeze(pendingCalls().filter((call) => !call.background));
    now.value = Date.now();
    offline.value = scope.navigator?.onLine === false;
    if (pending.value.length && timer === undefined) timer = setInterval(update, 250);
    else if (!pending.value.length && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  const stop = onCallActivity(update);
  scope.addEventListener?.('online', update);
  scope.addEventListener?.('offline', update);
  if (hydrates) {
    onMounted(() => {
      mounted = true;
      update();
    });
  } else update();
  onScopeDispose(() => {
    stop();
    clearInterval(timer);
    scope.removeEventListener?.('online', update);
    scope.removeEventListener?.('offline', update);
  });
  return activity(offline);
}

/** What `useFollow()` gives. */
export interface UseFollow<P> {
  /** The follower's mode, cursor and error, as it reports them. */
  mode: Readonly<Ref<FollowerMode>>;
  cursor: Readonly<Ref<number | null>>;
  error: Readonly<ShallowRef<Error | undefined>>;
  /** The last event handed out. */
  last: Readonly<ShallowRef<EventMessage<P> | undefined>>;
  /** The follower (a new one when the topic changes). */
  follower: Readonly<ShallowRef<Follower | null>>;
}

/**
 * Follows `topic` (`follow(topic, options)`) while the calling effect scope lives; `topic` may be a
 * ref or a getter (a change follows the new topic). `options.onEvent` gets each event as with
 * `follow()`; `last` holds the latest.
 */
export function useFollow<P = unknown>(topic: MaybeRefOrGetter<Topic>, options: FollowOptions<P> & { ssrKey?: string } = {}): UseFollow<P> {
  const mode = ref<FollowerMode>('poll');
  const cursor = ref<number | null>(null);
  const error = shallowRef<Error | undefined>(undefined);
  const last = shallowRef<EventMessage<P> | undefined>(undefined);
  const follower = shallowRef<Follower | null>(null);
  const done = { mode: shallowReadonly(mode), cursor: shallowReadonly(cursor), error: shallowReadonly(error) as Readonly<ShallowRef<Error | undefined>>, last: shallowReadonly(last) as Readonly<ShallowRef<EventMessage<P> | undefined>>, follower: shallowReadonly(follower) as Readonly<ShallowRef<Follower | null>> };
  const { ssrKey, ...followOptions } = options;
  const key = ssrKey ?? `follow:${String(toValue(topic))}`;
  const server = onServer();
  if (server) {
    // a server render: the topic's rev, awaited by the render, and no follower
    const write = server.plugin?.reserve(key);
    onServerPrefetch(async () => {
      cursor.value = await readRev(toValue(topic), followOptions as { baseUrl?: string; peer?: unknown; eventsPath?: string }).catch(() => null);
      write?.({ cursor: cursor.value });
    });
    return done;
  }
  // the client of a server render: its rev first, followed from it
  const given = hydrating()?.take(key) as { cursor?: unknown } | undefined;
  let from = given && Number.isSafeInteger(given.cursor) ? (given.cursor as number) : undefined;
  if (from !== undefined) cursor.value = from;
  let stop: (() => void) | null = null;
  const close = (): void => {
    stop?.();
    stop = null;
    void follower.value?.close();
  };
  watch(
    () => toValue(topic),
    (name) => {
      close();
      const onEvent = options.onEvent;
      const opened = follow<P>(name, {
        ...followOptions,
        ...(from !== undefined && { from }),
        onEvent: (event) => {
          last.value = event;
          return onEvent?.(event);
        },
      });
      follower.value = opened;
      const kept = from;
      const sync = (): void => {
        mode.value = opened.mode;
        cursor.value = opened.cursor ?? kept ?? null;
        error.value = opened.error;
      };
      stop = opened.subscribe(sync);
      // hydrated: the refs keep the server's rev until the follower tells its own
      if (kept === undefined) sync();
      from = undefined;
    },
    { immediate: true },
  );
  onScopeDispose(close);
  return done;
}
