// The package as a Node 20 application gets it, with no bundler: `npm pack` of pkg/, installed into a
// fresh app, imported by its name from a script run by `node --experimental-websocket`, against the
// real backend. Every part it loads by URL loads from the installed files: a fetch proxy, an axios
// proxy (axios-send.js), watch() over REST (follow-engine.js), a live list (live/live-list.js), a schema check that finds an undeclared
// action (schema-check.js), a muxws proxy (wasm/muxws_bg.wasm) and watch() over muxws. (The other
// Node tests import pkg/index.js by its path; this one, the tarball by its name.)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { checkParts, EVERY_PART, EVERY_PART_IMPORTS, installPacked } from '../harness/every-part.mjs';
import { startStack } from '../harness/stack.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let stack;
let app;

// The app: every part (tests/harness/every-part.mjs), and between the axios and the muxws calls the
// schema check (on by default) of a proxy declaring an action /catalog/pages lacks.
const APP_JS = (axiosUrl) => `
import { ${EVERY_PART_IMPORTS}, LookupMixin } from '@dynamicforms/fastapi-viewsets';
import axios from ${JSON.stringify(axiosUrl)};
${EVERY_PART}
const [baseUrl, wsUrl] = process.argv.slice(2);
const warnings = [];
console.warn = (...args) => warnings.push(args.map(String).join(' '));
const result = await everyPart({ baseUrl, wsUrl }, axios, async () => {
  class Pages extends restViewSet()('id', [LookupMixin]) {}
  new Pages({ basePath: '/catalog/pages', baseUrl });
  for (let i = 0; i < 100 && !warnings.length; i++) await new Promise((resolve) => setTimeout(resolve, 50));
});
console.log(JSON.stringify({ ...result, warnings }));
`;

before(async () => {
  stack = await startStack({});
  app = installPacked('node-consumer');
  fs.writeFileSync(path.join(app, 'app.mjs'), APP_JS(pathToFileURL(path.join(repoRoot, 'node_modules', 'axios', 'index.js')).href));
});

after(async () => {
  await stack?.stop();
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

test('the installed package in Node 20 without a bundler: every part loads (fetch, axios, watch() over REST, a live list, the schema check, muxws, watch() over muxws)', async () => {
  const child = spawn(process.execPath, ['--experimental-websocket', '--no-warnings=ExperimentalWarning', 'app.mjs', stack.baseUrl, stack.wsUrl], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => { out += chunk; });
  child.stderr.on('data', (chunk) => { err += chunk; });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, `the app ended with ${code}: ${err}`);
  const result = JSON.parse(out.trim().split('\n').pop());
  checkParts(assert, result);
  assert.ok(result.warnings.some((w) => w.includes('/catalog/pages/lookup')), `schema-check.js loaded and compared (${result.warnings})`);
  assert.ok(!result.warnings.some((w) => /not run|not loaded/.test(w)), `nothing failed to load (${result.warnings})`);
});
