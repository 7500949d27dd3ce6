/**
 * What the follower's chunk (`follow/`) is given of the package, as one object with named members,
 * handed to it by follow.ts instead of imported: the chunk imports from outside its folder only
 * types and shared/'s rules (a copy of which it carries), so nothing in it imports follow.ts back. Also the
 * shapes both sides share: the checked options and what a follower's handle is made of.
 */
import { now } from './clock.js';
import { issueCall } from './compose.js';
import { HttpError } from './errors.js';
import type { Follower, FollowerMode } from './vocabulary/events.js';
import { online } from './online.js';
import { restTransport } from './rest.js';
import { warn } from './runtime.js';
import { wakeup } from './timer.js';

/** What the follower's chunk uses of the package. */
const services = {
  /** The error class of an answer's status (a refusal is one of 400–499 other than 429). */
  HttpError,
  /** Reports what the application or the platform threw, the follower going on. */
  warn,
  /** Issues a call of this package (a key of its own, repeated under it). */
  issueCall,
  /** The REST transport (a peer closed for good polls over REST at its origin). */
  restTransport,
  /** The package's one clock. */
  now,
  /** The package's one kind of platform timer. */
  wakeup,
  /** The package's one source of online / offline. */
  online,
};

/**
 * What the follower's chunk uses of the package, and `resynced`, which tells the devtools that the
 * follower of a handle resynced: set by `internalDevtools.tap()` only, so that an app without the
 * devtools ships nothing of it.
 */
export type FollowServices = typeof services & { resynced?: (handle: object) => void };

/** The follower's services (see {@link FollowServices}). */
export const followServices: FollowServices = services;

/** The checked options the engine reads (callbacks and numbers, as given). */
export interface CheckedFollow {
  eventsPath: string;
  from: number | null;
  persist: boolean;
  pollIntervalMs: number;
  checkIntervalMs: number;
  onEvent?: (event: never) => unknown;
  onResync?: (info: never) => unknown;
  onRefused?: (error: HttpError) => unknown;
}

/** What a follower's handle shows, written by the follower's chunk alone (readonly to the application). */
export interface FollowerState {
  mode: FollowerMode;
  cursor: number | null;
  scope: string | undefined;
  error: Error | undefined;
}
