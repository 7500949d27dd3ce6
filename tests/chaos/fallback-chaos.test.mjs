// A muxws peer with a REST fallback under faults (issue 26): thousands of keyed calls over ONE
// peer (`restFallback: { afterMs: 300 }`, through the fault proxy, to two backend processes sharing
// Redis) while its socket is cut at random, WebSocket upgrades are refused for random spells (the
// peer's calls then go over REST under their keys), and REST answers are lost at random after the
// server ran the action. Every call must settle with its own answer, and the action must have run
// exactly once per key, whichever transports its attempts took.
//
//   node --experimental-websocket --test tests/chaos/fallback-chaos.test.mjs   (CHAOS_CALLS, CHAOS_SEED)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { control } from '../e2e/control.mjs';
import { activityRecorder, assertQuiet, assertRanOncePerKey, pool, report, rng, runSeed, sleep, tally, teardown, until } from './lib.mjs';

const pkg = await import('../../pkg/index.js');

const CALLS = Number(process.env.CHAOS_CALLS ?? 2000);
const CONCURRENCY = 64;
const PATH = '/items/slow';

let stack;
let peer;

before(async () => {
  if (typeof WebSocket === 'undefined') throw new Error('run node with --experimental-websocket');
  stack = await startStack({ redis: true, processes: 2, lockTtl: 6 });
});
after(async () => {
  teardown.abort();
  await peer?.close({ drainMs: 0 }).catch(() => {});
  await stack?.stop();
});

class MuxItems extends pkg.muxwsViewSet()('id', []) {
  slow(note) {
    return this.request('POST', '/slow', { query: { sleep: 0 }, body: { note, n: [1.5, 1e-7], 'ключ': 'é' }, signal: teardown.signal });
  }
}

test(`muxws with restFallback: ${CALLS} keyed calls, ${CONCURRENCY} at a time, the socket cut and refused at random, REST answers lost at random`, { timeout: 10 * 60_000 }, async (t) => {
  const seed = runSeed();
  const random = rng(seed);
  const ctl = control(stack.baseUrl);
  const fallbacks = [];
  peer = await pkg.connectMuxws(stack.wsUrl, { reconnect: { initialDelayMs: 50, maxDelayMs: 300 }, restFallback: { afterMs: 300 } });
  peer.onFallback((base) => fallbacks.push(base));
  const items = new MuxItems({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 50 } });

  const done = [];
  let running = true;
  const chaos = (async () => {
    while (running) {
      await sleep(100 + Math.floor(random() * 300));
      if (!running) break;
      const roll = random();
      if (roll < 0.3) {
        done.push('cut');
        await ctl.killWs();
      } else if (roll < 0.65) {
        done.push('refused');
        await ctl.refuseWs();
        await ctl.killWs();
        await sleep(200 + Math.floor(random() * 1200));
        await ctl.allowWs();
      } else {
        const lose = 1 + Math.floor(random() * 4);
        done.push(`lost ${lose}`);
        await ctl.fault(random() < 0.5 ? 'drop_after' : 'reset_after', { path: PATH, method: 'POST', count: lose });
      }
    }
    await ctl.clearFaults();
  })();

  const settledOver = [];
  const stopSettles = pkg.onCallActivity((event) => event.type === 'settle' && settledOver.push(event.transport));
  const activity = activityRecorder(pkg);
  const keys = new Array(CALLS);
  const started = Date.now();
  let outcome;
  try {
    outcome = await pool(CALLS, CONCURRENCY, async (i) => {
      const note = `fallback-chaos #${i} ${seed}`;
      const call = items.slow(note);
      keys[i] = call.key;
      const answer = await call;
      assert.equal(answer.note, note, `the answer of call #${i}`);
      return answer.served_by;
    });
  } finally {
    running = false;
    await chaos;
    activity.stop();
    stopSettles();
  }
  const seconds = (Date.now() - started) / 1000;
  const counters = await stack.counters();
  report(t, `seed ${seed}; ${CALLS} calls, ${CONCURRENCY} at a time over one peer, restFallback.afterMs 300, repeat.delayMs 50`);
  report(t, `disruptions: ${done.length} ${JSON.stringify(tally(done.map((d) => d.split(' ')[0])))}; fallback started ${fallbacks.filter(Boolean).length} times`);
  report(t, `settled over ${JSON.stringify(tally(settledOver))}; repeats ${activity.retries.length}, by how the attempt ended ${JSON.stringify(tally(activity.retries.map((r) => r.ended)))}`);
  report(t, `failed ${outcome.errors.length}; slow counter ${counters.slow}; ${seconds.toFixed(1)} s (${(CALLS / seconds).toFixed(0)} calls/s)`);

  assert.deepEqual(outcome.errors.map(([i, error]) => `#${i}: ${error?.name}: ${error?.message}`), [], 'every call settles with its own answer');
  assert.ok(fallbacks.filter(Boolean).length > 0, 'the fallback started');
  assert.ok(settledOver.includes('rest') && settledOver.includes('muxws'), 'calls settled over both transports');
  assert.equal(activity.starts, CALLS, 'start events');
  assert.equal(activity.settles, CALLS, 'settle events');
  assert.equal(counters.slow, CALLS, 'the slow counter: none lost, none run twice');
  await assertRanOncePerKey(stack, keys, { path: PATH });
  report(t, "exactly one run per key in the backend's log");
  await until(() => peer.isOpen, 'the socket back at the end', 30_000);
  await assertQuiet(pkg);
  await peer.close();
});
