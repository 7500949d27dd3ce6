// A small fake IndexedDB for the unit tests of persisted calls, installed in one file's process.

/** A fake of the part of IndexedDB persist.ts uses: one database of object stores keyed by `keyPath`. */
export function installIndexedDB() {
  const stores = new Map();
  const log = [];
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
  const storeOf = (name) => {
    const rows = stores.get(name);
    const keyPath = rows.keyPath;
    return {
      put: (value) => request(() => (log.push(['put', structuredClone(value)]), rows.map.set(value[keyPath], structuredClone(value)), value[keyPath])),
      delete: (key) => request(() => (log.push(['delete', key]), rows.map.delete(key), undefined)),
      getAll: () => request(() => [...rows.map.values()].map((value) => structuredClone(value))),
      count: (key) => request(() => (rows.map.has(key) ? 1 : 0)),
    };
  };
  const db = {
    createObjectStore(name, { keyPath }) {
      stores.set(name, { keyPath, map: new Map() });
    },
    transaction: (name) => ({ objectStore: () => storeOf(name), commit() {} }),
  };
  globalThis.indexedDB = {
    open() {
      const req = { result: db, error: null, onsuccess: null, onerror: null, onupgradeneeded: null };
      queueMicrotask(() => {
        if (!stores.size) req.onupgradeneeded?.();
        for (const [key, value] of fake.seed) stores.get('calls').map.set(key, value);
        req.onsuccess?.();
      });
      return req;
    },
  };
  const fake = {
    seed: new Map(),
    log,
    rows: (name = 'calls') => [...(stores.get(name)?.map.values() ?? [])],
    uninstall: () => delete globalThis.indexedDB,
  };
  return fake;
}
