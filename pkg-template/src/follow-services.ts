/**
 * What the follower's chunk (`follow/`) is given of the package, as one object with named members,
 * handed to it by follow.ts instead of imported: the chunk imports only types from outside its
 * folder, so the bundle has no shared chunk and nothing in it imports follow.ts back. Also the
 * shapes both sides share: the checked options and what a follower's handle is made of.
 */
import { now } from './clock.js';
import { issueCall } from './compose.js';
import { HttpError, StreamReset } from './errors.js';
import type { Follower, FollowerMode } from './events.js';
import { online } from './online.js';
import { restTransport } from './rest.js';
import { warn } from './runtime.js';
import { wakeup } from './timer.js';

/** The muxws reset code of a payload over the peer's `maxPayloadBytes` (muxws SPEC, PAYLOAD_TOO_LARGE). */
const PAYLOAD_TOO_LARGE = 7;

/** What the follower's chunk uses of the package. */
export const followServices = {
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
  /** Whether `error` says an answer was over the transport's size cap (asking again would bring it again). */
  tooLarge: (error: unknown): boolean => error instanceof StreamReset && error.code === PAYLOAD_TOO_LARGE,
};

/** The type of {@link followServices}. */
export type FollowServices = typeof followServices;

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

/** What a follower's handle shows, written by the follower's chunk alone (the handle reads it through getters). */
export interface FollowerState {
  mode: FollowerMode;
  cursor: number | null;
  scope: string | undefined;
  error: Error | undefined;
}

/** A follower's handle and what the chunk drives it with. */
export interface FollowerInternals {
  readonly handle: Follower;
  readonly state: FollowerState;
  /** `subscribe()`'s listeners, told once per batch after the state changed. */
  readonly listeners: Set<(follower: Follower) => void>;
  /** Settles `ready`. */
  readonly ready: readonly [resolve: () => void, reject: (error: unknown) => void];
}
