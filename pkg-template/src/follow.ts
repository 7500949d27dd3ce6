/**
 * `follow(topic, options)` and what a proxy's `watch()` / `applyChanges()` need at once: the
 * options checked (a TypeError for what is wrong), the channel (polls as calls of this package:
 * a new key each, background, never persisted) and the `Follower` handle, returned synchronously.
 * The follower's logic (`follow/`, emitted as `follow-engine.js`) is a chunk of its own, loaded by the first `follow()`,
 * `watch()` or `applyChanges()`: an app that never follows anything never downloads it.
 */
import { get, internalsOf } from './caller.js';
import { isObject, isWhole } from './shared/values.js';
import { loadChunk } from './chunk.js';
import { issueCall, type ProxyCore } from './compose.js';
import { followServices, type CheckedFollow, type FollowerState } from './follow-services.js';
import type { Follower, FollowOptions, Topic, WatchOptions } from './vocabulary/events.js';
import { muxwsTransport } from './peer-source.js';
import { restTransport } from './rest.js';
import { resolver, warn } from './runtime.js';

/** The follower's chunk, loaded once. */
let chunk: Promise<typeof import('./follow/index.js')> | undefined;
/**
 * The chunk is a module of its own in the package (scripts/bundle.mjs makes it an entry), imported
 * by its URL: an app's bundler emits it as an asset, as it does the muxws module, instead of
 * wrapping the import in a preload helper that every app would ship (Vite's is 0.8 KB).
 */
function loadFollower(): Promise<typeof import('./follow/index.js')> {
  return (chunk ??= loadChunk('follow-engine.js', new URL('./follow-engine.js?no-inline', import.meta.url), 0));
}

/**
 * Makes the followers afresh, for tests (`internalFreshRuntime`): the REST origins' channel owners
 * forgotten at once, and every follower of before closed by the chunk's `closeAll()` once it is
 * loaded (a microtask later; before any follower started after this call, whose start waits for
 * the same load).
 */
export function freshFollowers(): void {
  origins.clear();
  void chunk?.then((module) => module.closeAll());
}

/** The options both `follow()` and `watch()` take, checked: a TypeError naming the first that is wrong. */
function checked(options: unknown, from: unknown, onEvent: unknown): CheckedFollow {
  const eventsPath = get(options, 'eventsPath') ?? '/events';
  const pollIntervalMs = get(options, 'pollIntervalMs') ?? 2000;
  const checkIntervalMs = get(options, 'checkIntervalMs') ?? 30_000;
  const persist = get(options, 'persist') ?? false;
  const onResync = get(options, 'onResync');
  const onRefused = get(options, 'onRefused');
  const wrong =
    typeof eventsPath !== 'string' || eventsPath[0] !== '/' ? "eventsPath (a path such as '/events')"
    : !isWhole(pollIntervalMs, 1) ? 'pollIntervalMs (whole milliseconds, 1 or more)'
    : !isWhole(checkIntervalMs, 1) ? 'checkIntervalMs (whole milliseconds, 1 or more)'
    : from !== 'now' && !isWhole(from) ? "from ('now' or a rev)"
    : typeof persist !== 'boolean' ? 'persist (a boolean)'
    : [onEvent, onResync, onRefused].some((f) => f !== undefined && typeof f !== 'function') ? 'onEvent, onResync, onRefused (functions)'
    : '';
  if (wrong) throw new TypeError(`the option ${wrong} is wrong`);
  return { eventsPath, from: from === 'now' ? null : from, persist, pollIntervalMs, checkIntervalMs, onEvent, onResync, onRefused } as CheckedFollow;
}

/**
 * The handle of a follower of `topic`, returned at once; the chunk runs it once loaded, following
 * through `core` (its transport, headers and interceptors; `owner` names the channel).
 */
function startFollower(owner: object, core: ProxyCore, persistKey: string, topic: Topic, options: CheckedFollow): Follower {
  const running = loadFollower().then((module) => module.start(followServices, handle, owner, core, options, persistKey));
  // its state (mode, cursor, scope, error) is written by the chunk alone; readonly to the application
  // (scope and error: undefined until the chunk writes them)
  const handle = {
    topic,
    cursor: null,
    mode: 'poll',
    ready: running.then((follower) => follower.ready),
    catchUp: () => running.then((follower) => follower.catchUp()),
    close: () => running.then((follower) => follower.close()),
    subscribe(listener: (follower: Follower) => void) {
      const removed = running.then((follower) => follower.subscribe(listener));
      return () => removed.then((remove) => remove());
    },
  } as unknown as Follower & FollowerState;
  running.catch((error: unknown) => {
    // the chunk never got the handle: nothing else writes its state (the warning says why)
    handle.mode = 'closed';
    warn('follow failed', error);
  });
  // awaited or not: a follower refused or closed before its first answer is no unhandled rejection
  handle.ready.catch(() => {});
  return handle;
}

/** The channel owners of REST origins (a peer's is its transport, a proxy's its core). */
const origins = new Map<string, object>();

/**
 * Follows `topic` (a ViewSet's routed base path such as `/items`, or a source's such as
 * `imports:7`) over REST (`baseUrl`, default the page's origin: by polling) or a muxws peer
 * (`peer`: by push, with check polls); returns its `Follower` at once. A TypeError for options
 * that are wrong.
 */
export function follow<P = unknown>(topic: Topic, options: FollowOptions<P> = {}): Follower {
  if (typeof topic !== 'string' || !topic) throw new TypeError("topic must be a string such as '/items' or 'imports:7'");
  if (options === null || typeof options !== 'object') throw new TypeError('follow options must be an object');
  const base = checked(options, get(options, 'from') ?? 'now', get(options, 'onEvent'));
  const [owner, core, persistKey] = followCore(options);
  // in a request's scope (a server render): the topic's rev, nothing followed (a bundler drops
  // this where no scope resolver is ever installed)
  if (resolver && resolver()) return revFollower(core, topic, base.eventsPath);
  return startFollower(owner, core, persistKey, topic, base);
}

/**
 * A follower in a request's scope, on a server: it takes the topic's rev (its `cursor`, through
 * the request's headers) and follows nothing, so no request's follower shares a channel with
 * another's and nothing outlives the render; its mode is `'closed'` once `ready`, `onEvent` is never
 * called. The client follows `from` that rev.
 */
function revFollower(core: ProxyCore, topic: Topic, eventsPath: string): Follower {
  const listeners = new Set<(follower: Follower) => void>();
  const handle = { topic, cursor: null, mode: 'poll', error: undefined } as unknown as Follower & FollowerState;
  const ready = currentRev(core, topic, eventsPath).then((rev) => {
    handle.cursor = rev;
    handle.mode = 'closed';
    for (const listener of [...listeners]) listener(handle);
  });
  return Object.assign(handle, {
    ready,
    catchUp: () => ready,
    close: () => ready,
    subscribe(listener: (follower: Follower) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  });
}


/** The current rev of `topic` through `core` (one poll from now, not repeated), or null when it cannot be had. */
export async function currentRev(core: ProxyCore, topic: string, eventsPath: string): Promise<number | null> {
  try {
    const answer = await issueCall<unknown>({ ...core, basePath: eventsPath, persist: false }, 'POST', '/poll', {
      body: { cursors: { [topic]: null } },
      background: true,
      repeat: { withinMs: 0 },
    });
    const topics = isObject(answer) && isObject(answer.topics) ? answer.topics : {};
    const entry = Object.hasOwn(topics, topic) ? topics[topic] : undefined;
    const rev = isObject(entry) ? entry.rev : undefined;
    return isWhole(rev) ? rev : null;
  } catch {
    return null;
  }
}

/**
 * What a `follow()` with `options` goes through: its channel's owner (a peer's transport, or one
 * object per REST origin), the core (transport, origin; no headers) and the key its cursors are
 * persisted under. A TypeError for a peer and a baseUrl both, or no origin outside a web page.
 */
export function followCore(options: object): [owner: object, core: ProxyCore, persistKey: string] {
  const peer = get(options, 'peer');
  const baseUrl = get(options, 'baseUrl');
  const core: { -readonly [K in keyof ProxyCore]: ProxyCore[K] } = {
    basePath: '',
    baseUrl: '',
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
  if (peer !== undefined) {
    if (baseUrl !== undefined) throw new TypeError('follow takes peer or baseUrl, not both');
    const transport = (core.transport = muxwsTransport(peer));
    return [transport, core, 'muxws:'];
  }
  const origin = baseUrl ?? (globalThis as { location?: { origin?: string } }).location?.origin;
  if (typeof origin !== 'string' || origin === 'null') {
    throw new TypeError("options.baseUrl must be a string such as 'https://api.example.com' (required outside a web page)");
  }
  let owner = origins.get(origin);
  if (!owner) origins.set(origin, (owner = {}));
  return [owner, { ...core, baseUrl: origin }, origin];
}

/**
 * `proxy.watch(options)`: follows the proxy's own topic (its basePath) over its transport, headers
 * and interceptors, from now or from rev `from` (a live list hydrated from a server's read).
 */
export function watchProxy(proxy: object, options: WatchOptions, from: unknown = 'now'): Follower {
  const core = internalsOf<ProxyCore>(proxy);
  const onChange = get(options, 'onChange');
  if (!core || typeof onChange !== 'function') throw new TypeError('watch() is a ViewSet proxy method taking options with onChange, a function');
  const base = checked(options, from, (event: { payload: unknown }) => onChange(event.payload, event));
  return startFollower(core, core, `${core.baseUrl}|`, core.basePath, base);
}

/** `proxy.applyChanges(rows, change)`: the rows with the change applied (the follower's chunk). */
export function applyChangesOf<T>(proxy: object, rows: readonly T[], change: unknown): Promise<T[]> {
  return loadFollower().then((module) => module.applyChanges(followServices, proxy, rows, change) as Promise<T[]>);
}
