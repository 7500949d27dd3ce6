// Prints the network log of a page that defines a muxws proxy over a lazy peer at module scope (its
// schema check on, the default) and makes REST calls only: every request, every WebSocket and every
// warning, in a Vite production build with Vite's defaults, served with the README's policy, in
// Chromium against the real backend. Issue 29's "a lazy peer is not lazy", told by a log:
//   node tests/browser/lazy-peer-log.mjs [package folder, default pkg/]
// (The suite's check of it is in vite-consumer.test.mjs; this prints what a build of another commit does.)
import fs from 'node:fs';
import path from 'node:path';

import { chromium } from 'playwright-core';

import { installPacked } from '../harness/every-part.mjs';
import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';
import { pageResult, serveViteBuild } from './consumer-app.mjs';

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
let app;
let browser;
let server;
try {
  app = installPacked('lazy-peer', pkgDir);
  server = await serveViteBuild(app, stack, MAIN_JS);
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
  if (app) fs.rmSync(app, { recursive: true, force: true });
}
