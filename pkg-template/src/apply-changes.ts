/**
 * `applyChanges(rows, change)` of every proxy: a `records_changed` payload applied to a list of
 * rows, each created or updated record retrieved through the proxy. Used by follow-engine.ts only,
 * so it ships in that chunk.
 */
import type { FollowKit } from './follow-kit.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The rows with `change` (a `records_changed` payload) applied, through `proxy`'s `retrieve`. */
export async function applyChanges(kit: FollowKit, proxy: object, rows: unknown, change: unknown): Promise<unknown[]> {
  if (!Array.isArray(rows)) throw new TypeError('applyChanges: rows must be an array');
  const op = isObject(change) ? change.op : undefined;
  const changes = isObject(change) ? change.changes : undefined;
  if ((op !== 'created' && op !== 'updated' && op !== 'deleted') || !Array.isArray(changes) || !changes.every((item) => isObject(item) && 'pk' in item)) {
    throw new TypeError("applyChanges: change must be { op: 'created' | 'updated' | 'deleted', changes: [{ pk }] }");
  }
  const field = (proxy as { pkFieldName?: unknown }).pkFieldName;
  if (typeof field !== 'string') throw new TypeError('applyChanges() was called on an object that is not a ViewSet proxy');
  const pks = changes.map((item) => (item as { pk: unknown }).pk);
  // the new records first (in the reader's context); a record gone meanwhile (404) leaves the rows
  let records: unknown[] = [];
  if (op !== 'deleted') {
    const retrieve = (proxy as { retrieve?: (pk: unknown) => Promise<unknown> }).retrieve;
    if (typeof retrieve !== 'function') throw new TypeError('applyChanges: the proxy has no retrieve() to read the changed records with');
    records = await Promise.all(
      pks.map((pk) =>
        retrieve.call(proxy, pk).catch((error: unknown) => {
          if (error instanceof kit[0] && error.status === 404) return undefined;
          throw error;
        }),
      ),
    );
  }
  const out: unknown[] = [];
  const at = new Map<string, number>();
  for (const row of rows) {
    const pk = String(isObject(row) ? row[field] : undefined);
    if (!at.has(pk)) at.set(pk, out.length);
    out.push(row);
  }
  const gone = new Set<number>();
  pks.forEach((pk, index) => {
    const found = at.get(String(pk));
    const record = records[index];
    if (record === undefined) {
      if (found !== undefined) gone.add(found);
    } else if (found !== undefined) out[found] = record;
    else {
      at.set(String(pk), out.length);
      out.push(record);
    }
  });
  return gone.size ? out.filter((_, index) => !gone.has(index)) : out;
}
