// Live data over a muxws peer by server push (issue 23) end to end: follow() and a muxws proxy's
// watch() subscribe the peer's socket (`POST /events/subscribe` over muxws, a key of its own each),
// take `mode: 'push'` and deliver the server's pushes (`via: 'push'`); a socket lost and found again
// is resubscribed under a new key and caught up by poll; a gap the log no longer holds is one
// onResync; a refused topic is onRefused; close() unsubscribes. Against the real backend
// (fastapi-viewsets 0.14 + muxws 0.4.3, tests/backend/app.py) through the fault proxy. Each scenario
// runs unchanged in Node 20 (tests/e2e/follow-push.test.mjs) and in headless Chromium
// (tests/browser/e2e.test.mjs; the Redis set in tests/browser/redis.test.mjs). A scenario gets
// { pkg, baseUrl, wsUrl, ctl }.
import { equal, ok, same } from './check.mjs';
import { recordActivity, sleep } from './control.mjs';
import { chain, freshKey, other, publish, until } from './events-scenarios.mjs';

/** Long enough that no poll of the interval (or check poll) falls inside a scenario unless it asks for one. */
const QUIET_MS = 60_000;
/** How soon a push must reach onEvent / onChange after the write was answered. */
const PUSH_MS = 1000;

/** A peer with a fast reconnect schedule (and its socket losses and reconnects, counted). */
async function connect(pkg, wsUrl, options = {}) {
  const closes = [];
  const reconnects = [];
  const peer = await pkg.connectMuxws(wsUrl, {
    reconnect: { initialDelayMs: 50, maxDelayMs: 400, jitter: 0 },
    onClose: (reason) => closes.push(reason),
    onReconnect: (attempt) => reconnects.push(attempt),
    ...options,
  });
  return { peer, closes, reconnects };
}

/** A muxws proxy of /items (or `basePath`) over `peer`. */
function muxItems(pkg, peer, options = {}) {
  const Api = pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]);
  return new Api({ basePath: '/items', peer, schemaCheck: false, ...options });
}

/** Every mode `follower` took, in order (sampled every few ms), until `stop()`. */
function modeTrail(follower) {
  const trail = [follower.mode];
  const timer = setInterval(() => {
    if (trail.at(-1) !== follower.mode) trail.push(follower.mode);
  }, 2);
  return { trail, stop: () => clearInterval(timer) };
}

/** The keys of the subscribes (or `path`) this package started while `activity` recorded. */
function keysOf(activity, path = '/events/subscribe') {
  return activity.events.filter((event) => event.type === 'start' && event.path === path).map((event) => event.key);
}

/** The request-log entries of `keys` on `path` (each key as its Structured Field string). */
async function wireEntries(ctl, keys, path = '/events/subscribe') {
  const quoted = new Set(keys.map((key) => `"${key}"`));
  return (await ctl.log()).filter((entry) => entry.path === path && quoted.has(entry.idempotency_key));
}

/** How many muxws sockets of the process answering hold `topic` (the test route over delivery.topics_of). */
async function socketsHolding(baseUrl, topic) {
  const { sockets } = await other(baseUrl, 'GET', '/__test/events/subscriptions');
  return sockets.filter((topics) => topics.includes(topic)).length;
}

/** Closes the followers, then the peers; a follower or peer that fails to close fails the scenario after the rest closed. */
/** An onEvent that runs `body` and counts the calls that began while another was still running. */
function oneAtATime(body) {
  let running = 0;
  const serial = {
    overlapped: 0,
    async onEvent(event) {
      running += 1;
      if (running > 1) serial.overlapped += 1;
      try {
        await body(event);
      } finally {
        running -= 1;
      }
    },
  };
  return serial;
}

async function closeAll(followers, peers) {
  const outcomes = await Promise.allSettled(followers.filter(Boolean).map((follower) => follower.close()));
  await Promise.allSettled(peers.filter(Boolean).map((peer) => peer.close()));
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

export const followPushScenarios = {
  async "live push: a second client's create, update and delete reach watch() over muxws by push within 1 s each; the subscribe went over muxws with a key"({ pkg, baseUrl, wsUrl, ctl }) {
    const { peer } = await connect(pkg, wsUrl);
    const activity = recordActivity(pkg);
    const wsItems = muxItems(pkg, peer);
    const seen = [];
    const follower = wsItems.watch({
      pollIntervalMs: QUIET_MS,
      checkIntervalMs: QUIET_MS,
      onChange: (change, event) => seen.push({ change, event, at: Date.now() }),
    });
    try {
      equal(follower.topic, '/items', 'the topic is the proxy basePath');
      await follower.ready;
      await until(() => follower.mode === 'push', 2000, "mode 'push'");
      ok(Number.isSafeInteger(follower.cursor), `a cursor is held (${follower.cursor})`);
      ok((await socketsHolding(baseUrl, '/items')) >= 1, 'the server holds the socket subscribed to /items');

      const latencies = [];
      const write = async (what, run) => {
        const count = seen.length;
        const sent = Date.now();
        const answer = await run();
        await until(() => seen.length > count, 3000, what);
        latencies.push(seen[count].at - sent);
        ok(seen[count].at - sent <= PUSH_MS, `${what} arrived ${seen[count].at - sent} ms after it was sent (at most ${PUSH_MS})`);
        return answer;
      };
      const created = await write('the create', () => other(baseUrl, 'POST', '/items', { name: 'pushed live' }));
      await write('the update', () => other(baseUrl, 'PATCH', `/items/${created.id}`, { name: 'pushed live 2' }));
      await write('the delete', () => other(baseUrl, 'DELETE', `/items/${created.id}`));
      console.log(`[figure] push latency of a second client's write (ms): ${latencies.join(', ')}`);

      same(seen.map((entry) => entry.change), [
        { op: 'created', changes: [{ pk: created.id }] },
        { op: 'updated', changes: [{ pk: created.id }] },
        { op: 'deleted', changes: [{ pk: created.id }] },
      ], 'the three changes, in order');
      for (const { event } of seen) {
        equal(event.via, 'push', `via of rev ${event.rev}`);
        equal(event.topic, '/items', 'topic');
        equal(event.event, 'records_changed', 'event name');
        equal(event.version, 1, 'version');
        ok(!('scope' in event), 'no scope on an unscoped topic');
      }
      chain(seen.map((entry) => entry.event), seen[0].event.prev, 'the chain');
      equal(follower.cursor, seen[2].event.rev, 'the cursor is the last rev');
      equal(follower.mode, 'push', 'still pushing');
      await sleep(300);
      equal(seen.length, 3, 'each once');

      // the subscribe: a background call of this package, a key of its own, over muxws, answered 200
      const subscribeStarts = activity.events.filter((event) => event.type === 'start' && event.path === '/events/subscribe');
      equal(subscribeStarts.length, 1, 'one subscribe');
      equal(subscribeStarts[0].transport, 'muxws', 'the subscribe went over muxws');
      equal(subscribeStarts[0].background, true, 'the subscribe is a background call');
      const wire = await wireEntries(ctl, keysOf(activity));
      equal(wire.length, 1, 'the subscribe reached the server once, under its key');
      equal(wire[0].method, 'POST', 'method');
      equal(wire[0].transport, 'muxws', 'over muxws on the wire');
      equal(wire[0].status, 200, 'answered 200');
    } finally {
      activity.stop();
      await closeAll([follower], [peer]);
    }
  },

  async 'live push: the socket cut in the middle of a burst of 50: every event once, in order; resubscribed under a new key, caught up by poll, pushing again'({ pkg, baseUrl, wsUrl, ctl }) {
    const { peer, closes, reconnects } = await connect(pkg, wsUrl);
    const activity = recordActivity(pkg);
    const key = freshKey();
    const topic = `imports:${key}`;
    const got = [];
    const follower = pkg.follow(topic, { peer, pollIntervalMs: 100, checkIntervalMs: QUIET_MS, onEvent: (event) => got.push(event) });
    let modes;
    try {
      await follower.ready;
      await until(() => follower.mode === 'push', 2000, "mode 'push'");
      const from = follower.cursor;
      modes = modeTrail(follower);
      // 50 events, one a request, back to back: 10 (delivered by push), then 40 more, the socket cut
      // after the 10th of those while its pushes travel. The publishing goes on through the reconnect,
      // the resubscribe and the catch-up poll, so pushes and the poll's events overlap.
      const revs = [];
      for (let i = 0; i < 10; i += 1) revs.push(...(await publish(baseUrl, key, 1)));
      await until(() => got.length >= 10, 3000, 'the first ten by push');
      let whileDown = [];
      for (let i = 0; i < 40; i += 1) {
        if (i === 10) {
          const { killed } = await ctl.killWs();
          equal(killed, 1, 'one tunnel cut');
        }
        const rev = await publish(baseUrl, key, 1);
        if (i === 10) whileDown = rev;
        revs.push(...rev);
      }
      equal(revs.length, 50, 'fifty events published');
      await until(() => got.length >= 50, 8000, `the 50 events (${got.length} so far)`);
      await until(() => follower.mode === 'push', 5000, "mode 'push' again");
      // pushes flow on the new socket
      const after = await publish(baseUrl, key, 3);
      await until(() => got.length >= 53, 3000, 'the events after the reconnect');
      await sleep(200);
      modes.stop();

      same(got.map((event) => event.rev), [...revs, ...after], 'every rev, once, in order');
      chain(got, from, 'the chain');
      ok(got.every((event) => event.topic === topic && event.event === 'import_finished'), 'topic and name');
      ok(closes.length >= 1 && reconnects.length >= 1, `the socket was lost (${closes.length}) and the peer reconnected (${reconnects.length})`);
      ok(modes.trail.includes('poll'), `the follower polled while the socket was gone (modes ${modes.trail.join(' → ')})`);
      equal(modes.trail.at(-1), 'push', 'and pushes again');
      const caught = got.filter((event) => whileDown.includes(event.rev));
      ok(caught.every((event) => event.via === 'poll'), `the events published while no socket was subscribed came by the catch-up poll (${caught.map((event) => event.via)})`);
      ok(got.slice(50).every((event) => event.via === 'push'), `the events once pushing again came by push (${got.slice(50).map((event) => event.via)})`);
      ok(got.slice(0, 10).every((event) => event.via === 'push'), 'the events well before the cut came by push');
      console.log(`[figure] burst of 50 with the socket cut: ${got.slice(0, 50).filter((event) => event.via === 'poll').length} caught up by poll, the rest pushed`);

      const keys = keysOf(activity);
      ok(keys.length >= 2, `a subscribe, and one after the reconnect (${keys.length})`);
      equal(new Set(keys).size, keys.length, 'every subscribe has a key of its own');
      ok(keys[0] !== keys.at(-1), 'the resubscribe has a new key');
      const wire = await wireEntries(ctl, keys);
      ok(wire.length >= 2, `the subscribe and the resubscribe reached the server (${wire.length})`);
      equal(new Set(wire.map((entry) => entry.idempotency_key)).size, wire.length, 'no subscribe reached the server twice under one key');
      ok(wire.every((entry) => entry.transport === 'muxws' && entry.status === 200), 'over muxws, answered 200');
      equal(activity.events.filter((event) => event.type === 'retry' && event.path === '/events/subscribe').length, 0, 'no subscribe was repeated');
      equal(await socketsHolding(baseUrl, topic), 1, 'the new socket holds the topic');
    } finally {
      modes?.stop();
      activity.stop();
      await closeAll([follower], [peer]);
    }
  },

  async 'live push: events missed while the socket was down, no push after them: the catch-up poll after the resubscribe brings them'({ pkg, baseUrl, wsUrl, ctl }) {
    const { peer, reconnects } = await connect(pkg, wsUrl);
    const activity = recordActivity(pkg);
    const key = freshKey();
    const got = [];
    // no poll of the interval: nothing but the catch-up after the resubscribe can bring the missed events
    const follower = pkg.follow(`imports:${key}`, { peer, pollIntervalMs: QUIET_MS, checkIntervalMs: QUIET_MS, onEvent: (event) => got.push(event) });
    try {
      await follower.ready;
      await until(() => follower.mode === 'push', 2000, "mode 'push'");
      const before = await publish(baseUrl, key, 2);
      await until(() => got.length >= 2, 2000, 'two events by push');
      await ctl.fault('silence', { count: 20, path: '/ws', method: 'GET' });
      await ctl.killWs();
      await until(() => follower.mode !== 'push', 2000, 'the follower to leave push mode');
      const missed = await publish(baseUrl, key, 5);
      await sleep(200);
      equal(reconnects.length, 0, 'no socket yet');
      await ctl.clearFaults();
      await until(() => got.length >= 7, 3000, `the missed events after the reconnect (${got.length - 2} of 5)`);
      await until(() => follower.mode === 'push', 2000, "mode 'push' again");
      same(got.map((event) => event.rev), [...before, ...missed], 'every event, once, in order');
      chain(got, got[0].prev, 'the chain');
      same(got.slice(2).map((event) => event.via), ['poll', 'poll', 'poll', 'poll', 'poll'], 'the missed ones by the catch-up poll');
      const subscribes = keysOf(activity);
      ok(subscribes.length >= 2 && subscribes[0] !== subscribes.at(-1), 'resubscribed under a new key');
      const after = await publish(baseUrl, key, 1);
      await until(() => got.length >= 8, 2000, 'the next event');
      same([got[7].rev, got[7].via], [after[0], 'push'], 'by push again');
    } finally {
      activity.stop();
      await ctl.clearFaults();
      await closeAll([follower], [peer]);
    }
  },

  async 'live push: more events than the log holds while the socket is down: onResync once, then events by push again'({ pkg, baseUrl, wsUrl, ctl }) {
    const { event_log_size: logSize } = await other(baseUrl, 'GET', '/__test/ready');
    const { peer, reconnects } = await connect(pkg, wsUrl);
    const key = freshKey();
    const topic = `imports:${key}`;
    const got = [];
    const resyncs = [];
    let inResync = false;
    const follower = pkg.follow(topic, {
      peer,
      // no poll of the interval while the socket is down: only the resubscribe's catch-up poll finds the gap
      pollIntervalMs: QUIET_MS,
      checkIntervalMs: QUIET_MS,
      onEvent: (event) => {
        ok(!inResync, 'no event while onResync runs');
        got.push(event);
      },
      async onResync(info) {
        inResync = true;
        resyncs.push(info);
        await sleep(100);
        inResync = false;
      },
    });
    try {
      await follower.ready;
      await until(() => follower.mode === 'push', 2000, "mode 'push'");
      const before = await publish(baseUrl, key, 2);
      await until(() => got.length >= 2, 2000, 'two events before the outage');
      ok(got.every((event) => event.via === 'push'), 'by push');
      // the socket goes, and every upgrade is held unanswered (the line is down) until the faults are cleared
      await ctl.fault('silence', { count: 20, path: '/ws', method: 'GET' });
      await ctl.killWs();
      await until(() => follower.mode !== 'push', 2000, 'the follower to leave push mode');
      equal(follower.mode, 'poll', "mode 'poll' while the socket is down");
      const lost = await publish(baseUrl, key, logSize + 5);
      await sleep(300);
      equal(reconnects.length, 0, 'no socket yet');
      equal(got.length, 2, 'nothing delivered while down');
      await ctl.clearFaults();
      await until(() => resyncs.length >= 1, 5000, 'onResync');
      await until(() => follower.mode === 'push', 5000, "mode 'push' again");
      same(resyncs[0], { topic, rev: lost.at(-1), scope: undefined }, 'the resync info');
      equal(got.length, 2, 'no event of the lost stretch');
      equal(follower.cursor, lost.at(-1), 'the cursor is the rev of the resync');
      const after = await publish(baseUrl, key, 3);
      await until(() => got.length >= 5, 3000, 'events after the resync');
      await sleep(300);
      same(got.map((event) => event.rev), [...before, ...after], 'the events before, then the ones after');
      equal(got[2].prev, lost.at(-1), 'from the resync rev');
      ok(got.slice(2).every((event) => event.via === 'push'), `by push again (${got.slice(2).map((event) => event.via)})`);
      equal(resyncs.length, 1, 'onResync once');
    } finally {
      await ctl.clearFaults();
      await closeAll([follower], [peer]);
    }
  },

  async 'live push: a refused topic over the peer: the subscribe answered 403, onRefused, mode refused, ready rejects'({ pkg, wsUrl, ctl }) {
    const { peer } = await connect(pkg, wsUrl);
    const activity = recordActivity(pkg);
    const refusals = [];
    const follower = pkg.follow('imports:secret', { peer, pollIntervalMs: 100, onRefused: (error) => refusals.push(error), onEvent: () => {} });
    try {
      let readyError;
      await follower.ready.catch((error) => {
        readyError = error;
      });
      const askedBefore = activity.events.filter((event) => event.type === 'start').length;
      equal(refusals.length, 1, 'onRefused once');
      ok(refusals[0] instanceof pkg.HttpError, 'an HttpError');
      equal(refusals[0].status, 403, 'status');
      equal(refusals[0].detailCode, 'fastapi-viewsets.event_topic_refused', 'detailCode');
      equal(readyError, refusals[0], 'ready rejects with it');
      equal(follower.mode, 'refused', 'mode');
      await sleep(400);
      equal(refusals.length, 1, 'still once');
      equal(follower.mode, 'refused', 'still refused');
      const keys = keysOf(activity);
      ok(keys.length >= 1, 'the topic was subscribed');
      const wire = await wireEntries(ctl, keys);
      ok(wire.length >= 1 && wire.every((entry) => entry.transport === 'muxws' && entry.status === 403), `the subscribe went over muxws and was answered 403 (${wire.map((entry) => entry.status)})`);
      const later = activity.events.filter((event) => event.type === 'start').slice(askedBefore);
      equal(later.length, 0, `nothing more is asked of a refused topic (${later.map((event) => event.path)})`);
    } finally {
      activity.stop();
      await closeAll([follower], [peer]);
    }
  },

  async 'live push: a scoped topic (@event_scope) over muxws: each organisation gets its own events by push, with its scope'({ pkg, wsUrl }) {
    // one socket per organisation, as one user's page has: a socket holds one subscription per topic
    const { peer: peer7 } = await connect(pkg, wsUrl);
    const { peer: peer8 } = await connect(pkg, wsUrl);
    const org7 = muxItems(pkg, peer7, { basePath: '/scoped', headers: { 'X-Org': '7' } });
    const org8 = muxItems(pkg, peer8, { basePath: '/scoped', headers: { 'X-Org': '8' } });
    const seen7 = [];
    const seen8 = [];
    const follow7 = org7.watch({ pollIntervalMs: QUIET_MS, checkIntervalMs: QUIET_MS, onChange: (change, event) => seen7.push(event) });
    const follow8 = org8.watch({ pollIntervalMs: QUIET_MS, checkIntervalMs: QUIET_MS, onChange: (change, event) => seen8.push(event) });
    try {
      await Promise.all([follow7.ready, follow8.ready]);
      await until(() => follow7.mode === 'push' && follow8.mode === 'push', 2000, "both in mode 'push'");
      equal(follow7.scope, '7', 'the scope of org 7');
      equal(follow8.scope, '8', 'the scope of org 8');
      const created = await org7.create({ name: 'org 7 only' });
      await until(() => seen7.length >= 1, PUSH_MS + 1000, 'the org 7 event');
      await follow8.catchUp();
      same(seen7[0].payload, { op: 'created', changes: [{ pk: created.id }] }, 'org 7 got its create');
      equal(seen7[0].scope, '7', 'with its scope');
      equal(seen7[0].via, 'push', 'by push');
      equal(seen8.length, 0, 'org 8 got nothing');
      const created8 = await org8.create({ name: 'org 8 only' });
      await until(() => seen8.length >= 1, PUSH_MS + 1000, 'the org 8 event');
      await follow7.catchUp();
      same(seen8[0].payload, { op: 'created', changes: [{ pk: created8.id }] }, 'org 8 got its create');
      equal(seen8[0].scope, '8', 'with its scope');
      equal(seen8[0].via, 'push', 'by push');
      equal(seen7.length, 1, 'org 7 did not get the org 8 create');
    } finally {
      await closeAll([follow7, follow8], [peer7, peer8]);
    }
  },

  async 'live push: two scopes of one topic on one peer (the socket holds one subscription per topic): each watcher gets its own events only, never the other scope\'s'({ pkg, wsUrl }) {
    // An app whose page follows two organisations' /scoped over one socket. The server keeps one
    // subscription per (socket, topic): the second subscribe replaces the first. However the package
    // copes (a push only to the follower of its :scope, polls for the other), no follower may be given
    // an event of another scope, and each gets its own. Two new organisations: both scopes' store
    // topics start at rev 0, so the other scope's first push has the prev (0) of this follower's cursor.
    const [a, b] = [`a${freshKey()}`, `b${freshKey()}`];
    const { peer } = await connect(pkg, wsUrl);
    const org7 = muxItems(pkg, peer, { basePath: '/scoped', headers: { 'X-Org': a } });
    const org8 = muxItems(pkg, peer, { basePath: '/scoped', headers: { 'X-Org': b } });
    const seen7 = [];
    const seen8 = [];
    const follow7 = org7.watch({ pollIntervalMs: 200, checkIntervalMs: 1000, onChange: (change, event) => seen7.push(event) });
    try {
      await follow7.ready;
      const follow8 = org8.watch({ pollIntervalMs: 200, checkIntervalMs: 1000, onChange: (change, event) => seen8.push(event) });
      try {
        await follow8.ready;
        await sleep(200);
        equal(follow7.scope, a, 'the scope of org 7');
        equal(follow8.scope, b, 'the scope of org 8');
        const created7 = await org7.create({ name: 'org 7, shared socket' });
        const created8 = await org8.create({ name: 'org 8, shared socket' });
        const deadline = Date.now() + 3000;
        while (Date.now() < deadline && !(seen7.length >= 1 && seen8.length >= 1)) {
          await Promise.all([follow7.catchUp(), follow8.catchUp()]);
          await sleep(100);
        }
        await sleep(300);
        const show = (seen) => JSON.stringify(seen.map((event) => [event.scope, event.via, event.payload?.changes?.[0]?.pk]));
        ok(seen7.every((event) => event.scope === a), `org 7's watcher got only its scope's events (${a}; got ${show(seen7)})`);
        ok(seen8.every((event) => event.scope === b), `org 8's watcher got only its scope's events (${b}; got ${show(seen8)})`);
        same(seen7.map((event) => event.payload), [{ op: 'created', changes: [{ pk: created7.id }] }], `org 7 got its create, once (got ${show(seen7)})`);
        same(seen8.map((event) => event.payload), [{ op: 'created', changes: [{ pk: created8.id }] }], `org 8 got its create, once (got ${show(seen8)})`);
        equal(follow7.scope, a, 'org 7 keeps its scope');
      } finally {
        await follow8.close();
      }
    } finally {
      await closeAll([follow7], [peer]);
    }
  },

  async 'live push: 300 pushes while onEvent takes 20 ms each: all delivered in order, every one by push (none refused by the peer)'({ pkg, baseUrl, wsUrl }) {
    const { peer, closes } = await connect(pkg, wsUrl);
    const key = freshKey();
    const got = [];
    const serial = oneAtATime(async (event) => {
      got.push(event);
      await sleep(20);
    });
    const follower = pkg.follow(`imports:${key}`, { peer, pollIntervalMs: QUIET_MS, checkIntervalMs: QUIET_MS, onEvent: serial.onEvent });
    let maxStreams = 0;
    const sampler = setInterval(() => {
      maxStreams = Math.max(maxStreams, peer.core.streamCount);
    }, 2);
    try {
      await follower.ready;
      await until(() => follower.mode === 'push', 2000, "mode 'push'");
      const from = follower.cursor;
      const started = Date.now();
      const revs = [];
      for (let batch = 0; batch < 3; batch += 1) revs.push(...(await publish(baseUrl, key, 100)));
      const published = Date.now() - started;
      // 300 × 20 ms of onEvent, and slack for the machine
      const limit = 300 * 20 + 6000;
      await until(() => got.length >= 300, limit, `the 300 events (${got.length} so far)`);
      const took = Date.now() - started;
      console.log(`[figure] 300 pushes, onEvent 20 ms each: published in ${published} ms, all delivered in ${took} ms; at most ${maxStreams} streams open on the peer`);
      await sleep(200);
      same(got.map((event) => event.rev), revs, 'every rev, once, in order');
      chain(got, from, 'the chain');
      const polled = got.filter((event) => event.via !== 'push');
      equal(polled.length, 0, `every event by push (${polled.length} caught up by poll: pushes refused?)`);
      equal(serial.overlapped, 0, 'each onEvent awaited before the next');
      ok(took <= limit, `delivered in ${took} ms (at most ${limit})`);
      ok(maxStreams < 100, `the peer never held 100 streams (at most ${maxStreams})`);
      equal(closes.length, 0, 'the socket stayed up');
      equal(follower.mode, 'push', 'still pushing');
    } finally {
      clearInterval(sampler);
      await closeAll([follower], [peer]);
    }
  },

  async 'live push: catchUp() during a burst while onEvent takes 50 ms: every event once, in order, one onEvent at a time (c7ef532 gave 1,1,2,2,… two at once)'({ pkg, baseUrl, wsUrl }) {
    const { peer } = await connect(pkg, wsUrl);
    const key = freshKey();
    const got = [];
    const serial = oneAtATime(async (event) => {
      got.push(event);
      await sleep(50);
    });
    const follower = pkg.follow(`imports:${key}`, { peer, pollIntervalMs: QUIET_MS, checkIntervalMs: QUIET_MS, onEvent: serial.onEvent });
    try {
      await follower.ready;
      await until(() => follower.mode === 'push', 2000, "mode 'push'");
      const from = follower.cursor;
      const revs = [];
      const catchUps = [];
      for (let i = 0; i < 20; i += 1) {
        revs.push(...(await publish(baseUrl, key, 1)));
        // catchUp() in the middle of the burst, while pushed events are being handed out
        if (i % 4 === 2) catchUps.push(follower.catchUp());
      }
      await until(() => got.length >= 20, 20 * 50 + 8000, `the 20 events (${got.length} so far)`);
      await Promise.all(catchUps);
      await sleep(300);
      same(got.map((event) => event.rev), revs, 'every rev, once, in order');
      chain(got, from, 'the chain');
      equal(serial.overlapped, 0, 'never two onEvent at once');
    } finally {
      await closeAll([follower], [peer]);
    }
  },

  async 'live push: in push mode a check poll goes every checkIntervalMs, not every pollIntervalMs'({ pkg, wsUrl }) {
    const { peer } = await connect(pkg, wsUrl);
    const activity = recordActivity(pkg);
    const follower = pkg.follow(`imports:${freshKey()}`, { peer, pollIntervalMs: 50, checkIntervalMs: 400, onEvent: () => {} });
    try {
      await follower.ready;
      await until(() => follower.mode === 'push', 2000, "mode 'push'");
      const counted = activity.events.length;
      await sleep(1800);
      const polls = activity.events.slice(counted).filter((event) => event.type === 'start' && event.path === '/events/poll');
      ok(polls.length >= 2 && polls.length <= 6, `check polls every 400 ms in 1.8 s: ${polls.length} (every 50 ms would be ~36)`);
      ok(polls.every((event) => event.background && event.transport === 'muxws'), 'background calls over muxws');
      equal(follower.mode, 'push', 'still pushing');
    } finally {
      activity.stop();
      await closeAll([follower], [peer]);
    }
  },

  async "live push: a peer closed for good: the follower polls over REST at the peer's origin, every event once, in order"({ pkg, baseUrl, wsUrl, ctl }) {
    const { peer } = await connect(pkg, wsUrl);
    const key = freshKey();
    const got = [];
    const follower = pkg.follow(`imports:${key}`, { peer, pollIntervalMs: 100, onEvent: (event) => got.push(event) });
    try {
      await follower.ready;
      await until(() => follower.mode === 'push', 2000, "mode 'push'");
      const before = await publish(baseUrl, key, 1);
      await until(() => got.length >= 1, PUSH_MS, 'the push before the close');
      await peer.close();
      equal(peer.isClosed, true, 'the peer is closed for good');
      await until(() => follower.mode === 'poll', 2000, "mode 'poll'");
      const after = await publish(baseUrl, key, 2);
      await until(() => got.length >= 3, 3000, 'the events after the close');
      same(got.map((event) => event.rev), [...before, ...after], 'every event once, in order');
      same(got.map((event) => event.via), ['push', 'poll', 'poll'], 'pushed, then polled');
      const polls = (await ctl.log()).filter((entry) => entry.path === '/events/poll' && entry.transport === 'rest');
      ok(polls.length >= 1, `polls over REST after the close (${polls.length})`);
    } finally {
      await closeAll([follower], []);
    }
  },

  async 'live push: close() unsubscribes (the last follower of the topic on the peer): nothing is delivered after it'({ pkg, baseUrl, wsUrl, ctl }) {
    const { peer } = await connect(pkg, wsUrl);
    const activity = recordActivity(pkg);
    const key = freshKey();
    const topic = `imports:${key}`;
    const gotA = [];
    const gotB = [];
    const followerA = pkg.follow(topic, { peer, pollIntervalMs: QUIET_MS, checkIntervalMs: QUIET_MS, onEvent: (event) => gotA.push(event) });
    const followerB = pkg.follow(topic, { peer, pollIntervalMs: QUIET_MS, checkIntervalMs: QUIET_MS, onEvent: (event) => gotB.push(event) });
    try {
      await Promise.all([followerA.ready, followerB.ready]);
      await until(() => followerA.mode === 'push' && followerB.mode === 'push', 2000, "both in mode 'push'");
      equal(await socketsHolding(baseUrl, topic), 1, 'the socket holds the topic');
      const [first] = await publish(baseUrl, key, 1);
      await until(() => gotA.length >= 1 && gotB.length >= 1, PUSH_MS + 1000, 'the event to both followers');
      same([gotA[0].rev, gotA[0].via, gotB[0].rev, gotB[0].via], [first, 'push', first, 'push'], 'both got it by push');

      // A closes: B still follows the topic on this peer, so the socket stays subscribed
      await followerA.close();
      equal(followerA.mode, 'closed', 'A closed');
      await sleep(300);
      equal(keysOf(activity, '/events/unsubscribe').length, 0, 'no unsubscribe while another follower of the topic is on the peer');
      equal(await socketsHolding(baseUrl, topic), 1, 'the socket still holds the topic');
      const [second] = await publish(baseUrl, key, 1);
      await until(() => gotB.length >= 2, PUSH_MS + 1000, 'the next event to B');
      equal(gotB[1].rev, second, 'B got it');
      equal(gotB[1].via, 'push', 'by push');

      // B closes: the last one, so the socket unsubscribes
      await followerB.close();
      equal(followerB.mode, 'closed', 'B closed');
      await until(() => keysOf(activity, '/events/unsubscribe').length >= 1, 2000, 'the unsubscribe');
      const unsubscribes = keysOf(activity, '/events/unsubscribe');
      equal(unsubscribes.length, 1, 'one unsubscribe');
      // the request log is written once the answer went out: give it a moment
      let wire = [];
      for (let tries = 0; tries < 50 && wire.length === 0; tries += 1) {
        wire = await wireEntries(ctl, unsubscribes, '/events/unsubscribe');
        if (!wire.length) await sleep(40);
      }
      equal(wire.length, 1, 'the unsubscribe reached the server once, under its key');
      equal(wire[0].transport, 'muxws', 'over muxws');
      equal(wire[0].method, 'POST', 'method');
      equal(wire[0].status, 204, 'answered 204');
      ok(!keysOf(activity).includes(unsubscribes[0]), 'a key of its own');
      equal(await socketsHolding(baseUrl, topic), 0, 'the server no longer holds the topic for the socket');
      await publish(baseUrl, key, 1);
      await sleep(500);
      same([gotA.length, gotB.length], [1, 2], 'nothing delivered after close()');
      ok(peer.isOpen, 'the peer stays open');
    } finally {
      activity.stop();
      await closeAll([followerA, followerB], [peer]);
    }
  },

  async 'live push: 1 500 followers closed at once (follow() then close(), 0 ms) leave the socket no subscription of theirs; a topic after them is still accepted (the socket holds at most 256); closed and followed again at once, it stays subscribed'({ pkg, baseUrl, wsUrl }) {
    const { peer } = await connect(pkg, wsUrl);
    const key = freshKey();
    const PAIRS = 1500;
    /** The topics of this scenario every socket of the server holds. */
    const held = async () => (await other(baseUrl, 'GET', '/__test/events/subscriptions')).sockets.flat().filter((topic) => topic.startsWith(`imports:${key}`));
    const activity = recordActivity(pkg);
    let after;
    try {
      for (let i = 0; i < PAIRS; i += 1) {
        const follower = pkg.follow(`imports:${key}x${i}`, { peer, pollIntervalMs: QUIET_MS, checkIntervalMs: QUIET_MS });
        await follower.close();
      }
      // every subscribe under way is answered, then undone by its unsubscribe (one the socket's
      // limit refused while 256 others were held, 409, subscribed nothing)
      const subscribes = keysOf(activity);
      const settled = (keys, ok) => activity.events.filter((event) => event.type === 'settle' && event.ok === ok && keys.includes(event.key)).length;
      const unsubscribes = () => keysOf(activity, '/events/unsubscribe');
      let left = await held();
      for (let tries = 0; tries < 600 && (left.length || settled(subscribes, true) + settled(subscribes, false) < subscribes.length || unsubscribes().length < settled(subscribes, true)); tries += 1) {
        await sleep(100);
        left = await held();
      }
      const answered = settled(subscribes, true);
      equal(left.length, 0, `the socket holds none of the ${PAIRS} topics (${subscribes.length} subscribes, ${answered} answered, ${unsubscribes().length} unsubscribes)`);
      equal(unsubscribes().length, answered, 'each subscribe answered was undone by an unsubscribe');
      // past what the socket may hold (256) had they stayed: a topic after them is accepted
      after = pkg.follow(`imports:${key}after`, { peer, pollIntervalMs: QUIET_MS, checkIntervalMs: QUIET_MS, onRefused: () => {} });
      await after.ready;
      await until(() => after.mode === 'push', 2000, "the topic after them in mode 'push'");
      same(await held(), [`imports:${key}after`], 'the socket holds it alone');
      // closed and followed again at once (a component unmounted and mounted again): the unsubscribe
      // goes before the new subscribe, and the socket holds the topic for the new follower
      for (let i = 0; i < 20; i += 1) {
        await after.close();
        after = pkg.follow(`imports:${key}after`, { peer, pollIntervalMs: QUIET_MS, checkIntervalMs: QUIET_MS });
        await after.ready;
        await until(() => after.mode === 'push', 2000, "the new follower in mode 'push'");
        same(await held(), [`imports:${key}after`], `round ${i}: the socket holds the topic`);
      }
      const got = [];
      await after.close();
      after = pkg.follow(`imports:${key}after`, { peer, pollIntervalMs: QUIET_MS, checkIntervalMs: QUIET_MS, onEvent: (event) => got.push(event) });
      await after.ready;
      await until(() => after.mode === 'push', 2000, "the last follower in mode 'push'");
      const [rev] = await publish(baseUrl, `${key}after`, 1);
      await until(() => got.length >= 1, PUSH_MS + 1000, 'the event by push');
      same([got[0].rev, got[0].via], [rev, 'push'], 'by push');
    } finally {
      activity.stop();
      await closeAll([after], [peer]);
    }
  },
};

export const followPushRedisScenarios = {
  async 'live push, two processes + Redis: the write on one process, the socket on the other: the create reaches the watcher by push'({ pkg, baseUrl, wsUrl, ctl }) {
    let peer;
    let follower;
    const activity = recordActivity(pkg);
    try {
      // the WebSocket upgrade pinned to process B (upstream 1), the write to process A (upstream 0)
      await ctl.fault('pin', { upstream: 1, count: 1, path: '/ws', method: 'GET' });
      ({ peer } = await connect(pkg, wsUrl, { reconnect: false }));
      const wsItems = muxItems(pkg, peer);
      const seen = [];
      follower = wsItems.watch({ pollIntervalMs: QUIET_MS, checkIntervalMs: QUIET_MS, onChange: (change, event) => seen.push({ event, at: Date.now() }) });
      await follower.ready;
      await until(() => follower.mode === 'push', 2000, "mode 'push'");
      await ctl.fault('pin', { upstream: 0, count: 1, path: '/items', method: 'POST' });
      const sent = Date.now();
      const created = await other(baseUrl, 'POST', '/items', { name: 'cross-process push' });
      await until(() => seen.length >= 1, 3000, 'the create made on the other process');
      ok(seen[0].at - sent <= PUSH_MS, `it arrived ${seen[0].at - sent} ms after the write (at most ${PUSH_MS})`);
      same(seen[0].event.payload, { op: 'created', changes: [{ pk: created.id }] }, 'the change');
      equal(seen[0].event.via, 'push', 'by push');
      const log = await ctl.log();
      const write = log.find((entry) => entry.path === '/items' && entry.method === 'POST' && entry.ran && entry.status === 200 && entry.t * 1000 >= sent - 1000);
      equal(write?.served_by, 'A', 'the write ran on process A');
      const subscribes = await wireEntries(ctl, keysOf(activity));
      ok(subscribes.length >= 1, 'the subscribe is in the log');
      ok(subscribes.every((entry) => entry.served_by === 'B' && entry.transport === 'muxws'), `the socket (and its subscribe) on process B (${subscribes.map((entry) => entry.served_by)})`);
    } finally {
      activity.stop();
      await ctl.clearFaults();
      await closeAll([follower], [peer]);
    }
  },
};
