// Malformed input from a muxws server never hangs a call and never breaks the module: a direct
// request rejects with the class the protocol prescribes, a ViewSet call is repeated or settles, and
// the peer recovers by reconnecting. The server is tests/harness/hostile-muxws.mjs (its URL base is
// `hostileBase`). Runs in Node and in Chromium.
import { equal, ok, rejects } from './check.mjs';
import { sleep } from './control.mjs';

const CONNECTION_LEVEL = ['undecodable', 'missing-type', 'wrong-parity', 'above-high-water-mark'];
const STREAM_LEVEL = { oversize: 7, 'fragment-interrupted': 3, 'headers-on-later-frame': 3 };
const HEADERS = { ':method': 'POST', ':path': '/items/echo' };

async function peerFor(pkg, url) {
  const reconnects = [];
  const peer = await pkg.connectMuxws(url, { reconnect: { initialDelayMs: 50, maxDelayMs: 200, jitter: 0 }, onReconnect: (n) => reconnects.push(n) });
  return { peer, reconnects };
}

function proxy(pkg, peer, options = {}) {
  const Api = pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]);
  return new (class extends Api {
    echo() {
      return this.request('POST', '/echo', { body: { hostile: true } });
    }
  })({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 50 }, ...options });
}

export const hostileScenarios = {};

for (const mode of CONNECTION_LEVEL) {
  hostileScenarios[`hostile muxws server, ${mode}: the request rejects ConnectionLost, the peer reconnects, a ViewSet call is repeated`] = async ({ pkg, hostileBase }) => {
    const direct = await peerFor(pkg, `${hostileBase}${mode}/direct`);
    try {
      await rejects(direct.peer.request(null, { headers: HEADERS }), pkg.ConnectionLost, `${mode}: direct request`);
      // Between sockets nothing is buffered: open() rejects ConnectionLost until the peer is back.
      await rejects(direct.peer.request(null, { headers: HEADERS }), pkg.ConnectionLost, `${mode}: between sockets`);
      for (let i = 0; i < 250 && !direct.peer.isOpen; i++) await sleep(20);
      const again = await direct.peer.request(null, { headers: HEADERS });
      equal(again.connection, 2, 'answered on the next connection');
      equal(direct.reconnects[0], 1, 'onReconnect(1)');
    } finally {
      await direct.peer.close();
    }
    const viaProxy = await peerFor(pkg, `${hostileBase}${mode}/call`);
    try {
      const answer = await proxy(pkg, viaProxy.peer).echo();
      equal(answer.connection, 2, 'the repeat was answered after the reconnect');
    } finally {
      await viaProxy.peer.close();
    }
  };
}

for (const [mode, code] of Object.entries(STREAM_LEVEL)) {
  hostileScenarios[`hostile muxws server, ${mode}: only that stream is reset (code ${code}), the connection survives`] = async ({ pkg, hostileBase }) => {
    const { peer, reconnects } = await peerFor(pkg, `${hostileBase}${mode}/direct`);
    try {
      const error = await rejects(peer.request(null, { headers: HEADERS }), pkg.StreamReset, `${mode}: direct request`);
      equal(error.code, code, 'reset code');
      const again = await peer.request(null, { headers: HEADERS });
      equal(again.connection, 1, 'the same connection answers the next stream');
      equal(reconnects.length, 0, 'no reconnect');
      const call = proxy(pkg, peer).echo();
      const settled = await call.then(() => 'fulfilled', (e) => e);
      ok(settled === 'fulfilled' || settled instanceof pkg.MuxwsError, 'a ViewSet call settles');
    } finally {
      await peer.close();
    }
  };
}

for (const [mode, what] of [['two-payloads', '2 payloads'], ['no-payload', 'no payloads']]) {
  hostileScenarios[`muxws server answering a request with ${what}: request() rejects ProtocolError (WSM-API-006), the connection serves the next one`] = async ({ pkg, hostileBase }) => {
    const { peer, reconnects } = await peerFor(pkg, `${hostileBase}${mode}/direct`);
    try {
      const error = await rejects(peer.request(null, { headers: HEADERS }), pkg.ProtocolError, mode);
      ok(error.message.includes(`${what}, not one`), `the message says so (${error.message})`);
      equal((await peer.request(null, { headers: HEADERS })).connection, 1, 'the next request, on the same connection');
      equal(reconnects.length, 0, 'no reconnect');
    } finally {
      await peer.close();
    }
  };
}

hostileScenarios['muxws server resetting the hello APPLICATION_ERROR: connectMuxws() rejects with that RemoteError, unwrapped, its code, reason and payload (WSM-RCN-026)'] = async ({ pkg, hostileBase }) => {
  const error = await rejects(pkg.connectMuxws(`${hostileBase}refuse-with-payload/hello`, { hello: { token: 'expired' } }), pkg.RemoteError, 'the hello refused');
  equal(error.code, 2, 'code');
  equal(error.reason, 'who are you', 'reason');
  equal(JSON.stringify(error.payload), '{"need":"token"}', 'payload');
};

hostileScenarios['muxws server answering an error with a header value whose conversion throws: the call still rejects (HttpError), it does not hang'] = async ({ pkg, hostileBase }) => {
  const { peer } = await peerFor(pkg, `${hostileBase}unprintable-header/call`);
  try {
    const error = await rejects(proxy(pkg, peer, { timeoutMs: 0 }).echo(), pkg.ViewSetRequestError, 'the 404');
    equal(error.status, 404, 'status');
    equal(typeof error.headers['x-odd'], 'string', 'the header, written as text');
    equal(pkg.pendingCallCount(), 0, 'nothing left pending');
  } finally {
    await peer.close();
  }
};

hostileScenarios['muxws server answering :status as a numeric string (as 0.6 read it): the call rejects with that status, not repeated'] = async ({ pkg, hostileBase }) => {
  const { peer } = await peerFor(pkg, `${hostileBase}status-as-string/call`);
  try {
    const call = proxy(pkg, peer).echo();
    const error = await rejects(call, pkg.ViewSetRequestError, 'a "404"');
    equal(error.status, 404, 'status');
    equal(error.response.status, 404, 'response.status');
    equal(error.detail, 'not here', 'detail');
    equal(error.attempts, 1, 'not repeated');
    equal(error.key, call.key, 'key');
  } finally {
    await peer.close();
  }
};

hostileScenarios['muxws server answering a :status that is no HTTP status: the call rejects ProtocolError, not repeated; the connection serves the next call'] = async ({ pkg, hostileBase }) => {
  const { peer, reconnects } = await peerFor(pkg, `${hostileBase}status-not-a-status/call`);
  try {
    const api = proxy(pkg, peer);
    const call = api.echo();
    const error = await rejects(call, pkg.ProtocolError, 'a "teapot"');
    ok(error.message.includes(':status'), `the message names :status (${error.message})`);
    equal(error.attempts, 1, 'not repeated');
    equal(error.key, call.key, 'key');
    equal((await api.echo()).connection, 1, 'the next call, on the same connection');
    equal(reconnects.length, 0, 'no reconnect');
  } finally {
    await peer.close();
  }
};

hostileScenarios['hostile muxws server, silent: timeoutMs rejects StreamTimeout; a ViewSet call is repeated at once'] = async ({ pkg, hostileBase }) => {
  const { peer } = await peerFor(pkg, `${hostileBase}silent/direct`);
  try {
    await rejects(peer.request(null, { headers: HEADERS, timeoutMs: 200 }), pkg.StreamTimeout, 'silent: direct request');
  } finally {
    await peer.close();
  }
  const second = await peerFor(pkg, `${hostileBase}silent/call`);
  try {
    const answer = await proxy(pkg, second.peer, { timeoutMs: 200 }).echo();
    equal(answer.connection, 1, 'the repeat on the same connection was answered');
  } finally {
    await second.peer.close();
  }
};

hostileScenarios['hostile muxws server, deaf: the heartbeat finds the dead socket, the peer reconnects, a ViewSet call is repeated'] = async ({ pkg, hostileBase }) => {
  const closes = [];
  const peer = await pkg.connectMuxws(`${hostileBase}deaf/call`, {
    pingIntervalMs: 200,
    pingTimeoutMs: 300,
    reconnect: { initialDelayMs: 50, jitter: 0 },
    onClose: (reason) => closes.push(reason),
  });
  try {
    const answer = await proxy(pkg, peer).echo();
    equal(answer.connection, 2, 'answered after the reconnect');
    equal(closes[0].code, 1006, 'reported as an abnormal close');
    equal(closes[0].willRetry, true, 'and retried');
    ok(closes[0].reason.includes('pong'), `the reason names the missing pong (${closes[0].reason})`);
  } finally {
    await peer.close();
  }
};

hostileScenarios['hostile muxws server, select-other: a socket opened with another subprotocol → CodecMismatch from connectMuxws'] = async ({ pkg, hostileBase }) => {
  const error = await rejects(
    pkg.connectMuxws(`${hostileBase}select-other/connect`, { subprotocols: ['token.abc'], reconnect: false }),
    pkg.CodecMismatch,
    'connect',
  );
  ok(error.message.includes('token.abc') && error.message.includes('muxws.v1.json'), `names what was selected and offered (${error.message})`);
};
