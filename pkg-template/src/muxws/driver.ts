/**
 * The muxws driver, loaded by `connectMuxws()` only (a dynamic import), so an app that uses REST
 * alone ships neither it nor the muxws module. It instantiates the muxws module
 * (`crates/muxws-wasm`: the protocol, by peer handle), drives the platform `WebSocket` for it, keeps
 * what is JavaScript about each stream (payload strings, promises, listeners), and is the runtime's
 * transport for the ViewSet calls over its peers (docs/boundary.md, "The muxws module").
 *
 * This file is its entry: loading the module once, and `connect`. The rest, one concept a file:
 * `muxws/module.ts` (the module's exports, input window, output record, errors),
 * `muxws/options.ts` (the connect options, into `peer_new`), `muxws/peer.ts` (`PeerCore`: the peer
 * API and the pump), `muxws/stream.ts` (`Pending`, `StreamCore`), `muxws/calls.ts` (the runtime's
 * transport), `muxws/socket.ts` (the platform `WebSocket`), `muxws/listeners.ts`.
 *
 * - Payloads stay JavaScript strings: made once by `JSON.stringify`, read by the module a window at
 *   a time (`TextEncoder.encodeInto` into its memory, by the reader in muxws/module.ts); answers in
 *   fragments are joined and parsed here, and the module is told whether they parsed.
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
import type { MuxwsServices } from '../muxws-kit.js';
import { instantiate, mw, services, sources } from './module.js';
import type { Options } from './options.js';
import { followOnline, PeerCore } from './peer.js';
import type { StreamCore } from './stream.js';

export type { PeerCore } from './peer.js';
export type { StreamCore } from './stream.js';

/** The module being loaded, or loaded; reset when loading fails, so a later `connect` tries again. */
let loading: Promise<void> | null = null;

/** Compiles and instantiates the muxws module once, with what the package lends the driver. */
function load(given: MuxwsServices): Promise<void> {
  loading ??= instantiate(given).then(() => {
    followOnline();
    services.addStats(() => ({ muxwsMemoryBytes: mw.memory.buffer.byteLength, muxwsSources: sources.size }));
  }).catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

/** The options `connectMuxws` takes (muxws.ts: `ConnectOptions`). */
const CONNECT_OPTIONS = 'subprotocols hello helloHeaders helloTimeoutMs reconnect pingIntervalMs pingTimeoutMs maxPayloadBytes maxFrameBytes callConcurrency lazy restFallback onClose onReconnect onStream openInterceptors'.split(' ');

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
  if (!/^wss?:\/\//i.test(url)) throw new services.TransportUrlError(`muxws dials ws:// or wss:// URLs (or a path on the page's origin), not ${url}`);
  return url;
}

/**
 * `connectMuxws(url, options)`: a peer, dialling at once. Resolves once the first connection is
 * established (rejecting if that attempt fails), or at once with `lazy: true`.
 */
export async function connect<P extends object>(
  url: unknown,
  options: unknown,
  wrap: (core: PeerCore) => P,
  given: MuxwsServices,
  wrapStream: (core: StreamCore) => object,
): Promise<P> {
  await load(given);
  const target = socketUrl(url);
  if (typeof (globalThis as { WebSocket?: unknown }).WebSocket !== 'function') {
    throw new TypeError('WebSocket is not available here (Node 20 needs --experimental-websocket)');
  }
  if (options !== undefined && (options === null || typeof options !== 'object')) throw new TypeError('connectMuxws options must be an object');
  // An option this client does not have is refused, not ignored: the muxws package's client has
  // some (upgrade headers) whose silent loss would change what an app does.
  for (const name of Object.keys(options ?? {})) {
    if (!CONNECT_OPTIONS.includes(name)) throw new TypeError(`connectMuxws has no option "${name}"`);
  }
  const core = new PeerCore(target, (options ?? {}) as Options);
  const peer = wrap(core);
  core.start(peer, wrapStream);
  if (services.get(options, 'lazy') === true) return peer;
  await core.ready;
  return peer;
}
