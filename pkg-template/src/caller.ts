/**
 * Reading values a caller gives, which may be anything: a getter or a proxy trap that throws, a
 * `toString` that throws. Nothing here throws anything but a TypeError naming the option.
 */
import { hasDetail } from './shared/values.js';

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
 * The key under which an object the package hands out (a proxy, a muxws peer or stream) keeps a
 * function returning its internals. A function, because a wrapper that forwards property reads —
 * Vue's `reactive()` and `ref()`, a Pinia store's state — passes a function through as it is, where
 * it would wrap an object, and `this` in a method called through such a wrapper is the wrapper, in
 * which private class fields cannot be read (0.6's proxies, plain fields, worked in Vue state).
 */
const INTERNALS = Symbol('fastapi-viewsets internals');

/** Gives `owner` its internals, `internals` (a non-enumerable property, read by `internalsOf`). */
export function keepInternals(owner: object, internals: object): void {
  Object.defineProperty(owner, INTERNALS, { value: () => internals });
}

/** The internals `keepInternals` gave `value` (or a wrapper of it), else undefined; never throws. */
export function internalsOf<T>(value: unknown): T | undefined {
  try {
    const read = get(value, INTERNALS as unknown as string);
    return typeof read === 'function' ? (read as () => T)() : undefined;
  } catch {
    return undefined;
  }
}

/** `body` when it is an error body ({@link hasDetail}), typed as `Body` (errors.ts: its `ApiErrorBody`); else undefined. */
export function apiBody<Body extends { detail?: unknown } = { detail?: unknown }>(body: unknown): Body | undefined {
  return hasDetail(body) ? (body as Body) : undefined;
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
