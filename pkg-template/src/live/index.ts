/**
 * `proxy.live(params, options)`: what every app ships of live lists, kept to a minimum. The handle
 * is returned at once; the list's logic (live/live-list.ts) is a module of the package of its own,
 * loaded by the first `live()`, which takes the handle over (it checks the options there: what is
 * wrong rejects `ready`): an app that never calls `live()` never downloads it.
 */
import { liveServices } from './services.js';
import type { LiveHandle, LiveList, LiveOptions, LiveParams } from './types.js';

type Chunk = typeof import('./live-list.js');

/** The chunk, loaded once. */
let chunk: Promise<Chunk> | undefined;

/**
 * The chunk is an entry of its own (scripts/bundle.mjs), imported by its URL relative to the
 * package's index.js (this file is bundled into it): an app's bundler emits it as an asset rather
 * than wrapping the import in a preload helper. The one place that knows how the chunk is loaded.
 */
function loadLive(): Promise<Chunk> {
  return (chunk ??= import(/* @vite-ignore */ /* webpackIgnore: true */ new URL('./live/live-list.js', import.meta.url).href));
}

const EMPTY = Object.freeze([]);

/** `proxy.live(params, options)`: a live list of the proxy's records, returned at once. */
export function liveOf<T>(proxy: object, params?: LiveParams, options?: LiveOptions): LiveList<T> {
  const handle = { rows: EMPTY, pending: EMPTY, status: { mode: 'poll', loading: true, stale: true, why: 'loading', error: null }, pendingOf() {} } as unknown as LiveHandle;
  // until the chunk takes the handle over (its methods then its own), each method waits for it
  const running = loadLive().then((engine) => engine.start(liveServices, handle, proxy, params, options));
  for (const name of ['refresh', 'close', 'dismiss'] as const) handle[name] = (key?: string) => running.then((list) => list[name](key as string));
  handle.subscribe = (listener) => {
    const stop = running.then((list) => list.subscribe(listener));
    return () => void stop.then((remove) => remove());
  };
  handle.ready = running.then((list) => list.ready);
  // awaited or not: a list closed before its first read is no unhandled rejection (the chunk warns of wrong options)
  handle.ready.catch(() => {});
  return handle as LiveList<T>;
}
