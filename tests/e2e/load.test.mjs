// Loading the package where synchronous WebAssembly compilation is refused. The calls module is
// compiled synchronously when the package is evaluated; Chromium before 115 refuses that on the main
// thread for modules over 4 KB with a RangeError, and the package then takes the asynchronous API.
// Here a fresh Node process whose `WebAssembly.Module` throws that RangeError imports the package and
// sends a call through the engine to a local server that answers it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A child process's program: refuse synchronous compilation, import the package, send one call. */
function program(pkgUrl, baseUrl) {
  return `
    let refused = 0;
    WebAssembly.Module = function Module() {
      refused += 1;
      throw new RangeError('WebAssembly.Module(): synchronous compilation refused (as Chromium before 115 on the main thread)');
    };
    const pkg = await import(${JSON.stringify(pkgUrl)});
    const Api = pkg.restViewSet()('id', []);
    const api = new (class extends Api {
      echo() { return this.request('POST', '/echo', { body: { hello: 'world' } }); }
    })({ basePath: '/items', baseUrl: ${JSON.stringify(baseUrl)}, schemaCheck: false });
    const call = api.echo();
    const answer = await call;
    console.log(JSON.stringify({ refused, key: call.key, answer, pending: pkg.pendingCallCount() }));
  `;
}

test('the package loads and sends a call where synchronous wasm compilation is refused (the asynchronous fallback)', async () => {
  const seen = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      seen.push({ key: request.headers['idempotency-key'], body });
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ got: JSON.parse(body) }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const pkgUrl = pathToFileURL(path.join(repoRoot, 'pkg', 'index.js')).href;
    const baseUrl = `http://127.0.0.1:${server.address().port}`;
    // asynchronously: this process serves the child's call
    const child = spawn(process.execPath, ['--input-type=module', '-e', program(pkgUrl, baseUrl)], { cwd: repoRoot });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 0, `the child process failed: ${stderr}`);
    const result = JSON.parse(stdout.trim().split('\n').at(-1));
    assert.equal(result.refused, 1, 'the package tried synchronous compilation once');
    assert.deepEqual(result.answer, { got: { hello: 'world' } });
    assert.equal(result.pending, 0);
    assert.equal(seen.length, 1, 'the server ran the call once');
    assert.equal(seen[0].key, `"${result.key}"`, 'the Idempotency-Key that arrived is the call\'s');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
