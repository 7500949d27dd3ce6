// The package under a Content Security Policy, in Chromium: compiling its WebAssembly needs
// 'wasm-unsafe-eval' in script-src (README and MIGRATING.md say so). With it, the package imports and
// a call reaches the real backend with its key; without it, importing the package rejects with the
// browser's CompileError naming the policy, rather than failing later or silently.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'pkg');
let stack;
let browser;

/** The page's module: imports the package, issues one call, reports how it went. */
const MAIN_JS = `
const { baseUrl } = await (await fetch('/config.json')).json();
try {
  const pkg = await import('/pkg/index.js');
  class Items extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {}
  const items = new Items({ basePath: '/items', baseUrl, schemaCheck: false });
  const call = items.request('POST', '/echo', { body: { under: 'csp' } });
  const answer = await call;
  window.__result = { key: call.key, seen: answer.idempotency_key };
} catch (error) {
  window.__result = { error: String(error) };
}
`;

/** Serves the page with `policy`, the page's module, and pkg/. */
async function serve(policy) {
  const server = http.createServer((request, response) => {
    const pathname = new URL(request.url, 'http://x').pathname;
    if (pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': policy });
      return response.end('<!doctype html><script type="module" src="/main.js"></script>\n');
    }
    if (pathname === '/main.js') return response.writeHead(200, { 'content-type': 'text/javascript' }).end(MAIN_JS);
    if (pathname === '/config.json') return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ baseUrl: stack.baseUrl }));
    const file = path.join(pkgDir, pathname.replace(/^\/pkg\//, ''));
    if (!pathname.startsWith('/pkg/') || !file.startsWith(pkgDir) || !fs.existsSync(file)) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript' });
    fs.createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function pageResult(policy) {
  const server = await serve(policy);
  const page = await browser.newPage();
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30000 });
    return await page.evaluate(() => window.__result);
  } finally {
    await page.close();
    await new Promise((resolve) => server.close(resolve));
  }
}

before(async () => {
  stack = await startStack({ proxy: false });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await stack?.stop();
});

test("with 'wasm-unsafe-eval' in script-src the package imports and calls", async () => {
  const result = await pageResult("script-src 'self' 'wasm-unsafe-eval'");
  assert.equal(result.error, undefined);
  assert.match(result.key, /^[0-9a-f-]{36}$/);
  assert.deepEqual(result.seen, [`"${result.key}"`]);
});

test("without it, importing the package rejects with the browser's CompileError naming the policy", async () => {
  const result = await pageResult("script-src 'self'");
  assert.match(result.error, /^CompileError: .*Content Security Polic/);
});
