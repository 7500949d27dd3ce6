// Benchmarks of @dynamicforms/fastapi-viewsets: each number is measured side by side with its baseline
// in the same run and printed as a ratio. Nothing is asserted; goals are shown next to the results.
//
//   node --experimental-websocket bench/run.mjs [--quick] [--no-write] [--only live]
//
//   --quick      small counts (a smoke run of the script itself; numbers not meaningful)
//   --no-write   print only; by default the table is also written to BENCHMARKS.md
//   --only live  the live-data section alone (bench/live.mjs), printed only: BENCHMARKS.md is left as it is
//   --only live-list  the live lists' section alone (bench/live.mjs, measureLiveList), printed only
//   --only apply-changes  applyChanges() of many records alone (bench/apply-changes.mjs), printed only
//   --only pages  live lists bigger than a page alone (bench/pages.mjs: loadMore() vs listCursor(), memory), printed only
//
// What it measures (the package as built in pkg/; rebuild with `bash scripts/build.sh`):
//   size         what an app ships, gzip -9 as a bundler emits it (scripts/size.mjs: the whole
//                package, an app that uses REST only, and that app following its list with
//                watch()), and the wasm modules' code by crate (from cargo's output, which still
//                has function names)
//   memory       the wasm modules' memory after 10 MB bodies each way (REST and muxws), Chromium
//   decoding     muxws-proto's decoding of 1 KiB vs 1 MiB messages per JSON shape (cargo, release)
//   dead socket  how long a muxws peer takes to find a silent socket dead (fault proxy: silence)
//   REST         headless Chromium against the local backend directly (no fault proxy): median latency
//                of sequential calls through the SDK vs raw fetch of the same URL with the same headers,
//                and the wall time of concurrent calls; the same in Node 20
//   muxws        the same call over one muxws socket vs REST through the SDK, sequential and concurrent
//   pending      pendingCalls() and pendingCallCount() with 10 000 calls pending against a local
//                server that accepts connections and never answers
//   instantiate  import of the package until it is ready, and until a first call is issued: fresh
//                Chromium contexts and fresh Node processes; axios and ky the same in Chromium
//   peers        raw fetch, axios, ky and the SDK side by side (bench/peers.mjs): latency of a GET
//                and of a POST with a JSON body, in a page on the backend's own origin and in a page
//                on another origin (CORS), and the CORS preflights each sends (the backend's log)
//   live         live data (bench/live.mjs): publish → onEvent of events pushed over a muxws peer vs
//                REST polling at its default interval, Chromium and Node; and what one followed topic
//                costs while nothing happens: requests per minute over REST, frames per minute over
//                muxws, counted on the wire over a window (60 s; 5 s with --quick) per minute
//   applyChanges applyChanges() of 10 000 pks (bench/apply-changes.mjs): by `{pk}__in` list calls vs
//                10 000 retrieves vs one list call of every record, Node
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

import { chromium } from 'playwright-core';

import { CHROMIUM_ARGS } from '../tests/browser/browser.mjs';
import { startStack } from '../tests/harness/stack.mjs';
import { measureApplyChanges, renderApplyChanges } from './apply-changes.mjs';
import { measureLive, measureLiveList, renderLive, renderLiveList } from './live.mjs';
import { measurePages, renderPages } from './pages.mjs';
import { median, ms, quantile, ratio } from './stats.mjs';
import { PEER_KINDS, PEER_MODULES, bundleKy, importPeerInPage, measurePeers, serveBench } from './peers.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const ONLY = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
if (ONLY !== null && !['live', 'live-list', 'apply-changes', 'pages'].includes(ONLY)) throw new Error(`--only takes live, live-list, apply-changes or pages, not ${ONLY}`);
const WRITE = !args.includes('--no-write') && !ONLY;
const COMMAND = `node --experimental-websocket bench/run.mjs${QUICK ? ' --quick' : ''}${ONLY ? ` --only ${ONLY}` : ''}`;

const N_SEQ = QUICK ? 100 : 2000; // sequential calls of each kind
const N_CONC = QUICK ? 100 : 1000; // concurrent calls in one burst
const ROUNDS = QUICK ? 2 : 5; // bursts of each kind
const WARMUP = QUICK ? 20 : 100;
const N_PENDING = QUICK ? 1000 : 10_000;
// Fresh pages / processes for the instantiate time. 30, not 10: the small-module baseline of a
// fresh context spreads from 7 to 22 ms (40 pairs: p25 9.1, median 9.9, p75 13.3 ms), so medians of
// 10 put the same build at 1.30x in one run and 1.90x in the next; 40 pairs gave 1.94x.
const FRESH = QUICK ? 3 : 30;
// raw fetch, axios, ky and the SDK: sequential GETs and POSTs of each, per page (two pages)
const N_PEER = QUICK ? 30 : 1000;
const PEER_WARMUP = QUICK ? 5 : 50;
const PEER_ROUNDS = QUICK ? 2 : 10; // blocks per page, the two pages taking turns
const PEER_PROBE = 3; // calls of each kind and method in a fresh context, for the preflights they send

const GOALS = {
  sizeFull: 40 * 1024, // issue 11: the whole package ≤ 40 KiB as a bundler ships it
  sizeRest: 18 * 1024, // issue 11: an app that uses only REST ≤ 18 KiB
  restSeq: 1.03,
  restConc: 1.1,
  muxVsRest: 0.7,
  pendingCallsMs: 5,
  instantiateVsBaseline: 1.5, // issue 11: import → ready ≤ 1.5× importing a small module
  restMemoryMiB: 1, // issue 11: growth of the calls module's memory after 10 MB each way (REST)
  muxwsMemoryMiB: 2, // issue 11: growth of the muxws module's memory after 10 MB each way
};

// ------------------------------------------------------------------ progress
const log = (line) => process.stderr.write(`[bench] ${line}\n`);

// ------------------------------------------------------------------ size
/** The calls module as the build optimized it, before scripts/inline-wasm.mjs wrote it into index.js. */
const CALLS_WASM = path.join(repoRoot, 'target', 'wasm', 'calls_bg.wasm');

function packageSize() {
  // size.mjs exits 1 over budget; its figures are what is reported either way
  const out = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'size.mjs'), path.join(repoRoot, 'pkg')], { encoding: 'utf8' }).stdout ?? '';
  const line = (what) => out.split('\n').find((l) => l.includes(what)) ?? '';
  const total = (l) => Number(l.match(/= (\d+) B/)?.[1]);
  const full = line('(whole package,');
  const rest = line('(REST-only app,');
  const watch = line('(REST-only app with watch(),');
  if (!total(full) || !total(rest) || !total(watch)) throw new Error(`unexpected output of scripts/size.mjs: ${out}`);
  // the calls module ships inside index.js; the build keeps its .wasm in target/wasm/
  const raw = {
    'calls_bg.wasm (inside index.js)': fs.statSync(CALLS_WASM).size,
    ...Object.fromEntries(
      fs.readdirSync(path.join(repoRoot, 'pkg', 'wasm')).filter((f) => f.endsWith('.wasm')).map((f) => [f, fs.statSync(path.join(repoRoot, 'pkg', 'wasm', f)).size]),
    ),
  };
  // the same apps with the other bundlers' defaults (scripts/size-bundlers.mjs), beside Vite's
  const others = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'size-bundlers.mjs'), path.join(repoRoot, 'pkg')], { encoding: 'utf8' }).stdout ?? '';
  const bundlers = { 'Vite 8, defaults (minified)': { full: total(full), rest: total(rest), watch: total(watch) } };
  for (const l of others.split('\n')) {
    const m = l.match(/^size \((whole package|REST-only app(?: with watch\(\))?), (.+), gzip -9\): .*= (\d+) B/);
    if (!m) continue;
    const app = { 'whole package': 'full', 'REST-only app': 'rest', 'REST-only app with watch()': 'watch' }[m[1]];
    (bundlers[m[2]] ??= {})[app] = Number(m[3]);
  }
  if (Object.keys(bundlers).length < 5) throw new Error(`unexpected output of scripts/size-bundlers.mjs: ${others}`);
  return { full: total(full), rest: total(rest), watch: total(watch), fullLine: full.trim(), restLine: rest.trim(), watchLine: watch.trim(), raw, bundlers };
}

/** Reads an unsigned LEB128 at `at`; returns [value, next]. */
function leb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (byte < 0x80) return [value, at];
  }
}

/** Code bytes of a wasm module by the crate its functions' names start with (cargo's output keeps the name section). */
function codeByCrate(file) {
  const bytes = fs.readFileSync(file);
  const names = new Map();
  const bodies = [];
  let imports = 0;
  for (let at = 8; at < bytes.length; ) {
    const id = bytes[at];
    const [size, start] = leb(bytes, at + 1);
    const end = start + size;
    if (id === 2) {
      let [count, p] = leb(bytes, start);
      for (let i = 0; i < count; i++) {
        let n;
        [n, p] = leb(bytes, p); p += n;
        [n, p] = leb(bytes, p); p += n;
        const kind = bytes[p++];
        if (kind === 0) { [, p] = leb(bytes, p); imports++; }
        else if (kind === 1) { p++; let flags; [flags, p] = leb(bytes, p); [, p] = leb(bytes, p); if (flags & 1) [, p] = leb(bytes, p); }
        else if (kind === 2) { let flags; [flags, p] = leb(bytes, p); [, p] = leb(bytes, p); if (flags & 1) [, p] = leb(bytes, p); }
        else p += 2;
      }
    } else if (id === 10) {
      let [count, p] = leb(bytes, start);
      for (let i = 0; i < count; i++) {
        const [length, body] = leb(bytes, p);
        bodies.push([imports + i, body - p + length]);
        p = body + length;
      }
    } else if (id === 0) {
      const [nameLength, p0] = leb(bytes, start);
      if (bytes.toString('latin1', p0, p0 + nameLength) === 'name') {
        for (let p = p0 + nameLength; p < end; ) {
          const sub = bytes[p];
          const [subSize, subStart] = leb(bytes, p + 1);
          if (sub === 1) {
            let [count, q] = leb(bytes, subStart);
            for (let i = 0; i < count; i++) {
              let index, length;
              [index, q] = leb(bytes, q);
              [length, q] = leb(bytes, q);
              names.set(index, bytes.toString('utf8', q, q + length));
              q += length;
            }
          }
          p = subStart + subSize;
        }
      }
    }
    at = end;
  }
  const byCrate = {};
  for (const [index, size] of bodies) {
    const name = names.get(index) ?? '?';
    const crate = name.match(/(?:^|[<&\s])_?(?:ZN\d+|RNv\w*?\d+)?([a-z_][a-z0-9_]*?)(?:\d+|::|\[|$)/)?.[1] ?? name;
    const known = ['viewsets_core', 'muxws_proto', 'fastapi_viewsets', 'muxws_wasm', 'alloc', 'core', 'lol_alloc', 'wasm_bindgen', 'uuid'].find((c) => name.includes(c));
    const key = known ?? (/^[a-z_]+$/.test(name) ? '(exports)' : crate);
    byCrate[key] = (byCrate[key] ?? 0) + size;
  }
  return Object.entries(byCrate).sort((a, b) => b[1] - a[1]);
}

function wasmBreakdown() {
  const dir = path.join(repoRoot, 'target', 'wasm32-unknown-unknown', 'release');
  const out = {};
  for (const [module, file] of [['calls', 'fastapi_viewsets.wasm'], ['muxws', 'muxws_wasm.wasm']]) {
    const full = path.join(dir, file);
    if (fs.existsSync(full)) out[module] = codeByCrate(full);
  }
  return out;
}

/** muxws-proto's decode timing table (its ignored release-mode test prints it as markdown). */
function decodeTiming() {
  const result = spawnSync('cargo', ['test', '-q', '-p', 'muxws-proto', '--release', '--test', 'decode_timing', '--', '--ignored', '--nocapture'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  if (result.status !== 0) return { note: `the decode timing test failed: ${result.stderr.slice(-500)}` };
  const table = result.stdout.split('\n').filter((line) => line.startsWith('|'));
  return table.length ? { table } : { note: 'the decode timing test printed no table' };
}

// ------------------------------------------------------------------ a server that never answers
async function blackhole() {
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// ------------------------------------------------------------------ in a page (serialised: self-contained)
/** Sequential latency and concurrent wall time of raw fetch, REST through the SDK and muxws through the SDK. */
async function callsInPage({ baseUrl, wsUrl, nSeq, nConc, rounds, warmup }) {
  const pkg = await import(globalThis.PKG_URL ?? '/pkg/index.js');
  const slow = (self, note) => self.request('POST', '/slow', { query: { sleep: 0 }, body: { note } });
  class Rest extends pkg.restViewSet()('id', []) {}
  class Mux extends pkg.muxwsViewSet()('id', []) {}
  const rest = new Rest({ basePath: '/items', baseUrl, schemaCheck: false });
  const peer = await pkg.connectMuxws(wsUrl, {});
  const mux = new Mux({ basePath: '/items', peer, schemaCheck: false });
  // A muxws proxy whose peer falls back (restFallback): its socket can never be had (nothing listens
  // on port 1), so every call goes over REST to baseUrl, with the body bytes muxws would hash.
  const fallenPeer = await pkg.connectMuxws('ws://127.0.0.1:1/ws', { restFallback: { afterMs: 0, baseUrl }, reconnect: { initialDelayMs: 1000, maxDelayMs: 30_000 } });
  const fallen = new Mux({ basePath: '/items', peer: fallenPeer, schemaCheck: false });
  const url = `${baseUrl}/items/slow?sleep=0`;
  const raw = async (note) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Idempotency-Key': `"${crypto.randomUUID()}"`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ note }),
    });
    if (!response.ok) throw new Error(`raw fetch answered ${response.status}`);
    return response.json();
  };
  // A raw fetch doing what every SDK call must: an AbortSignal (an abandoned attempt is aborted),
  // the answer's Content-Type read (JSON or text), and text() + JSON.parse (the raw text of cut-off
  // JSON goes into the error). The SDK's own JavaScript is what it costs above this one.
  const rawDue = async (note) => {
    const controller = new AbortController();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Idempotency-Key': `"${crypto.randomUUID()}"`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ note }),
      signal: controller.signal,
    });
    if (!response.ok || !response.headers.get('content-type')?.startsWith('application/json')) throw new Error(`raw fetch answered ${response.status}`);
    return JSON.parse(await response.text());
  };
  const kinds = { raw, rest: (note) => slow(rest, note), mux: (note) => slow(mux, note) };
  const order = Object.keys(kinds);
  const seqKinds = { ...kinds, rawDue, fallen: (note) => slow(fallen, note) };
  const seqOrder = Object.keys(seqKinds);
  const check = (answer, note) => {
    if (answer?.note !== note) throw new Error(`wrong answer ${JSON.stringify(answer)} for ${note}`);
  };
  for (let i = 0; i < warmup; i += 1) {
    for (const kind of seqOrder) check(await seqKinds[kind](`warm ${i}`), `warm ${i}`);
  }
  const latency = { raw: [], rest: [], mux: [], rawDue: [], fallen: [] };
  for (let i = 0; i < nSeq; i += 1) {
    for (let j = 0; j < seqOrder.length; j += 1) {
      const kind = seqOrder[(i + j) % seqOrder.length]; // rotate who goes first
      const note = `seq ${i}`;
      const t0 = performance.now();
      const answer = await seqKinds[kind](note);
      latency[kind].push(performance.now() - t0);
      check(answer, note);
    }
  }
  const wall = { raw: [], rest: [], mux: [] };
  for (let r = 0; r < rounds; r += 1) {
    for (let j = 0; j < order.length; j += 1) {
      const kind = order[(r + j) % order.length];
      const t0 = performance.now();
      const answers = await Promise.all(Array.from({ length: nConc }, (_, i) => kinds[kind](`conc ${r} ${i}`)));
      wall[kind].push(performance.now() - t0);
      answers.forEach((answer, i) => check(answer, `conc ${r} ${i}`));
    }
  }
  await peer.close();
  await fallenPeer.close({ drainMs: 0 });
  return { latency, wall };
}

/** pendingCalls() and pendingCallCount() with `count` calls pending against `blackholeUrl`. */
async function pendingInPage({ blackholeUrl, count }) {
  const pkg = await import(globalThis.PKG_URL ?? '/pkg/index.js');
  class Rest extends pkg.restViewSet()('id', []) {}
  const rest = new Rest({ basePath: '/items', baseUrl: blackholeUrl, schemaCheck: false, attemptTimeoutMs: 0 });
  const controller = new AbortController();
  const calls = Array.from({ length: count }, (_, i) => rest.request('POST', '/slow', { body: { i }, signal: controller.signal }).catch((error) => error?.name));
  if (pkg.pendingCallCount() !== count) throw new Error(`${pkg.pendingCallCount()} pending, not ${count}`);
  await new Promise((resolve) => setTimeout(resolve, 200)); // let the fetches go out
  const list = [];
  let listed = 0;
  for (let i = 0; i < 25; i += 1) {
    const t0 = performance.now();
    listed = pkg.pendingCalls().length;
    list.push(performance.now() - t0);
  }
  const countTimes = [];
  let counted = 0;
  for (let i = 0; i < 25; i += 1) {
    const reps = 20_000; // the page's clock ticks in 0.1 ms
    const t0 = performance.now();
    for (let k = 0; k < reps; k += 1) counted = pkg.pendingCallCount();
    countTimes.push((performance.now() - t0) / reps);
  }
  controller.abort();
  const ends = await Promise.all(calls);
  return { list, countTimes, listed, counted, cancelled: ends.filter((end) => end === 'CallCancelled').length, after: pkg.pendingCallCount() };
}

/** Time from the start of the import until the package is ready, and until a first call is issued. */
async function instantiateInPage() {
  const t0 = performance.now();
  const pkg = await import(globalThis.PKG_URL ?? '/pkg/index.js');
  const ready = performance.now() - t0;
  class Rest extends pkg.restViewSet()('id', []) {}
  const rest = new Rest({ basePath: '/nowhere', baseUrl: location.origin, schemaCheck: false, repeat: { withinMs: 0 } });
  const call = rest.request('GET', '');
  const firstCall = performance.now() - t0;
  if (typeof call.key !== 'string') throw new Error('the first call has no key');
  await call.catch(() => {});
  // where the time went, from the Resource Timing entries of the files the import fetched
  const entries = globalThis.performance?.getEntriesByType?.('resource') ?? [];
  const done = (test) => {
    const ends = entries.filter((e) => test(e.name)).map((e) => e.responseEnd - t0);
    return ends.length ? Math.max(...ends) : NaN;
  };
  // a .wasm fetched by the import would be a second round trip (the calls module comes inside index.js)
  return { ready, firstCall, jsFetched: done((name) => /\/pkg\/.*\.js$/.test(name)), wasmFiles: entries.filter((e) => e.name.endsWith('.wasm')).length };
}

/** The wasm modules' memory before and after 10 MB bodies each way, over REST and over muxws. */
async function memoryInPage({ baseUrl, wsUrl }) {
  const pkg = await import(globalThis.PKG_URL ?? '/pkg/index.js');
  const size = 10 * 1000 * 1000;
  class Rest extends pkg.restViewSet()('id', []) {}
  const rest = new Rest({ basePath: '/items', baseUrl, schemaCheck: false });
  const restBefore = pkg.internalStats().callsMemoryBytes;
  const uploaded = await rest.request('POST', '/raw', { body: new Uint8Array(size).fill(120) });
  const downloaded = await rest.request('GET', '/big', { query: { size } });
  const restAfter = pkg.internalStats().callsMemoryBytes;
  if (uploaded.length !== size || downloaded.size !== size) throw new Error('the 10 MB REST bodies did not arrive whole');
  const peer = await pkg.connectMuxws(wsUrl, {});
  class Mux extends pkg.muxwsViewSet()('id', []) {}
  const mux = new Mux({ basePath: '/items', peer, schemaCheck: false });
  const muxBefore = pkg.internalStats().muxwsMemoryBytes;
  const sent = await mux.request('POST', '/raw', { body: { fill: 'x'.repeat(size) } });
  const received = await mux.request('GET', '/big', { query: { size } });
  const muxAfter = pkg.internalStats().muxwsMemoryBytes;
  await peer.close();
  if (sent.length < size || received.size !== size) throw new Error('the 10 MB muxws payloads did not arrive whole');
  return { restBefore, restAfter, muxBefore, muxAfter };
}

/**
 * How long a muxws peer takes to declare a silent socket dead (the fault proxy passes nothing either
 * way and closes nothing) while calls keep going out, with a ping after 1 s without arrivals and 1 s
 * to answer it; `rounds` times.
 */
async function deadSocketInNode({ wsUrl, silence, unsilence, rounds }) {
  const pkg = await import(globalThis.PKG_URL);
  const times = [];
  for (let round = 0; round < rounds; round += 1) {
    let lost;
    const closed = new Promise((resolve) => (lost = resolve));
    const peer = await pkg.connectMuxws(wsUrl, { pingIntervalMs: 1000, pingTimeoutMs: 1000, onClose: (reason) => reason.willRetry && lost(performance.now()) });
    class Mux extends pkg.muxwsViewSet()('id', []) {}
    const mux = new Mux({ basePath: '/items', peer, schemaCheck: false, timeoutMs: 300, repeat: { withinMs: 60_000, delayMs: 100 } });
    await mux.request('POST', '/slow', { query: { sleep: 0 }, body: { note: 'warm' } });
    await silence();
    const t0 = performance.now();
    const calls = [];
    const sending = setInterval(() => calls.push(mux.request('POST', '/slow', { query: { sleep: 0 }, body: { note: 'during' } }).catch(() => {})), 100);
    const at = await Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve(NaN), 15_000))]);
    clearInterval(sending);
    await unsilence();
    times.push(at - t0);
    await Promise.all(calls);
    await peer.close();
  }
  return times;
}

/**
 * The baseline of the instantiate time: the import time of a small module without imports, and how
 * long after the module arrived the import resolved (in a page, from Resource Timing; NaN in Node,
 * which lists no entry for a file it imports).
 */
async function baselineImport(url) {
  const t0 = performance.now();
  await import(url);
  const end = performance.now();
  const entry = performance.getEntriesByType('resource').find((e) => e.name.endsWith(url));
  return { ms: end - t0, afterArrival: entry ? end - entry.responseEnd : NaN };
}


// ------------------------------------------------------------------ Node
const BASELINE_MODULE = 'tests/e2e/check.mjs'; // 1.5 KB, no imports

async function instantiateInNode() {
  const pkgUrl = pathToFileURL(path.join(repoRoot, 'pkg', 'index.js')).href;
  const code = `globalThis.PKG_URL = ${JSON.stringify(pkgUrl)}; globalThis.location = { origin: 'http://127.0.0.1:9' };
    const f = ${instantiateInPage.toString()}; f().then((r) => { console.log(JSON.stringify(r)); process.exit(0); });`;
  const runs = [];
  for (let i = 0; i < FRESH; i += 1) {
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', cwd: repoRoot });
    if (result.status !== 0) throw new Error(`node instantiate run failed: ${result.stderr}`);
    runs.push(JSON.parse(result.stdout.trim().split('\n').at(-1)));
    const baseUrl = pathToFileURL(path.join(repoRoot, BASELINE_MODULE)).href;
    const baseline = spawnSync(process.execPath, ['--input-type=module', '-e', `const f = ${baselineImport.toString()}; f(${JSON.stringify(baseUrl)}).then((r) => console.log(r.ms));`], { encoding: 'utf8', cwd: repoRoot });
    if (baseline.status !== 0) throw new Error(`node baseline run failed: ${baseline.stderr}`);
    runs.at(-1).baseline = Number(baseline.stdout.trim().split('\n').at(-1));
  }
  return runs;
}

// ------------------------------------------------------------------ main
/** Which build of pkg/ this is: when its wasm was written, and its hash. */
function buildId() {
  const wasm = CALLS_WASM;
  const written = fs.statSync(wasm).mtime.toISOString().replace(/\.\d+Z$/, 'Z');
  return `pkg/ built ${written}, wasm sha256 ${createHash('sha256').update(fs.readFileSync(wasm)).digest('hex').slice(0, 12)}`;
}

/** Bytes of the modules the instantiate rows import, as served and gzip -9. */
function moduleBytes(kyCode) {
  const read = (relative) => fs.readFileSync(path.join(repoRoot, relative));
  const modules = { pkg: read('pkg/index.js'), axios: read(PEER_MODULES.axios.slice(1)), ky: Buffer.from(kyCode), baseline: read(BASELINE_MODULE) };
  return Object.fromEntries(Object.entries(modules).map(([name, bytes]) => [name, { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length }]));
}

/** The version of an npm package in node_modules. */
const versionOf = (name) => JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')).version;

function environment(browserVersion) {
  const git = (...a) => {
    try {
      return execFileSync('git', a, { cwd: repoRoot, encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  const dirty = git('status', '--porcelain').length > 0;
  return {
    build: buildId(),
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit: `${git('rev-parse', '--short', 'HEAD') || 'unknown'}${dirty ? ' + uncommitted changes' : ''}`,
    cpu: `${os.cpus()[0]?.model?.trim() ?? 'unknown CPU'} × ${os.availableParallelism?.() ?? os.cpus().length}`,
    node: process.version,
    chromium: browserVersion,
  };
}

/** `--only live`: the live-data section alone, printed (BENCHMARKS.md is left as it is). */
async function mainLive() {
  const started = Date.now();
  const build = buildId();
  let stack;
  let site;
  let browser;
  const results = {};
  try {
    stack = await startStack({});
    site = await serveBench({ kyCode: '' });
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    results.env = environment(browser.version());
    if (ONLY === 'live') results.live = await measureLive({ browser, runnerUrl: `${site.url}/tests/browser/runner.html`, stack, quick: QUICK, log });
    else results.liveList = await measureLiveList({ browser, runnerUrl: `${site.url}/tests/browser/runner.html`, stack, quick: QUICK, log });
  } finally {
    await browser?.close().catch(() => {});
    await site?.close().catch(() => {});
    await stack?.stop();
  }
  results.seconds = (Date.now() - started) / 1000;
  if (buildId() !== build) throw new Error(`pkg/ was rebuilt during the run (${build} → ${buildId()}): run again`);
  const lines = [
    `Produced by \`${COMMAND}\` on ${results.env.date}${QUICK ? ' (quick mode: small counts, numbers not meaningful)' : ''}; the ${ONLY === 'live' ? 'live-data' : 'live lists\''} section alone, which took ${results.seconds.toFixed(0)} s.`,
    `Package built from ${results.env.commit} (${results.env.build}); ${results.env.cpu}; Node ${results.env.node}; Chromium ${results.env.chromium} (headless, playwright-core).`,
    '',
    ...(ONLY === 'live' ? renderLive(results.live, { table, spread, ms, ratio }) : renderLiveList(results.liveList, { table, spread, ms })),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `--only apply-changes`: applyChanges() of many records alone, printed (BENCHMARKS.md is left as it is). */
async function mainApplyChanges() {
  const started = Date.now();
  const stack = await startStack({});
  let result;
  try {
    result = await measureApplyChanges({ stack, quick: QUICK, log });
  } finally {
    await stack.stop();
  }
  const lines = [`Produced by \`${COMMAND}\` in ${((Date.now() - started) / 1000).toFixed(0)} s, from the package of ${buildId()}; Node ${process.version}.`, '', ...renderApplyChanges(result, { table, ms })];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `--only pages`: live lists bigger than a page alone, printed (BENCHMARKS.md is left as it is). */
async function mainPages() {
  const started = Date.now();
  const build = buildId();
  let stack;
  let site;
  let browser;
  let result;
  try {
    stack = await startStack({});
    site = await serveBench({ kyCode: '' });
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    result = await measurePages({ stack, browser, runnerUrl: `${site.url}/tests/browser/runner.html`, quick: QUICK, log });
  } finally {
    await browser?.close().catch(() => {});
    await site?.close().catch(() => {});
    await stack?.stop();
  }
  if (buildId() !== build) throw new Error(`pkg/ was rebuilt during the run (${build} → ${buildId()}): run again`);
  const env = environment(browser.version());
  const lines = [
    `Produced by \`${COMMAND}\` on ${env.date} in ${((Date.now() - started) / 1000).toFixed(0)} s${QUICK ? ' (quick mode: small counts, numbers not meaningful)' : ''}, from the package of ${env.commit} (${build}); ${env.cpu}; Node ${env.node}; Chromium ${env.chromium} (headless, playwright-core).`,
    '',
    ...renderPages(result, { table, ms }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main() {
  if (typeof WebSocket === 'undefined') throw new Error('run with node --experimental-websocket bench/run.mjs');
  if (ONLY === 'live' || ONLY === 'live-list') return mainLive();
  if (ONLY === 'apply-changes') return mainApplyChanges();
  if (ONLY === 'pages') return mainPages();
  const started = Date.now();
  const build = buildId();
  log(`${build}; size`);
  const size = packageSize();
  const breakdown = wasmBreakdown();
  log('decoding: muxws-proto, 1 KiB vs 1 MiB (cargo, release)');
  const decoding = decodeTiming();

  let stack;
  let site;
  let browser;
  let hole;
  const results = { size, breakdown, decoding };
  try {
    // the calls go to the backend directly; the dead-socket measure goes through the fault proxy
    stack = await startStack({});
    // cross-origin isolated: performance.now() ticks in microseconds instead of 0.1 ms; another
    // origin than the backend's (another port), so the calls of its pages are CORS requests
    const kyCode = await bundleKy();
    results.moduleBytes = moduleBytes(kyCode);
    site = await serveBench({ kyCode });
    hole = await blackhole();
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    results.env = environment(browser.version());
    const runner = `${site.url}/tests/browser/runner.html`;

    log(`instantiate: ${FRESH} fresh Chromium contexts`);
    results.chromiumInstantiate = [];
    for (let i = 0; i < FRESH; i += 1) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(runner);
      results.chromiumInstantiate.push(await page.evaluate(instantiateInPage));
      await context.close();
      // the baseline in a context of its own: a small module without imports, from the same server
      const baselineContext = await browser.newContext();
      const baselinePage = await baselineContext.newPage();
      await baselinePage.goto(runner);
      const baseline = await baselinePage.evaluate(baselineImport, `/${BASELINE_MODULE}`);
      Object.assign(results.chromiumInstantiate.at(-1), { baseline: baseline.ms, baselineAfterArrival: baseline.afterArrival });
      await baselineContext.close();
      // axios and ky, each in a context of its own, from the same server
      for (const peer of ['axios', 'ky']) {
        const peerContext = await browser.newContext();
        const peerPage = await peerContext.newPage();
        await peerPage.goto(runner);
        results.chromiumInstantiate.at(-1)[peer] = await peerPage.evaluate(importPeerInPage, PEER_MODULES[peer]);
        await peerContext.close();
      }
    }
    log(`instantiate: ${FRESH} fresh Node processes`);
    results.nodeInstantiate = await instantiateInNode();

    const page = await browser.newPage();
    const consoleLines = [];
    page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
    page.on('pageerror', (error) => consoleLines.push(`pageerror: ${error.message}`));
    await page.goto(runner);
    const callArgs = { baseUrl: stack.directUrls[0], wsUrl: stack.directWsUrls[0], nSeq: N_SEQ, nConc: N_CONC, rounds: ROUNDS, warmup: WARMUP };
    log(`Chromium: ${N_SEQ} sequential calls of each kind (raw fetch, REST, muxws), then ${ROUNDS} bursts of ${N_CONC} of each`);
    results.chromium = await page.evaluate(callsInPage, callArgs).catch((error) => {
      throw new Error(`${error.message}\n${consoleLines.join('\n')}`);
    });
    log(`Chromium: pendingCalls() with ${N_PENDING} pending calls`);
    results.pending = await page.evaluate(pendingInPage, { blackholeUrl: hole.url, count: N_PENDING });
    await page.close();

    results.peers = await measurePeers({
      browser,
      backendUrl: stack.directUrls[0],
      siteUrl: site.url,
      kyCode,
      accessLog: path.join(stack.logDir, 'app-A.log'),
      nSeq: N_PEER,
      rounds: PEER_ROUNDS,
      warmup: PEER_WARMUP,
      probe: PEER_PROBE,
      log,
    });

    log('Chromium: memory after 10 MB each way, REST and muxws');
    const memoryContext = await browser.newContext();
    const memoryPage = await memoryContext.newPage();
    await memoryPage.goto(runner);
    results.memory = await memoryPage.evaluate(memoryInPage, { baseUrl: stack.directUrls[0], wsUrl: stack.directWsUrls[0] });
    await memoryContext.close();

    log(`Node: the same calls`);
    globalThis.PKG_URL = pathToFileURL(path.join(repoRoot, 'pkg', 'index.js')).href;
    results.node = await callsInPage(callArgs);

    log('Node: a silent muxws socket found dead');
    results.deadSocket = await deadSocketInNode({ wsUrl: stack.wsUrl, silence: stack.silenceWs, unsilence: stack.clearFaults, rounds: QUICK ? 1 : 5 });

    await stack.clearFaults();
    results.live = await measureLive({ browser, runnerUrl: runner, stack, quick: QUICK, log });
    results.liveList = await measureLiveList({ browser, runnerUrl: runner, stack, quick: QUICK, log });
    results.applyChanges = await measureApplyChanges({ stack, quick: QUICK, log });
  } finally {
    await browser?.close().catch(() => {});
    await site?.close().catch(() => {});
    await hole?.close().catch(() => {});
    await stack?.stop();
  }
  results.seconds = (Date.now() - started) / 1000;
  if (buildId() !== build) {
    // scripts/build.sh swaps pkg/ at once; a run that straddles a swap mixes two builds
    throw new Error(`pkg/ was rebuilt during the run (${build} → ${buildId()}): nothing written, run again`);
  }
  const markdown = render(results);
  process.stdout.write(`${markdown}\n`);
  if (WRITE) {
    fs.writeFileSync(path.join(repoRoot, 'BENCHMARKS.md'), markdown);
    log('written to BENCHMARKS.md');
  }
}

// ------------------------------------------------------------------ the report
const table = (head, body) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...body.map((row) => `| ${row.join(' | ')} |`)].join('\n');
const spread = (label, x) => [label, ms(quantile(x, 0.1)), ms(median(x)), ms(quantile(x, 0.9)), ms(quantile(x, 0.99)), String(x.length)];

const PEER_LABELS = {
  raw: 'raw fetch',
  rawKey: 'raw fetch + Idempotency-Key',
  axios: `axios ${versionOf('axios')}`,
  ky: `ky ${versionOf('ky')}`,
  sdk: 'this package (REST viewset)',
};

/** The section comparing raw fetch, axios, ky and the SDK (bench/peers.mjs). */
function renderPeers(r, { table, spread }) {
  const p = r.peers;
  const ci = r.chromiumInstantiate;
  const baseline = median(ci.map((x) => x.baseline));
  const readyOf = { sdk: ci.map((x) => x.ready), axios: ci.map((x) => x.axios.ready), ky: ci.map((x) => x.ky.ready) };
  const where = { same: "page on the backend's origin", cross: 'page on another origin' };
  const cell = (page, method, kind) => {
    const xs = p.pages[page].latency[method][kind];
    return `${ms(median(xs))} ms (${ratio(median(xs), median(p.pages[page].latency[method].raw))})`;
  };
  const ready = (kind) => (readyOf[kind] ? `${ms(median(readyOf[kind]))} ms (${ratio(median(readyOf[kind]), baseline)})` : '—');
  const rows = PEER_KINDS.map((kind) => [PEER_LABELS[kind], cell('same', 'GET', kind), cell('cross', 'GET', kind), cell('same', 'POST', kind), cell('cross', 'POST', kind), ready(kind)]);
  const perPage = (n) => 2 * n * PEER_KINDS.length; // GETs and POSTs of every kind
  const preflightRows = PEER_KINDS.map((kind) => [
    PEER_LABELS[kind],
    ...['same', 'cross'].flatMap((page) => ['GET', 'POST'].map((method) => String(p.preflights[page][kind][method]))),
  ]);
  const other = Object.values(p.preflights).flatMap((byKind) => Object.values(byKind).flatMap((x) => x.other));
  const notIsolated = Object.entries(p.pages).filter(([, page]) => !page.isolated).map(([page]) => where[page]);
  const mb = r.moduleBytes;
  const kb = (x) => `${(x.raw / 1000).toFixed(1)} KB (gzip -9 ${(x.gzip / 1000).toFixed(1)} KB)`;
  return [
    '## Peers: raw fetch, axios, ky and this package',
    '',
    ...(notIsolated.length ? [`**Not cross-origin isolated (performance.now() in 0.1 ms steps): ${notIsolated.join(', ')}.**`, ''] : []),
    `Chromium, the same browser as above, a fresh context per page. The calls are \`GET /items/tick?sleep=0\` and \`POST /items/slow?sleep=0\` with the JSON body \`{"note": …}\`, to the backend directly; ${p.nSeq} sequential calls of each client and method per page (after ${p.warmup} to warm up), interleaved call by call (who goes first rotates), in ${p.rounds} blocks per page, the two pages taking turns. Two pages: one on the backend's own origin (its page and modules answered by Playwright routes at that origin, removed before any call is made) and one on the bench's static server, another 127.0.0.1 port, whose calls are CORS requests (the rows above ran in such a page too). Each cell is the median latency and its ratio to raw fetch of the same method in the same page; import → ready is the median of ${ci.length} fresh contexts and its ratio to importing \`${BASELINE_MODULE}\` (${ms(baseline)} ms), the same contexts as the instantiate rows above.`,
    '',
    table(['client', "GET, backend's origin", 'GET, cross-origin', "POST, backend's origin", 'POST, cross-origin', 'import → ready'], rows),
    '',
    `- raw fetch: \`fetch(url)\`, and for the POST \`Content-Type: application/json\`; then \`response.json()\`. raw fetch + Idempotency-Key: the same with the header the SDK sends (a fresh quoted UUID per call), as the baseline of the rows above. axios: \`axios.get(url)\`, \`axios.post(url, body)\` (its default adapter in a browser, XMLHttpRequest; \`node_modules/axios/dist/esm/axios.js\`). ky: \`ky.get(url).json()\`, \`ky.post(url, { json: body }).json()\` (its default retry and timeout; its distribution bundled into one module by rolldown, not minified). This package: \`request('GET', '/tick')\` and \`request('POST', '/slow', { body })\` of a REST viewset with default options.`,
    `- Modules imported, as served: the package ${kb(mb.pkg)}, axios ${kb(mb.axios)}, ky ${kb(mb.ky)}; the baseline ${kb(mb.baseline)}. Import → ready of axios and ky is the import of the module (its default export can call at once); raw fetch needs no import.`,
    `- Preflights (OPTIONS requests in the backend's access log) sent by ${p.probe} GETs and then ${p.probe} POSTs of one client in a fresh context: a non-safelisted request header (Idempotency-Key, or \`Content-Type: application/json\`) makes Chromium preflight the first call to a URL; the backend answers with \`Access-Control-Max-Age: 600\`, so later calls to the same URL reuse the answer. In the two measured pages, fresh contexts too: ${p.warmupOptions.same} OPTIONS on the backend's origin and ${p.warmupOptions.cross} cross-origin during the ${perPage(p.warmup)} warm-up calls of each, ${p.pages.same.measuredOptions} and ${p.pages.cross.measuredOptions} during the ${perPage(p.nSeq)} measured calls.${other.length ? ` Other OPTIONS requests: ${JSON.stringify(other)}.` : ''}`,
    '',
    `Preflights per call, cross-origin: ${PEER_KINDS.map((kind) => `${PEER_LABELS[kind]} GET ${p.preflights.cross[kind].GET}/${p.probe}, POST ${p.preflights.cross[kind].POST}/${p.probe}`).join('; ')}; on the backend's origin ${PEER_KINDS.every((kind) => !p.preflights.same[kind].GET && !p.preflights.same[kind].POST) ? 'none' : 'some (see the table)'}.`,
    '',
    table(['client', `${p.probe} GETs, backend's origin`, `${p.probe} POSTs, backend's origin`, `${p.probe} GETs, cross-origin`, `${p.probe} POSTs, cross-origin`], preflightRows),
    '',
    'Latency of the sequential calls, in ms:',
    '',
    table(['series', 'p10', 'median', 'p90', 'p99', 'n'], ['same', 'cross'].flatMap((page) => ['GET', 'POST'].flatMap((method) => PEER_KINDS.map((kind) => spread(`${where[page]}: ${method}, ${PEER_LABELS[kind]}`, p.pages[page].latency[method][kind]))))),
    '',
  ];
}

function render(r) {
  const goal = (met, text) => `${text} ${met ? '— met' : '— **missed**'}`;
  const c = r.chromium;
  const n = r.node;
  const seq = (x) => median(x);
  const conc = (x) => median(x);
  // bursts of the kinds compared ran next to each other: the median of the per-round ratios
  const pairedValue = (a, b) => median(a.map((x, i) => x / b[i]));
  const paired = (a, b) => `${pairedValue(a, b).toFixed(2)}×`;
  const plus = (d) => `${d >= 0 ? '+' : '−'}${Math.abs(d).toFixed(2)} ms`;
  const ci = r.chromiumInstantiate;
  const ni = r.nodeInstantiate;
  const kib = (bytes) => `${bytes} B (${(bytes / 1024).toFixed(1)} KiB)`;
  const mem = r.memory;
  const grownMiB = (before, after) => (after - before) / (1024 * 1024);
  const dead = r.deadSocket.filter((x) => !Number.isNaN(x));
  const rows = [
    ['Size: the whole package as a Vite app with Vite\'s defaults ships it (minified JS + wasm, gzip -9)', kib(r.size.full), `goal ${kib(GOALS.sizeFull)}`, ratio(r.size.full, GOALS.sizeFull), goal(r.size.full <= GOALS.sizeFull, '≤ 1.00×')],
    ['Size: an app that uses only REST, what it loads at start (Vite\'s defaults; other bundlers under Size)', kib(r.size.rest), `goal ${kib(GOALS.sizeRest)}`, ratio(r.size.rest, GOALS.sizeRest), goal(r.size.rest <= GOALS.sizeRest, '≤ 1.00×')],
    ['Size: the same app following its list with `watch()`: what it loads at start and the follower\'s engine its watch() imports', kib(r.size.watch), `the REST-only app ${kib(r.size.rest)}`, ratio(r.size.watch, r.size.rest), '—'],
    ['Memory: growth of the calls module after a 10 MB REST upload and a 10 MB download, Chromium', `${grownMiB(mem.restBefore, mem.restAfter).toFixed(2)} MiB`, `${(mem.restBefore / 2 ** 20).toFixed(2)} MiB before`, '—', goal(grownMiB(mem.restBefore, mem.restAfter) < GOALS.restMemoryMiB, `< ${GOALS.restMemoryMiB} MiB`)],
    ['Memory: growth of the muxws module after 10 MB each way over muxws, Chromium', `${grownMiB(mem.muxBefore, mem.muxAfter).toFixed(2)} MiB`, `${(mem.muxBefore / 2 ** 20).toFixed(2)} MiB before`, '—', goal(grownMiB(mem.muxBefore, mem.muxAfter) < GOALS.muxwsMemoryMiB, `< ${GOALS.muxwsMemoryMiB} MiB`)],
    [`A silent muxws socket found dead while calls go out (median of ${r.deadSocket.length}), Node 20`, dead.length ? `${ms(median(dead))} ms` : 'not found', 'pingIntervalMs + pingTimeoutMs = 2000 ms', dead.length ? ratio(median(dead), 2000) : '—', goal(dead.length === r.deadSocket.length && median(dead) <= 2000 + 500, '≤ interval + timeout (+ 0.5 s)')],
    [`REST, median latency of ${N_SEQ} sequential calls, Chromium: SDK vs raw fetch`, `${ms(seq(c.latency.rest))} ms (${plus(seq(c.latency.rest) - seq(c.latency.raw))})`, `${ms(seq(c.latency.raw))} ms`, ratio(seq(c.latency.rest), seq(c.latency.raw)), goal(seq(c.latency.rest) / seq(c.latency.raw) <= GOALS.restSeq, `≤ ${GOALS.restSeq}×`)],
    [`… the same, SDK vs a raw fetch that does what every call must (an AbortSignal, reads Content-Type, text() + JSON.parse), Chromium`, `${ms(seq(c.latency.rest))} ms (${plus(seq(c.latency.rest) - seq(c.latency.rawDue))})`, `${ms(seq(c.latency.rawDue))} ms`, ratio(seq(c.latency.rest), seq(c.latency.rawDue)), `—`],
    [`REST, ${N_CONC} concurrent calls, wall time (median of ${ROUNDS}), Chromium: SDK vs raw fetch`, `${ms(conc(c.wall.rest))} ms`, `${ms(conc(c.wall.raw))} ms`, paired(c.wall.rest, c.wall.raw), goal(pairedValue(c.wall.rest, c.wall.raw) <= GOALS.restConc, `≤ ${GOALS.restConc}×`)],
    [`muxws vs REST (both through the SDK), median latency of ${N_SEQ} sequential calls, Chromium`, `${ms(seq(c.latency.mux))} ms`, `${ms(seq(c.latency.rest))} ms`, ratio(seq(c.latency.mux), seq(c.latency.rest)), goal(seq(c.latency.mux) / seq(c.latency.rest) <= GOALS.muxVsRest, `≤ ${GOALS.muxVsRest}×`)],
    [`A muxws proxy's call while its peer falls back over REST (restFallback) vs a REST proxy's call, median latency of ${N_SEQ} sequential calls, Chromium`, `${ms(seq(c.latency.fallen))} ms`, `${ms(seq(c.latency.rest))} ms`, ratio(seq(c.latency.fallen), seq(c.latency.rest)), '—'],
    [`muxws (one socket) vs REST (SDK), ${N_CONC} concurrent calls, wall time, Chromium`, `${ms(conc(c.wall.mux))} ms`, `${ms(conc(c.wall.rest))} ms`, paired(c.wall.mux, c.wall.rest), '—'],
    [`muxws (one socket) vs raw fetch, ${N_CONC} concurrent calls, wall time, Chromium`, `${ms(conc(c.wall.mux))} ms`, `${ms(conc(c.wall.raw))} ms`, paired(c.wall.mux, c.wall.raw), '—'],
    [`REST, median latency of ${N_SEQ} sequential calls, Node 20: SDK vs raw fetch`, `${ms(seq(n.latency.rest))} ms (${plus(seq(n.latency.rest) - seq(n.latency.raw))})`, `${ms(seq(n.latency.raw))} ms`, ratio(seq(n.latency.rest), seq(n.latency.raw)), '—'],
    [`REST, ${N_CONC} concurrent calls, wall time, Node 20: SDK vs raw fetch`, `${ms(conc(n.wall.rest))} ms`, `${ms(conc(n.wall.raw))} ms`, paired(n.wall.rest, n.wall.raw), '—'],
    [`muxws vs REST (SDK), median latency, Node 20`, `${ms(seq(n.latency.mux))} ms`, `${ms(seq(n.latency.rest))} ms`, ratio(seq(n.latency.mux), seq(n.latency.rest)), '—'],
    [`A muxws proxy's call while it falls back over REST vs a REST proxy's call, median latency, Node 20`, `${ms(seq(n.latency.fallen))} ms`, `${ms(seq(n.latency.rest))} ms`, ratio(seq(n.latency.fallen), seq(n.latency.rest)), '—'],
    [`muxws vs REST (SDK), ${N_CONC} concurrent calls, wall time, Node 20`, `${ms(conc(n.wall.mux))} ms`, `${ms(conc(n.wall.rest))} ms`, paired(n.wall.mux, n.wall.rest), '—'],
    [`pendingCalls() with ${r.pending.listed} pending calls (median of 25), Chromium`, `${ms(median(r.pending.list))} ms`, `goal ${GOALS.pendingCallsMs} ms`, ratio(median(r.pending.list), GOALS.pendingCallsMs), goal(median(r.pending.list) < GOALS.pendingCallsMs, '< 1.00×')],
    [`pendingCallCount() with ${r.pending.counted} pending calls, Chromium`, `${(median(r.pending.countTimes) * 1e6).toFixed(0)} ns`, '—', '—', '—'],
    [`Instantiate: import → ready vs importing a small module without imports (\`${BASELINE_MODULE}\`), median of ${FRESH} fresh contexts, Chromium`, `${ms(median(ci.map((x) => x.ready)))} ms`, `${ms(median(ci.map((x) => x.baseline)))} ms`, ratio(median(ci.map((x) => x.ready)), median(ci.map((x) => x.baseline))), goal(median(ci.map((x) => x.ready)) / median(ci.map((x) => x.baseline)) <= GOALS.instantiateVsBaseline, `≤ ${GOALS.instantiateVsBaseline}×`)],
    [`… of which after the package's module arrived (parse, compile and instantiate the calls module, init), Chromium`, `${ms(median(ci.map((x) => x.ready - x.jsFetched)))} ms`, `the small module: ${ms(median(ci.map((x) => x.baselineAfterArrival)))} ms after it arrived; the package: module fetched at ${ms(median(ci.map((x) => x.jsFetched)))} ms, .wasm files fetched: ${Math.max(...ci.map((x) => x.wasmFiles))}`, `${((100 * median(ci.map((x) => x.ready - x.jsFetched))) / median(ci.map((x) => x.ready))).toFixed(0)} % of import → ready`, '—'],
    [`Instantiate: import → first call issued, Chromium`, `${ms(median(ci.map((x) => x.firstCall)))} ms`, `${ms(median(ci.map((x) => x.baseline)))} ms`, ratio(median(ci.map((x) => x.firstCall)), median(ci.map((x) => x.baseline))), '—'],
    [`Instantiate: import → ready vs importing a small module without imports, median of ${FRESH} fresh processes, Node 20`, `${ms(median(ni.map((x) => x.ready)))} ms`, `${ms(median(ni.map((x) => x.baseline)))} ms`, ratio(median(ni.map((x) => x.ready)), median(ni.map((x) => x.baseline))), '—'],
  ];
  const lines = [
    '# Benchmarks',
    '',
    `Produced by \`${COMMAND}\` on ${r.env.date}${QUICK ? ' (quick mode: small counts, numbers not meaningful)' : ''}.`,
    `Package built from ${r.env.commit} (${r.env.build}); ${r.env.cpu}; Node ${r.env.node}; Chromium ${r.env.chromium} (headless, playwright-core).`,
    `The backend is the test backend (\`tests/backend/app.py\`, one uvicorn process, in-memory Idempotency records) on 127.0.0.1, reached directly (no fault proxy); the call is \`POST /items/slow?sleep=0\` with a JSON body. Each ratio compares two things measured side by side in this one run (sequential calls interleaved, bursts alternated); nothing here is asserted by a test. The run took ${r.seconds.toFixed(0)} s.`,
    '',
    table(['measure', 'SDK', 'baseline', 'ratio', 'goal'], rows),
    '',
    '## Spread',
    '',
    'Latency of sequential calls and wall time of bursts, in ms.',
    '',
    table(['series', 'p10', 'median', 'p90', 'p99', 'n'], [
      spread('Chromium: raw fetch, sequential', c.latency.raw),
      spread('Chromium: raw fetch with what every call must do, sequential', c.latency.rawDue),
      spread('Chromium: REST through the SDK, sequential', c.latency.rest),
      spread('Chromium: muxws through the SDK, sequential', c.latency.mux),
      spread(`Chromium: raw fetch, ${N_CONC} concurrent`, c.wall.raw),
      spread(`Chromium: REST through the SDK, ${N_CONC} concurrent`, c.wall.rest),
      spread(`Chromium: muxws through the SDK, ${N_CONC} concurrent`, c.wall.mux),
      spread('Node: raw fetch, sequential', n.latency.raw),
      spread('Node: REST through the SDK, sequential', n.latency.rest),
      spread('Node: muxws through the SDK, sequential', n.latency.mux),
      spread(`pendingCalls() with ${r.pending.listed} pending`, r.pending.list),
      spread('Chromium: import → ready', ci.map((x) => x.ready)),
      spread('Chromium: import → the package\'s module fetched', ci.map((x) => x.jsFetched)),
      spread(`Chromium: import of ${BASELINE_MODULE} (baseline)`, ci.map((x) => x.baseline)),
      spread('Chromium: import → first call issued', ci.map((x) => x.firstCall)),
      spread(`Chromium: import of axios (${PEER_MODULES.axios.slice(1)})`, ci.map((x) => x.axios.ready)),
      spread('Chromium: import of ky (bundled into one module)', ci.map((x) => x.ky.ready)),
      spread('Node: import → ready', ni.map((x) => x.ready)),
      spread(`Node: import of ${BASELINE_MODULE} (baseline)`, ni.map((x) => x.baseline)),
    ]),
    '',
    `The ${r.pending.listed} pending calls were REST calls to a local server that accepts connections and never answers; afterwards one AbortController cancelled them (${r.pending.cancelled} settled with CallCancelled, ${r.pending.after} left pending).`,
    '',
    ...renderPeers(r, { table, spread }),
    ...renderLive(r.live, { table, spread, ms, ratio }),
    ...renderLiveList(r.liveList, { table, spread, ms }),
    ...renderApplyChanges(r.applyChanges, { table, ms }),
    '## Size',
    '',
    `\`node scripts/size.mjs pkg\` (Vite production builds of three small apps with Vite\'s defaults; each file gzip -9):`,
    '',
    `- ${r.size.fullLine}`,
    `- ${r.size.restLine}`,
    `- ${r.size.watchLine}`,
    '',
    'The same apps with each bundler\'s defaults (`node scripts/size-bundlers.mjs pkg`; Rollup and esbuild need the package\'s four URL files copied next to the bundle, counted as the package ships them, and esbuild `--format=esm`: README, "Bundlers and a strict CSP"; Rollup and esbuild do not minify unless told):',
    '',
    table(['bundler', 'REST-only app, at start', 'with watch()', 'whole package'], Object.entries(r.size.bundlers).map(([bundler, b]) => [bundler, kib(b.rest), kib(b.watch), kib(b.full)])),
    '',
    `The wasm files before gzip: ${Object.entries(r.size.raw).map(([file, bytes]) => `${file} ${bytes} B`).join(', ')}.`,
    '',
    'Code by crate in each wasm module, before wasm-opt (cargo\'s output, which keeps function names; inlining puts much of a crate\'s code into the exports that use it):',
    '',
  ];
  for (const [module, crates] of Object.entries(r.breakdown)) {
    lines.push(table([`${module} module: crate`, 'code bytes'], crates.slice(0, 10).map(([crate, bytes]) => [crate, String(bytes)])), '');
  }
  lines.push('## Decoding (muxws-proto)', '');
  if (r.decoding.note) lines.push(r.decoding.note, '');
  else {
    lines.push(
      'Decoding one message of about 1 KiB and of about 1 MiB, per JSON shape (`cargo test -p muxws-proto --release --test decode_timing -- --ignored --nocapture`): linear means a ratio near 1000×, not 10⁶×.',
      '',
      ...r.decoding.table,
      '',
    );
  }
  const missed = rows.filter((row) => String(row[4]).includes('missed')).map((row) => row[0]);
  lines.push(
    '## Goals',
    '',
    missed.length ? `Missed in this run: ${missed.join('; ')}.` : 'Every goal was met in this run.',
    '',
    '## Reading the numbers',
    '',
    '- One small machine runs everything: the Python backend, Chromium, Node and the bench itself. Latencies are dominated by the backend (a few ms per call); the SDK\'s share is the difference to raw fetch, shown next to the sequential ratios.',
    '- Sequential calls of the kinds compared are interleaved call by call (who goes first rotates), so drift hits them alike. Bursts alternate kind by kind; their ratio is the median of the per-round ratios. With few bursts on 2 cores, a burst ratio moves by several per cent from run to run: read it with the spread above.',
    `- Chromium caps HTTP/1.1 at 6 connections per host, so ${N_CONC} concurrent REST calls queue in the browser either way; muxws multiplexes them on one socket.`,
    '- The instantiate times include fetching the package\'s module from a local static server (`cache-control: no-store`) into a fresh browser context; the baseline rows show what a fresh context or process pays for one small module.',
    '- Import → ready is one round trip: the calls module comes inside the package\'s module (`scripts/inline-wasm.mjs`: printable ASCII, a byte being one character or two, which gzip takes to within about 0.1 KB of the .wasm, where base64 costs 1.7 KB more); the baseline pays one too. Parsing the module, compiling and instantiating the calls module (synchronously: 12 KB of wasm) and the facade\'s start are the row "of which after the package\'s module arrived".',
    '- The second REST baseline is a raw fetch that does what every correct call must, whatever library makes it: an AbortSignal (an abandoned attempt is aborted), the answer\'s Content-Type read (JSON is parsed, other types resolve as text) and text() + JSON.parse (the raw text of JSON that does not parse goes into the error). Interleaved with the other kinds, it costs no more than the bare raw fetch, within the run-to-run noise: the SDK\'s difference to either is its own JavaScript (making the key, composing and checking the call, the engine\'s pump, reading and settling the answer).',
    '- In the peers\' section, raw fetch is the call as one writes it by hand, without an Idempotency-Key; raw fetch + Idempotency-Key is the baseline of the rows above. The SDK\'s difference to the first includes what the key costs whatever sends it: a preflight of the first call to each URL from another origin, and the backend\'s Idempotency record of every call; its difference to the second is its own JavaScript. The page on the backend\'s origin and the cross-origin page run their blocks of calls by turns, so their columns can be compared too; the preflights\' own cost is paid once per URL (Access-Control-Max-Age) and does not show in the medians.',
    '- The size goals are read as KiB (1024 B). What a REST-only app loads at start counts for it; chunks it would load only on demand are listed beside it by scripts/size.mjs.',
    '- The dead-socket figure uses a ping after 1 s without arrivals and 1 s to answer it; with the defaults (20 s and 10 s) the same rule finds a silent socket dead within 30 s.',
    '',
  );
  return lines.join('\n');
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
