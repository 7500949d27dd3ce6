// What the consumer tests share (webpack, Rollup, esbuild, Vite, the devtools subpath in Vite and
// webpack, a lazy peer): the packed package installed into a fresh app, with the real backend and
// Chromium around it for the file's tests, the app's page (one script, every part of the package:
// tests/harness/every-part.mjs), a static server of the bundler's output that sends the README's
// policy, and a page run that collects what the page requested, opened and logged.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { checkParts, EVERY_PART, EVERY_PART_IMPORTS, installPacked } from '../harness/every-part.mjs';
import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The policy of the README's CSP paragraph. */
export const POLICY = "script-src 'self' 'wasm-unsafe-eval'";

/** The five files of the package that it imports by their URLs (README, "Bundlers and a strict CSP"). */
export const URL_FILES = ['follow-engine.js', 'axios-send.js', 'schema-check.js', 'live/live-list.js', 'live/paged.js', 'wasm/muxws_bg.wasm'];

// The app's one script. `/` calls every part of the package (tests/harness/every-part.mjs: a fetch
// proxy, watch() over REST, a live list, an axios proxy with axios itself, its browser ES module
// build, bundled by the app's bundler, a muxws proxy and watch() over muxws). `/?axios` makes one
// axios call with the default repeat window (600 s) and reports how it ended and how long it took:
// what a page whose axios-send.js cannot load sees.
export const MAIN_JS = `
import { ${EVERY_PART_IMPORTS} } from '@dynamicforms/fastapi-viewsets';
import axios from './axios.js';
${EVERY_PART}
async function everything(config) {
  return { charset: document.characterSet, ...(await everyPart(config, axios)) };
}

async function axiosOnce({ baseUrl }) {
  const viaAxios = new ItemApi({ basePath: '/items', baseUrl, schemaCheck: false, axiosInstance: axios.create() });
  const started = Date.now();
  try {
    await viaAxios.echo({ from: 'axios' });
    return { ms: Date.now() - started, failed: false };
  } catch (error) {
    return { ms: Date.now() - started, failed: true, name: error.name, message: String(error.message), attempts: error.attempts };
  }
}

fetch('/config.json').then((answer) => answer.json()).then(location.search === '?axios' ? axiosOnce : everything).then(
  (result) => { window.__result = result; },
  (error) => { window.__result = { error: String(error && error.stack || error) }; },
);
`;

/**
 * Makes a fresh app folder with the packed package installed (`installPacked`), `src/main.js`
 * (MAIN_JS) and `src/axios.js` (axios's browser ES module).
 */
export function makeApp(name, pkgDir = path.join(repoRoot, 'pkg')) {
  const app = installPacked(name, pkgDir);
  fs.mkdirSync(path.join(app, 'src'));
  fs.writeFileSync(path.join(app, 'src', 'main.js'), MAIN_JS);
  fs.copyFileSync(path.join(repoRoot, 'node_modules', 'axios', 'dist', 'esm', 'axios.js'), path.join(app, 'src', 'axios.js'));
  return app;
}

/** Copies the package's URL_FILES from the app's node_modules into `dist` (the README's step for Rollup and esbuild). */
export function copyUrlFiles(app, dist) {
  const from = path.join(app, 'node_modules', '@dynamicforms', 'fastapi-viewsets');
  for (const file of URL_FILES) {
    fs.mkdirSync(path.dirname(path.join(dist, file)), { recursive: true });
    fs.copyFileSync(path.join(from, file), path.join(dist, file));
  }
}

/**
 * Registers the test file's `before` and `after` hooks around an app with the packed package. Before
 * the tests: the real backend (`startStack`), a fresh app folder `name` with `pkgDir` packed and
 * installed (`installPacked`), `prepare(app, stack)` (the app's own files; it may build and serve the
 * app, and what it resolves with is kept as `server`), then Chromium. After them: Chromium closed,
 * `server.close()`, the backend stopped, the folder removed. Returns the object whose `stack`, `app`,
 * `server` and `browser` are set once `before` has run.
 */
export function packedAppHooks(name, prepare = () => undefined, { pkgDir } = {}) {
  const fixture = { stack: undefined, app: undefined, server: undefined, browser: undefined };
  before(async () => {
    fixture.stack = await startStack({});
    fixture.app = installPacked(name, pkgDir);
    fixture.server = await prepare(fixture.app, fixture.stack);
    fixture.browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });
  after(async () => {
    await fixture.browser?.close();
    await fixture.server?.close();
    await fixture.stack?.stop();
    if (fixture.app) fs.rmSync(fixture.app, { recursive: true, force: true });
  });
  return fixture;
}

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm', '.json': 'application/json' };

/**
 * Serves `dist` on a free 127.0.0.1 port, every answer with `policy` (none when null; 404 for a file it
 * lacks), and `/config.json` with the backend's URLs. With `root`, `/` answers the HTML that
 * `root(url)` resolves with (a rejection: 500 with its stack), not dist's index.html. Resolves with
 * `{ url, close() }`.
 */
export async function serveDist(dist, stack, { policy = POLICY, root } = {}) {
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url, 'http://x');
    const { pathname } = url;
    const headers = policy === null ? {} : { 'content-security-policy': policy };
    if (pathname === '/config.json') {
      return response.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify({ baseUrl: stack.baseUrl, wsUrl: stack.wsUrl }));
    }
    if (pathname === '/' && root) {
      try {
        const html = await root(url);
        return response.writeHead(200, { ...headers, 'content-type': 'text/html' }).end(html);
      } catch (error) {
        return response.writeHead(500, headers).end(String(error?.stack ?? error));
      }
    }
    const file = path.join(dist, pathname === '/' ? 'index.html' : pathname);
    if (!file.startsWith(dist) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return response.writeHead(404, headers).end();
    response.writeHead(200, { ...headers, 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * Writes the app's index.html (one module script, /main.js) and main.js (`mainJs`), builds the app by
 * Vite's production build with its defaults into dist/, and serves that (`serveDist`, the README's
 * policy). Resolves with `{ url, close() }`.
 */
export async function serveViteBuild(app, stack, mainJs) {
  const { build } = await import('vite');
  fs.writeFileSync(path.join(app, 'index.html'), '<!doctype html><script type="module" src="/main.js"></script>\n');
  fs.writeFileSync(path.join(app, 'main.js'), mainJs);
  await build({ root: app, configFile: false, logLevel: 'silent', build: { outDir: 'dist' } });
  return serveDist(path.join(app, 'dist'), stack);
}

/** Opens `url`, waits for `window.__result`; resolves with it and the page's requests, sockets, warnings, errors and policy violations. */
export async function pageResult(browser, url) {
  const page = await browser.newPage();
  const seen = { requests: [], sockets: [], warnings: [], errors: [] };
  page.on('pageerror', (error) => seen.errors.push(error.message));
  page.on('console', (message) => (message.type() === 'error' ? seen.errors : message.type() === 'warning' ? seen.warnings : []).push(message.text()));
  page.on('websocket', (socket) => seen.sockets.push(socket.url()));
  page.on('request', (request) => seen.requests.push(request.url()));
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30000 }).catch(() => {});
    const result = await page.evaluate(() => window.__result);
    if (result === undefined) throw new Error(`the page did not finish: ${seen.errors.join('; ')}`);
    if (result.error) throw new Error(`the page failed: ${result.error} ${seen.errors.join('; ')}`);
    return { ...result, ...seen };
  } finally {
    await page.close();
  }
}

/** The assertions every bundler's app must pass: `checkParts`, the muxws module fetched, nothing logged an error. */
export function checkEverything(assert, result) {
  checkParts(assert, result);
  assert.ok(result.requests.some((url) => /\.wasm(\?|$)/.test(url)), `the muxws module was fetched (${result.requests.join(', ')})`);
  assert.deepEqual(result.errors.filter((text) => !/favicon|404 \(Not Found\)/.test(text)), [], 'nothing logged an error');
}
