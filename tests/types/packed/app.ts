// An application's code against the package as npm installs it (tests/types/packed.mjs packs pkg/,
// installs the tarball and checks this file with skipLibCheck false, strict,
// exactOptionalPropertyTypes and noUncheckedIndexedAccess, under TypeScript 5.0, the version the
// package builds with, and the newest 6.x): the README's examples, and every public union kept.
import fastapiViewsets, { DEFAULT_FORWARD_HEADERS, type ModuleOptions, type NuxtLike } from '@dynamicforms/fastapi-viewsets/nuxt';
import {
  connectMuxws,
  muxwsViewSet,
  onCallActivity,
  restViewSet,
  ViewSetMixin,
  ViewSetBase,
  type MuxwsPeer,
  type PendingCall,
  type WaitReason,
} from '@dynamicforms/fastapi-viewsets';
import { FastapiViewsetsDevtools, mountDevtools, recordCalls, type AttemptEnd, type CallView } from '@dynamicforms/fastapi-viewsets/devtools';
import { liveList, readLiveList, readRev, type LiveSnapshot } from '@dynamicforms/fastapi-viewsets';
import { createRequestScope, lookUpRequestScopeWith, requestScope, runInRequest, type RequestScope } from '@dynamicforms/fastapi-viewsets/ssr';

interface Item { id: number; name: string }

// README, Usage
class ItemApi extends restViewSet<Item>()('id', [ViewSetMixin]) {
  async approve(pk: number, key?: string): Promise<Item> {
    return this.request<Item>('POST', `/${pk}/approve`, { key });
  }
}
const items = new ItemApi({ basePath: '/items', attemptTimeoutMs: 30_000, repeat: { withinMs: 600_000, delayMs: 1000 } });
const call = items.create({ name: 'x' });
const key: string = call.key;
export async function usage(): Promise<void> {
  const item: Item = await call;
  const named: Item[] = await items.list({ sort: 'name:asc', name__icontains: 'x' });
  const failures = new Map<string, number>();
  const stop = onCallActivity((event) => {
    if (event.type === 'retry') failures.set(event.key, event.attempt);
    if (event.type === 'settle') failures.delete(event.key);
  });
  stop();
  void [item, named, key];
}

// README, Over muxws
export async function overMuxws(): Promise<void> {
  const peer = await connectMuxws('wss://api.example.com/ws', {
    onClose: ({ code, willRetry }) => console.log('socket lost', code, willRetry),
    onReconnect: (attempt) => console.log('reconnected', attempt),
  });
  class ItemsOverWs extends muxwsViewSet<Item>()('id', [ViewSetMixin]) {}
  const wsItems = new ItemsOverWs({ basePath: '/items', peer, timeoutMs: 10_000 });
  const listed: Item[] = await wsItems.list();
  const lazy = new ItemsOverWs({ basePath: '/items', peer: () => connectMuxws('/ws', { lazy: true }) });
  void [listed, lazy];
}

// an option given as a value that may be undefined (exactOptionalPropertyTypes)
declare const maybeKey: string | undefined;
declare const maybeSignal: AbortSignal | undefined;
export class MaybeApi extends restViewSet<Item>()('id', [ViewSetMixin]) {
  one(): Promise<Item> {
    return this.request<Item>('GET', '/1', { key: maybeKey, signal: maybeSignal, headers: undefined, repeat: { withinMs: undefined } });
  }
}

// the unions are kept: a wrong literal does not compile
const wait: WaitReason = 'offline';
// @ts-expect-error not a WaitReason
const badWait: WaitReason = 'bogus-reason';
const waiting: PendingCall['waitingFor'] = 'delay';
// @ts-expect-error not what a pending call waits for
const badWaiting: PendingCall['waitingFor'] = 'bogus-reason';
void [wait, badWait, waiting, badWaiting];

// README, "One action for both transports": a class mixin, written once, applied to a REST and a
// muxws class; the action keeps its types in both.
type ProxyClass = abstract new (...args: any[]) => ViewSetBase;
function Approvable<B extends ProxyClass>(Base: B) {
  abstract class WithApprove extends Base {
    approve(pk: number, key?: string) {
      return this.request<Item>('POST', `/${pk}/approve`, { key });
    }
  }
  return WithApprove;
}
class RestItems extends Approvable(restViewSet<Item>()('id', [ViewSetMixin])) {}
class WsItems extends Approvable(muxwsViewSet<Item>()('id', [ViewSetMixin])) {}
export async function oneActionTwoTransports(peer: MuxwsPeer): Promise<void> {
  const viaRest = new RestItems({ basePath: '/items' });
  const viaWs = new WsItems({ basePath: '/items', peer });
  const approved: Item[] = [await viaRest.approve(1), await viaWs.approve(1, 'k')];
  const listed: Item[] = await viaWs.list();
  // @ts-expect-error approve takes a number
  void viaRest.approve('1');
  void [approved, listed, viaRest.approve(2).key];
}

// README, Devtools: the subpath's types (the stub's exports have the same names)
const unmount: () => void = mountDevtools({ open: true, userTiming: true, maxCalls: 500 });
recordCalls({ userTiming: false });
void [unmount, FastapiViewsetsDevtools.name];
const ended: AttemptEnd = 'answer-lost';
const shown = (call: CallView): string => `${call.method} ${call.path} ${call.key} ${call.attempts.length} ${call.state}`;
void [ended, shown];
// README, Rendering on a server: a request scope, the server's read, the client's start from it
export async function serverRender(items: InstanceType<typeof ItemApi>, authorization: string): Promise<string> {
  const snapshot: LiveSnapshot<Item> = await runInRequest(() => readLiveList(items, { sort: 'name' }), { headers: { authorization } });
  const rows: Item[] = snapshot.rows;
  const rev: number | null = snapshot.rev;
  const error: Error | null = snapshot.error;
  if (rev !== null) liveList(items, undefined, { initial: { rows, rev } });
  const scope: RequestScope = createRequestScope({ headers: [['cookie', 'sid=1']] });
  const inside: RequestScope | undefined = scope.run(() => requestScope());
  lookUpRequestScopeWith(() => inside);
  await scope.close();
  const cursor: number | null = await readRev('/items', { baseUrl: 'https://api.example.com' });
  // @ts-expect-error initial needs its rev
  liveList(items, undefined, { initial: { rows } });
  return `${rows.length} ${cursor} ${error?.message} ${scope.closed}`;
}

// The Nuxt module (`@dynamicforms/fastapi-viewsets/nuxt`), as a module list or a hand-written
// module would name it: its options, and a function of Nuxt's module interface.
export function nuxtModule(nuxt: NuxtLike): false {
  const options: ModuleOptions = { forwardHeaders: [...DEFAULT_FORWARD_HEADERS, 'x-tenant'] };
  // @ts-expect-error forwardHeaders is a list of names
  const wrong: ModuleOptions = { forwardHeaders: 'authorization' };
  void wrong;
  void fastapiViewsets.getMeta();
  return fastapiViewsets(options, nuxt);
}
