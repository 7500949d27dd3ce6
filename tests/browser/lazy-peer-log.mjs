// Prints the network log of a page that defines a muxws proxy over a lazy peer at module scope (its
// schema check on, the default) and makes REST calls only: every request, every WebSocket and every
// warning, in a Vite production build with Vite's defaults, served with the README's policy, in
// Chromium against the real backend. Issue 29's "a lazy peer is not lazy", told by a log:
//   node tests/browser/lazy-peer-log.mjs [package folder, default pkg/]
// (The suite's check of it is in vite-consumer.test.mjs; this prints what a build of another commit does.)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { chromium } from 'playwright-core';
import { build } from 'vite';

import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';
import { pageResult, serveDist } from './consumer-app.mjs';

const pkgDir = path.resolve(process.argv[2] ?? 'pkg');
const MAIN_JS = `
import { restViewSet, muxwsViewSet, connectMuxws, ViewSetMixin } from '@dynamicforms/fastapi-viewsets';
const { baseUrl, wsUrl } = await (await fetch('/config.json')).json();
class MuxApi extends muxwsViewSet()('id', [ViewSetMixin]) {}
export const lazyItems = new MuxApi({ basePath: '/items', peer: () => connectMuxws(wsUrl, { lazy: true }) });
class ItemApi extends restViewSet()('id', [ViewSetMixin]) {}
const items = new ItemApi({ basePath: '/items', baseUrl, schemaCheck: false });
await items.list();
await items.list();
await new Promise((resolve) => setTimeout(resolve, 1500));
window.__result = { done: true };
`;

const stack = await startStack({});
const app = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-peer-'));
let browser;
let server;
try {
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', app, pkgDir], { encoding: 'utf8' }).trim().split('\n').pop();
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'lazy-peer', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', path.join(app, tarball)], { cwd: app, stdio: 'ignore' });
  fs.writeFileSync(path.join(app, 'index.html'), '<!doctype html><script type="module" src="/main.js"></script>\n');
  fs.writeFileSync(path.join(app, 'main.js'), MAIN_JS);
  await build({ root: app, configFile: false, logLevel: 'silent', build: { outDir: 'dist' } });
  server = await serveDist(path.join(app, 'dist'), stack);
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const result = await pageResult(browser, server.url);
  const short = (url) => url.replace(server.url, '/').replace(stack.baseUrl, '<backend>').replace(/^data:([^,]{0,40}).*/, 'data:$1…');
  for (const url of result.requests) console.log(`request ${short(url)}`);
  for (const url of result.sockets) console.log(`websocket ${url.replace(stack.wsUrl, '<backend ws>')}`);
  for (const text of result.warnings) console.log(`warning ${text}`);
  console.log(`${result.sockets.length} WebSocket(s), ${result.requests.filter((url) => /muxws/.test(url)).length} muxws file(s) fetched, ${result.warnings.length} warning(s)`);
} finally {
  await browser?.close();
  await server?.close();
  await stack.stop();
  fs.rmSync(app, { recursive: true, force: true });
}
