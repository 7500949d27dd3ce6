// Helpers of the chaos and leak tests (tests/chaos/*.test.mjs): a seeded PRNG, a bounded worker
// pool, faults targeted at single calls through the fault proxy, and the checks every test ends with.
import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import http from 'node:http';

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

/**
 * Every call of a chaos test carries this signal; the test's after() hook aborts it, so a failed
 * run does not leave calls waiting for repeats (which would keep the process alive).
 */
export const teardown = new AbortController();
setMaxListeners(0, teardown.signal); // every pending call listens to it

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
 * Spellings of `path` the fault proxy tells apart and the backend does not: the proxy matches a
 * rule by prefix of the raw request path, uvicorn percent-decodes the path before routing. Each
 * letter is written plain, as `%xx` or as `%XX` (upper and lower hex where they differ). No spelling
 * is a prefix of another (they decode to the same text), and the plain one is left out. Shuffled.
 */
export function spellings(path, random) {
  let variants = [''];
  for (const char of path) {
    const forms = [char];
    if (/[a-z]/i.test(char)) {
      const hex = char.charCodeAt(0).toString(16);
      forms.push(`%${hex}`);
      if (hex.toUpperCase() !== hex) forms.push(`%${hex.toUpperCase()}`);
    }
    variants = variants.flatMap((prefix) => forms.map((form) => prefix + form));
  }
  return shuffle(variants.filter((variant) => variant !== path), random);
}

/** Picks a key of `weights` ({key: weight}) with probability proportional to its weight. */
export function pick(weights, random) {
  const total = Object.values(weights).reduce((a, b) => a + b, 0);
  let r = random() * total;
  for (const [key, weight] of Object.entries(weights)) {
    r -= weight;
    if (r < 0) return key;
  }
  return Object.keys(weights).at(-1);
}

/** GET `url` over a fresh connection (no keep-alive, no retry by the client); resolves with its JSON. */
function getJson(url) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        text += chunk;
      });
      response.on('end', () => {
        if (response.statusCode !== 200) reject(new Error(`GET ${url}: ${response.statusCode} ${text}`));
        else resolve(JSON.parse(text));
      });
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** The faults the proxy holds, as {path: [mode, …]} (a rule with count n as n entries). */
export async function heldFaults(proxyUrl) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const { faults } = await getJson(`${proxyUrl}/__fault`);
      const held = {};
      for (const rule of faults) for (let i = 0; i < rule.remaining; i += 1) (held[rule.path] ??= []).push(rule.mode);
      return held;
    } catch (error) {
      if (attempt >= 20) throw error;
      await sleep(20);
    }
  }
}

/**
 * Queues faults on the proxy so that it holds exactly `plan` ({path: [mode, …]}, method `method`).
 * Control calls go out `parallel` at a time: a queued fault makes the proxy close its idle client
 * connections, and a control call caught by that may or may not have been queued. So each round
 * queues what the proxy's listing lacks, until nothing is missing. Resolves with the faults the
 * proxy holds in the end ({path: [mode, …]}: a path may hold more than planned, when a control call
 * that seemed lost was queued after all) and the number of control calls sent.
 */
export async function queueFaults(proxyUrl, plan, { method, parallel = 16 }) {
  let sent = 0;
  for (let round = 1; ; round += 1) {
    if (round > 1) await sleep(200); // a control call cut while being read is handled a moment later
    const held = await heldFaults(proxyUrl);
    const missing = []; // {path, mode, count}
    for (const [path, modes] of Object.entries(plan)) {
      const left = [...(held[path] ?? [])];
      const lacking = {};
      for (const mode of modes) {
        const at = left.indexOf(mode);
        if (at >= 0) left.splice(at, 1);
        else lacking[mode] = (lacking[mode] ?? 0) + 1;
      }
      for (const [mode, count] of Object.entries(lacking)) missing.push({ path, mode, count });
    }
    if (!missing.length) return { held, sent };
    if (round > 50) throw new Error(`${missing.length} faults still not queued after ${round - 1} rounds`);
    await pool(missing.length, parallel, async (i) => {
      const { path, mode, count } = missing[i];
      sent += 1;
      const query = new URLSearchParams({ mode, path, method, count: String(count) });
      await getJson(`${proxyUrl}/__fault?${query}`).catch(() => {}); // the next round's listing decides
    });
  }
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

/** How many of `keys` reached more than one backend process (attempts answered from Redis records). */
export async function keysOnSeveralProcesses(stack, keys, path = '/items/slow') {
  const wanted = new Set(keys.map((key) => `"${key}"`));
  const servers = new Map();
  for (const entry of await stack.log()) {
    if (entry.path !== path || !wanted.has(entry.idempotency_key)) continue;
    if (!servers.has(entry.idempotency_key)) servers.set(entry.idempotency_key, new Set());
    servers.get(entry.idempotency_key).add(entry.served_by);
  }
  return [...servers.values()].filter((set) => set.size > 1).length;
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
}
