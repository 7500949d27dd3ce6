/**
 * Calls that live through a reload (opt-in: `persist: true` on a proxy or a call). A persisted call
 * is written to IndexedDB when it is issued — method, path and query, body bytes, the headers it
 * went out with except credentials, its key, when it was issued and its repeat window — and
 * removed when it settles. After a reload, `resumeCalls()` sends every stored call again with its
 * key and its very bytes, through the proxy made for its `basePath` (which supplies credentials
 * afresh), until its original `withinMs` runs out: the backend answers a call that already ran with
 * its stored outcome. A tab holds a Web Lock for each call it sends, so two tabs never send one.
 *
 * Only an app that calls `resumeCalls()` links this in; until it does, `persist` stores nothing.
 * A call is stored in the task that issues it, so a reload right after it keeps it. A FormData body
 * is read into bytes once, later: until then its entries are stored, and the bytes replace them in
 * the task that sends the first attempt. (A Blob the page made from memory a moment before may
 * still be lost: its bytes are still on their way to the browser's store.) Bodies are stored in
 * the clear. Calls over muxws and
 * through an axios instance are not persisted.
 */
import { issueCall, joinPath, proxyFor } from './compose.js';
import { ViewSetError } from './errors.js';
import { openDatabase } from './shared/indexed-db.js';
import type { CallRecord, StoredSend, ViewSetCall } from './vocabulary/call-types.js';
import { observeCalls, warn } from './runtime.js';

const DATABASE = 'fastapi-viewsets';
const CALLS = 'calls';
const LOCK_PREFIX = 'fastapi-viewsets:call:';
/** Never stored: credentials are supplied afresh by the proxy a call is resumed through. */
const CREDENTIALS = ['authorization', 'cookie', 'proxy-authorization', 'idempotency-key'];

/** One stored call. */
interface StoredCall {
  key: string;
  basePath: string;
  method: string;
  /** The path relative to `basePath`. */
  path: string;
  query: string;
  headers: [string, string][];
  body: string | Blob | ArrayBuffer | ArrayBufferView | null;
  /**
   * A FormData body's entries, until its bytes are read: no attempt has gone out before they are,
   * so a call resumed from its entries may send bytes of its own. (Absent in older records.)
   */
  form?: [string, FormDataEntryValue][] | null;
  issuedAt: number;
  withinMs: number;
  delayMs: number;
  jitter: number;
}

/** A stored call `resumeCalls()` found, and what became of it. */
export interface ResumedCall {
  key: string;
  method: string;
  /** The path, `basePath` included. */
  path: string;
  /** When it was first issued (ms since the epoch). */
  issuedAt: number;
  /** The call sent again; null when it was not (expired, no proxy for its path, another tab has it). */
  call: ViewSetCall<unknown> | null;
  /** Why it was not sent again, if it was not. */
  skipped?: 'expired' | 'no-proxy' | 'other-tab';
}

/** Options of `resumeCalls()`. */
export interface ResumeOptions {
  /** Called with each resumed call when it settles, and with each stored call that expired. */
  onSettle?(call: ResumedCall, outcome: { ok: true; value: unknown } | { ok: false; error: unknown }): void;
}

/** The stored call's window ran out before it could be sent again. */
export class CallExpired extends ViewSetError {
  override name = 'CallExpired';
}

let database: Promise<IDBDatabase> | null = null;

/**
 * The database of persisted calls, opened once per page and its outcome kept, failure included
 * (no IndexedDB, a refused or broken open: every write rejects with it). The opener is the
 * follower's cursors' too (shared/indexed-db.ts).
 */
function open(): Promise<IDBDatabase> {
  return (database ??= openDatabase(DATABASE, CALLS, { keyPath: 'key' }));
}

/** Runs `work` on the calls store and resolves with its request's result. */
async function withCalls<T>(mode: IDBTransactionMode, work: (calls: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  return new Promise((resolve, reject) => {
    const transaction = db.transaction(CALLS, mode);
    const request = work(transaction.objectStore(CALLS));
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    // Committed at once, not when the request's callbacks are done: a page reloaded in the task
    // that issued a call otherwise lost its record about half the time (tests/browser/life.test.mjs, (f)).
    transaction.commit?.();
  });
}

/** Releases of the Web Locks this tab holds, by key. */
const held = new Map<string, () => void>();

/** Holds the lock of `key` until `release` is called; `ifAvailable`: give up (false) when another tab holds it. */
function lock(key: string, ifAvailable: boolean): Promise<boolean> {
  const locks = (globalThis.navigator as { locks?: LockManager } | undefined)?.locks;
  if (!locks) return Promise.resolve(true);
  return new Promise((granted) => {
    locks
      .request(LOCK_PREFIX + key, { ifAvailable }, (lock) => {
        granted(lock !== null);
        return lock === null ? undefined : new Promise<void>((release) => held.set(key, release));
      })
      .catch(() => granted(!ifAvailable));
  });
}

function unlock(key: string): void {
  held.get(key)?.();
  held.delete(key);
}

/** The records of the calls `resumeCalls()` is sending again, by key, until each is issued. */
const resumedRecords = new Map<string, StoredCall>();

/** What `sent` stores of `call`: its headers (credentials and `persistExclude` left out) and body. */
function sentFields(call: CallRecord, sent: StoredSend): Pick<StoredCall, 'headers' | 'body' | 'form'> {
  const excluded = new Set([...CREDENTIALS, ...call.persistExclude]);
  return { headers: sent.headers.filter(([name]) => !excluded.has(name.toLowerCase())), body: sent.body, form: sent.form };
}

function put(record: StoredCall): Promise<IDBValidKey> {
  return withCalls('readwrite', (calls) => calls.put(record));
}

async function store(call: CallRecord): Promise<void> {
  const transport = call.transport;
  const resumedRecord = resumedRecords.get(call.key);
  resumedRecords.delete(call.key);
  if (!transport.stored) return;
  // A FormData's bytes are put in the task that sends the first attempt (both wait for them), and
  // after its entries: IndexedDB runs the writes of one store in the order they were made.
  if (call.resumed) {
    // Stored already, with its first issue time and whole window, and resumeCalls() holds its
    // lock: it is neither stored again nor locked twice. Only a FormData stored as its entries has
    // its bytes, read now, put in their place.
    const later = resumedRecord && transport.stored(call).later;
    if (later) await put({ ...resumedRecord, ...sentFields(call, await later) });
    return;
  }
  void lock(call.key, false);
  const { now, later } = transport.stored(call);
  const record: StoredCall = {
    key: call.key,
    basePath: call.basePath,
    method: call.method,
    path: call.path.slice(joinPath('', call.basePath).length),
    query: call.query,
    ...sentFields(call, now),
    issuedAt: Date.now(),
    withinMs: call.withinMs,
    delayMs: call.delayMs,
    jitter: call.jitter,
  };
  const first = put(record);
  if (!later) return void (await first);
  await Promise.all([first, later.then((sent) => put({ ...record, ...sentFields(call, sent) }))]);
}

/** A FormData of stored entries. */
function formOf(entries: [string, FormDataEntryValue][]): FormData {
  const form = new FormData();
  for (const [name, value] of entries) form.append(name, value);
  return form;
}

/** Removes the observer that stores persisted calls (null: persistence is off). */
let stopStoring: (() => void) | null = null;
/** The writes of calls being stored, by key: a call that settles first is removed after its write. */
const writes = new Map<string, Promise<void>>();

/**
 * Makes the registry of persisted calls afresh, for tests (`internalFreshRuntime`): persistence off
 * again (no store installed, as before `resumeCalls()`), the locks this tab holds released, the
 * records and writes under way forgotten (a write already made still lands in the database).
 */
export function freshPersist(): void {
  stopStoring?.();
  stopStoring = null;
  for (const release of held.values()) release();
  held.clear();
  resumedRecords.clear();
  writes.clear();
}

/** From now on, calls with `persist` are stored until they settle. */
function startStoring(): void {
  if (stopStoring) return;
  stopStoring = observeCalls({
    issued(call) {
      if (call.persist) writes.set(call.key, store(call).catch((error) => warn('a call could not be stored', error)));
    },
    settled(call) {
      if (!call.persist) return;
      const written = writes.get(call.key) ?? Promise.resolve();
      writes.delete(call.key);
      written
        .then(() => withCalls('readwrite', (calls) => calls.delete(call.key)))
        .catch((error) => warn('a settled call could not be removed from the store', error))
        .finally(() => unlock(call.key));
    },
  });
}

/**
 * Turns persistence on for this page and sends again every call a previous page stored and did not
 * see settle, with its key and bytes, through the proxies made so far (make them first). A call
 * whose `withinMs` ran out is dropped and reported to `onSettle` with a `CallExpired`; a call
 * another tab is sending is left to it. Needs IndexedDB (browsers): where there is none (Node,
 * server-side rendering) it resolves with no calls and leaves persistence off, so a call with
 * `persist` is sent as any other, unstored, and nothing is logged.
 */
export async function resumeCalls(options: ResumeOptions = {}): Promise<ResumedCall[]> {
  if (typeof indexedDB === 'undefined') return [];
  startStoring();
  const stored = await withCalls<StoredCall[]>('readonly', (calls) => calls.getAll());
  const resumed: ResumedCall[] = [];
  for (const record of stored) {
    const path = joinPath('', record.basePath, record.path);
    const entry: ResumedCall = { key: record.key, method: record.method, path, issuedAt: record.issuedAt, call: null };
    resumed.push(entry);
    const core = proxyFor(record.basePath);
    if (!core) {
      entry.skipped = 'no-proxy';
      continue;
    }
    if (!(await lock(record.key, true))) {
      entry.skipped = 'other-tab';
      continue;
    }
    // Another tab may have sent it and seen it settle since the records were read.
    if (!(await withCalls('readonly', (calls) => calls.count(record.key)))) {
      unlock(record.key);
      entry.skipped = 'other-tab';
      continue;
    }
    const left = record.issuedAt + record.withinMs - Date.now();
    if (left <= 0) {
      entry.skipped = 'expired';
      // Removed before the lock is released, so that no other tab finds it and reports it again.
      await withCalls('readwrite', (calls) => calls.delete(record.key)).catch(() => {});
      unlock(record.key);
      const error = new CallExpired(`${record.method} ${path} was not sent again: its withinMs ran out`, { key: record.key, attempts: 0 });
      tellSettled(options, entry, { ok: false, error });
      continue;
    }
    resumedRecords.set(record.key, record);
    const call = issueCall<unknown>(
      core,
      record.method,
      record.path,
      {
        key: record.key,
        query: new URLSearchParams(record.query),
        headers: record.headers,
        body: record.form ? formOf(record.form) : (record.body ?? undefined),
        repeat: { withinMs: left, delayMs: record.delayMs, jitter: record.jitter },
        persist: true,
      },
      { issuedAt: record.issuedAt },
    );
    resumedRecords.delete(record.key); // read while it was issued, unless it was refused before
    entry.call = call;
    call.then(
      (value) => tellSettled(options, entry, { ok: true, value }),
      (error: unknown) => tellSettled(options, entry, { ok: false, error }),
    );
  }
  return resumed;
}

function tellSettled(options: ResumeOptions, entry: ResumedCall, outcome: { ok: true; value: unknown } | { ok: false; error: unknown }): void {
  try {
    options.onSettle?.(entry, outcome);
  } catch (error) {
    warn('a resumeCalls onSettle handler threw', error);
  }
}
