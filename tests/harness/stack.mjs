// The real test stack of the SDK's end-to-end tests: redis-server (optional), N uvicorn processes of
// tests/backend/app.py and tests/backend/faultproxy.py in front of them. Node 20, stdlib only.
//
//   import { startStack } from './stack.mjs';
//   const stack = await startStack({ redis: true, processes: 2 });
//   ... fetch(`${stack.baseUrl}/items/slow`, ...) ...
//   await stack.stop();
//
//   node tests/harness/stack.mjs serve [--redis] [--processes 2] [--lock-ttl 6] [--no-proxy]
//
// Every child runs in its own process group and is stopped by its PID (SIGTERM to its group, then
// SIGKILL after a grace period): by stop(), on SIGINT/SIGTERM of this process, and at its exit. Every
// child also exits when its stdin (a pipe this process holds) ends, so even a SIGKILLed harness
// leaves nothing behind (redis-server through tests/backend/parentwatch.py). Child output goes to
// tests/artifacts/stack-<run>/<name>.log; every spawned PID is recorded in
// tests/artifacts/harness-pids.jsonl for no-leftovers.mjs.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { processStartTime } from './no-leftovers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');
export const backendDir = path.join(repoRoot, 'tests', 'backend');
export const artifactsDir = path.join(repoRoot, 'tests', 'artifacts');
export const pidFile = path.join(artifactsDir, 'harness-pids.jsonl');

const python = process.env.VIEWSETS_TEST_PYTHON || path.join(repoRoot, '.venv', 'bin', 'python');
const redisServer = process.env.REDIS_SERVER || 'redis-server';
const STOP_GRACE_MS = 5000;
const READY_TIMEOUT_MS = 30000;

// ------------------------------------------------------------------ children
const live = new Set(); // every child not yet known to have exited, of every stack
let handlersInstalled = false;

function installProcessHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => {
    for (const child of live) child.killNow();
  });
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
    process.once(signal, () => {
      Promise.allSettled([...live].map((child) => child.stop())).finally(() => process.exit(code));
    });
  }
}

function recordPid(entry) {
  fs.mkdirSync(artifactsDir, { recursive: true });
  fs.appendFileSync(pidFile, `${JSON.stringify(entry)}\n`);
}

class Child {
  constructor(name, command, args, { env = {}, cwd = repoRoot, logDir, parentWatch = false }) {
    this.name = name;
    this.command = command;
    this.args = args;
    this.logPath = path.join(logDir, `${name}.log`);
    const fd = fs.openSync(this.logPath, 'a');
    this.exitCode = undefined;
    this.exited = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
    this.proc = spawn(command, args, {
      cwd,
      env: { ...process.env, PYTHONUNBUFFERED: '1', ...env },
      detached: true, // own process group
      stdio: [parentWatch ? 'pipe' : 'ignore', fd, fd],
    });
    fs.closeSync(fd);
    this.pid = this.proc.pid;
    this.spawnError = null;
    this.proc.on('error', (error) => {
      this.spawnError = error;
      live.delete(this);
      this.resolveExit({ code: null, signal: null, error });
    });
    this.proc.on('exit', (code, signal) => {
      this.exitCode = code ?? signal;
      live.delete(this);
      this.resolveExit({ code, signal });
    });
    if (this.proc.stdin) this.proc.stdin.on('error', () => {});
    if (this.pid) {
      live.add(this);
      recordPid({
        event: 'spawn',
        pid: this.pid,
        start: processStartTime(this.pid),
        name,
        cmdline: [command, ...args].join(' '),
        owner: process.pid,
        log: path.relative(repoRoot, this.logPath),
        t: Date.now(),
      });
    }
  }

  get running() {
    return this.exitCode === undefined && this.spawnError === null && Boolean(this.pid);
  }

  signalGroup(signal) {
    try {
      process.kill(-this.pid, signal);
    } catch {
      try {
        process.kill(this.pid, signal);
      } catch {
        /* gone */
      }
    }
  }

  killNow() {
    if (this.running) this.signalGroup('SIGKILL');
  }

  async stop(graceMs = STOP_GRACE_MS) {
    if (!this.running) return this.exited;
    this.signalGroup('SIGTERM');
    const timer = setTimeout(() => this.signalGroup('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
      // the group may hold more than the leader (it does not here, but be thorough)
      this.signalGroup('SIGKILL');
      recordPid({ event: 'stop', pid: this.pid, name: this.name, owner: process.pid, t: Date.now() });
    }
  }

  logTail(bytes = 4000) {
    try {
      const text = fs.readFileSync(this.logPath, 'utf8');
      return text.slice(-bytes);
    } catch {
      return '';
    }
  }
}

// ------------------------------------------------------------------ helpers
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(child, probe, what) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError;
  while (Date.now() < deadline) {
    if (!child.running) {
      throw new Error(`${child.name} exited (${child.exitCode ?? child.spawnError}) before ${what}`);
    }
    try {
      if (await probe()) return;
    } catch (error) {
      lastError = error;
    }
    await sleep(100);
  }
  throw new Error(`${child.name}: ${what} not reached in ${READY_TIMEOUT_MS} ms (${lastError?.message ?? 'no answer'})`);
}

function redisPing(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.setTimeout(1000);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      data += chunk;
      if (data.includes('\r\n')) {
        socket.destroy();
        resolve(data.startsWith('+PONG'));
      }
    });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function httpJson(url, init) {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) search.set(key, String(value));
  }
  return search.toString();
}

// ------------------------------------------------------------------ the stack
/**
 * Starts redis-server (when `redis`), `processes` uvicorn processes of tests/backend/app.py and,
 * when `proxy`, the fault proxy in front of them; resolves once every one answers.
 */
export async function startStack({ redis = false, processes = 1, lockTtl = 6, proxy = true, env = {} } = {}) {
  installProcessHandlers();
  const runId = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${Math.random().toString(36).slice(2, 6)}`;
  const logDir = path.join(artifactsDir, `stack-${runId}`);
  fs.mkdirSync(logDir, { recursive: true });
  const children = [];

  const stopAll = async () => {
    // the proxy first (no new traffic), then the apps, then Redis
    const order = [...children].reverse();
    for (const child of order) await child.stop();
  };

  try {
    let redisUrl = null;
    if (redis) {
      const port = await freePort();
      // through parentwatch.py: redis-server cannot notice that its parent died
      const child = new Child(
        'redis',
        python,
        [
          path.join(backendDir, 'parentwatch.py'),
          redisServer,
          '--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no',
        ],
        { logDir, parentWatch: true },
      );
      children.push(child);
      await waitFor(child, () => redisPing(port), 'PONG');
      redisUrl = `redis://127.0.0.1:${port}/0`;
    }

    const apps = [];
    for (let i = 0; i < processes; i += 1) {
      const port = await freePort();
      const servedBy = String.fromCharCode(65 + i); // A, B, C ...
      const child = new Child(
        `app-${servedBy}`,
        python,
        ['-m', 'uvicorn', 'app:app', '--host', '127.0.0.1', '--port', String(port), '--timeout-graceful-shutdown', '2'],
        {
          cwd: backendDir,
          logDir,
          parentWatch: true,
          env: {
            HOST: '127.0.0.1',
            PORT: String(port),
            SERVED_BY: servedBy,
            LOCK_TTL: String(lockTtl),
            REDIS_URL: redisUrl ?? '',
            PARENT_WATCH: 'stdin',
            ...env,
          },
        },
      );
      children.push(child);
      apps.push({ child, port, url: `http://127.0.0.1:${port}`, servedBy });
    }
    await Promise.all(
      apps.map(({ child, url }) =>
        waitFor(child, async () => (await fetch(`${url}/__test/ready`)).ok, `${url}/__test/ready`),
      ),
    );

    let proxyUrl = null;
    if (proxy) {
      const port = await freePort();
      const child = new Child(
        'proxy',
        python,
        [path.join(backendDir, 'faultproxy.py'), '--listen', String(port), '--parent-watch', ...apps.flatMap((app) => ['--upstream', `127.0.0.1:${app.port}`])],
        { cwd: backendDir, logDir, parentWatch: true },
      );
      children.push(child);
      proxyUrl = `http://127.0.0.1:${port}`;
      await waitFor(child, async () => (await fetch(`${proxyUrl}/__fault`)).ok, `${proxyUrl}/__fault`);
    }

    const directUrls = apps.map((app) => app.url);
    const baseUrl = proxyUrl ?? directUrls[0];
    const onEach = (route, init) => Promise.all(directUrls.map((url) => httpJson(`${url}${route}`, init)));
    const needProxy = () => {
      if (!proxyUrl) throw new Error('this stack runs without the fault proxy');
      return proxyUrl;
    };
    const control = (params) => httpJson(`${needProxy()}/__fault?${query(params)}`);

    let stopped = null;
    const stack = {
      baseUrl,
      wsUrl: `${baseUrl.replace(/^http/, 'ws')}/ws`,
      directUrls,
      directWsUrls: directUrls.map((url) => `${url.replace(/^http/, 'ws')}/ws`),
      proxyUrl,
      redisUrl,
      lockTtl,
      logDir,
      pids: Object.fromEntries(children.map((child) => [child.name, child.pid])),

      /** Queues a fault on the proxy: mode e.g. 'drop_after', 'status:503'; {count, path, method, retryAfter}. */
      fault: (mode, { count = 1, path: prefix, method, retryAfter, ...rest } = {}) =>
        control({ mode, count, path: prefix, method, retry_after: retryAfter, ...rest }),
      /** The next `count` requests matching {path, method} go to upstream `index` (0-based). */
      pin: (index, { count = 1, path: prefix, method } = {}) =>
        control({ mode: 'pin', upstream: index, count, path: prefix, method }),
      unpin: () => control({ mode: 'unpin' }),
      clearFaults: () => control({ mode: 'clear' }),
      killWs: () => control({ mode: 'kill_ws' }),
      /** Silences the open WebSocket tunnels (nothing forwarded, nothing closed) until unsilenceWs/clearFaults. */
      silenceWs: () => control({ mode: 'silence_ws' }),
      unsilenceWs: () => control({ mode: 'unsilence_ws' }),
      faults: () => control({}),
      proxyLog: ({ clear = false } = {}) => control({ mode: 'log', clear: clear ? 1 : undefined }),

      /** Counters of the actions; with several in-memory processes, their sum. */
      async counters() {
        const all = redisUrl ? [await httpJson(`${directUrls[0]}/__test/counters`)] : await onEach('/__test/counters');
        const sum = {};
        for (const counters of all) for (const [key, value] of Object.entries(counters)) sum[key] = (sum[key] ?? 0) + value;
        return sum;
      },
      countersByProcess: () => onEach('/__test/counters'),
      /** The request log of every process, oldest first. */
      async log() {
        const all = redisUrl ? [await httpJson(`${directUrls[0]}/__test/log`)] : await onEach('/__test/log');
        return all.flat().sort((a, b) => a.t - b.t);
      },
      async resetAll() {
        await onEach('/__test/reset', { method: 'POST' });
        if (proxyUrl) {
          await control({ mode: 'clear' });
          await control({ mode: 'log', clear: 1 });
        }
      },
      /** Every muxws peer of every process sends goaway, drains (at most `drain` s) and closes. */
      async goaway({ drain = 10 } = {}) {
        const answers = await onEach(`/__test/ws/goaway?${query({ drain })}`, { method: 'POST' });
        return answers.reduce((sum, answer) => sum + answer.peers, 0);
      },
      /** Cuts every muxws socket of every process (no close frame; TCP reset). */
      async closeSockets() {
        const answers = await onEach('/__test/ws/close', { method: 'POST' });
        return answers.reduce((sum, answer) => sum + answer.sockets, 0);
      },
      async wsPeers() {
        const answers = await onEach('/__test/ws/peers');
        return answers.reduce((sum, answer) => sum + answer.peers, 0);
      },
      stop() {
        stopped ??= stopAll();
        return stopped;
      },
    };
    return stack;
  } catch (error) {
    await stopAll();
    const logs = children.map((child) => `----- ${child.name} (${child.logPath})\n${child.logTail()}`).join('\n');
    error.message = `startStack failed: ${error.message}\n${logs}`;
    throw error;
  }
}

// ------------------------------------------------------------------ CLI
function parseArgs(argv) {
  const options = { redis: false, processes: 1, lockTtl: 6, proxy: true };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--redis') options.redis = true;
    else if (arg === '--no-proxy') options.proxy = false;
    else if (arg === '--processes') options.processes = Number(argv[++i]);
    else if (arg.startsWith('--processes=')) options.processes = Number(arg.split('=')[1]);
    else if (arg === '--lock-ttl') options.lockTtl = Number(argv[++i]);
    else if (arg.startsWith('--lock-ttl=')) options.lockTtl = Number(arg.split('=')[1]);
    else throw new Error(`unknown option ${arg}`);
  }
  if (!Number.isInteger(options.processes) || options.processes < 1) throw new Error('--processes must be >= 1');
  return options;
}

const isMain = process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isMain) {
  const [command, ...rest] = process.argv.slice(2);
  if (command !== 'serve') {
    console.error('usage: node tests/harness/stack.mjs serve [--redis] [--processes N] [--lock-ttl S] [--no-proxy]');
    process.exit(2);
  }
  const stack = await startStack(parseArgs(rest));
  const { baseUrl, wsUrl, directUrls, directWsUrls, proxyUrl, redisUrl, lockTtl, logDir, pids } = stack;
  console.log(JSON.stringify({
    baseUrl,
    wsUrl,
    directUrls,
    directWsUrls,
    proxyUrl,
    faultUrl: proxyUrl && `${proxyUrl}/__fault`,
    redisUrl,
    lockTtl,
    logDir: path.relative(repoRoot, logDir),
    pids,
  }));
  // stays up; the SIGINT/SIGTERM handlers stop the children and exit
  setInterval(() => {}, 1 << 30);
}
