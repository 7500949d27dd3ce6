/**
 * What the live list's chunk (live/live-list.ts) is given of the package, as one object with named
 * members, handed to it by live/index.ts instead of imported: the chunk imports only types from
 * outside its folder, so the bundle has no shared chunk.
 */
import { internalsOf } from '../caller.js';
import { now } from '../clock.js';
import { issuedCalls } from '../compose.js';
import { HttpError } from '../errors.js';
import { addListener, warn } from '../runtime.js';
import { wakeup } from '../timer.js';

/** What the live list's chunk uses of the package. */
export const liveServices = {
  /** The error class of an answer's status: an own write answered with an error failed. */
  HttpError,
  /** Reports what a listener threw, the list going on. */
  warn,
  /** A proxy's checked options (its base path and transport). */
  internalsOf,
  /** Where the calls issued are told (own writes), and the resumed ones kept. */
  issuedCalls,
  /** Adds a call-activity listener (a write being repeated). */
  addListener,
  /** The package's one clock. */
  now,
  /** The package's one kind of platform timer. */
  wakeup,
};

/** The type of {@link liveServices}. */
export type LiveServices = typeof liveServices;
