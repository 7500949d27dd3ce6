// The axios transport (option `axiosInstance`) end to end with real axios (1.x, the npm package)
// against the real backend behind the fault proxy. Each scenario runs unchanged in Node 20
// (tests/e2e/axios.test.mjs) and in headless Chromium (tests/browser/e2e.test.mjs, where `axios`
// resolves through the runner page's import map).
import { equal, ok, rejects, same } from './check.mjs';
import { recordActivity } from './control.mjs';

/**
 * How these scenarios lose an answer after the backend ran the call. In a browser the answer is cut
 * off after its head (truncate_after): response bytes arrived, so the browser does not send the
 * request again by itself, as Chromium does when a reused connection closes before any answer (which
 * would hide the loss from the package); axios over XHR reports the cut as a network error. In Node
 * the connection is closed without an answer (drop_after): Node's http client never resends. A body
 * cut off in Node (axios rejects with ERR_BAD_RESPONSE carrying the 200 response, its data never
 * read) has a scenario of its own below.
 */
const LOST_AFTER_RUN = typeof window === 'undefined' ? 'drop_after' : 'truncate_after';

async function axiosModule() {
  return (await import('axios')).default;
}

/** An ItemApi whose attempts go through `instance`. */
function itemApi(pkg, instance, options = {}) {
  class ItemApi extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {
    slow(note, options = {}) {
      return this.request('POST', '/slow', { ...options, query: { sleep: 0 }, body: { note } });
    }
    echo(body, options = {}) {
      return this.request('POST', '/echo', { ...options, body });
    }
    conflict() {
      return this.request('POST', '/conflict', {});
    }
  }
  return new ItemApi({ basePath: '/items', axiosInstance: instance, schemaCheck: false, repeat: { delayMs: 50 }, ...options });
}

export const axiosScenarios = {
  async 'axios: calls go through the instance: its interceptors run, the key is on the wire, the answer is the data'({ pkg, baseUrl }) {
    const axios = await axiosModule();
    const instance = axios.create({ baseURL: baseUrl });
    let ran = 0;
    instance.interceptors.request.use((config) => {
      ran += 1;
      config.headers['X-Trace'] = `axios-${ran}`;
      return config;
    });
    const items = itemApi(pkg, instance);
    const call = items.echo({ through: 'axios' });
    const answer = await call;
    same(answer.body, { through: 'axios' }, 'body');
    same(answer.idempotency_key, [`"${call.key}"`], 'the key on the wire');
    equal(answer.headers['x-trace'], 'axios-1', "the instance's interceptor ran");
    ok(String(answer.headers['content-type']).startsWith('application/json'), 'JSON content type');
  },

  async 'axios: an answer lost after the backend ran the call is repeated and answered with the stored outcome, ran once'({ pkg, baseUrl, ctl }) {
    const axios = await axiosModule();
    const items = itemApi(pkg, axios.create({ baseURL: baseUrl }));
    const activity = recordActivity(pkg);
    try {
      await ctl.fault(LOST_AFTER_RUN, { count: 1, path: '/items/slow', method: 'POST' });
      const call = items.slow('lost over axios');
      equal((await call).note, 'lost over axios', 'answer');
      equal(await ctl.runsOf(call.key), 1, 'runs');
      const [retry] = activity.retriesOf(call.key);
      equal(retry?.ended, 'network-error', 'an axios error without a response is repeated after the delay');
      equal(retry?.delayMs, 50, 'the delay');
    } finally {
      activity.stop();
      await ctl.clearFaults();
    }
  },

  async 'axios: a create whose answer is cut off mid-body is repeated under its key and resolves with the stored outcome, ran once'({ pkg, baseUrl, ctl }) {
    const axios = await axiosModule();
    const items = itemApi(pkg, axios.create({ baseURL: baseUrl }));
    const activity = recordActivity(pkg);
    try {
      // the head and half of the body, then the connection closes: in Node axios rejects with the
      // 200 response and no data, in a browser with a network error; an answer lost either way
      await ctl.fault('truncate_after', { count: 1, path: '/items', method: 'POST' });
      const call = items.create({ name: 'cut over axios', qty: 4 });
      const created = await call;
      equal(created?.name, 'cut over axios', "the stored outcome's JSON");
      ok(created.id > 0, 'the created record, with its id');
      equal(await ctl.runsOf(call.key), 1, 'runs');
      const entries = await ctl.entriesOf(call.key);
      equal(entries.length, 2, 'two attempts reached the backend, under the same key');
      const [retry] = activity.retriesOf(call.key);
      equal(retry?.ended, 'network-error', 'the cut-off answer ended the attempt without an answer');
    } finally {
      activity.stop();
      await ctl.clearFaults();
    }
  },

  async "axios: the first attempt's headers after the interceptors reach the repeat, the ones axios sets again excepted"({ pkg, baseUrl, ctl }) {
    const axios = await axiosModule();
    const instance = axios.create({ baseURL: baseUrl });
    let ran = 0;
    instance.interceptors.request.use((config) => {
      ran += 1;
      config.headers['X-Trace'] = `run-${ran}`;
      return config;
    });
    const items = itemApi(pkg, instance);
    try {
      // count 2: were the browser to send the dropped request again by itself (Chromium does once, on a reused connection), that is dropped too, so the package sees the loss either way
      await ctl.fault('drop_before', { count: 2, path: '/items/echo', method: 'POST' });
      const call = items.echo({ repeated: true });
      const answer = await call;
      ok(ran >= 2, `the interceptor ran on each attempt (${ran})`);
      equal(answer.headers['x-trace'], 'run-1', "the repeat carried the first attempt's header");
      same(answer.idempotency_key, [`"${call.key}"`], 'the same key');
      equal((await ctl.entriesOf(call.key)).length, 1, 'only the repeat reached the backend');
    } finally {
      await ctl.clearFaults();
    }
  },

  async "axios: an interceptor that changes config.data gets the body as the caller gave it (as in 0.6); a repeat sends the first attempt's bytes, ran once"({ pkg, baseUrl, ctl }) {
    const axios = await axiosModule();
    const instance = axios.create({ baseURL: baseUrl });
    let ran = 0;
    const seen = [];
    instance.interceptors.request.use((config) => {
      ran += 1;
      seen.push(config.data);
      // What 0.6 apps do: add to the body object (a tenant, the attempt: other bytes on a repeat).
      config.data = { ...config.data, tenant: 7, attempt: ran };
      return config;
    });
    const items = itemApi(pkg, instance);
    try {
      await ctl.fault(LOST_AFTER_RUN, { count: 1, path: '/items/echo', method: 'POST' });
      const body = { name: 'x' };
      const call = items.echo(body);
      const answer = await call;
      ok(ran >= 2, `the interceptor ran on each attempt (${ran})`);
      // (axios hands interceptors its own copy of a plain object)
      same(seen, seen.map(() => ({ name: 'x' })), 'the interceptor got the body as the caller gave it, an object, on every attempt');
      same(answer.body, { name: 'x', tenant: 7, attempt: 1 }, "the stored outcome of the first attempt's bytes");
      equal(await ctl.runsOf(call.key), 1, 'runs');
      const entries = await ctl.entriesOf(call.key);
      equal(entries.length, ran, 'every attempt reached the backend');
      // Other bytes under the same key would be answered 422 idempotency_key_reused.
      same(entries.map((entry) => entry.status), entries.map(() => 200), 'each attempt answered 200 (the repeat: the stored outcome)');
    } finally {
      await ctl.clearFaults();
    }
  },

  async "axios: a response interceptor that refreshes an expired token and sends the request again (0.6 apps' pattern) gets the answer, with the call's key; the action ran once"({ pkg, baseUrl, ctl }) {
    const axios = await axiosModule();
    const instance = axios.create({ baseURL: baseUrl });
    let token = 'stale';
    instance.interceptors.request.use((config) => {
      config.headers.Authorization = `Bearer ${token}`;
      return config;
    });
    instance.interceptors.response.use(undefined, async (error) => {
      const original = error.config;
      if (error.response?.status !== 401 || original.refreshed) throw error;
      original.refreshed = true;
      token = 'fresh';
      return instance(original);
    });
    const items = itemApi(pkg, instance);
    const call = items.request('POST', '/private', {});
    const answer = await call;
    equal(answer.action, 'private', 'answered');
    const entries = await ctl.entriesOf(call.key);
    same(entries.map((entry) => entry.status), [401, 200], "the first refused before Idempotency, the retry with the call's key ran");
    equal(await ctl.runsOf(call.key), 1, 'runs');
  },

  async 'axios: a cancellation (an interceptor cancels the request) settles the call with it, not repeated, as the seed says'({ pkg, baseUrl, ctl }) {
    const axios = await axiosModule();
    const instance = axios.create({ baseURL: baseUrl });
    let ran = 0;
    instance.interceptors.request.use((config) => {
      ran += 1;
      throw new axios.CanceledError('cancelled by the app');
    });
    const items = itemApi(pkg, instance);
    const activity = recordActivity(pkg);
    try {
      const call = items.echo({ cancelled: true });
      const error = await rejects(call, Error, 'cancelled');
      ok(axios.isCancel(error), 'the CanceledError');
      equal(error.key, call.key, 'error.key');
      equal(error.attempts, 1, 'error.attempts');
      equal(ran, 1, 'one attempt');
      same(activity.of(call.key), ['start', 'settle'], 'not repeated');
      equal((await ctl.entriesOf(call.key)).length, 0, 'nothing reached the backend');
    } finally {
      activity.stop();
    }
  },

  async 'axios: an error answer rejects with the axios error, as 0.6 code reads it, carrying the key; not repeated'({ pkg, baseUrl }) {
    const axios = await axiosModule();
    const items = itemApi(pkg, axios.create({ baseURL: baseUrl }));
    const activity = recordActivity(pkg);
    try {
      const call = items.conflict();
      const error = await rejects(call, Error, 'conflict');
      ok(axios.isAxiosError(error), 'an AxiosError');
      equal(error.response.status, 409, 'error.response.status');
      ok(String(error.response.data.detail).startsWith('conflict'), 'error.response.data');
      equal(error.key, call.key, 'error.key');
      equal(error.attempts, 1, 'error.attempts');
      same(activity.of(call.key), ['start', 'settle'], 'activity');
    } finally {
      activity.stop();
    }
  },

  async "axios: the attempt's timeout is axios's: ECONNABORTED is repeated at once, ran once"({ pkg, baseUrl, ctl }) {
    const axios = await axiosModule();
    const items = itemApi(pkg, axios.create({ baseURL: baseUrl }), { attemptTimeoutMs: 400 });
    const activity = recordActivity(pkg);
    try {
      await ctl.fault('delay:1.5', { count: 1, path: '/items/slow', method: 'POST' });
      const call = items.slow('late over axios');
      equal((await call).note, 'late over axios', 'answer');
      const [retry] = activity.retriesOf(call.key);
      equal(retry?.ended, 'timeout', 'how the first attempt ended');
      equal(retry?.delayMs, 0, 'repeated at once');
      equal(await ctl.runsOf(call.key), 1, 'runs');
    } finally {
      activity.stop();
      await ctl.clearFaults();
    }
  },
};
