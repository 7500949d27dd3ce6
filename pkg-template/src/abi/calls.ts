// Generated from src/abi.rs and src/lib.rs by `cargo test -p fastapi-viewsets abi`: do not edit.
// Change the Rust table, then run that command with ABI_WRITE=1 to write this file again.

/** The calls module's exports (`exports!` in `src/lib.rs`): functions of numbers, called on the instance. */
export interface CallsExports {
  /** The module's memory, where its windows and records are. */
  readonly memory: WebAssembly.Memory;
  /**
   * The text window: strings cross the boundary here as bytes, written and read by JavaScript
   * through a view of the module's memory (no glue per string). Both sides write ASCII only
   * (JavaScript describes a key's first non-ASCII character separately, see [`key_field`]). Returns where it starts, with room for at least `len` bytes; its contents are
   * kept.
   *
   * `fn scratch(len: u32) -> u32`
   */
  scratch(len: number): number;
  /**
   * A new key: the version 4 UUID of 16 random bytes given as four little-endian `u32`s (JavaScript
   * draws them from a pooled `crypto.getRandomValues()`), written to the text window as its
   * Structured Field string (the UUID in double quotes: the key is what is between them); returns
   * its length. One crossing gives a call both forms of its key.
   *
   * `fn key_generate(a: u32, b: u32, c: u32, d: u32) -> u32`
   */
  key_generate(a: number, b: number, c: number, d: number): number;
  /**
   * The key given by the caller as the value of the `Idempotency-Key` header (a Structured Field
   * string), written to the text window; returns its length. JavaScript writes the ASCII characters
   * of the key before its first non-ASCII one (`len` bytes) and passes that character's position
   * (counted in characters) and code point in `bad_index`/`bad_code` (`bad_index` −1: none). A key
   * that is not acceptable returns why: −1 empty, −2 − i the character at position i is not
   * printable ASCII (the TS runtime words the TypeError).
   *
   * `fn key_field(len: u32, bad_index: i32, bad_code: u32) -> i32`
   */
  key_field(len: number, badIndex: number, badCode: number): number;
  /**
   * The header rules for the (ASCII) name in the text window (`len` bytes), as
   * [`abi::header_rule`] bits: `SET_AGAIN_BY_AXIOS`, axios sets it again on every request (the
   * axios transport does not carry it). A name with other characters has none.
   *
   * `fn header_rule(len: u32) -> u32`
   */
  header_rule(len: number): number;
  /**
   * Issues a call and returns its id (≥ 1). `peer` 0 is REST, any other value the muxws peer the
   * call travels through; `within_ms`/`delay_ms`/`jitter_fraction` are its repeat policy
   * (`jitter_fraction` is `repeat.jitter`, 0…1: below 0 or NaN is 0, above 1 is 1), `attempt_timeout_ms` the
   * timeout of one attempt (0: none), `jitter_seed` a random number drawn for the call (its jitter's
   * seed).
   *
   * `fn call_issue(peer: u32, within_ms: f64, delay_ms: f64, attempt_timeout_ms: f64, background: u32, now: f64, jitter_fraction: f64, jitter_seed: u32) -> u32`
   */
  call_issue(peer: number, withinMs: number, delayMs: number, attemptTimeoutMs: number, background: number, now: number, jitterFraction: number, jitterSeed: number): number;
  /**
   * The first attempt's headers are known to the runtime: repeats of `call` carry them.
   *
   * `fn call_headers_captured(call: u32, attempt: u32)`
   */
  call_headers_captured(call: number, attempt: number): void;
  /**
   * Attempt `attempt` of `call` ended: `end` and `status` as in docs/boundary.md; `retry_after_ms`
   * the answer's `Retry-After` in milliseconds from now (negative or NaN: none).
   *
   * `fn call_attempt_ended(call: u32, attempt: u32, end: u32, status: u32, now: f64, retry_after_ms: f64)`
   */
  call_attempt_ended(call: number, attempt: number, end: number, status: number, now: number, retryAfterMs: number): void;
  /**
   * The caller cancelled `call`.
   *
   * `fn call_cancel(call: u32, now: f64)`
   */
  call_cancel(call: number, now: number): void;
  /**
   * News of a muxws peer: `state` an [`abi::peer_state`] code (an unknown one is "unavailable").
   *
   * `fn peer_state(peer: u32, state: u32, now: f64)`
   */
  peer_state(peer: number, state: number, now: number): void;
  /**
   * "Try again now": with `call` 0, every waiting repeat goes out at once; with a call's id, that
   * call's waiting repeat alone (an id that names no waiting call, such as one the runtime never
   * issued, does nothing). Returns how many waiting repeats went (or, over a muxws peer that is
   * away, wait for its reconnect alone): 0 or 1 for one call.
   *
   * `fn retry_now(call: u32, now: f64) -> u32`
   */
  retry_now(call: number, now: number): number;
  /**
   * The platform's `online`/`offline` news (`navigator.onLine`); the engine starts online.
   *
   * `fn set_online(online: u32, now: f64)`
   */
  set_online(online: number, now: number): void;
  /**
   * Runs the engine's timers due at `now`.
   *
   * `fn handle_timeout(now: f64)`
   */
  handle_timeout(now: number): void;
  /**
   * When the engine wants `handle_timeout` called next; -1 when nothing is timed.
   *
   * `fn next_timeout() -> f64`
   */
  next_timeout(): number;
  /**
   * Writes every queued action to the action records and returns how many there are.
   *
   * `fn drain_actions() -> u32`
   */
  drain_actions(): number;
  /**
   * Where the action records of the last [`drain_actions`] are, in linear memory.
   *
   * `fn action_records() -> u32`
   */
  action_records(): number;
  /**
   * How many calls have not settled, background calls left out.
   *
   * `fn pending_count() -> u32`
   */
  pending_count(): number;
  /**
   * Writes the unsettled calls, oldest first, to the pending records and returns how many.
   *
   * `fn pending_fill() -> u32`
   */
  pending_fill(): number;
  /**
   * Where the pending records of the last [`pending_fill`] are, in linear memory.
   *
   * `fn pending_records() -> u32`
   */
  pending_records(): number;
  /**
   * How many calls the engine holds state for (0 once every call settled): for leak checks.
   *
   * `fn live_calls() -> u32`
   */
  live_calls(): number;
  /**
   * The version of this module's exports and record layouts (docs/boundary.md), for tools that read
   * the module. The facade carries this module inside its own JS module (scripts/inline-wasm.mjs), so
   * the two always come from one build and the facade need not check it.
   *
   * The one export made through wasm-bindgen, which wasm-pack runs: the others are plain
   * `extern "C"` functions of numbers, which need no glue (the runtime calls them on the instance).
   *
   * `fn boundary_version() -> u32`
   */
  boundary_version(): number;
}

/** How many `f64` fields a record of the calls module has. */
export const enum Layout {
  /** An action record (`drain_actions`). */
  ActionFields = 8,
  /** A pending-call record (`pending_fill`). */
  PendingFields = 6,
}

/** The defaults of the seed's option table, in ms (the engine's own). */
export const enum Defaults {
  /** `repeat.withinMs`. */
  WithinMs = 600000,
  /** `repeat.delayMs`. */
  DelayMs = 1000,
  /** The longest delay before a repeat. */
  MaxDelayMs = 30000,
  /** `attemptTimeoutMs`. */
  AttemptTimeoutMs = 30000,
}

/** How an attempt ended: the runtime's `end` code (the low byte), with flags above it. */
export const enum EndCode {
  /** An HTTP answer (REST): `status` is its status. */
  HttpAnswer = 0,
  /** The request failed without an answer (fetch rejected, axios without a response). */
  NetworkError = 1,
  /** The attempt's own timeout (`attemptTimeoutMs`) ended it. */
  AttemptTimeout = 2,
  /** The caller's `AbortSignal` ended it (or axios cancelled it). */
  Cancelled = 3,
  /** A muxws reply: `status` is its `:status`. */
  MuxwsReply = 4,
  /** The stream failed with `StreamTimeout`. */
  StreamTimeout = 5,
  /** The stream failed with `ConnectionLost`. */
  ConnectionLost = 6,
  /** The stream failed with `StreamRefused`. */
  StreamRefused = 7,
  /** `open()` threw `ConnectionClosed`: the peer is between sockets. */
  OpenConnectionClosed = 8,
  /** `open()` threw `ConnectionGoingAway`: its connection drains after a goaway. */
  OpenGoingAway = 9,
  /** Any other error: it settles the call. */
  Other = 10,
  /** The low byte: the code; the flags are above it. */
  Mask = 255,
  /** Flag: the body is a JSON object holding `detail`. */
  JsonDetail = 0x100,
  /** Flag: the muxws peer has closed for good. */
  ClosedForGood = 0x200,
}

/** Why the engine abandons an attempt (an abandon record's `why`). */
export const enum AbandonWhy {
  /** The attempt's own timeout. */
  Timeout = 0,
  /** A repeat supersedes it. */
  Superseded = 1,
  /** The caller cancelled the call. */
  Cancelled = 2,
}

/** The type of an activity record. */
export const enum ActivityType {
  /** `start`: the call was issued. */
  Start = 0,
  /** `retry`: an attempt ended without an answer and is repeated. */
  Retry = 1,
  /** `settle`: the call's promise settled. */
  Settle = 2,
  /** `wait`: why the call waits changed to or from `offline` (the reason in `count`). */
  Wait = 3,
}

/** The flags of a pending-call record. */
export const enum PendingFlag {
  /** A background call. */
  Background = 1,
  /** Its repeat waits for its muxws peer to reconnect. */
  WaitsForReconnect = 2,
  /** It travels over muxws. */
  Muxws = 4,
}

/** What `header_rule` says of a header name (bits). */
export const enum HeaderRule {
  /** axios sets it again on every request: the axios transport does not carry it. */
  SetAgainByAxios = 1,
}

/** A muxws peer's news (`peer_state`). */
export const enum PeerState {
  /** Between sockets, or draining after a goaway: its calls' repeats wait. */
  Unavailable = 0,
  /** Connected: waiting repeats go. */
  Available = 1,
  /** Closed for good: its calls' waits end. */
  ClosedForGood = 2,
}

/** `AbandonWhy` codes by name, as a transport's `abandon(why)` takes them. */
export const ABANDON_WHY = ['timeout', 'superseded', 'cancelled'] as const;

/** `ActivityType` codes by name, as activity events' `type`. */
export const ACTIVITY_TYPES = ['start', 'retry', 'settle', 'wait'] as const;

/** How an attempt ended, by code, as activity events' `ended` name it. */
export const ENDED = ['answered', 'gateway-status', 'network-error', 'timeout', 'cancelled', 'stream-timeout', 'connection-lost', 'stream-refused', 'connection-closed', 'going-away', 'error'] as const;

/** Why a call waits, by code, as `pendingCalls()` and `wait` events name it. */
export const WAIT_REASONS = ['in-flight', 'delay', 'reconnect', 'offline'] as const;

/** The kinds of EngineAction records (field 0). */
export const enum EngineActionKind {
  /** Send attempt `attempt` of `call`. */
  SendAttempt = 1,
  /** Abandon attempt `attempt` of `call` (abort its request, cancel its stream). */
  AbandonAttempt = 2,
  /** Settle `call` with the outcome of its last attempt. */
  Settle = 3,
  /** Reconnect muxws peer `peer` now (`retryNow()` while calls wait for it). */
  ReconnectNow = 4,
  /** A call-activity event. */
  Activity = 5,
}

/** What the engine asks the runtime to do (`drain_actions`), one record each. */
export interface EngineActionHandler {
  /**
   * Send attempt `attempt` of `call`.
   * @param call The call's id.
   * @param attempt The attempt's number (1 for the first).
   * @param carry Send it with the headers captured from the first attempt.
   */
  sendAttempt(call: number, attempt: number, carry: boolean): void;
  /**
   * Abandon attempt `attempt` of `call` (abort its request, cancel its stream).
   * @param call The call's id.
   * @param attempt The attempt's number.
   * @param why Why: an `AbandonWhy` code.
   */
  abandonAttempt(call: number, attempt: number, why: AbandonWhy): void;
  /**
   * Settle `call` with the outcome of its last attempt.
   * @param call The call's id.
   * @param attempt The last attempt's number.
   * @param end How it ended: an `EndCode` with its flags (the answer's status is the runtime's, kept with the attempt's outcome).
   * @param ok The answer succeeded (a status below 400).
   */
  settle(call: number, attempt: number, end: EndCode, ok: boolean): void;
  /**
   * Reconnect muxws peer `peer` now (`retryNow()` while calls wait for it).
   * @param peer The peer's id.
   */
  reconnectNow(peer: number): void;
  /**
   * A call-activity event.
   * @param call The call's id.
   * @param type The event's `ActivityType`.
   * @param count `retry`: the attempt that ended; `settle`: how many attempts were made; `wait`: the `WAIT_REASONS` code.
   * @param ended `retry` and `settle`: how the attempt ended, an `ENDED` code.
   * @param delayMs `retry`: the delay before the repeat, in ms.
   * @param waitsForReconnect `retry`: the repeat waits for its muxws peer to reconnect (bit 1 of field 6).
   * @param ok `settle`: the call succeeded (bit 2 of field 6).
   * @param at When it happened (ms, the runtime's clock).
   */
  activity(call: number, type: ActivityType, count: number, ended: number, delayMs: number, waitsForReconnect: boolean, ok: boolean, at: number): void;
}

/** Calls the method of `h` for the EngineAction record at `at` of `r` (its kind at `r[at]`); nothing for a kind the table does not have. */
export function handleEngineAction(r: ArrayLike<number>, at: number, h: EngineActionHandler): void {
  switch (r[at]) {
    case 1:
      return h.sendAttempt(r[at + 1], r[at + 2], r[at + 3] === 1);
    case 2:
      return h.abandonAttempt(r[at + 1], r[at + 2], r[at + 3]);
    case 3:
      return h.settle(r[at + 1], r[at + 2], r[at + 3], r[at + 4] === 1);
    case 4:
      return h.reconnectNow(r[at + 1]);
    case 5:
      return h.activity(r[at + 1], r[at + 2], r[at + 3], r[at + 4], r[at + 5], (r[at + 6] & 1) !== 0, (r[at + 6] & 2) !== 0, r[at + 7]);
  }
}

/**
 * A call that has not settled, as `pendingCalls()` lists it (a record without a kind: its
 * fields start at 0).
 * @param call The call's id.
 * @param issuedAt When it was issued (ms, the runtime's clock).
 * @param unansweredAttempts How many of its attempts went unanswered.
 * @param nextAttemptAt When its next attempt is due while a repeat waits for its delay; null otherwise.
 * @param flags `PendingFlag`s.
 * @param reason Why it waits: a `WAIT_REASONS` code.
 */
export type PendingReader<T> = (call: number, issuedAt: number, unansweredAttempts: number, nextAttemptAt: number | null, flags: number, reason: number) => T;

/** Calls `f` with the fields of the Pending record at `at` of `r`, and returns what it returns. */
export function readPending<T>(r: ArrayLike<number>, at: number, f: PendingReader<T>): T {
  return f(r[at + 0], r[at + 1], r[at + 2], r[at + 3] === r[at + 3] ? r[at + 3] : null, r[at + 4], r[at + 5]);
}
