// REST under load and faults: thousands of keyed POSTs through the fault proxy to TWO backend
// processes sharing Redis, with answers lost after the backend ran the call, connection resets,
// gateway pages and answers held past the attempt timeout. Every call must settle with its own
// answer, and the action must have run exactly once per key.
//
//   node --test tests/chaos/rest-chaos.test.mjs          (CHAOS_CALLS=…, CHAOS_SEED=… to vary it)
//
// Targeting: the proxy matches a fault by method and raw path prefix and uses it once. Each faulted
// call gets its own spelling of /items/slow (letters percent-encoded, e.g. /%69te%6Ds/slow), which
// uvicorn decodes to the same route, so its faults hit exactly its attempts, in any interleaving.
// Calls without faults use the plain spelling, which no rule matches.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import {
  activityRecorder, assertQuiet, assertRanOncePerKey, keysOnSeveralProcesses, pick, pool, queueFaults, report, rng, runSeed, shuffle, spellings, tally, teardown,
} from './lib.mjs';

const pkg = await import('../../pkg/index.js');

const CALLS = Number(process.env.CHAOS_CALLS ?? 2000);
const CONCURRENCY = 64;
const ATTEMPT_TIMEOUT_MS = 2000;
const HELD_S = 3; // delay:S holds an answer past the attempt timeout
const PATH = '/items/slow';

// The first fault of a call, as fractions of CALLS.
const MIX = {
  // the backend ran the call; its answer is lost on the way back
  drop_after: 0.11,
  truncate_after: 0.11,
  'status_after:502': 0.02,
  'status_after:504': 0.02,
  // the backend ran the call; the client gets a TCP reset instead of the answer
  reset_after: 0.12,
  // the request never reaches the backend
  drop_before: 0.02,
  'status:503': 0.02,
  // the answer comes after the client gave up on the attempt
  [`delay:${HELD_S}`]: 0.02,
};
// A faulted call's repeat is faulted again with this probability (again and again), any kind.
const AGAIN = 0.15;

const KINDS = {
  'lost after the backend ran it': ['drop_after', 'truncate_after', 'status_after:502', 'status_after:504'],
  'connection reset after it ran': ['reset_after'],
  'gateway 5xx HTML': ['status_after:502', 'status_after:504', 'status:503'],
  'never reached the backend': ['drop_before', 'status:503'],
  'held past the attempt timeout': [`delay:${HELD_S}`],
};

let stack;

before(async () => {
  stack = await startStack({ redis: true, processes: 2, lockTtl: 6 });
});
after(async () => {
  teardown.abort();
  await stack?.stop();
});

class Items extends pkg.restViewSet()('id', []) {
  /** POST {spelling of /items/slow}?sleep=0 — basePath is '/', the path is the whole spelling. */
  slow(path, note) {
    return this.request('POST', path, { query: { sleep: 0 }, body: { note }, signal: teardown.signal });
  }
}

/** Which call gets which faults: {paths: [path of call i], plan: {path: [mode, …]}}. */
function planFaults(random) {
  const firsts = [];
  for (const [mode, fraction] of Object.entries(MIX)) {
    for (let i = 0; i < Math.round(fraction * CALLS); i += 1) firsts.push(mode);
  }
  if (firsts.length > CALLS) throw new Error('more faults than calls');
  const perCall = shuffle([...firsts, ...Array(CALLS - firsts.length).fill(null)], random);
  const names = spellings(PATH, random);
  if (names.length < firsts.length) throw new Error(`only ${names.length} spellings of ${PATH} for ${firsts.length} faulted calls`);
  const paths = [];
  const plan = {};
  for (const first of perCall) {
    if (first === null) {
      paths.push(PATH);
      continue;
    }
    const path = names.pop();
    const modes = [first];
    while (random() < AGAIN) modes.push(pick(MIX, random));
    plan[path] = modes;
    paths.push(path);
  }
  return { paths, plan };
}

test(`REST: ${CALLS} keyed POSTs, ${CONCURRENCY} at a time, through random faults to 2 processes sharing Redis`, { timeout: 10 * 60_000 }, async (t) => {
  const seed = runSeed();
  const random = rng(seed);
  const { paths, plan } = planFaults(random);
  const queueStarted = Date.now();
  const { held, sent } = await queueFaults(stack.proxyUrl, plan, { method: 'POST' });
  const queueSeconds = (Date.now() - queueStarted) / 1000;
  const queued = Object.values(held).flat();
  const faultedCalls = Object.keys(held).length;

  const items = new Items({
    basePath: '/',
    baseUrl: stack.baseUrl,
    schemaCheck: false,
    attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
    repeat: { delayMs: 50 },
  });
  const activity = activityRecorder(pkg);
  const keys = new Array(CALLS);
  const started = Date.now();
  let outcome;
  try {
    outcome = await pool(CALLS, CONCURRENCY, async (i) => {
      const note = `rest-chaos #${i} ${seed}`;
      const call = items.slow(paths[i], note);
      keys[i] = call.key;
      const answer = await call;
      assert.equal(answer.note, note, `the answer of call #${i}`);
      assert.equal(answer.action, 'slow', `the action of call #${i}`);
      return answer.served_by;
    });
  } finally {
    activity.stop();
  }
  const seconds = (Date.now() - started) / 1000;

  const left = (await stack.faults()).faults.reduce((sum, rule) => sum + rule.remaining, 0);
  const counters = await stack.counters();
  const repeatedCalls = new Set(activity.retries.map((retry) => retry.key)).size;
  const byKind = Object.fromEntries(
    Object.entries(KINDS).map(([kind, modes]) => {
      const n = queued.filter((mode) => modes.includes(mode)).length;
      return [kind, `${n} (${((100 * n) / CALLS).toFixed(1)} %)`];
    }),
  );
  report(t, `seed ${seed}; ${CALLS} calls, ${CONCURRENCY} at a time, attemptTimeoutMs ${ATTEMPT_TIMEOUT_MS}, repeat.delayMs 50`);
  report(t, `faults: ${queued.length} on ${faultedCalls} calls (${sent} control calls, ${queueSeconds.toFixed(1)} s) ${JSON.stringify(tally(queued))}`);
  report(t, `faults by kind (of ${CALLS} calls): ${JSON.stringify(byKind)}`);
  report(t, `repeats: ${activity.retries.length} of ${repeatedCalls} calls, by how the attempt ended ${JSON.stringify(tally(activity.retries.map((r) => r.ended)))}`);
  report(t, `answered by ${JSON.stringify(tally(outcome.results.filter(Boolean)))}; failed ${outcome.errors.length}; slow counter ${counters.slow}; faults left unfired ${left}; ${seconds.toFixed(1)} s (${(CALLS / seconds).toFixed(0)} calls/s)`);

  assert.deepEqual(outcome.errors.map(([i, error]) => `#${i}: ${error?.name}: ${error?.message}`), [], 'every call settles with its own answer');
  assert.equal(activity.starts, CALLS, 'start events');
  assert.equal(activity.settles, CALLS, 'settle events');
  assert.equal(left, 0, 'every queued fault fired');
  assert.ok(repeatedCalls >= faultedCalls, `every faulted call was repeated (${repeatedCalls} of ${faultedCalls})`);
  assert.equal(counters.slow, CALLS, 'the slow counter: none lost, none run twice');
  await assertRanOncePerKey(stack, keys, { path: PATH });
  report(t, `exactly one run per key in the backend's log; ${await keysOnSeveralProcesses(stack, keys)} keys reached both processes`);
  const stats = await assertQuiet(pkg);
  report(t, `afterwards: pendingCalls() [], internalStats() ${JSON.stringify(stats)}`);
});
