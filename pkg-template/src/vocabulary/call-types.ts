/**
 * The vocabulary of calls, below the runtime: what a proxy composes (`CallParts`, `CallRequest`),
 * what a transport is (`Transport<S>`, keeping `S` of each call) and returns (`AttemptHandle`), what
 * an attempt produced (`Outcome`), the record the runtime keeps of each call (`CallRecord`), what a
 * persisted call stores, and what call activity and `pendingCalls()` report. Types only: a file
 * that needs only these imports nothing that runs.
 */
import type { ABANDON_WHY, WAIT_REASONS } from '../abi/calls.js';
import type { ErrorProps } from '../errors.js';
import type { HeaderList } from '../headers.js';

/** What an attempt produced, kept until the call settles with it. */
export type Outcome =
  | {
      kind: 'answer';
      status: number;
      body: unknown;
      /** The answer's headers, lower-case names (muxws pseudo-headers such as `:status` may be among them: they are left out of errors). */
      headers: () => Record<string, unknown>;
      /** The status line's reason phrase, where the transport has one (HTTP/1.1's `statusText`). */
      reason?: string;
    }
  | { kind: 'failure'; error: unknown };

/** A call as a proxy composed it, before its transport prepares what it sends. */
export interface CallParts {
  /** Upper-case HTTP method. */
  method: string;
  /** The absolute path, `basePath` included. */
  path: string;
  /** The encoded query (without `?`), `''` when none. */
  query: string;
  /** The REST URL, query included. */
  url: string;
  /** The proxy's and the call's headers, the key set (a fresh list the transport may keep). */
  headers: HeaderList;
  /** The call's key as the header's Structured Field string. */
  keyField: string;
  /** The body as the caller gave it. */
  body: unknown;
  /** The proxy's request interceptors (REST). */
  interceptors: readonly ((request: never) => unknown)[];
}

/**
 * How a transport sends the attempts of the calls that travel through it. `S` is what it keeps
 * of each call (`CallRecord.send`): made by its `prepare()` once, read by its own `openAttempt()`
 * and `stored()`, never read or changed by the runtime. `C` is what its first attempt went out
 * with, as it told `captureHeaders()`, which the runtime hands back to each repeat.
 */
export interface Transport<S = unknown, C = unknown> {
  /** 0 for REST; the peer's id (from `registerPeer`) for a muxws peer. */
  readonly peerId: number;
  /** `'rest'` or `'muxws'`, as activity events and `pendingCalls()` name it. */
  readonly name: 'rest' | 'muxws';
  /**
   * Prepares what every attempt of a call sends (`CallRecord.send`), once, in the caller's
   * synchronous part; throws a TypeError for what it cannot send.
   */
  prepare(parts: CallParts): S;
  /**
   * Sends attempt `attempt` of `call`. `carried` is null for the first attempt, or the headers the
   * first attempt went out with (what the transport reported with `captureHeaders()`). Reports the
   * attempt's end later with `report()`. Returns what abandons the attempt, which the transport
   * owns (null when the attempt ended already). A throw ends the attempt as an "other error" with
   * the thrown value.
   */
  openAttempt(call: Readonly<CallRecord<S, C>>, attempt: number, carried: C | null): AttemptHandle | null;
  /** `retryNow()` while calls wait for this peer: reconnect now (a muxws peer; REST has nothing to do). */
  reconnectNow?(): void;
  /**
   * A muxws peer's transport: settles once its calls can go out (a lazy peer's once a call has made
   * the peer known, and then each) — the peer's first connection up, or its REST fallback started;
   * rejects when the peer closed for good first. The schema check waits for it.
   */
  known?: Promise<unknown>;
  /**
   * The error a call rejects with when its last attempt's own timeout ended it (muxws:
   * `StreamTimeout`); without it, an `AttemptTimeoutError`. Keeps the muxws error classes out of
   * an app that sends over REST only.
   */
  timeoutError?(message: string, props: ErrorProps): unknown;
  /**
   * What a persisted call sends, in a form IndexedDB can store, as the call is issued (`now`); a
   * transport without it does not persist calls. A FormData body is read into bytes later: `now`
   * holds its entries, and `later` what the call sends once the bytes are read, resolving in the
   * task that sends the first attempt (which waits for the same bytes).
   */
  stored?(call: CallRecord<S, C>): { now: StoredSend; later: Promise<StoredSend> | null };
  /**
   * A muxws peer's push side, for a follower that subscribes (resolves once a lazy peer is
   * known); REST has none.
   */
  pushPeer?(): Promise<PushPeer>;
}

/** What a follower asks of a muxws peer to follow topics by push (`PeerCore`). */
export interface PushPeer {
  /** True while a connection is established. */
  readonly isOpen: boolean;
  /** True once the peer will never dial again. */
  readonly isClosed: boolean;
  /** Resolves once the first connection is established (a lazy peer's later); rejects when it failed for good. */
  readonly connected: Promise<unknown>;
  /** The URL the peer dials (ws:// or wss://). */
  readonly url: string;
  /** Adds a push handler, `handler(payload, stream)` (a `MuxwsStream`: its `headers`); returns its remover. */
  onStream(handler: (payload: unknown, stream: object) => unknown): () => void;
  /** Adds a listener of each re-established connection; returns its remover. */
  onReconnect(listener: () => unknown): () => void;
  /** Adds a listener of each socket loss; returns its remover. */
  onClose(listener: () => unknown): () => void;
  /**
   * The REST origin the peer's calls go to while they fall back (`restFallback`: the socket cannot
   * be had); undefined while they go over the socket, and always without `restFallback`.
   */
  readonly restBase: string | undefined;
  /**
   * Adds a listener called as the fallback starts (`restBase`, a string) and ends (undefined, once a
   * socket is up again: `onReconnect`, or for a peer that never connected before, nothing else);
   * returns its remover.
   */
  onFallback(listener: (restBase: string | undefined) => unknown): () => void;
}

/** An attempt under way, as its transport returns it. */
export interface AttemptHandle {
  /** Abandons the attempt: aborts its request, cancels its stream. */
  abandon(why: AbandonReason): void;
}

/** Why the engine abandons an attempt. */
export type AbandonReason = (typeof ABANDON_WHY)[number];

/** What a persisted call sends, as IndexedDB stores it. */
export interface StoredSend {
  /** The headers as pairs. */
  headers: [string, string][];
  /** The body: a string, Blob or bytes; null for none, or while a FormData is stored as `form`. */
  body: string | Blob | ArrayBuffer | ArrayBufferView | null;
  /** A FormData body's entries, until its bytes are read (no attempt has gone out before they are). */
  form: [string, FormDataEntryValue][] | null;
}

/** What a proxy composed for one call, as the runtime keeps it. */
export interface CallRequest {
  /** The call's Idempotency-Key, unquoted (`ViewSetCall.key`). */
  key: string;
  /** The key as the header's Structured Field string. */
  keyField: string;
  /** Upper-case HTTP method. */
  method: string;
  /** The absolute path, `basePath` included (muxws `:path`, activity `path`). */
  path: string;
  /** The encoded query (without `?`), `''` when none. */
  query: string;
  /** The body as the caller gave it (never sent from here: `send` is what goes out), read by who observes calls: live lists. */
  readonly body: unknown;
  /** Left out by a busy indicator. */
  background: boolean;
  /** The `basePath` of the proxy the call was issued through. */
  basePath: string;
  /** Stored until it settles, to be resumed after a reload (`persist`, see persist.ts). */
  persist: boolean;
  /** Headers never stored with a persisted call (lower case; credentials always). */
  persistExclude: readonly string[];
  /** Resumed after a reload by `resumeCalls()`, first issued at `issuedAt`. */
  resumed?: { issuedAt: number };
  /** The repeat policy and attempt timeout, in ms. */
  withinMs: number;
  delayMs: number;
  attemptTimeoutMs: number;
  /** `repeat.jitter`, 0…1, and the random seed of this call's jitter. */
  jitter: number;
  jitterSeed: number;
}

/** One unsettled call, sent by a transport that keeps `S` of it and carries `C` from its first attempt to its repeats. */
export interface CallRecord<S = unknown, C = unknown> extends CallRequest {
  /** The engine's id of the call (set by `issue`). */
  id: number;
  readonly transport: Transport<S, C>;
  /** What its transport's `prepare()` made (REST: URL, headers, body; muxws: stream headers, payload): the transport's alone. */
  readonly send: S;
  /** What the first attempt went out with (its transport's `captureHeaders()`), carried by repeats. */
  carried: C | null;
  /** The number of the latest attempt sent. */
  attempts: number;
  /** The latest attempt's outcome, with the attempt that produced it. */
  outcome: { attempt: number; value: Outcome } | null;
  /**
   * The attempt out now and what abandons it (its transport's handle). The runtime calls it when
   * the engine abandons that attempt.
   */
  inflight: { attempt: number; handle: AttemptHandle } | null;
  /** The call's promise, as its caller holds it (set by `issue`: absent only before). */
  promise?: Promise<unknown>;
  /** The functions of the call's promise (set by `issue`). */
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  /** Removes the listener on the caller's `AbortSignal`. */
  unwatch: (() => void) | null;
  /** The scope the call was issued in (set by `issue`): who may see it. */
  scope?: CallScope;
}

/**
 * What one scope sees of the calls: its own. A page has one scope; on a server a request has its
 * own (the `/ssr` subpath installs a resolver backed by `AsyncLocalStorage`), so no request sees
 * another's calls, activity or pending writes.
 */
export interface CallScope {
  /** Its activity listeners (`onCallActivity`). */
  readonly listeners: Set<(event: CallActivityEvent) => void>;
  /** Its call observers: open live lists (their own writes), the store of persisted calls. */
  readonly observers: Set<CallObserver>;
  /** Headers every call issued in it sends beneath the proxy's and the call's (a request's, on a server). */
  readonly headers?: HeaderList;
}

/** A `Promise<R>` with the call's Idempotency-Key, readable before the call settles. */
export type ViewSetCall<R> = Promise<R> & { readonly key: string };

/**
 * Who is told of every call as it is issued (in its task, its record complete) and as it settles:
 * the store of persisted calls (persist.ts) and each open live list (its own writes), each added
 * with the runtime's `observeCalls`. Only an app that resumes calls or shows a live list has one.
 */
export interface CallObserver {
  /** A call was issued (its record complete, its promise set). */
  issued(call: CallRecord): void;
  /** A call settled. */
  settled(call: CallRecord): void;
}

/** Why a call waits: an attempt is out, a repeat's delay, its muxws peer's reconnect, or the platform being offline. */
export type WaitReason = (typeof WAIT_REASONS)[number];

/** A call that has not settled, as `pendingCalls()` lists it. */
export interface PendingCall {
  key: string;
  method: string;
  path: string;
  transport: 'rest' | 'muxws';
  /** When it was issued (ms since the epoch). */
  issuedAt: number;
  /** How many of its attempts went unanswered. */
  unansweredAttempts: number;
  background: boolean;
  /** When its next attempt is due (ms since the epoch) while a repeat waits for its delay; `null` otherwise. */
  nextAttemptAt: number | null;
  /** Its repeat waits for its muxws peer to reconnect. */
  waitingForReconnect: boolean;
  /**
   * Why it waits: `'in-flight'` (an attempt is out), `'delay'` (its repeat's delay: `nextAttemptAt`),
   * `'reconnect'` (its muxws peer), `'offline'` (the platform; it goes at once when back online).
   */
  waitingFor: WaitReason;
  /** Sent again by `resumeCalls()` after a reload (`issuedAt` is then its first issue time). */
  resumed: boolean;
}


/** Fields every activity event carries. */
export interface ActivityBase {
  /** The call's Idempotency-Key (equal to its `ViewSetCall.key`). */
  key: string;
  /** HTTP method. */
  method: string;
  /** The path called, `basePath` included. */
  path: string;
  /** How the call travels. */
  transport: 'rest' | 'muxws';
  /** A call a busy indicator leaves out. */
  background: boolean;
  /** When the event happened (ms since the epoch). */
  at: number;
  /** `true` for a call `resumeCalls()` sent again after a reload; absent otherwise. */
  resumed?: true;
}

/** A call was issued. */
export interface CallStartEvent extends ActivityBase {
  type: 'start';
}

/** An attempt went unanswered and the call will be repeated. */
export interface CallRetryEvent extends ActivityBase {
  type: 'retry';
  /** The number of the attempt that went unanswered (1 for the first). */
  attempt: number;
  /** How that attempt ended: `network-error`, `timeout`, `gateway-status`, `stream-timeout`, `connection-lost`, … */
  ended: string;
  /** The delay before the repeat (ms); 0 for at once. */
  delayMs: number;
  /** The repeat also waits for its muxws peer to reconnect. */
  waitsForReconnect: boolean;
}

/** The call's promise settled. */
export interface CallSettleEvent extends ActivityBase {
  type: 'settle';
  /** Fulfilled (`true`) or rejected. */
  ok: boolean;
  /** How many attempts the call made. */
  attempts: number;
  /** How its last attempt ended. */
  ended: string;
}

/**
 * A call's repeat started waiting for the platform to be online (`reason: 'offline'`), or that
 * wait ended (`'in-flight'`: the repeat goes out; `'reconnect'`: it still waits for its muxws peer).
 * Only where the platform reports online/offline (browsers).
 */
export interface CallWaitEvent extends ActivityBase {
  type: 'wait';
  reason: WaitReason;
}

/** What `onCallActivity` listeners receive. */
export type CallActivityEvent = CallStartEvent | CallRetryEvent | CallSettleEvent | CallWaitEvent;
