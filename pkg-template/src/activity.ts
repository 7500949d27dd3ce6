/**
 * Call activity: what a busy indicator and a connectivity notice bind to. Every call issued through
 * any proxy, REST or muxws, is reported.
 */
import * as runtime from './runtime.js';
import type { PendingCall, WaitReason } from './runtime.js';

/** Fields every activity event carries. */
interface ActivityBase {
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

export type { PendingCall, WaitReason } from './runtime.js';

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

/** Calls `listener` with every activity event; returns the function that stops it. A listener that throws is reported on the console and harms nothing. */
export function onCallActivity(listener: (event: CallActivityEvent) => void): () => void {
  if (typeof listener !== 'function') throw new TypeError('onCallActivity(listener) takes a function');
  return runtime.addListener(listener as unknown as (event: Record<string, unknown>) => void);
}

// The other three are the runtime's own functions, exported as they are (their documentation is
// there): a wrapper here would only add a call and its bytes.
export { pendingCalls, pendingCallCount, retryNow } from './runtime.js';
