/**
 * The package's rules for values that come from outside (a caller's options, a server's JSON):
 * written once, here, and imported by value by the entry and by each chunk bundled on its own
 * (follow/, axios/, live/), which then carries its own copy of the code. Pure and stateless, like
 * everything in `shared/`.
 */

/** A plain object: not null, not an array (what a JSON object parses to). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The package's whole-number rule (milliseconds, counts, revs): a safe integer of at least `least`
 * (0 unless told). The muxws driver keeps it in its own words (`muxws/options.ts`: the driver is in
 * index.js's build, where a value import of this file would split off a shared chunk).
 */
export function isWhole(value: unknown, least = 0): value is number {
  return Number.isSafeInteger(value) && (value as number) >= least;
}

/**
 * The one rule of an error body, as FastAPI gives an HTTPException: a JSON object (not an array)
 * holding `detail` as its own property. What a call's end reports (the engine repeats a gateway
 * status unless its body is one) and what `HttpError` reads both ask it.
 */
export function hasDetail(body: unknown): body is { detail: unknown } {
  return isObject(body) && Object.hasOwn(body, 'detail');
}

/** A record's key as a change or a row gives it: a string, or a finite number. */
export const isPk = (value: unknown): value is string | number => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

/**
 * The backend's comparison of two values of a sorted field (its in-memory sort): null below every
 * other value (first ascending, last descending), numbers by value, strings by their characters
 * (UTF-16 units here, code points there: the two differ only above U+FFFF); other pairs cannot be
 * compared here (undefined). The live list sorts own writes by it, and its paged window's patching
 * orders a cursor window's pks by it.
 */
export function compareValues(a: unknown, b: unknown): number | undefined {
  if (a === null || b === null) return +(a !== null) - +(b !== null);
  if (typeof a !== typeof b || !/^(string|number|boolean)$/.test(typeof a)) return undefined;
  return (a as number) < (b as number) ? -1 : +((a as number) > (b as number));
}
