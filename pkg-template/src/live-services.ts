/**
 * What the live list's chunk (live/live-list.ts) is given of the package, as one object with named
 * members, handed to it by live.ts instead of imported: the chunk imports from outside its folder
 * only types and shared/'s rules (a copy of which it carries), so it imports nothing of index.js. The follower's services (every app ships
 * them for `watch()`) and six more, among them the loader of the paged list's chunk (live-paged/).
 */
import { internalsOf } from './caller.js';
import { loadChunk } from './chunk.js';
import { watchProxy } from './follow.js';
import { followServices } from './follow-services.js';
import { addListener, openCalls, observeCalls } from './runtime.js';

type Paged = typeof import('./live-paged/index.js');

/** The paged list's chunk, once loading (forgotten when its load failed: the next load tries again). */
let paged: Promise<Paged> | undefined;
/** Loads of the paged chunk that failed: the next goes under a URL of its own. */
let failedLoads = 0;

/**
 * Loads the paged list's chunk (`live/paged.js`, beside the live list's, imported by its URL
 * relative to index.js, where this file is bundled: an app's bundler emits it as an asset). The one
 * place that knows where it is.
 */
function loadPaged(): Promise<Paged> {
  if (paged) return paged;
  const loading = (paged = loadChunk<Paged>('live/paged.js', new URL('./live/paged.js?no-inline', import.meta.url), failedLoads));
  loading.catch(() => {
    paged = undefined;
    failedLoads++;
  });
  return loading;
}

/**
 * What the live list's chunk uses of the package. Made by a call marked pure, so that an app that
 * never calls `liveList()` drops it whole (a spread at the top level is kept by bundlers otherwise:
 * it could run a getter).
 */
export const liveServices = /* @__PURE__ */ (() => ({
  /** `HttpError`, `warn`, `now` (the package's one clock), `wakeup` (its one kind of timer), … */
  ...followServices,
  /** A proxy's checked options (its base path and transport). */
  internalsOf,
  /** Installs an observer of every call issued and settled (own writes). */
  observeCalls,
  /** The calls not settled yet (the writes pending when a list opens, resumed ones included). */
  openCalls,
  /** Adds a call-activity listener (a write being repeated). */
  addListener,
  /** A proxy's `watch()` from a rev (a list hydrated from a server's read) or from now. */
  watchProxy,
  /** Loads the paged list's chunk (`live/paged.js`), the first time a list turns out paged. */
  loadPaged,
}))();

/** The type of {@link liveServices}. */
export type LiveServices = typeof liveServices;
