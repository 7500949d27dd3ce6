/**
 * Persisted cursors (`persist: true` on `follow()` or `watch()`): per topic of a channel, the
 * cursor and scope in IndexedDB (database `fastapi-viewsets-cursors`, last writer wins across
 * tabs). Where there is no IndexedDB (Node, server-side rendering) nothing is kept and nothing is
 * read, silently. Ships in the follower's chunk.
 *
 * Its opener is persist.ts's (the persisted calls'), shared/indexed-db.ts, one rule: the open is
 * made once per page and its outcome kept, failure included (no IndexedDB, as in Node; a refused
 * or broken open), which here reads as "no database" (null) and there rejects the call's write.
 */
import { openDatabase } from '../shared/indexed-db.js';
import { isWhole } from '../shared/values.js';

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
  return (database ??= openDatabase(DATABASE, STORE).catch(() => null));
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
        resolve(isWhole(rev) ? { rev, scope: typeof value?.scope === 'string' ? value.scope : undefined } : undefined);
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
