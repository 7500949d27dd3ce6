/**
 * What a server render reads instead of following: a topic's rev (one poll of the events viewset
 * from now, or one an earlier render of this process took less than 5 s ago), then a live list's rows, through the proxy (its transport, headers and
 * interceptors, and the request scope's headers). The client then starts from these rows and
 * follows from that rev (`liveList(proxy, params, { initial })`, `follow(topic, { from })`), so a
 * change made between the two is delivered once, with no second read. Nothing here opens a
 * follower, a socket, a timer or a listener. Linked only into an app that calls it (the `/vue`
 * subpath's server render).
 */
import { internalsOf } from './caller.js';
import type { ProxyCore } from './compose.js';
import { now } from './clock.js';
import { currentRev, followCore } from './follow.js';
import { pageOf } from './shared/page.js';
import { isObject, isWhole } from './shared/values.js';
import type { RecordOf } from './viewset.js';
import type { LiveOptions, LivePageSeed, LiveParams, LiveWindowSeed } from './vocabulary/live-types.js';
import type { Topic } from './vocabulary/events.js';

/** What `readLiveList()` gives: the rows (empty when the read failed), the rev they are as of, the read's error. */
export interface LiveSnapshot<T> {
  /** The rows as the list read them (empty when the read failed). */
  rows: T[];
  /**
   * The topic's rev taken before the read (every change after it is delivered to a follower from
   * it); null when it could not be had (the topic refused, the poll failed): the client reads again.
   */
  rev: number | null;
  /** Why the read failed; null when it did not. */
  error: Error | null;
  /**
   * The window of pages the rows are (JSON-safe; null when the read failed): give it with the rows
   * (`initial.window`), and the client's `status.window`, `total` and `loadMore()` go on from it.
   */
  window: LiveWindowSeed | null;
}

/** What `readLiveList()` reads with: the live list's options of the same names (`pages`: pages to read, default 1). */
export type ReadLiveOptions = Pick<LiveOptions, 'eventsPath' | 'shape' | 'pageSize' | 'pages'>;

/**
 * The revs this process's renders last took, by topic (its transport, origin and events path). A
 * rev taken before a read is a safe cursor for it, however much earlier: a render that finds one
 * taken less than `FRESH_MS` ago reads the list at once, with no poll (one round trip, as a plain
 * read), and the client follows from that rev; the changes since it that the rows already show are
 * applied again (their rows read again: a change applied twice gives the same list). The server
 * keeps 32 events of a topic for 60 s: a topic changed more often than that in `FRESH_MS` makes the
 * client read the list again (a resync). Only a number per topic is kept (at most `MAX_SEEN`),
 * nothing of any request.
 */
const seen = new Map<string, { rev: number; at: number }>();
const FRESH_MS = 5000;
const MAX_SEEN = 1000;

/** A rev a render of `key` may use without a poll: one taken less than `FRESH_MS` ago. */
function freshRev(key: string): number | undefined {
  const known = seen.get(key);
  return known && now() - known.at < FRESH_MS ? known.rev : undefined;
}

/** Remembers `rev`, just taken for `key` (the oldest entry forgotten beyond `MAX_SEEN`). */
function remember(key: string, rev: number | null): number | null {
  if (rev === null) return rev;
  seen.delete(key);
  seen.set(key, { rev, at: now() });
  if (seen.size > MAX_SEEN) seen.delete(seen.keys().next().value as string);
  return rev;
}

/** The error a failed read rejected with, as an Error. */
const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** A list answer as a page of the window (the live list's own rule, shared/page.ts), apart from its rows. */
function pageSeed(answer: unknown): [unknown[], LivePageSeed] {
  const { rows, ...seed } = pageOf(answer);
  return [rows, seed];
}

/**
 * Reads `proxy`'s list as a live list's first read does, once, for a server render: the topic's
 * rev first (`eventsPath`, default `/events`), then the rows: `options.pages` pages (default 1) of
 * the list in `options.shape` (the proxy's `list()`, `listCursor()` or `listPage()`, the first it
 * has; a shape of its own asked for with `X-List-Shape`), `pageSize` rows a page, each page from
 * where the one before ended; with no poll when a render of this process took the topic's rev less
 * than 5 s ago, which is then the rev given (taken before this read). Gives the window the rows
 * are, for the client's `initial.window`. (A change between two page reads is after the rev: the
 * client is told of it and reads its window again.) Never rejects: a failed read gives no rows and
 * its error. A TypeError when `proxy` is not a ViewSet proxy or an option is not a whole number.
 */
export async function readLiveList<P extends object>(proxy: P, params?: LiveParams, options?: ReadLiveOptions): Promise<LiveSnapshot<RecordOf<P>>> {
  const core = internalsOf<ProxyCore>(proxy);
  const { eventsPath = '/events', shape, pageSize, pages = 1 } = options ?? {};
  if (!core) throw new TypeError('readLiveList() takes a ViewSet proxy');
  if (!isWhole(pages, 1) || (pageSize !== undefined && !isWhole(pageSize, 1))) throw new TypeError('readLiveList(): pages and pageSize are whole numbers, 1 or more');
  const key = `${core.transport.peerId}|${core.baseUrl}|${eventsPath}|${core.basePath}`;
  // the rev first, then the read (a rev taken after the read could skip a change)
  const rev = freshRev(key) ?? remember(key, await currentRev(core, core.basePath, eventsPath));
  const reader = proxy as unknown as Record<string, ((...args: unknown[]) => Promise<unknown>) | undefined>;
  const action = shape === 'cursor' ? reader.listCursor : shape === 'paginated' ? reader.listPage : shape ? reader.list : (reader.list ?? reader.listCursor ?? reader.listPage);
  try {
    let rows: unknown[] = [];
    let query: Record<string, unknown> = pageSize === undefined ? { ...params } : { limit: pageSize, ...params };
    let head: LivePageSeed | undefined;
    let tail: LivePageSeed;
    let read = 0;
    do {
      const [found, page] = pageSeed(await (action ? action.call(proxy, Object.keys(query).length ? query : undefined) : reader.request!.call(proxy, 'GET', '', { query, headers: { 'X-List-Shape': shape } })));
      rows = rows.concat(found);
      head ??= page;
      tail = page;
      // the next page: from its cursor, or the offset after this one
      query = { ...query, ...(page.shape === 'cursor' ? { cursor: page.next } : { offset: page.offset + page.limit }), limit: page.limit };
    } while (++read < pages && tail.hasMore && tail.shape !== 'plain');
    return { rows: rows as RecordOf<P>[], rev, error: null, window: { pages: read, head: head as LivePageSeed, tail } };
  } catch (error) {
    return { rows: [], rev, error: asError(error), window: null };
  }
}

/**
 * The current rev of `topic` (one poll from now, through `follow()`'s options: `baseUrl` or
 * `peer`, `eventsPath`), for a server render whose client then follows `from` it; null when it
 * cannot be had. A TypeError for options `follow()` refuses.
 */
export function readRev(topic: Topic, options: { baseUrl?: string; peer?: unknown; eventsPath?: string } = {}): Promise<number | null> {
  return currentRev(followCore(options)[1], topic, options.eventsPath ?? '/events');
}
