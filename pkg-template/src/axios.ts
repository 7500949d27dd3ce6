/**
 * The axios transport (option `axiosInstance`): every attempt is a request through the caller's own
 * axios instance, so its interceptors run and its errors are what a call rejects with, as in 0.6.
 * The seed's REST rows are written for it: an axios error without a response is repeated (at once
 * when the attempt's timeout ended it — ECONNABORTED, ETIMEDOUT — else after the delay), a 502/503/
 * 504 whose body is not a JSON object with `detail` after the delay; every attempt carries the
 * headers of the first attempt's config after the request interceptors, other than the ones axios
 * sets again (the calls module's header rule). axios stays the caller's dependency.
 */
import type { AxiosSendContext } from './axios-send.js';
import { restBody } from './body.js';
import { engine, putText } from './calls.js';
import { headersObject } from './headers.js';
import { hasDetail, intercept } from './rest.js';
import { captureHeaders, End, report, type Transport } from './runtime.js';

/** What this transport needs of an axios instance (`axios.create()` or the default export). */
export interface AxiosLike {
  request(config: Record<string, unknown>): Promise<{ status: number; data: unknown; headers?: unknown }>;
  defaults?: { transformRequest?: unknown };
}

/** What one call sends on every attempt. */
export interface AxiosSend {
  url: string;
  headers: Record<string, string>;
  /**
   * The content type of the body (the caller's, else JSON's), set on every attempt: it is among the
   * headers axios sets again rather than carries, and axios cannot tell JSON text from other text.
   */
  contentType: string | null;
  data: unknown;
  pending: Promise<{ init: ArrayBuffer; contentType: string }> | null;
}

/** Header names axios sets again on every request, by the calls module's rule (cached per name). */
const setAgain = new Map<string, boolean>();
function isSetAgain(name: string): boolean {
  let known = setAgain.get(name);
  if (known === undefined) setAgain.set(name, (known = (engine.header_rule(putText(name)) & 2) !== 0));
  return known;
}

const context: AxiosSendContext = { report, captureHeaders, isSetAgain, hasDetail, End };

/** A transport sending through `instance`; `timeoutMs` is each attempt's axios `timeout` (0: none). */
export function axiosTransport(instance: AxiosLike, timeoutMs: number): Transport {
  const defaults = instance.defaults?.transformRequest;
  const transforms = defaults === undefined ? [] : Array.isArray(defaults) ? defaults : [defaults];
  return {
    peerId: 0,
    name: 'rest',
    prepare(parts): AxiosSend {
      const headers = intercept(parts);
      headers.set('Idempotency-Key', parts.keyField);
      const body = restBody(parts.body, () => new Request(new URL(parts.url, 'http://body.invalid'), { method: parts.method, body: parts.body as BodyInit }));
      if (body.contentType && !headers.has('content-type')) headers.set('content-type', body.contentType);
      return { url: parts.url, headers: headersObject(headers), contentType: headers.get('content-type'), data: body.init ?? undefined, pending: body.pending };
    },
    openAttempt(call, attempt, carried) {
      const controller = new AbortController();
      call.inflight = { attempt, abandon: () => controller.abort() };
      import('./axios-send.js').then(
        ({ sendThroughAxios }) => sendThroughAxios(context, instance, timeoutMs, transforms, call, attempt, carried, controller),
        (error: unknown) => report(call.id, attempt, End.Other, 0, { kind: 'failure', error }),
      );
      // The headers are known once the instance's interceptors ran: captureHeaders() then.
      return null;
    },
    abandon(call, attempt) {
      if (call.inflight?.attempt === attempt) call.inflight.abandon('superseded');
    },
    reconnectNow() {},
  };
}
