/**
 * The axios transport (option `axiosInstance`): every attempt is a request through the caller's own
 * axios instance, so its interceptors run and its errors are what a call rejects with, as in 0.6.
 * The seed's REST rows are written for it: an axios error without a response, or with one whose body
 * never arrived whole (its data unread: axios's Node adapter when the connection closes mid-body), is
 * repeated (at once when the attempt's timeout ended it — ECONNABORTED, ETIMEDOUT — else after the
 * delay), a 502/503/504 whose body is not a JSON object with `detail` after the delay; every attempt
 * carries the headers of the first attempt's config after the request interceptors, other than the
 * ones axios sets again (the calls module's header rule). axios stays the caller's dependency.
 */
import { JSON_TYPE } from './body.js';
import { isRefused, loadChunk } from './chunk.js';
import { headerRecord } from './headers.js';
import { axiosServices } from './axios-services.js';
import { prepareRest } from './rest.js';
import { EndCode } from './abi/calls.js';
import type { AxiosLike, AxiosSend } from './axios/send.js';
import type { Transport } from './vocabulary/call-types.js';
import { failAttempt } from './runtime.js';

export type { AxiosLike } from './axios/send.js';

/** The sending half, loading or loaded; undefined again after a load that failed. */
let sender: Promise<typeof import('./axios/send.js')> | undefined;
/** How many loads of the sending half failed. */
let failedLoads = 0;
/**
 * Loads the sending half, a module of its own imported by its URL (scripts/bundle.mjs makes it an
 * entry, as the follower's engine): an app's bundler emits it as an asset. A load that failed is
 * tried again by the next attempt, under a URL of its own (a browser keeps a failed module import
 * and answers the same URL with the same failure).
 */
function loadSender(): Promise<typeof import('./axios/send.js')> {
  if (sender) return sender;
  const loading = (sender = loadChunk<typeof import('./axios/send.js')>('axios-send.js', new URL('./axios-send.js?no-inline', import.meta.url), failedLoads));
  loading.catch(() => {
    sender = undefined;
    failedLoads++;
  });
  return loading;
}

/** A transport sending through `instance`; `timeoutMs` is each attempt's axios `timeout` (0: none). */
export function axiosTransport(instance: AxiosLike, timeoutMs: number): Transport<AxiosSend, Record<string, string>> {
  const defaults = instance.defaults?.transformRequest;
  const transforms = defaults === undefined ? [] : Array.isArray(defaults) ? defaults : [defaults];
  // loaded as the proxy is made, so that its first call seldom waits for it
  loadSender().catch(() => {});
  return {
    peerId: 0,
    name: 'rest',
    prepare(parts): AxiosSend {
      const { headers, body } = prepareRest(parts, 'http://body.invalid');
      // A JSON value goes to axios as given (restBody() checked that it has a faithful JSON form).
      const data = body.contentType === JSON_TYPE ? parts.body : (body.init ?? undefined);
      return { url: parts.url, headers: headerRecord(headers), contentType: headers.get('content-type')?.[1] ?? null, data, pending: body.pending };
    },
    openAttempt(call, attempt, carried) {
      const controller = new AbortController();
      loadSender().then(
        (module) => {
          try {
            module.sendThroughAxios(axiosServices, instance, timeoutMs, transforms, call, attempt, carried, controller);
          } catch (error) {
            failAttempt(call.id, attempt, error);
          }
        },
        // not loaded: lost to the network, the attempt ended without an answer and is repeated;
        // refused (no repeat can fix it), the call fails at once with the loader's error
        (error: unknown) => controller.signal.aborted || failAttempt(call.id, attempt, error, isRefused(error) ? EndCode.Other : EndCode.NetworkError),
      );
      // The headers are known once the instance's interceptors ran: captureHeaders() then.
      return { abandon: () => controller.abort() };
    },
  };
}
