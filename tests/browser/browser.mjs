// Runs scenario modules inside real headless Chromium (Debian's, driven by playwright-core): a static
// server on 127.0.0.1 serves the built package and the scenario files, the page imports them, and each
// scenario runs in the page against the real backend (another origin, so CORS is exercised too).
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SERVED = ['pkg/', 'tests/e2e/', 'tests/browser/', 'node_modules/axios/dist/esm/', 'node_modules/@vue/reactivity/dist/'];
const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.json': 'application/json' };

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
];

/**
 * Serves the package and the scenario files on a free 127.0.0.1 port. With `wsTarget` (a ws:// URL),
 * a WebSocket upgrade of `/ws` is tunnelled to it, so that a page can reach the backend's muxws
 * endpoint by a path on its own origin (`connectMuxws('/ws')`).
 */
export async function serveStatic(wsTarget, { isolated = false } = {}) {
  // `isolated`: cross-origin isolation (COOP + COEP), which gives performance.now() a fine
  // resolution (the benchmark's latencies); the backend's CORS answers are allowed under it.
  const isolation = isolated ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } : {};
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://x');
    const relative = decodeURIComponent(url.pathname).replace(/^\/+/, '');
    const file = path.join(repoRoot, relative);
    if (!SERVED.some((prefix) => relative.startsWith(prefix)) || !file.startsWith(repoRoot) || !fs.existsSync(file)) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store', ...isolation });
    fs.createReadStream(file).pipe(response);
  });
  const tunnels = new Set();
  server.on('upgrade', (request, socket, head) => {
    const target = wsTarget && new URL(wsTarget);
    if (!target || new URL(request.url, 'http://x').pathname !== '/ws') return socket.destroy();
    const upstream = net.connect(Number(target.port), target.hostname, () => {
      const lines = [`${request.method} ${target.pathname} HTTP/1.1`];
      for (let i = 0; i < request.rawHeaders.length; i += 2) {
        const name = request.rawHeaders[i];
        lines.push(`${name}: ${name.toLowerCase() === 'host' ? target.host : request.rawHeaders[i + 1]}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    for (const end of [socket, upstream]) {
      tunnels.add(end);
      end.on('error', () => {});
      end.on('close', () => {
        tunnels.delete(end);
        socket.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => {
      for (const end of tunnels) end.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Launches Chromium and opens the runner page, which loads `scenarioModules` (paths under tests/). */
export async function openRunner(scenarioModules, env) {
  const site = await serveStatic(env.wsUrl);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const page = await browser.newPage();
  const consoleLines = [];
  page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => consoleLines.push(`pageerror: ${error.message}`));
  await page.goto(`${site.url}/tests/browser/runner.html`);
  await page.evaluate(([modules, env]) => window.loadScenarios(modules, env), [scenarioModules, env]);
  return {
    page,
    consoleLines,
    browserVersion: browser.version(),
    /** Runs scenario `name` in the page; rejects with its error message. */
    async run(name) {
      const outcome = await page.evaluate((name) => window.runScenario(name), name);
      if (outcome !== 'ok') throw new Error(outcome);
    },
    names: () => page.evaluate(() => Object.keys(window.scenarios)),
    async close() {
      await browser.close();
      await site.close();
    },
  };
}
