/**
 * The options of proxies and of one call (types only): the 0.7 names, and the 0.6 names they keep
 * (`pkFieldName`, `validateSchema`, `declares`, `axiosInstance`, a lazy muxws `peer`).
 */
import type { AxiosLike } from '../axios.js';
import type { HeadersInput } from '../headers.js';
import type { MuxwsPeer } from '../muxws.js';
import type { RequestInterceptor } from '../rest.js';

/** How a call is repeated when an attempt ends without an answer. */
export interface RepeatOptions {
  /** A repeat is sent only this long after the first attempt (ms, default 600000); 0 turns repeating off. */
  withinMs?: number | undefined;
  /** The delay before a repeat after a lost connection or a gateway status (ms, default 1000), doubled after each, at most 30000. */
  delayMs?: number | undefined;
  /**
   * 0…1 (default 0): each delay is drawn uniformly from [delay·(1−jitter), delay], so that clients
   * cut off by one outage do not all repeat at the same moments. A server's `Retry-After` is kept exactly.
   */
  jitter?: number | undefined;
}

/** A query parameter value; arrays repeat the parameter (`?a=1&a=2`), `null`/`undefined` leave it out. */
export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number | boolean>;

/** Query parameters (0.6's name): a name to a {@link QueryValue}. */
export type QueryParams = Record<string, QueryValue>;

/** The HTTP methods of the built-in actions (0.6's type; `request()` takes any method). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Options of one call. */
export interface RequestOptions {
  /** Query parameters. */
  query?: QueryParams | undefined;
  /**
   * The body: every `BodyInit` `fetch` takes (string, Blob/File, ArrayBuffer, typed arrays,
   * DataView, URLSearchParams, FormData) goes out as `fetch` sends it, the same bytes on every
   * attempt; plain objects, arrays, numbers, booleans and null as JSON. Over muxws, JSON values only.
   */
  body?: unknown;
  /** Headers of this call, over the proxy's: a `Headers`, `[name, value]` pairs or an object. */
  headers?: HeadersInput | undefined;
  /** The Idempotency-Key of this call (to repeat a call yourself); printable ASCII, not empty. */
  key?: string | undefined;
  /** How this call is repeated, over the proxy's `repeat`. */
  repeat?: RepeatOptions | undefined;
  /** A call a busy indicator leaves out (`pendingCallCount()` does not count it). */
  background?: boolean | undefined;
  /** Cancels the call: its attempt is aborted and it rejects with `CallCancelled`. */
  signal?: AbortSignal | undefined;
  /** Store this call until it settles, so that `resumeCalls()` sends it again after a reload (REST). */
  persist?: boolean | undefined;
}

/** One entry of a `declares` list: a mixin naming the built-in actions it brings (0.6). */
export interface ViewSetMixinDeclaration {
  readonly actions: readonly string[];
}

/** Options shared by REST and muxws proxies. */
interface CommonOptions {
  /** The ViewSet's base path, e.g. `/items`. */
  basePath: string;
  /** Headers sent with every call: a `Headers`, `[name, value]` pairs or an object. */
  headers?: HeadersInput | undefined;
  /** How calls are repeated (per call: `RequestOptions.repeat`). */
  repeat?: RepeatOptions | undefined;
  /**
   * Checks the backend's `{basePath}/schema` once, in the background, and warns about declared
   * actions it does not serve (default true; `false` here or in `validateSchema` turns it off).
   */
  schemaCheck?: boolean | undefined;
  /** 0.6's name of `schemaCheck`. */
  validateSchema?: boolean | undefined;
  /**
   * Store every call of this proxy until it settles, so that `resumeCalls()` sends it again after a
   * reload (REST through fetch; per call: `RequestOptions.persist`). Bodies are stored in the clear;
   * credentials (Authorization, Cookie) and the headers named in `persistExclude` never.
   */
  persist?: boolean | undefined;
  /** Header names never stored with a persisted call, besides credentials. */
  persistExclude?: string[] | undefined;
}

/** Options of a REST proxy. */
export interface ViewSetOptions extends CommonOptions {
  /** The backend's origin; default: the page's origin. Required outside a web page (Node). */
  baseUrl?: string | undefined;
  /** Request interceptors, run in order when a call is issued. */
  interceptors?: RequestInterceptor[] | undefined;
  /** The timeout of one attempt (ms, default 30000; through axios, its `timeout`); 0 sets none. */
  attemptTimeoutMs?: number | undefined;
  /**
   * Send every attempt through this axios instance (its interceptors run; a call rejects with its
   * error as in 0.6); URLs are then relative to its `baseURL` unless `baseUrl` is given. Default: fetch.
   */
  axiosInstance?: AxiosLike | undefined;
}

/**
 * What a muxws proxy's `peer` option takes: a peer from `connectMuxws()`, or a function returning
 * one or a promise of one (0.6's lazy peer), called at the first call. Its peer is kept; when it
 * throws or its promise rejects, the calls waiting for it reject with that error and the next call
 * calls it again.
 */
export type MuxwsPeerSource = MuxwsPeer | (() => MuxwsPeer | Promise<MuxwsPeer>);

/** 0.6's name of what `peer` takes: in 0.7 a `MuxwsPeer` from `connectMuxws()`. */
export type MuxwsPeerLike = MuxwsPeer;

/**
 * 0.6's name of the stream `peer.open()` returns: in 0.7 the `MuxwsStream` of `connectMuxws()`'s
 * peer (`await stream` for the payload, `await stream.replyHeaders`).
 */
export type MuxwsStreamLike = MuxwsPeer extends { open(...args: any[]): infer S } ? S : never; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Options of a muxws proxy. */
export interface MuxwsViewSetOptions extends CommonOptions {
  /** The peer the calls travel over (see {@link MuxwsPeerSource}); its open interceptors run on each call's first stream. */
  peer: MuxwsPeerSource;
  /** The timeout of one attempt (ms, default 30000; 0 sets none): `reset(TIMEOUT)`, then a repeat at once. */
  timeoutMs?: number | undefined;
}

/** The options every 0.6 proxy took (`route_rest`, `route_muxws`, `RestProxyImpl`, `MuxwsProxyImpl`). */
export interface ProxyBaseOptions {
  /** The ViewSet's base path, e.g. `/items`. */
  basePath: string;
  /** The name of the primary key field, e.g. `'id'`: the proxy's `pkFieldName`. */
  pkFieldName: string;
  /** `false` turns the schema check off (0.6's name of `schemaCheck`). */
  validateSchema?: boolean | undefined;
  /** The mixins the schema check compares with the backend; default: the class's `static declares`. */
  declares?: readonly ViewSetMixinDeclaration[] | undefined;
}

/** Options of a 0.6 REST proxy: 0.6's, and every REST option of 0.7. */
export type RestProxyOptions = ProxyBaseOptions & ViewSetOptions;

/** Options of a 0.6 muxws proxy: 0.6's, and every muxws option of 0.7. */
export type MuxwsProxyOptions = ProxyBaseOptions & MuxwsViewSetOptions;
