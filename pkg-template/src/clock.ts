/**
 * The runtime's one clock: milliseconds on a monotonic clock (`performance.now()`), counted from
 * the page's start (`performance.timeOrigin`), so a reading is close to `Date.now()` but never
 * jumps when the wall clock is set. The engines' deadlines, delays and heartbeats are measured on
 * it; only what must compare with wall-clock time keeps `Date.now()` (an HTTP date in
 * `Retry-After`, the issue time of a call persisted across a reload).
 */
export function now(): number {
  return performance.timeOrigin + performance.now();
}
