/**
 * The call runtime: one per page, for every proxy and transport. The engine in the calls module
 * decides (attempts, repeats, deadlines, settling, activity); this file keeps what is JavaScript
 * about each call (its key, request, promise, signal, the last attempt's outcome), performs the
 * engine's actions with the transports, settles promises and tells the activity listeners.
 *
 * Every action is performed in its own `try`: an exception from user code or the platform ends at
 * most the call it belongs to. The pumping state is restored in `finally`.
 */
import {
  ABANDON_WHY,
  ACTIVITY_TYPES,
  ActivityType,
  EndCode,
  ENDED,
  handleEngineAction,
  Layout,
  PendingFlag,
  PeerState,
  readPending,
  WAIT_REASONS,
  type EngineActionHandler,
} from './abi/calls.js';
import { actionRecords, engine, memoryBytes, records } from './calls.js';
import { now } from './clock.js';
import { online } from './online.js';
import { wakeup } from './timer.js';
import { apiBody, describe, internalsOf } from './caller.js';
import type { HeaderList } from './headers.js';
import {
  AttemptTimeoutError,
  CallCancelled,
  HttpError,
  NetworkError,
  ViewSetError,
  type ErrorProps,
} from './errors.js';

/** What an attempt produced, kept until the call settles with it. */
export type Outcome =
  | {
      kind: 'answer';
      status: number;
      body: unknown;
      /** The answer's headers, lower-case names (muxws pseudo-headers such as `:status` may be among them: they are left out of errors). */
      headers: () => Record<string, unknown>;
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

/** How a transport sends the attempts of the calls that travel through it. */
export interface Transport {
  /** 0 for REST; the peer's id (from `registerPeer`) for a muxws peer. */
  readonly peerId: number;
  /** `'rest'` or `'muxws'`, as activity events and `pendingCalls()` name it. */
  readonly name: 'rest' | 'muxws';
  /**
   * Prepares what every attempt of a call sends (`CallRecord.send`), once, in the caller's
   * synchronous part; throws a TypeError for what it cannot send.
   */
  prepare(parts: CallParts): unknown;
  /**
   * Sends attempt `attempt` of `call`. `carried` is null for the first attempt, or the headers the
   * first attempt went out with (what the transport reported with `captureHeaders()`). Reports the
   * attempt's end later with `report()`. Returns what abandons the attempt, which the transport
   * owns (null when the attempt ended already). A throw ends the attempt as an "other error" with
   * the thrown value.
   */
  openAttempt(call: Readonly<CallRecord>, attempt: number, carried: unknown): AttemptHandle | null;
  /** `retryNow()` while calls wait for this peer: reconnect now (a muxws peer; REST has nothing to do). */
  reconnectNow?(): void;
  /** A lazy muxws peer's transport: settles once a call has made the peer known (the schema check waits for it). */
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
  stored?(call: CallRecord): { now: StoredSend; later: Promise<StoredSend> | null };
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
  /** What the transport needs to send it (REST: URL, headers, body; muxws: stream headers, payload). */
  send: unknown;
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

/** One unsettled call. */
export interface CallRecord extends CallRequest {
  /** The engine's id of the call (set by `issue`). */
  id: number;
  readonly transport: Transport;
  /** What the first attempt went out with (its transport's `captureHeaders()`), carried by repeats. */
  carried: unknown;
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
}

/** A `Promise<R>` with the call's Idempotency-Key, readable before the call settles. */
export type ViewSetCall<R> = Promise<R> & { readonly key: string };

/**
 * Who is told of every call as it is issued (in its task) and as it settles: the store of persisted
 * calls (persist.ts) and the live lists' own writes (live/), each installed with `observeCalls`
 * and calling on the one installed before it. Only an app that resumes calls or shows a live list
 * links one in.
 */
export interface CallObserver {
  /** A call was issued (its record complete, its promise set). */
  issued(call: CallRecord): void;
  /** A call settled. */
  settled(call: CallRecord): void;
}

let observer: CallObserver | null = null;

/** Installs the observer `make` returns, given the one installed before (null: none), which it calls on. */
export function observeCalls(make: (before: CallObserver | null) => CallObserver): void {
  observer = make(observer);
}

/** The calls not settled yet (each record as the runtime holds it): a live list opened shows its pending writes. */
export function openCalls(): IterableIterator<CallRecord> {
  return state.calls.values();
}

/** Tells the observer, if any, about a call; an observer that fails harms no call. */
function tellObserver(call: CallRecord, what: 'issued' | 'settled'): void {
  if (!observer) return;
  try {
    observer[what](call);
  } catch (error) {
    warn('a call observer failed', error);
  }
}

/**
 * What the runtime holds, in one object: the page's, made as the package is imported, or one a
 * test makes afresh (`freshRuntime()`). The call observers (persisted calls, live lists) and the stats providers are
 * the package's set-up, not the runtime's state, and stay.
 */
interface RuntimeState {
  /** The calls not settled yet, by the engine's id. */
  readonly calls: Map<number, CallRecord>;
  /** Calls settled in the current batch: kept in `calls` until it ends, for the events it holds. */
  readonly settled: number[];
  /** The activity events of the current batch, told to the listeners once it is done. */
  readonly events: Record<string, unknown>[];
  /** The activity listeners. */
  readonly listeners: Set<(event: Record<string, unknown>) => void>;
  /** The transports of the registered muxws peers, by the objects a proxy's `peer` option may be. */
  readonly peers: WeakMap<object, Transport>;
  /** Registered peers not gone for good (for leak counts). */
  livePeers: number;
  /** The pump is performing actions (only the outermost call drains). */
  pumping: boolean;
}

/** A runtime state with nothing in it. */
function emptyState(): RuntimeState {
  return { calls: new Map(), settled: [], events: [], listeners: new Set(), peers: new WeakMap(), livePeers: 0, pumping: false };
}

/** The runtime's state (replaced only by `freshRuntime()`). */
let state = emptyState();
/** The last peer id given out: never given twice, a runtime made afresh included. */
let peerCount = 0;

/** A promise with `key` defined on it, read-only and enumerable. */
export function withKey<R>(promise: Promise<R>, key: string): ViewSetCall<R> {
  Object.defineProperty(promise, 'key', { value: key, enumerable: true });
  return promise as ViewSetCall<R>;
}

/**
 * Issues `call`, as compose.ts made it (every field there but `promise`; `id` and the promise's
 * functions still to be set): returns its `ViewSetCall` and starts attempt 1.
 */
export function issue<R>(call: CallRecord, signal: AbortSignal | null): ViewSetCall<R> {
  const promise = new Promise<R>((yes, no) => {
    call.resolve = yes as (value: unknown) => void;
    call.reject = no;
  });
  const id = engine.call_issue(
    call.transport.peerId,
    call.withinMs,
    call.delayMs,
    call.attemptTimeoutMs,
    call.background ? 1 : 0,
    now(),
    call.jitter,
    call.jitterSeed,
  );
  call.id = id;
  call.promise = promise;
  state.calls.set(id, call);
  tellObserver(call, 'issued');
  if (signal) watchSignal(call, signal);
  pump();
  return withKey(promise, call.key);
}

function watchSignal(call: CallRecord, signal: AbortSignal): void {
  if (signal.aborted) {
    engine.call_cancel(call.id, now());
    return;
  }
  const onAbort = (): void => {
    engine.call_cancel(call.id, now());
    pump();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  call.unwatch = () => signal.removeEventListener('abort', onAbort);
}

/**
 * Reports how attempt `attempt` of call `id` ended (`end` an `End` code with its flags);
 * `retryAfterMs` the answer's `Retry-After` in ms from now (-1: none), which the engine applies to
 * a repeated gateway status.
 */
export function report(id: number, attempt: number, end: number, status: number, outcome: Outcome, retryAfterMs = -1): void {
  const call = state.calls.get(id);
  if (call) {
    if (call.inflight?.attempt === attempt) call.inflight = null;
    call.outcome = { attempt, value: outcome };
  }
  engine.call_attempt_ended(id, attempt, end, status, now(), retryAfterMs);
  pump();
}

/**
 * The headers attempt `attempt` of call `id` went out with, known only once it was under way (the
 * axios transport learns them after the instance's interceptors): repeats carry them. The first
 * report counts.
 */
export function captureHeaders(id: number, attempt: number, headers: unknown): void {
  const call = state.calls.get(id);
  if (!call || call.carried != null) return;
  call.carried = headers;
  engine.call_headers_captured(id, attempt);
}

/**
 * What call `id` sends, as a transport prepared it after the call was issued (a lazy muxws peer's
 * call, once the peer is known): its attempts send this from now on.
 */
export function prepared(id: number, send: unknown): void {
  const call = state.calls.get(id);
  if (call) call.send = send;
}

/** A muxws peer's news (between sockets or after a goaway, available, closed for good). */
export function peerState(peerId: number, news: PeerState): void {
  engine.peer_state(peerId, news, now());
  pump();
}

/**
 * Registers a muxws peer's transport; `handles` are the objects a proxy's `peer` option may be
 * (the public peer and its core). Returns the peer's id.
 */
export function registerPeer(makeTransport: (peerId: number) => Transport, ...handles: object[]): Transport {
  const transport = makeTransport(++peerCount);
  for (const handle of handles) state.peers.set(handle, transport);
  state.livePeers++;
  return transport;
}

/** A registered peer is gone for good (for leak counts). */
export function unregisterPeer(): void {
  state.livePeers = Math.max(0, state.livePeers - 1);
}

/** The transport of a registered muxws peer (or of a wrapper of one, such as Vue state), or undefined. */
export function transportOfPeer(value: unknown): Transport | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const core = internalsOf<object>(value);
  return state.peers.get(value) ?? (core ? state.peers.get(core) : undefined);
}

// ------------------------------------------------------------------------------------- pump

/**
 * Performs the engine's actions until it has none. Only the outermost call drains: a call made
 * while actions are performed (a listener issuing a call, a transport reporting at once) returns,
 * and the loop below picks up what it queued.
 */
export function pump(): void {
  if (state.pumping) return;
  state.pumping = true;
  try {
    for (let count = engine.drain_actions(); count > 0; count = engine.drain_actions()) {
      const batch = actionRecords(engine.action_records(), count);
      for (let at = 0; at < count * Layout.ActionFields; at += Layout.ActionFields) perform(batch, at);
    }
  } finally {
    state.pumping = false;
    for (const id of state.settled.splice(0)) state.calls.delete(id);
  }
  rearm();
  notify();
}

/** Tells the listeners the events of the batches just performed, with the runtime's state consistent. */
function notify(): void {
  for (const event of state.events.splice(0)) {
    for (const listener of [...state.listeners]) {
      try {
        listener(event);
      } catch (error) {
        warn('an onCallActivity listener threw', error);
      }
    }
  }
}

/** Performs the action record at `at` of `batch`; what fails ends at most its own call. */
function perform(batch: Float64Array, at: number): void {
  try {
    handleEngineAction(batch, at, actions);
  } catch (error) {
    warn('an internal step failed', error);
  }
}

/** What the runtime does with each of the engine's actions. */
const actions: EngineActionHandler = {
  sendAttempt(id, attempt, carry) {
    try {
      sendAttempt(id, attempt, carry);
    } catch (error) {
      // A send that fails ends its attempt with that error.
      failAttempt(id, attempt, error);
    }
  },
  abandonAttempt: abandon,
  settle(id, attempt, end, ok) {
    try {
      settle(id, attempt, end, ok);
    } catch (error) {
      // A settle that fails (making its error from a hostile answer) rejects the call with it,
      // which the engine has already let go of.
      state.calls.get(id)?.reject(error);
    }
  },
  reconnectNow,
  activity: record,
};

function sendAttempt(id: number, attempt: number, carry: boolean): void {
  const call = state.calls.get(id);
  if (!call) return;
  call.attempts = attempt;
  const handle = call.transport.openAttempt(call, attempt, carry ? call.carried : null);
  // An attempt its transport ended already (it reported at once) has nothing to abandon.
  if (handle && call.outcome?.attempt !== attempt) call.inflight = { attempt, handle };
}

/**
 * Reports that attempt `attempt` of call `id` ended with `error` (`report()` with a failure):
 * `end` an "other error" (it settles the call) unless told otherwise, `status` 0 unless an answer
 * came with it.
 */
export function failAttempt(id: number, attempt: number, error: unknown, end: number = EndCode.Other, status = 0, retryAfterMs = -1): void {
  report(id, attempt, end, status, { kind: 'failure', error }, retryAfterMs);
}

/** Abandons attempt `attempt` of call `id` through its transport's handle, if it is still out. */
function abandon(id: number, attempt: number, why: number): void {
  const call = state.calls.get(id);
  const inflight = call?.inflight;
  if (!call || inflight?.attempt !== attempt) return;
  call.inflight = null;
  inflight.handle.abandon(ABANDON_WHY[why] ?? 'superseded');
}

function reconnectNow(peerId: number): void {
  for (const call of state.calls.values()) {
    if (call.transport.peerId === peerId) return call.transport.reconnectNow?.();
  }
}

function settle(id: number, attempt: number, end: number, ok: boolean): void {
  const call = state.calls.get(id);
  if (!call) return;
  state.settled.push(id);
  tellObserver(call, 'settled');
  try {
    call.unwatch?.();
  } catch {
    // a platform signal that throws on removal changes nothing about the call
  }
  const kind = end & EndCode.Mask;
  // A cancellation or the attempt's own timeout is the outcome, whatever the abandoned attempt's
  // transport reported on its way out.
  const own = kind === EndCode.Cancelled || kind === EndCode.AttemptTimeout ? null : call.outcome;
  const outcome = own && own.attempt === attempt ? own.value : null;
  const props = { key: call.key, attempts: call.attempts };
  if (outcome?.kind === 'answer' && ok) return call.resolve(outcome.body);
  if (outcome?.kind === 'answer') {
    const detail = apiBody(outcome.body)?.detail;
    const message = `${call.method} ${call.path} answered ${outcome.status}: ${typeof detail === 'string' ? detail : `HTTP ${outcome.status}`}`;
    return call.reject(new HttpError(outcome.status, outcome.body, plainHeaders(outcome.headers()), message, props));
  }
  if (outcome?.kind === 'failure') return call.reject(withCallProps(outcome.error, props, call));
  if (kind === EndCode.AttemptTimeout || kind === EndCode.StreamTimeout) {
    const message = `${call.method} ${call.path} failed: its attempt timed out`;
    return call.reject(call.transport.timeoutError?.(message, props) ?? new AttemptTimeoutError(message, props));
  }
  const [Class, what] =
    kind === EndCode.Cancelled ? [CallCancelled, 'it was cancelled by the caller'] : [NetworkError, 'its attempt ended without an answer'];
  call.reject(new Class(`${call.method} ${call.path} failed: ${what}`, props));
}

/** An answer's headers as `HttpError` holds them: string values, muxws pseudo-headers (`:status`) left out. */
function plainHeaders(headers: Record<string, unknown>): Record<string, string> {
  const plain: Record<string, string> = {};
  // describe(): a server's value whose conversion throws ({"toString": 1}) is written, not thrown.
  for (const name in headers) if (name[0] !== ':') plain[name] = describe(headers[name]);
  return plain;
}

/**
 * `error` with the call's key and attempt count set on it; a value that cannot carry them (a
 * thrown string, a frozen object) is wrapped in a `ViewSetError` whose cause it is.
 */
function withCallProps(error: unknown, props: ErrorProps, call: CallRecord): unknown {
  if (error !== null && (typeof error === 'object' || typeof error === 'function') && Object.isExtensible(error)) {
    try {
      Object.assign(error, props);
      return error;
    } catch {
      // a setter that throws: wrap it below
    }
  }
  return new ViewSetError(`${call.method} ${call.path} failed: ${describe(error)}`, { ...props, cause: error });
}

// ------------------------------------------------------------------------------------- activity

/** Queues the event of an activity record, told to the listeners once the batch is done. */
function record(id: number, type: ActivityType, count: number, ended: number, delayMs: number, waitsForReconnect: boolean, ok: boolean, at: number): void {
  if (state.listeners.size === 0) return;
  const call = state.calls.get(id);
  if (!call) return;
  const event: Record<string, unknown> = {
    type: ACTIVITY_TYPES[type],
    key: call.key,
    method: call.method,
    path: call.path,
    transport: call.transport.name,
    background: call.background,
    at,
  };
  if (call.resumed) event.resumed = true;
  if (type === ActivityType.Retry) {
    event.attempt = count;
    event.ended = ENDED[ended];
    event.delayMs = delayMs;
    event.waitsForReconnect = waitsForReconnect;
  } else if (type === ActivityType.Settle) {
    event.ok = ok;
    event.attempts = count;
    event.ended = ENDED[ended];
  } else if (type === ActivityType.Wait) {
    event.reason = WAIT_REASONS[count];
  }
  state.events.push(event);
}

/** Reports a failure nobody awaits on the console; a console that throws changes nothing. */
export function warn(message: string, detail: unknown): void {
  try {
    console.error(`[fastapi-viewsets] ${message}`, detail);
  } catch {
    // nothing else can be done with it
  }
}

/** Adds an activity listener; returns the function that removes it. */
export function addListener(listener: (event: Record<string, unknown>) => void): () => void {
  const entry = (event: Record<string, unknown>): void => listener(event);
  state.listeners.add(entry);
  return () => {
    state.listeners.delete(entry);
  };
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

/** The calls that have not settled, oldest first. */
export function pendingCalls(): PendingCall[] {
  const count = engine.pending_fill();
  const list = records(engine.pending_records(), count, Layout.PendingFields);
  const out: PendingCall[] = [];
  for (let at = 0; at < list.length; at += Layout.PendingFields) {
    readPending(list, at, (id, issuedAt, unansweredAttempts, nextAttemptAt, flags, reason) => {
      const call = state.calls.get(id);
      if (!call) return;
      out.push({
        key: call.key,
        method: call.method,
        path: call.path,
        transport: call.transport.name,
        issuedAt: call.resumed?.issuedAt ?? issuedAt,
        unansweredAttempts,
        background: (flags & PendingFlag.Background) !== 0,
        nextAttemptAt,
        waitingForReconnect: (flags & PendingFlag.WaitsForReconnect) !== 0,
        waitingFor: WAIT_REASONS[reason],
        resumed: Boolean(call.resumed),
      });
    });
  }
  return out;
}

/** How many calls have not settled, background calls left out. */
export function pendingCallCount(): number {
  return engine.pending_count();
}

/** Sends every waiting repeat at once (the "try again now" button); a muxws repeat waiting for a reconnect makes its peer reconnect now. */
export function retryNow(): void {
  engine.retry_now(now());
  pump();
}

// ------------------------------------------------------------------------------------- online


// ------------------------------------------------------------------------------------- timer

/** The engine's one platform timer. */
const timer = wakeup(() => {
  engine.handle_timeout(now());
  pump();
});

/** Sets the platform timer to the engine's next timeout. */
function rearm(): void {
  timer.set(engine.next_timeout());
}

/**
 * The engine follows the package's one online source: while offline, repeats wait without
 * spending attempts; online again, every waiting repeat goes at once. Where the platform cannot
 * say (Node) it is always online.
 */
online.subscribe((isOnline) => {
  engine.set_online(+isOnline, now());
  pump();
});

/**
 * Makes the runtime afresh, for tests: a new state (no calls, listeners or peers), and the engine
 * told to cancel every call of before, whose attempts are abandoned (a fetch aborted, a stream
 * reset). A call of before never settles (its promise stays pending: nothing a test left behind
 * rejects unhandled), and its late reports name no call of after (the engine's ids go on). A
 * muxws peer of before is no longer registered: close it first. The package exports it as
 * `internalFreshRuntime`.
 */
export function freshRuntime(): void {
  const before = state;
  state = emptyState();
  for (const [id, call] of before.calls) {
    engine.call_cancel(id, now());
    try {
      call.unwatch?.();
      call.inflight?.handle.abandon('cancelled');
    } catch (error) {
      warn('an attempt could not be abandoned', error);
    }
  }
  // the engine's actions for those calls name no call of the new state: none is performed
  pump();
  timer.clear();
}

/** What other modules add to `stats()` (the muxws module, once loaded: its memory). */
const moreStats: (() => Record<string, number | boolean>)[] = [];

/** Adds `provider`'s figures to `stats()`. */
export function addStats(provider: () => Record<string, number | boolean>): void {
  moreStats.push(provider);
}

/**
 * What the runtime holds right now (calls, listeners, timers, peers, memory): for leak checks in
 * tests and the memory figures of the benchmark. The package exports it as `internalStats`.
 */
export function stats(): Record<string, number | boolean> {
  const figures: Record<string, number | boolean> = {
    calls: state.calls.size,
    engineCalls: engine.live_calls(),
    listeners: state.listeners.size,
    timerArmed: engine.next_timeout() >= 0,
    peers: state.livePeers,
    callsMemoryBytes: memoryBytes(),
  };
  for (const provider of moreStats) Object.assign(figures, provider());
  return figures;
}
