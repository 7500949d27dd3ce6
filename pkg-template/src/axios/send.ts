/**
 * The sending half of the axios transport (axios.ts): one attempt through the caller's axios
 * instance, its answer or failure reported to the runtime. A module of its own, loaded by the first
 * axios proxy an app makes, so that an app that never passes `axiosInstance` never downloads it. From
 * outside its folder it imports only types and rules of shared/ (its file carries its own copy of
 * them); what it needs of the package comes in its services (axios-services.ts), as the follower's
 * engine's does.
 */
import { EndCode, HeaderRule } from '../abi/calls.js';
import type { AxiosServices } from '../axios-services.js';
import { retryAfterMs } from '../shared/retry-after.js';
import { hasDetail } from '../shared/values.js';
import type { CallRecord } from '../vocabulary/call-types.js';

/** What this transport needs of an axios instance (`axios.create()` or the default export). */
export interface AxiosLike {
  request(config: Record<string, unknown>): Promise<{ status: number; data: unknown; headers?: unknown }>;
  defaults?: { transformRequest?: unknown };
}

/** What one call sends on every attempt (the axios transport's own state of the call). */
export interface AxiosSend {
  url: string;
  headers: Record<string, string>;
  /**
   * The content type of the body (the caller's, else JSON's), set on every attempt: it is among the
   * headers axios sets again rather than carries, and axios cannot tell JSON text from other text.
   */
  contentType: string | null;
  /**
   * What `config.data` is on every attempt: a JSON value as the caller gave it (the instance's
   * interceptors and transforms get it as in 0.6, and axios serialises it), any other body as
   * `fetch` would send it.
   */
  data: unknown;
  pending: Promise<{ init: ArrayBuffer; contentType: string }> | null;
  /**
   * The first attempt's data after every transform: the bytes each repeat sends again. The one
   * field that changes: written by this sending half, at the first attempt, once.
   */
  sent?: unknown;
}

/** Header names axios sets again on every request, by the calls module's rule (cached per name). */
const setAgain = new Map<string, boolean>();

/** Whether axios sets header `name` again on every request (so that the transport does not carry it). */
function isSetAgain(name: string, headerRule: AxiosServices['headerRule']): boolean {
  let known = setAgain.get(name);
  if (known === undefined) setAgain.set(name, (known = (headerRule(name) & HeaderRule.SetAgainByAxios) !== 0));
  return known;
}

/** The `set`/`toJSON` of an AxiosHeaders (or a plain object, by assignment). */
type HeaderBag = { set?(name: string, value: string): unknown; toJSON?(): Record<string, unknown> } & Record<string, unknown>;

function setHeader(headers: HeaderBag, name: string, value: string): void {
  if (typeof headers.set === 'function') headers.set(name, value);
  else headers[name] = value;
}

function isCancel(error: unknown): boolean {
  const e = error as { __CANCEL__?: unknown; code?: unknown } | null;
  return e !== null && typeof e === 'object' && (e.__CANCEL__ === true || e.code === 'ERR_CANCELED');
}

/** `headers` with `contentType` as its Content-Type (under the name it has there, in any letter case). */
function withContentType(headers: Record<string, string>, contentType: string | null): Record<string, string> {
  const out = { ...headers };
  if (contentType) out[Object.keys(out).find((name) => name.toLowerCase() === 'content-type') ?? 'Content-Type'] = contentType;
  return out;
}

/** Sends attempt `attempt` of `call` through `instance` (what it needs of the package in `services`); `controller` abandons it. */
export function sendThroughAxios(
  services: AxiosServices,
  instance: AxiosLike,
  timeoutMs: number,
  transforms: unknown[],
  call: Readonly<CallRecord<AxiosSend, Record<string, string>>>,
  attempt: number,
  carried: Record<string, string> | null,
  controller: AbortController,
): void {
  if (controller.signal.aborted) return;
  const { captureHeaders, failAttempt, headerRule } = services;
  const send = call.send;
  const first = carried === null;
  const headers = carried ?? send.headers;
  // Runs after the instance's request interceptors: the first attempt's headers are captured
  // here, and a repeat's carried headers (and the call's key) are set over whatever they did.
  const finalHeaders = function (this: unknown, data: unknown, bag: HeaderBag): unknown {
    if (first) {
      const all = typeof bag.toJSON === 'function' ? bag.toJSON() : bag;
      const kept: Record<string, string> = {};
      for (const [name, value] of Object.entries(all)) {
        if (value !== undefined && value !== null && value !== false && !isSetAgain(name, headerRule)) kept[name] = String(value);
      }
      captureHeaders(call.id, attempt, kept);
      if (!('sent' in send)) send.sent = data;
    } else {
      for (const [name, value] of Object.entries(headers)) setHeader(bag, name, value);
    }
    setHeader(bag, 'Idempotency-Key', call.keyField);
    // A repeat sends the first attempt's bytes, whatever the interceptors made of the data this time.
    return first ? data : send.sent;
  };
  const go = (data: unknown, contentType: string | null): void => {
    const config: Record<string, unknown> = {
      method: call.method,
      url: send.url,
      headers: withContentType(headers, contentType),
      data,
      timeout: timeoutMs,
      signal: controller.signal,
      transformRequest: [...transforms, finalHeaders],
    };
    let pending: Promise<{ status: number; data: unknown; headers?: unknown }>;
    try {
      pending = instance.request(config);
    } catch (error) {
      return failAttempt(call.id, attempt, error);
    }
    Promise.resolve(pending).then(
      (response) => settleWith(services, call, attempt, response, null),
      (error: { response?: { status: number; data: unknown; headers?: unknown }; code?: unknown }) => {
        // An answer whose body did not arrive whole is no answer, as for fetch (rest.ts): axios's
        // Node adapter rejects a body cut off mid-way with the response, its data never read.
        if (error?.response && error.response.data !== undefined) return settleWith(services, call, attempt, error.response, error);
        // The seed's REST rows: an axios error without a (whole) response is repeated, a cancellation
        // excepted (an interceptor's or the instance's; an attempt this package abandoned reports
        // to no one), which settles the call with it.
        const timedOut = error?.code === 'ECONNABORTED' || error?.code === 'ETIMEDOUT';
        const end = isCancel(error) ? EndCode.Other : timedOut ? EndCode.AttemptTimeout : EndCode.NetworkError;
        failAttempt(call.id, attempt, error, end);
      },
    );
  };
  if (!send.pending) go(send.data, send.contentType);
  else {
    send.pending.then(
      ({ init, contentType }) => {
        if (!controller.signal.aborted) go(init, send.contentType ?? contentType);
      },
      (error) => failAttempt(call.id, attempt, error),
    );
  }
}

/** Reports an answer: resolved with its data below 400, else rejected with the axios error as 0.6 did. */
function settleWith(
  { failAttempt, report }: AxiosServices,
  call: Readonly<CallRecord<AxiosSend, Record<string, string>>>,
  attempt: number,
  response: { status: number; data: unknown; headers?: unknown },
  error: unknown,
): void {
  const status = typeof response.status === 'number' ? response.status : 0;
  const end = EndCode.HttpAnswer | (hasDetail(response.data) ? EndCode.JsonDetail : 0);
  const retryAfter = retryAfterMs(String((response.headers as Record<string, unknown> | undefined)?.['retry-after'] ?? ''));
  if (error === null || status < 400) {
    const headers = (): Record<string, unknown> => ({ ...(response.headers as Record<string, unknown>) });
    return report(call.id, attempt, end, status, { kind: 'answer', status, body: response.data, headers }, retryAfter);
  }
  failAttempt(call.id, attempt, error, end, status, retryAfter);
}
