// Live data (issue 23), measured by bench/run.mjs: how soon an event reaches a follower, and what one
// followed topic costs while nothing happens. Nothing is asserted; each figure is shown next to its
// baseline from the same run.
//
//   latency  the test backend publishes one event at a time to a fresh topic `imports:K`
//            (POST /__test/events/publish, from the bench process, to the backend directly); four
//            followers of that topic get it at once: in a Chromium page and in a Node 20 process of
//            their own (this module, forked: not the bench's), each one over a muxws peer (`follow(topic, { peer })`: push once the peer
//            subscribes, `via: 'push'`) and one over REST (`follow(topic, { baseUrl })`, polling
//            every pollIntervalMs, default 2000). An event's latency is the time from the server's
//            publish to `onEvent`. Before each publish the bench waits a random time in
//            [0, pollIntervalMs), so the events fall at random phases of the polls.
//   idle     one followed topic, nothing published: a Chromium tab following over REST, another
//            over a muxws peer, and the same two in Node, for one window (60 s; 5 s with --quick)
//            after they are ready. Counted on the wire: the REST tab's requests in the fault
//            proxy's log (its baseUrl is the proxy); the muxws tab's WebSocket frames as Chromium's
//            network layer reports them (Playwright's `framesent` / `framereceived`, CDP); in the
//            Node process, its fetch calls and WebSocket messages (counting wrappers of fetch and
//            WebSocket). Given per minute: count × 60 s / window.
//
// The publish time: each event's rev, which fastapi-viewsets takes from the server's clock in
// milliseconds, when every rev of the run lies between the bench's clock before the publish request
// and after its answer (same machine, same clock); otherwise the moment the publish was answered.
// The section says which it used. Clocks: `performance.timeOrigin + performance.now()` aligned to
// `Date.now()` at the moment its millisecond ticks, in the page and in Node alike.
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { median, quantile } from './stats.mjs';

const here = fileURLToPath(import.meta.url);
const repoRoot = path.resolve(path.dirname(here), '..');

/** The follower's and the peer's defaults the measures rely on (the package's documented defaults). */
export const LIVE_DEFAULTS = { pollIntervalMs: 2000, checkIntervalMs: 30_000, pingIntervalMs: 20_000 };

/** How many events and how long an idle window, per mode. */
export function liveCounts(quick) {
  return quick ? { events: 5, warmup: 1, idleMs: 5_000, settleMs: 500 } : { events: 50, warmup: 2, idleMs: 60_000, settleMs: 2_000 };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------ in a page or in Node (serialised: self-contained)
/**
 * Starts the followers of `topic` under `globalThis.benchLive[name]`: one over a muxws peer of
 * `wsUrl` and one over REST at `baseUrl` (either may be left out), recording when each event
 * reached `onEvent` (epoch ms, µs precision). Resolves with their modes once both are ready.
 */
async function liveFollowersStart({ pkgUrl, name, topic, baseUrl, wsUrl }) {
  const pkg = await import(pkgUrl ?? '/pkg/index.js');
  // performance.now() ticks in µs (cross-origin isolated pages, Node); its origin is aligned to the
  // wall clock (Date.now(), ms) at the moment Date.now() ticks: the median of 5 such offsets
  const perf = () => performance.timeOrigin + performance.now();
  const offsets = [];
  for (let i = 0; i < 5; i += 1) {
    const before = Date.now();
    let now;
    while ((now = Date.now()) === before);
    offsets.push(now - perf());
  }
  offsets.sort((a, b) => a - b);
  const offset = offsets[2];
  const clock = () => perf() + offset;
  const state = { arrivals: { push: [], poll: [] }, waiting: [], followers: {}, peer: null, clock };
  const arrived = (kind) => (event) => {
    const at = clock();
    state.arrivals[kind].push({ rev: event.rev, via: event.via, at });
    for (const wait of [...state.waiting]) wait();
  };
  if (wsUrl) {
    state.peer = await pkg.connectMuxws(wsUrl, {});
    state.followers.push = pkg.follow(topic, { peer: state.peer, onEvent: arrived('push') });
  }
  if (baseUrl) state.followers.poll = pkg.follow(topic, { baseUrl, onEvent: arrived('poll') });
  await Promise.all(Object.values(state.followers).map((follower) => follower.ready));
  /** Resolves once every follower got `rev` (true), or after `ms` (false). */
  state.waitFor = (rev, ms) =>
    new Promise((resolve) => {
      const kinds = Object.keys(state.followers);
      const check = () => {
        if (!kinds.every((kind) => state.arrivals[kind].some((arrival) => arrival.rev === rev))) return;
        done(true);
      };
      const timer = setTimeout(() => done(false), ms);
      const done = (value) => {
        clearTimeout(timer);
        state.waiting = state.waiting.filter((wait) => wait !== check);
        resolve(value);
      };
      state.waiting.push(check);
      check();
    });
  state.modes = () => Object.fromEntries(Object.entries(state.followers).map(([kind, follower]) => [kind, follower.mode]));
  state.close = async () => {
    await Promise.all(Object.values(state.followers).map((follower) => follower.close()));
    await state.peer?.close();
  };
  (globalThis.benchLive ??= {})[name] = state;
  return state.modes();
}

/** What the followers `name` recorded, and their modes now. */
function liveFollowersRead(name) {
  const state = globalThis.benchLive[name];
  return { arrivals: state.arrivals, modes: state.modes(), now: state.clock() };
}

function liveFollowersWait([name, rev, ms]) {
  return globalThis.benchLive[name].waitFor(rev, ms);
}

async function liveFollowersClose(name) {
  const state = globalThis.benchLive[name];
  const modes = state.modes();
  await state.close();
  delete globalThis.benchLive[name];
  return modes;
}

// ------------------------------------------------------------------ the bench process
/** `performance.timeOrigin + performance.now()` aligned to Date.now(), as liveFollowersStart does it. */
function nodeClock() {
  const perf = () => performance.timeOrigin + performance.now();
  const offsets = [];
  for (let i = 0; i < 5; i += 1) {
    const before = Date.now();
    let now;
    while ((now = Date.now()) === before);
    offsets.push(now - perf());
  }
  const offset = median(offsets);
  return () => perf() + offset;
}

/** A topic of the source `imports` nothing else uses. */
const freshKey = (what) => `bench-${what}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function publish(baseUrl, key) {
  const response = await fetch(`${baseUrl}/__test/events/publish?key=${key}&n=1`, { method: 'POST' });
  const text = await response.text();
  if (!response.ok) throw new Error(`publish to imports:${key}: ${response.status} ${text}`);
  return JSON.parse(text).revs;
}

async function json(url) {
  const response = await fetch(url);
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/** Latencies of `events` against their publish times: { push: [...], poll: [...], lost: {push, poll} } for one origin. */
function latencies(events, arrivals, origin) {
  const out = { push: [], poll: [], lost: { push: 0, poll: 0 }, via: { push: {}, poll: {} } };
  for (const kind of ['push', 'poll']) {
    if (!arrivals[kind]) continue;
    for (const event of events) {
      const arrival = arrivals[kind].find((a) => a.rev === event.rev);
      if (!arrival) {
        out.lost[kind] += 1;
        continue;
      }
      out[kind].push(arrival.at - origin(event));
      out.via[kind][arrival.via] = (out.via[kind][arrival.via] ?? 0) + 1;
    }
  }
  return out;
}

/**
 * Push latency: `counts.events` events (after `counts.warmup` unrecorded ones), each published at a
 * random offset in [0, pollIntervalMs) after the previous one reached every follower.
 */
async function measureLatency({ browser, runnerUrl, directUrl, directWsUrl, pkgUrl, node, counts, log }) {
  const key = freshKey('latency');
  const topic = `imports:${key}`;
  const context = await browser.newContext();
  const page = await context.newPage();
  const consoleLines = [];
  page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => consoleLines.push(`pageerror: ${error.message}`));
  const clock = nodeClock();
  const where = { chromium: null, node: null };
  try {
    await page.goto(runnerUrl);
    const args = { name: 'latency', topic, baseUrl: directUrl, wsUrl: directWsUrl };
    where.chromium = { started: await page.evaluate(liveFollowersStart, args).catch((error) => Promise.reject(new Error(`${error.message}\n${consoleLines.join('\n')}`))) };
    where.node = { started: await node.call('start', { ...args, pkgUrl }) };
    const waitMs = 2 * LIVE_DEFAULTS.pollIntervalMs + 5_000;
    const events = [];
    const total = counts.warmup + counts.events;
    for (let i = 0; i < total; i += 1) {
      await sleep(Math.random() * LIVE_DEFAULTS.pollIntervalMs);
      const before = clock();
      const [rev] = await publish(directUrl, key);
      const answered = clock();
      const [inPage, inNode] = await Promise.all([page.evaluate(liveFollowersWait, ['latency', rev, waitMs]), node.call('wait', ['latency', rev, waitMs])]);
      if (i >= counts.warmup) events.push({ rev, before, answered, missing: [inPage ? null : 'Chromium', inNode ? null : 'Node'].filter(Boolean) });
      if ((i + 1) % 10 === 0) log(`live: ${i + 1} of ${total} events`);
    }
    where.chromium.read = await page.evaluate(liveFollowersRead, 'latency');
    where.node.read = await node.call('read', 'latency');
    where.chromium.closing = await page.evaluate(liveFollowersClose, 'latency');
    where.node.closing = await node.call('close', 'latency');
    // the revs as server-side publish times: only if every one lies within its publish request
    const slackMs = 1; // a rev is whole ms (floored, as the server's clock read them)
    const revsAreTimes = events.every((e) => e.rev >= Math.floor(e.before) - slackMs && e.rev <= e.answered + slackMs);
    const fromRev = (e) => e.rev;
    const fromAnswer = (e) => e.answered;
    const out = { events: events.length, revsAreTimes, origin: revsAreTimes ? 'rev' : 'answered', publishMs: events.map((e) => e.answered - e.before), revInRequest: events.map((e) => e.rev - e.before) };
    for (const side of ['chromium', 'node']) {
      const { arrivals, modes } = where[side].read;
      out[side] = {
        modes: { started: where[side].started, during: modes },
        fromRev: latencies(events, arrivals, fromRev),
        fromAnswer: latencies(events, arrivals, fromAnswer),
      };
      out[side].main = revsAreTimes ? out[side].fromRev : out[side].fromAnswer;
    }
    out.missing = events.flatMap((e) => e.missing);
    return out;
  } finally {
    await context.close().catch(() => {});
  }
}

/** The muxws frame type of a WebSocket message (muxws frames are JSON text that starts with their type). */
function frameType(data) {
  if (typeof data !== 'string') return 'binary';
  return data.slice(0, 64).match(/"type"\s*:\s*"([a-z]+)"/)?.[1] ?? 'other';
}

/** Counts what this process sends by fetch to `prefix` and over WebSockets, on `globalThis.benchWire`. */
function countNodeWire(prefix) {
  const realFetch = globalThis.fetch;
  const RealWebSocket = globalThis.WebSocket;
  const counts = (globalThis.benchWire = { requests: [], frames: [] });
  const size = (data) => (typeof data === 'string' ? Buffer.byteLength(data) : data?.byteLength ?? data?.size ?? 0);
  globalThis.fetch = function countedFetch(input, init) {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input?.url;
    if (typeof url === 'string' && url.startsWith(prefix)) counts.requests.push({ t: Date.now(), method: init?.method ?? input?.method ?? 'GET', path: new URL(url).pathname });
    return realFetch.call(this, input, init);
  };
  globalThis.WebSocket = class CountedWebSocket extends RealWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => counts.frames.push({ t: Date.now(), dir: 'received', bytes: size(event.data), type: frameType(event.data) }));
    }

    send(data) {
      counts.frames.push({ t: Date.now(), dir: 'sent', bytes: size(data), type: frameType(data) });
      return super.send(data);
    }
  };
}

/** The operations the Node follower process answers (see followerProcess()). */
const CHILD_OPS = {
  start: liveFollowersStart,
  wait: liveFollowersWait,
  read: liveFollowersRead,
  close: liveFollowersClose,
  countWire: countNodeWire,
  wire: () => globalThis.benchWire,
};

/**
 * A Node 20 process of its own for the Node followers (this module, forked), so that what the bench
 * process does (publish, drive Chromium) does not share their event loop: `call(op, arg)`, `stop()`.
 */
function followerProcess() {
  const child = fork(here, ['--follower-process'], { execArgv: ['--experimental-websocket'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map();
  let next = 0;
  let gone = null;
  child.on('message', ({ id, result, error }) => {
    const waiter = pending.get(id);
    pending.delete(id);
    if (error) waiter?.reject(new Error(`the Node follower process: ${error}`));
    else waiter?.resolve(result);
  });
  child.on('exit', (code, signal) => {
    gone = new Error(`the Node follower process exited (${code ?? signal})`);
    for (const waiter of pending.values()) waiter.reject(gone);
    pending.clear();
  });
  return {
    call(op, arg) {
      if (gone) return Promise.reject(gone);
      const id = (next += 1);
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, op, arg });
      });
    },
    async stop() {
      if (gone) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

if (process.argv[2] === '--follower-process' && process.argv[1] === here) {
  process.on('message', async ({ id, op, arg }) => {
    try {
      process.send({ id, result: await CHILD_OPS[op](arg) });
    } catch (error) {
      process.send({ id, error: String(error?.stack ?? error) });
    }
  });
  // the bench disconnects when it is done (or gone): the followers' timers and sockets must not keep this alive
  process.on('disconnect', () => process.exit(0));
}

/** Frames of every WebSocket of `page`, as Chromium's network layer reports them (CDP). */
function countPageFrames(page) {
  const frames = [];
  page.on('websocket', (ws) => {
    const bytes = (payload) => (typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length);
    ws.on('framesent', ({ payload }) => frames.push({ t: Date.now(), dir: 'sent', bytes: bytes(payload), type: frameType(payload) }));
    ws.on('framereceived', ({ payload }) => frames.push({ t: Date.now(), dir: 'received', bytes: bytes(payload), type: frameType(payload) }));
  });
  return frames;
}

/** What the frames of a window add up to. */
function frameTotals(frames, from, to) {
  const within = frames.filter((f) => f.t >= from && f.t <= to);
  const of = (dir) => within.filter((f) => f.dir === dir);
  const sum = (xs) => xs.reduce((total, f) => total + f.bytes, 0);
  const types = {};
  for (const f of within) types[`${f.type} ${f.dir}`] = (types[`${f.type} ${f.dir}`] ?? 0) + 1;
  return { sent: of('sent').length, received: of('received').length, sentBytes: sum(of('sent')), receivedBytes: sum(of('received')), types };
}

/** Requests of a window by `METHOD path`. */
function byRoute(requests) {
  const out = {};
  for (const r of requests) out[`${r.method} ${r.path.split('?')[0]}`] = (out[`${r.method} ${r.path.split('?')[0]}`] ?? 0) + 1;
  return out;
}

/**
 * The idle cost of one followed topic: a Chromium tab over REST (through the fault proxy), a
 * Chromium tab over a muxws peer, and the same two in Node, all ready, then one window of
 * `counts.idleMs` with nothing published.
 */
async function measureIdle({ browser, runnerUrl, stack, pkgUrl, node, counts, log }) {
  const restKey = freshKey('idle-rest');
  const muxKey = freshKey('idle-mux');
  const nodeKey = freshKey('idle-node');
  const contexts = [];
  const tab = async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(runnerUrl);
    return page;
  };
  const restTab = await tab();
  const muxTab = await tab();
  const restRequests = [];
  restTab.on('request', (request) => restRequests.push({ t: Date.now(), method: request.method(), path: new URL(request.url()).pathname }));
  const muxFrames = countPageFrames(muxTab);
  const restTabFrames = countPageFrames(restTab);
  await node.call('countWire', stack.directUrls[0]);
  try {
    const started = {
      chromiumRest: await restTab.evaluate(liveFollowersStart, { name: 'idle', topic: `imports:${restKey}`, baseUrl: stack.baseUrl }),
      chromiumMux: await muxTab.evaluate(liveFollowersStart, { name: 'idle', topic: `imports:${muxKey}`, wsUrl: stack.directWsUrls[0] }),
      nodeRest: await node.call('start', { pkgUrl, name: 'idle-rest', topic: `imports:${nodeKey}`, baseUrl: stack.directUrls[0] }),
      nodeMux: await node.call('start', { pkgUrl, name: 'idle-mux', topic: `imports:${nodeKey}`, wsUrl: stack.directWsUrls[0] }),
    };
    await sleep(counts.settleMs);
    log(`live: idle window of ${counts.idleMs / 1000} s (REST and muxws followers, Chromium and Node)`);
    await json(`${stack.proxyUrl}/__fault?mode=log&clear=1`);
    const from = Date.now();
    await sleep(counts.idleMs);
    const to = Date.now();
    const proxyLog = (await json(`${stack.proxyUrl}/__fault?mode=log`)).requests.filter((entry) => entry.t * 1000 >= from && entry.t * 1000 <= to);
    const backendLog = (await json(`${stack.directUrls[0]}/__test/log`)).filter((entry) => entry.t * 1000 >= from && entry.t * 1000 <= to && entry.path.startsWith('/events/'));
    const modes = {
      chromiumRest: (await restTab.evaluate(liveFollowersClose, 'idle')).poll,
      chromiumMux: (await muxTab.evaluate(liveFollowersClose, 'idle')).push,
      nodeRest: (await node.call('close', 'idle-rest')).poll,
      nodeMux: (await node.call('close', 'idle-mux')).push,
    };
    const wire = await node.call('wire');
    const windowMs = to - from;
    const within = (xs) => xs.filter((x) => x.t >= from && x.t <= to);
    return {
      windowMs,
      started: { chromiumRest: started.chromiumRest.poll, chromiumMux: started.chromiumMux.push, nodeRest: started.nodeRest.poll, nodeMux: started.nodeMux.push },
      modes,
      chromium: {
        rest: { wire: proxyLog.length, routes: byRoute(proxyLog), inPage: within(restRequests).length, frames: frameTotals(restTabFrames, from, to) },
        mux: { frames: frameTotals(muxFrames, from, to), life: frameTotals(muxFrames, 0, Infinity) },
      },
      node: {
        rest: { requests: within(wire.requests).length, routes: byRoute(within(wire.requests)) },
        mux: { frames: frameTotals(wire.frames, from, to), life: frameTotals(wire.frames, 0, Infinity) },
      },
      backend: { rest: backendLog.filter((e) => e.transport === 'rest').length, muxws: backendLog.filter((e) => e.transport !== 'rest').length, routes: byRoute(backendLog) },
    };
  } finally {
    for (const context of contexts) await context.close().catch(() => {});
  }
}

/**
 * The live-data measures: `{ latency, idle, counts }`. `stack` is tests/harness/stack.mjs's (with its
 * fault proxy); `runnerUrl` a cross-origin isolated page of the bench's static server.
 */
export async function measureLive({ browser, runnerUrl, stack, quick, log, counts = liveCounts(quick) }) {
  const pkgUrl = pathToFileURL(path.join(repoRoot, 'pkg', 'index.js')).href;
  if (!stack.proxyUrl) throw new Error('the live measures count REST requests in the fault proxy log: start the stack with its proxy');
  const node = followerProcess();
  try {
    log(`live: push latency, ${counts.events} events (+${counts.warmup} to warm up) at random offsets in [0, ${LIVE_DEFAULTS.pollIntervalMs}) ms, Chromium and Node`);
    const latency = await measureLatency({ browser, runnerUrl, directUrl: stack.directUrls[0], directWsUrl: stack.directWsUrls[0], pkgUrl, node, counts, log });
    const idle = await measureIdle({ browser, runnerUrl, stack, pkgUrl, node, counts, log });
    return { counts, latency, idle };
  } finally {
    await node.stop();
  }
}

// ------------------------------------------------------------------ the report
/**
 * The section of BENCHMARKS.md: its lines. `table`, `spread`, `ms` and `ratio` are run.mjs's.
 */
export function renderLive(r, { table, spread, ms, ratio: ratioOf }) {
  const { latency: l, idle: i, counts } = r;
  // two significant digits below 0.1× (a push is a few ms against a poll's second)
  const ratio = (a, b) => (a / b < 0.1 ? `${(a / b).toPrecision(2)}×` : ratioOf(a, b));
  const perMinute = (n) => (n * 60_000) / i.windowMs;
  const perMin = (n) => `${perMinute(n).toFixed(1)}/min`;
  const windowS = (i.windowMs / 1000).toFixed(1);
  const modeText = (modes) => Object.entries(modes).map(([kind, mode]) => `${kind === 'push' ? 'muxws' : 'REST'} ${mode}`).join(', ');
  const viaText = (via) => Object.entries(via).map(([name, n]) => `via ${name} ${n}`).join(', ') || 'none arrived';
  const origin = l.origin === 'rev' ? "the event's rev (the server's clock, ms)" : 'the publish answered (bench process)';
  const p90 = (xs) => ms(quantile(xs, 0.9));
  const lat = (side, what) => {
    const m = l[side].main;
    const push = m.push;
    const poll = m.poll;
    const lost = m.lost.push || m.lost.poll ? ` (lost: push ${m.lost.push}, poll ${m.lost.poll})` : '';
    return [
      `Publish → onEvent, median of ${push.length} events, ${what}: muxws peer (${viaText(m.via.push)}) vs REST polling every ${LIVE_DEFAULTS.pollIntervalMs} ms${lost}`,
      `${ms(median(push))} ms (p90 ${p90(push)} ms)`,
      `${ms(median(poll))} ms (p90 ${p90(poll)} ms)`,
      ratio(median(push), median(poll)),
      '—',
    ];
  };
  const c = i.chromium;
  const n = i.node;
  const frames = (f) => f.sent + f.received;
  const framesCell = (f) => `${perMin(frames(f))} (${perMin(f.sent)} sent, ${perMin(f.received)} received; ${((perMinute(f.sentBytes + f.receivedBytes)) / 1000).toFixed(2)} KB/min of payload)`;
  const expectedPolls = 60_000 / LIVE_DEFAULTS.pollIntervalMs;
  const rows = [
    lat('chromium', 'Chromium'),
    lat('node', 'Node 20'),
    [
      `Idle, one followed topic over REST (pollIntervalMs ${LIVE_DEFAULTS.pollIntervalMs}, mode ${i.modes.chromiumRest}): HTTP requests per minute per tab on the wire (the fault proxy's log), Chromium`,
      perMin(c.rest.wire),
      `60 000 / pollIntervalMs = ${expectedPolls.toFixed(1)}/min`,
      ratio(perMinute(c.rest.wire), expectedPolls),
      '—',
    ],
    [
      `Idle, one followed topic over a muxws peer (mode ${i.modes.chromiumMux}): WebSocket frames per minute per tab, both ways (Chromium's network layer), Chromium`,
      framesCell(c.mux.frames),
      `REST: ${perMin(2 * c.rest.wire)} messages (each poll a request and its answer)`,
      ratio(frames(c.mux.frames), 2 * c.rest.wire),
      '—',
    ],
    [
      `Idle, the same over REST (mode ${i.modes.nodeRest}): requests per minute (fetch calls of the process), Node 20`,
      perMin(n.rest.requests),
      `60 000 / pollIntervalMs = ${expectedPolls.toFixed(1)}/min`,
      ratio(perMinute(n.rest.requests), expectedPolls),
      '—',
    ],
    [
      `Idle, the same over a muxws peer (mode ${i.modes.nodeMux}): WebSocket messages per minute, both ways, Node 20`,
      framesCell(n.mux.frames),
      `REST: ${perMin(2 * n.rest.requests)} messages`,
      ratio(frames(n.mux.frames), 2 * n.rest.requests),
      '—',
    ],
  ];
  const spreadRows = [];
  for (const [side, label] of [['chromium', 'Chromium'], ['node', 'Node']]) {
    for (const [from, fromLabel] of [['fromRev', 'from the rev'], ['fromAnswer', 'from the publish answered']]) {
      spreadRows.push(spread(`${label}: muxws peer, ${fromLabel}`, l[side][from].push), spread(`${label}: REST polling, ${fromLabel}`, l[side][from].poll));
    }
  }
  spreadRows.push(spread('the publish request, sent → answered (bench process)', l.publishMs), spread('its rev − when it was sent', l.revInRequest));
  const routes = (x) => Object.entries(x).map(([route, count]) => `${count} ${route}`).join(', ') || 'none';
  const types = (f) => Object.entries(f.types).sort().map(([type, count]) => `${count} ${type}`).join(', ') || 'none';
  const quick = counts.idleMs < LIVE_DEFAULTS.checkIntervalMs;
  return [
    '## Live data: push vs polling',
    '',
    `\`bench/live.mjs\`, in this run. Latency: ${l.events} events (after ${counts.warmup} to warm up), one at a time, published by the test backend to a fresh topic \`imports:K\` (\`POST /__test/events/publish?key=K&n=1\`, from the bench process to the backend directly); the next one a random time in [0, ${LIVE_DEFAULTS.pollIntervalMs}) ms after every follower got the last, so the events fall at random phases of the polls. Four followers of the topic get each event: in one Chromium page and in a Node process of their own (\`bench/live.mjs\` forked, not the bench's), \`follow('imports:K', { peer, onEvent })\` over a muxws peer of the backend and \`follow('imports:K', { baseUrl, onEvent })\` over REST with the default pollIntervalMs (${LIVE_DEFAULTS.pollIntervalMs}); modes when ready: Chromium ${modeText(l.chromium.modes.started)}; Node ${modeText(l.node.modes.started)}. The latency is measured from ${origin} to the first line of \`onEvent\`${l.revsAreTimes ? ': every rev of the run lay between the bench clock before its publish request and after its answer (the median rev came ' + ms(median(l.revInRequest)) + ' ms after the request was sent, the answer ' + ms(median(l.publishMs)) + ' ms after it), so the rev is the server\'s publish time; a rev is whole milliseconds, so latencies from it read up to 1 ms long' : ': the revs did not lie within their publish requests, so they are not read as times'}. Clocks: \`performance.timeOrigin + performance.now()\` aligned to \`Date.now()\` as its millisecond ticks, in the page and in Node; one machine, one clock.`,
    '',
    `Idle: one followed topic each, nothing published, for a window of ${windowS} s after every follower was ready${quick ? ` (quick mode: shorter than checkIntervalMs, ${LIVE_DEFAULTS.checkIntervalMs} ms, and pingIntervalMs, ${LIVE_DEFAULTS.pingIntervalMs} ms, so the muxws figures miss what those add)` : ''}; counts extrapolated to a minute (count × 60 s / ${windowS} s). A Chromium tab (a context of its own) follows over REST through the fault proxy; its requests are those of the proxy's log in the window (${routes(c.rest.routes)}; Playwright saw the page send ${c.rest.inPage}; the tab's WebSocket frames: ${frames(c.rest.frames)}). Another tab follows over a muxws peer of the backend: its frames as Chromium's network layer reports them (Playwright's \`framesent\` and \`framereceived\`, CDP: data frames, the peer's pings among them; from the connect to the end of the window, the subscribe included, ${frames(c.mux.life)}); in the window, by muxws frame type: ${types(c.mux.frames)}. In the Node process the same two, counted there: fetch calls to the backend (${routes(n.rest.routes)}) and the messages a WebSocket sent and received (from the connect to the end of the window ${frames(n.mux.life)}; in the window: ${types(n.mux.frames)}). The backend's log agrees: ${i.backend.rest} REST and ${i.backend.muxws} muxws requests to /events in the window (both sides; ${routes(i.backend.routes)}). Modes at the end of the window: Chromium REST ${i.modes.chromiumRest}, muxws ${i.modes.chromiumMux}; Node REST ${i.modes.nodeRest}, muxws ${i.modes.nodeMux}.`,
    '',
    table(['measure', 'SDK', 'baseline', 'ratio', 'goal'], rows),
    '',
    'Latency from the publish to `onEvent`, in ms:',
    '',
    table(['series', 'p10', 'median', 'p90', 'p99', 'n'], spreadRows),
    '',
    ...(l.missing.length ? [`Events that did not reach every follower within ${2 * LIVE_DEFAULTS.pollIntervalMs + 5000} ms: ${l.missing.join(', ')}.`, ''] : []),
    `- Polling delivers an event at the next poll: on average half an interval after it was published (${LIVE_DEFAULTS.pollIntervalMs / 2} ms with the default), at most a whole interval plus a poll's round trip; the median and p90 of the REST rows are that. With ${l.events} events, the median of a spread uniform over the interval moves by about ±${(LIVE_DEFAULTS.pollIntervalMs / (2 * Math.sqrt(l.events))).toFixed(0)} ms (one standard error) from run to run. A pushed event costs the server's send and one WebSocket message.`,
    `- Over a muxws peer in push mode a follower still polls, every checkIntervalMs (${LIVE_DEFAULTS.checkIntervalMs} ms), to check that nothing was missed: a muxws call, a stream (its \`open\` and the reply's \`data\`). The peer pings when nothing has arrived for pingIntervalMs (${LIVE_DEFAULTS.pingIntervalMs} ms), and the server's \`pong\` is a frame too; a check poll's answer is an arrival.`,
    '- Measured from the publish answered, a push can come out negative: it may reach a follower before the answer to the publish request reaches the bench process. The rows above use the rev when it can be read as the publish time (see above).',
    '',
  ];
}

// ------------------------------------------------------------------ live lists (issue 28)
/**
 * In a page: a live list of /items over a muxws peer, and beside it a follower of the same topic
 * (today's figure: the event reaching onEvent); records when each row first shows in `rows` and
 * when each event reached onEvent, by pk, on the aligned clock.
 */
async function liveListStart({ wsUrl }) {
  const pkg = await import('/pkg/index.js');
  const perf = () => performance.timeOrigin + performance.now();
  const offsets = [];
  for (let i = 0; i < 5; i += 1) {
    const before = Date.now();
    let now;
    while ((now = Date.now()) === before);
    offsets.push(now - perf());
  }
  offsets.sort((a, b) => a - b);
  const clock = () => perf() + offsets[2];
  const peer = await pkg.connectMuxws(wsUrl);
  // the follower alone on a peer of its own (one socket holds one subscription of a topic)
  const other = await pkg.connectMuxws(wsUrl);
  const Items = pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]);
  const items = new Items({ basePath: '/items', peer, schemaCheck: false });
  const state = { rows: {}, events: {} };
  const follower = pkg.follow('/items', {
    peer: other,
    onEvent: (event) => {
      for (const { pk } of event.payload.changes) state.events[pk] ??= { at: clock(), rev: event.rev };
    },
  });
  const list = pkg.liveList(items);
  list.subscribe((current) => {
    const at = clock();
    for (const row of current.rows) if (row.id !== undefined) state.rows[row.id] ??= at;
  });
  await Promise.all([list.ready, follower.ready]);
  for (const row of list.rows) state.rows[row.id] = 0;
  const deadline = Date.now() + 5000;
  while ((list.status.mode !== 'push' || follower.mode !== 'push') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  globalThis.benchLiveList = {
    state,
    async close() {
      await list.close();
      await follower.close();
      await peer.close();
      await other.close();
    },
    mode: () => [list.status.mode, follower.mode],
  };
  return globalThis.benchLiveList.mode();
}

/**
 * In a page: 10 000 rows of /catalog/bulk in a live list over REST, `pendingCount` own partial
 * updates held pending (the fault proxy delays their answers), then one change by another client:
 * the time from its record's answer to the list's listener (the rows made again with the pending
 * ones on top), and the time of one own write's call, which shows it in the same task.
 */
async function liveListBig({ baseUrl, directUrl, pendingCount, changes }) {
  const pkg = await import('/pkg/index.js');
  const Books = pkg.restViewSet()('id', [pkg.ViewSetMixin]);
  const books = new Books({ basePath: '/catalog/bulk', baseUrl, schemaCheck: false });
  const list = pkg.liveList(books, undefined, { pollIntervalMs: 50 });
  await list.ready;
  const rowsRead = list.rows.length;
  // own writes held pending (rows past the seed's twelve, which the seed at the end removes: their
  // late answers change nothing), each call timed: it shows its write in rows in its task. A few
  // only: a browser keeps 6 connections to a host, and held requests hold theirs.
  const held = [];
  const ownMs = [];
  for (let i = 0; i < pendingCount; i += 1) {
    const t0 = performance.now();
    held.push(books.partialUpdate(list.rows[100 + i].id, { title: `pending ${i}` }).catch(() => {}));
    ownMs.push(performance.now() - t0);
  }
  const pendingAtFirst = list.pending.length;
  // their requests reach the fault proxy (and are held there) before anything else is sent
  await new Promise((resolve) => setTimeout(resolve, 1000));
  // a change by another client: from its record's answer to the listener
  const retrieve = books.retrieve;
  let answeredAt = 0;
  books.retrieve = function (...args) {
    return retrieve.apply(this, args).then((value) => {
      answeredAt = performance.now();
      return value;
    });
  };
  const updateMs = [];
  for (let i = 0; i < changes; i += 1) {
    const target = list.rows[list.rows.length - 1 - i];
    const title = `changed ${i} ${Math.random()}`;
    const seen = new Promise((resolve) => {
      const stop = list.subscribe((current) => {
        if (current.rows[current.rows.length - 1 - i]?.title === title) {
          stop();
          resolve(performance.now());
        }
      });
    });
    // another client: to the backend directly (a PUT; the fault proxy holds back the own PATCHes)
    await fetch(`${directUrl}/catalog/bulk/${target.id}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: target.id, title, author: target.author }) });
    const at = await seen;
    updateMs.push(at - answeredAt);
  }
  const pending = list.pending.length;
  const states = list.pending.map((write) => write.state).join(',');
  await list.close();
  return { rows: rowsRead, pending, pendingAtFirst, states, ownMs, updateMs };
}

/**
 * The live-list measures (issue 28), Chromium: publish → rows over muxws push beside publish →
 * onEvent (the follower alone, today's figure); and 10 000 rows, one change, with pending rows.
 */
export async function measureLiveList({ browser, runnerUrl, stack, quick, log }) {
  const events = quick ? 5 : 50;
  const changes = quick ? 3 : 20;
  const page = await (await browser.newContext()).newPage();
  const consoleLines = [];
  page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  const clock = nodeClock();
  try {
    await page.goto(runnerUrl);
    const direct = stack.directUrls[0];
    const modes = await page.evaluate(liveListStart, { wsUrl: stack.directWsUrls[0] });
    log(`live list: publish → rows, ${events} writes over muxws push (modes ${modes.join(', ')})`);
    const created = [];
    for (let i = 0; i < events; i += 1) {
      await sleep(50 + Math.random() * 100);
      const before = clock();
      const response = await fetch(`${direct}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `bench ${i}` }) });
      const { id } = await response.json();
      created.push({ id, before, answered: clock() });
    }
    await sleep(500);
    const { rows, events: arrivals } = await page.evaluate(() => globalThis.benchLiveList.state);
    await page.evaluate(() => globalThis.benchLiveList.close());
    const toRows = [];
    const toEvent = [];
    let lost = 0;
    for (const { id } of created) {
      const event = arrivals[id];
      if (!event || !rows[id]) {
        lost += 1;
        continue;
      }
      toRows.push(rows[id] - event.rev);
      toEvent.push(event.at - event.rev);
    }
    // 10 000 rows: seeded with one bulk create; pending writes held by the fault proxy
    log('live list: 10 000 rows, one change with pending rows');
    await fetch(`${direct}/__test/catalog/seed`, { method: 'POST' });
    const bulk = Array.from({ length: 10_000 - 12 }, (_, i) => ({ title: `book ${i}`, author: 'Bench' }));
    const seeded = await fetch(`${direct}/catalog/bulk/bulk`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(bulk) });
    if (!seeded.ok) throw new Error(`seeding 10 000 books: ${seeded.status}`);
    const pendingCount = 4;
    await stack.fault('delay:120', { count: pendingCount, path: '/catalog/bulk/', method: 'PATCH' });
    const big = await page.evaluate(liveListBig, { baseUrl: stack.baseUrl, directUrl: direct, pendingCount, changes }).catch((error) => Promise.reject(new Error(`${error.message}\n${consoleLines.join('\n')}`)));
    await stack.clearFaults();
    await fetch(`${direct}/__test/catalog/seed`, { method: 'POST' });
    return { events: created.length, lost, toRows, toEvent, big };
  } finally {
    await page.context().close().catch(() => {});
  }
}

/** The live-list rows of the report. */
export function renderLiveList(r, { table, spread, ms }) {
  const { big } = r;
  return [
    '## Live lists (issue 28)',
    '',
    `\`bench/live.mjs\` (\`measureLiveList\`), Chromium. Publish → rows: ${r.events} items created one at a time by the bench process (POST /items to the backend directly, 50–150 ms apart); in a page, \`liveList(items)\` over a muxws peer (push) and beside it \`follow('/items', { peer })\` over a second peer of the page, today's figure. Measured from each event's rev (the server's clock at the publish, ms) to the first listener call whose \`rows\` hold the record (the push, then a retrieve over the socket) and to \`onEvent\`. 10 000 rows: /catalog/bulk seeded to ${big.rows} books, \`liveList(books)\` over REST, ${big.pendingAtFirst} own partial updates held pending (the fault proxy delays their answers; ${big.pending} still pending at the end: ${big.states || 'none'}), then ${big.updateMs.length} changes by another client, one at a time: from the changed record's retrieve answer to the listener (the rows made again, the pending writes on top); and the call of an own write, which puts it into \`rows\` in its task.${r.lost ? ` Lost: ${r.lost}.` : ''}`,
    '',
    table(
      ['measure', 'SDK', 'baseline', 'goal'],
      [
        [`Publish → rows, median of ${r.toRows.length}, muxws push`, `${ms(median(r.toRows))} ms (p90 ${ms(quantile(r.toRows, 0.9))} ms)`, `publish → onEvent (follower alone): ${ms(median(r.toEvent))} ms`, '≤ 10 ms'],
        [`10 000 rows, ${big.pending} pending: one change, answer → listener, median of ${big.updateMs.length}`, `${ms(median(big.updateMs))} ms (max ${ms(Math.max(...big.updateMs))} ms)`, '—', '≤ 2 ms'],
        [`10 000 rows: an own write, the call (shown in rows in its task), median of ${big.ownMs.length}`, `${ms(median(big.ownMs))} ms`, '—', 'same task'],
      ],
    ),
    '',
    table(['series', 'p10', 'median', 'p90', 'p99', 'n'], [spread('publish → rows (live list)', r.toRows), spread('publish → onEvent (follower)', r.toEvent), spread('10 000 rows: answer → listener', big.updateMs)]),
    '',
  ];
}
