/**
 * Persisted cursors (`persist: true` on `follow()` or `watch()`): per topic of a channel, the
 * cursor and scope in IndexedDB (database `fastapi-viewsets-cursors`, last writer wins across
 * tabs). Where there is no IndexedDB (Node, server-side rendering) nothing is kept and nothing is
 * read, silently. Ships in the follower's chunk.
 *
 * Its opener and persist.ts's (the persisted calls') keep one rule, written twice: the open is
 * made once per page and its outcome kept, failure included (no IndexedDB, as in Node; a refused
 * or broken open), which here reads as "no database" (null) and there rejects the call's write.
 * Twice, because the chunk imports no code from outside its folder, and handing one opener in with
 * the follower's services would link it into every app whose proxies can `watch()`, the REST-only
 * app among them (124 B gzip, past its ceiling).
 */
import { isRev } from './wire.js';

const DATABASE = 'fastapi-viewsets-cursors';
const STORE = 'cursors';

/** A stored cursor. */
export interface StoredCursor {
  rev: number;
  scope?: string;
}

let database: Promise<IDBDatabase | null> | undefined;

/** The database, or null without IndexedDB (or when it cannot be opened: kept for the page's life, as persist.ts's). */
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
        resolve(isRev(rev) ? { rev, scope: typeof value?.scope === 'string' ? value.scope : undefined } : undefined);
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
