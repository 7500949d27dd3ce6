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
import { ERROR_CLASSES } from './abi/muxws-errors.js';
import { TransportUrlError, type ErrorProps } from './errors.js';
import { hasDetail, intercept, restTransport } from './rest.js';
import { now } from './clock.js';
import { online } from './online.js';
import { addStats, captureHeaders, failAttempt, peerState, registerPeer, report, unregisterPeer, warn } from './runtime.js';
import { wakeup } from './timer.js';

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
  /** The muxws error classes by the module's class code (rendered from the module's table). */
  ERROR_CLASSES as readonly (new (message: string, props?: ErrorProps) => Error)[],
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
  now,
  wakeup,
  /** The REST transport, which a peer's calls fall back to (`restFallback`). */
  restTransport,
  /** The package's one source of online / offline. */
  online,
] as const;

/** The type of {@link driverKit}. */
export type DriverKit = typeof driverKit;
