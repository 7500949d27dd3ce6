/**
 * The options of `connectMuxws` as a peer is made from them (`ConnectOptions` in muxws.ts): read,
 * their types checked (a count is a non-negative whole number), and handed to the muxws module's
 * `peer_new`, which applies the defaults and checks the ranges (`crates/muxws-wasm/src/module.rs`,
 * `PeerConfig`), refusing a bad value with class `Config` (a TypeError here).
 */
import { mw, put, refusal, refusedError, services } from './module.js';
import { functions, type Listener } from './listeners.js';
import { peerNew, type PeerNewArgs } from '../abi/muxws.js';

/** The options of `connectMuxws` this driver reads (see `ConnectOptions` in muxws.ts). */
export type Options = Record<string, unknown>;

/**
 * `options[name]` for the module, which applies its default and checks its range: NaN when not
 * given; otherwise a non-negative whole number (what the module converts to the protocol's
 * integers), or with `backoff` any number, Infinity included, but NaN. Anything else is a
 * TypeError naming the option.
 */
function number(options: unknown, name: string, backoff?: true): number {
  const value = services.get(options, name);
  if (value === undefined) return NaN;
  if (backoff ? typeof value !== 'number' || Number.isNaN(value) : !services.isWhole(value)) {
    throw new TypeError(backoff ? `reconnect.${name} must be a number` : `${name} must be a non-negative whole number`);
  }
  return value as number;
}

/**
 * `options[name]` of a peer method (`close`'s `drainMs`, `request`'s `timeoutMs`): a non-negative
 * whole number, or `fallback` when not given.
 */
export function whole(options: unknown, name: string, fallback: number): number {
  const value = number(options, name);
  return Number.isNaN(value) ? fallback : value;
}

/**
 * Makes a peer in the module from `options`, adding its listeners to `onClose`, `onReconnect`,
 * `onStream` and `interceptors`; its handle. Throws a TypeError for a bad option (the module then holds nothing).
 */
export function makePeer(options: Options, onClose: Set<Listener>, onReconnect: Set<Listener>, onStream: Set<Listener>, interceptors: Set<Listener>): number {
  const subprotocols = services.get(options, 'subprotocols') ?? [];
  if (!Array.isArray(subprotocols) || subprotocols.some((p) => typeof p !== 'string' || p === '' || p.includes(','))) {
    throw new TypeError('subprotocols must be an array of subprotocol tokens');
  }
  const reconnect = services.get(options, 'reconnect');
  if (reconnect !== undefined && reconnect !== false && (reconnect === null || typeof reconnect !== 'object')) {
    throw new TypeError('reconnect must be false or an object { initialDelayMs, factor, maxDelayMs, jitter, maxAttempts }');
  }
  const lazy = services.get(options, 'lazy');
  if (lazy !== undefined && typeof lazy !== 'boolean') throw new TypeError('lazy must be a boolean');
  const hello = services.get(options, 'hello');
  const helloHeaders = services.get(options, 'helloHeaders');
  if (helloHeaders != null && typeof helloHeaders !== 'object') throw new TypeError('helloHeaders must be an object');
  for (const f of functions(options, 'onClose')) onClose.add(f);
  for (const f of functions(options, 'onReconnect')) onReconnect.add(f);
  for (const f of functions(options, 'onStream')) onStream.add(f);
  // Each in a wrapper of its own, as interceptOpen() adds them: one given twice runs twice.
  for (const f of functions(options, 'openInterceptors')) interceptors.add((...args) => f(...args));
  // The numbers as given (NaN: not given), their defaults and ranges the module's; all read before
  // the input window is written, which a getter of theirs could otherwise overwrite. By name, as
  // `peer_new` declares them (`PeerNewArgs`, rendered from `exports!`).
  const numbers: Omit<PeerNewArgs, 'lazy' | 'seed' | 'protocolsLen' | 'helloHeadersLen' | 'helloPayloadLen'> = {
    pingIntervalMs: number(options, 'pingIntervalMs'),
    pingTimeoutMs: number(options, 'pingTimeoutMs'),
    helloTimeoutMs: number(options, 'helloTimeoutMs'),
    maxFrameBytes: number(options, 'maxFrameBytes'),
    maxPayloadBytes: number(options, 'maxPayloadBytes'),
    initialDelayMs: number(reconnect, 'initialDelayMs', true),
    factor: number(reconnect, 'factor', true),
    maxDelayMs: number(reconnect, 'maxDelayMs', true),
    jitter: number(reconnect, 'jitter', true),
    maxAttempts: reconnect === false ? 0 : number(reconnect, 'maxAttempts', true),
    callConcurrency: number(options, 'callConcurrency'),
  };
  const withHello = hello !== undefined || helloHeaders != null;
  const texts = [
    subprotocols.join(','),
    helloHeaders != null ? JSON.stringify(helloHeaders) : null,
    withHello ? services.muxwsBody(hello, 'hello') ?? 'null' : null,
  ];
  const room = texts.reduce((sum, text) => sum + (text?.length ?? 0) * 3, 1);
  const { lengths } = put(texts, room);
  const handle = peerNew(mw, {
    ...numbers,
    // With a REST fallback the first connect is retried too: the peer is usable over REST meanwhile.
    lazy: lazy === true || services.get(options, 'restFallback') ? 1 : 0,
    seed: Math.random(),
    protocolsLen: lengths[0],
    helloHeadersLen: lengths[1],
    helloPayloadLen: lengths[2],
  });
  if (handle === 0) throw refusedError(refusal());
  return handle;
}

/** A peer's REST fallback: after how long away, and the origin its calls go to. */
export interface FallbackOptions {
  afterMs: number;
  base: string;
}

/**
 * The `restFallback` option of a peer dialling `url`: null when off (not given, false); `true` or
 * `{ afterMs = 3000, baseUrl = the peer's origin (ws → http, wss → https) }`.
 */
export function fallbackOf(options: Options, url: string): FallbackOptions | null {
  const given = services.get(options, 'restFallback');
  if (given === undefined || given === false) return null;
  if (given !== true && (given === null || typeof given !== 'object')) {
    throw new TypeError('restFallback must be true, false or an object { afterMs, baseUrl }');
  }
  const afterMs = whole(given, 'afterMs', 3000);
  const baseUrl = services.get(given, 'baseUrl') ?? new URL(url.replace(/^ws/i, 'http')).origin;
  if (typeof baseUrl !== 'string') throw new TypeError("restFallback.baseUrl must be a string such as 'https://api.example.com'");
  return { afterMs, base: baseUrl.replace(/\/+$/, '') };
}
