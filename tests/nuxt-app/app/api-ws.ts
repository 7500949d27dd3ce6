// A module-level muxws proxy over a lazy peer (connected by its first call), apart from the REST
// proxies so that the REST page does not import it. On the server the peer is the process's.
import { connectMuxws, muxwsViewSet, ViewSetMixin } from '@dynamicforms/fastapi-viewsets';
import type { Item } from './api';

declare const __BACKEND_WS__: string;

/** The backend's muxws endpoint: on the server from the environment, in the browser as built. */
const wsUrl = import.meta.server ? ((globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env.BACKEND_WS_URL ?? __BACKEND_WS__) : __BACKEND_WS__;

class WsItemApi extends muxwsViewSet<Item>()('id', [ViewSetMixin]) {}

export const wsItems = new WsItemApi({ basePath: '/items', peer: () => connectMuxws(wsUrl) });
