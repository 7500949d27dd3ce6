/**
 * What only a paged live list does with its rows (part of the paged list's chunk, `live/paged.js`):
 * a page `loadMore()` read joined to the window, and a window in the server's fixed order patched
 * from a change instead of read whole (where a created or deleted row leaves it; its last page read
 * again and joined). It works on the live list's state through `PagedHost`, an interface with named
 * members the list hands it: the list owns that state, and these functions change it only as the
 * list itself would.
 */
import { compareValues, isObject, isPk } from '../shared/values.js';
import type { ListWindow, Page } from './window.js';

/**
 * A value of a row and the tick its request went out at. A row an event created and not yet read
 * holds its place with no value (asOf -1): rows show in the order the server created them.
 */
export interface Held {
  value: Record<string, unknown> | undefined;
  asOf: number;
  /** An own write's answer in a list read with params: its place is not the server's until the list is read again. */
  own?: boolean;
}

/** What the paged list's logic uses of the live list: its window, its rows and their ticks, by name. */
export interface PagedHost {
  /** The list's window of pages. */
  readonly window: ListWindow;
  /** The rows the list holds, by key, in the server's order (replaced whole by `setBase`). */
  readonly base: Map<string, Held>;
  /** The tick of each row's last event. */
  readonly seen: Map<string, number>;
  /** The rows an event deleted. */
  readonly gone: Set<string>;
  /** Own answers kept over a row until the read an event asked for lands. */
  readonly holds: Map<string, { value: Record<string, unknown>; after: number }>;
  /** The rows of changes still to be read. */
  readonly toFetch: Map<string, string | number>;
  /** The name of the records' key field. */
  readonly pkField: string;
  /** The list was closed. */
  readonly closed: boolean;
  /** Creates and deletes told so far. */
  readonly shifts: number;
  /** The window is patched from changes (`placeIn`, `readTail`). */
  readonly placing: boolean;
  /** Makes `base` the rows the list holds. */
  setBase(base: Map<string, Held>): void;
  /** A row that appeared (read at `asOf`) may be a pending create's: the list marks it with that create. */
  absorb(k: string, value: Record<string, unknown>, asOf: number): void;
  /** Asks the list for a read (`tail`: its last page again). */
  read(more: number, tail: boolean): Promise<void>;
}

/**
 * Where a created or deleted row (`held`: the window holds it) leaves the window: 0 unmoved, 1
 * its end moved (its last page is read again and joined, `readTail`), 2 a place it cannot tell
 * (read whole).
 *
 * A paginated window: a delete inside moves the rows after it up one place; one beyond a window
 * that starts at offset 0 changes only the count; a create lands where the backend puts it
 * (the end, for a container or a pk order) — the last page read again shows whether anything
 * before it moved (`joinTail` checks), and the count. A delete outside a window that starts
 * further on may have been before it: read whole.
 *
 * A cursor window (the pk is its order): a row deleted between the window's first and last
 * rows (as read) leaves it, and its last page is read again with one row more; a row created
 * after its last row is beyond it, unless the window holds the list's end. Anything else (a
 * create before its end, a window grown backwards, pks the order cannot compare): read whole.
 */
export function placeIn(host: PagedHost, op: 'created' | 'deleted', pk: string | number, held: boolean): number {
  const window = host.window;
  const head = window.head as Page;
  const tail = window.tail as Page;
  if (tail.shape !== 'cursor') return op === 'created' || held || head.offset === 0 ? 1 : 2;
  const first = head.rows[0];
  const last = tail.rows[tail.rows.length - 1];
  if (!isObject(first) || !isObject(last)) return 2;
  const afterFirst = compareValues(pk, first[host.pkField]);
  const afterLast = compareValues(pk, last[host.pkField]);
  if (afterFirst === undefined || afterLast === undefined) return 2;
  if (afterLast > 0) return op === 'deleted' || tail.hasMore ? 0 : 1;
  if (op === 'created' || window.behind) return 2;
  // deleted before the first row: before a window that starts at a cursor; else inside it
  return afterFirst < 0 ? 0 : 1;
}

/**
 * Reads the window's last page again and joins it to the rows before it (`placeIn` said only
 * the window's end moved). False when the window is to be read whole instead: the join's plan
 * or its check failed. An answer overtaken by a newer create or delete is dropped, and the page
 * read once more (that change asked for it, or this asks).
 */
export async function readTail(host: PagedHost, asOf: number): Promise<boolean> {
  const window = host.window;
  // (a window a server read: its last page's query is not known here, and it is read whole once)
  if (!host.placing || !window.rereadable) return false;
  const tail = window.tail as Page;
  const head = window.head as Page;
  // the rows the window keeps before its last page: a paginated window's by their offset; a
  // cursor window's by their pk (the order), as many as a fresh read of its pages then needs
  let keep = tail.offset - head.offset;
  let limit = tail.limit;
  if (tail.shape === 'cursor') {
    const first = tail.rows[0];
    keep = host.base.size;
    if (isObject(first)) {
      keep = 0;
      for (const held of host.base.values()) {
        const order = held.value && compareValues(held.value[host.pkField], first[host.pkField]);
        if (order === undefined) return false;
        if (order >= 0) break;
        keep++;
      }
    }
    limit = window.pages * window.size - keep;
    if (window.behind || limit < 1 || limit > 1000) return false;
  }
  const shifts = host.shifts;
  const page = await window.again(limit);
  if (host.closed) return true;
  if (host.shifts !== shifts) {
    void host.read(0, true);
    return true;
  }
  return joinTail(host, page, keep, asOf);
}

/**
 * The window's first `keep` rows, then `page` (its last page read again at `asOf`) — when the page
 * starts with the rows the window holds after those, in their order, and holds none of the kept
 * ones: else rows moved before the page (a create landed inside the window, or a change not told
 * yet) and the join is refused. A row held after the kept ones is needed to tell.
 */
function joinTail(host: PagedHost, page: Page, keep: number, asOf: number): boolean {
  const { base, seen, gone, holds, pkField } = host;
  // the held rows after the kept ones (the kept ones are walked over, not copied: O(page) work)
  const rest: string[] = [];
  let at = 0;
  for (const k of base.keys()) if (at++ >= keep) rest.push(k);
  // no held row after the kept ones: nothing would show a shift before the page
  if (keep && !rest.length) return false;
  const pks: string[] = [];
  for (const value of page.rows) {
    const pk = isObject(value) ? value[pkField] : undefined;
    if (!isPk(pk)) return false;
    const k = String(pk);
    // past the held rows: none the window holds (a kept one)
    if (pks.length < rest.length ? k !== rest[pks.length] : base.has(k)) return false;
    pks.push(k);
  }
  // every held row after the kept ones, and no row twice
  if (pks.length < rest.length || new Set(pks).size < pks.length) return false;
  const before = new Map(rest.map((k) => [k, base.get(k) as Held]));
  for (const k of rest) base.delete(k);
  page.rows.forEach((value, i) => {
    const k = pks[i];
    const held = before.get(k);
    if ((seen.get(k) ?? 0) > asOf && gone.has(k)) return;
    if (held && held.asOf > asOf) return void base.set(k, held);
    base.set(k, { value: value as Record<string, unknown>, asOf });
    if (!held?.value) host.absorb(k, value as Record<string, unknown>, asOf);
    const hold = holds.get(k);
    if (hold && hold.after < asOf) holds.delete(k);
    if ((seen.get(k) ?? 0) < asOf) host.toFetch.delete(k);
  });
  host.window.keepTail(page);
  return true;
}

/**
 * Reads the page `loadMore()` asked for (after the window: 1, before it: -1), asked for at `asOf`,
 * and joins it to the rows. True when the window is to be read whole instead, in this read: the
 * list's count changed, or the page holds a row the window holds already (rows moved across the
 * pages since they were read).
 */
export async function readMore(host: PagedHost, more: number, asOf: number): Promise<boolean> {
  const { rows, moved } = await host.window.more(more);
  const { pkField, seen, gone } = host;
  if (moved || rows.some((value) => isObject(value) && isPk(value[pkField]) && host.base.has(String(value[pkField])))) return true;
  if (host.closed) return false;
  const added = new Map<string, Held>();
  for (const value of rows) {
    const pk = isObject(value) ? value[pkField] : undefined;
    if (!isPk(pk)) continue;
    const k = String(pk);
    if (added.has(k)) continue;
    if (!((seen.get(k) ?? 0) > asOf && gone.has(k))) {
      added.set(k, { value: value as Record<string, unknown>, asOf });
      host.absorb(k, value as Record<string, unknown>, asOf);
    }
  }
  if (more < 0) host.setBase(new Map([...added, ...host.base]));
  else for (const [k, held] of added) host.base.set(k, held);
  return false;
}
