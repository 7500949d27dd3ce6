// Call activity end to end: onCallActivity events, pendingCalls(), pendingCallCount(), retryNow(),
// against the real backend behind the fault proxy. Runs unchanged in Node 20 and in Chromium.
import { equal, ok, same } from './check.mjs';
import { recordActivity, sleep } from './control.mjs';

function restItems(pkg, baseUrl, options = {}) {
  const Api = pkg.restViewSet()('id', [pkg.ViewSetMixin]);
  return new (class extends Api {
    slow(note, options = {}) {
      return this.request('POST', '/slow', { ...options, body: { note } });
    }
  })({ basePath: '/items', baseUrl, schemaCheck: false, ...options });
}

/** Resolves with the call's outcome, or rejects when `ms` passes first (the call would hang). */
function within(promise, ms, what) {
  return Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`${what} did not settle within ${ms} ms`)))]);
}

export const activityScenarios = {
  async 'activity: a repeated call reports start → retry → settle, each with the call\'s key and details'({ pkg, baseUrl, ctl }) {
    const items = restItems(pkg, baseUrl, { repeat: { delayMs: 100 } });
    const activity = recordActivity(pkg);
    try {
      await ctl.fault('status:503', { count: 2, path: '/items/slow', method: 'POST' });
      const call = items.slow('observed');
      await call;
      const events = activity.events.filter((event) => event.key === call.key);
      same(events.map((event) => event.type), ['start', 'retry', 'retry', 'settle'], 'order');
      for (const event of events) {
        equal(event.method, 'POST', 'method');
        equal(event.path, '/items/slow', 'path');
        equal(event.transport, 'rest', 'transport');
        equal(event.background, false, 'background');
        ok(typeof event.at === 'number' && event.at > 0, 'timestamp');
      }
      ok(events.every((event, i) => i === 0 || event.at >= events[i - 1].at), 'timestamps in order');
      same(events.filter((e) => e.type === 'retry').map((e) => [e.attempt, e.ended, e.delayMs]), [[1, 'gateway-status', 100], [2, 'gateway-status', 200]], 'retries');
      const settle = events.at(-1);
      equal(settle.ok, true, 'settled fulfilled');
      equal(settle.attempts, 3, 'attempts');
    } finally {
      activity.stop();
      await ctl.clearFaults();
    }
  },

  async 'activity: pendingCalls lists unsettled calls oldest first with nextAttemptAt; the count leaves background calls out; retryNow cuts a long delay'({ pkg, baseUrl, ctl }) {
    const items = restItems(pkg, baseUrl, { repeat: { delayMs: 20000 } });
    const countBefore = pkg.pendingCallCount();
    try {
      await ctl.fault('status:503', { count: 2, path: '/items/slow', method: 'POST' });
      const foreground = items.slow('foreground');
      const background = items.slow('background', { background: true });
      let mine = [];
      for (let i = 0; i < 250; i++) {
        mine = pkg.pendingCalls().filter((p) => p.key === foreground.key || p.key === background.key);
        if (mine.length === 2 && mine.every((p) => p.nextAttemptAt !== null)) break;
        await sleep(20);
      }
      same(mine.map((p) => p.key), [foreground.key, background.key], 'oldest first');
      const now = Date.now();
      for (const pending of mine) {
        equal(pending.unansweredAttempts, 1, 'one attempt went unanswered');
        equal(pending.waitingForReconnect, false, 'REST never waits for a reconnect');
        ok(pending.nextAttemptAt > now + 10000 && pending.nextAttemptAt <= now + 20000, `next attempt in about 20 s (${pending.nextAttemptAt - now} ms)`);
        ok(pending.issuedAt <= now, 'issuedAt');
      }
      equal(mine[1].background, true, 'background flag');
      equal(pkg.pendingCallCount() - countBefore, 1, 'pendingCallCount counts the foreground call only');
      pkg.retryNow();
      const [a, b] = await within(Promise.all([foreground, background]), 10000, 'the retried calls');
      equal(a.note, 'foreground', 'foreground answer');
      equal(b.note, 'background', 'background answer');
      equal(pkg.pendingCalls().filter((p) => p.key === foreground.key || p.key === background.key).length, 0, 'settled calls leave the list');
    } finally {
      await ctl.clearFaults();
    }
  },

  async 'activity: unsubscribing stops a listener; a throwing listener harms neither the call nor other listeners'({ pkg, baseUrl }) {
    const items = restItems(pkg, baseUrl);
    const removed = [];
    const stopRemoved = pkg.onCallActivity((event) => removed.push(event));
    stopRemoved();
    const stopThrowing = pkg.onCallActivity(() => {
      throw new Error('listener failure (expected by the test)');
    });
    const activity = recordActivity(pkg);
    const realError = console.error;
    const reported = [];
    console.error = (...args) => reported.push(args.join(' '));
    try {
      const call = items.slow('listeners');
      const answer = await call;
      equal(answer.note, 'listeners', 'the call settled normally');
      same(activity.of(call.key), ['start', 'settle'], 'the other listener got every event');
      equal(removed.length, 0, 'the removed listener got nothing');
      ok(reported.some((line) => line.includes('onCallActivity listener threw')), 'the failure was reported on the console');
    } finally {
      console.error = realError;
      stopThrowing();
      activity.stop();
    }
  },

  async 'activity: muxws calls are reported too, with transport muxws'({ pkg, wsUrl }) {
    const peer = await pkg.connectMuxws(wsUrl);
    const activity = recordActivity(pkg);
    try {
      const Api = pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]);
      const items = new (class extends Api {})({ basePath: '/items', peer, schemaCheck: false });
      const call = items.list();
      await call;
      const events = activity.events.filter((event) => event.key === call.key);
      same(events.map((event) => event.type), ['start', 'settle'], 'order');
      ok(events.every((event) => event.transport === 'muxws' && event.path === '/items' && event.method === 'GET'), 'details');
    } finally {
      activity.stop();
      await peer.close();
    }
  },
};
