/**
 * The follower's chunk (`follow-engine.js`), loaded by the first `follow()`, `watch()` or
 * `applyChanges()`: the driver of the engine (engine.ts). It performs what the engine asks (polls,
 * subscribes and unsubscribes as calls of the package, the application's handlers one at a time),
 * tells the engine what came back with the time of the package's one clock, keeps the engine's one
 * platform timer, and writes the followers' handles, whose `subscribe()` listeners it tells once
 * per batch, after the batch, with every handle consistent.
 *
 * The chunk imports from outside its folder only types and shared/'s rules (scripts/imports.mjs
 * checks it): what it needs of the package comes in the services follow.ts hands it.
 */
import type { ProxyCore } from '../compose.js';
import type { HttpError } from '../errors.js';
import type { CheckedFollow, FollowerState, FollowServices } from '../follow-services.js';
import type { Follower } from '../vocabulary/events.js';
import type { PushPeer } from '../vocabulary/call-types.js';
import type { Wakeup } from '../timer.js';
import { backoff } from './backoff.js';
import { channelOf, type Channel } from './channel.js';
import { FollowEngine, type Action } from './engine.js';
import { loadCursor, saveCursor } from './persist.js';
import { isObject } from '../shared/values.js';
import { own, readPoll, readPush, readSubscribed } from './wire.js';

export { applyChanges } from './apply-changes.js';

/** One started follower, as the driver knows it. */
interface Entry {
  readonly id: number;
  readonly internals: Internals;
  readonly options: CheckedFollow;
  readonly channel: Channel;
  /** The muxws peer whose socket it is subscribed on, if any. */
  readonly peer: PushPeer | undefined;
}

/** A follower's handle (whose state the driver writes), its ready promise and its `subscribe()` listeners. */
interface Internals {
  readonly handle: Follower & FollowerState;
  readonly state: FollowerState;
  readonly listeners: Set<(follower: Follower) => void>;
  readonly ready: readonly [resolve: () => void, reject: (error: unknown) => void];
}

/** A `catchUp()` waiting for its answer (the engine's opaque token). */
type Waiter = { resolve(): void; reject(error: unknown): void };

/** A peer whose socket followers are subscribed on: its key in the engine, its listeners' removers, the pushed streams it holds open. */
interface PeerEntry {
  readonly key: number;
  removers: (() => void)[];
  open: number;
}

/**
 * Pushed streams a peer may hold open before the engine is told its pushes may be refused: half of
 * the 100 remote streams a muxws receiver admits at once (muxws SPEC, WSM-STM-036). A server that
 * ends its pushes holds none for longer than a task.
 */
const CHOKED_AT = 50;

let services: FollowServices;
let engine: FollowEngine;
let timer: Wakeup;
const entries = new Map<number, Entry>();
const channels = new Map<number, Channel>();
const polls = new Map<number, AbortController>();
const peers = new Map<PushPeer, PeerEntry>();
/** The engine's key of each peer, for as long as the peer lives (its channels keep naming it). */
const peerKeys = new WeakMap<PushPeer, number>();
/** The handles the batch under way changed: their listeners are told after it. */
const changed = new Set<Entry>();
let pumping = false;
let ids = 0;

/** The engine and its timer, made once, on the package's clock and online source. */
function setUp(given: FollowServices): void {
  if (engine) return;
  services = given;
  engine = new FollowEngine((attempt, baseMs, capMs) => backoff(attempt, baseMs, capMs));
  timer = services.wakeup(() => {
    engine.timeout(services.now());
    pump();
  });
  services.online.subscribe((online) => {
    engine.setOnline(services.now(), online);
    pump();
  });
}

/** Performs the engine's actions until it has none; then sets the timer and tells the listeners of the handles that changed. */
function pump(): void {
  if (pumping) return;
  pumping = true;
  try {
    for (let action = engine.pollAction(); action; action = engine.pollAction()) {
      try {
        perform(action);
      } catch (error) {
        services.warn('the follower could not perform an action', error);
      }
    }
  } finally {
    pumping = false;
  }
  timer.set(engine.nextTimeout());
  const batch = [...changed];
  changed.clear();
  for (const entry of batch) {
    for (const listener of [...entry.internals.listeners]) {
      try {
        listener(entry.internals.handle);
      } catch (error) {
        services.warn(`a follower's subscribe() listener of ${entry.internals.handle.topic} threw`, error);
      }
    }
  }
}

/** Tells the engine something at the clock's time, then performs what it answers. */
function tell(input: (now: number) => void): void {
  input(services.now());
  pump();
}

/** The muxws reset code of a payload over the peer's `maxPayloadBytes` (muxws SPEC, PAYLOAD_TOO_LARGE). */
const PAYLOAD_TOO_LARGE = 7;

/** Whether `error` says an answer was over the transport's size cap (asking again would bring it again): a `StreamReset` of that code. */
function tooLarge(error: unknown): boolean {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  return name === 'StreamReset' && code === PAYLOAD_TOO_LARGE;
}

/** Whether `error` refuses for good, as the backend classes refusals: an `HttpError` of 400–499 other than 429. */
function refuses(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return error instanceof services.HttpError && typeof status === 'number' && status >= 400 && status < 500 && status !== 429;
}

/** The error of a topic a poll's answer refused. */
function refusalOf(status: number, body: unknown, topic: string): HttpError {
  const detail = isObject(body) && typeof own(body, 'detail') === 'string' ? (own(body, 'detail') as string) : `HTTP ${status}`;
  return new services.HttpError(status, body, {}, `following ${topic} was refused (${status}): ${detail}`, { key: '', attempts: 1 });
}

function perform(action: Action): void {
  switch (action.type) {
    case 'poll': {
      const { poll, cursors: list } = action;
      const controller = new AbortController();
      polls.set(poll, controller);
      // no prototype: a topic named __proto__ is a key like any other
      const cursors: Record<string, number | null> = Object.create(null);
      const scopes: Record<string, string> = Object.create(null);
      for (const [topic, cursor, scope] of list) {
        cursors[topic] = cursor;
        if (scope !== undefined) scopes[topic] = scope;
      }
      const topics = list.map(([topic]) => topic);
      channels.get(action.channel)!.poll(cursors, scopes, controller.signal).then(
        (answer) => {
          polls.delete(poll);
          const read = readPoll(answer, topics, refusalOf);
          tell((now) => (read ? engine.pollAnswered(now, poll, read.topics, read.floorMs) : engine.pollFailed(now, poll, new Error('the poll was not answered as the events viewset answers'), false, false)));
        },
        (error: unknown) => {
          polls.delete(poll);
          tell((now) => engine.pollFailed(now, poll, error, refuses(error), tooLarge(error)));
        },
      );
      return;
    }
    case 'abandon':
      polls.get(action.poll)?.abort(new Error('the poll was not answered in time'));
      polls.delete(action.poll);
      return;
    case 'subscribe': {
      const { sub } = action;
      channels.get(action.channel)!.push!.subscribe(action.topic).then(
        (answer) => {
          const read = readSubscribed(answer);
          tell((now) => (read ? engine.subscribeAnswered(now, sub, read.rev, read.scope) : engine.subscribeFailed(now, sub, new Error('the subscribe was not answered with a rev'), false)));
        },
        (error: unknown) => tell((now) => engine.subscribeFailed(now, sub, error, refuses(error))),
      );
      return;
    }
    case 'unsubscribe':
      channels.get(action.channel)!.push!.unsubscribe(action.topic).catch(() => {});
      return;
    case 'event': {
      const entry = entries.get(action.follower)!;
      const { item } = action;
      const message: Record<string, unknown> = { topic: entry.internals.handle.topic, event: item.event, version: item.version, rev: item.rev, prev: action.prev, payload: item.payload, via: item.via };
      if (item.scope !== undefined) message.scope = item.scope;
      const onEvent = entry.options.onEvent;
      return run(entry, 'onEvent', onEvent && (() => onEvent(message as never)));
    }
    case 'resync': {
      const entry = entries.get(action.follower)!;
      const info: Record<string, unknown> = { topic: entry.internals.handle.topic, rev: action.rev };
      if (action.scope !== undefined) info.scope = action.scope;
      const onResync = entry.options.onResync;
      services.resynced?.(entry.internals.handle);
      return run(entry, 'onResync', onResync && (() => onResync(info as never)));
    }
    case 'refused': {
      const entry = entries.get(action.follower)!;
      const onRefused = entry.options.onRefused;
      return run(entry, 'onRefused', onRefused && (() => onRefused(action.error as HttpError)));
    }
    case 'changed': {
      const entry = entries.get(action.follower);
      if (!entry) return;
      const state = entry.internals.state;
      const moved = state.cursor !== action.view.cursor || state.scope !== action.view.scope;
      Object.assign(state, action.view);
      if (moved && entry.options.persist && state.cursor !== null) saveCursor(entry.channel.persistKey, entry.internals.handle.topic, state.cursor, state.scope);
      changed.add(entry);
      return;
    }
    case 'ready': {
      const entry = entries.get(action.follower);
      if (!entry) return;
      const [resolve, reject] = entry.internals.ready;
      if (action.ok) resolve();
      else reject(action.error ?? new Error(`following ${entry.internals.handle.topic} was closed`));
      return;
    }
    case 'gone': {
      const entry = entries.get(action.follower);
      if (entry) leave(entry);
      return;
    }
    case 'caughtUp': {
      const waiter = action.token as Waiter;
      if (action.ok) waiter.resolve();
      else waiter.reject(action.error);
      return;
    }
  }
}

/**
 * Runs one handler of the application (none: nothing to run) and tells the engine when it
 * returned or its promise settled: the next of the follower's turn waits for it. What it throws
 * is reported, never the follower's end.
 */
function run(entry: Entry, what: string, handler: (() => unknown) | undefined): void {
  const done = (): void => tell((now) => engine.handled(now, entry.id));
  const failed = (error: unknown): void => {
    services.warn(`${what} of ${entry.internals.handle.topic} threw`, error);
    done();
  };
  let result: unknown;
  try {
    result = handler?.();
  } catch (error) {
    return failed(error);
  }
  if (result !== null && (typeof result === 'object' || typeof result === 'function') && typeof (result as { then?: unknown }).then === 'function') {
    Promise.resolve(result).then(done, failed);
  } else done();
}

/** The follower `entry` follows no more. Its peer's listeners stay: the engine still hears of the socket it may hold subscriptions on (a subscribe under way is answered, then undone). */
function leave(entry: Entry): void {
  entries.delete(entry.id);
}

/** The state of `peer`'s socket as the engine takes it. */
function stateOf(peer: PushPeer): 'up' | 'down' | 'closed' {
  return peer.isOpen ? 'up' : peer.isClosed ? 'closed' : 'down';
}

/**
 * Tells the engine of `peer`'s socket, and hands it the peer's pushes, from its first follower on
 * until the peer is closed for good (`channel`: the channel of the first follower, which names the
 * peer to the engine). The engine is told of a socket only as it comes and goes, never again of
 * the one it knows: that would undo the subscriptions it holds there.
 */
function watchPeer(peer: PushPeer, channel: Channel): PeerEntry {
  let known = peers.get(peer);
  if (known) return known;
  let key = peerKeys.get(peer);
  if (key === undefined) peerKeys.set(peer, (key = ++ids));
  const entry: PeerEntry = (known = { key, removers: [], open: 0 });
  peers.set(peer, entry);
  const state = (): 'up' | 'down' | 'closed' => stateOf(peer);
  engine.addChannel(channel.id, key);
  const peerKey = key;
  engine.peerState(services.now(), peerKey, state());
  const socketNews = (): void => {
    tell((now) => engine.peerState(now, peerKey, state()));
    if (!peer.isClosed) return;
    for (const remove of entry.removers.splice(0)) remove();
    peers.delete(peer);
  };
  entry.removers = [
    // the push is queued with its followers and the handler returns: the pushed stream ends at once
    // (this side); one the server never ends holds one of the peer's remote streams until it is over
    peer.onStream((payload, stream) => {
      const read = readPush((stream as { headers?: unknown }).headers, payload);
      if (read) tell((now) => engine.pushed(now, peerKey, read.topic, read.event));
      if (++entry.open === CHOKED_AT) tell((now) => engine.peerChoked(now, peerKey, true));
      void Promise.resolve((stream as { closed?: unknown }).closed).then(() => entry.open-- === CHOKED_AT && tell((now) => engine.peerChoked(now, peerKey, false)));
    }),
    peer.onReconnect(socketNews),
    peer.onClose(socketNews),
    // while the peer's calls fall back to REST its followers poll there (the channel reads restBase);
    // once a socket is up again they subscribe again, and the catch-up poll follows from the cursor
    peer.onFallback(() => tell((now) => engine.peerState(now, peerKey, state()))),
  ];
  // a lazy peer's first connection is no reconnect
  if (!peer.isOpen && !peer.isClosed) {
    peer.connected.then(
      () => peers.has(peer) && tell((now) => engine.peerState(now, peerKey, state())),
      () => peers.has(peer) && tell((now) => engine.peerState(now, peerKey, 'closed')),
    );
  }
  return known;
}

/**
 * Closes every follower, for tests (`internalFreshRuntime`), as each one's `close()` would, in
 * one batch: their polls abandoned, their subscriptions ended; none of their `subscribe()`
 * listeners is told of it. The engine, its timer, its online subscription and the listeners of
 * peers not closed for good stay, for the followers of after.
 */
export function closeAll(): void {
  // not set up when the chunk was loaded for applyChanges() alone: no follower to close
  if (!engine) return;
  tell((now) => {
    // the engine's `gone` actions, which take the entries out, are performed after this loop
    for (const [id, entry] of entries) {
      entry.internals.listeners.clear();
      engine.close(now, id);
    }
  });
}

/** The handle of a started follower: what follow.ts's `ready`, `catchUp()`, `close()` and `subscribe()` use once the chunk is loaded. */
export interface Started {
  ready: Promise<void>;
  catchUp(): Promise<void>;
  close(): Promise<void>;
  subscribe(listener: (follower: Follower) => void): () => void;
}

/** Starts the follower of `handle`'s topic on the channel of `owner` (called by follow.ts once this chunk is loaded). */
export async function start(given: FollowServices, handle: Follower & FollowerState, owner: object, core: ProxyCore, options: CheckedFollow, persistKey: string): Promise<Started> {
  setUp(given);
  let settle!: Internals['ready'];
  const ready = new Promise<void>((resolve, reject) => (settle = [resolve, reject]));
  const internals: Internals = { handle, state: handle, listeners: new Set(), ready: settle };
  const channel = channelOf(services, owner, core, options.eventsPath, persistKey);
  const topic = handle.topic;
  let cursor = options.from;
  let scope: string | undefined;
  const stored = options.persist ? await loadCursor(channel.persistKey, topic) : undefined;
  if (stored) [cursor, scope] = [stored.rev, stored.scope];
  const peer = channel.push ? await channel.push.peer().catch(() => undefined) : undefined;
  const known = peer && watchPeer(peer, channel);
  const id = ++ids;
  entries.set(id, { id, internals, options, channel, peer });
  channels.set(channel.id, channel);
  tell((now) => {
    engine.addChannel(channel.id, known?.key ?? 0);
    engine.follow(now, id, { channel: channel.id, topic, cursor, scope, pollIntervalMs: options.pollIntervalMs, checkIntervalMs: options.checkIntervalMs });
  });
  return {
    ready,
    // the engine forgets a refused follower once its onRefused returned: its handle keeps the refusal
    catchUp: () =>
      handle.mode === 'refused' ? Promise.reject(handle.error) : new Promise<void>((resolve, reject) => tell((now) => engine.catchUp(now, id, { resolve, reject } satisfies Waiter))),
    close: () => {
      tell((now) => engine.close(now, id));
      return Promise.resolve();
    },
    subscribe(listener) {
      internals.listeners.add(listener);
      return () => void internals.listeners.delete(listener);
    },
  };
}
