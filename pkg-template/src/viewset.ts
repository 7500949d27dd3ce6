/**
 * ViewSet proxies: class factories (`restViewSet`, `muxwsViewSet`), bare proxies (`route_rest`,
 * `route_muxws`) and the mixins that map a ViewSet's built-in actions to the backend's routes.
 * The logic of a call (keys, repeats, headers, activity) lives in the wasm module; this file only
 * shapes classes and types around `issueCall()` (compose.ts).
 */
import type { AxiosLike } from './axios.js';
import { issueCall, proxyCore, type ProxyCore, type RequestInterceptor } from './compose.js';
import type { HeadersInput } from './headers.js';
import type { MuxwsPeer } from './muxws.js';
import type { ViewSetCall } from './runtime.js';
import { scheduleSchemaCheck } from './schema.js';

export type { ViewSetCall } from './runtime.js';
export type { RequestDraft, RequestInterceptor } from './compose.js';
export type { HeadersInput } from './headers.js';
export type { AxiosLike } from './axios.js';

/** What a declared action returns: `key` is optional so that an override may return a plain `Promise<R>`. */
export type ViewSetActionCall<R> = Promise<R> & { readonly key?: string };

/** How a call is repeated when an attempt ends without an answer. */
export interface RepeatOptions {
  /** A repeat is sent only this long after the first attempt (ms, default 600000); 0 turns repeating off. */
  withinMs?: number;
  /** The delay before a repeat after a lost connection or a gateway status (ms, default 1000), doubled after each, at most 30000. */
  delayMs?: number;
  /**
   * 0…1 (default 0): each delay is drawn uniformly from [delay·(1−jitter), delay], so that clients
   * cut off by one outage do not all repeat at the same moments. A server's `Retry-After` is kept exactly.
   */
  jitter?: number;
}

/** A query parameter value; arrays repeat the parameter, `null`/`undefined` leave it out. */
export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number | boolean>;

/** Options of one call. */
export interface RequestOptions {
  /** Query parameters. */
  query?: Record<string, QueryValue>;
  /**
   * The body: every `BodyInit` `fetch` takes (string, Blob/File, ArrayBuffer, typed arrays,
   * DataView, URLSearchParams, FormData) goes out as `fetch` sends it, the same bytes on every
   * attempt; plain objects, arrays, numbers, booleans and null as JSON. Over muxws, JSON values only.
   */
  body?: unknown;
  /** Headers of this call, over the proxy's: a `Headers`, `[name, value]` pairs or an object. */
  headers?: HeadersInput;
  /** The Idempotency-Key of this call (to repeat a call yourself); printable ASCII, not empty. */
  key?: string;
  /** How this call is repeated, over the proxy's `repeat`. */
  repeat?: RepeatOptions;
  /** A call a busy indicator leaves out (`pendingCallCount()` does not count it). */
  background?: boolean;
  /** Cancels the call: its attempt is aborted and it rejects with `CallCancelled`. */
  signal?: AbortSignal;
  /** Store this call until it settles, so that `resumeCalls()` sends it again after a reload (REST). */
  persist?: boolean;
}

/** Options shared by REST and muxws proxies. */
interface CommonOptions {
  /** The ViewSet's base path, e.g. `/items`. */
  basePath: string;
  /** Headers sent with every call: a `Headers`, `[name, value]` pairs or an object. */
  headers?: HeadersInput;
  /** How calls are repeated (per call: `RequestOptions.repeat`). */
  repeat?: RepeatOptions;
  /** Checks the backend's `{basePath}/schema` once, in the background, and warns on mismatches (default true). */
  schemaCheck?: boolean;
  /**
   * Store every call of this proxy until it settles, so that `resumeCalls()` sends it again after a
   * reload (REST through fetch; per call: `RequestOptions.persist`). Bodies are stored in the clear;
   * credentials (Authorization, Cookie) and the headers named in `persistExclude` never.
   */
  persist?: boolean;
  /** Header names never stored with a persisted call, besides credentials. */
  persistExclude?: string[];
}

/** Options of a REST proxy. */
export interface ViewSetOptions extends CommonOptions {
  /** The backend's origin; default: the page's origin. Required outside a web page (Node). */
  baseUrl?: string;
  /** Request interceptors, run in order when a call is issued. */
  interceptors?: RequestInterceptor[];
  /** The timeout of one attempt (ms, default 30000; through axios, its `timeout`); 0 sets none. */
  attemptTimeoutMs?: number;
  /**
   * Send every attempt through this axios instance (its interceptors run; a call rejects with its
   * error as in 0.6); URLs are then relative to its `baseURL` unless `baseUrl` is given. Default: fetch.
   */
  axiosInstance?: AxiosLike;
}

/** Options of a muxws proxy. */
export interface MuxwsViewSetOptions extends CommonOptions {
  /** The peer the calls travel over (from `connectMuxws`); its open interceptors run on each call's first stream. */
  peer: MuxwsPeer;
  /** The timeout of one attempt (ms, default 30000; 0 sets none): `reset(TIMEOUT)`, then a repeat at once. */
  timeoutMs?: number;
}

/** The built-in actions a mixin can bring. */
export type ActionName =
  | 'list'
  | 'retrieve'
  | 'create'
  | 'update'
  | 'partialUpdate'
  | 'destroy'
  | 'bulkCreate'
  | 'bulkUpdate'
  | 'bulkPartialUpdate'
  | 'bulkDestroy'
  | 'lookup';

/** A mixin: the built-in actions it adds to a ViewSet class. */
export interface Mixin<A extends ActionName = ActionName> {
  readonly actions: readonly A[];
}

function mixin<A extends ActionName>(...actions: A[]): Mixin<A> {
  return Object.freeze({ actions: Object.freeze(actions) });
}

/** `list()`: GET `{basePath}`. */
export const ListMixin = /* @__PURE__ */ mixin('list');
/** `retrieve(pk)`: GET `{basePath}/{pk}`. */
export const RetrieveMixin = /* @__PURE__ */ mixin('retrieve');
/** `create(data)`: POST `{basePath}`. */
export const CreateMixin = /* @__PURE__ */ mixin('create');
/** `update(pk, data)`: PUT `{basePath}/{pk}`; `partialUpdate(pk, data)`: PATCH `{basePath}/{pk}`. */
export const UpdateMixin = /* @__PURE__ */ mixin('update', 'partialUpdate');
/** `destroy(pk)`: DELETE `{basePath}/{pk}`. */
export const DestroyMixin = /* @__PURE__ */ mixin('destroy');
/** The five CRUD actions. */
export const ViewSetMixin = /* @__PURE__ */ mixin('list', 'retrieve', 'create', 'update', 'partialUpdate', 'destroy');
/** `list()` and `retrieve(pk)`. */
export const ReadOnlyViewSetMixin = /* @__PURE__ */ mixin('list', 'retrieve');
/** `bulkCreate(records)`: POST `{basePath}/bulk`. */
export const BulkCreateMixin = /* @__PURE__ */ mixin('create', 'bulkCreate');
/** `bulkUpdate(records)`: PUT `{basePath}/bulk`; `bulkPartialUpdate(records)`: PATCH `{basePath}/bulk`. */
export const BulkUpdateMixin = /* @__PURE__ */ mixin('update', 'partialUpdate', 'bulkUpdate', 'bulkPartialUpdate');
/** `bulkDestroy(pks)`: DELETE `{basePath}/bulk?pk=…`. */
export const BulkDestroyMixin = /* @__PURE__ */ mixin('destroy', 'bulkDestroy');
/** Every CRUD action, single and bulk. */
export const BulkViewSetMixin = /* @__PURE__ */ mixin(
  'list', 'retrieve', 'create', 'update', 'partialUpdate', 'destroy',
  'bulkCreate', 'bulkUpdate', 'bulkPartialUpdate', 'bulkDestroy',
);
/** `lookup(query?)`: GET `{basePath}/lookup`. */
export const LookupMixin = /* @__PURE__ */ mixin('lookup');

/** The signatures of the built-in actions of a ViewSet of `T` with primary key type `K`. */
export interface ActionSignatures<T, K> {
  list(options?: RequestOptions): ViewSetActionCall<T[]>;
  retrieve(pk: K, options?: RequestOptions): ViewSetActionCall<T>;
  create(data: Partial<T>, options?: RequestOptions): ViewSetActionCall<T>;
  update(pk: K, data: Partial<T>, options?: RequestOptions): ViewSetActionCall<T>;
  partialUpdate(pk: K, data: Partial<T>, options?: RequestOptions): ViewSetActionCall<T>;
  destroy(pk: K, options?: RequestOptions): ViewSetActionCall<Record<string, unknown>>;
  bulkCreate(records: Partial<T>[], options?: RequestOptions): ViewSetActionCall<T[]>;
  bulkUpdate(records: Record<string, Partial<T>>, options?: RequestOptions): ViewSetActionCall<T[]>;
  bulkPartialUpdate(records: Record<string, Partial<T>>, options?: RequestOptions): ViewSetActionCall<T[]>;
  bulkDestroy(pks: K[], options?: RequestOptions): ViewSetActionCall<Record<string, unknown>[]>;
  lookup(options?: RequestOptions): ViewSetActionCall<unknown[]>;
}

/** The actions a list of mixins brings. */
export type ActionsOf<M> = M extends readonly (infer X)[] ? (X extends Mixin<infer A> ? A : never) : never;

/** The same signatures with `ViewSetCall` (key always present), as `route_rest`/`route_muxws` type them. */
export type WithKeys<S> = {
  [P in keyof S]: S[P] extends (...args: infer A) => ViewSetActionCall<infer R> ? (...args: A) => ViewSetCall<R> : S[P];
};

type Route = { method: string; path: (pk?: unknown) => string; pk: boolean; body: boolean; query?: (arg: unknown) => Record<string, QueryValue> };

/** Where each built-in action goes on the backend (fastapi-viewsets 0.14 routes). */
const ROUTES: Record<ActionName, Route> = {
  list: { method: 'GET', path: () => '', pk: false, body: false },
  retrieve: { method: 'GET', path: (pk) => `/${encodeURIComponent(String(pk))}`, pk: true, body: false },
  create: { method: 'POST', path: () => '', pk: false, body: true },
  update: { method: 'PUT', path: (pk) => `/${encodeURIComponent(String(pk))}`, pk: true, body: true },
  partialUpdate: { method: 'PATCH', path: (pk) => `/${encodeURIComponent(String(pk))}`, pk: true, body: true },
  destroy: { method: 'DELETE', path: (pk) => `/${encodeURIComponent(String(pk))}`, pk: true, body: false },
  bulkCreate: { method: 'POST', path: () => '/bulk', pk: false, body: true },
  bulkUpdate: { method: 'PUT', path: () => '/bulk', pk: false, body: true },
  bulkPartialUpdate: { method: 'PATCH', path: () => '/bulk', pk: false, body: true },
  bulkDestroy: { method: 'DELETE', path: () => '/bulk', pk: false, body: false, query: (pks) => ({ pk: pks as ReadonlyArray<string | number> }) },
  lookup: { method: 'GET', path: () => '/lookup', pk: false, body: false },
};

/** The key of the first request a public method issues in its synchronous part. */
let keyCapture: { key?: string } | null = null;

const wrappedPrototypes = new WeakSet<object>();

/** Gives every public method of `prototype` (and of its ViewSet ancestors) the key of the first request it issues before its first await. */
function wrapPublicMethods(prototype: object): void {
  for (let proto = prototype; proto && proto !== ViewSetBase.prototype && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    if (wrappedPrototypes.has(proto)) continue;
    wrappedPrototypes.add(proto);
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || name.startsWith('_')) continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (!descriptor || typeof descriptor.value !== 'function') continue;
      Object.defineProperty(proto, name, { ...descriptor, value: withCallKey(descriptor.value as (...args: unknown[]) => unknown) });
    }
  }
}

function withCallKey(method: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    const outer = keyCapture;
    const slot: { key?: string } = {};
    keyCapture = slot;
    let result: unknown;
    try {
      result = method.apply(this, args);
    } finally {
      keyCapture = outer;
    }
    if (outer && outer.key === undefined) outer.key = slot.key;
    if (slot.key !== undefined && result instanceof Promise && !Object.prototype.hasOwnProperty.call(result, 'key')) {
      Object.defineProperty(result, 'key', { value: slot.key, enumerable: true });
    }
    return result;
  };
  Object.defineProperty(wrapped, 'name', { value: method.name });
  return wrapped;
}

/** Base class of every proxy: holds the options and sends calls. */
export abstract class ViewSetBase {
  readonly #core: ProxyCore;
  /** The ViewSet's base path. */
  readonly basePath: string;

  constructor(options: ViewSetOptions | MuxwsViewSetOptions) {
    const overMuxws = (new.target as unknown as { transport?: string }).transport === 'muxws';
    // A muxws proxy always names its peer: a missing or wrong one is a TypeError, never a REST fallback.
    this.#core = proxyCore(options, overMuxws);
    this.basePath = this.#core.basePath;
    wrapPublicMethods(new.target.prototype);
    if (options.schemaCheck !== false) scheduleSchemaCheck(this, this.#core, expectedRoutes);
  }

  /**
   * Sends one call to `{basePath}{path}`. The promise carries the call's `key` at once; a ViewSet's
   * own methods built on it carry it too. Never throws: a call that cannot be sent rejects.
   */
  protected request<R>(method: string, path: string, options?: RequestOptions): ViewSetCall<R> {
    const call = issueCall<R>(this.#core, method, path, options);
    if (keyCapture && keyCapture.key === undefined) keyCapture.key = call.key;
    return call;
  }
}

/** Gives a proxy class the built-in actions of `actions`. */
function addActions(target: { prototype: object }, actions: readonly ActionName[]): void {
  for (const action of new Set(actions)) {
    const route = ROUTES[action];
    const method = function (this: ViewSetBase, ...args: unknown[]): unknown {
      const pk = route.pk ? args.shift() : undefined;
      const data = route.body || route.query ? args.shift() : undefined;
      const given = args.shift();
      const send = (this as unknown as { request(m: string, p: string, o: unknown): unknown }).request.bind(this);
      // Options that are not an object go through as they are, so the call rejects with a TypeError.
      if (given !== undefined && (given === null || typeof given !== 'object')) return send(route.method, route.path(pk), given);
      const options = { ...(given as RequestOptions | undefined) };
      if (route.body) options.body = data;
      if (route.query) options.query = { ...options.query, ...route.query(data) };
      return send(route.method, route.path(pk), options);
    };
    Object.defineProperty(method, 'name', { value: action });
    Object.defineProperty(target.prototype, action, { value: method, writable: true, configurable: true });
  }
}

/** A constructor of proxies with the actions of mixins `M`. */
export type ViewSetClass<T, K, M, O> = abstract new (options: O) => ViewSetBase & Pick<ActionSignatures<T, K>, ActionsOf<M> & keyof ActionSignatures<T, K>>;

function factory<O extends ViewSetOptions | MuxwsViewSetOptions>(transport: 'rest' | 'muxws') {
  return function <T>() {
    return function <P extends keyof T, const M extends readonly Mixin[]>(pkField: P, mixins: M): ViewSetClass<T, T[P], M, O> {
      abstract class ViewSet extends ViewSetBase {
        /** The name of the primary key field. */
        static readonly pkField = pkField;
        /** How the calls of this class travel. */
        static readonly transport = transport;
      }
      addActions(ViewSet, mixins.flatMap((m) => m.actions));
      return ViewSet as unknown as ViewSetClass<T, T[P], M, O>;
    };
  };
}

/**
 * `restViewSet<Item>()('id', [ViewSetMixin])`: a class to extend, whose calls travel over REST.
 * Its own methods send calls with `this.request()`.
 */
export const restViewSet = factory<ViewSetOptions>('rest');

/** `muxwsViewSet<Item>()('id', [ViewSetMixin])`: the same over a muxws peer (`options.peer`). */
export const muxwsViewSet = factory<MuxwsViewSetOptions>('muxws');

/** The proxy type `route_rest`/`route_muxws` make: every built-in action typed as returning `ViewSetCall<R>`. */
export type BareViewSet<T, K, M> = ViewSetBase & WithKeys<Pick<ActionSignatures<T, K>, ActionsOf<M> & keyof ActionSignatures<T, K>>>;

function bare<O extends ViewSetOptions | MuxwsViewSetOptions>(classes: ReturnType<typeof factory<O>>) {
  return function <T>() {
    return function <P extends keyof T, const M extends readonly Mixin[]>(pkField: P, mixins: M, options: O): BareViewSet<T, T[P], M> {
      const Base = classes<T>()(pkField, mixins) as unknown as new (o: O) => ViewSetBase;
      return new (class extends Base {})(options) as BareViewSet<T, T[P], M>;
    };
  };
}

/** `route_rest<Item>()('id', [ViewSetMixin], { basePath: '/items' })`: a bare REST proxy. */
export const route_rest = bare(restViewSet);

/** `route_muxws<Item>()('id', [ViewSetMixin], { basePath: '/items', peer })`: a bare muxws proxy. */
export const route_muxws = bare(muxwsViewSet);

/** The routes of the built-in actions `proxy` has: `"<action> <METHOD> <suffix>"`. */
function expectedRoutes(proxy: object): string[] {
  const routes: string[] = [];
  for (const action of Object.keys(ROUTES) as ActionName[]) {
    if (typeof (proxy as unknown as Record<string, unknown>)[action] !== 'function') continue;
    const route = ROUTES[action];
    routes.push(`${action} ${route.method} ${route.pk ? '/{pk}' : route.path()}`);
  }
  return routes;
}
