/**
 * Persisted cursors (`persist: true` on `follow()` or `watch()`): per topic of a channel, the
 * cursor and scope in IndexedDB (database `fastapi-viewsets-cursors`, last writer wins across
 * tabs). Where there is no IndexedDB (Node, server-side rendering) nothing is kept and nothing is
 * read, silently. Ships in the follower's chunk.
 */

const DATABASE = 'fastapi-viewsets-cursors';
const STORE = 'cursors';

/** A stored cursor. */
export interface StoredCursor {
  rev: number;
  scope?: string;
}

let database: Promise<IDBDatabase | null> | undefined;

/** The database, or null without IndexedDB (or when it cannot be opened). */
function open(): Promise<IDBDatabase | null> {
  database ??= new Promise((resolve) => {
    if (typeof indexedDB === 'undefined') return resolve(null);
    try {
      const request = indexedDB.open(DATABASE, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => resolve(null);
    } catch {
      resolve(null);
    }
  });
  return database;
}

/** The cursor stored for `topic` of the channel `channelKey`, if any (a stored value that is not one is ignored). */
export async function loadCursor(channelKey: string, topic: string): Promise<StoredCursor | undefined> {
  const db = await open();
  if (!db) return undefined;
  return new Promise((resolve) => {
    try {
      const request = db.transaction(STORE, 'readonly').objectStore(STORE).get(`${channelKey} ${topic}`);
      request.onsuccess = () => {
        const value = request.result as { rev?: unknown; scope?: unknown } | undefined;
        const rev = value?.rev;
        const ok = typeof rev === 'number' && Number.isSafeInteger(rev) && rev >= 0;
        resolve(ok ? { rev, scope: typeof value?.scope === 'string' ? value.scope : undefined } : undefined);
      };
      request.onerror = () => resolve(undefined);
    } catch {
      resolve(undefined);
    }
  });
}

/** Stores the cursor of `topic` of the channel `channelKey` (in the background; a failure loses only the cursor). */
export function saveCursor(channelKey: string, topic: string, rev: number, scope: string | undefined): void {
  void open().then((db) => {
    try {
      db?.transaction(STORE, 'readwrite').objectStore(STORE).put({ rev, scope, savedAt: Date.now() }, `${channelKey} ${topic}`);
    } catch {
      // a closed or full database: the cursor is not kept
    }
  });
}
