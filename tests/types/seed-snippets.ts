// The TypeScript of the seed's "Frontend" section, unchanged, compiled under --strict against the
// package's .d.ts (tsc -p tests/types). Only declarations around the snippets are added.
import {
  restViewSet,
  ViewSetMixin,
  route_rest,
  route_muxws,
  muxwsViewSet,
  type ViewSetCall,
  type ViewSetActionCall,
  type MuxwsPeer,
} from '@dynamicforms/fastapi-viewsets';
import { onCallActivity, retryNow } from '@dynamicforms/fastapi-viewsets';

interface Item {
  id: number;
  name: string;
  qty?: number;
}

class ItemApi extends restViewSet<Item>()('id', [ViewSetMixin]) {
  async approve(pk: number, key?: string): Promise<Item> {
    return this.request<Item>('POST', `/${pk}/approve`, { key });
  }
  async count() {
    return this.request<number>('GET', '/count');
  }
}

const items = new ItemApi({
  basePath: '/items',
  attemptTimeoutMs: 30_000,
  repeat: { withinMs: 600_000, delayMs: 1000 },
});

export async function seedExample(): Promise<Item> {
  const call = items.create({ name: 'x' });
  call.key;                  // '8e03978e-40d5-43e8-bc93-6894a57f9324'
  const item = await call;
  return item;
}

const failures = new Map<string, number>();
const stop = onCallActivity((event) => {
  if (event.type === 'retry') failures.set(event.key, event.attempt);
  if (event.type === 'settle') failures.delete(event.key);
});

// Typing rules the seed states.
const declared: ViewSetActionCall<Item[]> = items.list();
const optionalKey: string | undefined = declared.key;
const bare = route_rest<Item>()('id', [ViewSetMixin], { basePath: '/items', baseUrl: 'http://127.0.0.1:8000' });
const keyed: ViewSetCall<Item> = bare.retrieve(1);
const requiredKey: string = keyed.key;
// @ts-expect-error a mixin's actions only: ViewSetMixin brings no lookup()
items.lookup();

declare const peer: MuxwsPeer;
class MuxItems extends muxwsViewSet<Item>()('id', [ViewSetMixin]) {}
const overMuxws = new MuxItems({ basePath: '/items', peer, timeoutMs: 5000 });
const bareMux: ViewSetCall<Item[]> = route_muxws<Item>()('id', [ViewSetMixin], { basePath: '/items', peer }).list();

export { stop, retryNow, optionalKey, requiredKey, overMuxws, bareMux };
