// Every name 0.6's index.ts exported (docs/compat-0.6.md, A.1), imported as 0.6 code imports it: a
// value where 0.6 had a value (classes and functions), a type where it had a type. Compiled with
// compat-0.6.ts (`tsc -p tests/types/compat`).
import {
  BulkCreateMixin,
  BulkDestroyMixin,
  BulkOnlyCreateMixin,
  BulkOnlyDestroyMixin,
  BulkOnlyUpdateMixin,
  BulkUpdateMixin,
  BulkViewSetMixin,
  CreateMixin,
  CursorListMixin,
  DestroyMixin,
  ListMixin,
  LookupMixin,
  MuxwsProxyImpl,
  muxwsViewSet,
  PaginatedListMixin,
  ReadOnlyViewSetMixin,
  RestProxyImpl,
  restViewSet,
  RetrieveMixin,
  route_muxws,
  route_rest,
  translatableStrings,
  translateApiError,
  translateStrings,
  UpdateMixin,
  ViewSetInternals,
  ViewSetMixin,
  ViewSetProxyBase,
  ViewSetRequestError,
  type ActionName,
  type ActionSurface,
  type ApiErrorBody,
  type CursorPage,
  type CursorParams,
  type DestroyReturnData,
  type HttpMethod,
  type KeyType,
  type ListParams,
  type LookupItem,
  type MuxwsPeerLike,
  type MuxwsPeerSource,
  type MuxwsProxy,
  type MuxwsProxyOptions,
  type MuxwsStreamLike,
  type PageParams,
  type PaginatedList,
  type PkFieldName,
  type ProxyBaseOptions,
  type QueryParams,
  type RequestOptions,
  type RestProxy,
  type RestProxyOptions,
  type ViewSetClass,
  type ViewSetMixinClass,
  type ViewSetMixinDeclaration,
} from '@dynamicforms/fastapi-viewsets';

interface Row {
  id: number;
  name: string;
}

/** The 17 mixins, each a value with `actions` (and usable in a factory's list). */
export const mixins: readonly ViewSetMixinClass[] = [
  CreateMixin, BulkOnlyCreateMixin, BulkCreateMixin, ListMixin, PaginatedListMixin, CursorListMixin,
  RetrieveMixin, UpdateMixin, BulkOnlyUpdateMixin, BulkUpdateMixin, DestroyMixin, BulkOnlyDestroyMixin,
  BulkDestroyMixin, LookupMixin, ReadOnlyViewSetMixin, ViewSetMixin, BulkViewSetMixin,
];
export const declarations: readonly ViewSetMixinDeclaration[] = mixins;

/** … and each a generic type. */
export type Mixins = [
  CreateMixin<Row, 'id'>, BulkOnlyCreateMixin<Row, 'id'>, BulkCreateMixin<Row, 'id'>, ListMixin<Row>,
  PaginatedListMixin<Row>, CursorListMixin<Row>, RetrieveMixin<number, Row>, UpdateMixin<number, Row>,
  BulkOnlyUpdateMixin<number, Row>, BulkUpdateMixin<number, Row>, DestroyMixin<number>,
  BulkOnlyDestroyMixin<number>, BulkDestroyMixin<number>, LookupMixin, ReadOnlyViewSetMixin<number, Row>,
  ViewSetMixin<number, Row, 'id'>, BulkViewSetMixin<number, Row, 'id'>,
];

export const actions: ActionName[] = ['list', 'listPage', 'listCursor', 'create', 'bulkCreate', 'retrieve', 'update', 'partialUpdate', 'bulkUpdate', 'bulkPartialUpdate', 'destroy', 'bulkDestroy', 'lookup'];
export type Surface = ActionSurface<number, Row, 'id', 'list' | 'lookup'>;
export type Types = [
  ApiErrorBody, CursorPage<Row>, CursorParams, DestroyReturnData, HttpMethod, KeyType, ListParams, LookupItem,
  MuxwsPeerLike, MuxwsPeerSource, MuxwsProxy<ListMixin<Row>>, MuxwsProxyOptions, MuxwsStreamLike, PageParams,
  PaginatedList<Row>, PkFieldName<Row>, ProxyBaseOptions, QueryParams, RequestOptions, RestProxy<ListMixin<Row>>,
  RestProxyOptions, ViewSetClass<Row, 'id', [typeof ViewSetMixin], RestProxyOptions>,
];
export const functions = [muxwsViewSet, restViewSet, route_muxws, route_rest, translateApiError, translateStrings];
export const classes = [MuxwsProxyImpl, RestProxyImpl, ViewSetInternals, ViewSetProxyBase, ViewSetRequestError];
export const strings: string = translatableStrings.not_found;

// The callback 0.6 apps give translateStrings (0.6's @dynamicforms/translatable): key, English
// default and placeholders; null or undefined keeps the English template.
declare const i18n: { te(path: string): boolean; t(path: string, params: Record<string, string>): string };
translateStrings((key, defaultValue, placeholders) => (i18n.te(`api.${key}`) ? i18n.t(`api.${key}`, placeholders) : null));
translateStrings((key: string, defaultValue: string) => (key === 'not_found' ? `${defaultValue}!` : undefined));
