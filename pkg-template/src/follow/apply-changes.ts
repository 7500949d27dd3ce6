/**
 * `applyChanges(rows, change)` of every proxy: a `records_changed` payload applied to a list of
 * rows, each created or updated record read through the proxy. Ships in the follower's chunk.
 * Where the ViewSet's schema declares a `{pk}__in` filter on its list (as the live list reads it),
 * the records are read by a few list calls of many pks each; else by retrieves, a few at a time.
 * Created rows are appended and updated rows replaced where they stand: a list kept sorted,
 * filtered or paged by the server is not re-sorted or re-filtered (read it again, or use a live
 * list).
 */
import type { FollowServices } from '../follow-services.js';
import { isObject } from '../shared/values.js';

/** Reads (retrieves, or `{pk}__in` list calls) one change has in flight at most. */
export const MAX_READS_IN_FLIGHT = 8;
/** The query one `{pk}__in` list call carries at most (characters): well under a server's request-line limit (8 KiB and up). */
export const MAX_QUERY_CHARS = 6000;

/**
 * A pk as a key that compares exactly, or undefined for a value that cannot be a pk: a string
 * (neither empty nor a path's dot segment), a safe integer, or a bigint (an integer and its bigint
 * are one key; a number and its string differ). A number past 2^53 has lost digits already and is
 * not one: such pks compare exactly as strings or bigints.
 */
export function pkKey(pk: unknown): string | undefined {
  if (typeof pk === 'string') return pk && pk !== '.' && pk !== '..' ? `s:${pk}` : undefined;
  if (typeof pk === 'bigint' || Number.isSafeInteger(pk)) return `i:${String(pk)}`;
  return undefined;
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

/** Whether each proxy's list takes `{pk}__in` (its schema, asked once per proxy). */
const takesPkIn = new WeakMap<object, Promise<boolean>>();

/** What applyChanges() reads records with: a proxy's basePath, request(), list() and retrieve(). */
interface Reader {
  basePath?: unknown;
  pkFieldName?: unknown;
  request(method: string, path: string, options: object): Promise<unknown>;
  list?(params: object): Promise<unknown>;
  retrieve?(pk: unknown): Promise<unknown>;
}

/** Whether `proxy`'s schema declares the query parameter `{field}__in` on its list (false when it cannot be read, or the proxy has no list). */
function listTakesPkIn(proxy: Reader, field: string): Promise<boolean> {
  let known = takesPkIn.get(proxy);
  if (!known) {
    const base = String(proxy.basePath).replace(/\/$/, '');
    // a proxy without request() throws here, and reads by retrieves
    known = Promise.resolve()
      .then(() => proxy.list && proxy.request('GET', '/schema', { background: true, repeat: { withinMs: 0 } }))
      .then((document) => {
        const paths = isObject(document) && document.paths;
        const entry = isObject(paths) && (paths[base] ?? paths[`${base}/`]);
        const parameters = isObject(entry) && isObject(entry.get) && entry.get.parameters;
        return Array.isArray(parameters) && parameters.some((parameter) => isObject(parameter) && parameter.in === 'query' && parameter.name === `${field}__in`);
      })
      .catch(() => false);
    takesPkIn.set(proxy, known);
  }
  return known;
}

/** `pks` in batches for `{field}__in` list calls, each within MAX_QUERY_CHARS (so at most 666 pks). */
function batchesOf(pks: readonly unknown[], field: string): unknown[][] {
  const out: unknown[][] = [];
  let batch: unknown[] = [];
  let chars = Infinity;
  for (const pk of pks) {
    const cost = field.length + 6 + encodeURIComponent(String(pk)).length;
    if ((chars += cost) > MAX_QUERY_CHARS) out.push((batch = [])), (chars = cost);
    batch.push(pk);
  }
  return out;
}

/** The rows with `change` (a `records_changed` payload) applied, through `proxy`'s list (`{pk}__in`) or `retrieve`. */
export async function applyChanges(services: FollowServices, given: object, rows: unknown, change: unknown): Promise<unknown[]> {
  const proxy = given as Reader;
  if (!Array.isArray(rows)) throw new TypeError('applyChanges: rows must be an array');
  const op = isObject(change) ? change.op : undefined;
  const changes = isObject(change) ? change.changes : undefined;
  if ((op !== 'created' && op !== 'updated' && op !== 'deleted') || !Array.isArray(changes) || !changes.every((item) => isObject(item) && Object.hasOwn(item, 'pk'))) {
    throw new TypeError("applyChanges: change must be { op: 'created' | 'updated' | 'deleted', changes: [{ pk }] }");
  }
  const field = proxy.pkFieldName;
  if (typeof field !== 'string') throw new TypeError('applyChanges() was called on an object that is not a ViewSet proxy');
  // each pk once, in the change's order, every one checked before anything is sent
  const byKey = new Map<string, unknown>();
  for (const { pk } of changes as { pk: unknown }[]) {
    const key = pkKey(pk);
    if (key === undefined) throw new TypeError(`applyChanges: ${String(pk)} is no pk (a string, a safe integer or a bigint)`);
    byKey.set(key, pk);
  }
  // the new records first (in the reader's context); a record gone meanwhile (404, or left out of a list) leaves the rows
  const records = new Map<string | undefined, unknown>();
  if (op !== 'deleted') {
    const retrieve = proxy.retrieve;
    if (typeof retrieve !== 'function') throw new TypeError('applyChanges: the proxy has no retrieve() to read the changed records with');
    const pks = [...byKey.values()];
    // more than one round of retrieves: a few list calls instead, where the list takes `{pk}__in`
    if (pks.length > MAX_READS_IN_FLIGHT && (await listTakesPkIn(proxy, field))) {
      await bounded(batchesOf(pks, field), MAX_READS_IN_FLIGHT, async (batch) => {
        const answer = await proxy.list!({ [`${field}__in`]: batch.map(String) });
        if (!Array.isArray(answer)) throw new TypeError('applyChanges: the list did not answer an array');
        // a record this change did not ask for is none of its
        for (const record of answer) if (isObject(record) && byKey.has(pkKey(record[field])!)) records.set(pkKey(record[field]), record);
      });
    } else {
      await bounded(pks, MAX_READS_IN_FLIGHT, (pk) =>
        retrieve.call(proxy, pk).then(
          (record) => {
            // a record of another pk is not this row's (a server that answers another record must not duplicate rows)
            if (!isObject(record) || pkKey(record[field]) !== pkKey(pk)) throw new TypeError(`applyChanges: retrieve(${String(pk)}) answered a record whose ${field} is not ${String(pk)}`);
            records.set(pkKey(pk), record);
          },
          (error: unknown) => {
            if (!(error instanceof services.HttpError && error.status === 404)) throw error;
          },
        ),
      );
    }
  }
  const out: unknown[] = [];
  const at = new Map<string | undefined, number>();
  for (const row of rows) {
    const key = isObject(row) ? pkKey(row[field]) : undefined;
    if (key !== undefined && !at.has(key)) at.set(key, out.length);
    out.push(row);
  }
  const gone = new Set<number>();
  for (const key of byKey.keys()) {
    const found = at.get(key);
    const record = records.get(key);
    if (record === undefined) {
      if (found !== undefined) gone.add(found);
    } else if (found !== undefined) out[found] = record;
    else {
      at.set(key, out.length);
      out.push(record);
    }
  }
  return gone.size ? out.filter((_, index) => !gone.has(index)) : out;
}
