/**
 * Request bodies. What a caller gives goes out as `fetch` sends it, byte for byte the same on every
 * attempt — the backend fingerprints the raw body, so a repeat with other bytes would be refused as
 * a reused key — or is refused with a TypeError. Bodies are made and read by the platform: they
 * never enter wasm memory.
 */

/** A body ready for every attempt of one REST call. */
export interface RestBody {
  /** What each attempt hands `fetch` (immutable, or a copy taken when the call was issued). */
  init: BodyInit | null;
  /** The content type of JSON bodies, which `fetch` would not set itself. */
  contentType: string | null;
  /** A FormData's bytes and content type, being read once (the first attempt waits for them). */
  pending: Promise<{ init: ArrayBuffer; contentType: string }> | null;
  /** A FormData's entries as the call was issued (a persisted call stores them until its bytes are read). */
  form: [string, FormDataEntryValue][] | null;
}

/** The content type of a body sent as JSON. */
export const JSON_TYPE = 'application/json';

/** Whether `value` is a `ReadableStream` (which no attempt could send twice). */
export function isReadableStream(value: object): boolean {
  return typeof ReadableStream !== 'undefined' && value instanceof ReadableStream;
}

/**
 * Refuses, at any depth of a JSON body, a collection `JSON.stringify` would write as `{}`, silently
 * losing what it holds (a `JSON.stringify` replacer: it sees every value once, so the cost stays
 * linear in the body).
 */
function refuseLossy(key: string, value: unknown): unknown {
  if (value instanceof Map || value instanceof Set || value instanceof WeakMap || value instanceof WeakSet) {
    throw new TypeError(`a ${value.constructor.name}${key ? ` (at "${key}")` : ''} would arrive as {}`);
  }
  return value;
}

/** `body` as JSON text: the JSON values (objects, arrays, numbers, booleans, null, strings over muxws). */
export function jsonBody(body: unknown, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(body, refuseLossy);
  } catch (error) {
    throw new TypeError(`${what} cannot be sent as JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (text === undefined) throw new TypeError(`${what} cannot be sent as JSON: a ${typeof body} has no JSON form`);
  return text;
}

/**
 * How the text of a JSON body goes out over REST: as `JSON.stringify` writes it, until the page makes
 * its first muxws proxy (or follower); from then on as the backend writes a muxws payload
 * (`pythonJson`, set by `peer-source.ts`), so that a key is one record over either transport
 * (docs/transports.md). An app without muxws ships neither the rule nor its code.
 */
let restJson = (text: string) => text;

/** Sets how REST JSON bodies are written from now on (`peer-source.ts`: as the backend writes a muxws payload). */
export function writeRestJson(write: (text: string) => string): void {
  restJson = write;
}

/** A `RestBody` (one module-level function: no closure made per call). */
function restBodyOf(init: BodyInit | null, contentType: string | null = null, pending: RestBody['pending'] = null, form: RestBody['form'] = null): RestBody {
  return { init, contentType, pending, form };
}

/**
 * The body of a REST call: every `BodyInit` as `fetch` takes it, plain JSON values as JSON.
 * `request` builds the `Request` a FormData is read through (its URL and method).
 */
export function restBody(body: unknown, request: () => Request): RestBody {
  if (body === undefined) return restBodyOf(null);
  if (typeof body === 'string' || (typeof Blob !== 'undefined' && body instanceof Blob)) return restBodyOf(body as BodyInit);
  if (body instanceof ArrayBuffer) return restBodyOf(body.slice(0));
  if (ArrayBuffer.isView(body)) return restBodyOf(new Uint8Array(body.buffer, body.byteOffset, body.byteLength).slice());
  if (body instanceof URLSearchParams) return restBodyOf(new URLSearchParams(body));
  if (typeof FormData !== 'undefined' && body instanceof FormData) {
    // fetch draws a new multipart boundary on every send: the bytes are taken once.
    const once = request();
    const contentType = once.headers.get('content-type') ?? 'multipart/form-data';
    return restBodyOf(null, null, once.arrayBuffer().then((init) => ({ init, contentType })), [...body]);
  }
  if (body !== null && typeof body === 'object' && isReadableStream(body)) {
    throw new TypeError('options.body cannot be a ReadableStream: a repeat must send the same bytes again');
  }
  return restBodyOf(restJson(jsonBody(body, 'options.body')), JSON_TYPE);
}
/**
 * A muxws payload (a call's body; `what` names it in errors): JSON text (null: none, sent as a
 * `null` payload). Anything that has no faithful JSON form is a TypeError naming muxws.
 */
export function muxwsBody(body: unknown, what = 'options.body'): string | null {
  if (body === undefined) return null;
  const binary =
    (typeof Blob !== 'undefined' && body instanceof Blob) ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    body instanceof URLSearchParams ||
    (typeof FormData !== 'undefined' && body instanceof FormData) ||
    (body !== null && typeof body === 'object' && isReadableStream(body));
  if (binary) {
    const kind = (body as object).constructor?.name ?? 'binary body';
    throw new TypeError(`${what}: muxws carries JSON payloads only; a ${kind} cannot be sent over muxws (use a REST proxy)`);
  }
  try {
    return jsonBody(body, what);
  } catch (error) {
    throw new TypeError(`${(error as Error).message} (muxws carries JSON payloads only)`, { cause: error });
  }
}
