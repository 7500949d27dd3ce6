/**
 * The facade's one backoff (the follower's polls and subscribes after failures, a resync storm):
 * doubling from a base to a cap, with jitter, so that many clients that failed together do not
 * come back together. The calls' repeats and the muxws reconnects keep their policies in Rust.
 */

/**
 * The wait before try `attempt` (1 for the first repeat): `baseMs` doubled per try up to `capMs`
 * (never under `baseMs`), then a random half of it taken off at most (`random()` in [0, 1)).
 */
export function backoff(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const full = Math.min(Math.max(capMs, baseMs), baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return full * (1 - random() / 2);
}
