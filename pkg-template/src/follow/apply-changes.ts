/**
 * `applyChanges(rows, change)` of every proxy: a `records_changed` payload applied to a list of
 * rows, each created or updated record retrieved through the proxy, a few at a time. Ships in the
 * follower's chunk. Created rows are appended and updated rows replaced where they stand: a list
 * kept sorted, filtered or paged by the server is not re-sorted or re-filtered (read it again, or
 * use a live list).
 */
import type { FollowServices } from '../follow-services.js';
import { isObject } from '../shared/values.js';

/** Retrieves one change has in flight at most. */
export const MAX_READS_IN_FLIGHT = 8;

/** A pk as a key that compares by value: a number and its string differ, two objects with the same fields are one. */
export function pkKey(pk: unknown): string {
  return typeof pk === 'object' && pk !== null ? `o:${stableJson(pk)}` : `${typeof pk}:${String(pk)}`;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** Runs `read` over `items`, at most `limit` at once; the first failure rejects, and no read starts after it. */
async function bounded<T, R>(items: readonly T[], limit: number, read: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const at = next++;
      try {
        out[at] = await read(items[at]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The rows with `change` (a `records_changed` payload) applied, through `proxy`'s `retrieve`. */
export async function applyChanges(services: FollowServices, proxy: object, rows: unknown, change: unknown): Promise<unknown[]> {
  if (!Array.isArray(rows)) throw new TypeError('applyChanges: rows must be an array');
  const op = isObject(change) ? change.op : undefined;
  const changes = isObject(change) ? change.changes : undefined;
  if ((op !== 'created' && op !== 'updated' && op !== 'deleted') || !Array.isArray(changes) || !changes.every((item) => isObject(item) && Object.hasOwn(item, 'pk'))) {
    throw new TypeError("applyChanges: change must be { op: 'created' | 'updated' | 'deleted', changes: [{ pk }] }");
  }
  const field = (proxy as { pkFieldName?: unknown }).pkFieldName;
  if (typeof field !== 'string') throw new TypeError('applyChanges() was called on an object that is not a ViewSet proxy');
  // each pk once, in the change's order
  const pks = [...new Map(changes.map((item) => [pkKey((item as { pk: unknown }).pk), (item as { pk: unknown }).pk])).values()];
  // the new records first (in the reader's context); a record gone meanwhile (404) leaves the rows
  let records: unknown[] = [];
  if (op !== 'deleted') {
    const retrieve = (proxy as { retrieve?: (pk: unknown) => Promise<unknown> }).retrieve;
    if (typeof retrieve !== 'function') throw new TypeError('applyChanges: the proxy has no retrieve() to read the changed records with');
    records = await bounded(pks, MAX_READS_IN_FLIGHT, (pk) =>
      retrieve.call(proxy, pk).then(
        (record) => {
          // a record of another pk is not this row's (a server that answers another record must not duplicate rows)
          if (!isObject(record) || pkKey(record[field]) !== pkKey(pk)) throw new TypeError(`applyChanges: retrieve(${String(pk)}) answered a record whose ${field} is not ${String(pk)}`);
          return record;
        },
        (error: unknown) => {
          if (error instanceof services.HttpError && error.status === 404) return undefined;
          throw error;
        },
      ),
    );
  }
  const out: unknown[] = [];
  const at = new Map<string, number>();
  for (const row of rows) {
    const key = pkKey(isObject(row) ? row[field] : undefined);
    if (!at.has(key)) at.set(key, out.length);
    out.push(row);
  }
  const gone = new Set<number>();
  pks.forEach((pk, index) => {
    const key = pkKey(pk);
    const found = at.get(key);
    const record = records[index];
    if (record === undefined) {
      if (found !== undefined) gone.add(found);
    } else if (found !== undefined) out[found] = record;
    else {
      at.set(key, out.length);
      out.push(record);
    }
  });
  return gone.size ? out.filter((_, index) => !gone.has(index)) : out;
}
