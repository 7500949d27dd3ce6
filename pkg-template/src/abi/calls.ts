// Generated from src/abi.rs by `cargo test -p fastapi-viewsets abi`: do not edit.
// Change the Rust table, then run that command with ABI_WRITE=1 to write this file again.

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
  /** It is `Idempotency-Key`, in any letter case (replaced by the call's key). */
  KeyHeader = 1,
  /** axios sets it again on every request: the axios transport does not carry it. */
  SetAgainByAxios = 2,
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
   * @param end How it ended: an `EndCode` with its flags.
   * @param status The answer's status (0 when none came).
   * @param ok The answer succeeded (a status below 400).
   */
  settle(call: number, attempt: number, end: EndCode, status: number, ok: boolean): void;
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
      return h.settle(r[at + 1], r[at + 2], r[at + 3], r[at + 4], r[at + 5] === 1);
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
