/**
 * What the muxws driver uses of the rest of the package, handed to it by `connectMuxws()` instead
 * of imported. The driver imports nothing but types and its own module's glue (wasm-loader.ts,
 * which only it uses, so that it ships in the driver's file), so the bundler emits two files:
 * `index.js` and the `muxws-driver.js` it loads on demand. Were the driver to import
 * these modules, they would go into a third, shared file that `index.js` imports statically: one
 * more round trip before an app's first call, for every app, muxws or not.
 */
import { muxwsBody } from './body.js';
import { describe, get } from './caller.js';
import {
  CodecMismatch,
  ConnectionClosed,
  ConnectionGoingAway,
  ConnectionLost,
  ConnectionRefused,
  ProtocolError,
  RemoteError,
  StreamClosed,
  StreamRefused,
  StreamReset,
  StreamTimeout,
  TransportUrlError,
  type ErrorProps,
} from './errors.js';
import { hasDetail, intercept } from './rest.js';
import { addStats, captureHeaders, failAttempt, peerState, registerPeer, report, unregisterPeer, warn } from './runtime.js';

/**
 * The functions and error classes the muxws driver is given (one array, made once; a plain literal,
 * so an app that never calls `connectMuxws()` drops it and what only it names). An array, not an
 * object: neither file then spells the names (the driver takes the items out by position, in
 * `load`, in this order; their types, each different, catch a mismatch).
 */
export const driverKit = [
  muxwsBody,
  describe,
  get,
  /**
   * The muxws error classes by the module's class code (records.rs; 0 and 1 are both protocol
   * errors): the driver names none of them (12, `ErrorClass.Config`, is a TypeError).
   */
  [
    ProtocolError,
    ProtocolError,
    ConnectionClosed,
    ConnectionGoingAway,
    StreamClosed,
    CodecMismatch,
    ConnectionRefused,
    StreamReset,
    RemoteError,
    StreamTimeout,
    StreamRefused,
    ConnectionLost,
  ] as readonly (new (message: string, props?: ErrorProps) => Error)[],
  TransportUrlError,
  hasDetail,
  intercept,
  addStats,
  captureHeaders,
  peerState,
  registerPeer,
  report,
  unregisterPeer,
  warn,
  failAttempt,
] as const;

/** The type of {@link driverKit}. */
export type DriverKit = typeof driverKit;
