/**
 * The options of `connectMuxws` as a peer is made from them (`ConnectOptions` in muxws.ts): read,
 * checked, and handed to the muxws module's `peer_new`.
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

/** `options[name]`: a number (Infinity allowed), or `fallback`. */
function number(options: unknown, name: string, fallback: number): number {
  const value = get(options, name);
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value)) throw new TypeError(`reconnect.${name} must be a number`);
  return value;
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

/** Makes a peer in the module from `options`; throws a TypeError for a bad option, before the module holds anything. */
export function makePeer(options: Options): NewPeer {
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
  const cap = whole(options, 'maxFrameBytes', 65_536, 64);
  const maxPayload = whole(options, 'maxPayloadBytes', 67_108_864, 1);
  const concurrency = whole(options, 'callConcurrency', 100, 1);
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
    whole(options, 'pingIntervalMs', 20_000),
    whole(options, 'pingTimeoutMs', 10_000),
    whole(options, 'helloTimeoutMs', 10_000),
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
  return { handle, cap, onClose, onReconnect, interceptors };
}
