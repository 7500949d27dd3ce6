// The app's proxies: REST or muxws (?transport=muxws), for /items or the catalog's books.
import { connectMuxws, muxwsViewSet, restViewSet, resumeCalls, ViewSetMixin, type MuxwsPeer } from '@dynamicforms/fastapi-viewsets';

export interface Item {
  id: number;
  name: string;
  qty?: number;
}

export interface Book {
  id: number;
  title: string;
  author: string;
  year: number | null;
}

export const config: { baseUrl: string; wsUrl: string } = await (await fetch('/config.json')).json();
const query = new URLSearchParams(location.search);
export const transport = query.get('transport') ?? 'rest';
const pingIntervalMs = Number(query.get('ping') ?? 20_000);

export const peer: MuxwsPeer | null =
  transport === 'muxws' ? await connectMuxws(config.wsUrl, { pingIntervalMs, pingTimeoutMs: 4000, reconnect: { initialDelayMs: 300, maxDelayMs: 600, jitter: 0 } }) : null;

class RestItems extends restViewSet<Item>()('id', [ViewSetMixin]) {}
class MuxItems extends muxwsViewSet<Item>()('id', [ViewSetMixin]) {}
class RestBooks extends restViewSet<Book>()('id', [ViewSetMixin]) {}

const delayMs = Number(query.get('delay') ?? 50);
const repeat = { delayMs, withinMs: Math.max(10_000, 2 * delayMs) };
// ?persist: writes live through a reload (IndexedDB), resumed by resumeCalls() before the app mounts
const persist = query.has('persist');
export function makeItems(): RestItems | MuxItems {
  return peer ? new MuxItems({ basePath: '/items', peer, schemaCheck: false, repeat }) : new RestItems({ basePath: '/items', baseUrl: config.baseUrl, schemaCheck: false, repeat, persist });
}
export const resume = (): Promise<unknown> => (persist ? resumeCalls() : Promise.resolve());
export const books = new RestBooks({ basePath: '/catalog/books', baseUrl: config.baseUrl, schemaCheck: false });
