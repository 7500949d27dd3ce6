/**
 * The follower's backoff (its polls and subscribes after failures, a resync storm): the call
 * engine's formula, so that the package waits to try again by one rule. The wait before try `n` is
 * `d = min(base · 2^(n−1), cap)`, then jittered to `d − ⌊d · j · u⌋` with `u` uniform in [0, 1)
 * and `j` ½ here (`RepeatPolicy::jittered_delay_before` in viewsets-core, whose `j` is the call's
 * `repeat.jitter`): it only ever shortens the wait, and many clients that failed together do not
 * come back together.
 *
 * Why it is written here again rather than asked of the calls module: the follower's engine runs in
 * its own chunk, and the calls module's formula is reachable only inside the call engine (per call,
 * seeded by the call's own random number, for a schedule a test can replay); an export for it would
 * add to the module every app loads, the REST-only app included. The muxws reconnect's backoff
 * (muxws-proto's `reconnect`) is another formula on purpose: the muxws SPEC fixes it (WSM-RCN-002,
 * 003: a factor, a cap and jitter on both sides of the delay), and a peer must dial as the SPEC says.
 */

/**
 * The wait before try `attempt` (1 for the first repeat): `baseMs` doubled per try up to `capMs`
 * (never under `baseMs`), less a random half of it at most, in whole ms (`random()` in [0, 1)).
 */
export function backoff(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const full = Math.min(Math.max(capMs, baseMs), baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return full - Math.floor((full / 2) * random());
}
