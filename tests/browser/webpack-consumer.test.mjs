// The package as a webpack application gets it: `npm pack` of pkg/, installed into a fresh app, built
// by webpack 5 in production mode with no configuration of the package (no wasm rule, no loader: the
// package's URL files become asset modules, which webpack emits), and loaded as webpack emits it: a
// classic `<script>`, which the browser decodes in the page's encoding. The page declares
// windows-1250 (as a Central European page may), so any character of the shipped JS outside ASCII
// would read back as another one. Served with the README's policy, script-src 'self'
// 'wasm-unsafe-eval', the page calls through a fetch proxy, axios itself (an axios proxy), watch()
// over REST, a muxws proxy and watch() over muxws, against the real backend, and the test checks the
// keys on the wire.
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { chromium } from 'playwright-core';
import webpack from 'webpack';

import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';
import { checkEverything, makeApp, pageResult, serveDist } from './consumer-app.mjs';

let stack;
let browser;
let app;

before(async () => {
  stack = await startStack({});
  app = makeApp('webpack-consumer');
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await stack?.stop();
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

/** Runs webpack with its production defaults (`webpack --mode production` of ./src/main.js); resolves with the output folder. */
function build() {
  const dist = path.join(app, 'dist');
  const compiler = webpack({ mode: 'production', context: app, entry: './src/main.js', output: { path: dist } });
  return new Promise((resolve, reject) => {
    compiler.run((error, stats) => {
      compiler.close(() => {});
      if (error) return reject(error);
      if (stats.hasErrors()) return reject(new Error(stats.toString({ all: false, errors: true })));
      resolve(dist);
    });
  });
}

test("a webpack build loads every part of the package as a classic script on a windows-1250 page, under script-src 'self' 'wasm-unsafe-eval'", async () => {
  const dist = await build();
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><meta charset="windows-1250"><title>webpack</title><script src="main.js"></script>\n');
  // served as a plain static server does: no charset on the scripts
  const server = await serveDist(dist, stack);
  try {
    const result = await pageResult(browser, server.url);
    assert.equal(result.charset, 'windows-1250');
    checkEverything(assert, result);
    // follow-engine.js and axios-send.js, each an asset webpack emitted under a hashed name, and the muxws module
    const assets = result.requests.filter((url) => url.startsWith(server.url) && /\.(js|wasm)\?no-inline$/.test(url));
    assert.equal(assets.length, 3, `the URL files came from the app's server (${result.requests.join(', ')})`);
    assert.ok(!result.requests.some((url) => url.startsWith('data:')), 'no data: URL');
  } finally {
    await server.close();
  }
});
