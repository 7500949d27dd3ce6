// The devtools subpath as an application gets it: `npm pack` of pkg/, installed into a fresh Vite app
// with no configuration, whose main.js imports `@dynamicforms/fastapi-viewsets/devtools` and calls
// `mountDevtools()`. Vite's dev server (dependency pre-bundling on) resolves the "development"
// condition: the panel's chunk loads from its URL beside the pre-bundled entry, opens, and shows the
// app's call by its key, under script-src 'self' 'wasm-unsafe-eval' and style-src 'self'. Vite's
// production build (its defaults) resolves the stub: no panel, no devtools file fetched, and the
// app's call goes out as it does without the import.
// Run: node --test tests/browser/devtools-vite.test.mjs (needs pkg/: bash scripts/build.sh)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { createServer } from 'vite';

import { packedAppHooks, serveDist } from './consumer-app.mjs';
import { devtoolsMain, POLICY, visit } from './devtools-app.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixture = packedAppHooks('devtools-vite', (app, stack) => {
  fs.writeFileSync(path.join(app, 'index.html'), '<!doctype html><script type="module" src="/main.js"></script>\n');
  fs.writeFileSync(path.join(app, 'main.js'), devtoolsMain('devtools'));
  fs.mkdirSync(path.join(app, 'public'));
  fs.writeFileSync(path.join(app, 'public', 'config.json'), JSON.stringify({ baseUrl: stack.baseUrl }));
}, { pkgDir: process.env.PKG_DIR });

test("Vite's dev server resolves the development entry: the panel loads on demand and lists the app's call, with no CSP violation", async () => {
  const server = await createServer({ root: fixture.app, configFile: false, logLevel: 'silent', server: { host: '127.0.0.1', port: 0, headers: { 'content-security-policy': POLICY } } });
  await server.listen();
  try {
    const result = await visit(fixture.browser, `http://127.0.0.1:${server.httpServer.address().port}/`);
    assert.deepEqual(result.seen, [`"${result.key}"`], 'the call went out with its key');
    assert.ok(result.host, 'the panel is mounted');
    assert.match(result.row, /POST\/items\/echoREST.*settled 200/);
    assert.ok(result.requests.some((url) => /panel\.js/.test(url)), `the panel's chunk was fetched (${result.requests.join(', ')})`);
    assert.deepEqual(result.violations, []);
    assert.deepEqual(result.errors.filter((line) => /Content Security Policy|devtools/i.test(line)), []);
  } finally {
    await server.close();
  }
});

test("Vite's production build (its defaults) resolves the stub: no panel, no devtools file, the call as without it", async () => {
  // \`vite build\` in a process of its own, as an app runs it: the dev server above set this process's
  // NODE_ENV, which Vite's build would take as it is
  const env = { ...process.env };
  delete env.NODE_ENV;
  execFileSync(process.execPath, [path.join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'silent'], { cwd: fixture.app, env, stdio: 'ignore' });
  const dist = path.join(fixture.app, 'dist');
  const emitted = fs.readdirSync(path.join(dist, 'assets'));
  assert.ok(!emitted.some((file) => /panel/.test(file)), `no panel emitted (${emitted.join(', ')})`);
  const server = await serveDist(dist, fixture.stack, { policy: POLICY });
  try {
    const result = await visit(fixture.browser, server.url, { panel: false });
    assert.deepEqual(result.seen, [`"${result.key}"`]);
    assert.equal(result.host, false, 'no panel in production');
    assert.ok(!result.requests.some((url) => /panel|devtools/.test(url)), `no devtools file fetched (${result.requests.join(', ')})`);
    assert.deepEqual(result.violations, []);
  } finally {
    await server.close();
  }
});
