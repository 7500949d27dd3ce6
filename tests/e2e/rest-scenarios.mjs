// End-to-end scenarios of REST proxies against the real backend behind the fault proxy. Each one runs
// unchanged in Node 20 (tests/e2e/rest.test.mjs) and in headless Chromium (tests/browser/e2e.test.mjs).
// A scenario gets { pkg, baseUrl, ctl } and throws on failure.
import { equal, ok, rejects, same, UUID_V4 } from './check.mjs';
import { recordActivity, sleep } from './control.mjs';

/** The ItemApi of the seed, plus methods on the test backend's custom actions. */
function itemApi(pkg) {
  return class ItemApi extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {
    slow(note, sleepS = 0, options = {}) {
      return this.request('POST', '/slow', { ...options, query: { sleep: sleepS }, body: { note } });
    }
    echo(body, options = {}) {
      return this.request('POST', '/echo', { ...options, body });
    }
    gateway(status, options = {}) {
      return this.request('POST', '/gateway', { ...options, query: { status } });
    }
    /** The seed's example shape: a method that may be given the key of an earlier call. */
    async approve(note, key) {
      return this.request('POST', '/slow', { key, body: { note } });
    }
    /** A method that awaits before its first request: its promise has no key. */
    async lateEcho() {
      await null;
      return this.request('POST', '/echo', { body: { late: true } });
    }
  };
}

function api(pkg, baseUrl, options = {}) {
  const ItemApi = itemApi(pkg);
  return new ItemApi({ basePath: '/items', baseUrl, schemaCheck: false, repeat: { delayMs: 50 }, ...options });
}

/** A keyed call through `mode`: repeated by the SDK, settled with the first execution's outcome, ran once. */
async function repeatedOnce(pkg, baseUrl, ctl, mode, ended, count = 1) {
  const items = api(pkg, baseUrl);
  // A call of the same shape first: in a browser its CORS preflight is answered and cached (the
  // backend's max-age, 600 s), so the faulted call needs none and goes out on a connection of its own
  // (queuing a fault closes the proxy's idle ones). A browser sends a request again by itself only
  // on a reused connection (Chromium, when it closes before any answer), which would hide a
  // drop_after or reset_after from the package: here the package alone sees the loss.
  await items.slow('the same shape, before the fault');
  const activity = recordActivity(pkg);
  try {
    await ctl.fault(mode, { count, path: '/items/slow', method: 'POST' });
    const call = items.slow(`through ${mode}`);
    const answer = await call;
    equal(answer.note, `through ${mode}`, 'answer');
    equal(await ctl.runsOf(call.key), 1, `runs of the action through ${mode}`);
    ok(/^start(,retry)+,settle$/.test(activity.of(call.key).join()), `activity start, retry…, settle (${activity.of(call.key)})`);
    const retries = activity.retriesOf(call.key);
    equal(retries[0].ended, ended, 'how the first attempt ended');
    retries.forEach((retry, index) => {
      equal(retry.attempt, index + 1, 'unanswered attempt number');
      equal(retry.delayMs, 50 * 2 ** index, 'delay before the repeat, doubled after each');
    });
    const entries = await ctl.entriesOf(call.key);
    ok(entries.length >= 1, 'the server saw the call');
    ok(entries.every((entry) => entry.idempotency_key === `"${call.key}"`), 'every attempt carried the same key');
  } finally {
    activity.stop();
    await ctl.clearFaults();
  }
}

export const restScenarios = {
  async 'the key is readable at once and is the key on the wire'({ pkg, baseUrl }) {
    const items = api(pkg, baseUrl);
    const call = items.echo({ a: 1 });
    ok(UUID_V4.test(call.key), `call.key is a v4 UUID (${call.key})`);
    const descriptor = Object.getOwnPropertyDescriptor(call, 'key');
    equal(descriptor.writable, false, 'key is read-only');
    const answer = await call;
    same(answer.idempotency_key, [`"${call.key}"`], 'Idempotency-Key as the server saw it');
    same(answer.body, { a: 1 }, 'body');
  },

  async 'every call gets a new key, GET included'({ pkg, baseUrl, ctl }) {
    const items = api(pkg, baseUrl);
    const first = items.list();
    const second = items.list();
    ok(first.key !== second.key, 'two calls, two keys');
    await Promise.all([first, second]);
    equal((await ctl.entriesOf(first.key)).length, 1, 'the first GET carried its key');
    equal((await ctl.entriesOf(second.key)).length, 1, 'the second GET carried its key');
  },

  async 'answer dropped after the backend ran the call: repeated, stored outcome, ran once'({ pkg, baseUrl, ctl }) {
    await repeatedOnce(pkg, baseUrl, ctl, 'drop_after', 'network-error');
  },

  async 'connection reset after the backend ran the call: repeated, ran once'({ pkg, baseUrl, ctl }) {
    await repeatedOnce(pkg, baseUrl, ctl, 'reset_after', 'network-error');
  },

  async 'answer cut mid-body: repeated, ran once'({ pkg, baseUrl, ctl }) {
    await repeatedOnce(pkg, baseUrl, ctl, 'truncate_after', 'network-error');
  },

  async '502 HTML from the gateway: repeated after the delay, ran once'({ pkg, baseUrl, ctl }) {
    await repeatedOnce(pkg, baseUrl, ctl, 'status_after:502', 'gateway-status');
  },

  async '503 HTML from the gateway before the backend: repeated after the delay, ran once'({ pkg, baseUrl, ctl }) {
    await repeatedOnce(pkg, baseUrl, ctl, 'status:503', 'gateway-status');
  },

  async '504 HTML from the gateway: repeated after the delay, ran once'({ pkg, baseUrl, ctl }) {
    await repeatedOnce(pkg, baseUrl, ctl, 'status_after:504', 'gateway-status');
  },

  async '503 with a JSON detail from the application settles without a repeat'({ pkg, baseUrl, ctl }) {
    const items = api(pkg, baseUrl);
    const activity = recordActivity(pkg);
    try {
      const call = items.gateway(503);
      const error = await rejects(call, pkg.HttpError, 'gateway 503');
      equal(error.status, 503, 'status');
      ok(typeof error.detail === 'string' && error.detail.length > 0, 'detail from the JSON body');
      equal(error.key, call.key, 'error.key');
      equal(error.attempts, 1, 'attempts');
      same(activity.of(call.key), ['start', 'settle'], 'activity');
      equal(await ctl.runsOf(call.key), 1, 'runs');
    } finally {
      activity.stop();
    }
  },

  async 'attempt timeout: repeated at once, the abandoned fetch aborted, ran once'({ pkg, baseUrl, ctl }) {
    const items = api(pkg, baseUrl, { attemptTimeoutMs: 400 });
    const activity = recordActivity(pkg);
    const signals = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      if (String(input).includes('/items/slow')) signals.push(init?.signal);
      return realFetch(input, init);
    };
    try {
      await ctl.fault('delay:1.5', { count: 1, path: '/items/slow', method: 'POST' });
      const call = items.slow('late answer');
      const answer = await call;
      equal(answer.note, 'late answer', 'answer');
      const [retry] = activity.retriesOf(call.key);
      equal(retry.ended, 'timeout', 'how the first attempt ended');
      equal(retry.delayMs, 0, 'repeated at once');
      equal(signals.length, 2, 'two fetches');
      equal(signals[0].aborted, true, 'the abandoned fetch was aborted');
      equal(signals[1].aborted, false, 'the last fetch was not');
      equal(await ctl.runsOf(call.key), 1, 'runs');
    } finally {
      globalThis.fetch = realFetch;
      activity.stop();
      await ctl.clearFaults();
    }
  },

  async 'withinMs exhausted: rejects with the last error, carrying the key'({ pkg, baseUrl, ctl }) {
    const items = api(pkg, baseUrl, { repeat: { withinMs: 500, delayMs: 100 } });
    try {
      await ctl.fault('status:503', { count: 100, path: '/items/slow', method: 'POST' });
      const started = Date.now();
      const call = items.slow('never');
      const error = await rejects(call, pkg.HttpError, 'exhausted call');
      equal(error.status, 503, 'the last attempt\'s status');
      ok(String(error.body).includes('503'), 'the last attempt\'s HTML body');
      equal(error.key, call.key, 'error.key');
      ok(error.attempts >= 3, `several attempts (${error.attempts})`);
      ok(Date.now() - started < 3000, 'gave up within the window');
      equal(await ctl.runsOf(call.key), 0, 'never reached the action');
    } finally {
      await ctl.clearFaults();
    }
  },

  async 'withinMs 0: no repeat'({ pkg, baseUrl, ctl }) {
    const items = api(pkg, baseUrl);
    const activity = recordActivity(pkg);
    try {
      // the answer cut off after the backend ran the call: response bytes arrived, so no browser
      // sends the request again by itself (as Chromium does when a reused connection closes before
      // any answer, which would hide the loss)
      await ctl.fault('truncate_after', { count: 1, path: '/items/slow', method: 'POST' });
      const call = items.slow('once', 0, { repeat: { withinMs: 0 } });
      const error = await rejects(call, pkg.NetworkError, 'unrepeated call');
      equal(error.key, call.key, 'error.key');
      equal(error.attempts, 1, 'attempts');
      same(activity.of(call.key), ['start', 'settle'], 'activity');
      equal(await ctl.runsOf(call.key), 1, 'the backend ran it once');
    } finally {
      activity.stop();
      await ctl.clearFaults();
    }
  },

  async 'an interceptor header bound to the caller\'s synchronous part reaches the repeat'({ pkg, baseUrl, ctl }) {
    let trace = 'trace-1';
    const items = api(pkg, baseUrl, { interceptors: [(request) => { request.headers['X-Trace'] = trace; }] });
    try {
      // count 2: were the browser to send the dropped request again by itself (Chromium does once, on a reused connection), that is dropped too, so the package sees the loss either way
      await ctl.fault('drop_before', { count: 2, path: '/items/echo', method: 'POST' });
      const call = items.echo({ traced: true });
      trace = 'trace-2';
      const answer = await call;
      equal(answer.headers['x-trace'], 'trace-1', 'the repeat carried the first attempt\'s header');
      same(answer.idempotency_key, [`"${call.key}"`], 'key on the repeat');
    } finally {
      await ctl.clearFaults();
    }
  },

  async 'an Idempotency-Key header of the proxy or the call, in any letter case, is replaced'({ pkg, baseUrl }) {
    const items = api(pkg, baseUrl, { headers: { 'IDEMPOTENCY-key': '"from-proxy"', 'X-Trace': 'proxy' } });
    const call = items.echo({}, { headers: { 'idempotency-KEY': '"from-call"' } });
    const answer = await call;
    same(answer.idempotency_key, [`"${call.key}"`], 'only the call\'s key went out');
    equal(answer.headers['x-trace'], 'proxy', 'other proxy headers kept');
  },

  async 'RequestOptions.key repeats a call: the stored outcome, ran once'({ pkg, baseUrl, ctl }) {
    const items = api(pkg, baseUrl);
    const key = pkg.newKey();
    const first = items.approve('approved', key);
    equal(first.key, key, 'the method\'s promise carries the given key');
    const again = items.approve('approved', key);
    same(await again, await first, 'the repeat got the first outcome');
    equal(await ctl.runsOf(key), 1, 'runs');
  },

  async 'bad keys reject with a TypeError before anything is sent'({ pkg, baseUrl, ctl }) {
    const items = api(pkg, baseUrl);
    const before = (await ctl.log()).length;
    for (const key of ['', 'ключ', 'a\u0007b']) {
      await rejects(items.slow('bad key', 0, { key }), TypeError, `key ${JSON.stringify(key)}`);
    }
    equal((await ctl.log()).length, before, 'nothing reached the server');
  },

  async 'a ViewSet method has the key of its first request before its first await'({ pkg, baseUrl }) {
    const items = api(pkg, baseUrl);
    const call = items.approve('own method');
    ok(UUID_V4.test(call.key), 'approve() has a key');
    await call;
    const late = items.lateEcho();
    equal(late.key, undefined, 'a method that awaits first has none');
    await late;
  },

  async 'an error answer rejects with HttpError: status, parsed body, headers, key'({ pkg, baseUrl }) {
    const items = api(pkg, baseUrl);
    const call = items.retrieve(987654);
    const error = await rejects(call, pkg.HttpError, 'retrieve of a missing item');
    equal(error.name, 'HttpError', 'name');
    equal(error.status, 404, 'status');
    equal(error.detailCode, 'fastapi-viewsets.not_found', 'detail_code');
    same(error.detailParams, { pk: 987654 }, 'detail_params');
    ok(String(error.headers['content-type']).includes('json'), 'headers');
    equal(error.key, call.key, 'key');
    ok(error instanceof pkg.ViewSetError && error instanceof Error, 'class hierarchy');
  },

  async 'CRUD through the built-in actions'({ pkg, baseUrl }) {
    const items = api(pkg, baseUrl);
    const created = await items.create({ name: 'crud', qty: 2 });
    ok(created.id > 0, 'created with an id');
    same(await items.retrieve(created.id), created, 'retrieve');
    equal((await items.update(created.id, { name: 'renamed', qty: 3 })).name, 'renamed', 'update');
    equal((await items.partialUpdate(created.id, { qty: 9 })).qty, 9, 'partialUpdate');
    ok((await items.list()).some((item) => item.id === created.id), 'list');
    const destroyed = await items.destroy(created.id);
    ok(String(created.id) in destroyed, 'destroy');
  },

  async 'a caller cancellation settles the call without a repeat'({ pkg, baseUrl }) {
    const items = api(pkg, baseUrl);
    const controller = new AbortController();
    const call = items.slow('cancelled', 2, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const error = await rejects(call, pkg.CallCancelled, 'cancelled call');
    equal(error.key, call.key, 'key');
    equal(error.attempts, 1, 'attempts');
  },

  async 'the startup schema check runs in the background and warns about a missing route'({ pkg, baseUrl }) {
    const warnings = [];
    const realWarn = console.warn;
    console.warn = (...args) => warnings.push(args.join(' '));
    const activity = recordActivity(pkg);
    try {
      const Api = pkg.restViewSet()('id', [pkg.ViewSetMixin, pkg.LookupMixin]);
      const proxy = new (class extends Api {})({ basePath: '/items', baseUrl });
      ok(proxy.basePath === '/items', 'proxy made');
      for (let i = 0; i < 100 && !warnings.length; i++) await sleep(20);
      ok(warnings.some((w) => w.includes('lookup()') && w.includes('/items/lookup')), `a warning names lookup (${warnings})`);
      ok(!warnings.some((w) => w.includes('list()')), 'no warning for served actions');
      const schemaEvents = activity.events.filter((event) => event.path === '/items/schema');
      ok(schemaEvents.length >= 2 && schemaEvents.every((event) => event.background), 'the check is a background call');
    } finally {
      console.warn = realWarn;
      activity.stop();
    }
  },
};
