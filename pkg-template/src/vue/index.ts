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
 */
import {
  computed,
  onScopeDispose,
  ref,
  shallowReadonly,
  shallowRef,
  toValue,
  watch,
  type ComputedRef,
  type MaybeRefOrGetter,
  type Ref,
  type ShallowRef,
} from 'vue';
import {
  follow,
  liveList,
  onCallActivity,
  pendingCalls,
  retryNow,
  type EventMessage,
  type Follower,
  type FollowerMode,
  type FollowOptions,
  type LiveList,
  type LiveOptions,
  type LiveParams,
  type LiveStatus,
  type MuxwsPeer,
  type PendingCall,
  type PendingWrite,
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

/** The record type of a proxy, read off its `retrieve()` (as `liveList()` types its rows). */
export type LiveRowOf<P> = RecordOf<P>;

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

/**
 * A live list of `proxy`'s records (`liveList(proxy, params, options)`) as refs. `proxy` and `params`
 * may be refs or getters: a change opens the list again, its window back to the first page (the
 * rows shown until the new list's first read lands). The list is closed when the calling effect
 * scope ends.
 */
export function useLiveList<P extends ViewSetBase>(
  proxy: MaybeRefOrGetter<P>,
  params?: MaybeRefOrGetter<LiveParams | undefined>,
  options?: LiveOptions,
): UseLiveList<LiveRowOf<P>> {
  type T = LiveRowOf<P>;
  const rows = shallowRef<readonly T[]>(Object.freeze([]));
  const status = shallowRef<LiveStatus>(LOADING);
  const pending = shallowRef<readonly PendingWrite<T>[]>(Object.freeze([]));
  const list = shallowRef<LiveList<T> | null>(null);
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
      const opened = liveList(target, query && { ...query }, options) as LiveList<T>;
      list.value = opened;
      const sync = (): void => {
        status.value = opened.status;
        pending.value = opened.pending;
        // the rows of before stay until this list has read
        if (!opened.status.loading) rows.value = opened.rows;
      };
      stop = opened.subscribe(sync);
      sync();
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
  /** The calls whose answer was lost and that are being repeated: the connectivity notice. */
  repeating: ComputedRef<readonly PendingCall[]>;
  /** When the earliest waiting repeat goes (ms since the epoch), null when none waits for its delay. */
  nextAttemptAt: ComputedRef<number | null>;
  /** Whole seconds until then (ticks while a repeat waits), null when none waits. */
  secondsToNextAttempt: ComputedRef<number | null>;
  /** The platform says it is offline (browsers: `navigator.onLine`). */
  offline: Readonly<Ref<boolean>>;
  /** Sends every waiting repeat now: the "try again now" button. */
  retryNow(): void;
}

/**
 * Call activity as refs: what a busy indicator, a countdown and a "try again now" button bind to.
 * Updated on every activity event, and every 250 ms while calls are pending (a waiting repeat
 * going out is no event, and the countdown ticks). Stops when the calling effect scope ends.
 */
export function useCallActivity(): UseCallActivity {
  const pending = shallowRef<readonly PendingCall[]>([]);
  const now = ref(Date.now());
  const scope = globalThis as { navigator?: { onLine?: unknown }; addEventListener?: (type: string, listener: () => void) => void; removeEventListener?: (type: string, listener: () => void) => void };
  const offline = ref(scope.navigator?.onLine === false);
  let timer: ReturnType<typeof setInterval> | undefined;
  const update = (): void => {
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
  update();
  onScopeDispose(() => {
    stop();
    clearInterval(timer);
    scope.removeEventListener?.('online', update);
    scope.removeEventListener?.('offline', update);
  });
  const nextAttemptAt = computed(() => {
    const due = pending.value.map((call) => call.nextAttemptAt).filter((at): at is number => at !== null);
    return due.length ? Math.min(...due) : null;
  });
  return {
    pending: shallowReadonly(pending) as Readonly<ShallowRef<readonly PendingCall[]>>,
    pendingCount: computed(() => pending.value.length),
    repeating: computed(() => pending.value.filter((call) => call.unansweredAttempts > 0)),
    nextAttemptAt,
    secondsToNextAttempt: computed(() => (nextAttemptAt.value === null ? null : Math.max(0, Math.ceil((nextAttemptAt.value - now.value) / 1000)))),
    offline: shallowReadonly(offline),
    retryNow,
  };
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
export function useFollow<P = unknown>(topic: MaybeRefOrGetter<Topic>, options: FollowOptions<P> = {}): UseFollow<P> {
  const mode = ref<FollowerMode>('poll');
  const cursor = ref<number | null>(null);
  const error = shallowRef<Error | undefined>(undefined);
  const last = shallowRef<EventMessage<P> | undefined>(undefined);
  const follower = shallowRef<Follower | null>(null);
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
        ...options,
        onEvent: (event) => {
          last.value = event;
          return onEvent?.(event);
        },
      });
      follower.value = opened;
      const sync = (): void => {
        mode.value = opened.mode;
        cursor.value = opened.cursor;
        error.value = opened.error;
      };
      stop = opened.subscribe(sync);
      sync();
    },
    { immediate: true },
  );
  onScopeDispose(close);
  return { mode: shallowReadonly(mode), cursor: shallowReadonly(cursor), error: shallowReadonly(error) as Readonly<ShallowRef<Error | undefined>>, last: shallowReadonly(last) as Readonly<ShallowRef<EventMessage<P> | undefined>>, follower: shallowReadonly(follower) as Readonly<ShallowRef<Follower | null>> };
}
