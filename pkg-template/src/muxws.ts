/**
 * muxws: multiplexed streams over one WebSocket (`muxws.v1.json`), dialer side, implemented in
 * Rust. `connectMuxws()` gives a `MuxwsPeer` that reconnects by itself; a muxws ViewSet proxy sends
 * its calls through it (`muxwsViewSet`, `route_muxws`, option `peer`).
 *
 * This file is the public API only. The muxws module and its driver are loaded by `connectMuxws()`
 * (a dynamic import), so an app that never calls it ships neither.
 */
import { internalsOf, keepInternals } from './caller.js';
import type { PeerCore, StreamCore } from './muxws/driver.js';
import { muxwsServices } from './muxws-kit.js';
import { devTap } from './runtime.js';

/** The driver's stream behind `stream`, read also through a wrapper of it (caller.ts: `keepInternals`). */
function streamOf(stream: object): StreamCore {
  return internalsOf<StreamCore>(stream) as StreamCore;
}

/** The driver's peer behind `peer`, read also through a wrapper of it. */
function peerOf(peer: object): PeerCore {
  return internalsOf<PeerCore>(peer) as PeerCore;
}

/** What `onClose` listeners receive, once per socket loss. */
export interface CloseReason {
  code: number;
  reason: string;
  wasClean: boolean;
  /** False once the peer will not dial again (`close()` was called, or `maxAttempts` ran out). */
  willRetry: boolean;
}

/** The reconnect schedule: before retry n the delay is min(initialDelayMs·factorⁿ, maxDelayMs)·(1 ± jitter). */
export interface ReconnectOptions {
  initialDelayMs?: number;
  factor?: number;
  maxDelayMs?: number;
  jitter?: number;
  maxAttempts?: number;
}

/** An open interceptor: runs synchronously on every application open and may change `headers`. */
export type OpenInterceptor = (headers: Record<string, unknown>, payload: unknown) => void;

/** Options of `connectMuxws`. */
export interface ConnectOptions {
  /** Extra `Sec-WebSocket-Protocol` entries offered after `muxws.v1.json` (e.g. a token). */
  subprotocols?: string[];
  /** Sent as stream 1 of every connection; the peer counts as connected once it is acknowledged. */
  hello?: unknown;
  /** Headers of the hello. */
  helloHeaders?: Record<string, unknown>;
  helloTimeoutMs?: number;
  /** `false` never reconnects. Defaults: 250 ms, ×2, at most 30 s, jitter 0.3, unlimited attempts. */
  reconnect?: ReconnectOptions | false;
  /** The heartbeat: a ping after this long without traffic (default 20000; 0 turns it off). */
  pingIntervalMs?: number;
  /** The socket counts as dead when no pong came this long after a ping (default 10000). */
  pingTimeoutMs?: number;
  /** The largest reply payload accepted (bytes, default 64 MiB). */
  maxPayloadBytes?: number;
  /** The frame cap (bytes, default 65536; smaller only to test fragmentation). */
  maxFrameBytes?: number;
  /**
   * How many ViewSet calls may have a stream open at once (default 100, the server's stream limit);
   * later ones wait, unsent, for a free stream.
   */
  callConcurrency?: number;
  /**
   * Resolve at once with a peer that keeps trying to connect in the background (on the reconnect
   * schedule), instead of rejecting when the first attempt fails: calls issued before it connects
   * wait for it within their `repeat.withinMs`, like any reconnect. Default false.
   */
  lazy?: boolean;
  onClose?: ((reason: CloseReason) => void) | ((reason: CloseReason) => void)[];
  onReconnect?: ((attempt: number, peer: MuxwsPeer) => void) | ((attempt: number, peer: MuxwsPeer) => void)[];
  /**
   * Push handlers, registered before the first connection (so a push that follows the connect at
   * once is not refused): see `MuxwsPeer.onStream`.
   */
  onStream?: MuxwsStreamHandler | MuxwsStreamHandler[];
  /** Open interceptors, registered before the first connection. */
  openInterceptors?: OpenInterceptor[];
  /**
   * ViewSet calls over REST while the socket cannot be had (default off): once the peer has not
   * been connected for `afterMs` (default 3000), at once when a dial is refused (no socket opened)
   * or the peer closed for good, each call's next attempt goes to `baseUrl` (default the peer's
   * origin: `wss://host/ws` → `https://host`) with the same key, the first attempt's headers and
   * the body bytes the backend hashes for it over muxws; back over muxws once a socket is up. The
   * peer resolves `connectMuxws` then too, and keeps dialling.
   */
  restFallback?: boolean | { afterMs?: number; baseUrl?: string };
}

/** Options of one `request()`. */
export interface MuxwsRequestOptions {
  headers?: Record<string, unknown>;
  /** Sends `reset(TIMEOUT)` and rejects with `StreamTimeout` when the reply takes longer. */
  timeoutMs?: number;
}

/** Options of `open()`. */
export interface MuxwsOpenOptions {
  headers?: Record<string, unknown>;
  /** Whether the open also ends this side (default true: the unary shape). */
  end?: boolean;
}

/**
 * A stream from `MuxwsPeer.open()`. Awaiting it gives its first payload; `replyHeaders` the answering
 * side's first-frame headers (never rejects); `closed` settles when it is over (never rejects).
 */
export class MuxwsStream<R = unknown> implements PromiseLike<R> {
  // The driver's stream is kept out of the type (keepInternals): a member typed with a class that has
  // private fields makes a stream held in Vue state (ref, reactive) no longer a MuxwsStream to tsc.

  /** @internal Made by `MuxwsPeer.open()`. */
  constructor(core: StreamCore) {
    keepInternals(this, core);
  }

  /** The stream id, known at once. */
  get id(): number {
    return streamOf(this).id;
  }

  /**
   * The open's headers: for a stream the server opened (a push), as it sent them (JSON numbers
   * stay numbers: `:rev`, `:prev`); for one this side opened, the headers it went out with.
   */
  get headers(): Record<string, unknown> {
    return streamOf(this).headers;
  }

  /** The answering side's first-frame headers (`:status` over fastapi-viewsets), or `{}` if none came. */
  get replyHeaders(): Promise<Record<string, unknown>> {
    return streamOf(this).replyHeaders();
  }

  /** Settles once the stream is over, however it ended. */
  get closed(): Promise<void> {
    return streamOf(this).closed();
  }

  /** The first payload (or the error the stream failed with). */
  then<T1 = R, T2 = never>(onfulfilled?: ((value: R) => T1 | PromiseLike<T1>) | null, onrejected?: ((reason: unknown) => T2 | PromiseLike<T2>) | null): Promise<T1 | T2> {
    return (streamOf(this).result() as Promise<R>).then(onfulfilled, onrejected);
  }

  /** Sends a payload on a stream opened with `end: false`; `end: true` ends this side. */
  send(payload: unknown, options: { end?: boolean } = {}): void {
    streamOf(this).send(payload, options.end === true);
  }

  /** Ends this side, with a last payload if given. */
  end(payload?: unknown): void {
    streamOf(this).send(payload, true);
  }

  /** Cancels the stream: `reset(CANCELLED)`, closed at once. */
  cancel(reason?: string): void {
    streamOf(this).cancel(reason);
  }
}

/**
 * A push handler: called with the opening payload (`undefined` when the open had none) and the
 * stream of each stream the server opens (`stream.headers` as sent, `stream.id`); the stream ends
 * when the handler returns or the promise it returns settles. One that throws or rejects ends its
 * stream with `reset(CANCELLED)`, never the peer.
 */
export type MuxwsStreamHandler = (payload: unknown, stream: MuxwsStream) => unknown;

/** A reply with its headers (`:status` among them over fastapi-viewsets). */
export interface MuxwsReply<R = unknown> {
  headers: Record<string, unknown>;
  payload: R;
}

/** A muxws peer (dialer side). */
export class MuxwsPeer {
  // The driver's peer is kept out of the type (keepInternals), as a stream's is. The suite's leak
  // checks read it as `peer.core` (its `streamCount`): a non-enumerable property, untyped.

  /** @internal Made by `connectMuxws()`. */
  constructor(core: PeerCore) {
    keepInternals(this, core);
    Object.defineProperty(this, 'core', { value: core });
    devTap?.seen('peer', this);
  }

  /** Marks a peer for Vue, as a proxy is (`ViewSetBase`): reactive(), ref() and a Pinia store leave it as it is. */
  get __v_skip(): true {
    return true;
  }

  /** True while a connection is established. */
  get isOpen(): boolean {
    return peerOf(this).isOpen;
  }

  /** True once the peer will never dial again. */
  get isClosed(): boolean {
    return peerOf(this).isClosed;
  }

  /**
   * The round trip of the last heartbeat ping, in ms: from the `ping` frame to the `pong` that
   * echoed its nonce (muxws WSM-CON-010/012); null until the first pong. The heartbeat pings only
   * after `pingIntervalMs` with nothing arriving, so a busy socket keeps its last figure, and so
   * does a peer between sockets (the figure of its last socket).
   */
  get rttMs(): number | null {
    return peerOf(this).rttMs;
  }

  /** The REST origin its ViewSet calls go to while they fall back (`restFallback`); undefined otherwise. */
  get restBase(): string | undefined {
    return peerOf(this).restBase;
  }

  /**
   * Opens a stream, synchronously: throws `ConnectionLost` between sockets, `ConnectionGoingAway`
   * after a goaway, `ConnectionClosed` once closed for good — nothing is sent then.
   */
  open<R = unknown>(payload?: unknown, options: MuxwsOpenOptions = {}): MuxwsStream<R> {
    return new MuxwsStream<R>(peerOf(this).open(payload, options));
  }

  /** A unary request; resolves with the reply's payload. */
  request<R = unknown>(payload?: unknown, options: MuxwsRequestOptions = {}): Promise<R> {
    return peerOf(this).request(payload, options, false) as Promise<R>;
  }

  /** A unary request; resolves with the reply's headers and payload. */
  requestWithHeaders<R = unknown>(payload?: unknown, options: MuxwsRequestOptions = {}): Promise<MuxwsReply<R>> {
    return peerOf(this).request(payload, options, true) as Promise<MuxwsReply<R>>;
  }

  /** Stops reconnecting, sends `goaway`, drains (at most `drainMs`, default 10000) and closes. */
  close(options: { code?: number; reason?: string; drainMs?: number } = {}): Promise<void> {
    return peerOf(this).close(options);
  }

  /** Called once per socket loss; returns the function that removes the listener. */
  onClose(listener: (reason: CloseReason) => void): () => void {
    return peerOf(this).onClose(listener as (reason: unknown) => unknown);
  }

  /** Called after each re-established connection (attempt 1, 2, …); returns its remover. */
  onReconnect(listener: (attempt: number, peer: MuxwsPeer) => void): () => void {
    return peerOf(this).onReconnect(listener as (attempt: number, peer: object) => unknown);
  }

  /** Called when the REST fallback starts (with `restBase`) and ends (undefined); returns its remover. */
  onFallback(listener: (restBase: string | undefined) => void): () => void {
    return peerOf(this).onFallback(listener);
  }

  /**
   * Registers a push handler (`MuxwsStreamHandler`), called for each stream the server opens;
   * returns the function that removes it. While no handler is registered, pushes are refused
   * (`reset(REFUSED)`), as the muxws specification says (WSM-STM-033).
   */
  onStream(handler: MuxwsStreamHandler): () => void {
    return peerOf(this).onStream(handler as (payload: unknown, stream: object) => unknown);
  }

  /** Registers an open interceptor; returns its remover. */
  interceptOpen(interceptor: OpenInterceptor): () => void {
    return peerOf(this).interceptOpen(interceptor);
  }

  /** Skips a pending reconnect backoff and dials now. */
  reconnectNow(): void {
    peerOf(this).reconnectNow();
  }
}

/**
 * Connects to a muxws endpoint: `ws://…/ws`, `wss://…/ws`, or a path such as `/ws` on the page's
 * origin (http → ws, https → wss). Resolves once the first connection is established; rejects if
 * that first attempt fails (`ConnectionRefused` when the WebSocket never opened, `CodecMismatch`
 * when the server selected another subprotocol, a hello error, …) — or, with `lazy: true`, resolves
 * at once with a peer that keeps trying in the background.
 */
export async function connectMuxws(url: string, options: ConnectOptions = {}): Promise<MuxwsPeer> {
  const driver = await import('./muxws/driver.js');
  return driver.connect(url, options, (core) => new MuxwsPeer(core), muxwsServices, (core) => new MuxwsStream(core));
}
