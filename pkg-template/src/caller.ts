/**
 * Reading values a caller gives, which may be anything: a getter or a proxy trap that throws, a
 * `toString` that throws. Nothing here throws anything but a TypeError naming the option.
 */

/** A short text for any value; never throws. */
export function describe(value: unknown): string {
  try {
    if (value instanceof Error) return value.message;
    return String(value);
  } catch {
    return 'an unprintable value';
  }
}

/** `object[name]` when `object` is an object (or a function), else undefined. */
export function get(object: unknown, name: string): unknown {
  return object !== null && (typeof object === 'object' || typeof object === 'function') ? (object as Record<string, unknown>)[name] : undefined;
}

/**
 * `body` when it is an error body, a JSON object (not an array) holding `detail`, typed as `Body`
 * (errors.ts: its `ApiErrorBody`); else undefined.
 */
export function apiBody<Body extends { detail?: unknown } = { detail?: unknown }>(body: unknown): Body | undefined {
  return body !== null && typeof body === 'object' && !Array.isArray(body) && 'detail' in body ? (body as Body) : undefined;
}

/**
 * Runs `read` over a value the caller gave; what it throws other than a TypeError becomes a
 * TypeError naming `what`, with the original as its cause.
 */
export function reading<T>(what: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof TypeError) throw error;
    throw new TypeError(`${what} could not be read: ${describe(error)}`, { cause: error });
  }
}
