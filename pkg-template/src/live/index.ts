/**
 * `proxy.live(params, options)`: what every app ships of live lists, kept small. The handle is
 * returned at once; the list's logic (live/live-list.ts) is a module of the package of its own,
 * loaded by the first `live()`, which takes the handle over (its options are checked there: what
 * is wrong rejects `ready`): an app that never calls `live()` never downloads it.
 */
import { warn } from '../runtime.js';
import { liveServices } from './services.js';
import type { LiveHandle, LiveList, LiveOptions, LiveParams } from './types.js';

type Engine = typeof import('./live-list.js');

/** The chunk, loaded once. */
let chunk: Promise<Engine> | undefined;

/**
 * The chunk is an entry of its own (scripts/bundle.mjs), imported by its URL relative to the
 * package's index.js (this file is bundled into it): an app's bundler emits it as an asset rather
 * than wrapping the import in a preload helper. The one place that knows how the chunk is loaded.
 */
function loadLive(): Promise<Engine> {
  return (chunk ??= import(/* @vite-ignore */ /* webpackIgnore: true */ new URL('./live/live-list.js', import.meta.url).href));
}

/** `proxy.live(params, options)`: a live list of the proxy's records, returned at once. */
export function liveOf<T>(proxy: object, params?: LiveParams, options?: LiveOptions): LiveList<T> {
  const empty = Object.freeze([]);
  const handle = {
    rows: empty,
    pending: empty,
    status: { mode: 'poll', loading: true, stale: true, why: 'loading', error: null },
    follower: null,
    pendingOf() {},
  } as unknown as LiveHandle;
  const running = loadLive().then((engine) => engine.start(liveServices, handle, proxy, params, options));
  const later =
    (name: 'refresh' | 'close' | 'dismiss' | 'subscribe') =>
    (...args: unknown[]): never =>
      running.then((list) => (list[name] as (...args: unknown[]) => unknown)(...args)) as never;
  handle.ready = running.then((list) => list.ready);
  handle.refresh = later('refresh');
  handle.close = later('close');
  handle.dismiss = later('dismiss');
  // until the chunk is there nothing changes: a listener is added once it is
  handle.subscribe = (listener) => {
    const stop = later('subscribe')(listener) as Promise<() => void>;
    return () => void stop.then((remove) => remove());
  };
  running.catch((error: unknown) => warn('the live list could not start', error));
  // awaited or not: a list closed before its first read is no unhandled rejection
  handle.ready.catch(() => {});
  return handle as LiveList<T>;
}
