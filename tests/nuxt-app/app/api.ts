// Module-level proxies, written as the package's README shows them: one per process on the server,
// shared by every request (the package keeps each request's calls apart).
import { restViewSet, ViewSetMixin } from '@dynamicforms/fastapi-viewsets';

declare const __BACKEND__: string;

/** The backend: on the server from the environment the suite starts it with, in the browser as built. */
export const baseUrl = import.meta.server ? ((globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env.BACKEND_URL ?? __BACKEND__) : __BACKEND__;

export interface Item { id: number; name: string; qty?: number }

class ItemApi extends restViewSet<Item>()('id', [ViewSetMixin]) {
  /** `POST /items/slow?sleep=S`: the backend sleeps S seconds before it answers. */
  slow(sleep: number, note: string, headers?: Record<string, string>) {
    return this.request<{ note: string }>('POST', '/slow', { query: { sleep: String(sleep) }, body: { note }, headers });
  }
}

export const items = new ItemApi({ basePath: '/items', baseUrl });
