// The page side of tests/browser/life.test.mjs (issue 14: offline, retryNow, Retry-After,
// persistence, guardUnload): small steps the Node test drives with page.evaluate, each returning
// plain data. Loaded into tests/browser/runner.html by loadScenarios(); a step gets the runner's ctx
// ({ pkg, baseUrl, wsUrl, ctl }) and one argument.

/** What the steps of this page share: the proxy, the activity events, the outcomes by key. */
const life = { items: null, muxItems: null, peer: null, events: [], outcomes: {}, resumed: [], settled: [], stopGuard: null };
globalThis.life = life;

function itemsClass(base) {
  return class Items extends base {
    slow(note, sleepS = 0, options = {}) {
      return this.request('POST', '/slow', { ...options, query: { sleep: sleepS }, body: { note } });
    }
    echo(body, options = {}) {
      return this.request('POST', '/echo', { ...options, body });
    }
  };
}

/** The package's IndexedDB database, read directly: its stores, and the records of `calls`. */
async function readStore() {
  const db = await new Promise((resolve, reject) => {
    const request = indexedDB.open('fastapi-viewsets');
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  try {
    if (!db.objectStoreNames.contains('calls')) return { stores: [...db.objectStoreNames], records: [] };
    const records = await new Promise((resolve, reject) => {
      const request = db.transaction('calls', 'readonly').objectStore('calls').getAll();
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    return { stores: [...db.objectStoreNames], records };
  } finally {
    db.close();
  }
}

/**
 * A FormData of a text field and the file the test chose in the page's `#upload` input
 * (`chooseFile`): a file on disk, as a user uploads one.
 */
function uploadForm() {
  const form = new FormData();
  form.append('note', 'uploaded as the page went ✓');
  form.append('file', document.getElementById('upload').files[0]);
  return form;
}

/** An error as plain data. */
function plainError(error) {
  return { name: error?.name, message: String(error?.message ?? error), key: error?.key, attempts: error?.attempts, status: error?.status };
}

/** Keeps the outcome of `call` in `life.outcomes[call.key]` once it settles. */
function track(call) {
  life.outcomes[call.key] = { state: 'pending' };
  call.then(
    (value) => (life.outcomes[call.key] = { state: 'ok', value, at: Date.now() }),
    (error) => (life.outcomes[call.key] = { state: 'failed', error: plainError(error), at: Date.now() }),
  );
  return call.key;
}

export const lifeSteps = {
  /**
   * A REST items proxy (`options` over the defaults), the activity recorder, and with `resume`,
   * `resumeCalls()` (which also turns persistence on for this page); returns what it resumed.
   */
  async setup(ctx, { options = {}, resume = false, guard = false } = {}) {
    const { pkg, baseUrl } = ctx;
    pkg.onCallActivity((event) => life.events.push(event));
    const Items = itemsClass(pkg.restViewSet()('id', [pkg.ViewSetMixin]));
    life.items = new Items({ basePath: '/items', baseUrl, schemaCheck: false, ...options });
    if (guard) life.stopGuard = pkg.guardUnload();
    return resume ? lifeSteps.resume(ctx) : null;
  },

  /**
   * `resumeCalls()` (which also turns persistence on for this page), its onSettle reports kept in
   * `life.settled`; returns what it found, with `pendingCalls()` right after it.
   */
  async resume({ pkg }) {
    const resumed = await pkg.resumeCalls({
      onSettle(entry, outcome) {
        life.settled.push({
          key: entry.key,
          method: entry.method,
          path: entry.path,
          issuedAt: entry.issuedAt,
          skipped: entry.skipped ?? null,
          ok: outcome.ok,
          value: outcome.ok ? outcome.value : undefined,
          error: outcome.ok ? undefined : plainError(outcome.error),
          errorIsCallExpired: !outcome.ok && outcome.error instanceof pkg.CallExpired,
          at: Date.now(),
        });
      },
    });
    life.resumed = resumed;
    for (const entry of resumed) if (entry.call) track(entry.call);
    return {
      entries: resumed.map((entry) => ({
        key: entry.key,
        method: entry.method,
        path: entry.path,
        issuedAt: entry.issuedAt,
        sent: entry.call !== null,
        sentKey: entry.call?.key ?? null,
        skipped: entry.skipped ?? null,
      })),
      pending: pkg.pendingCalls(),
      at: Date.now(),
    };
  },

  /** Connects a muxws peer (fast reconnects) and a muxws items proxy over it; false when this build has no muxws. */
  async setupMuxws({ pkg, wsUrl }, { options = {}, reconnect = { initialDelayMs: 200, maxDelayMs: 2000 } } = {}) {
    try {
      life.peer = await pkg.connectMuxws(wsUrl, { reconnect });
    } catch (error) {
      return { available: false, why: `${error?.name}: ${error?.message}` };
    }
    const Items = itemsClass(pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]));
    life.muxItems = new Items({ basePath: '/items', peer: life.peer, schemaCheck: false, ...options });
    return { available: true };
  },

  /** Whether the muxws peer is connected now. */
  peerOpen() {
    return life.peer.isOpen;
  },

  /** Issues `proxy.<method>(...args)` (`muxws`: through the muxws proxy) and returns its key at once. */
  call(_ctx, { method, args = [], muxws = false }) {
    const proxy = muxws ? life.muxItems : life.items;
    return track(proxy[method](...args));
  },

  /**
   * `resumeCalls()` (which turns persistence on), then issues `items.<method>(...args)` and reloads
   * the page in the same task, before anything of the call could be awaited; the key is kept in
   * sessionStorage (`life:reloaded-key`) for after the reload.
   */
  async callThenReload({ pkg }, { method, args = [] }) {
    await pkg.resumeCalls();
    const key = life.items[method](...args).key;
    sessionStorage.setItem('life:reloaded-key', key);
    location.reload();
  },

  /** Adds the file input `#upload` to the page, for the test to choose a file in (Playwright's `setInputFiles`). */
  addFileInput() {
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'upload';
    document.body.append(input);
  },

  /**
   * `resumeCalls()`, then a POST of `uploadForm()` to `/items/raw`, and a reload in the same task,
   * before the FormData could be read into bytes; the key is kept as `callThenReload` keeps it.
   */
  async formThenReload({ pkg }) {
    await pkg.resumeCalls();
    const key = life.items.request('POST', '/raw', { body: uploadForm() }).key;
    sessionStorage.setItem('life:reloaded-key', key);
    location.reload();
  },

  /** `uploadForm()` sent by a raw fetch to `/items/raw` with a key of its own: what the backend reports of it. */
  async rawForm({ baseUrl }) {
    const headers = { 'Idempotency-Key': `"${crypto.randomUUID()}"` };
    const response = await fetch(`${baseUrl}/items/raw`, { method: 'POST', headers, body: uploadForm() });
    return response.json();
  },

  /** The shape of each stored record: its key, whether it holds a FormData's entries (and their names), its body's type. */
  async storedShapes() {
    const { records } = await readStore();
    return records.map((record) => ({
      key: record.key,
      form: record.form ? record.form.map(([name, value]) => [name, typeof value === 'string' ? value : `${value.constructor.name} ${value.name} ${value.size}`]) : null,
      bodyType: record.body === null ? 'null' : record.body?.constructor?.name ?? typeof record.body,
    }));
  },

  /** The key `callThenReload` kept. */
  reloadedKey() {
    return sessionStorage.getItem('life:reloaded-key');
  },

  /** The outcome of the call with `key` so far (`{state: 'pending' | 'ok' | 'failed', …}`). */
  outcome(_ctx, key) {
    return life.outcomes[key] ?? null;
  },

  /** `pendingCalls()` now, with `navigator.onLine` and `pendingCallCount()`. */
  pending({ pkg }) {
    return { calls: pkg.pendingCalls(), count: pkg.pendingCallCount(), onLine: navigator.onLine, now: Date.now() };
  },

  /** The activity events of the call with `key` (all when no key). */
  events(_ctx, key) {
    return key ? life.events.filter((event) => event.key === key) : life.events;
  },

  /** What resumeCalls' onSettle received. */
  settled() {
    return life.settled;
  },

  /**
   * Presses "try again now" `times` times; with `waitEach`, waits after each press until the call
   * with `key` has one more `retry` event (the manual attempt failed). Returns pendingCalls() after.
   */
  async retryNow({ pkg }, { times = 1, key = null, waitEach = false, timeoutMs = 20_000 } = {}) {
    for (let i = 0; i < times; i++) {
      const before = life.events.filter((event) => event.key === key && event.type === 'retry').length;
      pkg.retryNow();
      if (!waitEach) continue;
      const deadline = Date.now() + timeoutMs;
      while (life.events.filter((event) => event.key === key && event.type === 'retry').length === before) {
        if (Date.now() > deadline) throw new Error(`press ${i + 1}: the manual attempt did not end within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    return pkg.pendingCalls();
  },

  /** Every record of the package's IndexedDB store, read directly (bodies as text). */
  async stored() {
    const { stores, records } = await readStore();
    const text = async (body) => {
      if (body === null || body === undefined || typeof body === 'string') return body ?? null;
      if (body instanceof Blob) return body.text();
      return new TextDecoder().decode(body);
    };
    const out = [];
    for (const record of records) out.push({ ...record, body: await text(record.body), bodyType: typeof record.body, raw: JSON.stringify(record, (k, v) => (k === 'body' && typeof v !== 'string' ? '[binary]' : v)) });
    return { stores, records: out };
  },

  /** The Web Locks of this origin held and requested, by name (`navigator.locks.query()`). */
  async locks() {
    const { held = [], pending = [] } = await navigator.locks.query();
    return { held: held.map((lock) => lock.name), pending: pending.map((lock) => lock.name) };
  },

  /** `internalStats()` (for leak checks). */
  stats({ pkg }) {
    return pkg.internalStats();
  },
};
