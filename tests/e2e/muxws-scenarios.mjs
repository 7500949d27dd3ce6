// End-to-end scenarios of the muxws dialer and muxws ViewSet proxies against the real backend
// (fastapi-viewsets' muxws endpoint at /ws, reached through the fault proxy). Each runs unchanged in
// Node 20 (--experimental-websocket) and in headless Chromium. A scenario gets { pkg, baseUrl, wsUrl, ctl }.
import { equal, ok, rejects, same, UUID_V4 } from './check.mjs';
import { recordActivity, sleep } from './control.mjs';

function itemApi(pkg) {
  return class MuxItems extends pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]) {
    slow(note, sleepS = 0, options = {}) {
      return this.request('POST', '/slow', { ...options, query: { sleep: sleepS }, body: { note } });
    }
    echo(body, options = {}) {
      return this.request('POST', '/echo', { ...options, body });
    }
  };
}

/** A peer with a fast reconnect schedule, and a muxws proxy over it. */
async function connect(pkg, wsUrl, { peerOptions = {}, proxyOptions = {} } = {}) {
  const closes = [];
  const reconnects = [];
  const peer = await pkg.connectMuxws(wsUrl, {
    reconnect: { initialDelayMs: 100, maxDelayMs: 1000 },
    onClose: (reason) => closes.push(reason),
    onReconnect: (attempt) => reconnects.push(attempt),
    ...peerOptions,
  });
  const MuxItems = itemApi(pkg);
  const items = new MuxItems({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 100 }, ...proxyOptions });
  return { peer, items, closes, reconnects };
}

async function until(condition, what, ms = 10000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export const muxwsScenarios = {
  async 'muxws: a unary request answers with :status and the payload'({ pkg, wsUrl }) {
    const { peer } = await connect(pkg, wsUrl);
    try {
      ok(peer.isOpen, 'connected');
      const reply = await peer.requestWithHeaders(null, { headers: { ':method': 'GET', ':path': '/items' } });
      equal(reply.headers[':status'], 200, ':status');
      ok(Array.isArray(reply.payload), 'the list as payload');
      const missing = await peer.requestWithHeaders(null, { headers: { ':method': 'GET', ':path': '/items/424242' } });
      equal(missing.headers[':status'], 404, 'an HTTP error is a successful muxws reply');
    } finally {
      await peer.close();
    }
  },

  async 'muxws: a request and a reply over 64 KiB travel fragmented'({ pkg, wsUrl }) {
    const { peer, items } = await connect(pkg, wsUrl);
    try {
      const big = 'é'.repeat(50_000) + 'x'.repeat(30_000); // 130 000 UTF-8 bytes
      const answer = await items.echo({ big });
      equal(answer.body.big.length, big.length, 'the server got the whole body');
      equal(answer.body.big, big, 'and it came back whole');
    } finally {
      await peer.close();
    }
  },

  async 'muxws: 250 concurrent calls on one socket all settle, each ran once, none refused'({ pkg, wsUrl, ctl }) {
    const { peer, items } = await connect(pkg, wsUrl);
    const activity = recordActivity(pkg);
    try {
      // The server takes 100 streams at once and refuses the next; calls beyond wait locally.
      const calls = Array.from({ length: 250 }, (_, i) => items.slow(`c${i}`, 0.05));
      // Issued synchronously: each call has opened its stream or waits for one, before any reply.
      ok(peer.core.streamCount === 250, `every call has a stream or waits for one (${peer.core.streamCount})`);
      const answers = await Promise.all(calls);
      equal(activity.events.filter((event) => event.type === 'retry').length, 0, 'no call was refused and repeated');
      equal(peer.core.streamCount, 0, 'no stream left');
      answers.forEach((answer, i) => equal(answer.note, `c${i}`, 'answer'));
      const log = await ctl.log();
      for (const call of calls) {
        const runs = log.filter((entry) => entry.ran && entry.idempotency_key === `"${call.key}"`).length;
        equal(runs, 1, `runs of ${call.key}`);
      }
    } finally {
      activity.stop();
      await peer.close();
    }
  },

  async 'muxws: the key on the wire equals call.key; an interceptor header reaches the repeat'({ pkg, wsUrl, ctl }) {
    const { peer, items, reconnects } = await connect(pkg, wsUrl);
    let trace = 'mux-trace-1';
    peer.interceptOpen((headers) => {
      headers['x-trace'] = trace;
    });
    try {
      const first = items.echo({ n: 1 });
      ok(UUID_V4.test(first.key), 'key readable at once');
      const answer = await first;
      same(answer.idempotency_key, [`"${first.key}"`], 'key as the server saw it');
      equal(answer.headers['x-trace'], 'mux-trace-1', 'interceptor header');

      const cut = items.slow('cut mid-call', 0.6);
      trace = 'mux-trace-2';
      await sleep(200);
      await ctl.killWs();
      const settled = await cut;
      equal(settled.note, 'cut mid-call', 'settled with the answer');
      equal(await ctl.runsOf(cut.key), 1, 'ran once');
      const entries = await ctl.entriesOf(cut.key);
      ok(entries.length >= 2, 'the repeat reached the server');
      ok(entries.every((entry) => entry.headers['x-trace'] === 'mux-trace-1'), 'every attempt carried the first stream\'s interceptor header');
      ok(reconnects.length >= 1, 'reconnected');
    } finally {
      await peer.close();
    }
  },

  async 'muxws: socket cut mid-call → ConnectionLost, onClose(willRetry), reconnect, hello replayed, ran once'({ pkg, wsUrl, ctl }) {
    const before = (await ctl.counters()).tick ?? 0;
    const { peer, items, closes, reconnects } = await connect(pkg, wsUrl, {
      peerOptions: { hello: null, helloHeaders: { ':method': 'GET', ':path': '/items/tick' } },
    });
    const activity = recordActivity(pkg);
    try {
      equal((await ctl.counters()).tick, before + 1, 'the hello went out on the first connection');
      const call = items.slow('lost', 0.8);
      await sleep(200);
      await ctl.killWs();
      const answer = await call;
      equal(answer.note, 'lost', 'answer');
      equal(await ctl.runsOf(call.key), 1, 'ran once');
      const [retry] = activity.retriesOf(call.key);
      equal(retry.ended, 'connection-lost', 'how the attempt ended');
      equal(retry.waitsForReconnect, true, 'the repeat waited for the reconnect');
      equal(closes[0].willRetry, true, 'onClose(willRetry: true)');
      equal(closes[0].wasClean, false, 'not clean');
      same(reconnects, [1], 'onReconnect(1)');
      equal((await ctl.counters()).tick, before + 2, 'the hello was replayed on the new socket');
    } finally {
      activity.stop();
      await peer.close();
    }
    equal(closes.filter((c) => !c.willRetry).length, 1, 'close() reports willRetry: false once');
    ok(peer.isClosed, 'closed for good');
  },

  async 'muxws: timeoutMs shorter than the action → StreamTimeout, repeated at once, attaches, ran once'({ pkg, wsUrl, ctl }) {
    const { peer, items } = await connect(pkg, wsUrl, { proxyOptions: { timeoutMs: 300 } });
    const activity = recordActivity(pkg);
    try {
      const call = items.slow('attached', 0.8);
      const answer = await call;
      equal(answer.note, 'attached', 'answer');
      equal(await ctl.runsOf(call.key), 1, 'ran once');
      const retries = activity.retriesOf(call.key);
      ok(retries.length >= 1, 'repeated');
      equal(retries[0].ended, 'stream-timeout', 'how the first attempt ended');
      equal(retries[0].delayMs, 0, 'at once');
    } finally {
      activity.stop();
      await peer.close();
    }
  },

  async 'muxws: server goaway while calls run → none lost, none run twice'({ pkg, wsUrl, ctl }) {
    const { peer, items, reconnects } = await connect(pkg, wsUrl);
    try {
      const running = Array.from({ length: 5 }, (_, i) => items.slow(`draining ${i}`, 0.5));
      await sleep(150);
      const goaway = ctl.goaway(2);
      await sleep(50);
      const later = Array.from({ length: 5 }, (_, i) => items.slow(`after goaway ${i}`, 0));
      await goaway;
      const answers = await Promise.all([...running, ...later]);
      answers.forEach((answer) => ok(answer.action === 'slow', 'answered'));
      for (const call of [...running, ...later]) equal(await ctl.runsOf(call.key), 1, `runs of ${call.key}`);
      await until(() => reconnects.length >= 1, 'the reconnect after the goaway');
    } finally {
      await peer.close();
    }
  },

  async 'muxws: close() while a call waits for a reconnect → ConnectionClosed carrying the key'({ pkg, wsUrl, ctl }) {
    const { peer, items } = await connect(pkg, wsUrl, { peerOptions: { reconnect: { initialDelayMs: 5000, jitter: 0 } } });
    const call = items.slow('waiting', 0.5);
    await sleep(100);
    await ctl.killWs();
    await until(() => pkg.pendingCalls().some((p) => p.key === call.key && p.waitingForReconnect), 'the call to wait');
    await peer.close();
    const error = await rejects(call, pkg.ConnectionClosed, 'the waiting call');
    equal(error.key, call.key, 'error.key');
  },

  async 'muxws: a refused handshake → CodecMismatch from connectMuxws'({ pkg, wsUrl }) {
    const wrong = wsUrl.replace(/\/ws$/, '/not-a-muxws-endpoint');
    const error = await rejects(pkg.connectMuxws(wrong, { reconnect: false }), pkg.CodecMismatch, 'connect');
    ok(error.message.includes('muxws.v1.json'), 'names the subprotocol offered');
  },

  async 'muxws: retryNow() makes a peer waiting in backoff reconnect now'({ pkg, wsUrl, ctl }) {
    const { peer, items, reconnects } = await connect(pkg, wsUrl, { peerOptions: { reconnect: { initialDelayMs: 20000, jitter: 0 } } });
    try {
      const call = items.slow('retry now', 0.3);
      await sleep(100);
      await ctl.killWs();
      await until(() => pkg.pendingCalls().some((p) => p.key === call.key && p.waitingForReconnect), 'the call to wait');
      const started = Date.now();
      pkg.retryNow();
      const answer = await call;
      equal(answer.note, 'retry now', 'answer');
      ok(Date.now() - started < 5000, 'long before the 20 s backoff');
      same(reconnects, [1], 'reconnected once');
      equal(await ctl.runsOf(call.key), 1, 'ran once');
    } finally {
      await peer.close();
    }
  },
};

muxwsScenarios['muxws: open() gives a stream: id at once, reply headers, the payload; a send once it is over throws StreamClosed; cancel; synchronous throws between sockets and after close'] = async ({ pkg, wsUrl, ctl }) => {
  const { peer } = await connect(pkg, wsUrl);
  try {
    const stream = peer.open({ streamed: true }, { headers: { ':method': 'POST', ':path': '/items/echo' } });
    ok(Number.isInteger(stream.id) && stream.id % 2 === 1, `an odd id at once (${stream.id})`);
    const headers = await stream.replyHeaders;
    equal(headers[':status'], 200, ':status from the first data frame');
    const payload = await stream;
    same(payload.body, { streamed: true }, 'the payload');
    await stream.closed;
    let thrown = null;
    try {
      stream.send({ late: true });
    } catch (error) {
      thrown = error;
    }
    ok(thrown instanceof pkg.StreamClosed, `a send after the stream closed throws StreamClosed (${thrown === null ? 'nothing was thrown' : thrown.name})`);
    const slow = peer.open(null, { headers: { ':method': 'POST', ':path': '/items/slow', ':query': 'sleep=1' } });
    slow.cancel('not needed');
    const error = await rejects(Promise.resolve(slow), pkg.StreamReset, 'a cancelled stream');
    equal(error.code, 1, 'CANCELLED');
    same(await slow.replyHeaders, {}, 'replyHeaders settles with {} when none came');
    await ctl.killWs();
    for (let i = 0; i < 100 && peer.isOpen; i++) await sleep(10);
    if (!peer.isOpen) {
      try {
        peer.open(null, { headers: { ':method': 'GET', ':path': '/items' } });
        ok(false, 'open() between sockets throws');
      } catch (thrown) {
        ok(thrown instanceof pkg.ConnectionLost, `ConnectionLost between sockets (${thrown?.name})`);
      }
    }
  } finally {
    await peer.close();
  }
  try {
    peer.open(null, { headers: { ':method': 'GET', ':path': '/items' } });
    ok(false, 'open() after close throws');
  } catch (thrown) {
    ok(thrown instanceof pkg.ConnectionClosed, `ConnectionClosed after close (${thrown?.name})`);
  }
};
