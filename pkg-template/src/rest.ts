/**
 * The REST transport: one attempt is one `fetch` with its own `AbortController`. The answer is read
 * whole by the platform and classified for the engine: an HTTP answer (with its status and whether
 * its body is an error body holding `detail`), or no answer at all.
 */
import { restBody, type RestBody } from './body.js';
import { describe, reading } from './caller.js';
import { retryAfterMs } from './shared/retry-after.js';
import { hasDetail } from './shared/values.js';

// The transports' kits take the error-body rule from here, with the other REST helpers.
import { InvalidResponseError, NetworkError } from './errors.js';
import { headerRecord, headersFrom, headersObject, type HeaderList } from './headers.js';
import { EndCode } from './abi/calls.js';
import type { CallParts, CallRecord, StoredSend, Transport } from './vocabulary/call-types.js';
import { captureHeaders, failAttempt, report } from './runtime.js';

/** The request a request interceptor sees and may change (its `headers`). */
export interface RequestDraft {
  method: string;
  url: string;
  path: string;
  /** The call's headers, the Idempotency-Key among them: set or replace entries. */
  headers: Record<string, string>;
  body: unknown;
}

/**
 * Runs synchronously when a call is issued, in the caller's synchronous part: change
 * `request.headers` in place, or return a new request whose `headers` may be any header form
 * (`Headers`, pairs, an object). What it sets reaches every repeat.
 */
export type RequestInterceptor = (request: RequestDraft) => void | RequestDraft | (Omit<RequestDraft, 'headers'> & { headers: HeadersInit });


/** What a REST call sends on every attempt (the transport's own state of the call: never changed). */
export interface RestSend {
  readonly url: string;
  /** The first attempt's headers; every attempt sends exactly these (a FormData's content type added once its bytes are read). */
  readonly headers: Readonly<Record<string, string>>;
  /** The caller (or the body's kind) set a content type: a FormData's is not added. */
  readonly typed: boolean;
  readonly body: RestBody;
}

/** `application/json` and every `…+json` media type. */
function isJson(contentType: string): boolean {
  const media = contentType.split(';', 1)[0].trim().toLowerCase();
  return media === 'application/json' || media.endsWith('+json');
}

/** Something `fetch` resolved with that can be read as a Response (any realm's). */
function isResponse(value: unknown): value is Response {
  const response = value as Partial<Response> | null;
  return (
    response !== null &&
    typeof response === 'object' &&
    typeof response.status === 'number' &&
    typeof response.text === 'function' &&
    typeof response.headers?.get === 'function'
  );
}

/** Attempt `attempt` of `call` got no answer (`cause`: what fetch or the body's reading threw). */
function noAnswer(call: Readonly<CallRecord>, attempt: number, cause: unknown): void {
  failAttempt(call.id, attempt, new NetworkError(`the request got no answer: ${describe(cause)}`, { cause }), EndCode.NetworkError);
}

/** Reads a response whole and reports how the attempt ended. */
async function readAnswer(call: Readonly<CallRecord>, attempt: number, response: Response): Promise<void> {
  const status = response.status;
  const contentType = response.headers.get('content-type') ?? '';
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    // cut off mid-body: no answer
    return noAnswer(call, attempt, error);
  }
  const headers = (): Record<string, string> => headersObject(response.headers);
  let body: unknown = null;
  if (status !== 204 && text !== '') {
    if (!isJson(contentType)) body = text;
    else {
      try {
        body = JSON.parse(text);
      } catch (error) {
        if (status < 400) {
          // The application answered, with JSON that does not parse: not repeated.
          const failure = new InvalidResponseError(`${call.method} ${call.path} answered ${status} with JSON that does not parse`, {
            status,
            text,
            headers: headers(),
            cause: error,
          });
          return failAttempt(call.id, attempt, failure, EndCode.Other, status);
        }
        body = text;
      }
    }
  }
  const end = EndCode.HttpAnswer | (hasDetail(body) ? EndCode.JsonDetail : 0);
  report(call.id, attempt, end, status, { kind: 'answer', status, body, headers, reason: response.statusText }, retryAfterMs(response.headers.get('retry-after')));
}

function send(call: Readonly<CallRecord>, attempt: number, url: string, headers: Readonly<Record<string, string>>, init: BodyInit | null, signal: AbortSignal): void {
  let pending: unknown;
  try {
    pending = fetch(url, { method: call.method, headers, body: init, signal });
  } catch (error) {
    // fetch itself (or a wrapper of it) threw: the call ends with that error, nothing else.
    return failAttempt(call.id, attempt, error);
  }
  Promise.resolve(pending).then(
    (response) => {
      if (isResponse(response)) return readAnswer(call, attempt, response);
      const error = new TypeError(`fetch resolved with ${describe(response)}, which is not a Response`);
      failAttempt(call.id, attempt, error);
    },
    (error) => noAnswer(call, attempt, error),
  );
}

/**
 * Runs the request interceptors in the caller's synchronous part: each gets
 * `{method, url, path, headers, body}` and may change `headers` in place or return a new request.
 * One returning a promise is refused.
 */
export function intercept(parts: CallParts): HeaderList {
  if (parts.interceptors.length === 0) return parts.headers;
  let draft: Record<string, unknown> = { method: parts.method, url: parts.url, path: parts.path, headers: headerRecord(parts.headers), body: parts.body };
  for (const interceptor of parts.interceptors as readonly RequestInterceptor[]) {
    const returned: unknown = interceptor(draft as unknown as RequestDraft);
    if (returned !== null && typeof returned === 'object') {
      if (typeof (returned as { then?: unknown }).then === 'function') {
        throw new TypeError('a request interceptor must be synchronous; it returned a promise');
      }
      draft = returned as Record<string, unknown>;
    }
  }
  const what = 'the headers an interceptor set';
  return reading(what, () => headersFrom(draft.headers, what));
}

/**
 * What every attempt of a REST call sends, fetch's or axios's: the headers after the request
 * interceptors, with the call's key set again after them (whatever they did to it, the call's key is
 * what goes out) and the body's content type unless one is set; the body as `fetch` sends it (a
 * relative URL is read against `base`, for a body's `Request`).
 */
export function prepareRest(parts: CallParts, base?: string): { headers: HeaderList; body: RestBody } {
  const headers = intercept(parts);
  headers.set('idempotency-key', ['Idempotency-Key', parts.keyField]);
  const body = restBody(parts.body, () => new Request(base === undefined ? parts.url : new URL(parts.url, base), { method: parts.method, body: parts.body as BodyInit }));
  if (body.contentType && !headers.has('content-type')) headers.set('content-type', ['Content-Type', body.contentType]);
  return { headers, body };
}

/** The REST transport, shared by every REST proxy. */
export const restTransport: Transport<RestSend> = {
  peerId: 0,
  name: 'rest',
  prepare(parts): RestSend {
    const { headers, body } = prepareRest(parts);
    return { url: parts.url, headers: headerRecord(headers), typed: headers.has('content-type'), body };
  },
  openAttempt(call, attempt) {
    const { url, headers, typed, body } = call.send;
    const controller = new AbortController();
    captureHeaders(call.id, attempt, headers);
    if (!body.pending) send(call, attempt, url, headers, body.init, controller.signal);
    else {
      body.pending.then(
        ({ init, contentType }) => {
          // a FormData's content type (its boundary), as fetch gave it, unless the caller set one
          if (!controller.signal.aborted) send(call, attempt, url, typed ? headers : { ...headers, 'content-type': contentType }, init, controller.signal);
        },
        (error) => failAttempt(call.id, attempt, error),
      );
    }
    return { abandon: () => controller.abort() };
  },
  stored(call) {
    const { headers, body, typed } = call.send;
    const kept = Object.entries(headers);
    if (body.pending) {
      // A FormData: its entries now; its bytes, with the content type fetch gave them, once read.
      const later = body.pending.then(({ init, contentType }): StoredSend => ({
        headers: typed ? kept : [...kept, ['content-type', contentType]],
        body: init,
        form: null,
      }));
      return { now: { headers: kept, body: null, form: body.form }, later };
    }
    let init = body.init;
    if (init instanceof URLSearchParams) {
      // Stored as its text, with the content type fetch gives it.
      if (!typed) kept.push(['content-type', 'application/x-www-form-urlencoded;charset=UTF-8']);
      init = init.toString();
    }
    return { now: { headers: kept, body: init as StoredSend['body'], form: null }, later: null };
  },
};
