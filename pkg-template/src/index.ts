/**
 * `@dynamicforms/fastapi-viewsets`: ViewSet proxies whose every call carries an Idempotency-Key and
 * is repeated safely when its answer is lost, over REST and muxws, with call activity for the UI.
 *
 * Importing the package instantiates its calls module (synchronously); there is no init step to
 * call, in a browser, a bundler (Vite, webpack, Rollup) or Node 20. The muxws module is loaded only
 * by `connectMuxws()`.
 *
 * Every public name is listed here, by the module that defines it (tests/unit/surface.test.mjs holds
 * the list against the built declarations, so a name is added or removed on purpose only).
 */
// newKey, internalStats and internalFreshRuntime are the functions of compose.ts, runtime.ts and fresh.ts,
// exported as they are (documented there): a wrapper here would only add a call and its bytes.
/** A new version 4 UUID, built from `crypto.getRandomValues()` as every call's key is. */
export { newKey } from './compose.js';
/** What the runtime holds right now (calls, listeners, timers, peers, memory): for leak checks in tests. */
export { stats as internalStats } from './runtime.js';
/**
 * Makes the package's state afresh (no calls, listeners or peers, the engine's state forgotten;
 * persistence off, no persisting proxy, every follower closed): for tests.
 */
export { freshPackage as internalFreshRuntime } from './fresh.js';
/** What the devtools subpath's development entry uses of the package (its tap, cancelling a call): not for applications. */
export { devtoolsServices as internalDevtools, type DevtoolsServices } from './devtools-services.js';
export type { DevTap, SeenKind } from './vocabulary/devtools.js';
/**
 * Installs the current scope's resolver of a server integration (the `/ssr` subpath's, backed by
 * `AsyncLocalStorage`): each request sees only its own calls. Not for applications.
 */
export { setScopeResolver as internalScopeResolver } from './runtime.js';
export type { CallScope } from './vocabulary/call-types.js';

// Proxies: the class factories and their base, and 0.6's shapes.
export {
  muxwsViewSet,
  restViewSet,
  ViewSetBase,
  ViewSetInternals,
  type PkFieldName,
  type PkOf,
  type PkType,
  type RecordOf,
  type ViewSetClass,
  type ViewSetFactory,
  type ViewSetInstance,
} from './viewset.js';
export {
  MuxwsProxyImpl,
  RestProxyImpl,
  route_muxws,
  route_rest,
  ViewSetProxyBase,
  type AxiosHttp,
  type BareFactory,
  type MuxwsProxy,
  type RestProxy,
  type ViewSetTypeToken,
} from './proxies.js';

// Live lists: `liveList(proxy)` and its types (the logic is a chunk loaded by the first call).
export { liveList } from './live.js';
// A server render's reads: a live list's rows and the rev they are as of, a topic's rev.
export { readLiveList, readRev, type LiveSnapshot, type ReadLiveOptions } from './server-read.js';
export type { LiveList, LiveOptions, LivePageSeed, LiveParams, LiveWindowSeed, LiveRow, LiveStaleReason, LiveStatus, PendingRow, PendingState, PendingWrite, PkFieldOf } from './vocabulary/live-types.js';

// The built-in actions as mixins.
export {
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
  PaginatedListMixin,
  ReadOnlyViewSetMixin,
  RetrieveMixin,
  UpdateMixin,
  ViewSetMixin,
  type ActionName,
  type ActionsOf,
  type ActionSurface,
  type BulkCreateActions,
  type BulkDestroyActions,
  type BulkUpdateActions,
  type CallOf,
  type CreateActions,
  type CursorActions,
  type CursorPage,
  type CursorParams,
  type DefaultPk,
  type DestroyActions,
  type DestroyReturnData,
  type KeyType,
  type ListActions,
  type ListParams,
  type LookupActions,
  type LookupItem,
  type LookupParams,
  type Mixin,
  type PageActions,
  type PageParams,
  type PaginatedList,
  type RetrieveActions,
  type UpdateActions,
  type ViewSetActionCall,
  type ViewSetMixinClass,
} from './mixins.js';

// Options of proxies and calls.
export type {
  HttpMethod,
  MuxwsPeerLike,
  MuxwsPeerSource,
  MuxwsProxyOptions,
  MuxwsStreamLike,
  MuxwsViewSetOptions,
  ProxyBaseOptions,
  QueryParams,
  QueryValue,
  RepeatOptions,
  RequestOptions,
  RestProxyOptions,
  ViewSetMixinDeclaration,
  ViewSetOptions,
} from './vocabulary/options.js';
export type { ViewSetCall } from './vocabulary/call-types.js';
export type { RequestDraft, RequestInterceptor } from './rest.js';
export type { HeadersInput } from './headers.js';
export type { AxiosLike } from './axios.js';

// Call activity.
export {
  onCallActivity,
  pendingCallCount,
  pendingCalls,
  retryNow,
  type CallActivityEvent,
  type CallRetryEvent,
  type CallSettleEvent,
  type CallStartEvent,
  type CallWaitEvent,
  type PendingCall,
  type WaitReason,
} from './activity.js';

// Errors.
export {
  AttemptTimeoutError,
  CallCancelled,
  CodecError,
  CodecMismatch,
  CodecNotRegistered,
  ConnectionClosed,
  ConnectionGoingAway,
  ConnectionLost,
  ConnectionRefused,
  HttpError,
  InvalidResponseError,
  MuxwsError,
  NetworkError,
  ProtocolError,
  RemoteError,
  StreamAlreadyConsumed,
  StreamClosed,
  StreamRefused,
  StreamReset,
  StreamTimeout,
  TransportUrlError,
  ViewSetError,
  ViewSetRequestError,
  type ApiErrorBody,
  type ErrorProps,
  type ErrorResponse,
  type FieldError,
} from './errors.js';
export {
  translatableStrings,
  translateApiError,
  translateStrings,
  type TranslatableCode,
  type TranslateStringsCallback,
} from './translate.js';

// muxws.
export {
  connectMuxws,
  MuxwsPeer,
  MuxwsStream,
  type CloseReason,
  type ConnectOptions,
  type MuxwsOpenOptions,
  type MuxwsReply,
  type MuxwsRequestOptions,
  type MuxwsStreamHandler,
  type OpenInterceptor,
  type ReconnectOptions,
} from './muxws.js';

// Calls that live through a reload.
export { CallExpired, resumeCalls, type ResumedCall, type ResumeOptions } from './persist.js';
export { guardUnload } from './unload.js';

// Live data: following the backend's events.
export { follow } from './follow.js';
export type {
  EventMessage,
  FollowCallbacks,
  Follower,
  FollowerMode,
  FollowOptions,
  RecordsChanged,
  ResyncInfo,
  Topic,
  WatchOptions,
} from './vocabulary/events.js';
