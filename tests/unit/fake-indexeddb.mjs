// A small fake IndexedDB for the unit tests that persist (calls: persist.ts; a follower's cursors:
// follow/persist.ts), installed in one file's process.

/**
 * A fake of the part of IndexedDB the package uses: databases of object stores, each keyed by its
 * `keyPath` or, without one, by the key `put()` is given. `stores` holds every store by name, each a
 * Map of key to value; `seed` fills the `calls` store as it is opened; `log` and `puts` record the
 * writes; `opened` the opens ([name, version]); `failGet` fails a `get()`'s request, `throwGet` and
 * `throwPut` make a read or a write transaction throw.
 */
export function installIndexedDB() {
  const stores = new Map();
  const log = [];
  const fake = {
    seed: new Map(),
    log,
    puts: [],
    opened: [],
    stores,
    failGet: false,
    throwGet: false,
    throwPut: false,
    rows: (name = 'calls') => [...(stores.get(name)?.values() ?? [])],
    uninstall: () => delete globalThis.indexedDB,
  };
  const request = (compute) => {
    const req = { result: undefined, error: null, onsuccess: null, onerror: null };
    queueMicrotask(() => {
      try {
        req.result = compute();
        req.onsuccess?.();
      } catch (error) {
        req.error = error;
        req.onerror?.();
      }
    });
    return req;
  };
  const storeOf = (rows) => ({
    put: (value, key) =>
      request(() => {
        const at = rows.keyPath === undefined ? key : value[rows.keyPath];
        log.push(['put', structuredClone(value)]);
        fake.puts.push([at, structuredClone(value)]);
        rows.set(at, structuredClone(value));
        return at;
      }),
    get: (key) =>
      request(() => {
        if (fake.failGet) throw new Error('read failed');
        return structuredClone(rows.get(key));
      }),
    delete: (key) => request(() => (log.push(['delete', key]), rows.delete(key), undefined)),
    getAll: () => request(() => [...rows.values()].map((value) => structuredClone(value))),
    count: (key) => request(() => (rows.has(key) ? 1 : 0)),
  });
  /** The databases opened, by name: the names of their stores. */
  const databases = new Map();
  const databaseOf = (names) => ({
    createObjectStore(name, options) {
      names.add(name);
      stores.set(name, Object.assign(new Map(), { keyPath: options?.keyPath }));
    },
    transaction(name, mode) {
      if (fake.throwGet && mode === 'readonly') throw new Error('the database is closing');
      if (fake.throwPut && mode === 'readwrite') throw new Error('the database is full');
      const rows = names.has(name) ? stores.get(name) : undefined;
      if (!rows) throw new Error(`no store ${name}`);
      return { objectStore: () => storeOf(rows), commit() {} };
    },
  });
  globalThis.indexedDB = {
    open(name, version) {
      fake.opened.push([name, version]);
      const fresh = !databases.has(name);
      if (fresh) databases.set(name, new Set());
      const req = { result: databaseOf(databases.get(name)), error: null, onsuccess: null, onerror: null, onupgradeneeded: null };
      queueMicrotask(() => {
        if (fresh) req.onupgradeneeded?.();
        for (const [key, value] of fake.seed) stores.get('calls')?.set(key, value);
        req.onsuccess?.();
      });
      return req;
    },
  };
  return fake;
}
