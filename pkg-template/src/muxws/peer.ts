/**
 * One muxws peer: `PeerCore`, the driver's side of a public `MuxwsPeer`. It owns the module's peer
 * handle, its sockets and its streams' JavaScript side, and runs the pump that reads what the
 * module says (one record at a time) and does it: dial, send, close, settle a stream. The peer
 * API (`open`, `request`, `close`, the listeners) is here; the ViewSet calls' transport over it is
 * `muxws/calls.ts`.
 */
import { PeerState } from '../abi/calls.js';
import { CloseCode, ErrorClass, handleMuxwsRecord, Layout, MuxwsRecordKind, ResetCode, type MuxwsRecordHandler } from '../abi/muxws.js';
import {
  closedForGood,
  makeError,
  mw,
  put,
  putShort,
  record,
  refusal,
  refusedError,
  services,
  source,
  sources,
  textOf,
  type Refusal,
} from './module.js';
import { deferred, StreamCore, type CallPending, type Deferred, type Pending, type RequestPending } from './stream.js';
import { PlatformSocket } from './socket.js';
import { addListener, notify, type Listener } from './listeners.js';
import { fallbackOf, makePeer, whole, type FallbackOptions, type Options } from './options.js';
import { callTransport, finishCall, type CallPeer } from './calls.js';


/** How long a pushed stream may stay open after its handlers returned before it is reset (the server's half never ended). */
const PUSH_HOLD_MS = 5000;
/** How long a flush may write before it lets other work in (bytes). */
const FLUSH_BYTES = 256 * 1024;

/** One muxws peer: the module's peer `handle`, its sockets, and its streams' JavaScript side. */
export class PeerCore implements CallPeer {
  /** The public `MuxwsPeer` (what `onReconnect` listeners receive). */
  #facade: object = this;
  readonly #handle: number;
  readonly #url: string;
  readonly #cap: number;
  #peerId = 0;
  readonly #sockets = new Map<number, PlatformSocket>();
  readonly #pending = new Map<number, Pending>();
  readonly #onClose = new Set<Listener>();
  readonly #onReconnect = new Set<Listener>();
  /** The push handlers: while there is one, the module accepts the streams the server opens. */
  readonly #onStream = new Set<Listener>();
  /** Makes the public `MuxwsStream` of a pushed stream. */
  #wrapStream: (core: StreamCore) => object = (core) => core;
  readonly #interceptors = new Set<Listener>();
  readonly #onFallback = new Set<Listener>();
  /** `restFallback`: after how long away its calls go over REST, and where (null: never). */
  readonly #fallback: FallbackOptions | null;
  /** Where its calls go while they fall back (the module said so); undefined otherwise. */
  #restBase: string | undefined;
  /** Resolves once the fallback starts, for `connectMuxws` with `restFallback`. */
  readonly #falling = deferred<object>();
  #connecting: Deferred<object> | null = deferred<object>();
  #closing: (() => void)[] = [];
  #forGood = false;
  #freed = false;
  #pumping = false;
  #flushQueued = false;
  /** When a socket of this peer last delivered anything (the package clock's ms; 0: never). */
  #heardAt = 0;
  /** The last heartbeat ping's round trip (ms; null until the first pong). */
  #rttMs: number | null = null;
  /** The platform timer of this peer's next timeout in the module. */
  readonly #wakeup = services.wakeup(() => this.#input(() => mw.timer(this.#handle, services.now())));
  /** The platform timer of the flush that goes on in a later task (the package's one timer type, as every wait). */
  readonly #later = services.wakeup(() => this.#flush());

  /** @internal Made by `connect()`. */
  constructor(url: string, options: Options) {
    this.#url = url;
    this.#fallback = fallbackOf(options, url);
    this.#handle = makePeer(options, this.#onClose, this.#onReconnect, this.#onStream, this.#interceptors);
    this.#cap = mw.frame_cap(this.#handle);
    if (this.#fallback) mw.fallback(this.#handle, this.#fallback.afterMs, services.now());
    // Before the first socket opens: a push that follows the connect at once is not refused.
    this.#acceptPushes();
  }

  /**
   * @internal Registers the peer with the runtime, `facade` (the public `MuxwsPeer`) and this core
   * being what a proxy's `peer` option may be, and starts dialling; `wrapStream` makes the public
   * stream of a push.
   */
  start(facade: object, wrapStream: (core: StreamCore) => object): void {
    this.#facade = facade;
    this.#wrapStream = wrapStream;
    this.#peerId = services.registerPeer((peerId) => callTransport(peerId, this), facade, this).peerId;
    // Until the first connection the peer is not available: calls wait for it.
    services.peerState(this.#peerId, PeerState.Unavailable);
    livePeers.add(this);
    this.#pump();
  }

  /** Resolves once the first connection is established; rejects when it failed for good. */
  get connected(): Promise<object> {
    return this.#connecting?.promise ?? (this.#forGood ? Promise.reject(closedForGood()) : Promise.resolve(this.#facade));
  }

  /**
   * What `connectMuxws` waits for: the first connection, or with `restFallback` also the start of
   * the fallback, whichever comes first.
   */
  get ready(): Promise<object> {
    return this.#fallback ? Promise.race([this.connected, this.#falling.promise]) : this.connected;
  }

  /** The REST origin its calls go to while they fall back; undefined while they go over the socket. */
  get restBase(): string | undefined {
    return this.#restBase;
  }

  /** Adds a listener of the fallback's start (`restBase`) and end (undefined); returns its remover. */
  onFallback(listener: (restBase: string | undefined) => unknown): () => void {
    return addListener(this.#onFallback, listener, 'onFallback(listener)');
  }

  /** The URL this peer dials. */
  get url(): string {
    return this.#url;
  }

  /** True while a connection is established. */
  get isOpen(): boolean {
    return mw.is_open(this.#handle) !== 0;
  }

  /** True once the peer will never dial again. */
  get isClosed(): boolean {
    return this.#forGood || mw.is_closed(this.#handle) !== 0;
  }

  /** When a socket of this peer last delivered anything, a message or its opening (the package clock's ms; 0: never). Read by live lists: a silent socket. */
  get heardAt(): number {
    return this.#heardAt;
  }

  /** The round trip of the last heartbeat ping answered, in ms (`MuxwsPeer.rttMs`); null until the first. */
  get rttMs(): number | null {
    return this.#rttMs;
  }

  /** How many streams are waited on, calls waiting for a free stream included (for leak checks). */
  get streamCount(): number {
    return mw.stream_count(this.#handle);
  }

  // --------------------------------------------------------------------------------- streams

  /** @internal Runs the open interceptors on `headers` (in place); one returning a promise is refused. */
  intercept(headers: Record<string, unknown>, payload: unknown): void {
    for (const interceptor of [...this.#interceptors]) {
      const returned = interceptor(headers, payload) as { then?: unknown } | null | undefined;
      if (returned !== null && typeof returned === 'object' && typeof returned.then === 'function') {
        throw new TypeError('an open interceptor must be synchronous; it returned a promise');
      }
    }
  }

  /**
   * @internal Opens a stream in the module: its tag, or what was refused (headers over the frame
   * cap are refused before the module is asked). A call's attempt (`call`) is kept by its tag
   * until it ends; a direct stream's record is the caller's to keep.
   */
  openStream(headers: string | null, payload: string, end: boolean, call: CallPending | null): number | Refusal {
    let length = -1;
    if (headers !== null) {
      const written = put([headers], Math.min(headers.length * 3, this.#cap) + 1);
      if (!written.whole) return { cls: ErrorClass.ProtocolError, message: 'the stream headers are longer than the frame cap; headers are never fragmented' };
      length = written.lengths[0];
    }
    const tag = mw.open(this.#handle, length, source(payload), payload.length, end ? 1 : 0, call ? 1 : 0, services.now());
    const refused = tag === 0 ? refusal() : null;
    this.#pump();
    if (refused) return refused;
    if (call) this.#pending.set(tag, call);
    return tag;
  }

  /** @internal Resets the stream of `tag` with TIMEOUT. */
  expireStream(tag: number): void {
    mw.expire(this.#handle, tag);
    this.#pump();
  }

  /** @internal `stream.cancel()`: resets the stream of `tag` with CANCELLED and `reason`. */
  cancelStream(tag: number, reason?: string): void {
    mw.cancel(this.#handle, tag, reason === undefined ? -1 : putShort(String(reason)));
    this.#pump();
  }

  /** The tag of a direct open or request, and the headers it went out with (after the open interceptors). */
  #direct(payload: unknown, options: unknown, end: boolean): { tag: number; headers: Record<string, unknown> } {
    if (this.isClosed) throw closedForGood();
    if (options !== undefined && (options === null || typeof options !== 'object')) throw new TypeError('options must be an object');
    const given = services.get(options, 'headers');
    if (given != null && typeof given !== 'object') throw new TypeError('options.headers must be an object');
    const headers: Record<string, unknown> = { ...(given as object | undefined) };
    this.intercept(headers, payload);
    const text = given != null || Object.keys(headers).length > 0 ? JSON.stringify(headers) : null;
    const body = services.muxwsBody(payload, 'the payload') ?? 'null';
    const tag = this.openStream(text, body, end, null);
    if (typeof tag !== 'number') throw refusedError(tag, { code: ResetCode.ConnectionClosed });
    return { tag, headers };
  }

  /** `open(payload, {headers, end = true})`: a stream at once; throws `ConnectionLost`, `ConnectionGoingAway`, `ConnectionClosed`. */
  open(payload: unknown, options: unknown): StreamCore {
    const { tag, headers } = this.#direct(payload, options, services.get(options, 'end') !== false);
    const stream = new StreamCore(this, tag, mw.stream_id(this.#handle, tag), headers);
    this.#pending.set(tag, { kind: 'stream', stream, id: stream.id, headers: null, parts: [], payload: null, paid: 0 });
    return stream;
  }

  /** A unary request: the reply's payload, or `{headers, payload}` when `withHeaders`. */
  request(payload: unknown, options: unknown, withHeaders: boolean): Promise<unknown> {
    try {
      const timeoutMs = whole(options, 'timeoutMs', 0);
      const { tag } = this.#direct(payload, options, true);
      const done = deferred<unknown>(false);
      const pending: RequestPending = { kind: 'request', done, withHeaders, id: mw.stream_id(this.#handle, tag), headers: null, parts: [], payload: null, paid: 0 };
      this.#pending.set(tag, pending);
      // the deadline is the module's, served by the peer's one timer
      if (timeoutMs > 0) {
        mw.set_deadline(this.#handle, tag, services.now() + timeoutMs);
        this.#rearm();
      }
      return done.promise;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** @internal `stream.send()`. */
  sendOn(stream: StreamCore, tag: number, payload: unknown, end: boolean): void {
    const text = payload === undefined ? null : services.muxwsBody(payload, 'the payload');
    const cls = mw.send(this.#handle, tag, text === null ? 0 : source(text), text?.length ?? 0, end ? 1 : 0);
    const refused = cls === 0 ? null : refusal();
    this.#pump();
    if (refused === null) return;
    // A stream that failed throws its own error; one that closed normally, StreamClosed.
    if (cls === ErrorClass.StreamClosed && stream.failure !== undefined) throw stream.failure;
    throw refusedError(refused);
  }

  // --------------------------------------------------------------------------------- peer API

  /** `close({code, reason, drainMs})`; resolves once `onClose` reported `willRetry: false`. */
  close(options: unknown): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    const code = services.get(options, 'code') ?? 0;
    const reason = services.get(options, 'reason');
    if (typeof code !== 'number') return Promise.reject(new TypeError('close(): code must be a number'));
    let drain: number;
    try {
      drain = whole(options, 'drainMs', 10_000);
    } catch (error) {
      return Promise.reject(error);
    }
    const done = new Promise<void>((resolve) => this.#closing.push(resolve));
    const length = reason === undefined ? -1 : putShort(String(reason));
    mw.close(this.#handle, code, length, drain, services.now());
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

  /**
   * Adds a push handler, `handler(payload, stream)`, called for each stream the server opens; the
   * stream ends when every handler returned or its promise settled. Returns its remover. While no
   * handler is registered the module refuses pushes (`reset(REFUSED)`).
   */
  onStream(handler: (payload: unknown, stream: object) => unknown): () => void {
    const remove = addListener(this.#onStream, handler, 'onStream(handler)');
    this.#acceptPushes();
    return () => {
      remove();
      this.#acceptPushes();
    };
  }

  /** Tells the module whether a push handler is registered. */
  #acceptPushes(): void {
    mw.accept_pushes(this.#handle, this.#onStream.size > 0 ? 1 : 0);
  }

  /**
   * Runs the push handlers on a stream the server opened, each in its own `try`: once every one
   * returned or its promise settled, the implicit end (`finish`), at once when none returned a
   * promise (so a burst of pushes to quick handlers never fills the stream limit, even when the
   * platform delivers several messages in one task); one that throws or rejects ends the stream
   * with `reset(CANCELLED)`, never the peer.
   */
  #pushed(tag: number, payload: unknown, stream: object): void {
    const runs: Promise<unknown>[] = [];
    let threw = false;
    let error: unknown;
    for (const handler of [...this.#onStream]) {
      try {
        const result = handler(payload, stream) as { then?: unknown } | null | undefined;
        if (result !== null && (typeof result === 'object' || typeof result === 'function') && typeof result.then === 'function') runs.push(Promise.resolve(result));
      } catch (caught) {
        [threw, error] = [true, caught];
      }
    }
    const finish = () => {
      mw.finish(this.#handle, tag);
      // a pushed stream the server never ends would hold one of its 100 slots for good: it is reset
      // (TIMEOUT) once it has been held this long after its handlers returned
      mw.set_deadline(this.#handle, tag, services.now() + PUSH_HOLD_MS);
      this.#rearm();
      this.#pump();
    };
    const fail = (caught: unknown) => {
      services.warn('a muxws onStream handler threw; its stream is reset, the peer goes on', caught);
      this.cancelStream(tag, 'the push handler failed');
    };
    if (threw) fail(error);
    else if (runs.length) Promise.all(runs).then(finish, fail);
    else finish();
  }

  /** Adds an open interceptor; returns its remover. */
  interceptOpen(interceptor: (headers: Record<string, unknown>, payload: unknown) => unknown): () => void {
    return addListener(this.#interceptors, interceptor, 'interceptOpen(interceptor)');
  }

  /** Skips a pending reconnect backoff and dials now. */
  reconnectNow(): void {
    mw.reconnect_now(this.#handle, services.now());
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
      this.#later.set(services.now());
    } else if (this.#forGood && mw.is_closed(this.#handle) !== 0) {
      this.#free();
    }
    this.#rearm();
  }

  /** Polls records until none is left; true when frames remain because the budget ran out. */
  #drain(sends: boolean): boolean {
    let budget = FLUSH_BYTES;
    for (;;) {
      const kind = mw.poll(this.#handle, services.now(), sends && budget > 0 ? 1 : 0);
      if (kind === 0) return sends && budget <= 0;
      if (kind === MuxwsRecordKind.Send) budget -= record()[Layout.TextLength];
      try {
        handleMuxwsRecord(record(), 0, this.#records, textOf);
      } catch (error) {
        services.warn('a muxws step failed; the other streams and calls go on', error);
      }
    }
  }

  /** What the peer does with each record of the module. */
  readonly #records: MuxwsRecordHandler = {
    dial: (socket, protocols) => this.#dial(socket, protocols.split(',')),
    send: (socket, _bytes, text) => this.#sockets.get(socket)?.send(text),
    close: (socket, code, reason) => this.#sockets.get(socket)?.close(code, reason),
    established: () => {
      services.peerState(this.#peerId, PeerState.Available);
      this.#connecting?.resolve(this.#facade);
      this.#connecting = null;
    },
    connectFailed: (cls, code, message, reason, payload) => {
      // A failed hello is its stream error, unwrapped (WSM-RCN-026): class, code, reason, payload.
      this.#forGood = true;
      const error = makeError(cls, message, { code, reason: reason || undefined, payload: payload ? JSON.parse(payload) : undefined });
      this.#connecting?.reject(error);
      this.#connecting = null;
      if (!this.#fallback) services.peerState(this.#peerId, PeerState.ClosedForGood);
    },
    reconnected: (count) => {
      services.peerState(this.#peerId, PeerState.Available);
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
      // Closed for good with a fallback: the fallback's record follows, which sends its calls over REST.
      if (willRetry || !this.#fallback) services.peerState(this.#peerId, willRetry ? PeerState.Unavailable : PeerState.ClosedForGood);
    },
    fallback: (on) => {
      this.#restBase = on ? this.#fallback?.base : undefined;
      notify(this.#onFallback, 'onFallback', this.#restBase);
      if (!on) return;
      this.#falling.resolve(this.#facade);
      // The calls that wait for the socket go now, over REST.
      services.peerState(this.#peerId, PeerState.Available);
    },
    goAway: () => services.peerState(this.#peerId, PeerState.Unavailable),
    roundTrip: (ms) => void (this.#rttMs = ms),
    release: (source) => sources.delete(source),
    replyHeaders: (tag, headers) => {
      const pending = this.#pending.get(tag);
      if (!pending) return;
      pending.headers = JSON.parse(headers) as Record<string, unknown>;
      if (pending.kind === 'stream') pending.stream.headersArrived(pending.headers);
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
    push: (tag, id, _end, headers, payload) => {
      const opened = JSON.parse(headers) as Record<string, unknown>;
      const core = new StreamCore(this, tag, id, opened);
      const pending: Pending = { kind: 'stream', stream: core, id, headers: opened, parts: [], payload: null, paid: 0 };
      this.#pending.set(tag, pending);
      core.headersArrived(opened);
      // An open without a payload is `undefined` to the handler; `null` is a payload.
      const value: unknown = payload ? JSON.parse(payload) : undefined;
      if (payload) this.#payload(pending, value);
      this.#pushed(tag, value, this.#wrapStream(core));
    },
    streamClosed: (tag) => this.#finish(tag, null, 0, true),
    streamFailed: (tag, cls, code, message, reason, payload) => {
      const pending = this.#pending.get(tag);
      if (!pending) return;
      const error = makeError(cls, message, {
        code,
        reason: reason || undefined,
        streamId: pending.id || undefined,
        payload: payload ? JSON.parse(payload) : null,
      });
      this.#finish(tag, error, cls, true);
    },
    openFailed: (tag, cls, message) => this.#finish(tag, makeError(cls, message, { code: ResetCode.ConnectionClosed }), cls, false),
  };

  #payload(pending: Pending, value: unknown): void {
    if (!pending.paid++) pending.payload = value;
    if (pending.kind === 'stream') pending.stream.payloadArrived(value);
  }

  /**
   * The stream of `tag` is over (nothing for a tag the peer does not keep): normally (`error`
   * null) or with `error` of class `cls`, after it `opened` or not.
   */
  #finish(tag: number, error: Error | null, cls: number, opened: boolean): void {
    const pending = this.#pending.get(tag);
    if (!pending) return;
    this.#pending.delete(tag);
    if (pending.kind === 'stream') return pending.stream.over(error);
    if (pending.kind === 'call') return finishCall(pending, error, cls, opened, this);
    const { done, withHeaders } = pending;
    if (error) return done.reject(error);
    // Exactly one payload (WSM-API-006); the stream has closed, so there is nothing left to reset.
    if (pending.paid !== 1) return done.reject(makeError(ErrorClass.ProtocolError, `the reply held ${pending.paid || 'no'} payloads, not one (WSM-API-006)`));
    done.resolve(withHeaders ? { headers: pending.headers ?? {}, payload: pending.payload } : pending.payload);
  }

  // --------------------------------------------------------------------------------- sockets

  /** Feeds one socket event to the module, then reads what it says. */
  #input(feed: () => void): void {
    try {
      feed();
    } catch (error) {
      services.warn('a muxws socket event could not be handled', error);
    }
    this.#pump();
  }

  #dial(socket: number, protocols: string[]): void {
    const handle = this.#handle;
    let ws: PlatformSocket;
    try {
      ws = new PlatformSocket(this.#url, protocols, {
        opened: (protocol) => this.#input(() => mw.socket_opened(handle, socket, putShort(String(protocol)), services.now())),
        message: (data) =>
          this.#input(() => {
            this.#heardAt = services.now();
            if (typeof data !== 'string') return mw.socket_binary(handle, socket, services.now());
            const { lengths, whole } = put([data], this.#cap + 1);
            mw.socket_message(handle, socket, lengths[0], whole ? 1 : 0, services.now());
          }),
        ended: (code, reason, clean) => {
          this.#sockets.delete(socket);
          this.#input(() => mw.socket_closed(handle, socket, code, putShort(reason), clean ? 1 : 0, services.now()));
        },
      });
    } catch (error) {
      // The platform refused to make it: a socket that never opened, with what the platform said.
      return this.#input(() => mw.socket_closed(handle, socket, CloseCode.Abnormal, putShort(services.describe(error)), 0, services.now()));
    }
    this.#sockets.set(socket, ws);
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
    while (mw.poll(this.#handle, services.now(), 0) === MuxwsRecordKind.Release) handleMuxwsRecord(record(), 0, this.#records, textOf);
    for (const ws of this.#sockets.values()) ws.detach();
    this.#sockets.clear();
    this.#wakeup.clear();
    livePeers.delete(this);
    services.unregisterPeer();
  }
}

/** The peers not yet freed, for the platform's `online` event. */
const livePeers = new Set<PeerCore>();

/**
 * Where the platform says it is back online (the package's one online source: browsers and
 * workers), every peer waiting out a reconnect delay dials at once, whether or not a call waits for
 * it; a connected or closed peer is left as it is. Elsewhere (Node) nothing changes.
 */
export function followOnline(): void {
  services.online.subscribe((isOnline) => {
    if (!isOnline) return;
    for (const peer of livePeers) {
      try {
        peer.reconnectNow();
      } catch (error) {
        services.warn('a muxws peer could not redial on the online event', error);
      }
    }
  });
}
