// The muxws module behind its boundary, end to end against the real backend (through the fault
// proxy), unchanged in Node 20 (--experimental-websocket) and in headless Chromium: 10 MB each way
// with the module's memory bounded, a relative URL, a lazy peer whose calls wait for its first
// connection, a refused upgrade told apart from a real subprotocol mismatch, frames of streams
// opened in one turn interleaved on the wire, and exceptions from user code or the platform that end
// at most their own call. A scenario gets { pkg, baseUrl, wsUrl, hostileBase, ctl }.
import { equal, ok, rejects } from './check.mjs';
import { sleep } from './control.mjs';

function itemApi(pkg) {
  return class MuxItems extends pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]) {
    echo(body, options = {}) {
      return this.request('POST', '/echo', { ...options, body });
    }
    slow(note, sleepS = 0) {
      return this.request('POST', '/slow', { query: { sleep: sleepS }, body: { note } });
    }
  };
}

function proxyOver(pkg, peer, options = {}) {
  const MuxItems = itemApi(pkg);
  return new MuxItems({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 50 }, ...options });
}

async function connected(pkg, url, options = {}) {
  return pkg.connectMuxws(url, { reconnect: { initialDelayMs: 50, maxDelayMs: 400 }, ...options });
}

/** Runs `body` with `globalThis[name]` replaced by `value`, restored afterwards. */
async function replacing(name, value, body) {
  const had = Object.prototype.hasOwnProperty.call(globalThis, name);
  const before = globalThis[name];
  globalThis[name] = value;
  try {
    return await body();
  } finally {
    if (had) globalThis[name] = before;
    else delete globalThis[name];
  }
}

/** A WebSocket stand-in that records the URLs it is asked to dial and never opens. */
function recordingSocket(urls) {
  return class {
    constructor(url) {
      urls.push(String(url));
    }
    close() {}
    send() {}
  };
}

export const muxwsBoundaryScenarios = {
  async 'muxws boundary: 10 MB up and 10 MB back pass a fragment at a time; the module grows by under 2 MiB'({ pkg, wsUrl }) {
    const peer = await connected(pkg, wsUrl);
    try {
      const items = proxyOver(pkg, peer, { timeoutMs: 120_000 });
      await items.echo({ warm: 'é'.repeat(70_000) }); // one fragmented call each way first: the baseline
      const before = pkg.internalStats().muxwsMemoryBytes;
      ok(typeof before === 'number' && before > 0, `internalStats() reports muxwsMemoryBytes (${before})`);
      const big = `${'x'.repeat(5_000_000)}${'é🌍'.repeat(830_000)}`; // 10 MB of UTF-8
      const answer = await items.echo({ big });
      equal(answer.body.big.length, big.length, 'the server got it whole');
      ok(answer.body.big === big, 'and it came back whole');
      const grown = pkg.internalStats().muxwsMemoryBytes - before;
      console.log(`muxws module memory: ${before} B before a 10 MB echo, grown by ${grown} B`);
      ok(grown < 2 * 1024 * 1024, `the module's memory grew by ${grown} bytes (${before} before)`);
      equal(pkg.internalStats().muxwsSources, 0, 'every payload string released by the module');
    } finally {
      await peer.close();
    }
  },

  async 'muxws boundary: a relative URL resolves against the page origin, http to ws and https to wss'({ pkg, baseUrl }) {
    const urls = [];
    // Node has no page: one is lent for the test (the backend's origin), as a browser page has one.
    const page = typeof location === 'undefined' ? { href: `${baseUrl}/app/index.html` } : null;
    const run = async () => {
      const peer = await connected(pkg, '/ws');
      try {
        const answer = await proxyOver(pkg, peer).echo({ relative: true });
        equal(answer.transport, 'muxws', 'answered over muxws');
        equal(answer.body.relative, true, 'the payload');
      } finally {
        await peer.close();
      }
      const dialled = await replacing('WebSocket', recordingSocket(urls), async () => {
        const lazy = await pkg.connectMuxws('/ws?x=1', { lazy: true, reconnect: false });
        await sleep(20);
        await lazy.close();
        return urls.at(-1);
      });
      equal(dialled, `${new URL('/ws?x=1', page?.href ?? location.href).href.replace(/^http/, 'ws')}`, 'http → ws, same host and port');
    };
    if (page) {
      await replacing('location', page, run);
      // https → wss, again with a page lent for it.
      await replacing('location', { href: 'https://app.example:8443/deep/page.html' }, () =>
        replacing('WebSocket', recordingSocket(urls), async () => {
          const lazy = await pkg.connectMuxws('/ws', { lazy: true, reconnect: false });
          await sleep(20);
          await lazy.close();
          equal(urls.at(-1), 'wss://app.example:8443/ws', 'https → wss');
        }),
      );
    } else {
      await run();
    }
  },

  async 'muxws boundary: a lazy peer resolves at once; calls issued while the server refuses it wait, then complete once, each run once'({ pkg, wsUrl, ctl }) {
    // The first three upgrades are refused: dropped, then answered 503; the fourth goes through.
    await ctl.fault('drop_before', { count: 1, path: '/ws', method: 'GET' });
    await ctl.fault('status:503', { count: 2, path: '/ws', method: 'GET' });
    const reconnects = [];
    const started = Date.now();
    const peer = await pkg.connectMuxws(wsUrl, {
      lazy: true,
      reconnect: { initialDelayMs: 100, maxDelayMs: 400, jitter: 0 },
      onReconnect: (attempt) => reconnects.push(attempt),
    });
    try {
      ok(Date.now() - started < 1000, 'connectMuxws({lazy: true}) resolved without waiting for a connection');
      equal(peer.isOpen, false, 'not connected yet');
      const items = proxyOver(pkg, peer);
      const calls = [items.echo({ n: 1 }), items.slow('lazy', 0)];
      await rejects(peer.request(null, { headers: { ':method': 'GET', ':path': '/items' } }), pkg.ConnectionLost, 'a direct request before the connection');
      const [echo, slow] = await Promise.all(calls);
      equal(echo.body.n, 1, 'the first call answered');
      equal(slow.note, 'lazy', 'the second call answered');
      ok(peer.isOpen, 'connected in the end');
      equal(reconnects.length, 0, 'the first connection is no reconnect');
      for (const call of calls) equal(await ctl.runsOf(call.key), 1, `runs of ${call.key}`);
      const entries = (await ctl.entriesOf(calls[0].key)).filter((entry) => entry.path === '/items/echo');
      equal(entries.length, 1, 'the call reached the server once: nothing was sent before the connection');
    } finally {
      await ctl.clearFaults();
      await peer.close();
    }
  },

  async 'muxws boundary: a refused upgrade is ConnectionRefused with what the platform said; a real subprotocol mismatch is CodecMismatch'({ pkg, wsUrl, hostileBase, ctl }) {
    await ctl.fault('status:503', { count: 1, path: '/ws', method: 'GET' });
    const refused = await rejects(pkg.connectMuxws(wsUrl, { reconnect: false }), pkg.ConnectionRefused, 'a 503 to the upgrade');
    equal(refused.name, 'ConnectionRefused', 'name');
    ok(refused.message.includes('refused the upgrade or could not be reached'), `says what happened (${refused.message})`);
    ok(!/CodecMismatch|ConnectionRefused|MUXWS_CODEC|VITE_/.test(refused.message), `names no class twice and no other package's settings (${refused.message})`);
    ok(!String(refused).includes('CodecMismatch: CodecMismatch'), 'no doubled name');
    if (typeof window === 'undefined') ok(/non-101|network error/i.test(refused.message), `carries the platform's words (${refused.message})`);
    const unreachable = await rejects(pkg.connectMuxws('ws://127.0.0.1:9/ws', { reconnect: false }), pkg.ConnectionRefused, 'nothing listening');
    equal(unreachable.code, 1006, 'code');
    const mismatch = await rejects(
      pkg.connectMuxws(`${hostileBase}select-other/boundary`, { subprotocols: ['token.abc'], reconnect: false }),
      pkg.CodecMismatch,
      'another subprotocol selected',
    );
    equal(mismatch.name, 'CodecMismatch', 'a real mismatch keeps its own name');
    ok(!(mismatch instanceof pkg.ConnectionRefused), 'and is no ConnectionRefused');
    ok(mismatch.message.includes('"token.abc"') && mismatch.message.includes('muxws.v1.json'), `names both (${mismatch.message})`);
    // And the peers after them work.
    const peer = await connected(pkg, wsUrl);
    try {
      equal((await proxyOver(pkg, peer).echo({ after: 1 })).body.after, 1, 'a call after the refusals');
    } finally {
      await peer.close();
    }
  },

  async 'muxws boundary: streams opened in one turn interleave on the wire: a small call overtakes a fragmented upload'({ pkg, wsUrl, ctl }) {
    const peer = await connected(pkg, wsUrl);
    const wire = [];
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (text) {
      try {
        const frame = JSON.parse(text);
        wire.push({ type: frame.type, stream: frame.stream, more: frame.more === true, end: frame.end === true });
      } catch {
        wire.push({ type: 'unparsed' });
      }
      return send.call(this, text);
    };
    try {
      const items = proxyOver(pkg, peer);
      const upload = items.echo({ big: 'u'.repeat(400_000) }); // seven fragments at the 64 KiB cap
      const small = items.echo({ small: true });
      const [big, little] = await Promise.all([upload, small]);
      equal(big.body.big.length, 400_000, 'the upload arrived whole');
      equal(little.body.small, true, 'the small call answered');
      const opens = wire.filter((frame) => frame.type === 'open');
      const bigId = opens[0].stream;
      const smallId = opens.find((frame) => frame.stream !== bigId)?.stream;
      const order = wire.filter((frame) => frame.stream === bigId || frame.stream === smallId).map((frame) => (frame.stream === bigId ? 'U' : 'S'));
      ok(order.length >= 8, `the upload went out in fragments (${order.join('')})`);
      equal(order.slice(0, 3).join(''), 'USU', `the small open went out right after the upload's first fragment, round-robin (${order.join('')})`);
      const [bigEntry] = await ctl.entriesOf(upload.key);
      const [smallEntry] = await ctl.entriesOf(small.key);
      ok(smallEntry.t <= bigEntry.t, `the server started the small call first (${smallEntry.t} vs ${bigEntry.t})`);
    } finally {
      WebSocket.prototype.send = send;
      await peer.close();
    }
  },

  async 'muxws boundary: a throwing open interceptor, header toString or getter ends only its own call; the next call succeeds'({ pkg, wsUrl }) {
    const peer = await connected(pkg, wsUrl);
    try {
      const items = proxyOver(pkg, peer);
      // [what, interceptor, message, whether a direct request fails too (its header values are
      // JSON as given, so a toString is never called there)]
      const cases = [
        ['an interceptor that throws', () => {
          throw new Error('interceptor boom');
        }, /interceptor boom/, true],
        ['a header whose toString throws', (headers) => {
          headers['x-bad'] = { toString() { throw new Error('toString boom'); } };
        }, /toString boom/, false],
        ['a header getter that throws', (headers) => {
          Object.defineProperty(headers, 'x-getter', { enumerable: true, get() { throw new Error('getter boom'); } });
        }, /getter boom/, true],
      ];
      for (const [what, interceptor, message, direct] of cases) {
        const remove = peer.interceptOpen(interceptor);
        const call = items.echo({ what });
        let error;
        try {
          await call;
        } catch (thrown) {
          error = thrown;
        }
        ok(error && message.test(error.message), `${what}: the call rejects with what was thrown (${error?.message})`);
        equal(error.key, call.key, `${what}: the error carries the call's key`);
        if (direct) await rejects(peer.request(null, { headers: { ':method': 'GET', ':path': '/items' } }), Error, `${what}: a direct request`);
        remove();
        const after = await items.echo({ after: what });
        equal(after.body.after, what, `${what}: the next call succeeds`);
        ok(peer.isOpen, `${what}: the peer is untouched`);
      }
      equal(peer.core.streamCount, 0, 'no stream left behind');
    } finally {
      await peer.close();
    }
  },

  async 'muxws boundary: throwing onClose/onReconnect listeners and a throwing console.error change nothing; the call is repeated and answered'({ pkg, wsUrl, ctl }) {
    const peer = await connected(pkg, wsUrl, {
      onClose: () => {
        throw new Error('onClose boom');
      },
    });
    peer.onReconnect(() => {
      throw new Error('onReconnect boom');
    });
    const error = console.error;
    const reconnected = [];
    peer.onReconnect((attempt) => reconnected.push(attempt));
    console.error = () => {
      throw new Error('console boom');
    };
    try {
      const items = proxyOver(pkg, peer);
      const call = items.slow('through the cut', 0.5);
      await sleep(150);
      await ctl.killWs();
      const answer = await call;
      equal(answer.note, 'through the cut', 'answered after the reconnect');
      equal(reconnected.length, 1, 'the listener after the throwing one ran');
      equal(await ctl.runsOf(call.key), 1, 'ran once');
      equal((await items.echo({ n: 3 })).body.n, 3, 'a later call succeeds');
    } finally {
      console.error = error;
      await peer.close();
    }
  },

  async 'muxws boundary: a WebSocket constructor that throws is a refused connection (lazy: retried); later calls succeed'({ pkg, wsUrl }) {
    const broken = class {
      constructor() {
        throw new Error('no sockets today');
      }
    };
    const refused = await replacing('WebSocket', broken, () => rejects(pkg.connectMuxws(wsUrl, { reconnect: false }), pkg.ConnectionRefused, 'connect'));
    ok(refused.message.includes('no sockets today'), `carries what the platform threw (${refused.message})`);
    const Real = WebSocket;
    globalThis.WebSocket = broken;
    let peer;
    try {
      peer = await pkg.connectMuxws(wsUrl, { lazy: true, reconnect: { initialDelayMs: 50, maxDelayMs: 100, jitter: 0 } });
      const call = proxyOver(pkg, peer).echo({ lazy: 'through a broken constructor' });
      await sleep(200);
      globalThis.WebSocket = Real;
      equal((await call).body.lazy, 'through a broken constructor', 'the call waited and was answered');
    } finally {
      globalThis.WebSocket = Real;
      await peer?.close();
    }
  },
};
