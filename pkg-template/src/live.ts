/**
 * `liveList(proxy, params, options)`: what an app that shows a live list ships of it in its entry,
 * kept to a minimum, and nothing for an app that never calls it (a function it does not import is
 * dropped by its bundler, which a method of every proxy would not be). The handle is returned at
 * once; the list's logic (live/live-list.ts) is a module of the package of its own, loaded by the
 * first call, which takes the handle over (it checks the options there: what is wrong rejects
 * `ready`).
 */
import { internalsOf } from './caller.js';
import { loadChunk, waitOn } from './chunk.js';
import { devTap, resolver, warn } from './runtime.js';
import { readLiveList } from './server-read.js';
import type { RecordOf } from './viewset.js';
import { liveServices } from './live-services.js';
import type { LiveHandle, LiveList, LiveOptions, LiveParams, PkFieldOf } from './vocabulary/live-types.js';

type Chunk = typeof import('./live/live-list.js');

/** The chunk, loaded once. */
let chunk: Promise<Chunk> | undefined;

/**
 * The chunk is an entry of its own (scripts/bundle.mjs), imported by its URL relative to the
 * package's index.js (this file is bundled into it): an app's bundler emits it as an asset rather
 * than wrapping the import in a preload helper. The one place that knows where the chunk is.
 */
function loadLive(): Promise<Chunk> {
  return (chunk ??= loadChunk('live/live-list.js', new URL('./live/live-list.js?no-inline', import.meta.url), 0));
}

/** The rows and pending writes until the first read. */
const EMPTY = /* @__PURE__ */ Object.freeze([]);

/**
 * A live list in a request's scope, on a server: the rows read once (`readLiveList()`: the request's
 * headers, nothing followed, nothing left open, so no request's list is kept current by another
 * request's polls); `refresh()` reads again; its mode is `'closed'` from the start (it follows
 * nothing), `why` `'read-failed'` with the error when the read failed; its window `'exhausted'`
 * (`loadMore()` reads no page more).
 */
function readOnce(proxy: object, params: LiveParams | undefined, options: LiveOptions | undefined): LiveList<unknown> {
  const listeners = new Set<(list: LiveList<unknown>) => void>();
  const read = (): Promise<void> =>
    readLiveList(proxy, params, options).then(({ rows, error }) => {
      handle.rows = Object.freeze(rows);
      handle.status = Object.freeze({ mode: 'closed', loading: false, stale: !!error, why: error && 'read-failed', error, window: 'exhausted', hasPrevious: false, total: null });
      for (const listener of [...listeners]) listener(handle);
      if (error) throw error;
    });
  const handle: LiveHandle = {
    rows: EMPTY,
    pending: EMPTY,
    status: Object.freeze({ mode: 'closed', loading: true, stale: true, why: 'loading', error: null, window: 'loading-first-page', hasPrevious: false, total: null }),
    follower: null,
    pendingOf: () => undefined,
    dismiss() {},
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    refresh: read,
    // one read, in a request: no page more is read
    loadMore: () => Promise.resolve(),
    close: async () => listeners.clear(),
    ready: Promise.resolve(),
  };
  (handle.ready = read()).catch(() => {});
  return handle;
}

/**
 * A live list of `proxy`'s records, returned at once: read once (its topic, the proxy's base path,
 * followed from before the read), then kept current from each change, with this page's own writes
 * through proxies of the same base path and transport shown at once. `params` (sort, filters, a
 * page: what the client cannot evaluate) make it read the list again on every change instead of
 * patching it. A TypeError when `proxy` is not a ViewSet proxy.
 */
export function liveList<P extends object>(proxy: P, params?: LiveParams, options?: LiveOptions): LiveList<RecordOf<P>, PkFieldOf<P>> {
  if (!internalsOf(proxy)) throw new TypeError('liveList() takes a ViewSet proxy');
  // in a request's scope (a server render): read once, follow nothing (a bundler drops this where
  // no scope resolver is ever installed)
  if (resolver && resolver()) return readOnce(proxy, params, options) as LiveList<RecordOf<P>>;
  const running = loadLive().then((module) => module.start(liveServices, handle, proxy, params, options));
  // until the chunk takes the handle over (its methods then its own), each method waits for it
  const handle: LiveHandle = waitOn({ rows: EMPTY, pending: EMPTY, status: { mode: 'poll', loading: true, stale: true, why: 'loading', error: null, window: 'loading-first-page', hasPrevious: false, total: null }, follower: null, pendingOf() {} } as unknown as LiveHandle, running, ['refresh', 'close', 'dismiss', 'loadMore']);
  running.catch((error: Error) => {
    // the chunk never got the handle: nothing else writes its state (the warning says why)
    handle.status = { ...handle.status, mode: 'closed', loading: false, why: 'closed', error };
    warn('live list failed', error);
  });
  devTap?.seen('live', handle);
  return handle as unknown as LiveList<RecordOf<P>, PkFieldOf<P>>;
}
