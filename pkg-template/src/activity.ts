/**
 * Call activity: what a busy indicator and a connectivity notice bind to. Every call issued through
 * any proxy, REST or muxws, is reported.
 */
import type { CallActivityEvent } from './vocabulary/call-types.js';
import { addListener } from './runtime.js';

// The events' types are the vocabulary's (vocabulary/call-types.ts), where the runtime builds them.
export type {
  CallActivityEvent,
  CallRetryEvent,
  CallSettleEvent,
  CallStartEvent,
  CallWaitEvent,
  PendingCall,
  WaitReason,
} from './vocabulary/call-types.js';

/** Calls `listener` with every activity event; returns the function that stops it. A listener that throws is reported on the console and harms nothing. */
export function onCallActivity(listener: (event: CallActivityEvent) => void): () => void {
  if (typeof listener !== 'function') throw new TypeError('onCallActivity(listener) takes a function');
  return addListener(listener);
}

// The other three are the runtime's own functions, exported as they are (their documentation is
// there): a wrapper here would only add a call and its bytes.
export { pendingCalls, pendingCallCount, retryNow } from './runtime.js';
