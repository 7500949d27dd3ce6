/**
 * One platform timer for an engine's next timeout (the calls module's, and each muxws peer's): set
 * to the engine's earliest deadline on the runtime's clock. A timer due no later than the new
 * deadline is left alone (it fires early, finds nothing due and is set again), so a call that
 * settles before its deadline costs no timer churn; such a stale timer is unref'd in Node, so it
 * never keeps the process alive.
 */
import { now } from './clock.js';

/** setTimeout's largest delay; a longer wait is set again when it fires. */
const MAX_TIMER_MS = 2_147_483_647;

/** The platform timer of one engine: `set(at)` wakes at `at`, `clear()` cancels it. */
export interface Wakeup {
  /** Wakes at `at` (the runtime's clock), or never for a negative `at`. */
  set(at: number): void;
  /** Cancels the timer. */
  clear(): void;
}

/** A `Wakeup` whose `fire` runs when the deadline set last is due (the engine is then told the time). */
export function wakeup(fire: () => void): Wakeup {
  let timer: (ReturnType<typeof setTimeout> & { ref?(): void; unref?(): void }) | null = null;
  let due = -1;
  const clear = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    due = -1;
  };
  return {
    set(at) {
      if (timer !== null && (at < 0 || due <= at)) {
        if (at < 0) timer.unref?.();
        else timer.ref?.();
        return;
      }
      clear();
      if (at < 0) return;
      due = at;
      timer = setTimeout(() => {
        timer = null;
        due = -1;
        fire();
      }, Math.min(Math.max(0, at - now()), MAX_TIMER_MS));
    },
    clear,
  };
}
