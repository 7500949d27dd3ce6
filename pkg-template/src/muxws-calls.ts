/**
 * The runtime's transport over a muxws peer: what every attempt of a ViewSet call sends
 * (`prepareCall`), the stream of one attempt (`openAttempt`), and what its end means to the runtime
 * (`finishCall`: the answer with its `:status`, or the End code of its error).
 */
import type { AttemptHandle, CallParts, CallRecord, PushPeer, Transport } from './runtime.js';
import type { CallPending } from './muxws-stream.js';
import { EndCode } from './abi/calls.js';
import { ErrorClass } from './abi/muxws.js';
import {
  captureHeaders,
  closedForGood,
  describe,
  failAttempt,
  hasDetail,
  intercept,
  makeError,
  muxwsBody,
  refusedError,
  report,
  type Refusal,
} from './muxws-module.js';

/** What the call transport asks of its peer (`PeerCore`). */
export interface CallPeer extends PushPeer {
  /** Runs the open interceptors on `headers` (in place). */
  intercept(headers: Record<string, unknown>, payload: unknown): void;
  /** Opens a stream in the module: its tag, or what was refused; a call's attempt (`call`) is kept by its tag until it ends. */
  openStream(headers: string | null, payload: string, end: boolean, call: CallPending | null): number | Refusal;
  /** Resets the stream of `tag` with TIMEOUT. */
  expireStream(tag: number): void;
  /** Resets the stream of `tag` with CANCELLED. */
  cancelStream(tag: number): void;
  /** Skips a pending reconnect backoff and dials now. */
  reconnectNow(): void;
}

/** What every attempt of a ViewSet call over muxws sends (`CallRecord.send`). */
interface MuxwsSend {
  /** The first stream's headers before the open interceptors: `:method`, `:path`, `:query`, the call's, the key. */
  headers: Record<string, string>;
  /** The payload's JSON text. */
  payload: string;
  /** The body as the caller gave it (what open interceptors see). */
  value: unknown;
}

/** What every attempt of a ViewSet call over muxws sends, composed once when it is issued. */
function prepareCall(parts: CallParts): MuxwsSend {
  const payload = muxwsBody(parts.body, 'options.body') ?? 'null';
  const merged = intercept(parts);
  const headers: Record<string, string> = { ':method': parts.method, ':path': parts.path };
  if (parts.query) headers[':query'] = parts.query;
  for (const [name, [, value]] of merged) headers[name] = value;
  headers['idempotency-key'] = parts.keyField;
  return { headers, payload, value: parts.body };
}

/** The runtime's transport for the calls over `peer`, registered as `peerId`. */
export function callTransport(peerId: number, peer: CallPeer): Transport {
  return {
    peerId,
    name: 'muxws',
    prepare: prepareCall,
    openAttempt: (call, attempt, carried) => openAttempt(peer, call, attempt, carried as string | null),
    reconnectNow: () => peer.reconnectNow(),
    timeoutError: (message, props) => makeError(ErrorClass.StreamTimeout, message, props),
    pushPeer: () => Promise.resolve(peer),
  };
}

/** A stream header name: an HTTP token, or one after `:` (a pseudo-header). */
const STREAM_NAME = /^:?[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Printable ASCII and tab, what an ordinary header value may hold (pseudo-headers are not checked). */
const VALUE = /^[\t\x20-\x7e]*$/;

/**
 * A ViewSet call's stream headers as JSON: lower-case names, string values (`undefined`/`null`
 * left out). A value's `toString` or getter that throws ends the attempt with what it threw.
 */
function callHeaders(object: Record<string, unknown>): string {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(object)) {
    if (value === undefined || value === null) continue;
    if (!STREAM_NAME.test(name)) throw new TypeError(`the headers of a muxws stream: "${name}" is not a valid header name`);
    const text = typeof value === 'string' ? value : String(value);
    if (name[0] !== ':' && !VALUE.test(text)) {
      throw new TypeError(`the headers of a muxws stream: the value of "${name}" holds a character outside printable ASCII`);
    }
    out[name.toLowerCase()] = text;
  }
  return JSON.stringify(out);
}

/**
 * Opens the stream of attempt `attempt` of `call` on `peer` (or queues it in the module while
 * `callConcurrency` calls have one). The first attempt's headers go through the open
 * interceptors, with the call's key set again after them; repeats send exactly those headers.
 */
function openAttempt(peer: CallPeer, call: Readonly<CallRecord>, attempt: number, carried: string | null): AttemptHandle | null {
  if (peer.isClosed) {
    failAttempt(call.id, attempt, closedForGood(), EndCode.OpenConnectionClosed | EndCode.ClosedForGood);
    return null;
  }
  const send = call.send as MuxwsSend;
  let headers = carried;
  if (headers === null) {
    const object: Record<string, unknown> = { ...send.headers };
    peer.intercept(object, send.value);
    object['idempotency-key'] = call.keyField;
    headers = callHeaders(object);
    captureHeaders(call.id, attempt, headers);
  }
  const pending: CallPending = { kind: 'call', call, attempt, id: 0, headers: null, parts: [], payload: null, paid: 0 };
  const tag = peer.openStream(headers, send.payload, true, pending);
  if (typeof tag !== 'number') {
    failAttempt(call.id, attempt, refusedError(tag, { code: 9 }), endOf(tag.cls, false, peer.isClosed));
    return null;
  }
  return {
    abandon: (why) => {
      pending.call = null;
      if (why === 'timeout') peer.expireStream(tag);
      else peer.cancelStream(tag);
    },
  };
}

/**
 * A reply's `:status` as a number: none is 200; a number or a string of three digits (as 0.6 read
 * it) is that status when it is one (100–599); anything else -1.
 */
export function statusOf(value: unknown): number {
  if (value === undefined) return 200;
  const status = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599 ? status : -1;
}

/** How an attempt whose stream failed (`opened`) or could not be opened ended, by error class. */
function endOf(cls: number, opened: boolean, forGood: boolean): number {
  const flag = forGood ? EndCode.ClosedForGood : 0;
  if (cls === ErrorClass.StreamTimeout) return EndCode.StreamTimeout;
  if (cls === ErrorClass.ConnectionLost) return EndCode.ConnectionLost | flag;
  if (cls === ErrorClass.StreamRefused) return EndCode.StreamRefused | flag;
  if (!opened && cls === ErrorClass.ConnectionGoingAway) return EndCode.OpenGoingAway;
  if (!opened && cls === ErrorClass.ConnectionClosed) return EndCode.OpenConnectionClosed | EndCode.ClosedForGood;
  return EndCode.Other;
}

/**
 * The stream of a call's attempt on `peer` is over: normally (`error` null: the answer goes to the
 * runtime) or with `error` of class `cls`, after it `opened` or when it could not. Nothing once
 * the attempt was abandoned.
 */
export function finishCall(pending: CallPending, error: Error | null, cls: number, opened: boolean, peer: CallPeer): void {
  const { call, attempt } = pending;
  if (!call) return;
  if (error) return failAttempt(call.id, attempt, error, endOf(cls, opened, peer.isClosed));
  const headers = pending.headers ?? {};
  const status = statusOf(headers[':status']);
  if (status < 0) {
    return failAttempt(call.id, attempt, makeError(ErrorClass.ProtocolError, `the reply's :status ${describe(headers[':status'])} is not an HTTP status`));
  }
  const body = pending.paid ? pending.payload : null;
  report(call.id, attempt, EndCode.MuxwsReply | (hasDetail(body) ? EndCode.JsonDetail : 0), status, { kind: 'answer', status, body, headers: () => headers });
}
