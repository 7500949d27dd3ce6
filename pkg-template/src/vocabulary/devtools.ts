/**
 * What the devtools panel (`@dynamicforms/fastapi-viewsets/devtools`, in development only) is told
 * by the package: its tap, set by `internalDevtools.tap()`. Types only. While no tap is set (every
 * production build, whose subpath is a stub), each point that would tell it costs one test of an
 * undefined variable.
 */
import type { CallRecord, Outcome } from './call-types.js';

/** The kinds of live objects the tap is shown as they are made. */
export type SeenKind = 'follower' | 'live' | 'peer';

/** The devtools' tap: read-only but for `ended()`'s answer, which can throw an answer away. */
export interface DevTap {
  /** Attempt `attempt` of `call` goes out now (its transport's `name` is the one it goes over). */
  sent(call: Readonly<CallRecord>, attempt: number): void;
  /**
   * Attempt `attempt` of `call` ended (`end` an `EndCode` with its flags, `status` the answer's).
   * Returns undefined to leave it as it is, or the failure the runtime reports instead (the
   * devtools' "lose the next answer": the answer the server sent is thrown away, the attempt ends
   * as a network error and is repeated under the same key).
   */
  ended(call: Readonly<CallRecord>, attempt: number, end: number, status: number, outcome: Outcome): Outcome | undefined;
  /** A follower's handle, a live list or a muxws peer was made. */
  seen(kind: SeenKind, handle: object): void;
  /** The follower of `handle` resynced (the server's log no longer held its cursor): its `onResync` runs now. */
  resynced(handle: object): void;
}
