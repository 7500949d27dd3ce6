/**
 * Sending one attempt through the caller's axios instance: loaded by the axios transport on its
 * first attempt, so an app that never passes `axiosInstance` never downloads it.
 */
import type { AxiosLike, AxiosSend } from './axios.js';
import type { CallRecord, Outcome } from './runtime.js';

/**
 * What sending needs of the rest of the package, handed in by the transport, so that this chunk
 * imports nothing and a bundler does not split the modules it would share into a chunk of their own.
 */
export interface AxiosSendContext {
  report(id: number, attempt: number, end: number, status: number, outcome: Outcome): void;
  captureHeaders(id: number, attempt: number, headers: unknown): void;
  /** The calls module's rule: axios sets this header again on every request. */
  isSetAgain(name: string): boolean;
  hasDetail(body: unknown): boolean;
  End: { HttpAnswer: number; NetworkError: number; AttemptTimeout: number; Other: number; JsonDetail: number };
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

/** Sends attempt `attempt` of `call` through `instance` (see axios.ts); `controller` abandons it. */
export function sendThroughAxios(
  context: AxiosSendContext,
  instance: AxiosLike,
  timeoutMs: number,
  transforms: unknown[],
  call: CallRecord,
  attempt: number,
  carried: unknown,
  controller: AbortController,
): void {
  if (controller.signal.aborted) return;
  const { report, captureHeaders, isSetAgain, hasDetail, End } = context;
  const send = call.send as AxiosSend;
  const first = carried === null;
  const headers = (carried as Record<string, string> | null) ?? send.headers;
  // Runs after the instance's request interceptors: the first attempt's headers are captured
  // here, and a repeat's carried headers (and the call's key) are set over whatever they did.
  const finalHeaders = function (this: unknown, data: unknown, bag: HeaderBag): unknown {
    if (first) {
      const all = typeof bag.toJSON === 'function' ? bag.toJSON() : bag;
      const kept: Record<string, string> = {};
      for (const [name, value] of Object.entries(all)) {
        if (value !== undefined && value !== null && value !== false && !isSetAgain(name)) kept[name] = String(value);
      }
      captureHeaders(call.id, attempt, kept);
    } else {
      for (const [name, value] of Object.entries(headers)) setHeader(bag, name, value);
    }
    setHeader(bag, 'Idempotency-Key', call.keyField);
    return data;
  };
  const go = (data: unknown, contentType: string | null): void => {
    const config: Record<string, unknown> = {
      method: call.method,
      url: send.url,
      headers: contentType ? { ...headers, 'content-type': contentType } : { ...headers },
      data,
      timeout: timeoutMs,
      signal: controller.signal,
      transformRequest: [...transforms, finalHeaders],
    };
    let pending: Promise<{ status: number; data: unknown; headers?: unknown }>;
    try {
      pending = instance.request(config);
    } catch (error) {
      return report(call.id, attempt, End.Other, 0, { kind: 'failure', error });
    }
    Promise.resolve(pending).then(
      (response) => settleWith(context, call, attempt, response, null),
      (error: { response?: { status: number; data: unknown; headers?: unknown }; code?: unknown }) => {
        if (error?.response) return settleWith(context, call, attempt, error.response, error);
        const timedOut = error?.code === 'ECONNABORTED' || error?.code === 'ETIMEDOUT';
        const end = isCancel(error) ? End.NetworkError : timedOut ? End.AttemptTimeout : End.NetworkError;
        report(call.id, attempt, end, 0, { kind: 'failure', error });
      },
    );
  };
  if (!send.pending) go(send.data, send.contentType);
  else {
    send.pending.then(
      ({ init, contentType }) => {
        if (!controller.signal.aborted) go(init, send.contentType ?? contentType);
      },
      (error) => report(call.id, attempt, End.Other, 0, { kind: 'failure', error }),
    );
  }
}

/** Reports an answer: resolved with its data below 400, else rejected with the axios error as 0.6 did. */
function settleWith(
  { report, hasDetail, End }: AxiosSendContext,
  call: CallRecord,
  attempt: number,
  response: { status: number; data: unknown; headers?: unknown },
  error: unknown,
): void {
  const status = typeof response.status === 'number' ? response.status : 0;
  const end = End.HttpAnswer | (hasDetail(response.data) ? End.JsonDetail : 0);
  if (error === null || status < 400) {
    const headers = (): Record<string, unknown> => ({ ...(response.headers as Record<string, unknown>) });
    return report(call.id, attempt, end, status, { kind: 'answer', status, body: response.data, headers });
  }
  report(call.id, attempt, end, status, { kind: 'failure', error });
}
