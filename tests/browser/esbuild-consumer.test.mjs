// The package as an esbuild application gets it: `npm pack` of pkg/, installed into a fresh app,
// bundled by esbuild 0.28 (`esbuild src/main.js --bundle --outdir=dist`), served with
// script-src 'self' 'wasm-unsafe-eval', in Chromium against the real backend.
// esbuild's default output format for a browser bundle is an IIFE, which cannot hold the package's
// top-level await (the build fails, and says so): the README names `--format=esm`. esbuild emits no
// file for `new URL('./x', import.meta.url)` either: the README's step, copying the package's four URL
// files next to the bundle, makes every part load; the same test shows that nothing else is needed.
// A chunk's URL that the policy refuses (a data: URL, as a bundler that inlines small assets makes
// it; a URL on another origin) fails the calls that need it at once, naming the file (issue 29).
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { chromium } from 'playwright-core';
import * as esbuild from 'esbuild';

import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';
import { checkEverything, copyUrlFiles, makeApp, pageResult, serveDist } from './consumer-app.mjs';

let stack;
let browser;
let app;
let dist;

/** `esbuild src/main.js --bundle --outdir=<out>` run from the app's folder, plus `extra` options. */
const bundle = (out, extra = {}) =>
  esbuild.build({ entryPoints: ['src/main.js'], bundle: true, outdir: out, absWorkingDir: app, logLevel: 'silent', ...extra });

before(async () => {
  stack = await startStack({});
  app = makeApp('esbuild-consumer');
  dist = path.join(app, 'dist');
  await bundle(dist, { format: 'esm' });
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>esbuild</title><script type="module" src="main.js"></script>\n');
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await stack?.stop();
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

test("esbuild's default format (an IIFE) refuses the package's top-level await: --format=esm is the one setting", async () => {
  await assert.rejects(bundle(path.join(app, 'dist-iife')), (error) => {
    assert.match(error.errors.map((e) => e.text).join('\n'), /Top-level await is currently not supported with the "iife" output format/);
    return true;
  });
});

test("an esbuild build (--format=esm) with the four files copied next to it: every part loads under script-src 'self' 'wasm-unsafe-eval'", async () => {
  copyUrlFiles(app, dist);
  const server = await serveDist(dist, stack);
  try {
    const result = await pageResult(browser, server.url);
    checkEverything(assert, result);
    assert.ok(result.requests.some((url) => /\/axios-send\.js\?no-inline$/.test(url)), 'the sending half came from the copied file');
  } finally {
    await server.close();
  }
});

/** Serves a copy of the build whose main.js names axios-send.js by `url` instead of its own path. */
async function withAxiosSendAt(name, url) {
  const copy = path.join(app, name);
  fs.cpSync(dist, copy, { recursive: true });
  const main = path.join(copy, 'main.js');
  const text = fs.readFileSync(main, 'utf8');
  const reference = /new URL\("\.\/axios-send\.js\?no-inline", import\.meta\.url\)/;
  assert.match(text, reference, 'the bundle names axios-send.js by its URL');
  fs.writeFileSync(main, text.replace(reference, `new URL(${JSON.stringify(url)})`));
  return serveDist(copy, stack);
}

test('a data: URL for axios-send.js (as a bundler that inlines small files makes it), refused by the policy: the call fails at once, naming the file', async () => {
  const data = `data:text/javascript;base64,${fs.readFileSync(path.join(dist, 'axios-send.js')).toString('base64')}`;
  const server = await withAxiosSendAt('dist-data', data);
  try {
    const result = await pageResult(browser, `${server.url}?axios`);
    assert.equal(result.failed, true);
    assert.match(result.message, /axios-send\.js not loaded, answered 200: a Content Security Policy\?/);
    assert.equal(result.attempts, 1, 'not repeated');
    assert.ok(result.ms < 2000, `failed at once (${result.ms} ms), not after the 600 s repeat window`);
    assert.ok(result.errors.some((text) => /Content Security Policy/.test(text)), `the browser reported the policy (${result.errors.join('; ')})`);
  } finally {
    await server.close();
  }
});

test("axios-send.js on another origin, outside 'self': the call fails at once, naming the file", async () => {
  // the same file, served by another server on another origin (localhost, not 127.0.0.1)
  const other = await serveDist(dist, stack);
  const server = await withAxiosSendAt('dist-other', `${other.url.replace('127.0.0.1', 'localhost')}axios-send.js`);
  try {
    const result = await pageResult(browser, `${server.url}?axios`);
    assert.equal(result.failed, true);
    assert.match(result.message, /axios-send\.js not loaded, answered 0: a Content Security Policy\?/, "the opaque answer of another origin");
    assert.equal(result.attempts, 1, 'not repeated');
    assert.ok(result.ms < 2000, `failed at once (${result.ms} ms), not after the 600 s repeat window`);
  } finally {
    await server.close();
    await other.close();
  }
});
