// The benchmark's pages and the peers it compares the package with: raw fetch, axios and ky.
//
// One static server (127.0.0.1, a port of its own: another origin than the backend's) serves the
// package, the small baseline module, axios's browser ESM build and ky bundled into one module,
// with cache-control: no-store and cross-origin isolation (COOP + COEP, which gives performance.now()
// microseconds). A page on the backend's own origin is made by Playwright routes: the browser
// context answers the page and its modules under `${backend}${SAME_ORIGIN_PREFIX}/` from the same
// files, the page imports them, and the routes are removed before anything is measured, so every
// measured call goes from the browser to the backend itself.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { rolldown } from 'rolldown';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVED = ['pkg/', 'tests/e2e/', 'tests/browser/', 'node_modules/axios/dist/esm/', 'node_modules/@vue/reactivity/dist/'];
const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.json': 'application/json' };
const ISOLATION = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };

/** Paths of the modules in a page (relative to the page's origin, before any prefix). */
export const PEER_MODULES = {
  pkg: '/pkg/index.js',
  // axios's browser ESM build as npm ships it, unminified like pkg/index.js
  axios: '/node_modules/axios/dist/esm/axios.js',
  // ky ships one file per TypeScript module; bundled (not minified) into one, as an app's bundler would
  ky: '/bench/ky.js',
};
export const PAGE = '/bench/page.html';
/** Where the page on the backend's origin and its modules are routed. */
export const SAME_ORIGIN_PREFIX = '/__bench';

/** ky's distribution bundled into one ES module, in memory. */
export async function bundleKy() {
  const bundle = await rolldown({ input: path.join(repoRoot, 'node_modules', 'ky', 'distribution', 'index.js'), logLevel: 'silent' });
  try {
    const { output } = await bundle.generate({ format: 'esm' });
    const chunks = output.filter((item) => item.type === 'chunk');
    if (chunks.length !== 1) throw new Error(`ky bundled into ${chunks.length} chunks, not one`);
    return chunks[0].code;
  } finally {
    await bundle.close();
  }
}

/** What the bench's pages may load: { type, file } or { type, body }, or null. */
function resolve(pathname, kyCode) {
  if (pathname === PAGE) return { type: 'text/html', body: '<!doctype html><meta charset="utf-8"><title>bench</title>' };
  if (pathname === PEER_MODULES.ky) return { type: 'text/javascript', body: kyCode };
  const relative = decodeURIComponent(pathname).replace(/^\/+/, '');
  const file = path.join(repoRoot, relative);
  if (!SERVED.some((prefix) => relative.startsWith(prefix)) || !file.startsWith(repoRoot) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return null;
  return { type: TYPES[path.extname(file)] ?? 'application/octet-stream', file };
}

/** The static server of the bench's pages, on a free 127.0.0.1 port. */
export async function serveBench({ kyCode }) {
  const server = http.createServer((request, response) => {
    const found = resolve(new URL(request.url, 'http://x').pathname, kyCode);
    if (!found) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': found.type, 'cache-control': 'no-store', ...ISOLATION });
    if (found.body !== undefined) response.end(found.body);
    else fs.createReadStream(found.file).pipe(response);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((done) => server.close(done)),
  };
}

/**
 * A page on `origin` (the backend's) in a fresh context of `browser`: the page and the modules come
 * from Playwright routes, are imported, and the routes are removed; resolves to { context, page, prefix }.
 */
export async function pageOnOrigin(browser, origin, { kyCode }) {
  const context = await browser.newContext();
  await context.route(`${origin}${SAME_ORIGIN_PREFIX}/**`, async (route) => {
    const found = resolve(new URL(route.request().url()).pathname.slice(SAME_ORIGIN_PREFIX.length), kyCode);
    if (!found) return route.fulfill({ status: 404, body: 'not found' });
    await route.fulfill({ status: 200, headers: { 'content-type': found.type, 'cache-control': 'no-store', ...ISOLATION }, body: found.body ?? fs.readFileSync(found.file) });
  });
  const page = await context.newPage();
  await page.goto(`${origin}${SAME_ORIGIN_PREFIX}${PAGE}`);
  await page.evaluate((urls) => Promise.all(urls.map((url) => import(url))), Object.values(PEER_MODULES).map((url) => `${SAME_ORIGIN_PREFIX}${url}`));
  await context.unrouteAll({ behavior: 'wait' });
  return { context, page, prefix: SAME_ORIGIN_PREFIX };
}

/** A page of the bench's static server (another origin than the backend's) in a fresh context. */
export async function pageOnSite(browser, siteUrl) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${siteUrl}${PAGE}`);
  await page.evaluate((urls) => Promise.all(urls.map((url) => import(url))), Object.values(PEER_MODULES));
  return { context, page, prefix: '' };
}

// ------------------------------------------------------------------ in a page (serialised: self-contained)
/**
 * Makes the calls of every kind in the page, on `globalThis.benchPeers`: one GET (`/items/tick?sleep=0`)
 * and one POST with a JSON body (`/items/slow?sleep=0`) by raw fetch, raw fetch with the SDK's
 * Idempotency-Key, axios, ky and the SDK; then `warmup` calls of each. The modules are imported already.
 */
export async function peersSetupInPage({ baseUrl, prefix, modules, warmup }) {
  const [pkg, { default: axios }, { default: ky }] = await Promise.all([modules.pkg, modules.axios, modules.ky].map((url) => import(`${prefix}${url}`)));
  class Rest extends pkg.restViewSet()('id', []) {}
  const rest = new Rest({ basePath: '/items', baseUrl, schemaCheck: false });
  const getUrl = `${baseUrl}/items/tick?sleep=0`;
  const postUrl = `${baseUrl}/items/slow?sleep=0`;
  const key = () => `"${crypto.randomUUID()}"`;
  const json = async (response) => {
    if (!response.ok) throw new Error(`raw fetch answered ${response.status}`);
    return response.json();
  };
  const jsonType = { 'Content-Type': 'application/json' };
  const kinds = {
    GET: {
      raw: () => fetch(getUrl).then(json),
      rawKey: () => fetch(getUrl, { headers: { 'Idempotency-Key': key() } }).then(json),
      axios: () => axios.get(getUrl).then((response) => response.data),
      ky: () => ky.get(getUrl).json(),
      sdk: () => rest.request('GET', '/tick', { query: { sleep: 0 } }),
    },
    POST: {
      raw: (note) => fetch(postUrl, { method: 'POST', headers: jsonType, body: JSON.stringify({ note }) }).then(json),
      rawKey: (note) => fetch(postUrl, { method: 'POST', headers: { ...jsonType, 'Idempotency-Key': key() }, body: JSON.stringify({ note }) }).then(json),
      axios: (note) => axios.post(postUrl, { note }).then((response) => response.data),
      ky: (note) => ky.post(postUrl, { json: { note } }).json(),
      sdk: (note) => rest.request('POST', '/slow', { query: { sleep: 0 }, body: { note } }),
    },
  };
  const check = (method, answer, note) => {
    if (method === 'GET' ? answer?.action !== 'tick' : answer?.note !== note) throw new Error(`wrong answer ${JSON.stringify(answer)} to ${method} ${note}`);
  };
  globalThis.benchPeers = { kinds, check };
  for (const [method, calls] of Object.entries(kinds)) {
    for (let i = 0; i < warmup; i += 1) for (const kind of Object.keys(calls)) check(method, await calls[kind](`warm ${i}`), `warm ${i}`);
  }
  return { origin: location.origin, isolated: globalThis.crossOriginIsolated === true };
}

/** `n` sequential calls of each kind, GETs then POSTs, interleaved call by call (who goes first rotates); latencies by method and kind. */
export async function peersBlockInPage({ n, from }) {
  const { kinds, check } = globalThis.benchPeers;
  const latency = {};
  for (const [method, calls] of Object.entries(kinds)) {
    const order = Object.keys(calls);
    latency[method] = Object.fromEntries(order.map((kind) => [kind, []]));
    for (let i = from; i < from + n; i += 1) {
      for (let j = 0; j < order.length; j += 1) {
        const kind = order[(i + j) % order.length];
        const note = `seq ${i}`;
        const t0 = performance.now();
        const answer = await calls[kind](note);
        latency[method][kind].push(performance.now() - t0);
        check(method, answer, note);
      }
    }
  }
  return latency;
}

/** `count` GETs, then `count` POSTs, of one kind, for the preflights they cause; in a fresh context. */
export async function preflightProbeInPage({ baseUrl, prefix, modules, kind, count }) {
  const [pkg, { default: axios }, { default: ky }] = await Promise.all([modules.pkg, modules.axios, modules.ky].map((url) => import(`${prefix}${url}`)));
  class Rest extends pkg.restViewSet()('id', []) {}
  const rest = new Rest({ basePath: '/items', baseUrl, schemaCheck: false });
  const getUrl = `${baseUrl}/items/tick?sleep=0`;
  const postUrl = `${baseUrl}/items/slow?sleep=0`;
  const key = () => `"${crypto.randomUUID()}"`;
  const ok = (response) => {
    if (!response.ok) throw new Error(`raw fetch answered ${response.status}`);
    return response.json();
  };
  const json_ = { 'Content-Type': 'application/json' };
  const calls = {
    GET: {
      raw: () => fetch(getUrl).then(ok),
      rawKey: () => fetch(getUrl, { headers: { 'Idempotency-Key': key() } }).then(ok),
      axios: () => axios.get(getUrl),
      ky: () => ky.get(getUrl).json(),
      sdk: () => rest.request('GET', '/tick', { query: { sleep: 0 } }),
    },
    POST: {
      raw: () => fetch(postUrl, { method: 'POST', headers: json_, body: '{"note":"probe"}' }).then(ok),
      rawKey: () => fetch(postUrl, { method: 'POST', headers: { ...json_, 'Idempotency-Key': key() }, body: '{"note":"probe"}' }).then(ok),
      axios: () => axios.post(postUrl, { note: 'probe' }),
      ky: () => ky.post(postUrl, { json: { note: 'probe' } }).json(),
      sdk: () => rest.request('POST', '/slow', { query: { sleep: 0 }, body: { note: 'probe' } }),
    },
  };
  for (const method of ['GET', 'POST']) for (let i = 0; i < count; i += 1) await calls[method][kind]();
}

/** Time from the start of the import of a peer (axios or ky) until its default export can make a call, and until a first call is issued. */
export async function importPeerInPage(url) {
  const t0 = performance.now();
  const { default: client } = await import(url);
  const ready = performance.now() - t0;
  if (typeof client?.get !== 'function') throw new Error(`${url} has no get()`);
  const call = client.get(`${location.origin}/nowhere`);
  const firstCall = performance.now() - t0;
  await Promise.resolve(call).catch(() => {});
  return { ready, firstCall };
}

// ------------------------------------------------------------------ preflights, from the backend's access log
/** Requests of `method` in uvicorn's access log (`logFile`), by path and query. */
export function optionsCounts(logFile, method = 'OPTIONS') {
  const counts = {};
  const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
  for (const match of text.matchAll(new RegExp(`"${method} (\\S+) HTTP/[\\d.]+"`, 'g'))) counts[match[1]] = (counts[match[1]] ?? 0) + 1;
  return counts;
}

/** The `method` requests added to `logFile` since `before` (an optionsCounts() result), by path and query; waits for the log to settle. */
export async function optionsSince(logFile, before, method = 'OPTIONS') {
  let last = null;
  for (let i = 0; i < 20; i += 1) {
    await new Promise((done) => setTimeout(done, 50));
    const now = optionsCounts(logFile, method);
    const added = Object.fromEntries(Object.entries(now).map(([where, n]) => [where, n - (before[where] ?? 0)]).filter(([, n]) => n > 0));
    if (last !== null && JSON.stringify(added) === JSON.stringify(last) && i >= 3) return added;
    last = added;
  }
  return last;
}

// ------------------------------------------------------------------ the measurement
export const PEER_KINDS = ['raw', 'rawKey', 'axios', 'ky', 'sdk'];

/**
 * Latency of GET and POST by every kind in a page on the backend's origin and in a page of the
 * bench's static server (cross-origin), the two pages taking turns in `rounds` blocks (who goes first
 * alternates) so that drift hits both alike; and the preflights each kind causes: `probe` GETs and
 * `probe` POSTs of one kind in a fresh context each, counted as OPTIONS requests in the backend's
 * access log (`accessLog`), and the OPTIONS requests during the measured calls of each page.
 */
export async function measurePeers({ browser, backendUrl, siteUrl, kyCode, accessLog, nSeq, rounds, warmup, probe, log }) {
  const out = { nSeq, warmup, probe, rounds, pages: {}, preflights: {} };
  const opens = {
    same: () => pageOnOrigin(browser, backendUrl, { kyCode }),
    cross: () => pageOnSite(browser, siteUrl),
  };
  const where = { same: "on the backend's origin", cross: 'on another origin' };
  for (const [page, open] of Object.entries(opens)) {
    log(`peers, page ${where[page]}: preflights of ${probe} GETs and ${probe} POSTs of each kind (${PEER_KINDS.join(', ')}) in a fresh context`);
    out.preflights[page] = {};
    for (const kind of PEER_KINDS) {
      const opened = await open();
      const before = optionsCounts(accessLog);
      const getsBefore = optionsCounts(accessLog, 'GET');
      await opened.page.evaluate(preflightProbeInPage, { baseUrl: backendUrl, prefix: opened.prefix, modules: PEER_MODULES, kind, count: probe });
      const added = await optionsSince(accessLog, before);
      // the access log must show the calls themselves, or a count of 0 preflights would mean nothing
      const gets = (await optionsSince(accessLog, getsBefore, 'GET'))['/items/tick?sleep=0'] ?? 0;
      if (gets < probe) throw new Error(`the backend's access log (${accessLog}) shows ${gets} of the ${probe} GETs: preflights cannot be counted from it`);
      await opened.context.close();
      out.preflights[page][kind] = { GET: added['/items/tick?sleep=0'] ?? 0, POST: added['/items/slow?sleep=0'] ?? 0, other: Object.entries(added).filter(([at]) => !at.startsWith('/items/tick?') && !at.startsWith('/items/slow?')) };
    }
  }
  log(`peers: ${nSeq} sequential GETs and POSTs of each kind in each page, interleaved, in ${rounds} blocks per page, the pages taking turns`);
  const opened = {};
  const optionsBefore = {};
  const pages = Object.keys(opens);
  try {
    for (const page of pages) {
      opened[page] = await opens[page]();
      optionsBefore[page] = optionsCounts(accessLog);
      out.pages[page] = await opened[page].page.evaluate(peersSetupInPage, { baseUrl: backendUrl, prefix: opened[page].prefix, modules: PEER_MODULES, warmup });
      out.pages[page].options = await optionsSince(accessLog, optionsBefore[page]);
      out.pages[page].latency = Object.fromEntries(['GET', 'POST'].map((method) => [method, Object.fromEntries(PEER_KINDS.map((kind) => [kind, []]))]));
    }
    if (out.pages.same.origin !== new URL(backendUrl).origin || out.pages.cross.origin === new URL(backendUrl).origin) {
      throw new Error(`the pages are on ${out.pages.same.origin} and ${out.pages.cross.origin}; the backend on ${backendUrl}`);
    }
    const sum = (counts) => Object.values(counts).reduce((a, b) => a + b, 0);
    out.warmupOptions = Object.fromEntries(pages.map((page) => [page, sum(out.pages[page].options)]));
    for (let round = 0; round < rounds; round += 1) {
      const n = Math.floor(nSeq / rounds) + (round < nSeq % rounds ? 1 : 0);
      const from = round * Math.floor(nSeq / rounds) + Math.min(round, nSeq % rounds);
      for (let k = 0; k < pages.length; k += 1) {
        const page = pages[(round + k) % pages.length];
        const before = optionsCounts(accessLog);
        const latency = await opened[page].page.evaluate(peersBlockInPage, { n, from });
        out.pages[page].measuredOptions = (out.pages[page].measuredOptions ?? 0) + sum(await optionsSince(accessLog, before));
        for (const method of Object.keys(latency)) for (const kind of Object.keys(latency[method])) out.pages[page].latency[method][kind].push(...latency[method][kind]);
      }
    }
  } finally {
    for (const page of pages) await opened[page]?.context.close();
  }
  return out;
}
