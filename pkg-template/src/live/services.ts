/**
 * What the live list's chunk (live/live-list.ts) is given of the package, as one object with named
 * members, handed to it by live/index.ts instead of imported: the chunk imports only types from
 * outside its folder, so the bundle has no shared chunk. The follower's services (every app ships
 * them for `watch()`) and three more.
 */
import { internalsOf } from '../caller.js';
import { issuedCalls } from '../compose.js';
import { followServices } from '../follow-services.js';
import { addListener } from '../runtime.js';

/** What the live list's chunk uses of the package. */
export const liveServices = {
  /** `HttpError`, `warn`, `now` (the package's one clock), `wakeup` (its one kind of timer), … */
  ...followServices,
  /** A proxy's checked options (its base path and transport). */
  internalsOf,
  /** Where the calls issued are told (own writes), and the resumed ones kept. */
  issuedCalls,
  /** Adds a call-activity listener (a write being repeated). */
  addListener,
};

/** The type of {@link liveServices}. */
export type LiveServices = typeof liveServices;
