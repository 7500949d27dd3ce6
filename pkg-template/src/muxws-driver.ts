/**
 * The muxws driver, loaded by `connectMuxws()` only (a dynamic import), so an app that uses REST
 * alone ships neither it nor the muxws module. It instantiates the muxws module
 * (`crates/muxws-wasm`: the protocol, by peer handle), drives the platform `WebSocket` for it, keeps
 * what is JavaScript about each stream (payload strings, promises, listeners), and is the runtime's
 * transport for the ViewSet calls over its peers (docs/boundary.md, "The muxws module").
 *
 * - Payloads stay JavaScript strings: made once by `JSON.stringify`, read by the module a window at
 *   a time (`TextEncoder.encodeInto` into its memory, by the reader below); answers in fragments are
 *   joined and parsed here, and the module is told whether they parsed.
 * - A socket message is written into the module's input window of the frame cap + 1 bytes, so one
 *   over the cap never enters its memory whole.
 * - What the module says comes out as one record of numbers and one text per `poll`, copied out
 *   before anything else runs. Frames go to the socket once per turn (a microtask), so the module's
 *   round-robin writer interleaves the streams opened in the same turn, and at most
 *   `FLUSH_BYTES` per task, so a long upload leaves room for what comes later.
 * - Every step runs in its own `try`: an exception from user code (listeners, interceptors, a
 *   value's `toString`) or from the platform (`new WebSocket`, `send`) ends at most the call or
 *   stream it belongs to; the pumping state is restored in `finally`.
 */
import type { ErrorProps } from './errors.js';
import type { DriverKit } from './muxws-kit.js';
import { compileWasm } from './wasm-loader.js';
import { EndCode, PeerState } from './abi/calls.js';
import { ErrorClass, handleMuxwsRecord, Layout, MuxwsRecordKind, type MuxwsRecordHandler } from './abi/muxws.js';
import type { AttemptHandle, CallParts, CallRecord, Transport } from './runtime.js';

/** The module's exports: plain functions of numbers (`crates/muxws-wasm/src/exports.rs`). */
interface MuxwsExports {
  readonly memory: WebAssembly.Memory;
  boundary_version(): number;
  input(size: number): number;
  out(): number;
  peer_new(
    pingIntervalMs: number,
    pingTimeoutMs: number,
    helloTimeoutMs: number,
    maxFrameBytes: number,
    maxPayloadBytes: number,
    initialDelayMs: number,
    factor: number,
    maxDelayMs: number,
    jitter: number,
    maxAttempts: number,
    callConcurrency: number,
    lazy: number,
    seed: number,
    protocolsLength: number,
    helloHeadersLength: number,
    helloPayloadLength: number,
  ): number;
  peer_free(peer: number): void;
  socket_opened(peer: number, socket: number, protocolLength: number, now: number): void;
  socket_message(peer: number, socket: number, length: number, whole: number, now: number): void;
  socket_binary(peer: number, socket: number, now: number): void;
  socket_closed(peer: number, socket: number, code: number, reasonLength: number, clean: number, now: number): void;
  timer(peer: number, now: number): void;
  next_timeout(peer: number): number;
  open(peer: number, headersLength: number, source: number, units: number, end: number, call: number, now: number): number;
  send(peer: number, tag: number, source: number, units: number, end: number): number;
  cancel(peer: number, tag: number, reasonLength: number): void;
  expire(peer: number, tag: number): void;
  checked(peer: number, tag: number, valid: number): void;
  close(peer: number, code: number, reasonLength: number, drainMs: number, now: number): void;
  reconnect_now(peer: number, now: number): number;
  is_open(peer: number): number;
  is_closed(peer: number): number;
  stream_id(peer: number, tag: number): number;
  stream_count(peer: number): number;
  poll(peer: number, now: number, sends: number): number;
}


/**
 * What the rest of the package lends the driver (`muxws-kit.ts`), taken out of the kit by position
 * (its order) by the first `connect`; each has the name it has in the package.
 */
let muxwsBody!: DriverKit[0];
let describe!: DriverKit[1];
let get!: DriverKit[2];
let errorClasses!: DriverKit[3];
let TransportUrlError!: DriverKit[4];
let hasDetail!: DriverKit[5];
let intercept!: DriverKit[6];
let addStats!: DriverKit[7];
let captureHeaders!: DriverKit[8];
let peerState!: DriverKit[9];
let registerPeer!: DriverKit[10];
let report!: DriverKit[11];
let unregisterPeer!: DriverKit[12];
let warn!: DriverKit[13];
let failAttempt!: DriverKit[14];
let now!: DriverKit[15];
let wakeup!: DriverKit[16];
/** The muxws module's exports, once instantiated. */
let mw!: MuxwsExports;
/** Where the module's output record lives in its memory. */
let outPointer = 0;
/** The module being loaded, or loaded; reset when loading fails, so a later `connect` tries again. */
let loading: Promise<void> | null = null;

/** Compiles and instantiates the muxws module once, with what the package lends the driver. */
function load(given: DriverKit): Promise<void> {
  loading ??= (async () => {
    [muxwsBody, describe, get, errorClasses, TransportUrlError, hasDetail, intercept, addStats, captureHeaders, peerState, registerPeer, report, unregisterPeer, warn, failAttempt, now, wakeup] = given;
    const module = await compileWasm(new URL('./wasm/muxws_bg.wasm', import.meta.url));
    const exports = new WebAssembly.Instance(module, { muxws: { read } }).exports as unknown as MuxwsExports;
    if (exports.boundary_version() !== Layout.BoundaryVersion) {
      throw new Error(`the muxws module speaks version ${exports.boundary_version()} of the boundary, its driver ${Layout.BoundaryVersion}: a stale cached .wasm?`);
    }
    mw = exports;
    outPointer = mw.out();
    followOnline();
    addStats(() => ({ muxwsMemoryBytes: mw.memory.buffer.byteLength, muxwsSources: sources.size }));
  })().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Payload strings by handle, until the module releases them. */
const sources = new Map<number, string>();
let lastSource = 0;

/**
 * The module's one import, the payload reader: writes the UTF-8 of `source` from UTF-16 unit
 * `from` on into `length` bytes at `pointer`; never throws.
 */
function read(source: number, from: number, pointer: number, length: number): number {
  try {
    const text = sources.get(source);
    return text === undefined ? 0 : encoder.encodeInto(text.substring(from, from + length), bytes(pointer, length)).written;
  } catch {
    return 0;
  }
}

function bytes(pointer: number, length: number): Uint8Array {
  return new Uint8Array(mw.memory.buffer, pointer, length);
}

/** A payload string for the module to read; its handle. */
function source(text: string): number {
  lastSource = (lastSource + 1) >>> 0 || 1;
  sources.set(lastSource, text);
  return lastSource;
}

/**
 * Writes `texts` one after another into the module's input window of `room` bytes; their byte
 * lengths (-1 for null) and whether the last one fit whole.
 */
function put(texts: (string | null)[], room: number): { lengths: number[]; whole: boolean } {
  const window = bytes(mw.input(room), room);
  let at = 0;
  let whole = true;
  const lengths = texts.map((text) => {
    if (text === null) return -1;
    const { read, written } = encoder.encodeInto(text, window.subarray(at));
    at += written;
    whole = read === text.length;
    return written;
  });
  return { lengths, whole };
}

/** Writes one short text (a reason, a subprotocol) into the input window; its byte length. */
function putShort(text: string): number {
  return put([text], text.length * 3 + 1).lengths[0];
}

let outView: Float64Array | null = null;

/** The output record (`Layout.OutFields` numbers: kind, five fields, text pointer, text length). */
function record(): Float64Array {
  if (outView === null || outView.buffer !== mw.memory.buffer) outView = new Float64Array(mw.memory.buffer, outPointer, Layout.OutFields);
  return outView;
}

/** The error an export that refused what it was given wrote into the record: its class and message. */
function refusal(): Error {
  const out = record();
  return makeError(out[Layout.FailureClass], textOf(0, out[Layout.TextLength]));
}

/** Bytes `from`..`to` of the current record's text. */
function textOf(from: number, to: number): string {
  return to > from ? decoder.decode(bytes(record()[Layout.TextAt] + from, to - from)) : '';
}

/** The error for the module's class code (`ErrorClass`): a protocol error for an unknown one. */
function makeError(cls: number, message: string, props?: ErrorProps): Error {
  if (cls === ErrorClass.Config) return new TypeError(message);
  return new (errorClasses[cls] ?? errorClasses[ErrorClass.ProtocolError])(message, props);
}

/**
 * A reply's `:status` as a number: none is 200; a number or a string of three digits (as 0.6 read
 * it) is that status when it is one (100–599); anything else -1.
 */
function statusOf(value: unknown): number {
  if (value === undefined) return 200;
  const status = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599 ? status : -1;
}

/** The options `connectMuxws` takes (muxws.ts: `ConnectOptions`). */
const CONNECT_OPTIONS = 'subprotocols hello helloHeaders helloTimeoutMs reconnect pingIntervalMs pingTimeoutMs maxPayloadBytes maxFrameBytes callConcurrency lazy onClose onReconnect openInterceptors'.split(' ');

/** The error a peer closed for good answers every open with. */
function closedForGood(): Error {
  return makeError(ErrorClass.ConnectionClosed, 'the muxws peer is closed for good', { code: 1000, wasClean: true });
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

/** Settle-able promise parts. */
interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

/**
 * A promise and its settling functions. An internal one (`quiet`) never reports a rejection nobody
 * awaits as unhandled; the promise of a `request()` is the caller's, and does.
 */
function deferred<T>(quiet = true): Deferred<T> {
  const parts = {} as Deferred<T>;
  parts.promise = new Promise<T>((resolve, reject) => {
    parts.resolve = resolve;
    parts.reject = reject;
  });
  if (quiet) parts.promise.catch(() => {});
  return parts;
}

/** What is JavaScript about one stream of a peer, by the module's tag. */
interface Pending {
  /** A ViewSet call's attempt; null once abandoned (its end is then nobody's news). */
  call?: CallRecord | null;
  attempt?: number;
  /** A `request()`. */
  request?: { done: Deferred<unknown>; withHeaders: boolean; timer: ReturnType<typeof setTimeout> | null };
  /** An `open()` stream. */
  stream?: StreamCore;
  /** The wire id. */
  id: number;
  headers: Record<string, unknown> | null;
  parts: string[];
  payload: unknown;
  /** How many payloads arrived (a `request()` takes exactly one: WSM-API-006). */
  paid: number;
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

/** `options[name]`: a non-negative whole number of at least `least`, or `fallback` when not given. */
function whole(options: unknown, name: string, fallback: number, least = 0): number {
  const value = get(options, name);
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative whole number`);
  if (value < least) throw new TypeError(`${name} must be at least ${least}`);
  return value;
}

/** `options[name]`: a number (Infinity allowed), or `fallback`. */
function number(options: unknown, name: string, fallback: number): number {
  const value = get(options, name);
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value)) throw new TypeError(`reconnect.${name} must be a number`);
  return value;
}

/** Listener options: a function or an array of functions. */
function functions(options: unknown, name: string): Listener[] {
  const value = get(options, name);
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  if (!list.every((f) => typeof f === 'function')) throw new TypeError(`${name} must be a function or an array of functions`);
  return list as Listener[];
}

/** `url` as a ws:// or wss:// URL: a relative one resolves against the page's origin (http → ws, https → wss). */
function socketUrl(url: unknown): string {
  if (typeof url !== 'string') throw new TypeError('connectMuxws(url): url must be a ws://, wss:// or relative URL string');
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    const page = (globalThis as { location?: { href?: string } }).location?.href;
    if (typeof page !== 'string' || !/^https?:/.test(page)) {
      throw new TypeError(`connectMuxws(url): the relative URL "${url}" needs a web page to resolve against; give a ws:// or wss:// URL`);
    }
    const resolved = new URL(url, page);
    resolved.protocol = resolved.protocol === 'https:' ? 'wss:' : 'ws:';
    return resolved.href;
  }
  if (!/^wss?:\/\//i.test(url)) throw new TransportUrlError(`muxws dials ws:// or wss:// URLs (or a path on the page's origin), not ${url}`);
  return url;
}

/** How long a flush may write before it lets other work in (bytes). */
const FLUSH_BYTES = 256 * 1024;

/** A stream from `MuxwsPeer.open()`, as the public `MuxwsStream` drives it. */
export class StreamCore {
  /** The stream id on its socket. */
  readonly id: number;
  readonly #peer: PeerCore;
  readonly #tag: number;
  readonly #headers = deferred<Record<string, unknown>>();
  readonly #result = deferred<unknown>();
  readonly #closed = deferred<void>();
  /** The error the stream failed with, once it did. */
  failure: unknown = undefined;
  #settled = false;

  /** @internal */
  constructor(peer: PeerCore, tag: number, id: number) {
    this.#peer = peer;
    this.#tag = tag;
    this.id = id;
  }

  /** The answering side's first-frame headers, or `{}` if the stream ended without any; never rejects. */
  replyHeaders(): Promise<Record<string, unknown>> {
    return this.#headers.promise;
  }

  /** The first payload, or the error the stream failed with. */
  result(): Promise<unknown> {
    return this.#result.promise;
  }

  /** Settles once the stream is over, however it ended; never rejects. */
  closed(): Promise<void> {
    return this.#closed.promise;
  }

  /** Sends `payload` (none when undefined), ending this side when `end`. */
  send(payload: unknown, end: boolean): void {
    this.#peer.sendOn(this, this.#tag, payload, end);
  }

  /** `reset(CANCELLED)` with `reason`, closed at once; nothing once over. */
  cancel(reason?: string): void {
    this.#peer.cancelStream(this.#tag, reason);
  }

  /** @internal */
  headersArrived(headers: Record<string, unknown>): void {
    this.#headers.resolve(headers);
  }

  /** @internal */
  payloadArrived(value: unknown): void {
    if (!this.#settled) {
      this.#settled = true;
      this.#result.resolve(value);
    }
  }

  /** @internal The stream is over: `error` when it failed. */
  over(error: unknown): void {
    if (!this.#settled) {
      this.#settled = true;
      this.#result.reject(error ?? makeError(ErrorClass.ProtocolError, 'the stream closed without a payload'));
    }
    if (error !== null) this.failure = error;
    this.#headers.resolve({});
    this.#closed.resolve();
  }
}

/** An `onClose` or `onReconnect` listener, an open interceptor. */
type Listener = (...args: any[]) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Adds `listener` to `listeners` in a wrapper of its own, so that one function added twice runs
 * twice and each remover removes its own; returns the remover. `what` names the method in errors.
 */
function addListener(listeners: Set<Listener>, listener: unknown, what: string): () => void {
  if (typeof listener !== 'function') throw new TypeError(`${what} takes a function`);
  const entry = (...args: unknown[]): unknown => listener(...args);
  listeners.add(entry);
  return () => void listeners.delete(entry);
}

/** Calls every listener of `listeners` with `args`; one that throws is reported on the console and harms nothing. */
function notify(listeners: Set<Listener>, which: 'onClose' | 'onReconnect', ...args: unknown[]): void {
  for (const listener of [...listeners]) {
    try {
      listener(...args);
    } catch (error) {
      warn(`a muxws ${which} listener threw; the peer and the other listeners go on`, error);
    }
  }
}

/** The options of `connectMuxws` this driver reads (see `ConnectOptions` in muxws.ts). */
type Options = Record<string, unknown>;

/** One muxws peer: the module's peer `handle`, its sockets, and its streams' JavaScript side. */
export class PeerCore {
  /** The public `MuxwsPeer` (what `onReconnect` listeners receive). */
  #facade: object = this;
  readonly #handle: number;
  readonly #url: string;
  readonly #cap: number;
  #peerId = 0;
  readonly #sockets = new Map<number, WebSocket>();
  readonly #pending = new Map<number, Pending>();
  readonly #onClose = new Set<Listener>();
  readonly #onReconnect = new Set<Listener>();
  readonly #interceptors = new Set<Listener>();
  #connecting: Deferred<object> | null = deferred<object>();
  #closing: (() => void)[] = [];
  #forGood = false;
  #freed = false;
  #pumping = false;
  #flushQueued = false;
  /** The platform timer of this peer's next timeout in the module. */
  readonly #wakeup = wakeup(() => this.#input(() => mw.timer(this.#handle, now())));

  /** @internal Made by `connect()`. */
  constructor(url: string, options: Options) {
    this.#url = url;
    const subprotocols = get(options, 'subprotocols') ?? [];
    if (!Array.isArray(subprotocols) || subprotocols.some((p) => typeof p !== 'string' || p === '' || p.includes(','))) {
      throw new TypeError('subprotocols must be an array of subprotocol tokens');
    }
    const reconnect = get(options, 'reconnect');
    if (reconnect !== undefined && reconnect !== false && (reconnect === null || typeof reconnect !== 'object')) {
      throw new TypeError('reconnect must be false or an object { initialDelayMs, factor, maxDelayMs, jitter, maxAttempts }');
    }
    const initial = number(reconnect, 'initialDelayMs', 250);
    const factor = number(reconnect, 'factor', 2);
    const maxDelay = number(reconnect, 'maxDelayMs', 30_000);
    const jitter = number(reconnect, 'jitter', 0.3);
    const attempts = reconnect === false ? 0 : number(reconnect, 'maxAttempts', Infinity);
    if (!(initial > 0 && Number.isFinite(initial))) throw new TypeError('reconnect.initialDelayMs must be a number greater than 0');
    if (!(factor >= 1 && Number.isFinite(factor))) throw new TypeError('reconnect.factor must be a finite number of at least 1');
    if (!(jitter >= 0 && jitter <= 1)) throw new TypeError('reconnect.jitter must be between 0 and 1');
    if (!(attempts >= 0)) throw new TypeError('reconnect.maxAttempts must be a number of at least 0');
    this.#cap = whole(options, 'maxFrameBytes', 65_536, 64);
    const maxPayload = whole(options, 'maxPayloadBytes', 67_108_864, 1);
    const concurrency = whole(options, 'callConcurrency', 100, 1);
    const lazy = get(options, 'lazy');
    if (lazy !== undefined && typeof lazy !== 'boolean') throw new TypeError('lazy must be a boolean');
    const hello = get(options, 'hello');
    const helloHeaders = get(options, 'helloHeaders');
    if (helloHeaders != null && typeof helloHeaders !== 'object') throw new TypeError('helloHeaders must be an object');
    for (const f of functions(options, 'onClose')) this.#onClose.add(f);
    for (const f of functions(options, 'onReconnect')) this.#onReconnect.add(f);
    // Each in a wrapper of its own, as interceptOpen() adds them: one given twice runs twice.
    for (const f of functions(options, 'openInterceptors')) this.#interceptors.add((...args) => f(...args));
    const withHello = hello !== undefined || helloHeaders != null;
    const texts = [
      subprotocols.join(','),
      helloHeaders != null ? JSON.stringify(helloHeaders) : null,
      withHello ? muxwsBody(hello, 'hello') ?? 'null' : null,
    ];
    const room = texts.reduce((sum, text) => sum + (text?.length ?? 0) * 3, 1);
    const { lengths } = put(texts, room);
    this.#handle = mw.peer_new(
      whole(options, 'pingIntervalMs', 20_000),
      whole(options, 'pingTimeoutMs', 10_000),
      whole(options, 'helloTimeoutMs', 10_000),
      this.#cap,
      maxPayload,
      initial,
      factor,
      maxDelay,
      jitter,
      attempts,
      concurrency,
      lazy === true ? 1 : 0,
      Math.random(),
      lengths[0],
      lengths[1],
      lengths[2],
    );
    if (this.#handle === 0) throw refusal();
  }

  /**
   * @internal Registers the peer with the runtime, `facade` (the public `MuxwsPeer`) and this core
   * being what a proxy's `peer` option may be, and starts dialling.
   */
  start(facade: object): void {
    this.#facade = facade;
    this.#peerId = registerPeer((peerId) => this.#makeTransport(peerId), facade, this).peerId;
    // Until the first connection the peer is not available: calls wait for it.
    peerState(this.#peerId, PeerState.Unavailable);
    livePeers.add(this);
    this.#pump();
  }

  /** Resolves once the first connection is established; rejects when it failed for good. */
  get connected(): Promise<object> {
    return this.#connecting?.promise ?? (this.#forGood ? Promise.reject(closedForGood()) : Promise.resolve(this.#facade));
  }

  /** True while a connection is established. */
  get isOpen(): boolean {
    return mw.is_open(this.#handle) !== 0;
  }

  /** True once the peer will never dial again. */
  get isClosed(): boolean {
    return this.#forGood || mw.is_closed(this.#handle) !== 0;
  }

  /** How many streams are waited on, calls waiting for a free stream included (for leak checks). */
  get streamCount(): number {
    return mw.stream_count(this.#handle);
  }

  // --------------------------------------------------------------------------------- the runtime's transport

  #makeTransport(peerId: number): Transport {
    return {
      peerId,
      name: 'muxws',
      prepare: prepareCall,
      openAttempt: (call, attempt, carried) => this.#openAttempt(call, attempt, carried as string | null),
      reconnectNow: () => this.reconnectNow(),
      timeoutError: (message, props) => makeError(ErrorClass.StreamTimeout, message, props),
    };
  }

  /**
   * Opens the stream of attempt `attempt` of `call` (or queues it in the module while
   * `callConcurrency` calls have one). The first attempt's headers go through the open
   * interceptors, with the call's key set again after them; repeats send exactly those headers.
   */
  #openAttempt(call: Readonly<CallRecord>, attempt: number, carried: string | null): AttemptHandle | null {
    if (this.isClosed) {
      failAttempt(call.id, attempt, closedForGood(), EndCode.OpenConnectionClosed | EndCode.ClosedForGood);
      return null;
    }
    const send = call.send as MuxwsSend;
    let headers = carried;
    if (headers === null) {
      const object: Record<string, unknown> = { ...send.headers };
      this.#intercept(object, send.value);
      object['idempotency-key'] = call.keyField;
      headers = callHeaders(object);
      captureHeaders(call.id, attempt, headers);
    }
    const tag = this.#open(headers, send.payload, true, true);
    if (tag <= 0) {
      const [cls, message] = lastError;
      failAttempt(call.id, attempt, makeError(cls, message, { code: 9 }), endOf(cls, false, this.isClosed));
      return null;
    }
    this.#pending.set(tag, { call, attempt, id: 0, headers: null, parts: [], payload: null, paid: 0 });
    return {
      abandon: (why) => {
        const pending = this.#pending.get(tag);
        if (pending) pending.call = null;
        if (why === 'timeout') mw.expire(this.#handle, tag);
        else mw.cancel(this.#handle, tag, -1);
        this.#pump();
      },
    };
  }

  /** Runs the open interceptors on `headers` (in place); one returning a promise is refused. */
  #intercept(headers: Record<string, unknown>, payload: unknown): void {
    for (const interceptor of [...this.#interceptors]) {
      const returned = interceptor(headers, payload) as { then?: unknown } | null | undefined;
      if (returned !== null && typeof returned === 'object' && typeof returned.then === 'function') {
        throw new TypeError('an open interceptor must be synchronous; it returned a promise');
      }
    }
  }

  /**
   * Opens a stream in the module; its tag, or ≤ 0 with `lastError` set (-1: headers over the
   * frame cap, nothing asked of the module).
   */
  #open(headers: string | null, payload: string, end: boolean, call: boolean): number {
    let length = -1;
    if (headers !== null) {
      const written = put([headers], Math.min(headers.length * 3, this.#cap) + 1);
      if (!written.whole) {
        lastError = [ErrorClass.ProtocolError, 'the stream headers are longer than the frame cap; headers are never fragmented'];
        return -1;
      }
      length = written.lengths[0];
    }
    const tag = mw.open(this.#handle, length, source(payload), payload.length, end ? 1 : 0, call ? 1 : 0, now());
    if (tag === 0) {
      const out = record();
      lastError = [out[Layout.FailureClass], textOf(0, out[Layout.TextLength])];
    }
    this.#pump();
    return tag;
  }

  // --------------------------------------------------------------------------------- direct streams

  /** The headers and payload of a direct open or request, after the open interceptors. */
  #direct(payload: unknown, options: unknown, end: boolean): number {
    if (this.isClosed) throw closedForGood();
    if (options !== undefined && (options === null || typeof options !== 'object')) throw new TypeError('options must be an object');
    const given = get(options, 'headers');
    if (given != null && typeof given !== 'object') throw new TypeError('options.headers must be an object');
    const headers: Record<string, unknown> = { ...(given as object | undefined) };
    this.#intercept(headers, payload);
    const text = given != null || Object.keys(headers).length > 0 ? JSON.stringify(headers) : null;
    const body = muxwsBody(payload, 'the payload') ?? 'null';
    const tag = this.#open(text, body, end, false);
    if (tag <= 0) throw makeError(lastError[0], lastError[1], { code: 9 });
    return tag;
  }

  /** `open(payload, {headers, end = true})`: a stream at once; throws `ConnectionLost`, `ConnectionGoingAway`, `ConnectionClosed`. */
  open(payload: unknown, options: unknown): StreamCore {
    const tag = this.#direct(payload, options, get(options, 'end') !== false);
    const stream = new StreamCore(this, tag, mw.stream_id(this.#handle, tag));
    this.#pending.set(tag, { stream, id: stream.id, headers: null, parts: [], payload: null, paid: 0 });
    return stream;
  }

  /** A unary request: the reply's payload, or `{headers, payload}` when `withHeaders`. */
  request(payload: unknown, options: unknown, withHeaders: boolean): Promise<unknown> {
    try {
      const timeoutMs = whole(options, 'timeoutMs', 0);
      const tag = this.#direct(payload, options, true);
      const done = deferred<unknown>(false);
      const request = { done, withHeaders, timer: null as ReturnType<typeof setTimeout> | null };
      this.#pending.set(tag, { request, id: mw.stream_id(this.#handle, tag), headers: null, parts: [], payload: null, paid: 0 });
      if (timeoutMs > 0) {
        request.timer = setTimeout(() => {
          mw.expire(this.#handle, tag);
          this.#pump();
        }, timeoutMs);
      }
      return done.promise;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** @internal `stream.send()`. */
  sendOn(stream: StreamCore, tag: number, payload: unknown, end: boolean): void {
    const text = payload === undefined ? null : muxwsBody(payload, 'the payload');
    const cls = mw.send(this.#handle, tag, text === null ? 0 : source(text), text?.length ?? 0, end ? 1 : 0);
    const error = cls === 0 ? null : refusal();
    this.#pump();
    if (error === null) return;
    // A stream that failed throws its own error; one that closed normally, StreamClosed.
    if (cls === ErrorClass.StreamClosed && stream.failure !== undefined) throw stream.failure;
    throw error;
  }

  /** @internal `stream.cancel()`. */
  cancelStream(tag: number, reason?: string): void {
    mw.cancel(this.#handle, tag, reason === undefined ? -1 : putShort(String(reason)));
    this.#pump();
  }

  // --------------------------------------------------------------------------------- peer API

  /** `close({code, reason, drainMs})`; resolves once `onClose` reported `willRetry: false`. */
  close(options: unknown): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    const code = get(options, 'code') ?? 0;
    const reason = get(options, 'reason');
    if (typeof code !== 'number') return Promise.reject(new TypeError('close(): code must be a number'));
    let drain: number;
    try {
      drain = whole(options, 'drainMs', 10_000);
    } catch (error) {
      return Promise.reject(error);
    }
    const done = new Promise<void>((resolve) => this.#closing.push(resolve));
    const length = reason === undefined ? -1 : putShort(String(reason));
    mw.close(this.#handle, code, length, drain, now());
    this.#pump();
    return done;
  }

  /** Adds an `onClose` listener; returns its remover. */
  onClose(listener: (reason: unknown) => unknown): () => void {
    return addListener(this.#onClose, listener, 'onClose(listener)');
  }

  /** Adds an `onReconnect(attempt, peer)` listener; returns its remover. */
  onReconnect(listener: (attempt: number, peer: object) => unknown): () => void {
    return addListener(this.#onReconnect, listener, 'onReconnect(listener)');
  }

  /** Adds an open interceptor; returns its remover. */
  interceptOpen(interceptor: (headers: Record<string, unknown>, payload: unknown) => unknown): () => void {
    return addListener(this.#interceptors, interceptor, 'interceptOpen(interceptor)');
  }

  /** Skips a pending reconnect backoff and dials now. */
  reconnectNow(): void {
    mw.reconnect_now(this.#handle, now());
    this.#pump();
  }

  // --------------------------------------------------------------------------------- the pump

  /**
   * Reads what the module has to say now — events only; frames wait for the flush of this turn —
   * unless a pump is under way (a listener calling back), whose loop picks it up.
   */
  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      this.#drain(false);
    } finally {
      this.#pumping = false;
    }
    if (!this.#flushQueued && !this.#freed) {
      this.#flushQueued = true;
      queueMicrotask(() => this.#flush());
    }
    this.#rearm();
  }

  /** Once per turn: the frames to send (at most `FLUSH_BYTES`, then again in a later task). */
  #flush(): void {
    this.#flushQueued = false;
    if (this.#pumping || this.#freed) return;
    this.#pumping = true;
    let more = false;
    try {
      more = this.#drain(true);
    } finally {
      this.#pumping = false;
    }
    if (more) {
      this.#flushQueued = true;
      setTimeout(() => this.#flush(), 0);
    } else if (this.#forGood && mw.is_closed(this.#handle) !== 0) {
      this.#free();
    }
    this.#rearm();
  }

  /** Polls records until none is left; true when frames remain because the budget ran out. */
  #drain(sends: boolean): boolean {
    let budget = FLUSH_BYTES;
    for (;;) {
      const kind = mw.poll(this.#handle, now(), sends && budget > 0 ? 1 : 0);
      if (kind === 0) return sends && budget <= 0;
      if (kind === MuxwsRecordKind.Send) budget -= record()[Layout.TextLength];
      try {
        handleMuxwsRecord(record(), 0, this.#records, textOf);
      } catch (error) {
        warn('a muxws step failed; the other streams and calls go on', error);
      }
    }
  }

  /** What the peer does with each record of the module. */
  readonly #records: MuxwsRecordHandler = {
    dial: (socket, protocols) => this.#dial(socket, protocols.split(',')),
    send: (socket, _bytes, text) => this.#send(socket, text),
    close: (socket, code, reason) => this.#closeSocket(socket, code, reason),
    established: () => {
      peerState(this.#peerId, PeerState.Available);
      this.#connecting?.resolve(this.#facade);
      this.#connecting = null;
    },
    connectFailed: (cls, code, message, reason, payload) => {
      // A failed hello is its stream error, unwrapped (WSM-RCN-026): class, code, reason, payload.
      this.#forGood = true;
      const error = makeError(cls, message, { code, reason: reason || undefined, payload: payload ? JSON.parse(payload) : undefined });
      this.#connecting?.reject(error);
      this.#connecting = null;
      peerState(this.#peerId, PeerState.ClosedForGood);
    },
    reconnected: (count) => {
      peerState(this.#peerId, PeerState.Available);
      notify(this.#onReconnect, 'onReconnect', count, this.#facade);
    },
    closed: (code, wasClean, willRetry, reason) => {
      if (!willRetry) this.#forGood = true;
      notify(this.#onClose, 'onClose', { code, reason, wasClean, willRetry });
      if (!willRetry) {
        this.#connecting?.reject(closedForGood());
        this.#connecting = null;
        for (const resolve of this.#closing.splice(0)) resolve();
      }
      peerState(this.#peerId, willRetry ? PeerState.Unavailable : PeerState.ClosedForGood);
    },
    goAway: () => peerState(this.#peerId, PeerState.Unavailable),
    release: (source) => sources.delete(source),
    replyHeaders: (tag, headers) => {
      const pending = this.#pending.get(tag);
      if (!pending) return;
      pending.headers = JSON.parse(headers) as Record<string, unknown>;
      pending.stream?.headersArrived(pending.headers);
    },
    payload: (tag, json) => {
      const pending = this.#pending.get(tag);
      if (pending) this.#payload(pending, JSON.parse(json));
    },
    fragment: (tag, more, text) => {
      const pending = this.#pending.get(tag);
      if (!pending) return;
      pending.parts.push(text);
      if (more) return;
      const joined = pending.parts.join('');
      pending.parts = [];
      let value: unknown;
      try {
        value = JSON.parse(joined);
      } catch {
        // The platform cannot parse it: the module resets the stream (PROTOCOL_ERROR).
        return mw.checked(this.#handle, tag, 0);
      }
      this.#payload(pending, value);
      mw.checked(this.#handle, tag, 1);
    },
    end: () => {},
    // No push handler is registered yet (`accept_pushes` is never called), so the module refuses
    // every push and no PUSH record arrives.
    push: () => {},
    streamClosed: (tag) => {
      const pending = this.#pending.get(tag);
      if (!pending) return;
      this.#pending.delete(tag);
      this.#finish(pending, null, 0, true);
    },
    streamFailed: (tag, cls, code, message, reason, payload) => {
      const pending = this.#pending.get(tag);
      if (!pending) return;
      this.#pending.delete(tag);
      const error = makeError(cls, message, {
        code,
        reason: reason || undefined,
        streamId: pending.id || undefined,
        payload: payload ? JSON.parse(payload) : null,
      });
      this.#finish(pending, error, cls, true);
    },
    openFailed: (tag, cls, message) => {
      const pending = this.#pending.get(tag);
      if (!pending) return;
      this.#pending.delete(tag);
      this.#finish(pending, makeError(cls, message, { code: 9 }), cls, false);
    },
  };

  #payload(pending: Pending, value: unknown): void {
    if (!pending.paid++) pending.payload = value;
    pending.stream?.payloadArrived(value);
  }

  /** A stream is over: normally (`error` null) or with `error` of class `cls`. */
  #finish(pending: Pending, error: Error | null, cls: number, opened: boolean): void {
    const headers = pending.headers ?? {};
    if (pending.stream) return pending.stream.over(error);
    if (pending.request) {
      const { done, withHeaders, timer } = pending.request;
      if (timer !== null) clearTimeout(timer);
      if (error) return done.reject(error);
      // Exactly one payload (WSM-API-006); the stream has closed, so there is nothing left to reset.
      if (pending.paid !== 1) return done.reject(makeError(ErrorClass.ProtocolError, `the reply held ${pending.paid || 'no'} payloads, not one (WSM-API-006)`));
      return done.resolve(withHeaders ? { headers, payload: pending.payload } : pending.payload);
    }
    const call = pending.call;
    if (!call) return;
    const attempt = pending.attempt ?? 0;
    if (error) return failAttempt(call.id, attempt, error, endOf(cls, opened, this.isClosed));
    const status = statusOf(headers[':status']);
    if (status < 0) {
      return failAttempt(call.id, attempt, makeError(ErrorClass.ProtocolError, `the reply's :status ${describe(headers[':status'])} is not an HTTP status`));
    }
    const body = pending.paid ? pending.payload : null;
    report(call.id, attempt, EndCode.MuxwsReply | (hasDetail(body) ? EndCode.JsonDetail : 0), status, { kind: 'answer', status, body, headers: () => headers });
  }

  // --------------------------------------------------------------------------------- sockets

  /** Feeds one socket event to the module, then reads what it says. */
  #input(feed: () => void): void {
    try {
      feed();
    } catch (error) {
      warn('a muxws socket event could not be handled', error);
    }
    this.#pump();
  }

  #dial(socket: number, protocols: string[]): void {
    let ws: WebSocket;
    try {
      ws = new (globalThis as { WebSocket: typeof WebSocket }).WebSocket(this.#url, protocols);
      ws.binaryType = 'arraybuffer';
    } catch (error) {
      // The platform refused to make it: a socket that never opened, with what the platform said.
      return this.#input(() => mw.socket_closed(this.#handle, socket, 1006, putShort(describe(error)), 0, now()));
    }
    this.#sockets.set(socket, ws);
    ws.onopen = () => this.#input(() => mw.socket_opened(this.#handle, socket, putShort(String(ws.protocol)), now()));
    ws.onmessage = (event) =>
      this.#input(() => {
        const data: unknown = event.data;
        if (typeof data !== 'string') return mw.socket_binary(this.#handle, socket, now());
        const { lengths, whole } = put([data], this.#cap + 1);
        mw.socket_message(this.#handle, socket, lengths[0], whole ? 1 : 0, now());
      });
    // Node 20 reports a refused handshake with `error` alone; browsers send `error`, then `close`.
    ws.onerror = (event) => this.#ended(socket, 1006, get(event, 'message'), false);
    ws.onclose = (event) => this.#ended(socket, event.code, event.reason, event.wasClean);
  }

  #ended(socket: number, code: unknown, reason: unknown, clean: boolean): void {
    const ws = this.#sockets.get(socket);
    if (!ws) return;
    this.#sockets.delete(socket);
    ws.onopen = ws.onmessage = ws.onerror = ws.onclose = null;
    const text = typeof reason === 'string' ? reason : '';
    this.#input(() => mw.socket_closed(this.#handle, socket, typeof code === 'number' ? code : 1006, putShort(text), clean ? 1 : 0, now()));
  }

  #send(socket: number, text: string): void {
    const ws = this.#sockets.get(socket);
    if (!ws) return;
    try {
      ws.send(text);
    } catch (error) {
      // A socket that cannot send is lost: its streams fail ConnectionLost and the peer redials.
      try {
        ws.close();
      } catch {
        // already gone
      }
      this.#ended(socket, 1006, `the socket could not send: ${describe(error)}`, false);
    }
  }

  #closeSocket(socket: number, code: number, reason: string): void {
    const ws = this.#sockets.get(socket);
    if (!ws) return;
    try {
      ws.close(code, reason);
    } catch {
      try {
        ws.close();
      } catch {
        // already gone
      }
    }
  }

  // --------------------------------------------------------------------------------- timer and end

  /** Sets the platform timer to the module's next timeout of this peer. */
  #rearm(): void {
    this.#wakeup.set(this.#freed ? -1 : mw.next_timeout(this.#handle));
  }

  /** Closed for good and nothing left to send: the module forgets the peer. */
  #free(): void {
    this.#freed = true;
    mw.peer_free(this.#handle);
    // What the peer still held (an unsent upload of a retired socket) is released now.
    while (mw.poll(this.#handle, now(), 0) === MuxwsRecordKind.Release) sources.delete(record()[1]);
    for (const ws of this.#sockets.values()) ws.onopen = ws.onmessage = ws.onerror = ws.onclose = null;
    this.#sockets.clear();
    this.#wakeup.clear();
    livePeers.delete(this);
    unregisterPeer();
  }
}

/** The peers not yet freed, for the platform's `online` event. */
const livePeers = new Set<PeerCore>();

/**
 * Where the platform says it is back online (browsers and workers: the `online` event), every peer
 * waiting out a reconnect delay dials at once, whether or not a call waits for it; a connected or
 * closed peer is left as it is. Elsewhere (Node) nothing changes.
 */
function followOnline(): void {
  const scope = globalThis as { addEventListener?: (type: string, listener: () => void) => void };
  if (typeof scope.addEventListener !== 'function') return;
  scope.addEventListener('online', () => {
    for (const peer of livePeers) {
      try {
        peer.reconnectNow();
      } catch (error) {
        warn('a muxws peer could not redial on the online event', error);
      }
    }
  });
}

/** The class and message of the last open the module refused. */
let lastError: [number, string] = [1, ''];

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

/**
 * `connectMuxws(url, options)`: a peer, dialling at once. Resolves once the first connection is
 * established (rejecting if that attempt fails), or at once with `lazy: true`.
 */
export async function connect<P extends object>(url: unknown, options: unknown, wrap: (core: PeerCore) => P, given: DriverKit): Promise<P> {
  await load(given);
  const target = socketUrl(url);
  if (typeof (globalThis as { WebSocket?: unknown }).WebSocket !== 'function') {
    throw new TypeError('WebSocket is not available here (Node 20 needs --experimental-websocket)');
  }
  if (options !== undefined && (options === null || typeof options !== 'object')) throw new TypeError('connectMuxws options must be an object');
  // An option this client does not have is refused, not ignored: the muxws package's client has
  // some (onStream for server push, upgrade headers) whose silent loss would change what an app does.
  for (const name of Object.keys(options ?? {})) {
    if (!CONNECT_OPTIONS.includes(name)) throw new TypeError(`connectMuxws has no option "${name}"`);
  }
  const core = new PeerCore(target, (options ?? {}) as Options);
  const peer = wrap(core);
  core.start(peer);
  if (get(options, 'lazy') === true) return peer;
  await core.connected;
  return peer;
}
