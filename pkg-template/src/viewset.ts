/**
 * ViewSet proxies: the base class every proxy extends and the class factories (`restViewSet`,
 * `muxwsViewSet`), which give a class the built-in actions of its mixins. The logic of a call
 * (keys, repeats, headers, activity) lives in the wasm module; this file only shapes classes and
 * types around `issueCall()` (compose.ts).
 */
import { addActions, expectedRoutes } from './actions.js';
import { get, internalsOf, keepInternals } from './caller.js';
import { issueCall, proxyCore, type ProxyCore } from './compose.js';
import type { Follower, RecordsChanged, WatchOptions } from './vocabulary/events.js';
import { applyChangesOf, watchProxy } from './follow.js';
import type { ActionsOf, ActionSurface, KeyType, ViewSetMixinClass } from './mixins.js';

/** The primary key type of proxy `P`, read off its `retrieve` (any key when it has none). */
export type PkOf<P> = P extends { retrieve(pk: infer K, ...rest: any[]): unknown } ? K & KeyType : KeyType; // eslint-disable-line @typescript-eslint/no-explicit-any
/** The record type of proxy `P`, read off its `retrieve` (unknown when it has none). */
export type RecordOf<P> = P extends { retrieve(pk: any, ...rest: any[]): PromiseLike<infer T> } ? T : unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
import type { MuxwsViewSetOptions, RequestOptions, ViewSetMixinDeclaration, ViewSetOptions } from './vocabulary/options.js';
import { muxwsTransport } from './peer-source.js';
import type { Transport, ViewSetCall } from './vocabulary/call-types.js';
import { withKey } from './runtime.js';
import { scheduleSchemaCheck } from './schema.js';

export type { ViewSetCall } from './vocabulary/call-types.js';
export type { RequestDraft, RequestInterceptor } from './compose.js';
export type { HeadersInput } from './headers.js';
export type { AxiosLike } from './axios.js';

/** What the base class reads off a proxy class. */
interface ViewSetStatics {
  /** The primary key field of a factory-built class. */
  pkField?: string;
  /** The mixins the schema check compares with the backend's schema (0.6's `static declares`). */
  declares?: readonly ViewSetMixinDeclaration[];
  /** Set on classes whose calls travel over muxws: the transport of `options.peer`. */
  peerTransport?: (peer: unknown) => Transport;
}

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
    if (slot.key !== undefined && result instanceof Promise && !Object.hasOwn(result, 'key')) return withKey(result, slot.key);
    return result;
  };
  Object.defineProperty(wrapped, 'name', { value: method.name });
  return wrapped;
}

/**
 * Base class of every proxy (0.6's `ViewSetInternals`): holds the options and sends calls. A
 * proxy with a `declares` list (its class's, or the `declares` option) checks the backend's
 * schema once, in the background, unless `schemaCheck` or `validateSchema` is false.
 */
export abstract class ViewSetBase {
  /** The ViewSet's base path. */
  readonly basePath: string;
  /** The name of the primary key field (the factory's first argument, or 0.6's `pkFieldName` option). */
  readonly pkFieldName: string;

  constructor(options: ViewSetOptions | MuxwsViewSetOptions) {
    const statics = new.target as unknown as ViewSetStatics;
    // A muxws proxy always names its peer: a missing or wrong one is a TypeError, never a REST fallback.
    const core = proxyCore(options, statics.peerTransport);
    // Not a private field: a proxy kept in Vue state is called with the state's wrapper as `this`.
    keepInternals(this, core);
    this.basePath = core.basePath;
    this.pkFieldName = (statics.pkField ?? get(options, 'pkFieldName')) as string;
    wrapPublicMethods(new.target.prototype);
    const declares = get(options, 'declares') ?? statics.declares;
    if (Array.isArray(declares) && options.schemaCheck !== false && options.validateSchema !== false) {
      scheduleSchemaCheck(core, expectedRoutes(declares));
    }
  }

  /** Marks a proxy for Vue: reactive(), ref() and a Pinia store leave it as it is (no markRaw needed; it holds no reactive state). */
  get __v_skip(): true {
    return true;
  }

  /**
   * Sends one call to `{basePath}{path}`. The promise carries the call's `key` at once; a ViewSet's
   * own methods built on it carry it too. Never throws: a call that cannot be sent rejects.
   */
  protected request<R>(method: string, path: string, options?: RequestOptions): ViewSetCall<R> {
    const call = issueCall<R>(internalsOf<ProxyCore>(this), method, path, options);
    if (keyCapture && keyCapture.key === undefined) keyCapture.key = call.key;
    return call;
  }

  /**
   * Follows this ViewSet's topic (its `basePath`, as the server routes it) over this proxy's
   * transport, headers and interceptors: `onChange` gets each `records_changed`, once, in order.
   * Returns the `Follower` at once; a TypeError for wrong options.
   */
  watch(options: WatchOptions<PkOf<this>>): Follower {
    return watchProxy(this, options as WatchOptions);
  }

  /**
   * `rows` with `change` applied: `deleted` removes the records, `created`/`updated` retrieve each
   * through this proxy and insert or replace it (one gone meanwhile is removed). Applying a change
   * twice gives the same rows.
   */
  applyChanges(rows: readonly RecordOf<this>[], change: RecordsChanged<PkOf<this>>): Promise<RecordOf<this>[]> {
    return applyChangesOf(this, rows, change);
  }
}

export { ViewSetBase as ViewSetInternals };

/** The fields of `T` that can be a primary key (their values are strings or numbers). */
export type PkFieldName<T> = Extract<{ [F in keyof T]-?: NonNullable<T[F]> extends KeyType ? F : never }[keyof T], string>;

/** The type of the primary key field `PK` of `T`. */
export type PkType<T, PK extends keyof T> = NonNullable<T[PK]> & KeyType;

/** A proxy of `T` with the actions of mixins `D`: every action returns a `ViewSetCall` (its `key` always there). */
export type ViewSetInstance<T, PK extends keyof T, D extends readonly ViewSetMixinClass[]> = ViewSetBase &
  ActionSurface<PkType<T, PK>, T, PK, ActionsOf<D[number]>, true> & { readonly pkFieldName: PK };

/**
 * What `restViewSet<T>()(pk, mixins)` returns: a class to extend (or instantiate) taking options
 * `O`, whose instances have the actions of mixins `D`. 0.6's type parameters.
 */
export type ViewSetClass<T, PK extends keyof T, D extends readonly ViewSetMixinClass[], O> = {
  new (options: O): ViewSetInstance<T, PK, D>;
  /** The primary key field. */
  readonly pkField: PK;
  /** The mixins, as given. */
  readonly declares: D;
};

/** `restViewSet<T>()`/`muxwsViewSet<T>()`: takes the primary key field and the mixins. */
export type ViewSetFactory<T, O> = <PK extends PkFieldName<T> & keyof T, const D extends readonly ViewSetMixinClass[]>(
  pkField: PK,
  mixins: D,
) => ViewSetClass<T, PK, D, O>;

function factory(peerTransport?: (peer: unknown) => Transport) {
  return function () {
    return function (pkField: string, mixins: readonly ViewSetMixinClass[]) {
      abstract class ViewSet extends ViewSetBase {
        /** The name of the primary key field. */
        static readonly pkField = pkField;
        /** The mixins, as given (the schema check's list). */
        static readonly declares = mixins;
        /** How the calls of this class travel (REST when undefined). */
        static readonly peerTransport = peerTransport;
      }
      addActions(ViewSet, mixins);
      return ViewSet;
    };
  };
}

/**
 * `restViewSet<Item>()('id', [ViewSetMixin])`: a class to extend, whose calls travel over REST.
 * Its own methods send calls with `this.request()`.
 */
export const restViewSet = factory() as unknown as <T>() => ViewSetFactory<T, ViewSetOptions>;

/** `muxwsViewSet<Item>()('id', [ViewSetMixin])`: the same over a muxws peer (`options.peer`). */
export const muxwsViewSet = /* @__PURE__ */ factory(muxwsTransport) as unknown as <T>() => ViewSetFactory<T, MuxwsViewSetOptions>;
