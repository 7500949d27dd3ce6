// Server push on the muxws peer end to end: connectMuxws(url, { onStream }) and peer.onStream(),
// against the real backend's events (fastapi-viewsets 0.14: a muxws subscribe, then the server opens
// a stream for each event of the topic). Each scenario runs unchanged in Node 20
// (tests/e2e/push.test.mjs) and in headless Chromium (tests/browser/e2e.test.mjs). A scenario gets
// { pkg, baseUrl, wsUrl, ctl }.
import { equal, ok, same } from './check.mjs';
import { sleep } from './control.mjs';

/** A second client: plain fetch, no SDK. */
async function other(baseUrl, method, path, body) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Resolves once `check()` holds, polling every 20 ms; throws after `ms`. */
async function until(check, ms, what) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

/** Subscribes the peer's socket to `topic` (the backend's events viewset over muxws); its answer. */
function subscribe(peer, topic) {
  return peer.requestWithHeaders({ topic }, { headers: { ':method': 'POST', ':path': '/events/subscribe' } });
}

/** A topic of the source `imports` no other scenario uses. */
const freshKey = () => `p${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export const pushScenarios = {
  async "push: onStream given to connectMuxws gets a second client's create as the server sent it: headers, JSON numbers, the payload, an even stream id"({ pkg, baseUrl, wsUrl }) {
    const pushes = [];
    const peer = await pkg.connectMuxws(wsUrl, {
      onStream: (payload, stream) => {
        pushes.push({ payload, headers: stream.headers, id: stream.id });
      },
    });
    try {
      const answer = await subscribe(peer, '/items');
      equal(answer.headers[':status'], 200, 'subscribed');
      ok(Number.isSafeInteger(answer.payload.rev), `the subscribe answers the topic's rev (${answer.payload.rev})`);
      const created = await other(baseUrl, 'POST', '/items', { name: 'pushed' });
      await until(() => pushes.some((p) => p.payload?.op === 'created'), 3000, 'the push of the create');
      const push = pushes.find((p) => p.payload?.op === 'created');
      same(push.payload, { op: 'created', changes: [{ pk: created.id }] }, 'the payload');
      equal(push.headers[':event'], 'records_changed', ':event');
      equal(push.headers[':version'], 1, ':version is a number');
      equal(push.headers[':topic'], '/items', ':topic');
      equal(typeof push.headers[':rev'], 'number', ':rev is a JSON number');
      equal(typeof push.headers[':prev'], 'number', ':prev is a JSON number');
      ok(push.headers[':rev'] > answer.payload.rev, 'its rev is after the subscribe');
      ok(push.id > 0 && push.id % 2 === 0, `the server's stream id is even (${push.id})`);
      // The handler returned: the stream ended, and the peer holds nothing for it.
      await until(() => peer.core.streamCount === 0, 2000, 'the pushed stream to end');
      // The peer answers calls as before.
      const again = await subscribe(peer, '/items');
      equal(again.headers[':status'], 200, 'the peer goes on');
    } finally {
      await peer.close();
    }
  },

  async "push: a handler that throws ends its stream only; the next push arrives and the peer's calls go on"({ pkg, baseUrl, wsUrl }) {
    const key = freshKey();
    const seen = [];
    const peer = await pkg.connectMuxws(wsUrl);
    const stop = peer.onStream((payload) => {
      seen.push(payload);
      if (seen.length === 1) throw new Error('the application handler failed');
    });
    try {
      await subscribe(peer, `imports:${key}`);
      await other(baseUrl, 'POST', `/__test/events/publish?key=${key}&n=1`);
      await until(() => seen.length === 1, 3000, 'the first push');
      await other(baseUrl, 'POST', `/__test/events/publish?key=${key}&n=1`);
      await until(() => seen.length === 2, 3000, 'the second push, after the handler threw');
      same(seen.map((p) => p.rows), [0, 0], 'both pushes, whole');
      ok(peer.isOpen && !peer.isClosed, 'the peer is open');
      const answer = await subscribe(peer, `imports:${key}`);
      equal(answer.headers[':status'], 200, "the peer's calls go on");
      // Removed: the next push is refused (the server goes on; nothing reaches the application).
      stop();
      await other(baseUrl, 'POST', `/__test/events/publish?key=${key}&n=1`);
      await sleep(500);
      equal(seen.length, 2, 'no handler: no push delivered');
      // Added again: pushes arrive again.
      peer.onStream((payload) => void seen.push(payload));
      await other(baseUrl, 'POST', `/__test/events/publish?key=${key}&n=1`);
      await until(() => seen.length === 3, 3000, 'a push after a handler is added again');
    } finally {
      await peer.close();
    }
  },

  async "push: a push over the frame cap arrives in fragments and reaches the handler whole; an async handler holds its stream until it settles"({ pkg, baseUrl, wsUrl }) {
    const key = freshKey();
    const seen = [];
    let release;
    const held = new Promise((resolve) => (release = resolve));
    const peer = await pkg.connectMuxws(wsUrl, {
      onStream: async (payload) => {
        seen.push(payload);
        await held;
      },
    });
    try {
      await subscribe(peer, `imports:${key}`);
      await other(baseUrl, 'POST', `/__test/events/publish?key=${key}&n=1&pad=100000`);
      await until(() => seen.length === 1, 5000, 'the large push');
      ok(seen[0].file.length > 100000, `the payload whole (${seen[0].file.length} characters of its file name)`);
      ok(seen[0].file.startsWith(`${key}-0xxx`) && seen[0].file.endsWith('.csv'), 'its text intact');
      equal(peer.core.streamCount, 1, 'the stream is held while the handler runs');
      release();
      await until(() => peer.core.streamCount === 0, 2000, 'the stream to end once the handler settled');
    } finally {
      await peer.close();
    }
  },
};
