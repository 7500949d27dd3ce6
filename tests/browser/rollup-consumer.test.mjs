// The package as a Rollup application gets it: `npm pack` of pkg/, installed into a fresh app, built
// by Rollup 4 with @rollup/plugin-node-resolve and nothing else set (`rollup -c` of `{ input,
// output: { dir }, plugins: [nodeResolve()] }`: ES modules, the driver a chunk of its own), served
// with script-src 'self' 'wasm-unsafe-eval', in Chromium against the real backend.
// Rollup leaves `new URL('./x', import.meta.url)` as it is and emits no file for it: the README's one
// step for Rollup, copying the package's four URL files next to the bundle, is what makes every part
// load. Before that step the calls that need a missing file fail at once, naming it (issue 29).
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { chromium } from 'playwright-core';
import { rollup } from 'rollup';
import { nodeResolve } from '@rollup/plugin-node-resolve';

import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';
import { checkEverything, copyUrlFiles, makeApp, pageResult, serveDist } from './consumer-app.mjs';

let stack;
let browser;
let app;
let dist;

before(async () => {
  stack = await startStack({});
  app = makeApp('rollup-consumer');
  dist = path.join(app, 'dist');
  // what `rollup -c` does with the config above (run from the app's folder)
  const bundle = await rollup({ input: path.join(app, 'src', 'main.js'), plugins: [nodeResolve({ rootDir: app })], onwarn() {} });
  await bundle.write({ dir: dist });
  await bundle.close();
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>rollup</title><script type="module" src="main.js"></script>\n');
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await stack?.stop();
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

test('a Rollup build without the four files: an axios call fails at once, naming axios-send.js and its 404', async () => {
  const server = await serveDist(dist, stack);
  try {
    const result = await pageResult(browser, `${server.url}?axios`);
    assert.equal(result.failed, true);
    assert.match(result.message, /axios-send\.js not loaded, answered 404: a Content Security Policy\? not emitted by the bundler\?/);
    assert.equal(result.attempts, 1, 'not repeated');
    assert.ok(result.ms < 2000, `failed at once (${result.ms} ms), not after the 600 s repeat window`);
  } finally {
    await server.close();
  }
});

test("a Rollup build with the four files copied next to it: every part loads under script-src 'self' 'wasm-unsafe-eval'", async () => {
  copyUrlFiles(app, dist);
  const server = await serveDist(dist, stack);
  try {
    checkEverything(assert, await pageResult(browser, server.url));
  } finally {
    await server.close();
  }
});
