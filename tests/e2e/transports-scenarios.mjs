// One call, one key, whichever transport carries it (issue 26): a query in the path, every part of
// a call side by side on REST and muxws, and a muxws peer's REST fallback (`restFallback`) against
// the real backend through the fault proxy (its `refuse_ws` switch answers upgrades 403). Each runs
// unchanged in Node 20 (--experimental-websocket) and in headless Chromium.
import { equal, ok, same } from './check.mjs';
import { recordActivity, sleep } from './control.mjs';
import { chain, freshKey, publish } from './events-scenarios.mjs';

function api(pkg, base) {
  return class Items extends base()('id', [pkg.ViewSetMixin]) {};
}

async function until(condition, what, ms = 10000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A REST proxy and a muxws proxy (over a new peer with `peerOptions`) of /items. */
async function both(pkg, baseUrl, wsUrl, peerOptions = {}, proxyOptions = {}) {
  const peer = await pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 100, maxDelayMs: 500 }, ...peerOptions });
  const options = { basePath: '/items', schemaCheck: false, repeat: { delayMs: 100 }, ...proxyOptions };
  const rest = new (api(pkg, pkg.restViewSet))({ ...options, baseUrl });
  const mux = new (api(pkg, pkg.muxwsViewSet))({ ...options, peer });
  return { peer, rest, mux };
}

/** Bodies whose JSON text differs between `JSON.stringify` and Python's `json.dumps`. */
const BODIES = {
  'non-ASCII text': { note: 'žluťoučký kůň — 東京 😀 \u2028 \u007f', 'ключ': 'é' },
  'nested objects': { a: { b: { c: [1, { d: [true, false, null] }] } }, e: [] , f: {} },
  integers: { n: [0, -1, 42, 9007199254740991, 12345678901234567890] },
  floats: { f: [1.5, -0.25, 0.1, 1e-7, 0.00001234, 1e21, 1.5e300, 5e-324, Math.PI] },
  'a large value': { big: 'x'.repeat(200_000), list: Array.from({ length: 2000 }, (_, i) => i / 7) },
};

export const transportsScenarios = {
  async 'transports: a query in the path and the query option reach the same action on both transports'({ pkg, baseUrl, wsUrl }) {
    const { peer, rest, mux } = await both(pkg, baseUrl, wsUrl);
    try {
      for (const proxy of [rest, mux]) {
        const inPath = await proxy.request('POST', '/slow?sleep=0', { body: { note: 'p' } });
        const option = await proxy.request('POST', '/slow', { query: { sleep: 0 }, body: { note: 'o' } });
        equal(inPath.action, 'slow', 'a query in the path reaches the action');
        equal(option.action, 'slow', 'the query option reaches the action');
        const combined = await proxy.request('POST', '/echo?a=1&x=a%20b', { query: { b: 2 } });
        equal(combined.path, '/items/echo', 'the path without its query');
        equal(combined.query, 'a=1&x=a%20b&b=2', "the path's query, then the option's");
        const spaced = await proxy.request('POST', '/echo?q=a b"c', {});
        equal(spaced.query, 'q=a%20b%22c', 'a query written into the path is encoded as fetch encodes it');
      }
    } finally {
      await peer.close();
    }
  },

  async 'transports: method, path and query, headers and body arrive the same over REST and muxws'({ pkg, baseUrl, wsUrl }) {
    const { peer, rest, mux } = await both(pkg, baseUrl, wsUrl, {}, { headers: { 'X-Test-A': 'p' } });
    try {
      const body = BODIES['non-ASCII text'];
      const seen = [];
      for (const proxy of [rest, mux]) {
        const call = proxy.request('POST', '/echo?z=1', { query: { y: 'é' }, headers: { 'X-Test-B': 'c' }, body });
        const answer = await call;
        seen.push({ answer, key: call.key });
      }
      const [overRest, overMux] = seen.map(({ answer }) => answer);
      equal(overRest.transport, 'rest', 'the first over REST');
      equal(overMux.transport, 'muxws', 'the second over muxws');
      for (const part of ['method', 'path', 'query', 'body']) same(overMux[part], overRest[part], part);
      for (const name of ['x-test-a', 'x-test-b', 'content-type']) equal(overMux.headers[name], overRest.headers[name], `header ${name}`);
      seen.forEach(({ answer, key }) => same(answer.idempotency_key, [`"${key}"`], 'the key, once, as a Structured Field string'));
    } finally {
      await peer.close();
    }
  },

  async 'transports: the bytes the backend hashes: with a muxws proxy in the page a REST proxy sends what muxws hashes, and so does the fallback'({ pkg, baseUrl, wsUrl, ctl }) {
    const { peer, rest, mux } = await both(pkg, baseUrl, wsUrl, { restFallback: { afterMs: 200 } });
    try {
      const body = { note: 'é', list: [1, 2.5, { x: 1e-7 }] };
      const overMux = await mux.request('POST', '/raw', { body });
      const overRest = await rest.request('POST', '/raw', { body });
      equal(overMux.preview, '{"note": "\\u00e9", "list": [1, 2.5, {"x": 1e-07}]}', "what muxws hashes: Python's json.dumps of the payload");
      equal(overRest.sha256, overMux.sha256, `a REST proxy's bytes (${overRest.preview}) are what muxws hashes (${overMux.preview})`);
      equal(overRest.preview, overMux.preview, 'byte for byte');
      equal(overRest.content_type, 'application/json', 'as JSON');
      await ctl.refuseWs();
      await ctl.killWs();
      await until(() => peer.restBase !== undefined, 'the fallback');
      const fallen = await mux.request('POST', '/raw', { body });
      equal(fallen.transport, 'rest', 'the fallback goes over REST');
      equal(fallen.sha256, overMux.sha256, "the fallback's bytes are the bytes muxws hashes");
      equal(fallen.preview, overMux.preview, 'byte for byte');
      const escaped = await mux.request('POST', '/%72a%77', { body });
      equal(escaped.transport, 'rest', 'a path with escapes falls back too');
      equal(escaped.sha256, overMux.sha256, 'to the same action, with the same bytes');
    } finally {
      await ctl.clearFaults();
      await peer.close();
    }
  },

  async 'transports: one key through a REST proxy and a muxws proxy of one ViewSet: one record, in both orders'({ pkg, baseUrl, wsUrl, ctl }) {
    const { peer, rest, mux } = await both(pkg, baseUrl, wsUrl);
    try {
      for (const [name, body] of Object.entries(BODIES)) {
        for (const [first, second, order] of [[mux, rest, ['muxws', 'rest']], [rest, mux, ['rest', 'muxws']]]) {
          const what = `${name}, ${order.join(' then ')}`;
          // as the seed's application that repeats a call itself: the first call's key, passed again
          const call = first.request('POST', '/raw', { query: { sleep: 0 }, body });
          const answer = await call;
          equal(answer.transport, order[0], `${what}: the first went over ${order[0]}`);
          const again = await second.request('POST', '/raw', { key: call.key, query: { sleep: 0 }, body });
          same(again, answer, `${what}: the stored outcome, never 422`);
          equal(await ctl.runsOf(call.key), 1, `${what}: one execution`);
          same((await ctl.entriesOf(call.key)).map((entry) => entry.transport), order, `${what}: both transports reached the server`);
        }
      }
    } finally {
      await peer.close();
    }
  },

  async 'transports: a path with percent-escapes reaches the same action on both transports, and one key is one record'({ pkg, baseUrl, wsUrl, ctl }) {
    const { peer, rest, mux } = await both(pkg, baseUrl, wsUrl);
    try {
      for (const [first, second, order] of [[mux, rest, ['muxws', 'rest']], [rest, mux, ['rest', 'muxws']]]) {
        const what = order.join(' then ');
        // the backend decodes a REST path's escapes: /items/%65cho is /items/echo; so does muxws's `:path` now
        const call = first.request('POST', '/%65cho', { body: { note: 'é' } });
        const answer = await call;
        equal(answer.path, '/items/echo', `${what}: the decoded path's action over ${order[0]}`);
        const again = await second.request('POST', '/ech%6F', { key: call.key, body: { note: 'é' } });
        same(again, answer, `${what}: the stored outcome under the same key, never 422`);
        equal(await ctl.runsOf(call.key), 1, `${what}: one execution`);
        same((await ctl.entriesOf(call.key)).map((entry) => entry.transport), order, `${what}: both transports reached the server`);
      }
    } finally {
      await peer.close();
    }
  },

  async 'transports: a key first used over muxws, then over REST: the same answer, never 422, one execution'({ pkg, wsUrl, ctl }) {
    const peer = await pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 100, maxDelayMs: 500 }, restFallback: { afterMs: 200 } });
    const mux = new (api(pkg, pkg.muxwsViewSet))({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 100 } });
    try {
      const keys = {};
      const first = {};
      for (const [name, body] of Object.entries(BODIES)) {
        const call = mux.request('POST', '/raw', { body });
        keys[name] = call.key;
        first[name] = await call;
        equal(first[name].transport, 'muxws', `${name}: first over muxws`);
      }
      await ctl.refuseWs();
      await ctl.killWs();
      await until(() => peer.restBase !== undefined, 'the fallback');
      for (const [name, body] of Object.entries(BODIES)) {
        const again = await mux.request('POST', '/raw', { key: keys[name], body });
        same(again, first[name], `${name}: the stored outcome over REST`);
        equal(await ctl.runsOf(keys[name]), 1, `${name}: one execution`);
        const log = (await ctl.entriesOf(keys[name])).map((entry) => entry.transport ?? entry.status);
        ok(log.length >= 2, `${name}: both transports reached the server (${JSON.stringify(log)})`);
      }
    } finally {
      await ctl.clearFaults();
      await peer.close();
    }
  },

  async 'transports: a write whose muxws answer is lost after it ran, then upgrades refused: the REST repeat gets the stored outcome'({ pkg, baseUrl, wsUrl, ctl }) {
    const fallbacks = [];
    const peer = await pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 100, maxDelayMs: 500 }, restFallback: { afterMs: 300 } });
    peer.onFallback((base) => fallbacks.push(base));
    const mux = new (api(pkg, pkg.muxwsViewSet))({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 100 } });
    const activity = recordActivity(pkg);
    try {
      const call = mux.request('POST', '/slow', { query: { sleep: 0.6 }, body: { note: 'lost' } });
      await sleep(200); // the server runs it
      await ctl.refuseWs();
      await ctl.killWs(); // its answer is lost with the socket; every redial is refused
      const answer = await call;
      equal(answer.note, 'lost', 'answered');
      equal(await ctl.runsOf(call.key), 1, 'the action ran once');
      same(fallbacks, [baseUrl], 'onFallback: the REST origin');
      equal(peer.restBase, baseUrl, 'restBase');
      const events = activity.events.filter((event) => event.key === call.key);
      equal(events[0].transport, 'muxws', 'started over muxws');
      equal(events.at(-1).type, 'settle', 'settled');
      equal(events.at(-1).transport, 'rest', 'settled over REST');
      await ctl.allowWs();
      peer.reconnectNow();
      await until(() => peer.isOpen, 'the socket back');
      same(fallbacks, [baseUrl, undefined], 'onFallback: the end');
      equal(peer.restBase, undefined, 'restBase once the socket is up');
      const back = await mux.request('POST', '/echo', { body: 1 });
      equal(back.transport, 'muxws', 'calls go over muxws again');
    } finally {
      activity.stop();
      await ctl.clearFaults();
      await peer.close();
    }
  },

  async 'transports: the reverse: a REST attempt without an answer, then the socket up: the muxws repeat gets the stored outcome'({ pkg, wsUrl, ctl }) {
    await ctl.refuseWs();
    const peer = await pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 100, maxDelayMs: 300 }, restFallback: { afterMs: 300 } });
    const mux = new (api(pkg, pkg.muxwsViewSet))({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 1500 } });
    const activity = recordActivity(pkg);
    try {
      ok(peer.restBase !== undefined, 'connectMuxws resolved with the fallback on');
      // cut off after the backend ran it: response bytes arrived, so no browser sends the request
      // again by itself (as Chromium does when a reused connection closes before any answer)
      await ctl.fault('truncate_after', { path: '/items/slow', method: 'POST' });
      const call = mux.request('POST', '/slow', { query: { sleep: 0 }, body: { note: 'reverse' } });
      await until(() => activity.retriesOf(call.key).length === 1, 'the REST attempt lost');
      equal(activity.retriesOf(call.key)[0].transport, 'rest', 'the lost attempt went over REST');
      await ctl.allowWs();
      peer.reconnectNow();
      await until(() => peer.isOpen, 'the socket up');
      const answer = await call;
      equal(answer.note, 'reverse', 'answered');
      equal(await ctl.runsOf(call.key), 1, 'the action ran once');
      const settle = activity.events.find((event) => event.key === call.key && event.type === 'settle');
      equal(settle.transport, 'muxws', 'the repeat went over muxws');
    } finally {
      activity.stop();
      await ctl.clearFaults();
      await peer.close();
    }
  },

  async 'transports: upgrades refused from the start: every call goes over REST within afterMs plus a round trip, then back over muxws'({ pkg, baseUrl, wsUrl, ctl }) {
    await ctl.refuseWs();
    const afterMs = 1000;
    const started = Date.now();
    const peer = await pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 100, maxDelayMs: 400 }, restFallback: { afterMs } });
    const mux = new (api(pkg, pkg.muxwsViewSet))({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 100 } });
    try {
      ok(!peer.isOpen, 'no socket');
      equal(peer.restBase, baseUrl, 'the REST origin: the peer URL with http');
      const calls = Array.from({ length: 20 }, (_, i) => ({ at: Date.now(), call: mux.request('POST', '/echo', { body: { i } }) }));
      for (const { at, call } of calls) {
        const answer = await call;
        equal(answer.transport, 'rest', 'over REST');
        ok(Date.now() - at < afterMs + 1000, `answered within afterMs plus a round trip (${Date.now() - at} ms)`);
      }
      ok(Date.now() - started < afterMs + 3000, 'all of them soon');
      const pending = mux.request('POST', '/slow', { query: { sleep: 0.3 }, body: { note: 'p' } });
      await sleep(50);
      equal(pkg.pendingCalls().find((c) => c.key === pending.key)?.transport, 'rest', 'pendingCalls() names the transport');
      await pending;
      await ctl.allowWs();
      await until(() => peer.isOpen, 'upgrades allowed again', 5000);
      equal((await mux.request('POST', '/echo', { body: 2 })).transport, 'muxws', 'over muxws again');
    } finally {
      await ctl.clearFaults();
      await peer.close();
    }
  },

  async 'transports: upgrades refused from the start: the follower polls over REST meanwhile, then returns to push; every event once, in order'({ pkg, baseUrl, wsUrl, ctl }) {
    await ctl.refuseWs();
    const peer = await pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 100, maxDelayMs: 400 }, restFallback: { afterMs: 500 } });
    const key = freshKey();
    const got = [];
    const modes = [];
    const follower = pkg.follow(`imports:${key}`, { peer, pollIntervalMs: 200, checkIntervalMs: 60_000, onEvent: (event) => got.push(event) });
    follower.subscribe((f) => modes.push(f.mode));
    try {
      await follower.ready;
      const from = follower.cursor;
      equal(follower.mode, 'poll', 'no socket: it polls');
      const polled = await publish(baseUrl, key, 3);
      await until(() => got.length >= 3, 'the 3 events by poll over REST', 5000);
      same(got.map((event) => event.via), ['poll', 'poll', 'poll'], 'by poll while the calls fall back');
      await ctl.allowWs();
      await until(() => follower.mode === 'push', "mode 'push' once upgrades come back", 8000);
      const pushed = await publish(baseUrl, key, 3);
      await until(() => got.length >= 6, 'the 3 events by push', 5000);
      await sleep(300);
      same(got.map((event) => event.rev), [...polled, ...pushed], 'every rev, once, in order');
      chain(got, from, 'the chain across the switch');
      same(got.slice(3).map((event) => event.via), ['push', 'push', 'push'], 'by push once the socket is up');
      ok(modes.includes('poll') && modes.at(-1) === 'push', `subscribe() told the modes (${modes.join(', ')})`);
    } finally {
      await follower.close();
      await ctl.clearFaults();
      await peer.close();
    }
  },

  async 'transports: without restFallback nothing moves: a refused peer waits, and restBase stays undefined'({ pkg, wsUrl, ctl }) {
    const peer = await pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 100, maxDelayMs: 300 } });
    const mux = new (api(pkg, pkg.muxwsViewSet))({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 100, withinMs: 1500 } });
    try {
      await ctl.refuseWs();
      await ctl.killWs();
      const error = await mux.request('POST', '/echo', { body: 1 }).catch((e) => e);
      ok(error instanceof pkg.ConnectionLost || error?.name === 'ConnectionLost', `the call waited for the socket, then failed (${error?.name})`);
      equal(peer.restBase, undefined, 'no fallback');
    } finally {
      await ctl.clearFaults();
      await peer.close();
    }
  },
};
