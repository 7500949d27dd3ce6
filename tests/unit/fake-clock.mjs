// A fake clock for the facade's unit tests: it replaces setTimeout/clearTimeout,
// setInterval/clearInterval, Date (Date.now() and `new Date()`) and performance.now() so that all
// of them read one virtual time, which moves only when a test calls `clock.advance(ms)`.
//
//   const clock = installClock();            // before the package is imported
//   await clock.advance(1000);               // runs each due timer in order, then flushes promises
//   clock.now();                             // the virtual Date.now()
//   clock.timerCount();                      // timers still armed (a leak check)
//   clock.uninstall();
//
// performance.now() is kept consistent with Date.now(): performance.timeOrigin + performance.now()
// equals the virtual Date.now(), whichever of the two the runtime reads.
//
// advance() steps from one due timer to the next: it sets the time to the timer's due moment,
// runs it, then lets promise callbacks and microtasks run (a few turns of the real setImmediate,
// which is never faked) before it looks for the next one. So a timer armed by code that a timer
// or an answer started is run within the same advance() when it falls due within it.

const real = {
  setTimeout: globalThis.setTimeout,
  clearTimeout: globalThis.clearTimeout,
  setInterval: globalThis.setInterval,
  clearInterval: globalThis.clearInterval,
  setImmediate: globalThis.setImmediate,
  Date: globalThis.Date,
};

/** Lets pending promise callbacks and microtasks run: `turns` turns of the real event loop. */
export async function flush(turns = 8) {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => real.setImmediate(resolve));
}

/** Installs the fake clock; `start` is the virtual Date.now() at the start (an epoch ms). */
export function installClock({ start = Date.UTC(2026, 0, 1, 12, 0, 0) } = {}) {
  let now = start;
  let sequence = 0;
  const timers = new Map();

  class Handle {
    constructor(id) {
      this.id = id;
    }
    ref() {
      return this;
    }
    unref() {
      return this;
    }
    hasRef() {
      return true;
    }
    refresh() {
      const timer = timers.get(this.id);
      if (timer) timer.at = now + timer.ms;
      return this;
    }
    [Symbol.toPrimitive]() {
      return this.id;
    }
  }

  function arm(fn, ms, args, repeat) {
    if (typeof fn !== 'function') throw new TypeError('the callback must be a function');
    const delay = Math.max(0, Number(ms) || 0);
    const id = ++sequence;
    timers.set(id, { id, at: now + delay, ms: delay, fn, args, repeat, order: id });
    return new Handle(id);
  }
  function disarm(handle) {
    if (handle == null) return;
    timers.delete(typeof handle === 'object' ? handle.id : Number(handle));
  }

  class FakeDate extends real.Date {
    constructor(...args) {
      if (args.length === 0) super(now);
      else super(...args);
    }
    static now() {
      return now;
    }
  }

  globalThis.setTimeout = (fn, ms, ...args) => arm(fn, ms, args, false);
  globalThis.clearTimeout = disarm;
  globalThis.setInterval = (fn, ms, ...args) => arm(fn, ms, args, true);
  globalThis.clearInterval = disarm;
  globalThis.Date = FakeDate;
  const hadOwnNow = Object.hasOwn(performance, 'now');
  const originalNow = performance.now;
  Object.defineProperty(performance, 'now', {
    configurable: true,
    writable: true,
    value: () => now - performance.timeOrigin,
  });

  /** The earliest armed timer due no later than `limit`, in the order timers were armed for ties. */
  function nextDue(limit) {
    let best = null;
    for (const timer of timers.values()) {
      if (timer.at > limit) continue;
      if (!best || timer.at < best.at || (timer.at === best.at && timer.order < best.order)) best = timer;
    }
    return best;
  }

  return {
    /** The virtual Date.now(). */
    now: () => now,
    /** How many timers are armed. */
    timerCount: () => timers.size,
    /** The due times (virtual epoch ms) of the armed timers, earliest first. */
    dueTimes: () => [...timers.values()].map((timer) => timer.at).sort((a, b) => a - b),
    /** Moves time forward by `ms`, running every timer due meanwhile, in order, with promises flushed after each. */
    async advance(ms = 0) {
      const target = now + ms;
      await flush();
      for (let timer = nextDue(target); timer; timer = nextDue(target)) {
        now = Math.max(now, timer.at);
        if (timer.repeat) {
          timer.at = now + Math.max(1, timer.ms);
          timer.order = ++sequence;
        } else {
          timers.delete(timer.id);
        }
        timer.fn(...timer.args);
        await flush();
      }
      now = target;
      await flush();
    },
    /** Runs what is due now and flushes promises, without moving time. */
    settle() {
      return this.advance(0);
    },
    uninstall() {
      globalThis.setTimeout = real.setTimeout;
      globalThis.clearTimeout = real.clearTimeout;
      globalThis.setInterval = real.setInterval;
      globalThis.clearInterval = real.clearInterval;
      globalThis.Date = real.Date;
      if (hadOwnNow) performance.now = originalNow;
      else delete performance.now;
      timers.clear();
    },
  };
}
