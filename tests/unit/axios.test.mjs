// Pins the axios transport (option axiosInstance) with the real axios package and a scripted
// adapter (no network) on a fake clock, as the spec's REST row says for axios: an axios error
// without a response is repeated after the delay, at once when the attempt's timeout ended it
// (ECONNABORTED); a 502/503/504 whose body is not a JSON object with detail after the delay; every
// attempt carries the key and the first attempt's headers after the instance's request
// interceptors, and the first attempt's body bytes; an answer with an error status rejects with
// the axios error (0.6); a cancellation settles the call, not repeated.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { installClock } from './fake-clock.mjs';
import { assertNoLeaks, importPackage, observe, recordActivity } from './kit.mjs';

const clock = installClock();
const pkg = await importPackage();
const { default: axios, AxiosError, CanceledError } = await import('axios');

after(async () => {
  await assertNoLeaks(pkg, clock);
  clock.uninstall();
});

/**
 * An axios adapter answering from `script(config, index)`: `{ status, data, headers }`, 'network'
 * (an AxiosError without a response), or 'hang' (only the config's timeout or signal ends it).
 * Records each config it got (headers as a plain object, lower-case names) with the clock's time.
 */
function scriptedAdapter(script) {
  const seen = [];
  const adapter = (config) =>
    new Promise((resolve, reject) => {
      const headers = {};
      for (const [name, value] of Object.entries(config.headers.toJSON())) headers[name.toLowerCase()] = String(value);
      const entry = { method: config.method.toUpperCase(), url: config.url, headers, data: config.data, at: Date.now(), aborted: false };
      seen.push(entry);
      const answer = script(config, seen.length - 1);
      let timer = null;
      const onAbort = () => {
        entry.aborted = true;
        clearTimeout(timer);
        reject(new CanceledError(null, config));
      };
      config.signal?.addEventListener('abort', onAbort, { once: true });
      if (answer === 'hang') {
        if (config.timeout) timer = setTimeout(() => reject(new AxiosError(`timeout of ${config.timeout}ms exceeded`, 'ECONNABORTED', config, {})), config.timeout);
        return;
      }
      config.signal?.removeEventListener('abort', onAbort);
      if (answer === 'network') return reject(new AxiosError('Network Error', 'ERR_NETWORK', config, {}));
      const response = { status: answer.status, statusText: '', data: answer.data, headers: answer.headers ?? {}, config, request: {} };
      if (answer.status >= 400) reject(new AxiosError(`Request failed with status code ${answer.status}`, 'ERR_BAD_RESPONSE', config, {}, response));
      else resolve(response);
    });
  return { adapter, seen };
}

function itemsThrough(instance, options = {}) {
  class ItemApi extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {}
  return new ItemApi({ basePath: '/items', axiosInstance: instance, schemaCheck: false, repeat: { delayMs: 1000 }, ...options });
}

const keyOf = (entry) => entry.headers['idempotency-key'];

test('a call goes through the instance: its interceptors run, the key is on the wire, the answer is the data', async () => {
  const { adapter, seen } = scriptedAdapter(() => ({ status: 201, data: { id: 3, name: 'x' } }));
  const instance = axios.create({ baseURL: 'http://api.test', adapter });
  instance.interceptors.request.use((config) => {
    config.headers['X-Trace'] = 'axios-1';
    return config;
  });
  const items = itemsThrough(instance);
  const call = items.create({ name: 'x' });
  assert.deepEqual(await call, { id: 3, name: 'x' });
  assert.equal(seen.length, 1);
  assert.equal(seen[0].method, 'POST');
  assert.equal(seen[0].url, '/items');
  assert.equal(keyOf(seen[0]), `"${call.key}"`);
  assert.equal(seen[0].headers['x-trace'], 'axios-1');
  assert.deepEqual(JSON.parse(seen[0].data), { name: 'x' });
});

test('an axios error without a response is repeated after the delay with the same key, first headers and body bytes', async () => {
  const { adapter, seen } = scriptedAdapter((config, index) => (index < 2 ? 'network' : { status: 200, data: { ok: true } }));
  const instance = axios.create({ baseURL: 'http://api.test', adapter });
  let trace = 'first';
  instance.interceptors.request.use((config) => {
    config.headers['X-Trace'] = trace;
    trace = 'later';
    return config;
  });
  const items = itemsThrough(instance);
  const activity = recordActivity(pkg);
  const start = clock.now();
  const call = items.update(4, { name: 'renamed' });
  await clock.advance(5000);
  assert.deepEqual(await call, { ok: true });
  assert.deepEqual(seen.map((entry) => entry.at - start), [0, 1000, 3000], 'delays 1000, 2000');
  for (const entry of seen) {
    assert.equal(keyOf(entry), `"${call.key}"`);
    assert.equal(entry.headers['x-trace'], 'first', 'the first attempt\'s header after the interceptors');
    assert.equal(entry.data, seen[0].data, 'the first attempt\'s body');
  }
  assert.deepEqual(activity.of(call.key).filter((event) => event.type === 'retry').map((event) => event.ended), ['network-error', 'network-error']);
  activity.stop();
});

test('the attempt\'s timeout (axios timeout, ECONNABORTED) is repeated at once', async () => {
  const { adapter, seen } = scriptedAdapter((config, index) => (index === 0 ? 'hang' : { status: 200, data: [] }));
  const instance = axios.create({ baseURL: 'http://api.test', adapter });
  const items = itemsThrough(instance, { attemptTimeoutMs: 4000 });
  const activity = recordActivity(pkg);
  const start = clock.now();
  const call = items.list();
  await clock.advance(4000);
  assert.deepEqual(await call, []);
  assert.deepEqual(seen.map((entry) => entry.at - start), [0, 4000]);
  const retry = activity.of(call.key).find((event) => event.type === 'retry');
  assert.deepEqual([retry.ended, retry.delayMs], ['timeout', 0]);
  activity.stop();
});

test('a 503 gateway page is repeated after the delay; a 503 with a JSON detail rejects with the axios error, not repeated', async () => {
  const { adapter, seen } = scriptedAdapter((config) =>
    config.url.endsWith('/page')
      ? seen.filter((entry) => entry.url.endsWith('/page')).length === 1
        ? { status: 503, data: '<html>503</html>', headers: { 'content-type': 'text/html' } }
        : { status: 200, data: 'ok' }
      : { status: 503, data: { detail: 'result timeout', detail_code: 'result_timeout' } },
  );
  const instance = axios.create({ baseURL: 'http://api.test', adapter });
  class Api extends pkg.restViewSet()('id', [pkg.ListMixin]) {
    page() {
      return this.request('GET', '/page');
    }
    detail() {
      return this.request('GET', '/detail');
    }
  }
  const api = new Api({ basePath: '/items', axiosInstance: instance, schemaCheck: false, repeat: { delayMs: 1000 } });
  const page = api.page();
  const detail = api.detail();
  const [a, b] = [observe(page), observe(detail)];
  await clock.advance(1000);
  assert.equal(a.value, 'ok');
  assert.equal(seen.filter((entry) => entry.url.endsWith('/page')).length, 2);
  assert.ok(b.error instanceof AxiosError, `the axios error (${b.error?.name})`);
  assert.equal(b.error.response.status, 503);
  assert.equal(b.error.key, detail.key, 'carrying the call\'s key');
  await clock.advance(10_000);
  assert.equal(seen.filter((entry) => entry.url.endsWith('/detail')).length, 1);
});

test('a cancellation by the caller\'s signal aborts the axios request and rejects with CallCancelled', async () => {
  const { adapter, seen } = scriptedAdapter(() => 'hang');
  const instance = axios.create({ baseURL: 'http://api.test', adapter });
  const items = itemsThrough(instance, { attemptTimeoutMs: 0 });
  const controller = new AbortController();
  const call = items.list({}, { signal: controller.signal });
  const seen2 = observe(call);
  await clock.advance(100);
  controller.abort();
  await clock.settle();
  assert.ok(seen2.error instanceof pkg.CallCancelled, `CallCancelled (${seen2.error?.name})`);
  assert.equal(seen[0].aborted, true, 'the axios request was aborted');
  await clock.advance(10_000);
  assert.equal(seen.length, 1);
});

test('a cancellation of the instance\'s own (an interceptor cancels) settles the call with it, not repeated', async () => {
  const { adapter, seen } = scriptedAdapter(() => ({ status: 200, data: 'never' }));
  const instance = axios.create({ baseURL: 'http://api.test', adapter });
  instance.interceptors.request.use(() => {
    throw new CanceledError('not now');
  });
  const items = itemsThrough(instance);
  const call = items.list();
  const seenCall = observe(call);
  await clock.advance(10_000);
  assert.ok(seenCall.error instanceof CanceledError, `the CanceledError (${seenCall.error?.name})`);
  assert.equal(seenCall.error.key, call.key);
  assert.equal(seen.length, 0, 'the adapter was never reached');
});
