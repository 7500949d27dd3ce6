// Assertions that run the same in Node and in a browser page (node:assert is not available there).

function show(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** Throws unless `actual === expected`. */
export function equal(actual, expected, what = 'value') {
  if (actual !== expected) throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

/** Throws unless both sides serialise to the same JSON. */
export function same(actual, expected, what = 'value') {
  if (show(actual) !== show(expected)) throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

/** Throws unless `condition` holds. */
export function ok(condition, what) {
  if (!condition) throw new Error(`expected: ${what}`);
}

/** Awaits `promise`, which must reject with an instance of `errorClass`; returns the error. */
export async function rejects(promise, errorClass, what = 'call') {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof errorClass)) {
      throw new Error(`${what}: expected ${errorClass.name}, got ${error?.name}: ${error?.message}`);
    }
    return error;
  }
  throw new Error(`${what}: expected a rejection with ${errorClass.name}, but it fulfilled`);
}

/** A v4 UUID in lower-case hyphenated form. */
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
