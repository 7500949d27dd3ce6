/**
 * The 0.6 proxies: `route_rest` and `route_muxws` in their 0.6 shapes (a class as a type token,
 * every action on the proxy) beside the curried ones, and the proxy classes 0.6 code subclasses
 * (`ViewSetProxyBase`, `RestProxyImpl`, `MuxwsProxyImpl`). Only apps that name them ship them.
 */
import { addActions } from './actions.js';
import type { AxiosLike } from './axios.js';
import { get } from './caller.js';
import {
  BulkViewSetMixin,
  CursorListMixin,
  LookupMixin,
  PaginatedListMixin,
  type DefaultPk,
  type KeyType,
  type ViewSetMixinClass,
} from './mixins.js';
import type { MuxwsProxyOptions, MuxwsViewSetOptions, RestProxyOptions, ViewSetMixinDeclaration, ViewSetOptions } from './vocabulary/options.js';
import { muxwsTransport } from './peer-source.js';
import { muxwsViewSet, restViewSet, ViewSetBase, type PkFieldName, type ViewSetInstance } from './viewset.js';

/**
 * 0.6's base of the proxy classes: every built-in action, each sent with `this.request()`. A
 * subclass may override an action with a method returning a plain `Promise` (the actions are typed
 * `ViewSetActionCall`, as in 0.6); its `static declares` (or the `declares` option) turns on the
 * schema check.
 */
export interface ViewSetProxyBase<K extends KeyType, T, PK extends keyof T = DefaultPk<T>>
  extends ViewSetBase,
    BulkViewSetMixin<K, T, PK>,
    PaginatedListMixin<T>,
    CursorListMixin<T>,
    LookupMixin {
  /** 0.6's start of the schema check: 0.7 schedules it when the proxy is made, so this does nothing. */
  initSchemaValidation(): void;
}
export const ViewSetProxyBase: {
  /** The mixins this ViewSet declares, for the schema check; without them there is no check. */
  declares?: readonly ViewSetMixinDeclaration[];
} & (abstract new <K extends KeyType, T, PK extends keyof T = DefaultPk<T>>(
  options: ViewSetOptions | MuxwsViewSetOptions,
) => ViewSetProxyBase<K, T, PK>) =
  // made by a pure call, so that an app that never names a 0.6 proxy class ships neither it nor the mixins it holds
  /* @__PURE__ */ (() => {
    abstract class ViewSetProxyBase extends ViewSetBase {
      initSchemaValidation(): void {}
    }
    addActions(ViewSetProxyBase, [BulkViewSetMixin, PaginatedListMixin, CursorListMixin, LookupMixin]);
    return ViewSetProxyBase as never;
  })();

/** The request shortcuts of the axios instance a `RestProxyImpl` was given (`this.http`). */
export interface AxiosHttp extends AxiosLike {
  get<R = any>(url: string, config?: Record<string, unknown>): Promise<{ data: R; status: number; headers: unknown }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  delete<R = any>(url: string, config?: Record<string, unknown>): Promise<{ data: R; status: number; headers: unknown }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  post<R = any>(url: string, data?: unknown, config?: Record<string, unknown>): Promise<{ data: R; status: number; headers: unknown }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  put<R = any>(url: string, data?: unknown, config?: Record<string, unknown>): Promise<{ data: R; status: number; headers: unknown }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  patch<R = any>(url: string, data?: unknown, config?: Record<string, unknown>): Promise<{ data: R; status: number; headers: unknown }>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** 0.6's REST proxy class: every built-in action over REST (`fetch`, or the `axiosInstance` given). */
export class RestProxyImpl<K extends KeyType, T, PK extends keyof T = DefaultPk<T>> extends ViewSetProxyBase<K, T, PK> {
  /** The `axiosInstance` option (undefined without one: 0.7 does not import axios itself). */
  protected readonly http: AxiosHttp | undefined;

  constructor(options: RestProxyOptions) {
    super(options);
    this.http = get(options, 'axiosInstance') as AxiosHttp | undefined;
  }
}

/** 0.6's muxws proxy class: every built-in action over the muxws peer of `options.peer`. */
export class MuxwsProxyImpl<K extends KeyType, T, PK extends keyof T = DefaultPk<T>> extends ViewSetProxyBase<K, T, PK> {
  /** How the calls of this class travel: over the peer of `options.peer`. */
  static readonly peerTransport = muxwsTransport;

  constructor(options: MuxwsProxyOptions) {
    super(options);
  }
}

/** What 0.6's `route_rest<M>` returns: a proxy typed as the mixin interface `M`. */
export type RestProxy<M> = M;

/** What 0.6's `route_muxws<M>` returns: a proxy typed as the mixin interface `M`. */
export type MuxwsProxy<M> = M;

/** A class `route_rest`/`route_muxws` take as a type token (only its `static declares` is read). */
export type ViewSetTypeToken = abstract new (...args: any[]) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A class made by `restViewSet`/`muxwsViewSet`, which `route_rest`/`route_muxws` refuse. */
type FactoryBuilt = { readonly pkField: string; readonly declares: readonly ViewSetMixinClass[] };

/** What `route_rest`/`route_muxws` type a factory-built class as: the mistake, so that the first member access fails. */
type FactoryBuiltRefused = 'a class from restViewSet/muxwsViewSet is instantiated with new, not passed to route_rest/route_muxws (which would lose its own methods)';

/** The curried form of `route_rest`/`route_muxws` (0.1): the primary key field, the mixins and the options. */
export type BareFactory<T, O> = <PK extends PkFieldName<T> & keyof T, const D extends readonly ViewSetMixinClass[]>(
  pkField: PK,
  mixins: D,
  options: O,
) => ViewSetInstance<T, PK, D>;

type ViewSetConstructor = new (options: unknown) => ViewSetBase;

/** A 0.6 proxy of class `Impl`: `[viewSetClass, basePath, pkFieldName, axiosInstance]` or `[viewSetClass, options]`. */
function proxy06(Impl: ViewSetConstructor, [viewSetClass, first, pkFieldName, axiosInstance]: unknown[]): unknown {
  const options = typeof first === 'string' ? { basePath: first, pkFieldName, axiosInstance } : first;
  return new Impl({ ...(options as object), declares: get(options, 'declares') ?? get(viewSetClass, 'declares') });
}

type Classes = () => (pkField: string, mixins: readonly ViewSetMixinClass[]) => ViewSetConstructor;

/** `route_rest<T>()` (0.1): `(pkField, mixins, options)` makes a proxy with the mixins' actions. */
function curried(classes: Classes) {
  return (pkField: string, mixins: readonly ViewSetMixinClass[], options: unknown): unknown => new (classes()(pkField, mixins))(options);
}

/**
 * A bare REST proxy, in three shapes:
 * - `route_rest<Item>()('id', [ViewSetMixin], { basePath: '/items' })`: the mixins' actions, typed
 *   with `ViewSetCall`;
 * - 0.6: `route_rest<M>(ViewSetClass, '/items', 'id', axiosInstance?)` and
 *   `route_rest<M>(ViewSetClass, { basePath, pkFieldName, axiosInstance?, validateSchema? })`: every
 *   built-in action, typed as the mixin interface `M`; the class is a type token whose `static
 *   declares` (if any) the schema check compares.
 */
export function route_rest<T>(): BareFactory<T, ViewSetOptions>;
/** Refused: a class from `restViewSet`/`muxwsViewSet` is instantiated with `new`, not passed here. */
export function route_rest<M>(viewSetClass: FactoryBuilt, basePath: string, pkFieldName: string, axiosInstance?: AxiosLike): FactoryBuiltRefused;
/** Refused: a class from `restViewSet`/`muxwsViewSet` is instantiated with `new`, not passed here. */
export function route_rest<M>(viewSetClass: FactoryBuilt, options: RestProxyOptions): FactoryBuiltRefused;
/** 0.6: a REST proxy with every built-in action, typed as `M`, through `axiosInstance` if given (else `fetch`). */
export function route_rest<M>(viewSetClass: ViewSetTypeToken, basePath: string, pkFieldName: string, axiosInstance?: AxiosLike): RestProxy<M>;
/** 0.6: a REST proxy with every built-in action, typed as `M`; the options of 0.6 and of 0.7's REST proxies. */
export function route_rest<M>(viewSetClass: ViewSetTypeToken, options: RestProxyOptions): RestProxy<M>;
export function route_rest(...args: unknown[]): unknown {
  return args.length === 0 ? curried(restViewSet as unknown as Classes) : proxy06(RestProxyImpl as unknown as ViewSetConstructor, args);
}

/**
 * A bare muxws proxy: `route_muxws<Item>()('id', [ViewSetMixin], { basePath, peer })`, or 0.6's
 * `route_muxws<M>(ViewSetClass, { basePath, pkFieldName, peer, timeoutMs?, headers?, validateSchema? })`.
 */
export function route_muxws<T>(): BareFactory<T, MuxwsViewSetOptions>;
/** Refused: a class from `restViewSet`/`muxwsViewSet` is instantiated with `new`, not passed here. */
export function route_muxws<M>(viewSetClass: FactoryBuilt, options: MuxwsProxyOptions): FactoryBuiltRefused;
/** 0.6: a muxws proxy with every built-in action, typed as `M`, over `options.peer` (from `connectMuxws`). */
export function route_muxws<M>(viewSetClass: ViewSetTypeToken, options: MuxwsProxyOptions): MuxwsProxy<M>;
export function route_muxws(...args: unknown[]): unknown {
  return args.length === 0 ? curried(muxwsViewSet as unknown as Classes) : proxy06(MuxwsProxyImpl as unknown as ViewSetConstructor, args);
}
