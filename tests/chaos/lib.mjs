// Helpers of the chaos and leak tests (tests/chaos/*.test.mjs): a seeded PRNG, a bounded worker
// pool, fault sequences for the fault proxy, and the checks every chaos test ends with.
import assert from 'node:assert/strict';

/** A seeded PRNG (mulberry32): the same seed gives the same fault mix. Returns floats in [0, 1). */
export function rng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of this run: CHAOS_SEED when set, a fresh one otherwise (printed, to replay a failure). */
export function runSeed() {
  const given = process.env.CHAOS_SEED;
  return given ? Number(given) >>> 0 : (Date.now() ^ (process.pid << 16)) >>> 0;
}

/** Fisher–Yates shuffle in place with `random`. */
export function shuffle(list, random) {
  for (let i = list.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `condition()` is truthy; rejects with `what` after `ms`. */
export async function until(condition, what, ms = 30_000, stepMs = 50) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(stepMs);
  }
}

/**
 * Runs `task(i)` for i in 0..count-1 with at most `concurrency` at a time. Every task settles;
 * resolves with `{ results, errors }` (errors as [i, error]). `onSettled(done)` after each one.
 */
export async function pool(count, concurrency, task, onSettled = () => {}) {
  const results = new Array(count);
  const errors = [];
  let next = 0;
  let done = 0;
  async function worker() {
    while (next < count) {
      const i = next;
      next += 1;
      try {
        results[i] = await task(i);
      } catch (error) {
        errors.push([i, error]);
      }
      done += 1;
      onSettled(done);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { results, errors };
}

/**
 * A shuffled sequence of `slots` proxy modes in which each entry of `mix` ({mode: fraction}) takes
 * round(fraction × slots) places and every other place is `delay:0` (forwarded untouched).
 */
export function faultSequence(slots, mix, random) {
  const sequence = [];
  for (const [mode, fraction] of Object.entries(mix)) {
    for (let i = 0; i < Math.round(fraction * slots); i += 1) sequence.push(mode);
  }
  if (sequence.length > slots) throw new Error('the fault mix takes more than every slot');
  while (sequence.length < slots) sequence.push(CLEAN);
  return shuffle(sequence, random);
}

/** The pass-through "fault": forwarded at once, answered untouched. */
export const CLEAN = 'delay:0';

/**
 * Queues `sequence` on the proxy for `{path, method}`: runs of one mode become one rule with a
 * count. The proxy uses the first queued rule that matches, so it consumes them in the order they
 * were queued. Control calls go out `parallel` at a time (each one is answered after 0.1 s), so
 * neighbouring rules may swap places, which a shuffled sequence does not mind. Queuing a fault
 * closes the proxy's idle client connections, among them a control call that has not been read
 * yet: such a call was not queued and is sent again. Checks the proxy's listing against the sequence.
 */
export async function queueSequence(stack, sequence, { path, method, parallel = 16 }) {
  const rules = [];
  for (const mode of sequence) {
    const last = rules[rules.length - 1];
    if (last && last.mode === mode) last.count += 1;
    else rules.push({ mode, count: 1 });
  }
  let resent = 0;
  const { errors } = await pool(rules.length, parallel, async (i) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await stack.fault(rules[i].mode, { count: rules[i].count, path, method });
      } catch (error) {
        if (!(error instanceof TypeError) || attempt >= 100) throw error; // TypeError: fetch failed
        resent += 1;
        await sleep(5 + Math.random() * 20);
      }
    }
  });
  if (errors.length) throw errors[0][1];
  const listed = tally((await stack.faults()).faults.flatMap((rule) => Array(rule.remaining).fill(rule.mode)));
  assert.deepEqual(listed, tally(sequence), 'the faults the proxy holds are the sequence queued');
  return { rules: rules.length, resent };
}

/** Counts of each value in `list`, as a plain object sorted by key. */
export function tally(list) {
  const counts = {};
  for (const value of list) counts[value] = (counts[value] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

/** Collects activity events of every call (start/retry/settle) until `stop()`. */
export function activityRecorder(pkg) {
  const retries = [];
  let starts = 0;
  let settles = 0;
  const stop = pkg.onCallActivity((event) => {
    if (event.type === 'start') starts += 1;
    else if (event.type === 'settle') settles += 1;
    else if (event.type === 'retry') retries.push({ key: event.key, ended: event.ended, attempt: event.attempt });
  });
  return {
    stop,
    get starts() {
      return starts;
    },
    get settles() {
      return settles;
    },
    retries,
  };
}

/**
 * The backend's request log must show, for every key of `keys`, exactly one entry whose action ran,
 * and no run of the action under any other key. Entries are written when an answer has been sent, a
 * moment after a repeat may already have read the stored outcome: waits for them up to `waitMs`.
 */
export async function assertRanOncePerKey(stack, keys, { path = '/items/slow', waitMs = 20_000 } = {}) {
  const wanted = new Set(keys.map((key) => `"${key}"`));
  let entries = [];
  await until(async () => {
    entries = (await stack.log()).filter((entry) => entry.path === path && entry.ran);
    return entries.length >= wanted.size;
  }, `${wanted.size} log entries of ${path} that ran`, waitMs, 200).catch(() => {});
  const runs = new Map();
  for (const entry of entries) runs.set(entry.idempotency_key, (runs.get(entry.idempotency_key) ?? 0) + 1);
  const twice = [...runs].filter(([, n]) => n > 1);
  const missing = [...wanted].filter((key) => !runs.has(key));
  const strangers = [...runs.keys()].filter((key) => !wanted.has(key));
  assert.deepEqual(twice, [], 'keys whose action ran more than once');
  assert.deepEqual(missing, [], 'keys whose action never ran');
  assert.deepEqual(strangers, [], 'runs under keys of no call');
  return entries;
}

/** Nothing left in the module: no call, no engine call, no armed timer (after the stale one fired). */
export async function assertQuiet(pkg, { listeners = 0, waitMs = 10_000 } = {}) {
  assert.deepEqual(pkg.pendingCalls(), [], 'pendingCalls()');
  assert.equal(pkg.pendingCallCount(), 0, 'pendingCallCount()');
  // a deadline of a settled attempt may still be armed; it fires, finds nothing and is not re-armed
  await until(() => !pkg.internalStats().timerArmed, 'the runtime timer to disarm', waitMs).catch(() => {});
  const stats = pkg.internalStats();
  assert.equal(stats.calls, 0, `internalStats().calls (${JSON.stringify(stats)})`);
  assert.equal(stats.engineCalls, 0, `internalStats().engineCalls (${JSON.stringify(stats)})`);
  assert.equal(stats.listeners, listeners, `internalStats().listeners (${JSON.stringify(stats)})`);
  assert.equal(stats.timerArmed, false, `internalStats().timerArmed (${JSON.stringify(stats)})`);
  return stats;
}

/** Prints one line of a test's summary (shown by the test runner's reporter). */
export function report(t, line) {
  t.diagnostic(line);
  console.log(`# ${line}`);
}
