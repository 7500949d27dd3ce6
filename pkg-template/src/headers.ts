/**
 * Header sets as callers give them — a `Headers`, an iterable of `[name, value]` pairs, or an object
 * of names to values — read into one platform `Headers`. A name given again replaces the earlier
 * value in any letter case; a bad name or value is a TypeError naming where it came from.
 */

/** Every form a header set may be given in (`HeadersInit`, and objects whose values are not all strings). */
export type HeadersInput =
  | Headers
  | Iterable<readonly [string, string]>
  | Record<string, string | number | boolean | null | undefined>;

/** An HTTP token (RFC 9110 §5.6.2): what a header name may hold. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Printable ASCII and tab: what a header value may hold here. */
const VALUE = /^[\t\x20-\x7e]*$/;

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
export function applyHeaders(into: Headers, input: unknown, what: string): void {
  if (input === undefined || input === null) return;
  if (typeof input !== 'object') throw notHeaders(what);
  const iterator = (input as { [Symbol.iterator]?: unknown })[Symbol.iterator];
  if (typeof iterator === 'function') {
    const given = new Set<string>();
    for (const pair of input as Iterable<unknown>) {
      if (pair === null || typeof pair !== 'object' || (pair as unknown[]).length !== 2) throw notHeaders(what);
      const [name, value] = checked(what, (pair as unknown[])[0], (pair as unknown[])[1]);
      const lower = name.toLowerCase();
      if (given.has(lower)) into.append(name, value);
      else into.set(name, value);
      given.add(lower);
    }
    return;
  }
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue;
    into.set(...checked(what, name, value));
  }
}

/** A new `Headers` from `input` (see {@link applyHeaders}). */
export function headersFrom(input: unknown, what: string): Headers {
  const headers = new Headers();
  applyHeaders(headers, input, what);
  return headers;
}

/** `headers` as a plain object of lower-case names to values. */
export function headersObject(headers: Headers): Record<string, string> {
  const object: Record<string, string> = {};
  headers.forEach((value, name) => {
    object[name] = value;
  });
  return object;
}
