/**
 * A list answer read as a page: the one rule for the live list's reads (live-paged/window.ts) and
 * for a server's read of a live list (server-read.ts), whose window the client checks against it.
 * A bare array is the whole (plain) list; an envelope with `results` is a paginated page, or a
 * cursor page when it has `next`, `previous` or `first`. Nothing the server answers is trusted: an
 * answer that is neither rejects the read with a TypeError; flags and cursors of the wrong type
 * count as absent.
 */
import { isObject } from './values.js';
import type { LivePageSeed } from '../vocabulary/live-types.js';

/** One page: its rows, and where it stands in the list (the backend's `has_more` and the package's `hasMore` alike). */
export interface Page extends LivePageSeed {
  rows: unknown[];
}

/** A cursor as a page gives it: a non-empty string, else null. */
export const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);
/** A count, offset or limit as a page gives it: a whole number ≥ 0, else null. */
export const whole = (value: unknown): number | null => (Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : null);

/** An answer of a list read as a page: a bare array is the whole (plain) list. */
export function pageOf(answer: unknown): Page {
  if (Array.isArray(answer)) return { rows: answer, shape: 'plain', count: null, hasMore: false, hasPrevious: false, next: null, previous: null, offset: 0, limit: answer.length };
  if (!isObject(answer) || !Array.isArray(answer.results)) throw new TypeError('the list answer is not an array of records, nor a page of them');
  const rows = answer.results;
  const cursor = 'next' in answer || 'previous' in answer || 'first' in answer;
  const next = text(answer.next);
  const previous = text(answer.previous);
  return {
    rows,
    shape: cursor ? 'cursor' : 'paginated',
    count: cursor ? null : whole(answer.count),
    // a cursor page says more only with the cursor to get it
    hasMore: (answer.hasMore ?? answer.has_more) === true && (!cursor || next !== null),
    hasPrevious: (answer.hasPrevious ?? answer.has_previous) === true && (!cursor || previous !== null),
    next,
    previous,
    offset: whole(answer.offset) ?? 0,
    limit: whole(answer.limit) || rows.length,
  };
}
