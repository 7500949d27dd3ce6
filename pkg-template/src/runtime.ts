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
import type { CallActivityEvent, CallRecord, CallObserver, CallScope, Outcome, PendingCall, Transport, ViewSetCall } from './vocabulary/call-types.js';
import type { DevTap } from './vocabulary/devtools.js';
import {
  AttemptTimeoutError,
  CallCancelled,
  HttpError,
  NetworkError,
  ViewSetError,
  type ErrorProps,
} from './errors.js';

/**
 * The devtools' tap (vocabulary/devtools.ts): set only by the devtools subpath's development entry
 * (`internalDevtools.tap()`), undefined in every other app.
 */
export let devTap: DevTap | undefined;

/** Sets the devtools' tap (undefined: none). */
export function setDevTap(tap: DevTap | undefined): void {
  devTap = tap;
}

/**
 * Cancels the unsettled call with `key`, as its caller's `AbortSignal` would (the devtools'
 * "cancel"): it rejects with `CallCancelled`.
 */
export function cancelCall(key: string): void {
  for (const call of state.calls.values()) if (call.key === key) engine.call_cancel(call.id, now());
  pump();
}

/** The observers of the page's calls (a Set: told in the order they were added). */
const observers = new Set<CallObserver>();

/**
 * The resolver of the request scope the caller runs in, installed by a server integration (the
 * `/ssr` subpath, backed by `AsyncLocalStorage`): each request then sees only its own calls, and
 * what is issued outside every request is the page's (the process's). Never set in a browser,
 * where the page is the one scope: every use below is a branch on it, which a bundler drops from
 * an app that does not import the subpath (the REST-only app ships not one byte of scopes).
 */
export let resolver: (() => CallScope | undefined) | undefined;

/** Installs `resolve` as the request scope's resolver. The package exports it as `internalScopeResolver`. */
export function setScopeResolver(resolve: () => CallScope | undefined): void {
  resolver = resolve;
}

/** The events of a batch that belong to a request scope, with it (told to its listeners, not the page's). */
const owners = new WeakMap<CallActivityEvent, CallScope>();

/** Adds `observer`, told of every call issued and settled (in the caller's request scope, if any) from now on; returns its remover. */
export function observeCalls(observer: CallObserver): () => void {
  const set = (resolver && resolver()?.observers) || observers;
  set.add(observer);
  return () => void set.delete(observer);
}

/** The calls not settled yet (of the caller's request scope, if any; each record as the runtime holds it): a live list opened shows its pending writes. */
export function openCalls(): Iterable<CallRecord> {
  const mine = resolver && resolver();
  return resolver ? [...state.calls.values()].filter((call) => call.scope === mine) : state.calls.values();
}

/** Tells the observers about a call; one that fails harms neither the call nor the others. */
function tellObserver(call: CallRecord, what: 'issued' | 'settled'): void {
  for (const observer of (resolver && call.scope?.observers) || observers) {
    try {
      observer[what](call);
    } catch (error) {
      warn('a call observer failed', error);
    }
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
  readonly events: CallActivityEvent[];
  /** The activity listeners. */
  readonly listeners: Set<(event: CallActivityEvent) => void>;
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
/** The listeners are being told the events (only the outermost `notify()` delivers). */
let delivering = false;

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
  if (resolver) call.scope = resolver();
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
    // the devtools' "lose the next answer": the answer thrown away, the attempt ends without one
    const lost = devTap?.ended(call, attempt, end, status, outcome);
    if (lost) (end = EndCode.NetworkError), (status = 0), (outcome = lost);
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

/**
 * Tells the listeners the events of the batches just performed, with the runtime's state
 * consistent. Only the outermost call delivers: the events of a call a listener issues (its pump
 * returns here) are told once every listener has had the batch being delivered, as TanStack's
 * `notifyManager` flushes at the outermost batch only.
 */
function notify(): void {
  if (delivering) return;
  delivering = true;
  // a for-of over the array goes on to the events pushed while it runs; a listener's throw is caught
  for (const event of state.events) {
    for (const listener of [...((resolver && owners.get(event)?.listeners) || state.listeners)]) {
      try {
        listener(event);
      } catch (error) {
        warn('an onCallActivity listener threw', error);
      }
    }
  }
  state.events.length = 0;
  delivering = false;
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
  activity: queueActivity,
};

function sendAttempt(id: number, attempt: number, carry: boolean): void {
  const call = state.calls.get(id);
  if (!call) return;
  call.attempts = attempt;
  devTap?.sent(call, attempt);
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
    // the body's detail, else the reason phrase of the status where the transport gives one
    // (`answered 500: Internal Server Error`): a page (a proxy's HTML) is never the message, it stays in `body`
    const detail = apiBody(outcome.body)?.detail;
    const message = `${call.method} ${call.path} answered ${outcome.status}: ${typeof detail === 'string' ? detail : outcome.reason || `HTTP ${outcome.status}`}`;
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
function queueActivity(id: number, type: ActivityType, count: number, ended: number, delayMs: number, waitsForReconnect: boolean, ok: boolean, at: number): void {
  if (!resolver && state.listeners.size === 0) return;
  const call = state.calls.get(id);
  if (!call || (resolver && ((call.scope ?? state).listeners.size === 0))) return;
  const base = {
    key: call.key,
    method: call.method,
    path: call.path,
    transport: call.transport.name,
    background: call.background,
    at,
    ...(call.resumed && { resumed: true as const }),
  };
  const queued = state.events.push(
    type === ActivityType.Retry ? { type: 'retry', ...base, attempt: count, ended: ENDED[ended], delayMs, waitsForReconnect }
    : type === ActivityType.Settle ? { type: 'settle', ...base, ok, attempts: count, ended: ENDED[ended] }
    : type === ActivityType.Wait ? { type: 'wait', ...base, reason: WAIT_REASONS[count] }
    : { type: 'start', ...base },
  );
  if (resolver && call.scope) owners.set(state.events[queued - 1], call.scope);
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
export function addListener(listener: (event: CallActivityEvent) => void): () => void {
  const entry = (event: CallActivityEvent): void => listener(event);
  const scoped = resolver && resolver();
  (scoped || state).listeners.add(entry);
  return () => {
    (scoped || state).listeners.delete(entry);
  };
}

/** The calls that have not settled (of the caller's request scope, if any), oldest first. */
export function pendingCalls(): PendingCall[] {
  const mine = resolver && resolver();
  const count = engine.pending_fill();
  const list = records(engine.pending_records(), count, Layout.PendingFields);
  const out: PendingCall[] = [];
  for (let at = 0; at < list.length; at += Layout.PendingFields) {
    readPending(list, at, (id, issuedAt, unansweredAttempts, nextAttemptAt, flags, reason) => {
      const call = state.calls.get(id);
      if (!call || (resolver && call.scope !== mine)) return;
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

/** How many calls have not settled (of the caller's request scope, if any), background calls left out. */
export function pendingCallCount(): number {
  if (resolver) {
    const mine = resolver();
    let count = 0;
    for (const call of state.calls.values()) if (call.scope === mine && !call.background) count++;
    return count;
  }
  return engine.pending_count();
}

/**
 * Sends every waiting repeat at once (the "try again now" button); a muxws repeat waiting for a
 * reconnect makes its peer reconnect now. With `key`, the waiting repeat of the call with that key
 * alone, under that key. Returns how many waiting repeats went: 0 when none waited, and for a key
 * that names no waiting call (settled, in flight, unknown), which does nothing. An argument that is
 * not a string (the event a click handler passes) counts as none: every waiting repeat goes.
 */
export function retryNow(key?: string): number {
  let id = 0;
  if (typeof key == 'string') {
    id = -1; // no call's id (ids start at 1; 0 is every call)
    for (const call of state.calls.values()) if (call.key === key) id = call.id;
  }
  const sent = engine.retry_now(id, now());
  pump();
  return sent;
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
    listeners: ((resolver && resolver()?.listeners) || state.listeners).size,
    timerArmed: engine.next_timeout() >= 0,
    peers: state.livePeers,
    callsMemoryBytes: memoryBytes(),
  };
  for (const provider of moreStats) Object.assign(figures, provider());
  return figures;
}
