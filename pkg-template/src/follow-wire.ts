/**
 * Reading what the events viewset sends (a poll's answer, a subscribe's answer, a push's headers):
 * hostile input, so only own properties are read, every rev is checked, and long scope keys are not
 * taken. Used by the follower's chunk only.
 */
import type { HttpError } from './errors.js';
import type { FollowKit } from './follow-kit.js';

/** Scope keys longer than this are not taken. */
export const MAX_SCOPE = 1024;

/** A rev as the server issues them: a whole number from 0 below 2^53. */
export function isRev(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A plain object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `object[name]` when `object` has it as its own property (never an inherited `__proto__` or getter). */
export function own(object: Record<string, unknown>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, name) ? object[name] : undefined;
}

/** A scope key as the server sends it, or undefined for none (or one not taken). */
export function scopeOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= MAX_SCOPE ? value : undefined;
}

/**
 * `error` when it refuses for good, as the backend classes refusals: an `HttpError` of 400–499
 * other than 429. A 429, a 5xx or no answer at all is asked again later (undefined).
 */
export function refusal(kit: FollowKit, error: unknown): HttpError | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return error instanceof kit[0] && typeof status === 'number' && status >= 400 && status < 500 && status !== 429 ? error : undefined;
}
