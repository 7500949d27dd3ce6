// muxws liveness by arrival (issue 12, item 3) end to end: a tunnel silenced by the fault proxy
// (`silence_ws`: TCP kept open, nothing passes either way) while calls keep going out must be declared
// dead within pingIntervalMs + pingTimeoutMs, whatever is being sent; the calls then move to the new
// socket and complete, each run once. Runs unchanged in Node 20 (--experimental-websocket,
// tests/e2e/muxws-liveness.test.mjs) and in headless Chromium (tests/browser/e2e.test.mjs).
import { equal, ok } from './check.mjs';
import { recordActivity, sleep } from './control.mjs';

const PING_INTERVAL_MS = 1000;
const PING_TIMEOUT_MS = 1000;
/** Timer and scheduling slack on a loaded 2-core machine. */
const TOLERANCE_MS = 1500;
/** How long the scenario waits to see a detection at all (to report how late it came). */
const OBSERVE_MS = 15000;

function itemApi(pkg) {
  return class LivenessItems extends pkg.muxwsViewSet()('id', []) {
    slow(note, sleepS = 0, options = {}) {
      return this.request('POST', '/slow', { ...options, query: { sleep: sleepS }, body: { note } });
    }
  };
}

function describe(error) {
  return error && typeof error === 'object' ? `${error.name}: ${error.message}` : String(error);
}

/** Resolves with the outcomes of `calls` (allSettled), or rejects once `ms` passed. */
async function allSettledWithin(calls, ms, what) {
  let timer;
  try {
    return await Promise.race([
      Promise.allSettled(calls),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: not all settled within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(condition, ms) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

export const muxwsLivenessScenarios = {
  async 'muxws liveness: a silenced socket is declared dead within pingIntervalMs + pingTimeoutMs while calls keep going out; onClose(willRetry), reconnect, the calls complete, each ran once'({ pkg, wsUrl, ctl }) {
    const closes = [];
    const reconnects = [];
    const peer = await pkg.connectMuxws(wsUrl, {
      pingIntervalMs: PING_INTERVAL_MS,
      pingTimeoutMs: PING_TIMEOUT_MS,
      reconnect: { initialDelayMs: 100, maxDelayMs: 1000 },
      onClose: (reason) => closes.push({ ...reason, at: Date.now() }),
      onReconnect: (attempt) => reconnects.push({ attempt, at: Date.now() }),
    });
    const Items = itemApi(pkg);
    const patient = new Items({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 100 } });
    // a short attempt timeout: on a dead socket these calls keep repeating (StreamTimeout → at once)
    const hasty = new Items({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 100 }, timeoutMs: 300 });
    const activity = recordActivity(pkg);
    try {
      ok(peer.isOpen, 'connected');
      await sleep(1500); // a ping/pong round or so on the healthy socket
      equal(closes.length, 0, 'the healthy, idle socket stayed up');

      // Every call is collected (a rejection is judged below, never left unhandled).
      const calls = [];
      const track = (call) => {
        call.catch(() => {});
        calls.push(call);
        return call;
      };
      // one call runs on the server when the line goes silent: its answer is lost
      const running = track(patient.slow('running when silenced', 0.5));
      await sleep(150);
      const silenced = await ctl.silenceWs();
      const silencedAt = Date.now();
      equal(silenced.silenced, 1, 'one tunnel silenced');
      // calls going out on the silent socket, some repeating every 300 ms
      track(patient.slow('patient after the silence', 0));
      track(hasty.slow('hasty 1', 0));
      track(hasty.slow('hasty 2', 0));
      const more = setInterval(() => track(hasty.slow(`hasty ${calls.length - 1}`, 0)), 400);
      let detected;
      try {
        detected = await until(() => closes.length > 0, OBSERVE_MS);
      } finally {
        clearInterval(more);
      }
      const limit = PING_INTERVAL_MS + PING_TIMEOUT_MS + TOLERANCE_MS;
      if (!detected) {
        throw new Error(`the silenced socket was not declared dead within ${OBSERVE_MS} ms (limit ${limit} ms); ${activity.events.filter((e) => e.type === 'retry').length} repeats went out meanwhile`);
      }
      const detectionMs = closes[0].at - silencedAt;
      console.log(`[figure] muxws dead-socket detection: ${detectionMs} ms after the silence (pingIntervalMs ${PING_INTERVAL_MS} + pingTimeoutMs ${PING_TIMEOUT_MS}; limit ${limit} ms)`);
      ok(detectionMs <= limit, `declared dead ${detectionMs} ms after the silence, within ${limit} ms`);
      equal(closes[0].willRetry, true, 'onClose(willRetry: true)');

      const outcomes = await allSettledWithin(calls, 20000, 'the calls after the reconnect');
      ok(reconnects.length >= 1, `reconnected (${reconnects.length})`);
      const failed = outcomes.map((o, i) => [o, i]).filter(([o]) => o.status !== 'fulfilled');
      ok(failed.length === 0, `every call completed (${failed.map(([o, i]) => `#${i}: ${describe(o.reason)}`).join('; ')})`);
      outcomes.forEach((o, i) => equal(o.value.action, 'slow', `answer of call #${i}`));
      const log = await ctl.log();
      for (const call of calls) {
        const runs = log.filter((entry) => entry.ran && entry.idempotency_key === `"${call.key}"`).length;
        equal(runs, 1, `runs of ${call.key}`);
      }
      ok(activity.retriesOf(running.key).length >= 1, 'the running call was repeated on the new socket');
    } finally {
      activity.stop();
      let timer;
      await Promise.race([peer.close({ drainMs: 500 }).catch(() => {}), new Promise((resolve) => { timer = setTimeout(resolve, 5000); })]);
      clearTimeout(timer);
      await ctl.clearFaults();
    }
  },
};
