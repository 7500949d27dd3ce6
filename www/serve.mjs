// The demo server: starts the real test stack (FastAPI backend behind the fault proxy, see
// tests/harness/stack.mjs), builds the page with Vite into www/dist and serves it, with the
// backend's URLs at /config.json, from a small static server on 127.0.0.1.
//
//   node www/serve.mjs [--port 8700] [--redis] [--processes N]     (PORT env also works; 0 = a free port)
//
//   import { startDemo } from './www/serve.mjs';
//   const demo = await startDemo({ port: 0 });   // { url, config, stack, stop }
//   ...
//   await demo.stop();
//
// The CLI prints one line, `demo: http://127.0.0.1:PORT/`, and stops everything it started on
// SIGINT/SIGTERM.

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { startStack } from '../tests/harness/stack.mjs';

const wwwDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(wwwDir, '..');
const distDir = path.join(wwwDir, 'dist');
const HOST = '127.0.0.1';
export const DEFAULT_PORT = 8700;

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** Builds www/ with Vite into www/dist. */
export async function buildPage({ logLevel = 'warn' } = {}) {
  if (!fs.existsSync(path.join(repoRoot, 'pkg', 'index.js'))) {
    throw new Error('pkg/index.js is missing: build the package first (bash scripts/build.sh)');
  }
  const { build } = await import('vite');
  await build({ root: wwwDir, configFile: path.join(wwwDir, 'vite.config.ts'), logLevel });
}

/** The file of dist/ a URL path names, or null when it names none (or lies outside dist/). */
function fileFor(urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const relative = decoded.endsWith('/') ? `${decoded}index.html` : decoded;
  const file = path.resolve(distDir, `.${path.posix.normalize(relative)}`);
  if (file !== distDir && !file.startsWith(distDir + path.sep)) return null;
  try {
    return fs.statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

function createServer(config) {
  const configBody = JSON.stringify(config);
  return http.createServer((request, response) => {
    const send = (status, headers, body) => {
      response.writeHead(status, { 'x-content-type-options': 'nosniff', ...headers });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }, 'Method Not Allowed\n');
      return;
    }
    const { pathname } = new URL(request.url ?? '/', `http://${HOST}`);
    if (pathname === '/config.json') {
      send(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }, configBody);
      return;
    }
    const file = fileFor(pathname);
    if (!file) {
      send(404, { 'content-type': 'text/plain; charset=utf-8' }, 'Not Found\n');
      return;
    }
    const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
    // Vite's assets carry a content hash in their names; everything else is revalidated.
    const cache = pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    fs.readFile(file, (error, body) => {
      if (error) send(500, { 'content-type': 'text/plain; charset=utf-8' }, 'Internal Server Error\n');
      else send(200, { 'content-type': type, 'content-length': body.length, 'cache-control': cache }, body);
    });
  });
}

function listen(server, port) {
  return new Promise((resolve, reject) => {
    const onError = (error) => reject(error);
    server.once('error', onError);
    server.listen(port, HOST, () => {
      server.off('error', onError);
      resolve(server.address().port);
    });
  });
}

/**
 * Starts the stack, builds the page and serves it on 127.0.0.1:`port` (0: a free port).
 * Resolves to `{ url, config, stack, stop }`; `stop()` stops the server and the stack (idempotent).
 */
export async function startDemo({ port = DEFAULT_PORT, stack: stackOptions = {}, build = true } = {}) {
  const [stackResult, buildResult] = await Promise.allSettled([
    startStack({ proxy: true, ...stackOptions }),
    build ? buildPage() : Promise.resolve(),
  ]);
  const stack = stackResult.status === 'fulfilled' ? stackResult.value : null;
  if (stackResult.status === 'rejected' || buildResult.status === 'rejected') {
    await stack?.stop();
    throw stackResult.status === 'rejected' ? stackResult.reason : buildResult.reason;
  }

  const config = { baseUrl: stack.baseUrl, wsUrl: stack.wsUrl };
  const server = createServer(config);
  let actualPort;
  try {
    actualPort = await listen(server, port);
  } catch (error) {
    await stack.stop();
    throw error;
  }

  let stopped = null;
  const stop = () => {
    stopped ??= (async () => {
      await new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await stack.stop();
    })();
    return stopped;
  };
  return { url: `http://${HOST}:${actualPort}/`, config, stack, stop };
}

// ------------------------------------------------------------------ CLI
function parseArgs(argv) {
  const options = { port: process.env.PORT === undefined || process.env.PORT === '' ? DEFAULT_PORT : Number(process.env.PORT), stack: {} };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--port') options.port = Number(argv[++i]);
    else if (arg.startsWith('--port=')) options.port = Number(arg.slice('--port='.length));
    else if (arg === '--redis') options.stack.redis = true;
    else if (arg === '--processes') options.stack.processes = Number(argv[++i]);
    else if (arg.startsWith('--processes=')) options.stack.processes = Number(arg.slice('--processes='.length));
    else throw new Error(`unknown option ${arg} (usage: node www/serve.mjs [--port N] [--redis] [--processes N])`);
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) throw new Error('--port must be 0..65535');
  return options;
}

const isMain = process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isMain) {
  let demo = null;
  const shutdown = (code) => {
    Promise.resolve(demo?.stop()).finally(() => process.exit(code));
  };
  process.once('SIGINT', () => shutdown(130));
  process.once('SIGTERM', () => shutdown(143));
  try {
    demo = await startDemo(parseArgs(process.argv.slice(2)));
  } catch (error) {
    console.error(`demo: ${error.message}`);
    process.exit(1);
  }
  console.log(`demo: ${demo.url}`);
}
