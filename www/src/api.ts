// The items API of the demo, over REST or muxws, built on the package's class factories.
import * as pkg from '@dynamicforms/fastapi-viewsets';
import {
  muxwsViewSet,
  restViewSet,
  ViewSetMixin,
  type ConnectOptions,
  type Follower,
  type MuxwsPeer,
  type RecordsChanged,
  type RepeatOptions,
  type RequestOptions,
  type ViewSetActionCall,
  type WatchOptions,
} from '@dynamicforms/fastapi-viewsets';

/** A record of the backend's `items` viewset. */
export interface Item {
  id: number;
  name: string;
  qty: number;
}

/** What `POST /items/slow` answers. */
export interface SlowResult {
  action: 'slow';
  executions: number;
  slept: number;
  note: string | null;
  served_by: string;
}

/** How the demo's calls are repeated: the delay is long enough to watch the countdown. */
export const REPEAT: Required<Omit<RepeatOptions, 'jitter'>> = { withinMs: 120_000, delayMs: 2_000 };
/** The timeout of one attempt (REST `attemptTimeoutMs`, muxws `timeoutMs`). */
export const ATTEMPT_TIMEOUT_MS = 5_000;

/** The calls the page makes, whatever the transport. */
export interface ItemsApi {
  list(options?: RequestOptions): ViewSetActionCall<Item[]>;
  retrieve(pk: number, options?: RequestOptions): ViewSetActionCall<Item>;
  create(data: Partial<Item>, options?: RequestOptions): ViewSetActionCall<Item>;
  partialUpdate(pk: number, data: Partial<Item>, options?: RequestOptions): ViewSetActionCall<Item>;
  destroy(pk: number, options?: RequestOptions): ViewSetActionCall<Record<string, unknown>>;
  slow(sleep: number, note: string): ViewSetActionCall<SlowResult>;
  /** Follows `/items` over this proxy's transport (muxws: by push; REST: by polling). */
  watch(options: WatchOptions<number>): Follower;
  /** `rows` with a `records_changed` change applied (created/updated records retrieved through this proxy). */
  applyChanges(rows: readonly Item[], change: RecordsChanged<number>): Promise<Item[]>;
}

/**
 * The options of the page's writes: stored until they settle (`persist`), so that a reload while one
 * waits for its repeat sends it again (`resumeCalls()` in main.ts). Over muxws nothing is stored.
 */
export const WRITE: RequestOptions = { persist: true };

class RestItems extends restViewSet<Item>()('id', [ViewSetMixin]) implements ItemsApi {
  /** The custom action: its promise carries the key of the request it issues. */
  slow(sleep: number, note: string) {
    return this.request<SlowResult>('POST', '/slow', { ...WRITE, query: { sleep }, body: { note } });
  }
}

class MuxwsItems extends muxwsViewSet<Item>()('id', [ViewSetMixin]) implements ItemsApi {
  slow(sleep: number, note: string) {
    return this.request<SlowResult>('POST', '/slow', { ...WRITE, query: { sleep }, body: { note } });
  }
}

export function restItems(baseUrl: string): ItemsApi {
  return new RestItems({ basePath: '/items', baseUrl, repeat: REPEAT, attemptTimeoutMs: ATTEMPT_TIMEOUT_MS });
}

// ------------------------------------------------------------------ muxws (feature-detected)
export type { MuxwsPeer };

type ConnectMuxws = (url: string, options?: ConnectOptions) => Promise<MuxwsPeer>;

/** `connectMuxws` when this build of the package has it (the page works over REST without it). */
function connectFunction(): ConnectMuxws | undefined {
  const name = 'connectMuxws';
  if (!(name in pkg)) return undefined;
  const candidate = (pkg as unknown as Record<string, unknown>)[name];
  return typeof candidate === 'function' ? (candidate as ConnectMuxws) : undefined;
}

export const muxwsAvailable = connectFunction() !== undefined;

/** Connects a muxws peer to `wsUrl` and builds the items API over it. */
export async function muxwsItems(wsUrl: string, options?: ConnectOptions): Promise<{ api: ItemsApi; peer: MuxwsPeer }> {
  const connect = connectFunction();
  if (!connect) throw new Error('this build of @dynamicforms/fastapi-viewsets has no muxws client');
  const peer = await connect(wsUrl, options);
  const api = new MuxwsItems({ basePath: '/items', peer, repeat: REPEAT, timeoutMs: ATTEMPT_TIMEOUT_MS });
  return { api, peer };
}
