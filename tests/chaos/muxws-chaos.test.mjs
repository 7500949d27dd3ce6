// muxws under load and faults: thousands of keyed calls over ONE muxws peer (through the fault proxy,
// to two backend processes sharing Redis) while its socket is cut again and again — by the proxy
// (kill_ws), by the backend (TCP reset) — and the server sends goaway. Every call must settle with
// its own answer, and the action must have run exactly once per key.
//
//   node --experimental-websocket --test tests/chaos/muxws-chaos.test.mjs   (CHAOS_CALLS, CHAOS_SEED)
//
// The disruptions are spread over the run by progress (after a random number of settled calls), so
// the machine's speed changes when they happen, not how many there are. Each waits until the peer is
// connected again, so every one of them cuts a live socket carrying streams.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import {
  activityRecorder, assertQuiet, assertRanOncePerKey, keysOnSeveralProcesses, pool, report, rng, runSeed, shuffle, sleep, tally, teardown, until,
} from './lib.mjs';

const pkg = await import('../../pkg/index.js');

const CALLS = Number(process.env.CHAOS_CALLS ?? 2000);
const CONCURRENCY = 64;
const DISRUPTIONS = Math.max(6, Math.round(CALLS / 80));
const GOAWAYS = 2;
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
    return this.request('POST', '/slow', { query: { sleep: 0 }, body: { note }, signal: teardown.signal });
  }
}

test(`muxws: ${CALLS} keyed calls, ${CONCURRENCY} at a time, over one peer whose socket is cut ${DISRUPTIONS} times`, { timeout: 10 * 60_000 }, async (t) => {
  const seed = runSeed();
  const random = rng(seed);
  const closes = [];
  const reconnects = [];
  peer = await pkg.connectMuxws(stack.wsUrl, {
    reconnect: { initialDelayMs: 50, maxDelayMs: 500 },
    onClose: (reason) => closes.push(reason),
    onReconnect: (attempt) => reconnects.push(attempt),
  });
  const items = new MuxItems({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 50 } });

  // which disruption comes after how many settled calls
  const kinds = shuffle([
    ...Array(GOAWAYS).fill('goaway'),
    ...Array.from({ length: DISRUPTIONS - GOAWAYS }, (_, i) => (i % 2 ? 'proxy kill_ws' : 'backend RST')),
  ], random);
  const thresholds = Array.from({ length: DISRUPTIONS }, () => Math.floor(CALLS * (0.03 + 0.87 * random()))).sort((a, b) => a - b);
  const done = [];
  let chain = Promise.resolve();
  let nextDisruption = 0;
  const disrupt = async (kind) => {
    await until(() => peer.isOpen, 'the peer to be connected before a disruption', 60_000, 10);
    await sleep(Math.floor(random() * 100)); // let streams pile up on the new socket
    const losses = closes.length;
    const streams = peer.core.streamCount;
    let cut = 0;
    for (let tries = 0; cut === 0 && tries < 100; tries += 1) {
      if (tries) await sleep(20); // the backend registers a peer a moment after the client sees it open
      if (kind === 'goaway') cut = await stack.goaway({ drain: 1 });
      else if (kind === 'proxy kill_ws') cut = (await stack.killWs()).killed;
      else cut = await stack.closeSockets();
    }
    // one disruption, one socket loss: the next one waits for it (a goaway drains first)
    await until(() => closes.length > losses, `the peer to see the ${kind}`, 30_000, 10);
    done.push({ kind, cut, streams });
  };
  const onSettled = (settled) => {
    while (nextDisruption < DISRUPTIONS && settled >= thresholds[nextDisruption]) {
      const kind = kinds[nextDisruption];
      nextDisruption += 1;
      chain = chain.then(() => disrupt(kind));
    }
  };

  const activity = activityRecorder(pkg);
  const keys = new Array(CALLS);
  const started = Date.now();
  let outcome;
  try {
    outcome = await pool(CALLS, CONCURRENCY, async (i) => {
      const note = `muxws-chaos #${i} ${seed}`;
      const call = items.slow(note);
      keys[i] = call.key;
      const answer = await call;
      assert.equal(answer.note, note, `the answer of call #${i}`);
      assert.equal(answer.action, 'slow', `the action of call #${i}`);
      return answer.served_by;
    }, onSettled);
    await chain;
    await until(() => reconnects.length >= DISRUPTIONS, 'the reconnect after the last disruption', 30_000).catch(() => {});
  } finally {
    activity.stop();
  }
  const seconds = (Date.now() - started) / 1000;
  const streamCount = peer.core.streamCount;

  const counters = await stack.counters();
  const repeatedCalls = new Set(activity.retries.map((retry) => retry.key)).size;
  report(t, `seed ${seed}; ${CALLS} calls, ${CONCURRENCY} at a time over one peer, reconnect 50..500 ms, repeat.delayMs 50`);
  report(t, `disruptions: ${done.length} ${JSON.stringify(tally(done.map((d) => d.kind)))}; streams open at each: ${done.map((d) => d.streams).join(' ')}`);
  report(t, `socket losses seen by the peer: ${closes.length} (clean ${closes.filter((c) => c.wasClean).length}); reconnects: ${reconnects.length}`);
  report(t, `repeats: ${activity.retries.length} of ${repeatedCalls} calls, by how the attempt ended ${JSON.stringify(tally(activity.retries.map((r) => r.ended)))}`);
  report(t, `answered by ${JSON.stringify(tally(outcome.results.filter(Boolean)))}; failed ${outcome.errors.length}; slow counter ${counters.slow}; ${seconds.toFixed(1)} s (${(CALLS / seconds).toFixed(0)} calls/s)`);

  assert.deepEqual(outcome.errors.map(([i, error]) => `#${i}: ${error?.name}: ${error?.message}`), [], 'every call settles with its own answer');
  assert.equal(done.length, DISRUPTIONS, 'every disruption happened');
  assert.ok(done.every((d) => d.cut >= 1), 'every disruption found a socket');
  assert.equal(closes.length, DISRUPTIONS, 'one socket loss per disruption');
  assert.ok(closes.every((close) => close.willRetry), 'onClose(willRetry: true) each time');
  assert.equal(reconnects.length, DISRUPTIONS, 'one reconnect per disruption');
  assert.ok(activity.retries.length > 0, 'calls were repeated');
  assert.equal(activity.starts, CALLS, 'start events');
  assert.equal(activity.settles, CALLS, 'settle events');
  assert.equal(counters.slow, CALLS, 'the slow counter: none lost, none run twice');
  await assertRanOncePerKey(stack, keys, { path: PATH });
  report(t, `exactly one run per key in the backend's log; ${await keysOnSeveralProcesses(stack, keys)} keys reached both processes`);
  assert.equal(streamCount, 0, 'peer.core.streamCount once every call settled');
  const stats = await assertQuiet(pkg);
  report(t, `afterwards: streamCount ${streamCount}, pendingCalls() [], internalStats() ${JSON.stringify(stats)}`);

  await peer.close();
  assert.ok(peer.isClosed, 'the peer closed for good');
  assert.equal(peer.core.streamCount, 0, 'peer.core.streamCount after close()');
});
