/**
 * The mixins: the built-in actions a ViewSet declares, named as the backend's mixins are. Each is
 * a value (a class whose static `actions` lists its actions: in a factory's list, a `declares`
 * list, after `extends`) and a generic type of the same name (the actions' signatures), as in 0.6:
 *
 *   class ItemApi extends restViewSet<Item>()('id', [ViewSetMixin, LookupMixin]) {}
 *   const items = route_rest<BulkViewSetMixin<number, Item>>(ItemViewSet, '/items', 'id');
 *
 * Every signature is written once, in an `…Actions` interface, with `C` telling how its promise is
 * typed: `ViewSetCall<R>` (the key is always there) on class-based proxies, `ViewSetActionCall<R>`
 * in the 0.6 interfaces, which a plain `Promise<R>` also fits (0.6 test doubles, `implements`,
 * overrides on 0.6 proxy classes). How each action goes on the wire is actions.ts.
 */
import type { QueryValue, RequestOptions } from './vocabulary/options.js';
import type { ViewSetCall } from './vocabulary/call-types.js';

/** What a built-in action returns in a 0.6 interface: a `Promise<R>`, with the call's `key` when the SDK made it. */
export type ViewSetActionCall<R> = Promise<R> & { readonly key?: string };

/** `ViewSetCall<R>` when `C` is true (class-based proxies), else `ViewSetActionCall<R>`. */
export type CallOf<C extends boolean, R> = C extends true ? ViewSetCall<R> : ViewSetActionCall<R>;

/** A primary key value. */
export type KeyType = string | number;

/** What `destroy` answers: `{ "<pk>": null }`. */
export type DestroyReturnData = Record<KeyType, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- 0.6's type

/** The primary key field a mixin type assumes when none is given: `'id'` when `T` has one. */
export type DefaultPk<T> = Extract<'id', keyof T>;

/** One entry of `lookup()`'s answer. */
export interface LookupItem {
  group: unknown;
  pk: unknown;
  title: string;
  icon: string | null;
}

/** A list's query: `sort` (`'column:asc,other:desc'`) and filters (`author__icontains`, `year__in: [1815, 1817]`). */
export interface ListParams {
  sort?: string;
  [name: string]: QueryValue;
}

/** `listPage`'s query: a list's, and the page. */
export interface PageParams extends ListParams {
  offset?: number;
  limit?: number;
}

/** `listCursor`'s query: a list's, the page size and the cursor of a page's `next`, `previous`, `first` or `last`. */
export interface CursorParams extends ListParams {
  cursor?: string;
  limit?: number;
}

/** `lookup()`'s query: `q` searches the titles (an addition to 0.6, which sent none). */
export interface LookupParams {
  q?: string;
  [name: string]: QueryValue;
}

/** One page of a paginated list (the backend's `has_more`/`has_previous` as `hasMore`/`hasPrevious`). */
export interface PaginatedList<T> {
  results: T[];
  offset: number;
  limit: number | null;
  /** The total after filtering; null when the backend cannot count it. */
  count: number | null;
  hasMore: boolean;
  hasPrevious: boolean;
}

/** One page of a cursor list (the backend's `has_more`/`has_previous` as `hasMore`/`hasPrevious`). */
export interface CursorPage<T> {
  results: T[];
  limit: number;
  hasMore: boolean;
  hasPrevious: boolean;
  /** The cursor of the page after this one (exclusive), when `hasMore`. */
  next: string | null;
  /** The cursor of the page before this one (exclusive), when `hasPrevious`. */
  previous: string | null;
  /** This page again from its first record (inclusive). */
  first: string | null;
  /** This page's last record onwards (inclusive). */
  last: string | null;
}

/** The built-in actions a mixin can bring. */
export type ActionName =
  | 'list'
  | 'listPage'
  | 'listCursor'
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

// ------------------------------------------------------------------------ the signatures, once

/** `create(data)`: POST `{basePath}`, the record without its primary key. */
export interface CreateActions<T, PK extends keyof T, C extends boolean = false> {
  create(data: Omit<T, PK>, options?: RequestOptions): CallOf<C, T>;
}
/** `bulkCreate(records)`: POST `{basePath}/bulk`. */
export interface BulkCreateActions<T, PK extends keyof T, C extends boolean = false> {
  bulkCreate(data: Omit<T, PK>[], options?: RequestOptions): CallOf<C, T[]>;
}
/**
 * `list(params)`: GET `{basePath}` with `params` (sort and filters) as the query. The first
 * argument is the query unless one of its values is an object other than an array of scalars
 * (`query`, `headers`, `signal`, `repeat`), which no query holds: then it is `RequestOptions`
 * (`list({ query })`, 0.1's form, typed on class-based proxies). Other options go second:
 * `list(params, { signal })`. One signature, not an overload per form: an override written
 * `list(params?: ListParams, options?: RequestOptions)` then fits it.
 */
export interface ListActions<T, C extends boolean = false> {
  list(params?: C extends true ? ListParams | RequestOptions : ListParams, options?: RequestOptions): CallOf<C, T[]>;
}
/** `listPage(params)`: GET `{basePath}` of a paginated viewset, one page. */
export interface PageActions<T, C extends boolean = false> {
  listPage(params?: PageParams, options?: RequestOptions): CallOf<C, PaginatedList<T>>;
}
/** `listCursor(params)`: GET `{basePath}` of a cursor viewset, one page. */
export interface CursorActions<T, C extends boolean = false> {
  listCursor(params?: CursorParams, options?: RequestOptions): CallOf<C, CursorPage<T>>;
}
/** `retrieve(pk)`: GET `{basePath}/{pk}`. */
export interface RetrieveActions<K extends KeyType, T, C extends boolean = false> {
  retrieve(pk: K, options?: RequestOptions): CallOf<C, T>;
}
/** `update(pk, data)`: PUT `{basePath}/{pk}` (the whole record); `partialUpdate(pk, data)`: PATCH. */
export interface UpdateActions<K extends KeyType, T, C extends boolean = false> {
  update(pk: K, data: T, options?: RequestOptions): CallOf<C, T>;
  partialUpdate(pk: K, data: Partial<T>, options?: RequestOptions): CallOf<C, T>;
}
/** `bulkUpdate(records)`: PUT `{basePath}/bulk` (`{pk: record}`); `bulkPartialUpdate(records)`: PATCH. */
export interface BulkUpdateActions<K extends KeyType, T, C extends boolean = false> {
  bulkUpdate(records: Record<K, T>, options?: RequestOptions): CallOf<C, T[]>;
  bulkPartialUpdate(records: Record<K, Partial<T>>, options?: RequestOptions): CallOf<C, T[]>;
}
/** `destroy(pk)`: DELETE `{basePath}/{pk}`. */
export interface DestroyActions<K extends KeyType, C extends boolean = false> {
  destroy(pk: K, options?: RequestOptions): CallOf<C, DestroyReturnData>;
}
/** `bulkDestroy(pks)`: DELETE `{basePath}/bulk`, the pks as the JSON body. */
export interface BulkDestroyActions<K extends KeyType, C extends boolean = false> {
  bulkDestroy(pks: K[], options?: RequestOptions): CallOf<C, DestroyReturnData[]>;
}
/** `lookup(params?)`: GET `{basePath}/lookup`. */
export interface LookupActions<C extends boolean = false> {
  lookup(params?: LookupParams, options?: RequestOptions): CallOf<C, LookupItem[]>;
}

/**
 * The actions named by `A`, each with its one signature; `C`: typed as on class-based proxies
 * (`ViewSetCall`). An intersection of interfaces, so that the actions stay methods a subclass may
 * override.
 */
export type ActionSurface<K extends KeyType, T, PK extends keyof T, A, C extends boolean = false> = ('create' extends A
  ? CreateActions<T, PK, C>
  : unknown) &
  ('bulkCreate' extends A ? BulkCreateActions<T, PK, C> : unknown) &
  ('list' extends A ? ListActions<T, C> : unknown) &
  ('listPage' extends A ? PageActions<T, C> : unknown) &
  ('listCursor' extends A ? CursorActions<T, C> : unknown) &
  ('retrieve' extends A ? RetrieveActions<K, T, C> : unknown) &
  ('update' extends A ? UpdateActions<K, T, C> : unknown) &
  ('bulkUpdate' extends A ? BulkUpdateActions<K, T, C> : unknown) &
  ('destroy' extends A ? DestroyActions<K, C> : unknown) &
  ('bulkDestroy' extends A ? BulkDestroyActions<K, C> : unknown) &
  ('lookup' extends A ? LookupActions<C> : unknown);

// ------------------------------------------------------------------------ the mixins

/** A mixin value: a class whose static `actions` lists the built-in actions it brings. */
export type ViewSetMixinClass = { readonly actions: readonly string[] } & (abstract new (...args: any[]) => object); // eslint-disable-line @typescript-eslint/no-explicit-any

/** 0.1's name of a mixin value. */
export type Mixin = ViewSetMixinClass;

/** The actions a mixin value brings, read off its instance type (as 0.6 did). */
export type ActionsOf<D> = D extends abstract new (...args: any[]) => infer I ? Extract<keyof I, ActionName> : never; // eslint-disable-line @typescript-eslint/no-explicit-any

type Actions = { readonly actions: readonly ActionName[] };

function mixin(...actions: ActionName[]): Actions {
  return class Mixin {
    static readonly actions = Object.freeze(actions);
  };
}

/** `create(data)`. */
export interface CreateMixin<T, PK extends keyof T = DefaultPk<T>> extends CreateActions<T, PK> {}
export const CreateMixin: Actions & { new <T, PK extends keyof T = DefaultPk<T>>(): CreateMixin<T, PK> } = /* @__PURE__ */ mixin('create') as never;

/** `bulkCreate(records)` alone. */
export interface BulkOnlyCreateMixin<T, PK extends keyof T = DefaultPk<T>> extends BulkCreateActions<T, PK> {}
export const BulkOnlyCreateMixin: Actions & { new <T, PK extends keyof T = DefaultPk<T>>(): BulkOnlyCreateMixin<T, PK> } =
  /* @__PURE__ */ mixin('bulkCreate') as never;

/** `create(data)` and `bulkCreate(records)`. */
export interface BulkCreateMixin<T, PK extends keyof T = DefaultPk<T>> extends CreateMixin<T, PK>, BulkOnlyCreateMixin<T, PK> {}
export const BulkCreateMixin: Actions & { new <T, PK extends keyof T = DefaultPk<T>>(): BulkCreateMixin<T, PK> } =
  /* @__PURE__ */ mixin('create', 'bulkCreate') as never;

/** `list(params)`. */
export interface ListMixin<T> extends ListActions<T> {}
export const ListMixin: Actions & { new <T>(): ListMixin<T> } = /* @__PURE__ */ mixin('list') as never;

/** A page envelope with the backend's `has_more`/`has_previous` as `hasMore`/`hasPrevious` (records untouched). */
function renamePage(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const { has_more: hasMore, has_previous: hasPrevious, ...rest } = body as Record<string, unknown>;
  return { ...rest, hasMore, hasPrevious };
}

/** A mixin whose action answers a page envelope (read by `addActions`: actions.ts). */
function pageMixin(action: ActionName): Actions {
  return class PageMixin {
    static readonly actions = Object.freeze([action]);
    static readonly answer = renamePage;
  };
}

/** `listPage(params)`: a viewset whose list is paginated (the backend's PaginatedListMixin). */
export interface PaginatedListMixin<T> extends PageActions<T> {}
export const PaginatedListMixin: Actions & { new <T>(): PaginatedListMixin<T> } = /* @__PURE__ */ pageMixin('listPage') as never;

/** `listCursor(params)`: a viewset whose list is a cursor list (the backend's CursorListMixin). */
export interface CursorListMixin<T> extends CursorActions<T> {}
export const CursorListMixin: Actions & { new <T>(): CursorListMixin<T> } = /* @__PURE__ */ pageMixin('listCursor') as never;

/** `retrieve(pk)`. */
export interface RetrieveMixin<K extends KeyType, T> extends RetrieveActions<K, T> {}
export const RetrieveMixin: Actions & { new <K extends KeyType, T>(): RetrieveMixin<K, T> } = /* @__PURE__ */ mixin('retrieve') as never;

/** `update(pk, data)` and `partialUpdate(pk, data)`. */
export interface UpdateMixin<K extends KeyType, T> extends UpdateActions<K, T> {}
export const UpdateMixin: Actions & { new <K extends KeyType, T>(): UpdateMixin<K, T> } = /* @__PURE__ */ mixin('update', 'partialUpdate') as never;

/** `bulkUpdate(records)` and `bulkPartialUpdate(records)` alone. */
export interface BulkOnlyUpdateMixin<K extends KeyType, T> extends BulkUpdateActions<K, T> {}
export const BulkOnlyUpdateMixin: Actions & { new <K extends KeyType, T>(): BulkOnlyUpdateMixin<K, T> } =
  /* @__PURE__ */ mixin('bulkUpdate', 'bulkPartialUpdate') as never;

/** The single and the bulk updates. */
export interface BulkUpdateMixin<K extends KeyType, T> extends UpdateMixin<K, T>, BulkOnlyUpdateMixin<K, T> {}
export const BulkUpdateMixin: Actions & { new <K extends KeyType, T>(): BulkUpdateMixin<K, T> } =
  /* @__PURE__ */ mixin('update', 'partialUpdate', 'bulkUpdate', 'bulkPartialUpdate') as never;

/** `destroy(pk)`. */
export interface DestroyMixin<K extends KeyType> extends DestroyActions<K> {}
export const DestroyMixin: Actions & { new <K extends KeyType>(): DestroyMixin<K> } = /* @__PURE__ */ mixin('destroy') as never;

/** `bulkDestroy(pks)` alone. */
export interface BulkOnlyDestroyMixin<K extends KeyType> extends BulkDestroyActions<K> {}
export const BulkOnlyDestroyMixin: Actions & { new <K extends KeyType>(): BulkOnlyDestroyMixin<K> } = /* @__PURE__ */ mixin('bulkDestroy') as never;

/** `destroy(pk)` and `bulkDestroy(pks)`. */
export interface BulkDestroyMixin<K extends KeyType> extends DestroyMixin<K>, BulkOnlyDestroyMixin<K> {}
export const BulkDestroyMixin: Actions & { new <K extends KeyType>(): BulkDestroyMixin<K> } =
  /* @__PURE__ */ mixin('destroy', 'bulkDestroy') as never;

/** `lookup()`. */
export interface LookupMixin extends LookupActions {}
export const LookupMixin: Actions & { new (): LookupMixin } = /* @__PURE__ */ mixin('lookup') as never;

/** `list(params)` and `retrieve(pk)`. */
export interface ReadOnlyViewSetMixin<K extends KeyType, T> extends ListMixin<T>, RetrieveMixin<K, T> {}
export const ReadOnlyViewSetMixin: Actions & { new <K extends KeyType, T>(): ReadOnlyViewSetMixin<K, T> } =
  /* @__PURE__ */ mixin('list', 'retrieve') as never;

/** The six CRUD actions: list, retrieve, create, update, partial update, destroy. */
export interface ViewSetMixin<K extends KeyType, T, PK extends keyof T = DefaultPk<T>>
  extends ReadOnlyViewSetMixin<K, T>,
    CreateMixin<T, PK>,
    UpdateMixin<K, T>,
    DestroyMixin<K> {}
export const ViewSetMixin: Actions & { new <K extends KeyType, T, PK extends keyof T = DefaultPk<T>>(): ViewSetMixin<K, T, PK> } =
  /* @__PURE__ */ mixin('list', 'retrieve', 'create', 'update', 'partialUpdate', 'destroy') as never;

/** The CRUD actions and the four bulk actions. */
export interface BulkViewSetMixin<K extends KeyType, T, PK extends keyof T = DefaultPk<T>>
  extends ViewSetMixin<K, T, PK>,
    BulkOnlyCreateMixin<T, PK>,
    BulkOnlyUpdateMixin<K, T>,
    BulkOnlyDestroyMixin<K> {}
export const BulkViewSetMixin: Actions & { new <K extends KeyType, T, PK extends keyof T = DefaultPk<T>>(): BulkViewSetMixin<K, T, PK> } =
  /* @__PURE__ */ mixin(
    'list', 'retrieve', 'create', 'update', 'partialUpdate', 'destroy',
    'bulkCreate', 'bulkUpdate', 'bulkPartialUpdate', 'bulkDestroy',
  ) as never;
