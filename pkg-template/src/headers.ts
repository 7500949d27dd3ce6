/**
 * Header sets as callers give them — a `Headers`, an iterable of `[name, value]` pairs, or an object
 * of names to values — read into one `HeaderList`. A name given again replaces the earlier value in
 * any letter case; a bad name or value is a TypeError naming where it came from. (A plain `Map`
 * rather than a platform `Headers`: each `Headers` operation crosses into the platform, and a call
 * makes a dozen of them.)
 */

/** Header fields by lower-case name: the name as last given, and the value. */
export type HeaderList = Map<string, [name: string, value: string]>;

/** Every form a header set may be given in (`HeadersInit`, and objects whose values are not all strings). */
export type HeadersInput =
  | Headers
  | Iterable<readonly [string, string]>
  | Record<string, string | number | boolean | null | undefined>;

/** An HTTP token (RFC 9110 §5.6.2): what a header name may hold. */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Printable ASCII and tab: what a header value may hold here (also over muxws: `muxwsServices`). */
export const VALUE = /^[\t\x20-\x7e]*$/;

/** The message of a header set that is none of the accepted forms. */
function notHeaders(what: string): TypeError {
  return new TypeError(`${what} must be an object of header names to values, a Headers or an array of [name, value] pairs`);
}

function checked(what: string, name: unknown, value: unknown): [string, string] {
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    throw new TypeError(`${what}: "${String(name)}" is not a valid header name`);
  }
  const text = typeof value === 'string' ? value : String(value);
  if (!VALUE.test(text)) {
    throw new TypeError(`${what}: the value of header "${name}" holds a character outside printable ASCII`);
  }
  return [name, text];
}

/**
 * Sets the headers of `input` on `into`. In an object, `undefined` and `null` values are left out;
 * in a list of pairs, a name repeated within the list adds a value.
 */
export function applyHeaders(into: HeaderList, input: unknown, what: string): void {
  if (input === undefined || input === null) return;
  if (typeof input !== 'object') throw notHeaders(what);
  const iterator = (input as { [Symbol.iterator]?: unknown })[Symbol.iterator];
  if (typeof iterator === 'function') {
    const given = new Set<string>();
    for (const pair of input as Iterable<unknown>) {
      if (pair === null || typeof pair !== 'object' || (pair as unknown[]).length !== 2) throw notHeaders(what);
      const [name, value] = checked(what, (pair as unknown[])[0], (pair as unknown[])[1]);
      const lower = name.toLowerCase();
      const earlier = into.get(lower);
      // A name repeated within one list adds a value, as `Headers.append` does.
      into.set(lower, [name, given.has(lower) && earlier ? `${earlier[1]}, ${value}` : value]);
      given.add(lower);
    }
    return;
  }
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue;
    const field = checked(what, name, value);
    into.set(field[0].toLowerCase(), field);
  }
}

/** A new `HeaderList` from `input` (see {@link applyHeaders}). */
export function headersFrom(input: unknown, what: string): HeaderList {
  const headers: HeaderList = new Map();
  applyHeaders(headers, input, what);
  return headers;
}

/** `list` as a plain object of names (as given) to values: what `fetch` and interceptors take. */
export function headerRecord(list: HeaderList): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of list.values()) record[name] = value;
  return record;
}

/** A platform `Headers` (an answer's) as a plain object of lower-case names to values. */
export function headersObject(headers: Headers): Record<string, string> {
  const object: Record<string, string> = {};
  headers.forEach((value, name) => {
    object[name] = value;
  });
  return object;
}
