/**
 * Opening one of the package's IndexedDB databases: the one rule of the persisted calls
 * (persist.ts) and of the follower's cursors (follow/persist.ts, whose chunk carries its own copy of
 * this code). Pure and stateless: each caller keeps the open it made for the page's life, its
 * failure included, and reads a failure in its own way (persist.ts: every write rejects with it;
 * the cursors: no database, nothing kept).
 */

/**
 * Opens database `name` (version 1; made with one object store, `store`, of `options`: its
 * `keyPath`, else keyed by the key each write names). Rejects where there is no IndexedDB (Node, server-side
 * rendering), when the open throws (a page whose storage is refused) and when it fails.
 */
export function openDatabase(name: string, store: string, options?: IDBObjectStoreParameters): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    // Without IndexedDB this throws a ReferenceError, which rejects the promise as any other failure.
    const request = indexedDB.open(name, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(store, options);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}
