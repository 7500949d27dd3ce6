/**
 * What the muxws driver uses of the rest of the package, handed to it by `connectMuxws()` instead
 * of imported, as one object with named members (the driver keeps it as `services`, in
 * muxws/module.ts). The driver (muxws/) imports nothing from outside its folder but types, the const
 * enums and functions rendered into `abi/muxws.ts` (which only it links), so that all of it ships in
 * the driver's file (`muxws-driver.js`, loaded on demand) and nothing of it in a file shared with
 * `index.js`: such a file `index.js` would import statically, one more round trip before an app's
 * first call, for every app, muxws or not.
 */
import { muxwsBody } from './body.js';
import { pythonJson } from './python-json.js';
import { describe, get } from './caller.js';
import { ERROR_CLASSES } from './abi/muxws-errors.js';
import { TransportUrlError, type ErrorProps } from './errors.js';
import { intercept, restTransport } from './rest.js';
import { TOKEN, VALUE } from './headers.js';
import { hasDetail, isWhole } from './shared/values.js';
import { now } from './clock.js';
import { online } from './online.js';
import { addStats, captureHeaders, failAttempt, peerState, registerPeer, report, unregisterPeer, warn } from './runtime.js';
import { wakeup } from './timer.js';

/**
 * The functions and error classes the muxws driver is given (made once; a plain literal, so an app
 * that never calls `connectMuxws()` drops it and what only it names).
 */
export const muxwsServices = {
  /** `body.ts`: a payload's JSON text. */
  muxwsBody,
  /** `python-json.ts`: JSON text as the backend writes a payload (what a call falling back to REST sends). */
  pythonJson,
  /** `caller.ts`: a value described for a message. */
  describe,
  /** `caller.ts`: a defensive property read. */
  get,
  /** The muxws error classes by the module's class code (rendered from the module's table). */
  errorClasses: ERROR_CLASSES as readonly (new (message: string, props?: ErrorProps) => Error)[],
  /** `errors.ts`: the error of a URL muxws cannot dial. */
  TransportUrlError,
  /** `rest.ts`: whether an answer body is an error body holding `detail`. */
  hasDetail,
  /** `rest.ts`: the proxy's interceptors applied to a call's headers. */
  intercept,
  /** `runtime.ts`: adds a source of `stats()` figures. */
  addStats,
  /** `runtime.ts`: keeps an attempt's final headers for its repeats. */
  captureHeaders,
  /** `runtime.ts`: tells the engine a peer's state. */
  peerState,
  /** `runtime.ts`: registers a peer and its transport. */
  registerPeer,
  /** `runtime.ts`: reports an attempt's answer. */
  report,
  /** `runtime.ts`: forgets a peer. */
  unregisterPeer,
  /** `runtime.ts`: a warning on the console. */
  warn,
  /** `runtime.ts`: ends an attempt with an error. */
  failAttempt,
  /** `clock.ts`: the time the modules are given. */
  now,
  /** `timer.ts`: one platform timer. */
  wakeup,
  /** `rest.ts`: the REST transport, which a peer's calls fall back to (`restFallback`). */
  restTransport,
  /** The package's one source of online / offline. */
  online,
  /** `shared/values.ts`: a whole number, at least a bound (the driver's options). */
  isWhole,
  /** `headers.ts`: an HTTP token, what a header name may hold (a stream's, after a pseudo-header's `:`). */
  TOKEN,
  /** `headers.ts`: what a header value may hold. */
  VALUE,
};

/** The type of {@link muxwsServices}: what the driver may use of the package. */
export type MuxwsServices = typeof muxwsServices;
