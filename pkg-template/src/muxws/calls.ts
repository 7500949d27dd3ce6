/**
 * The runtime's transport over a muxws peer: what every attempt of a ViewSet call sends
 * (`prepareCall`), the stream of one attempt (`openAttempt`), and what its end means to the runtime
 * (`finishCall`: the answer with its `:status`, or the End code of its error).
 */
import type { AttemptHandle, CallParts, CallRecord, PushPeer, Transport } from '../vocabulary/call-types.js';
import type { CallPending } from './stream.js';
import { EndCode } from '../abi/calls.js';
import { ErrorClass, ResetCode } from '../abi/muxws.js';
import {
  closedForGood,
  makeError,
  type Refusal,
  refusedError,
  services,
} from './module.js';

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
  /** Resolves once the first connection is established, or (`restFallback`) the fallback started; rejects when the peer closed for good first. */
  readonly ready: Promise<unknown>;
}

/** What fetch's URL parser would percent-encode in a query (a query written into a call's path). */
const UNENCODED = /[^!-~]|["'<>]/;


/** What every attempt of a ViewSet call over muxws sends (`CallRecord.send`: the transport's own state of the call, never changed). */
interface MuxwsSend {
  /** The first stream's headers before the open interceptors: `:method`, `:path`, `:query`, the call's, the key. */
  headers: Record<string, string>;
  /** The payload's JSON text. */
  payload: string;
  /** The body as the caller gave it (what open interceptors see). */
  value: unknown;
}

/**
 * A call's path as the backend reads it over REST, for `:path`, which it reads as sent: `fetch`'s URL
 * parser writes the path (dot segments resolved, spaces and non-ASCII escaped) and uvicorn decodes
 * its escapes (`unquote`), so `/items/caf%C3%A9` reaches the route of pk `café` and is fingerprinted
 * as `/items/café` on both transports (docs/transports.md). Escapes that are not UTF-8 stay as sent.
 */
function backendPath(path: string): string {
  // (a relative path is the backend's to refuse, as sent)
  if (path[0] !== '/') return path;
  const sent = new URL(`http://h${path}`).pathname;
  try {
    return decodeURIComponent(sent);
  } catch {
    return sent;
  }
}

/** What every attempt of a ViewSet call over muxws sends, composed once when it is issued. */
function prepareCall(parts: CallParts): MuxwsSend {
  const payload = services.muxwsBody(parts.body, 'options.body') ?? 'null';
  const merged = services.intercept(parts);
  const headers: Record<string, string> = { ':method': parts.method, ':path': backendPath(parts.path) };
  // The query as fetch sends it, so that both transports send one query string.
  if (parts.query) headers[':query'] = UNENCODED.test(parts.query) ? new URL(`http://h/?${parts.query}`).search.slice(1) : parts.query;
  for (const [name, [, value]] of merged) headers[name] = value;
  headers['idempotency-key'] = parts.keyField;
  return { headers, payload, value: parts.body };
}

/** The runtime's transport for the calls over `peer`, registered as `peerId`. */
export function callTransport(peerId: number, peer: CallPeer): Transport<MuxwsSend, string> {
  return {
    peerId,
    /** The transport of the calls' attempts now: `'rest'` while they fall back. */
    get name() {
      return peer.restBase === undefined ? 'muxws' : 'rest';
    },
    /** Settles once the calls can go out: the schema check waits for it. */
    get known() {
      return peer.ready;
    },
    prepare: prepareCall,
    openAttempt: (call, attempt, carried) => openAttempt(peer, call, attempt, carried),
    reconnectNow: () => peer.reconnectNow(),
    timeoutError: (message, props) => makeError(ErrorClass.StreamTimeout, message, props),
    pushPeer: () => Promise.resolve(peer),
  };
}


/**
 * A ViewSet call's stream headers as JSON: lower-case names, string values (`undefined`/`null`
 * left out). A value's `toString` or getter that throws ends the attempt with what it threw.
 */
function callHeaders(object: Record<string, unknown>): string {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(object)) {
    if (value === undefined || value === null) continue;
    // a stream header name: an HTTP token, or one after `:` (a pseudo-header), whose value is not checked
    if (!services.TOKEN.test(name[0] === ':' ? name.slice(1) : name)) throw new TypeError(`the headers of a muxws stream: "${name}" is not a valid header name`);
    const text = typeof value === 'string' ? value : String(value);
    if (name[0] !== ':' && !services.VALUE.test(text)) {
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
function openAttempt(peer: CallPeer, call: Readonly<CallRecord<MuxwsSend, string>>, attempt: number, carried: string | null): AttemptHandle | null {
  const rest = peer.restBase !== undefined && !peer.isOpen;
  if (peer.isClosed && !rest) {
    services.failAttempt(call.id, attempt, closedForGood(), EndCode.OpenConnectionClosed | EndCode.ClosedForGood);
    return null;
  }
  const { send } = call;
  let headers = carried;
  if (headers === null) {
    const object: Record<string, unknown> = { ...send.headers };
    peer.intercept(object, send.value);
    object['idempotency-key'] = call.keyField;
    headers = callHeaders(object);
    services.captureHeaders(call.id, attempt, headers);
  }
  if (rest) return restAttempt(peer.restBase!, call, attempt, headers, send.payload);
  const pending: CallPending = { kind: 'call', call, attempt, id: 0, headers: null, parts: [], payload: null, paid: 0 };
  const tag = peer.openStream(headers, send.payload, true, pending);
  if (typeof tag !== 'number') {
    services.failAttempt(call.id, attempt, refusedError(tag, { code: ResetCode.ConnectionClosed }), endOf(tag.cls, false, peer.isClosed));
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
  if (error) return services.failAttempt(call.id, attempt, error, endOf(cls, opened, peer.isClosed));
  const headers = pending.headers ?? {};
  const status = statusOf(headers[':status']);
  if (status < 0) {
    return services.failAttempt(call.id, attempt, makeError(ErrorClass.ProtocolError, `the reply's :status ${services.describe(headers[':status'])} is not an HTTP status`));
  }
  const body = pending.paid ? pending.payload : null;
  services.report(call.id, attempt, EndCode.MuxwsReply | (services.hasDetail(body) ? EndCode.JsonDetail : 0), status, { kind: 'answer', status, body, headers: () => headers });
}

/**
 * Attempt `attempt` of `call` over REST at `base` (the peer's fallback): the stream's headers but
 * the pseudo-headers (every attempt's: the first's, the key included), `:method`, `:path` and
 * `:query` as the request line, and the body as the backend hashes it over muxws
 * (`pythonJson`; a `null` payload is no body, as the server reads it).
 */
function restAttempt(base: string, call: Readonly<CallRecord>, attempt: number, stream: string, payload: string): AttemptHandle | null {
  const headers: Record<string, string> = {};
  const fields = JSON.parse(stream) as Record<string, string>;
  for (const name in fields) if (name[0] !== ':') headers[name] = fields[name];
  const body = payload === 'null' ? null : services.pythonJson(payload);
  if (body !== null) headers['content-type'] ??= 'application/json';
  const query = fields[':query'];
  // `:path` is decoded (backendPath): what fetch would read as a query, a fragment, an escape or a
  // separator is escaped again, so that the backend decodes it to the same path
  const url = base + fields[':path'].replace(/[%?#\\]/g, encodeURIComponent) + (query ? `?${query}` : '');
  const send = { url, headers, typed: true, body: { init: body, contentType: null, pending: null, form: null } };
  return services.restTransport.openAttempt(Object.create(call, { send: { value: send } }) as Parameters<typeof services.restTransport.openAttempt>[0], attempt, null);
}
