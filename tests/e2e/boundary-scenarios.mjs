// Acceptance scenarios of the redrawn JS↔wasm boundary (issue 11), against the real backend behind the
// fault proxy, through the PUBLIC API only. Each runs unchanged in Node 20 (tests/e2e/boundary.test.mjs)
// and in headless Chromium (tests/browser/e2e.test.mjs). A scenario gets { pkg, baseUrl, wsUrl, ctl }.
//
// What a body or a header looks like on the wire is judged against a raw `fetch` of the same value to
// the same action, side by side: POST /items/raw reports the raw body the backend received (length,
// sha256, content type, the boundary-normalised digest of a multipart body) and every request header.
//
// The exception-source scenarios come last: against a package whose runtime wedges they leave every
// later call of the page unsent, so each of them bounds every wait and reports what it saw.
import { equal, ok, rejects, same, UUID_V4 } from './check.mjs';
import { recordActivity, sleep } from './control.mjs';

const MIB = 1024 * 1024;
const TEN_MB = 10_000_000;

// ------------------------------------------------------------------ proxies and helpers

/** A REST proxy on the backend's boundary actions. */
function restApi(pkg, baseUrl, options = {}) {
  const Api = pkg.restViewSet()('id', []);
  return new (class BoundaryItems extends Api {
    raw(body, options = {}) {
      return this.request('POST', '/raw', { ...options, body });
    }
    rawSlow(body, sleepS, options = {}) {
      return this.request('POST', '/raw', { ...options, query: { sleep: sleepS }, body });
    }
    cut(options = {}) {
      return this.request('POST', '/cutjson', options);
    }
    big(size, options = {}) {
      return this.request('GET', '/big', { ...options, query: { size } });
    }
    /** `request()` with the options exactly as given. */
    send(method, path, options) {
      return this.request(method, path, options);
    }
  })({ basePath: '/items', baseUrl, schemaCheck: false, repeat: { delayMs: 50 }, ...options });
}

/** The same actions over a muxws peer. */
function muxApi(pkg, peer, options = {}) {
  const Api = pkg.muxwsViewSet()('id', []);
  return new (class MuxBoundaryItems extends Api {
    raw(body, options = {}) {
      return this.request('POST', '/raw', { ...options, body });
    }
    rawSlow(body, sleepS, options = {}) {
      return this.request('POST', '/raw', { ...options, query: { sleep: sleepS }, body });
    }
    big(size, options = {}) {
      return this.request('GET', '/big', { ...options, query: { size } });
    }
    send(method, path, options) {
      return this.request(method, path, options);
    }
  })({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 100 }, ...options });
}

function connect(pkg, wsUrl, options = {}) {
  return settleOk(pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 100, maxDelayMs: 1000 }, ...options }), 10000, 'connectMuxws');
}

/** A connected peer, or null with the reason noted in `problems` (the scenario goes on with REST). */
async function connectOrNote(pkg, wsUrl, problems) {
  try {
    return await connect(pkg, wsUrl);
  } catch (error) {
    problems.push(`no muxws peer, its parts not run: ${error.message}`);
    return null;
  }
}

/** Closes `peer`, bounded: a wedged driver must not hang the scenario. */
async function closePeer(peer) {
  if (!peer) return;
  try {
    await settle(peer.close({ drainMs: 500 }), 5000, 'peer.close()');
  } catch {
    /* reported by the scenario's own checks */
  }
}

/** The answer of a raw `fetch` of `body` to POST /items/raw (with a key of its own). */
async function rawFetch(pkg, baseUrl, body, headers = {}) {
  const response = await fetch(`${baseUrl}/items/raw`, {
    method: 'POST',
    headers: { 'Idempotency-Key': `"${pkg.newKey()}"`, ...headers },
    body,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`the raw fetch answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

function describe(error) {
  if (error === undefined) return 'undefined';
  if (error === null || typeof error !== 'object') return `${typeof error} ${String(error)}`;
  return `${error.constructor?.name ?? 'Object'} ${error.name}: ${error.message}`;
}

function show(value) {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return String(value);
  }
}

/** `{ok: true, value}` or `{ok: false, error}` once `promise` settles; throws when it has not within `ms`. */
async function settle(promise, ms, what) {
  let timer;
  try {
    return await Promise.race([
      Promise.resolve(promise).then((value) => ({ ok: true, value }), (error) => ({ ok: false, error })),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: did not settle within ${ms} ms (is the runtime wedged?)`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The value `promise` fulfils with within `ms`; throws a message naming `what` otherwise. */
async function settleOk(promise, ms, what) {
  const outcome = await settle(promise, ms, what);
  if (!outcome.ok) throw new Error(`${what}: rejected with ${describe(outcome.error)}`);
  return outcome.value;
}

/** Awaits a call that must reject with `errorClass` carrying the call's key; returns the error. */
async function rejectsWithKey(call, errorClass, what, ms = 10000) {
  const outcome = await settle(call, ms, what);
  if (outcome.ok) throw new Error(`${what}: expected a rejection with ${errorClass.name}, but it fulfilled with ${show(outcome.value)}`);
  const { error } = outcome;
  if (!(error instanceof errorClass)) throw new Error(`${what}: expected ${errorClass.name}, got ${describe(error)}`);
  equal(error.key, call.key, `${what}: error.key`);
  return error;
}

/** Runs `issue` (a call) and returns its ViewSetCall; a synchronous throw fails with a clear message. */
function issued(issue, what) {
  let call;
  try {
    call = issue();
  } catch (error) {
    throw new Error(`${what}: request() threw synchronously (${describe(error)}); it must return a rejecting ViewSetCall`);
  }
  ok(call && typeof call.then === 'function', `${what}: request() returned a promise`);
  ok(UUID_V4.test(call.key), `${what}: the call has its key at once (${call.key})`);
  return call;
}

/** Like `issued`, but records a problem instead of throwing; null when it threw. */
function issuedOrNote(issue, what, problems) {
  try {
    return issued(issue, what);
  } catch (error) {
    problems.push(error.message);
    return null;
  }
}

function finish(problems) {
  if (problems.length) throw new Error(problems.join('\n  '));
}

/** How many requests reached the backend's /items routes (every transport; CORS preflights left out). */
async function logLength(ctl) {
  return (await ctl.log()).filter((entry) => entry.method !== 'OPTIONS').length;
}

/** Notes in `problems` any request that reached the server since the log held `before` (after a pause for stragglers). */
async function noteRequestsSince(ctl, before, problems) {
  await sleep(200);
  const reached = (await logLength(ctl)) - before;
  if (reached !== 0) problems.push(`${reached} request(s) reached the server`);
}

const bytes = (n, seed = 7) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);

/** One fresh value per send of each body kind fetch accepts. */
const BODY_KINDS = {
  string: () => 'plain text ✓ ünïcödé \u{1F600}',
  Blob: () => new Blob(['blob text ', bytes(40)], { type: 'application/x-test-blob' }),
  File: () => new File(['file content\n', bytes(20)], 'note.bin', { type: 'application/x-test-file' }),
  ArrayBuffer: () => bytes(300).buffer,
  'Uint8Array (a view into a larger buffer)': () => new Uint8Array(bytes(64).buffer, 5, 40),
  'DataView (a window of a buffer)': () => new DataView(bytes(64).buffer, 3, 17),
  Float32Array: () => new Float32Array([1.5, -2.25, Math.PI, 1e-7]),
  URLSearchParams: () => new URLSearchParams({ a: '1', b: 'x y&z', c: 'ü' }),
  'FormData (a text field and a file field)': () => {
    const form = new FormData();
    form.append('text', 'a text field ✓');
    form.append('file', new File([bytes(50)], 'data.bin', { type: 'application/octet-stream' }));
    return form;
  },
};

/** Checks that `got` (the SDK's send) reports the same bytes and content type as `expected` (a raw fetch). */
function sameBodyAsFetch(got, expected, what) {
  ok(got && got.action === 'raw', `${what}: answered by the raw action (${show(got)})`);
  if (expected.multipart) {
    const type = String(got.content_type);
    ok(/^multipart\/form-data;\s*boundary=/i.test(type), `${what}: content type multipart/form-data with a boundary (got ${show(got.content_type)}, fetch sent ${show(expected.content_type)}; body began ${show(got.preview)})`);
    ok(got.multipart && got.multipart.framed, `${what}: the bytes are framed by the boundary of the content type (${show(got.multipart)})`);
    equal(got.multipart.length, expected.multipart.length, `${what}: length with the boundary substituted`);
    equal(got.multipart.sha256, expected.multipart.sha256, `${what}: sha256 with the boundary substituted`);
    return;
  }
  equal(got.content_type, expected.content_type, `${what}: content type (body began ${show(got.preview)})`);
  equal(got.length, expected.length, `${what}: length (body began ${show(got.preview)}, fetch sent ${show(expected.preview)})`);
  equal(got.sha256, expected.sha256, `${what}: sha256`);
}

/** HeadersInit forms of the headers `entries` ([name, value] pairs). */
const HEADER_FORMS = {
  'a Headers object': (entries) => new Headers(entries),
  'an array of pairs': (entries) => entries.map(([name, value]) => [name, value]),
  'a record': (entries) => Object.fromEntries(entries),
};

/** The headers an interceptor found, as pairs, whatever HeadersInit form they are in. */
const pairsOf = (headers) => [...new Headers(headers)];

/** Headers that a repeat must carry as the first attempt did, compared leaving out the key. */
function withoutKey(headers) {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'idempotency-key').sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The runtime works before a scenario's fault: a REST call settles. Otherwise an earlier scenario
 * wedged it, and this scenario cannot judge its own exception source (run it alone).
 */
async function runtimeAliveBefore({ pkg, baseUrl }) {
  const outcome = await settle(restApi(pkg, baseUrl).raw({ precondition: true }), 5000, 'precondition').catch(() => null);
  if (!outcome?.ok) {
    throw new Error(`precondition: a REST call before this scenario's fault ${outcome ? `rejected (${describe(outcome.error)})` : 'did not settle'} — an earlier scenario left the runtime wedged; run this one alone (--test-name-pattern)`);
  }
}

/** A later REST call and a later muxws call (on `peer`) both succeed. */
async function laterCallsSucceed({ pkg, baseUrl }, peer, after, problems) {
  const attempts = [['REST', () => restApi(pkg, baseUrl).raw({ after })]];
  if (peer) attempts.push(['muxws', () => muxApi(pkg, peer).raw({ after })]);
  for (const [transport, issue] of attempts) {
    const what = `a later ${transport} call (after ${after})`;
    const call = issuedOrNote(issue, what, problems);
    if (!call) continue;
    try {
      const outcome = await settle(call, 10000, what);
      if (!outcome.ok) problems.push(`${what} rejected: ${describe(outcome.error)}`);
      else if (outcome.value?.action !== 'raw') problems.push(`${what} answered ${show(outcome.value)}`);
    } catch (error) {
      problems.push(error.message);
    }
  }
}

/**
 * The call hit by an exception source settles: it either works or rejects with an error carrying its
 * key (`mustReject`: it must reject; `typeError`: a rejection must be a TypeError).
 */
async function endsAtMostItself(call, what, problems, { mustReject = false, typeError = false } = {}) {
  if (!call) return;
  let outcome;
  try {
    outcome = await settle(call, 10000, what);
  } catch (error) {
    problems.push(error.message);
    return;
  }
  if (outcome.ok) {
    if (mustReject) problems.push(`${what}: fulfilled with ${show(outcome.value)}, expected a rejection carrying its key`);
    return;
  }
  const { error } = outcome;
  if (!error || error.key !== call.key) problems.push(`${what}: rejected with ${describe(error)} whose key is ${show(error?.key)}, not the call's ${call.key}`);
  if (typeError && !(error instanceof TypeError)) problems.push(`${what}: expected a TypeError, got ${describe(error)}`);
}

// ------------------------------------------------------------------ a. each body kind arrives as fetch sends it

export const boundaryScenarios = {};

for (const [kind, make] of Object.entries(BODY_KINDS)) {
  boundaryScenarios[`boundary: a ${kind} body arrives byte for byte as a raw fetch sends it`] = async ({ pkg, baseUrl }) => {
    const expected = await rawFetch(pkg, baseUrl, make());
    const items = restApi(pkg, baseUrl);
    const call = issued(() => items.raw(make()), kind);
    const got = await settleOk(call, 10000, `the ${kind} call`);
    sameBodyAsFetch(got, expected, kind);
    same(got.idempotency_key, [`"${call.key}"`], `${kind}: the key on the wire`);
  };
}

// ------------------------------------------------------------------ b. a lost answer: the upload is repeated byte-identical

async function lostAnswerRepeated({ pkg, baseUrl, ctl }, kind, make) {
  const expected = await rawFetch(pkg, baseUrl, make());
  const items = restApi(pkg, baseUrl);
  const activity = recordActivity(pkg);
  try {
    // cut off after the backend ran it: response bytes arrived, so the browser does not send the
    // request again by itself (as Chromium does when a reused connection closes before any answer):
    // the second request the server sees is the package's repeat
    await ctl.fault('truncate_after', { count: 1, path: '/items/raw', method: 'POST' });
    const call = issued(() => items.raw(make()), kind);
    const outcome = await settle(call, 20000, `the ${kind} upload`);
    if (!outcome.ok) {
      // 422 idempotency_key_reused: the repeat's bytes differed from the first attempt's
      throw new Error(`the ${kind} upload rejected: ${describe(outcome.error)} ${show(outcome.error?.body ?? '')}`);
    }
    const answer = outcome.value;
    sameBodyAsFetch(answer, expected, kind);
    equal(await ctl.runsOf(call.key), 1, `${kind}: runs of the action`);
    const entries = await ctl.entriesOf(call.key);
    ok(entries.length >= 2, `${kind}: the repeat reached the server (${entries.length} request(s))`);
    ok(entries.every((entry) => entry.status === 200), `${kind}: every attempt was answered 200 — the repeat got the stored outcome, not 422 (${entries.map((e) => e.status)})`);
    equal(new Set(entries.map((entry) => entry.headers['content-type'])).size, 1, `${kind}: every attempt carried the same content type (${entries.map((e) => e.headers['content-type'])})`);
    const [retry] = activity.retriesOf(call.key);
    equal(retry?.ended, 'network-error', `${kind}: how the first attempt ended`);
  } finally {
    activity.stop();
    await ctl.clearFaults();
  }
}

boundaryScenarios['boundary: a FormData upload whose answer is lost is repeated with the same bytes: the stored outcome, ran once'] = (ctx) =>
  lostAnswerRepeated(ctx, 'FormData', BODY_KINDS['FormData (a text field and a file field)']);

boundaryScenarios['boundary: a Blob upload whose answer is lost is repeated with the same bytes: the stored outcome, ran once'] = (ctx) =>
  lostAnswerRepeated(ctx, 'Blob', BODY_KINDS.Blob);

// ------------------------------------------------------------------ c. bodies that cannot be sent

const readableStream = () =>
  new ReadableStream({
    start(controller) {
      controller.enqueue(new Uint8Array([1, 2, 3]));
      controller.close();
    },
  });

boundaryScenarios['boundary: no wedge — built-in actions given a pk whose toString throws, a query Proxy whose keys throw, options with a throwing getter, or a pk of "." or "..": never a synchronous throw; a TypeError carrying the key; nothing sent'] = async ({ pkg, baseUrl, ctl }) => {
  const before = await logLength(ctl);
  class Items extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {}
  const items = new Items({ basePath: '/items', baseUrl, schemaCheck: false });
  const problems = [];
  const cases = {
    'a pk whose toString throws': () => items.retrieve({ toString() { throw new Error('no text'); } }),
    'a query whose keys throw': () => items.list(new Proxy({}, { ownKeys() { throw new Error('no keys'); } })),
    'options with a throwing getter': () => items.create({ name: 'x' }, { get headers() { throw new Error('no headers'); } }),
    'a pk of ".."': () => items.destroy('..'),
    'a pk of "."': () => items.retrieve('.'),
  };
  for (const [what, make] of Object.entries(cases)) {
    try {
      await rejectsWithKey(issued(make, what), TypeError, what);
    } catch (error) {
      problems.push(error.message);
    }
  }
  await noteRequestsSince(ctl, before, problems);
  // and the options of actions without a body still arrive (retrieve(pk, options), list(params, options))
  const retrieved = items.retrieve('a b/c', { headers: { 'X-Trace': 'retrieve-options' } });
  const listed = items.list({ sort: 'id' }, { headers: { 'X-Trace': 'list-options' } });
  await Promise.allSettled([retrieved, listed]);
  equal((await ctl.entriesOf(retrieved.key))[0]?.headers['x-trace'], 'retrieve-options', "retrieve(pk, options): the options' header");
  equal((await ctl.entriesOf(listed.key))[0]?.headers['x-trace'], 'list-options', "list(params, options): the options' header");
  const odd = await retrieved.catch((error) => error);
  ok(odd instanceof pkg.HttpError && odd.status >= 400 && odd.status < 500, `a pk with a space and a slash still reaches the backend, as one segment (${odd?.status})`);
  finish(problems);
};

boundaryScenarios['boundary: a ReadableStream body rejects with a TypeError carrying the key; nothing is sent'] = async ({ pkg, baseUrl, ctl }) => {
  const before = await logLength(ctl);
  const items = restApi(pkg, baseUrl);
  const call = issued(() => items.raw(readableStream()), 'ReadableStream body');
  await rejectsWithKey(call, TypeError, 'a ReadableStream body');
  await sleep(200);
  equal(await logLength(ctl), before, 'requests that reached the server');
};

boundaryScenarios['boundary: a Map or Set at any depth of a JSON body (REST, muxws) or of a hello rejects with a TypeError naming where, not {} on the wire; nothing is sent'] = async ({ pkg, baseUrl, wsUrl, ctl }) => {
  const before = await logLength(ctl);
  const peer = await connect(pkg, wsUrl);
  const problems = [];
  try {
    const bodies = { 'a nested Set': { tags: new Set(['a']) }, 'a Map in an array': [{ index: new Map([[1, 2]]) }] };
    for (const [kind, body] of Object.entries(bodies)) {
      for (const [transport, items] of [['REST', restApi(pkg, baseUrl)], ['muxws', muxApi(pkg, peer)]]) {
        try {
          const call = issued(() => items.raw(body), `${transport}: ${kind}`);
          const error = await rejectsWithKey(call, TypeError, `${transport}: ${kind}`);
          ok(/would arrive as \{\}/.test(error.message) && /at "(tags|index)"/.test(error.message), `${transport}: the TypeError says where (${error.message})`);
        } catch (error) {
          problems.push(error.message);
        }
      }
    }
    await rejects(pkg.connectMuxws(wsUrl, { hello: { seen: new Set([1]) }, reconnect: false }), TypeError, 'a hello holding a Set');
    await noteRequestsSince(ctl, before, problems);
  } finally {
    await closePeer(peer);
  }
  finish(problems);
};

boundaryScenarios['boundary: over muxws a Blob, FormData or ReadableStream body rejects with a TypeError naming muxws; nothing is sent'] = async ({ pkg, wsUrl, ctl }) => {
  const peer = await connect(pkg, wsUrl);
  const problems = [];
  try {
    const before = await logLength(ctl);
    const items = muxApi(pkg, peer);
    const bodies = { Blob: BODY_KINDS.Blob, FormData: BODY_KINDS['FormData (a text field and a file field)'], ReadableStream: readableStream };
    for (const [kind, make] of Object.entries(bodies)) {
      try {
        const call = issued(() => items.raw(make()), `muxws ${kind} body`);
        const error = await rejectsWithKey(call, TypeError, `a ${kind} body over muxws`);
        ok(/muxws/i.test(error.message), `the TypeError of a ${kind} body names muxws (${error.message})`);
      } catch (error) {
        problems.push(error.message);
      }
    }
    await noteRequestsSince(ctl, before, problems);
  } finally {
    await closePeer(peer);
  }
  finish(problems);
};

// ------------------------------------------------------------------ d. every HeadersInit form

boundaryScenarios['boundary: headers on the call arrive in every HeadersInit form (REST)'] = async ({ pkg, baseUrl }) => {
  const items = restApi(pkg, baseUrl);
  const problems = [];
  for (const [form, make] of Object.entries(HEADER_FORMS)) {
    try {
      const value = `call ${form}`;
      const call = issued(() => items.raw({ form }, { headers: make([['X-Test-A', value], ['Authorization', `Bearer ${form.length}`]]) }), form);
      const answer = await settleOk(call, 10000, `a call with headers as ${form}`);
      equal(answer.headers['x-test-a'], value, `X-Test-A given as ${form}`);
      equal(answer.headers.authorization, `Bearer ${form.length}`, `Authorization given as ${form}`);
      same(answer.idempotency_key, [`"${call.key}"`], `the key beside headers given as ${form}`);
    } catch (error) {
      problems.push(error.message);
    }
  }
  finish(problems);
};

boundaryScenarios['boundary: headers on the proxy arrive in every HeadersInit form, under the call\'s (REST)'] = async ({ pkg, baseUrl }) => {
  const problems = [];
  for (const [form, make] of Object.entries(HEADER_FORMS)) {
    try {
      const items = restApi(pkg, baseUrl, { headers: make([['X-Test-B', `proxy ${form}`], ['X-Test-A', 'proxy, replaced by the call']]) });
      const call = issued(() => items.raw({ form }, { headers: { 'x-test-a': 'call' } }), form);
      const answer = await settleOk(call, 10000, `a call of a proxy with headers as ${form}`);
      equal(answer.headers['x-test-b'], `proxy ${form}`, `X-Test-B given to the proxy as ${form}`);
      equal(answer.headers['x-test-a'], 'call', `the call's X-Test-A over the proxy's (${form})`);
    } catch (error) {
      problems.push(error.message);
    }
  }
  finish(problems);
};

boundaryScenarios['boundary: headers set or returned by a request interceptor arrive in every HeadersInit form (REST)'] = async ({ pkg, baseUrl }) => {
  const problems = [];
  const interceptors = {};
  for (const [form, make] of Object.entries(HEADER_FORMS)) {
    interceptors[`set as ${form}`] = (request) => {
      request.headers = make([...pairsOf(request.headers), ['X-Test-C', `interceptor ${form}`]]);
    };
  }
  interceptors['returned as a new request with a Headers object'] = (request) => ({
    ...request,
    headers: new Headers([...pairsOf(request.headers), ['X-Test-C', 'interceptor returned']]),
  });
  for (const [how, interceptor] of Object.entries(interceptors)) {
    try {
      const items = restApi(pkg, baseUrl, { interceptors: [interceptor] });
      const call = issued(() => items.raw({ how }, { headers: new Headers({ 'X-Test-A': 'call' }) }), how);
      const answer = await settleOk(call, 10000, `an interceptor header ${how}`);
      ok(String(answer.headers['x-test-c']).startsWith('interceptor'), `the interceptor's X-Test-C ${how} arrived (${show(answer.headers['x-test-c'])})`);
      equal(answer.headers['x-test-a'], 'call', `the call's header kept by an interceptor ${how}`);
      same(answer.idempotency_key, [`"${call.key}"`], `the key after an interceptor ${how}`);
    } catch (error) {
      problems.push(error.message);
    }
  }
  finish(problems);
};

boundaryScenarios['boundary: headers on a muxws proxy and call arrive in every HeadersInit form'] = async ({ pkg, wsUrl }) => {
  const peer = await connect(pkg, wsUrl);
  const problems = [];
  try {
    for (const [form, make] of Object.entries(HEADER_FORMS)) {
      try {
        const items = muxApi(pkg, peer, { headers: make([['X-Test-B', `proxy ${form}`]]) });
        const call = issued(() => items.raw({ form }, { headers: make([['X-Test-A', `call ${form}`]]) }), `muxws ${form}`);
        const answer = await settleOk(call, 10000, `a muxws call with headers as ${form}`);
        equal(answer.headers['x-test-a'], `call ${form}`, `muxws call X-Test-A given as ${form}`);
        equal(answer.headers['x-test-b'], `proxy ${form}`, `muxws proxy X-Test-B given as ${form}`);
      } catch (error) {
        problems.push(error.message);
      }
    }
  } finally {
    await closePeer(peer);
  }
  finish(problems);
};

boundaryScenarios['boundary: a query of awkward characters arrives exactly as URLSearchParams encodes it (REST and muxws)'] = async ({ pkg, baseUrl, wsUrl }) => {
  // The SDK encodes a query object itself (it is faster than building a URLSearchParams per call);
  // what arrives must be the same bytes a URLSearchParams gives: space as '+', only letters, digits
  // and *-._ left as they are, non-ASCII as UTF-8, a lone surrogate as U+FFFD.
  const query = {
    'a b': "x y+z&=?#/:;,!'()~*-._",
    'ü€😀': ['Ünïcödé', 'lone \ud800 surrogate', 12.5, true, 0],
    empty: '',
    skipped: undefined,
    nothing: null,
    [String.fromCharCode(1, 127)]: '\t\n%20%',
  };
  const pairs = [];
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined && item !== null) pairs.push([name, String(item)]);
  }
  const expected = new URLSearchParams(pairs).toString();
  const given = new URLSearchParams([['given', 'as a URLSearchParams'], ['a b', 'c~d']]);
  const peer = await connect(pkg, wsUrl);
  const problems = [];
  try {
    for (const [transport, items] of [['REST', restApi(pkg, baseUrl)], ['muxws', muxApi(pkg, peer)]]) {
      try {
        const answer = await settleOk(issued(() => items.send('POST', '/raw', { query, body: { q: 1 } }), `${transport} query object`), 10000, `${transport}: a query object`);
        equal(answer.query, expected, `${transport}: the query string of a query object`);
        const again = await settleOk(issued(() => items.send('POST', '/raw', { query: given, body: { q: 2 } }), `${transport} URLSearchParams`), 10000, `${transport}: a URLSearchParams query`);
        equal(again.query, given.toString(), `${transport}: the query string of a URLSearchParams`);
      } catch (error) {
        problems.push(error.message);
      }
    }
  } finally {
    await closePeer(peer);
  }
  finish(problems);
};

boundaryScenarios['boundary: a caller\'s key of 10 000 characters goes out whole as the Idempotency-Key (REST)'] = async ({ pkg, baseUrl }) => {
  // The header value is built in the calls module and read back from its text window in slices.
  const key = Array.from({ length: 10_000 }, (_, i) => String.fromCharCode(0x21 + ((i * 7) % 94))).join('').replace(/["\\]/g, 'k');
  const call = restApi(pkg, baseUrl).raw({ long: true }, { key });
  ok(call.key === key, 'the call carries the key it was given');
  const answer = await settleOk(call, 10000, 'a call with a 10 000-character key');
  const arrived = answer.headers['idempotency-key'];
  ok(arrived === `"${key}"`, `the Idempotency-Key arrived whole (${arrived?.length} characters, expected ${key.length + 2})`);
};

boundaryScenarios['boundary: a bad header name or value rejects with a TypeError carrying the key; nothing is sent'] = async ({ pkg, baseUrl, ctl }) => {
  const bad = {
    'a name with a space': [['Bad Name', 'x']],
    'a value with a line break': [['X-Test-A', 'a\r\nb']],
    'a value outside Latin-1': [['X-Test-A', 'ā']],
  };
  const problems = [];
  const before = await logLength(ctl);
  for (const [what, entries] of Object.entries(bad)) {
    for (const [form, make] of Object.entries(HEADER_FORMS)) {
      if (form === 'a Headers object') continue; // the platform refuses to make one
      const label = `${what} on the call as ${form}`;
      try {
        const call = issued(() => restApi(pkg, baseUrl).raw({}, { headers: make(entries) }), label);
        await rejectsWithKey(call, TypeError, label);
      } catch (error) {
        problems.push(error.message);
      }
    }
    const onProxy = `${what} on the proxy`;
    try {
      let items;
      try {
        items = restApi(pkg, baseUrl, { headers: Object.fromEntries(entries) });
      } catch (error) {
        if (!(error instanceof TypeError)) throw new Error(`${onProxy}: the constructor threw ${describe(error)}, not a TypeError`);
      }
      if (items) await rejectsWithKey(issued(() => items.raw({}), onProxy), TypeError, onProxy);
    } catch (error) {
      problems.push(error.message);
    }
    const fromInterceptor = `${what} from an interceptor`;
    try {
      const items = restApi(pkg, baseUrl, {
        interceptors: [(request) => { request.headers = { ...Object.fromEntries(pairsOf(request.headers)), ...Object.fromEntries(entries) }; }],
      });
      await rejectsWithKey(issued(() => items.raw({}), fromInterceptor), TypeError, fromInterceptor);
    } catch (error) {
      problems.push(error.message);
    }
  }
  const pair = 'a pair of one item';
  try {
    await rejectsWithKey(issued(() => restApi(pkg, baseUrl).raw({}, { headers: [['X-Test-A']] }), pair), TypeError, pair);
  } catch (error) {
    problems.push(error.message);
  }
  await noteRequestsSince(ctl, before, problems);
  finish(problems);
};

// ------------------------------------------------------------------ e. the repeat carries the first attempt's headers

boundaryScenarios['boundary: REST — the first attempt dropped before the backend, the repeat carries its Accept and Content-Type exactly'] = async ({ pkg, baseUrl, ctl }) => {
  const items = restApi(pkg, baseUrl);
  const headers = { Accept: 'application/vnd.test+json', 'Content-Type': 'application/vnd.test+json', 'X-Test-A': 'first attempt' };
  const activity = recordActivity(pkg);
  const problems = [];
  try {
    // what the first attempt of such a call sends, seen on a call that is not faulted
    const reference = await settleOk(issued(() => items.raw({ probe: 1 }, { headers }), 'reference call'), 10000, 'the reference call');
    const cases = {
      'a JSON body with the caller\'s Accept and Content-Type': [{ probe: 1 }, headers, { accept: headers.Accept, 'content-type': headers['Content-Type'] }, reference],
      'a string body with the content type the platform derives': ['probe text', { Accept: 'application/vnd.test+json' }, { accept: 'application/vnd.test+json', 'content-type': 'text/plain;charset=UTF-8' }, null],
    };
    for (const [what, [body, given, expected, firstAttempt]] of Object.entries(cases)) {
      try {
        // count 2: were the browser to send the dropped request again by itself (Chromium does once, on a reused connection), that is dropped too, so the package sees the loss either way
        await ctl.fault('drop_before', { count: 2, path: '/items/raw', method: 'POST' });
        const call = issued(() => items.raw(body, { headers: given }), what);
        const answer = await settleOk(call, 15000, what);
        const entries = await ctl.entriesOf(call.key);
        equal(entries.length, 1, `${what}: the server saw only the repeat`);
        equal(activity.retriesOf(call.key)[0]?.ended, 'network-error', `${what}: the first attempt ended as`);
        for (const [name, value] of Object.entries(expected)) equal(answer.headers[name], value, `${what}: ${name} on the repeat`);
        if (firstAttempt) same(withoutKey(answer.headers), withoutKey(firstAttempt.headers), `${what}: every header of the repeat equals a first attempt's`);
      } catch (error) {
        problems.push(error.message);
      } finally {
        await ctl.clearFaults();
      }
    }
  } finally {
    activity.stop();
  }
  finish(problems);
};

boundaryScenarios['boundary: muxws — a repeat after a socket cut carries every header of the first stream, Accept and Content-Type included'] = async ({ pkg, wsUrl, ctl }) => {
  const peer = await connect(pkg, wsUrl);
  let trace = 'open interceptor 1';
  peer.interceptOpen((headers) => {
    headers['x-trace'] = trace;
  });
  const activity = recordActivity(pkg);
  try {
    const items = muxApi(pkg, peer);
    const headers = {
      accept: 'application/vnd.test+json',
      'content-type': 'application/vnd.test+json',
      authorization: 'Bearer mux',
      'x-test-a': 'first stream',
    };
    const call = issued(() => items.rawSlow({ cut: true }, 0.8, { headers }), 'muxws call');
    trace = 'open interceptor 2';
    await sleep(250);
    await ctl.killWs();
    const answer = await settleOk(call, 20000, 'the muxws call cut mid-call');
    equal(answer.action, 'raw', 'answered');
    equal(await ctl.runsOf(call.key), 1, 'runs');
    const entries = await ctl.entriesOf(call.key);
    ok(entries.length >= 2, `the repeat reached the server (${entries.length} stream(s))`);
    ok(activity.retriesOf(call.key).length >= 1, 'the call was repeated');
    for (const [name, value] of Object.entries({ ...headers, 'x-trace': 'open interceptor 1' })) {
      entries.forEach((entry, i) => equal(entry.headers[name], value, `${name} on stream ${i + 1} of ${entries.length}`));
    }
    entries.slice(1).forEach((entry, i) => same(withoutKey(entry.headers), withoutKey(entries[0].headers), `the headers of repeat ${i + 1} equal the first stream's`));
  } finally {
    activity.stop();
    await closePeer(peer);
  }
};

// ------------------------------------------------------------------ f. unusable answers

boundaryScenarios['boundary: a 200 application/json whose JSON is cut off rejects with InvalidResponseError (key, status, raw text); not repeated'] = async ({ pkg, baseUrl, ctl }) => {
  const items = restApi(pkg, baseUrl);
  const call = issued(() => items.cut(), 'cut JSON');
  const outcome = await settle(call, 10000, 'the cut-JSON call');
  if (outcome.ok) throw new Error(`a cut-off JSON answer resolved with ${show(outcome.value)} instead of rejecting`);
  const { error } = outcome;
  ok(typeof pkg.InvalidResponseError === 'function', `the package exports InvalidResponseError (the call rejected with ${describe(error)})`);
  ok(error instanceof pkg.InvalidResponseError, `an InvalidResponseError (got ${describe(error)})`);
  equal(error.key, call.key, 'error.key');
  equal(error.status, 200, 'error.status');
  equal(error.text, '{"cut": ', 'error.text: the raw text');
  equal(error.attempts, 1, 'error.attempts');
  equal((await ctl.entriesOf(call.key)).length, 1, 'requests with the key (not repeated)');
  equal(await ctl.runsOf(call.key), 1, 'runs');
};

// ------------------------------------------------------------------ h. memory

function memoryFigure(stats, field, what) {
  const value = stats?.[field];
  ok(typeof value === 'number' && Number.isFinite(value), `internalStats().${field} is a number ${what} (internalStats() is ${show(stats)})`);
  return value;
}

const mib = (n) => `${(n / MIB).toFixed(2)} MiB`;

boundaryScenarios['boundary: memory — a 10 MB REST upload and a 10 MB REST download grow the calls module\'s memory by < 1 MiB'] = async ({ pkg, baseUrl }) => {
  const before = pkg.internalStats();
  const items = restApi(pkg, baseUrl);
  // A page with a muxws proxy (as this file's other scenarios make) writes REST JSON bodies as the
  // backend writes a muxws payload (docs/transports.md): one made here, so the bytes are known.
  muxApi(pkg, () => new Promise(() => {}));
  const data = 'x'.repeat(TEN_MB);
  const up = await settleOk(issued(() => items.raw({ data }), 'upload'), 60000, 'the 10 MB REST upload');
  equal(up.length, TEN_MB + '{"data": ""}'.length, 'the server received the whole JSON body (as json.dumps writes it)');
  const down = await settleOk(issued(() => items.big(TEN_MB), 'download'), 60000, 'the 10 MB REST download');
  equal(down?.size, TEN_MB, 'the answer');
  ok(typeof down.fill === 'string' && down.fill.length > TEN_MB - 100, 'the whole answer');
  const after = pkg.internalStats();
  const start = memoryFigure(before, 'callsMemoryBytes', 'before');
  const end = memoryFigure(after, 'callsMemoryBytes', 'after');
  console.log(`[figure] REST 10 MB upload + 10 MB download: calls module memory ${mib(start)} -> ${mib(end)} (+${mib(end - start)}; budget < 1 MiB)`);
  ok(end - start < MIB, `the calls module's memory grew by ${mib(end - start)}, less than 1 MiB`);
};

boundaryScenarios['boundary: memory — a 10 MB muxws upload and a 10 MB muxws download grow the muxws module\'s memory by < 2 MiB'] = async ({ pkg, wsUrl }) => {
  const peer = await connect(pkg, wsUrl);
  try {
    const before = pkg.internalStats();
    const items = muxApi(pkg, peer);
    const data = 'x'.repeat(TEN_MB);
    const up = await settleOk(issued(() => items.raw({ data }), 'upload'), 60000, 'the 10 MB muxws upload');
    ok(up.length >= TEN_MB, `the server received the whole payload (${up.length} bytes re-encoded)`);
    const down = await settleOk(issued(() => items.big(TEN_MB), 'download'), 60000, 'the 10 MB muxws download');
    equal(down?.size, TEN_MB, 'the answer');
    ok(typeof down.fill === 'string' && down.fill.length > TEN_MB - 100, 'the whole answer');
    const after = pkg.internalStats();
    const start = memoryFigure(before, 'muxwsMemoryBytes', 'before');
    const end = memoryFigure(after, 'muxwsMemoryBytes', 'after');
    ok(start > 0, 'muxwsMemoryBytes is the loaded module\'s memory once connectMuxws loaded it');
    console.log(`[figure] muxws 10 MB upload + 10 MB download: muxws module memory ${mib(start)} -> ${mib(end)} (+${mib(end - start)}; budget < 2 MiB)`);
    ok(end - start < 2 * MIB, `the muxws module's memory grew by ${mib(end - start)}, less than 2 MiB`);
  } finally {
    await closePeer(peer);
  }
};

// ------------------------------------------------------------------ g. exception sources end at most their own call

boundaryScenarios['boundary: no wedge — an activity listener throws while console.error throws'] = async (ctx) => {
  const { pkg, baseUrl, wsUrl } = ctx;
  await runtimeAliveBefore(ctx);
  const problems = [];
  const peer = await connectOrNote(pkg, wsUrl, problems);
  try {
    const stopListener = pkg.onCallActivity(() => {
      throw new Error('listener failure (expected by the test)');
    });
    const realError = console.error;
    console.error = () => {
      throw new Error('console.error failure (expected by the test)');
    };
    try {
      await endsAtMostItself(issuedOrNote(() => restApi(pkg, baseUrl).raw({ g: 'listener' }), 'a REST call seen by the listener', problems), 'a REST call seen by the throwing listener', problems);
      if (peer) await endsAtMostItself(issuedOrNote(() => muxApi(pkg, peer).raw({ g: 'listener' }), 'a muxws call seen by the listener', problems), 'a muxws call seen by the throwing listener', problems);
    } finally {
      console.error = realError;
      stopListener();
    }
    await laterCallsSucceed(ctx, peer, 'the throwing listener and console.error', problems);
  } finally {
    await closePeer(peer);
  }
  finish(problems);
};

boundaryScenarios['boundary: no wedge — fetch throws synchronously: the call rejects with its key'] = async (ctx) => {
  const { pkg, baseUrl, wsUrl } = ctx;
  await runtimeAliveBefore(ctx);
  const problems = [];
  const peer = await connectOrNote(pkg, wsUrl, problems);
  try {
    const realFetch = globalThis.fetch;
    globalThis.fetch = function throwingFetch() {
      throw new Error('fetch failure (expected by the test)');
    };
    try {
      const items = restApi(pkg, baseUrl, { repeat: { withinMs: 1500, delayMs: 100 } });
      await endsAtMostItself(issuedOrNote(() => items.raw({ g: 'fetch throws' }), 'a call whose fetch throws', problems), 'a call whose fetch throws synchronously', problems, { mustReject: true });
    } finally {
      globalThis.fetch = realFetch;
    }
    await laterCallsSucceed(ctx, peer, 'a synchronously throwing fetch', problems);
  } finally {
    await closePeer(peer);
  }
  finish(problems);
};

boundaryScenarios['boundary: no wedge — fetch resolves to something that is not a Response: the call rejects with its key'] = async (ctx) => {
  const { pkg, baseUrl, wsUrl } = ctx;
  await runtimeAliveBefore(ctx);
  const problems = [];
  const peer = await connectOrNote(pkg, wsUrl, problems);
  try {
    const realFetch = globalThis.fetch;
    globalThis.fetch = async function notAResponse() {
      return { ok: true, status: 200, note: 'not a Response' };
    };
    try {
      const items = restApi(pkg, baseUrl, { repeat: { withinMs: 1500, delayMs: 100 } });
      await endsAtMostItself(issuedOrNote(() => items.raw({ g: 'not a Response' }), 'a call whose fetch resolves to a non-Response', problems), 'a call whose fetch resolves to a non-Response', problems, { mustReject: true });
    } finally {
      globalThis.fetch = realFetch;
    }
    await laterCallsSucceed(ctx, peer, 'a fetch resolving to a non-Response', problems);
  } finally {
    await closePeer(peer);
  }
  finish(problems);
};

const throwingToString = () => ({
  toString() {
    throw new Error('toString failure (expected by the test)');
  },
});

boundaryScenarios['boundary: no wedge — an interceptor sets a header whose toString throws (muxws open interceptor, REST request interceptor)'] = async (ctx) => {
  const { pkg, baseUrl, wsUrl } = ctx;
  await runtimeAliveBefore(ctx);
  const problems = [];
  const peer = await connectOrNote(pkg, wsUrl, problems);
  try {
    if (peer) {
      const remove = peer.interceptOpen((headers) => {
        headers['x-test-a'] = throwingToString();
      });
      try {
        await endsAtMostItself(issuedOrNote(() => muxApi(pkg, peer).raw({ g: 'open interceptor' }), 'a muxws call through the open interceptor', problems), 'a muxws call whose open interceptor sets a throwing header', problems);
      } finally {
        remove();
      }
    }
    const items = restApi(pkg, baseUrl, {
      interceptors: [(request) => { request.headers = { ...Object.fromEntries(pairsOf(request.headers)), 'X-Test-C': throwingToString() }; }],
    });
    await endsAtMostItself(issuedOrNote(() => items.raw({ g: 'request interceptor' }), 'a REST call through the interceptor', problems), 'a REST call whose interceptor sets a throwing header', problems);
    await laterCallsSucceed(ctx, peer, 'an interceptor header whose toString throws', problems);
  } finally {
    await closePeer(peer);
  }
  finish(problems);
};

boundaryScenarios['boundary: no wedge — a throwing getter on the headers given to a call (REST and muxws)'] = async (ctx) => {
  const { pkg, baseUrl, wsUrl } = ctx;
  await runtimeAliveBefore(ctx);
  const problems = [];
  const peer = await connectOrNote(pkg, wsUrl, problems);
  const headers = () => Object.defineProperty({ 'X-Test-B': 'fine' }, 'X-Test-A', {
    enumerable: true,
    get() {
      throw new Error('getter failure (expected by the test)');
    },
  });
  try {
    await endsAtMostItself(issuedOrNote(() => restApi(pkg, baseUrl).raw({ g: 'getter' }, { headers: headers() }), 'a REST call with a throwing header getter', problems), 'a REST call with a throwing header getter', problems, { mustReject: true });
    if (peer) await endsAtMostItself(issuedOrNote(() => muxApi(pkg, peer).raw({ g: 'getter' }, { headers: headers() }), 'a muxws call with a throwing header getter', problems), 'a muxws call with a throwing header getter', problems, { mustReject: true });
    await laterCallsSucceed(ctx, peer, 'a throwing header getter', problems);
  } finally {
    await closePeer(peer);
  }
  finish(problems);
};

boundaryScenarios['boundary: no wedge — the WebSocket constructor throws while a peer connects and while another reconnects'] = async (ctx) => {
  const { pkg, wsUrl, ctl } = ctx;
  await runtimeAliveBefore(ctx);
  const problems = [];
  const peer = await connectOrNote(pkg, wsUrl, problems);
  const RealWebSocket = globalThis.WebSocket;
  try {
    globalThis.WebSocket = function ThrowingWebSocket() {
      throw new Error('WebSocket constructor failure (expected by the test)');
    };
    try {
      let connecting = null;
      try {
        connecting = pkg.connectMuxws(wsUrl, { reconnect: false });
      } catch (error) {
        problems.push(`connectMuxws threw synchronously: ${describe(error)}`);
      }
      if (connecting) {
        const outcome = await settle(connecting, 10000, 'connectMuxws while the WebSocket constructor throws').catch((error) => {
          problems.push(error.message);
          return null;
        });
        if (outcome?.ok) await closePeer(outcome.value); // the constructor was taken before it was replaced: no harm either
      }
      // the existing peer loses its socket and tries to reconnect while the constructor throws
      if (peer) {
        await ctl.killWs();
        await sleep(600);
      }
    } finally {
      globalThis.WebSocket = RealWebSocket;
    }
    await laterCallsSucceed(ctx, peer, 'a throwing WebSocket constructor', problems);
    try {
      const fresh = await connect(pkg, wsUrl);
      try {
        const answer = await settleOk(issued(() => muxApi(pkg, fresh).raw({ fresh: true }), 'a new peer'), 10000, 'a call on a new peer');
        equal(answer.action, 'raw', 'a call on a new peer');
      } finally {
        await closePeer(fresh);
      }
    } catch (error) {
      problems.push(`a new peer afterwards: ${error.message}`);
    }
  } finally {
    globalThis.WebSocket = RealWebSocket;
    await closePeer(peer);
  }
  finish(problems);
};

boundaryScenarios['boundary: no wedge — odd values (null-prototype object, Proxy, throwing toString) in query or headers: never a synchronous throw; works or rejects with a TypeError carrying the key'] = async (ctx) => {
  const { pkg, baseUrl, wsUrl } = ctx;
  await runtimeAliveBefore(ctx);
  const problems = [];
  const peer = await connectOrNote(pkg, wsUrl, problems);
  const nullProto = (entries) => Object.assign(Object.create(null), entries);
  const cases = {
    'a null-prototype query': { query: nullProto({ odd: 'null-proto' }), arrived: (answer) => answer.query === 'odd=null-proto' },
    'a Proxy as the query': { query: new Proxy({ odd: 'proxied' }, {}), arrived: (answer) => answer.query === 'odd=proxied' },
    'a query value whose toString throws': { query: { odd: throwingToString() } },
    'null-prototype headers': { headers: nullProto({ 'X-Test-A': 'null-proto' }), arrived: (answer) => answer.headers['x-test-a'] === 'null-proto' },
    'a Proxy as the headers': { headers: new Proxy({ 'X-Test-A': 'proxied' }, {}), arrived: (answer) => answer.headers['x-test-a'] === 'proxied' },
    'a header value whose toString throws': { headers: { 'X-Test-A': throwingToString() } },
  };
  try {
    const transports = [['REST', restApi(pkg, baseUrl)], ...(peer ? [['muxws', muxApi(pkg, peer)]] : [])];
    for (const [transport, items] of transports) {
      for (const [what, { query, headers, arrived }] of Object.entries(cases)) {
        const label = `${transport}: ${what}`;
        const call = issuedOrNote(() => items.send('POST', '/raw', { query, headers, body: { odd: what } }), label, problems);
        if (!call) continue;
        try {
          const outcome = await settle(call, 10000, label);
          if (outcome.ok) {
            if (arrived && !arrived(outcome.value)) problems.push(`${label}: worked but the value did not arrive as given (query ${show(outcome.value.query)}, x-test-a ${show(outcome.value.headers?.['x-test-a'])})`);
          } else if (!(outcome.error instanceof TypeError) || outcome.error.key !== call.key) {
            problems.push(`${label}: rejected with ${describe(outcome.error)} (key ${show(outcome.error?.key)}), expected a TypeError carrying the key`);
          }
        } catch (error) {
          problems.push(error.message);
        }
      }
    }
    await laterCallsSucceed(ctx, peer, 'odd values', problems);
  } finally {
    await closePeer(peer);
  }
  finish(problems);
};
