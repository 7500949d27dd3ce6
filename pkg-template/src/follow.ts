/**
 * `follow(topic, options)` and what a proxy's `watch()` / `applyChanges()` need at once: the
 * options checked (a TypeError for what is wrong), the channel (polls as calls of this package:
 * a new key each, background, never persisted) and the `Follower` handle, returned synchronously.
 * The follower's logic (follow-engine.ts) is a chunk of its own, loaded by the first `follow()`,
 * `watch()` or `applyChanges()`: an app that never follows anything never downloads it.
 */
import { get, internalsOf } from './caller.js';
import { issueCall, type ProxyCore } from './compose.js';
import { HttpError } from './errors.js';
import type { EventChannel, Follower, FollowOptions, Topic, WatchOptions } from './events.js';
import { muxwsTransport } from './peer-source.js';
import { restTransport } from './rest.js';
import { warn } from './runtime.js';

/** What the engine chunk is given of the package (it imports only types, so the bundle has no shared chunk). */
export const followKit = [HttpError, warn] as const;

/** The type of {@link followKit}. */
export type FollowKit = typeof followKit;

/** The checked options the engine reads (callbacks and numbers, as given). */
export interface CheckedFollow {
  from: number | null;
  persist: boolean;
  pollIntervalMs: number;
  onEvent?: (event: never) => unknown;
  onResync?: (info: never) => unknown;
  onRefused?: (error: HttpError) => unknown;
}

/** A poll's own repeat window: a lost answer is asked again under the same key only this long. */
const POLL_REPEAT = { withinMs: 10_000, delayMs: 500 };

/** The engine chunk, loaded once. */
let engine: Promise<typeof import('./follow-engine.js')> | undefined;
function loadEngine(): Promise<typeof import('./follow-engine.js')> {
  return (engine ??= import('./follow-engine.js'));
}

/** The channels by what they go through (a proxy's core, a peer's transport, an origin) and events path. */
const channels = new WeakMap<object, Map<string, EventChannel>>();
const origins = new Map<string, object>();

/** The channel polling `{eventsPath}/poll` with the headers, interceptors and transport of `core`. */
function channelOf(owner: object, eventsPath: string, core: () => ProxyCore, persistKey: string): EventChannel {
  let byPath = channels.get(owner);
  if (!byPath) channels.set(owner, (byPath = new Map()));
  let channel = byPath.get(eventsPath);
  if (!channel) {
    const events: ProxyCore = { ...core(), basePath: eventsPath, persist: false };
    channel = {
      poll: (cursors, scopes) => issueCall(events, 'POST', '/poll', { body: { cursors, scopes }, background: true, repeat: POLL_REPEAT }),
      persistKey: `${persistKey}${eventsPath}`,
    };
    byPath.set(eventsPath, channel);
  }
  return channel;
}

/** `value` unless it is not a function (a TypeError naming `name`); undefined stays undefined. */
function callback<F>(value: unknown, name: string): F | undefined {
  if (value !== undefined && typeof value !== 'function') throw new TypeError(`${name} must be a function`);
  return value as F | undefined;
}

/** The options both `follow()` and `watch()` take, checked. */
function checked(options: unknown, from: unknown): CheckedFollow & { eventsPath: string } {
  const eventsPath = get(options, 'eventsPath') ?? '/events';
  if (typeof eventsPath !== 'string' || eventsPath[0] !== '/') throw new TypeError("eventsPath must be a path such as '/events'");
  const pollIntervalMs = get(options, 'pollIntervalMs') ?? 2000;
  if (typeof pollIntervalMs !== 'number' || !Number.isSafeInteger(pollIntervalMs) || pollIntervalMs < 1) {
    throw new TypeError('pollIntervalMs must be a whole number of milliseconds, 1 or more');
  }
  if (from !== 'now' && !(typeof from === 'number' && Number.isSafeInteger(from) && from >= 0)) {
    throw new TypeError("from must be 'now' or a rev (a non-negative whole number)");
  }
  const persist = get(options, 'persist') ?? false;
  if (typeof persist !== 'boolean') throw new TypeError('persist must be a boolean');
  return {
    eventsPath,
    from: from === 'now' ? null : (from as number),
    persist,
    pollIntervalMs,
    onResync: callback(get(options, 'onResync'), 'onResync'),
    onRefused: callback(get(options, 'onRefused'), 'onRefused'),
  };
}

/** The handle of a follower of `topic`, returned at once; the engine runs it once loaded. */
function startFollower(topic: Topic, channel: EventChannel, options: CheckedFollow): Follower {
  const running = loadEngine().then((module) => module.start(followKit, handle, channel, options));
  const handle = {
    topic,
    cursor: null,
    mode: 'poll',
    ready: running.then((follower) => follower.ready),
    catchUp: () => running.then((follower) => follower.catchUp()),
    close: () => running.then((follower) => follower.close()),
  } as Follower & { mode: string };
  running.catch((error: unknown) => {
    handle.mode = 'closed';
    warn('the follower could not start', error);
  });
  // awaited or not: a follower refused or closed before its first answer is no unhandled rejection
  handle.ready.catch(() => {});
  return handle;
}

/**
 * Follows `topic` (a ViewSet's routed base path such as `/items`, or a source's such as
 * `imports:7`) over REST (`baseUrl`, default the page's origin) or a muxws peer (`peer`), by
 * polling; returns its `Follower` at once. A TypeError for options that are wrong.
 */
export function follow<P = unknown>(topic: Topic, options: FollowOptions<P> = {}): Follower {
  if (typeof topic !== 'string' || !topic) throw new TypeError("topic must be a string such as '/items' or 'imports:7'");
  if (options === null || typeof options !== 'object') throw new TypeError('follow options must be an object');
  const base = checked(options, get(options, 'from') ?? 'now');
  const onEvent = callback<(event: never) => unknown>(get(options, 'onEvent'), 'onEvent');
  const peer = get(options, 'peer');
  const baseUrl = get(options, 'baseUrl');
  let channel: EventChannel;
  if (peer !== undefined) {
    if (baseUrl !== undefined) throw new TypeError('follow takes peer or baseUrl, not both');
    const transport = muxwsTransport(peer);
    channel = channelOf(transport, base.eventsPath, () => ({ ...plainCore(''), transport }), 'muxws:');
  } else {
    const origin = baseUrl ?? (globalThis as { location?: { origin?: string } }).location?.origin;
    if (typeof origin !== 'string' || origin === 'null') {
      throw new TypeError("options.baseUrl must be a string such as 'https://api.example.com' (required outside a web page)");
    }
    let owner = origins.get(origin);
    if (!owner) origins.set(origin, (owner = {}));
    channel = channelOf(owner, base.eventsPath, () => plainCore(origin), origin);
  }
  return startFollower(topic, channel, { ...base, onEvent });
}

/** The core of a channel with no headers or interceptors of its own. */
function plainCore(baseUrl: string): ProxyCore {
  return {
    basePath: '',
    baseUrl,
    headers: new Map(),
    interceptors: [],
    attemptTimeoutMs: 30_000,
    withinMs: 0,
    delayMs: 0,
    jitter: 0,
    transport: restTransport,
    persist: false,
    persistExclude: [],
  };
}

/** `proxy.watch(options)`: follows the proxy's own topic (its basePath) over its transport, headers and interceptors. */
export function watchProxy(proxy: object, options: WatchOptions): Follower {
  const core = internalsOf<ProxyCore>(proxy);
  if (!core) throw new TypeError('watch() was called on an object that is not a ViewSet proxy');
  if (options === null || typeof options !== 'object') throw new TypeError('watch options must be an object with onChange');
  const onChange = callback<(change: unknown, event: unknown) => unknown>(get(options, 'onChange'), 'onChange');
  if (!onChange) throw new TypeError('watch options need onChange, a function');
  const base = checked(options, 'now');
  const channel = channelOf(core, base.eventsPath, () => core, `${core.baseUrl}|`);
  return startFollower(core.basePath, channel, { ...base, onEvent: (event: { payload: unknown }) => onChange(event.payload, event) });
}

/** `proxy.applyChanges(rows, change)`: the rows with the change applied (engine chunk). */
export function applyChangesOf<T>(proxy: object, rows: readonly T[], change: unknown): Promise<T[]> {
  return loadEngine().then((module) => module.applyChanges(followKit, proxy, rows, change) as Promise<T[]>);
}
