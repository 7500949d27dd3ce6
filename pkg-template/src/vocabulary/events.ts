/**
 * The types of live data (types only): what `follow()` and a proxy's `watch()` take and give, and
 * the channel a follower's transport is behind. The wire is fastapi-viewsets 0.14's events viewset
 * (`POST {eventsPath}/poll`, and over muxws `subscribe`/`unsubscribe`).
 */
import type { HttpError } from '../errors.js';
import type { KeyType } from '../mixins.js';
import type { MuxwsPeerSource } from './options.js';

/** A topic: a ViewSet's routed base path (`/items`) or a source's (`imports`, `imports:7`). */
export type Topic = string;

/**
 * What a follower does: `'push'` (over a muxws peer: its socket is subscribed, pushes flow, a
 * check poll every `checkIntervalMs`), `'poll'` (it polls: over REST, or over a peer between
 * sockets until subscribed again), `'paused'` (the platform is offline), `'refused'` (the server
 * refused the topic: `onRefused` was called, nothing more is asked), `'closed'` (`close()`).
 */
export type FollowerMode = 'push' | 'poll' | 'paused' | 'refused' | 'closed';

/** One event of a followed topic, as `onEvent` gets it: once, in rev order per topic. */
export interface EventMessage<P = unknown> {
  /** The topic as followed (never the server's `@…` store topic). */
  topic: Topic;
  /** The event's name, e.g. `records_changed`. */
  event: string;
  /** The version of the payload's shape (1 or more). */
  version: number;
  /** The event's rev: per topic, increasing, about the server's clock in ms. */
  rev: number;
  /** The rev of the event before it that this follower was given (its cursor before this one). */
  prev: number;
  /** The event's payload, as the server sent it. */
  payload: P;
  /** The scope key of a scoped ViewSet topic (`@event_scope`), as the server resolved it for this caller. */
  scope?: string;
  /** How it came: pushed over a muxws peer, or by a poll (over REST, or a peer's catch-up and check polls). */
  via: 'push' | 'poll';
}

/** What `onResync` gets: the server no longer holds the events since the cursor; re-read the state, it is now at `rev`. */
export interface ResyncInfo {
  topic: Topic;
  /** The topic's rev now: the follower's cursor from here on. */
  rev: number;
  /** The scope key the server resolved (scoped ViewSet topics). */
  scope?: string;
}

/** The callbacks and the cursor options `follow()` and `watch()` share. */
export interface FollowCallbacks {
  /** The log no longer holds the events since the cursor (`events: null`): awaited; later events come after it. */
  onResync?(info: ResyncInfo): void | Promise<void>;
  /** The server refused the topic (an `HttpError` of 400–499 other than 429): the follower stops (`mode: 'refused'`). */
  onRefused?(error: HttpError): void;
  /**
   * Keep the cursor (and scope) in IndexedDB, per topic, and resume from it after a reload (a
   * browser's; off where there is no IndexedDB). Only for state kept along with the cursor.
   */
  persist?: boolean;
  /** The interval of the polls (ms, default 2000; never shorter than the server's `poll_after_ms`). */
  pollIntervalMs?: number;
  /**
   * Over a muxws peer, while pushes flow: the interval of the check polls that find what no push
   * shows (a push lost with its socket's last event, a subscription the server dropped); ms,
   * default 30000.
   */
  checkIntervalMs?: number;
  /** The path the events viewset is registered under (default `/events`). */
  eventsPath?: string;
}

/** The options of `follow()`. */
export interface FollowOptions<P = unknown> extends FollowCallbacks {
  /**
   * Follow over this muxws peer (a `MuxwsPeer` or a function returning one): its socket is
   * subscribed and the server pushes each event; after a reconnect it is subscribed again and a
   * poll catches up. Once the peer is closed for good, polls go over REST at its origin.
   */
  peer?: MuxwsPeerSource;
  /** Follow over REST at this origin (default: the page's origin; required in Node without `peer`). */
  baseUrl?: string;
  /** Where to start: `'now'` (default) or a rev the server issued (the events after it are delivered, or `onResync`). */
  from?: 'now' | number;
  /** Each event, once, in rev order; awaited before the next event of the topic. */
  onEvent?(event: EventMessage<P>): void | Promise<void>;
}

/** A followed topic. */
export interface Follower {
  readonly topic: Topic;
  /** The rev of the last event delivered (or of the state after a resync); null until the first answer. */
  readonly cursor: number | null;
  /** The scope key of a scoped ViewSet topic, once known. */
  readonly scope?: string;
  readonly mode: FollowerMode;
  /**
   * Why the follower cannot reach the server now (its polls or its socket's subscribe fail: a
   * network error, a 5xx, an answer not understood); undefined once an answer came. The follower
   * goes on asking, with backoff.
   */
  readonly error: Error | undefined;
  /**
   * Resolves once the follower has heard the server (its first poll answered, or its subscribe
   * answered with nothing to catch up since its cursor) and has handed out what that answer
   * brought, also when it starts `from` a rev or a persisted cursor; rejects when it is refused
   * or closed first, or when its first poll fails (it goes on asking: `error` and `subscribe()`
   * tell when it gets through).
   */
  readonly ready: Promise<void>;
  /**
   * Polls now; resolves once that answer was handed out, rejects with the error when that poll
   * failed, and with the refusal (`error`) once the server refused the topic (`mode: 'refused'`).
   */
  catchUp(): Promise<void>;
  /** Stops following (for good): nothing is handed out after it. */
  close(): Promise<void>;
  /**
   * Calls `listener` once per batch after the mode, cursor, scope or error changed, with the
   * state consistent; returns its remover. A listener that throws is reported, nothing else.
   */
  subscribe(listener: (follower: Follower) => void): () => void;
}

/** The payload of a ViewSet's `records_changed` event: which records a write created, updated or deleted. */
export interface RecordsChanged<PK extends KeyType = KeyType> {
  op: 'created' | 'updated' | 'deleted';
  changes: { pk: PK }[];
}

/** The options of a proxy's `watch()`. */
export interface WatchOptions<PK extends KeyType = KeyType> extends FollowCallbacks {
  /** Each change of the proxy's topic, once, in order; awaited before the next. */
  onChange(change: RecordsChanged<PK>, event: EventMessage<RecordsChanged<PK>>): void | Promise<void>;
}
