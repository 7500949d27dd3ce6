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
import { isObject } from './shared/values.js';
import type { RecordOf } from './viewset.js';
import type { LiveParams } from './vocabulary/live-types.js';
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
}

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

/**
 * Reads `proxy`'s list as a live list's first read does, once, for a server render: the topic's
 * rev first (`eventsPath`, default `/events`), then the rows (`list(params)`, or `listPage()`'s
 * `results`); with no poll when a render of this process took the topic's rev less than 5 s
 * ago, which is then the rev given (taken before this read). Never rejects: a failed read gives no rows and its error. A TypeError when `proxy`
 * is not a ViewSet proxy.
 */
export async function readLiveList<P extends object>(proxy: P, params?: LiveParams, options?: { eventsPath?: string }): Promise<LiveSnapshot<RecordOf<P>>> {
  const core = internalsOf<ProxyCore>(proxy);
  if (!core) throw new TypeError('readLiveList() takes a ViewSet proxy');
  const eventsPath = options?.eventsPath ?? '/events';
  const key = `${core.transport.peerId}|${core.baseUrl}|${eventsPath}|${core.basePath}`;
  // the rev first, then the read (a rev taken after the read could skip a change)
  const rev = freshRev(key) ?? remember(key, await currentRev(core, core.basePath, eventsPath));
  const reader = proxy as unknown as Record<string, ((params?: LiveParams) => Promise<unknown>) | undefined>;
  try {
    const query = params && Object.keys(params).length ? { ...params } : undefined;
    const answer = await (reader.list ? reader.list(query) : reader.listPage!(query));
    const rows = Array.isArray(answer) ? answer : isObject(answer) && Array.isArray(answer.results) ? answer.results : null;
    if (!rows) throw new TypeError('the list answer is not an array of records');
    return { rows, rev, error: null };
  } catch (error) {
    return { rows: [], rev, error: asError(error) };
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
