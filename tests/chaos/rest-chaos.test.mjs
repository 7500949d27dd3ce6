// REST under load and faults: thousands of keyed POSTs through the fault proxy to TWO backend
// processes sharing Redis, with answers lost after the backend ran the call, connection resets,
// gateway pages and answers held past the attempt timeout. Every call must settle with its own answer,
// and the action must have run exactly once per key.
//
//   node --test tests/chaos/rest-chaos.test.mjs          CHAOS_CALLS=… CHAOS_SEED=… to vary it
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import {
  activityRecorder, assertQuiet, assertRanOncePerKey, CLEAN, faultSequence, pool, queueSequence, report, rng, runSeed, tally,
} from './lib.mjs';

const pkg = await import('../../pkg/index.js');

const CALLS = Number(process.env.CHAOS_CALLS ?? 2000);
const CONCURRENCY = 64;
const ATTEMPT_TIMEOUT_MS = 2000;
const HELD_S = 3.5; // delay:S holds an answer past the attempt timeout
const PATH = '/items/slow';

// Fractions of CALLS. Every queued slot is consumed by one attempt (there are at least CALLS of them).
const MIX = {
  // the backend ran the call, the answer is lost on the way back
  drop_after: 0.11,
  truncate_after: 0.11,
  'status_after:502': 0.02,
  'status_after:504': 0.02,
  // the backend ran the call, the client gets a TCP reset instead of the answer
  reset_after: 0.12,
  // the request never reaches the backend
  drop_before: 0.02,
  'status:503': 0.02,
  // the answer comes after the client gave up on the attempt
  [`delay:${HELD_S}`]: 0.02,
};

let stack;

before(async () => {
  stack = await startStack({ redis: true, processes: 2, lockTtl: 6 });
});
after(async () => {
  await stack?.stop();
});

class ItemApi extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {
  slow(note) {
    return this.request('POST', '/slow', { query: { sleep: 0 }, body: { note } });
  }
}

test(`REST: ${CALLS} keyed POSTs, ${CONCURRENCY} at a time, through random faults to 2 processes sharing Redis`, { timeout: 10 * 60_000 }, async (t) => {
  const seed = runSeed();
  const random = rng(seed);
  const sequence = faultSequence(CALLS, MIX, random);
  const queued = tally(sequence.filter((mode) => mode !== CLEAN));
  const { rules, resent } = await queueSequence(stack, sequence, { path: PATH, method: 'POST' });

  const items = new ItemApi({
    basePath: '/items',
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
      const call = items.slow(note);
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

  const { faults } = await stack.faults();
  const counters = await stack.counters();
  const repeats = tally(activity.retries.map((retry) => retry.ended));
  const repeatedCalls = new Set(activity.retries.map((retry) => retry.key)).size;
  report(t, `seed ${seed}; ${CALLS} calls, concurrency ${CONCURRENCY}, attemptTimeoutMs ${ATTEMPT_TIMEOUT_MS}; ${sequence.length} slots queued as ${rules} proxy rules (${resent} control calls resent)`);
  report(t, `faults queued: ${Object.values(queued).reduce((a, b) => a + b, 0)} ${JSON.stringify(queued)}; left unfired: ${faults.reduce((sum, rule) => sum + rule.remaining, 0)}`);
  report(t, `repeats: ${activity.retries.length} of ${repeatedCalls} calls ${JSON.stringify(repeats)}`);
  report(t, `answered by ${JSON.stringify(tally(outcome.results.filter(Boolean)))}; failed: ${outcome.errors.length}; slow counter ${counters.slow}; ${seconds.toFixed(1)} s (${(CALLS / seconds).toFixed(0)} calls/s)`);

  assert.deepEqual(outcome.errors.map(([i, error]) => `#${i}: ${error?.name}: ${error?.message}`), [], 'every call settles with its answer');
  assert.equal(activity.starts, CALLS, 'start events');
  assert.equal(activity.settles, CALLS, 'settle events');
  assert.equal(faults.length, 0, 'every queued fault fired');
  assert.equal(counters.slow, CALLS, 'the slow counter: none lost, none twice');
  await assertRanOncePerKey(stack, keys, { path: PATH });
  const stats = await assertQuiet(pkg);
  report(t, `afterwards: pendingCalls() [] and internalStats() ${JSON.stringify(stats)}`);
});
