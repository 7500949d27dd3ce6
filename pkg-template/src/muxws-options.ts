/**
 * The options of `connectMuxws` as a peer is made from them (`ConnectOptions` in muxws.ts): read,
 * their types checked, and handed to the muxws module's `peer_new`, which applies the defaults and
 * checks the ranges (`crates/muxws-wasm/src/module.rs`, `PeerConfig`), refusing a bad value with
 * class `Config` (a TypeError here).
 */
import { get, mw, muxwsBody, put, refusal, makeError } from './muxws-module.js';
import { functions, type Listener } from './muxws-listeners.js';

/** The options of `connectMuxws` this driver reads (see `ConnectOptions` in muxws.ts). */
export type Options = Record<string, unknown>;

/** `options[name]`: a non-negative whole number of at least `least`, or `fallback` when not given. */
export function whole(options: unknown, name: string, fallback: number, least = 0): number {
  const value = get(options, name);
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative whole number`);
  if (value < least) throw new TypeError(`${name} must be at least ${least}`);
  return value;
}

/**
 * `options[name]` for the module, which applies its default and checks its range: a number, NaN
 * when not given; anything else (NaN included) is a TypeError with `message`.
 */
function number(options: unknown, name: string, message: string): number {
  const value = get(options, name);
  if (value === undefined) return NaN;
  if (typeof value !== 'number' || Number.isNaN(value)) throw new TypeError(message);
  return value;
}

/** Whole-number option `name` for the module (its range is the module's to check). */
function count(options: unknown, name: string): number {
  return number(options, name, `${name} must be a non-negative whole number`);
}

/** Reconnect option `name` for the module. */
function backoff(reconnect: unknown, name: string): number {
  return number(reconnect, name, `reconnect.${name} must be a number`);
}

/** A peer the module made, and what of its options stays with the driver. */
export interface NewPeer {
  /** The module's handle of the peer. */
  handle: number;
  /** The frame cap (bytes). */
  cap: number;
  onClose: Listener[];
  onReconnect: Listener[];
  interceptors: Listener[];
}

/** Makes a peer in the module from `options`; throws a TypeError for a bad option (the module then holds nothing). */
export function makePeer(options: Options): NewPeer {
  const subprotocols = get(options, 'subprotocols') ?? [];
  if (!Array.isArray(subprotocols) || subprotocols.some((p) => typeof p !== 'string' || p === '' || p.includes(','))) {
    throw new TypeError('subprotocols must be an array of subprotocol tokens');
  }
  const reconnect = get(options, 'reconnect');
  if (reconnect !== undefined && reconnect !== false && (reconnect === null || typeof reconnect !== 'object')) {
    throw new TypeError('reconnect must be false or an object { initialDelayMs, factor, maxDelayMs, jitter, maxAttempts }');
  }
  const initial = backoff(reconnect, 'initialDelayMs');
  const factor = backoff(reconnect, 'factor');
  const maxDelay = backoff(reconnect, 'maxDelayMs');
  const jitter = backoff(reconnect, 'jitter');
  const attempts = reconnect === false ? 0 : backoff(reconnect, 'maxAttempts');
  const cap = count(options, 'maxFrameBytes');
  const maxPayload = count(options, 'maxPayloadBytes');
  const concurrency = count(options, 'callConcurrency');
  const lazy = get(options, 'lazy');
  if (lazy !== undefined && typeof lazy !== 'boolean') throw new TypeError('lazy must be a boolean');
  const hello = get(options, 'hello');
  const helloHeaders = get(options, 'helloHeaders');
  if (helloHeaders != null && typeof helloHeaders !== 'object') throw new TypeError('helloHeaders must be an object');
  const onClose = functions(options, 'onClose');
  const onReconnect = functions(options, 'onReconnect');
  // Each in a wrapper of its own, as interceptOpen() adds them: one given twice runs twice.
  const interceptors = functions(options, 'openInterceptors').map((f): Listener => (...args) => f(...args));
  const withHello = hello !== undefined || helloHeaders != null;
  const texts = [
    subprotocols.join(','),
    helloHeaders != null ? JSON.stringify(helloHeaders) : null,
    withHello ? muxwsBody(hello, 'hello') ?? 'null' : null,
  ];
  const room = texts.reduce((sum, text) => sum + (text?.length ?? 0) * 3, 1);
  const { lengths } = put(texts, room);
  const handle = mw.peer_new(
    count(options, 'pingIntervalMs'),
    count(options, 'pingTimeoutMs'),
    count(options, 'helloTimeoutMs'),
    cap,
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
  if (handle === 0) {
    const { cls, message } = refusal();
    throw makeError(cls, message);
  }
  return { handle, cap: mw.frame_cap(handle), onClose, onReconnect, interceptors };
}
