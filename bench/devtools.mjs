// The devtools panel's cost in development (issue 37's budgets; measured, nothing asserted), in
// headless Chromium:
//   overhead  a call's latency with the panel open against the same call in a page without the
//             devtools: sequential POSTs to the local backend directly (no fault proxy), the two
//             pages taking turns, rounds of 40 calls each; the medians and their ratio (goal 1.05x)
//   volume    10 000 calls since the page loaded (a local server that answers at once, 100 at a
//             time), the panel open: the calls the record keeps (its cap), the time the panel takes
//             to draw its list then, and the JS heap before and after
//   node bench/devtools.mjs [--quick] [--overhead]   (--overhead: the first part only; needs pkg/: bash scripts/build.sh)
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { startStack } from '../tests/harness/stack.mjs';
import { CHROMIUM_ARGS } from '../tests/browser/browser.mjs';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 2 : 6;
const PER_ROUND = quick ? 10 : 40;
const VOLUME = quick ? 1000 : 10_000;
const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'pkg');

/** A page's module: the package, and with `?devtools` the devtools mounted open; `run(n)` times n sequential calls. */
const MAIN_JS = `
const config = await (await fetch('/config.json')).json();
const pkg = await import('/pkg/index.js');
if (location.search.includes('record')) await import('/pkg/devtools/index.js');
if (location.search.includes('devtools')) (await import('/pkg/devtools/index.js')).mountDevtools({ open: true });
class Items extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {}
const items = new Items({ basePath: '/items', baseUrl: config.baseUrl, schemaCheck: false });
const fast = new Items({ basePath: '/items', baseUrl: config.fastUrl, schemaCheck: false });
window.run = async (n) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await items.request('POST', '/echo', { body: { i } });
    times.push(performance.now() - t0);
  }
  return times;
};
window.volume = async (total) => {
  let next = 0;
  const worker = async () => { while (next < total) { next++; await fast.request('POST', '/x', { body: { next } }); } };
  await Promise.all(Array.from({ length: 100 }, worker));
};
window.__ready = true;
`;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

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
  const recording = await open('?record');
  const withPanel = await open('?devtools');
  const pages = [without, recording, withPanel];
  for (const page of pages) await page.evaluate((n) => window.run(n), 10);
  const times = pages.map(() => []);
  // each round in another order, so that no page always goes first
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < pages.length; i++) {
      const at = (i + round) % pages.length;
      times[at].push(...(await pages[at].evaluate((n) => window.run(n), PER_ROUND)));
    }
  }
  const [ma, mr, mb] = times.map(median);
  console.log(`devtools overhead (Chromium, ${times[0].length} sequential POSTs each, taking turns): without the devtools ${ma.toFixed(2)} ms median; the record only (the subpath imported, no panel) ${mr.toFixed(2)} ms: ${(mr / ma).toFixed(3)}x; the panel open ${mb.toFixed(2)} ms: ${(mb / ma).toFixed(3)}x (goal at most 1.05x)`);

  if (!process.argv.includes('--overhead')) await volume(withPanel);
} finally {
  await browser.close();
  await new Promise((resolve) => site.close(resolve));
  await new Promise((resolve) => fastServer.close(resolve));
  await stack.stop();
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
