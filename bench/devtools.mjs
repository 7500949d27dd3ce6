// The devtools panel's cost in development (issue 37's budgets; measured, nothing asserted), in
// headless Chromium:
//   overhead  a call's latency with the panel open against the same call with it closed, in the same
//             page (the devtools imported and mounted; only the panel toggles), the same calls
//             (sequential POSTs): blocks of PER_ROUND calls, closed and open interleaved (the two
//             orders alternating round by round: AB, BA, …, so drift hits both alike), ROUNDS
//             rounds. Each round gives the ratio of its open block's median to its closed block's;
//             reported: the median of those ratios, their spread (p10–p90, min–max), the pooled
//             ratio (all open calls' median over all closed calls') and its 95 % interval by
//             bootstrap over rounds. Twice: against the real backend (the test backend, no fault
//             proxy) and against a local server that answers at once (the package's and the
//             panel's own work then weigh most). Beside it, a page without the devtools, in the same
//             rounds, for what the record itself costs.
//   volume    10 000 calls since the page loaded (the server that answers at once, 100 at a time),
//             the panel open: the calls the record keeps (its cap), the time the panel takes to draw
//             its list then, and the JS heap before and after
//   profile   with --profile: the page's JavaScript sampled (CDP Profiler) over the same calls to the
//             server that answers at once, the panel closed and then open: self time per script
//             and the panel's functions, per call
//   node bench/devtools.mjs [--quick] [--overhead] [--rounds N] [--profile]
//   (--overhead: the first part only; needs pkg/: bash scripts/build.sh)
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { startStack } from '../tests/harness/stack.mjs';
import { CHROMIUM_ARGS } from '../tests/browser/browser.mjs';
import { median, quantile } from './stats.mjs';

const quick = process.argv.includes('--quick');
const roundsArg = process.argv.indexOf('--rounds');
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : quick ? 6 : 40;
const PER_ROUND = quick ? 10 : 25;
const VOLUME = quick ? 1000 : 10_000;
const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'pkg');

/**
 * A page's module: the package, and with `?devtools` the devtools mounted open; `run(n, fast)` times
 * n sequential calls (to the backend, or with `fast` to the server that answers at once);
 * `panel(open)` opens or closes the panel (as its toggle button does) and says whether it is open.
 */
const MAIN_JS = `
const config = await (await fetch('/config.json')).json();
const pkg = await import('/pkg/index.js');
if (location.search.includes('devtools')) (await import('/pkg/devtools/index.js')).mountDevtools({ open: true });
class Items extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {}
const items = new Items({ basePath: '/items', baseUrl: config.baseUrl, schemaCheck: false });
const fast = new Items({ basePath: '/items', baseUrl: config.fastUrl, schemaCheck: false });
window.run = async (n, toFast) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    if (toFast) await fast.request('POST', '/x', { body: { i } });
    else await items.request('POST', '/echo', { body: { i } });
    times.push(performance.now() - t0);
  }
  return times;
};
window.panel = (open) => {
  const root = document.querySelector('[data-fastapi-viewsets-devtools]')?.shadowRoot;
  const shown = () => root?.querySelector('.panel')?.hidden === false;
  if (root && shown() !== open) root.querySelector('button.toggle').click();
  return shown();
};
window.volume = async (total) => {
  let next = 0;
  const worker = async () => { while (next < total) { next++; await fast.request('POST', '/x', { body: { next } }); } };
  await Promise.all(Array.from({ length: 100 }, worker));
};
window.__ready = true;
`;

const stack = await startStack({ proxy: false });
// the volume's server: answers every call at once, with CORS
const fastServer = http.createServer((request, response) => {
  const cors = { 'access-control-allow-origin': request.headers.origin ?? '*', 'access-control-allow-headers': 'idempotency-key, content-type', 'access-control-allow-methods': 'POST' };
  if (request.method === 'OPTIONS') return response.writeHead(204, { ...cors, 'access-control-max-age': '600' }).end();
  request.resume();
  request.on('end', () => response.writeHead(200, { ...cors, 'content-type': 'application/json' }).end('{"ok":true}'));
});
await new Promise((resolve) => fastServer.listen(0, '127.0.0.1', resolve));
const site = http.createServer((request, response) => {
  const pathname = new URL(request.url, 'http://x').pathname;
  if (pathname === '/') return response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><script type="module" src="/main.js"></script>');
  if (pathname === '/main.js') return response.writeHead(200, { 'content-type': 'text/javascript' }).end(MAIN_JS);
  if (pathname === '/config.json') return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ baseUrl: stack.baseUrl, fastUrl: `http://127.0.0.1:${fastServer.address().port}` }));
  const file = path.join(pkgDir, pathname.replace(/^\/pkg\//, ''));
  if (!pathname.startsWith('/pkg/') || !file.startsWith(pkgDir) || !fs.existsSync(file)) return response.writeHead(404).end();
  let text = fs.readFileSync(file);
  if (pathname === '/pkg/devtools/index.js') text = text.toString().replaceAll('"@dynamicforms/fastapi-viewsets"', '"/pkg/index.js"');
  response.writeHead(200, { 'content-type': file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript' }).end(text);
});
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: [...CHROMIUM_ARGS, '--enable-precise-memory-info'] });
try {
  const open = async (query) => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`http://127.0.0.1:${site.address().port}/${query}`);
    await page.waitForFunction(() => window.__ready === true);
    return page;
  };
  const without = await open('');
  const page = await open('?devtools');
  await page.waitForFunction(() => document.querySelector('[data-fastapi-viewsets-devtools]')?.shadowRoot?.querySelector('.panel'));
  console.log(`devtools bench: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'a CPU'}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; Node ${process.version}; Chromium ${browser.version()} (headless); pkg/ built ${fs.statSync(path.join(pkgDir, 'index.js')).mtime.toISOString()}`);
  if (process.argv.includes('--profile')) {
    for (const open of [false, true, false, true]) await profile(page, open);
    process.exit(0);
  }
  for (const fast of [false, true]) await overhead(page, without, fast);
  // the volume in a page of its own: its calls are the 10 000 since it loaded
  if (!process.argv.includes('--overhead')) await volume(await open('?devtools'));
} finally {
  await browser.close();
  await new Promise((resolve) => site.close(resolve));
  await new Promise((resolve) => fastServer.close(resolve));
  await stack.stop();
}

/** Runs one block of `n` calls in `page` (the panel set to `open` first, and left to settle); its times. */
async function block(page, open, n, fast) {
  if (open !== null) {
    const shown = await page.evaluate((open) => window.panel(open), open);
    if (shown !== open) throw new Error(`the panel did not ${open ? 'open' : 'close'}`);
    // the drawing the toggle started, and its throttled redraw, are over before the block
    await page.waitForTimeout(450);
  } else await page.waitForTimeout(450);
  return page.evaluate(([n, fast]) => window.run(n, fast), [n, fast]);
}

/** The ratio `a`/`b` as `1.03x`. */
function x(value) {
  return `${value.toFixed(3)}x`;
}

/** The bootstrap 95 % interval of the pooled ratio of medians, resampling whole rounds. */
function bootstrap(openRounds, closedRounds, samples = 2000) {
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const ratios = [];
  for (let s = 0; s < samples; s++) {
    const open = [];
    const closed = [];
    for (let i = 0; i < openRounds.length; i++) {
      const at = Math.floor(random() * openRounds.length);
      open.push(...openRounds[at]);
      closed.push(...closedRounds[at]);
    }
    ratios.push(median(open) / median(closed));
  }
  return [quantile(ratios, 0.025), quantile(ratios, 0.975)];
}

/**
 * The overhead part: in `page` (the devtools mounted), blocks with the panel closed and open
 * interleaved, the order alternating round by round; `without` (no devtools) runs a block in each
 * round too, before or after the pair.
 */
async function overhead(page, without, fast) {
  const target = fast ? 'a local server that answers at once' : 'the test backend (POST /items/echo, no fault proxy)';
  for (const open of [false, true]) await block(page, open, 10, fast); // warm both states
  await block(without, null, 10, fast);
  const closed = [];
  const opened = [];
  const bare = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [false, true] : [true, false];
    if (round % 4 < 2) bare.push(await block(without, null, PER_ROUND, fast));
    for (const open of order) (open ? opened : closed).push(await block(page, open, PER_ROUND, fast));
    if (round % 4 >= 2) bare.push(await block(without, null, PER_ROUND, fast));
  }
  const ratios = opened.map((times, i) => median(times) / median(closed[i]));
  const all = (rounds) => rounds.flat();
  const pooled = median(all(opened)) / median(all(closed));
  const [low, high] = bootstrap(opened, closed);
  const recordRatios = closed.map((times, i) => median(times) / median(bare[i]));
  console.log(
    `devtools overhead, ${target} (Chromium, one page, ${ROUNDS} rounds of ${PER_ROUND} sequential POSTs with the panel closed and ${PER_ROUND} with it open, interleaved AB/BA): ` +
      `median call ${median(all(closed)).toFixed(2)} ms closed, ${median(all(opened)).toFixed(2)} ms open; ` +
      `open/closed per round: median ${x(median(ratios))}, p10–p90 ${x(quantile(ratios, 0.1))}–${x(quantile(ratios, 0.9))}, min–max ${x(Math.min(...ratios))}–${x(Math.max(...ratios))}; ` +
      `pooled ${x(pooled)} (95 % bootstrap interval ${x(low)}–${x(high)}); goal at most 1.05x. ` +
      `The record alone (panel closed) against a page without the devtools, per round: median ${x(median(recordRatios))}, p10–p90 ${x(quantile(recordRatios, 0.1))}–${x(quantile(recordRatios, 0.9))} (${median(all(bare)).toFixed(2)} ms without)`,
  );
}

/** Samples the page's JavaScript over 400 calls to the server that answers at once, the panel `open` or not. */
async function profile(page, open) {
  const n = 400;
  await block(page, open, 20, true);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  const t0 = Date.now();
  const times = await page.evaluate((n) => window.run(n, true), n);
  const wall = Date.now() - t0;
  const { profile: sampled } = await cdp.send('Profiler.stop');
  await cdp.detach();
  const nodes = new Map(sampled.nodes.map((node) => [node.id, node]));
  const byScript = new Map();
  const byFunction = new Map();
  sampled.samples.forEach((id, i) => {
    const { url, functionName } = nodes.get(id).callFrame;
    const script = url ? url.replace(/^.*\/pkg\//, 'pkg/').replace(/^https?:\/\/[^/]+\//, '') : functionName;
    const dt = (sampled.timeDeltas[i + 1] ?? 0) / 1000;
    byScript.set(script, (byScript.get(script) ?? 0) + dt);
    if (url.includes('devtools')) byFunction.set(`${script} ${functionName || '(anonymous)'}`, (byFunction.get(`${script} ${functionName || '(anonymous)'}`) ?? 0) + dt);
  });
  const top = (map, k) => [...map].sort((a, b) => b[1] - a[1]).slice(0, k).map(([name, t]) => `${name} ${(t / n * 1000).toFixed(0)} µs`).join('; ');
  console.log(`profile, the panel ${open ? 'open' : 'closed'}: ${n} calls in ${wall} ms (median ${median(times).toFixed(2)} ms); self time per call by script: ${top(byScript, 8)}`);
  console.log(`  the devtools' functions, per call: ${top(byFunction, 8) || 'none sampled'}`);
}

/** The volume part, in the page with the panel open. */
async function volume(withPanel) {
  const heap = () => withPanel.evaluate(() => performance.memory?.usedJSHeapSize ?? 0);
  const before = await heap();
  const t0 = Date.now();
  await withPanel.evaluate((n) => window.volume(n), VOLUME);
  const issued = Date.now() - t0;
  const root = "document.querySelector('[data-fastapi-viewsets-devtools]').shadowRoot";
  await withPanel.waitForTimeout(500);
  const draw = await withPanel.evaluate((root) => {
    const shadow = new Function(`return ${root}`)();
    const button = shadow.querySelector('button[data-filter="pending"]');
    const times = [];
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      button.click();
      times.push(performance.now() - t);
    }
    return { median: times.sort((x, y) => x - y)[5], rows: shadow.querySelectorAll('tr.call').length, note: shadow.querySelector('.list .note')?.textContent ?? '' };
  }, root);
  await withPanel.evaluate(() => globalThis.gc?.());
  const after = await heap();
  console.log(`devtools volume (Chromium, ${VOLUME} calls in ${(issued / 1000).toFixed(1)} s, the panel open): the list drawn in ${draw.median.toFixed(1)} ms median (${draw.rows} rows; ${draw.note}); JS heap ${(before / 1048576).toFixed(1)} -> ${(after / 1048576).toFixed(1)} MiB`);
}
