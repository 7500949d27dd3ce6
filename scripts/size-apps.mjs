// The small apps whose size scripts/size.mjs (Vite) and scripts/size-bundlers.mjs (webpack, Rollup,
// esbuild) measure: "full" uses every export and connects muxws, "rest" uses only REST proxies and
// call activity, "watch" is the REST-only app that also follows its list, "live" the REST-only app
// that shows a live list (`liveList()`) of a plain list, "livePaged" the same app over a paginated
// ViewSet (its live list loads live/paged.js too, before its first read), "muxws" the REST-only app that also has a muxws proxy of the
// same ViewSet over the README's peer function (`peer: () => connectMuxws('/ws')`) and lists through
// it: a user's REST and muxws app (issue 36, §7: the whole package as a Vite app ships it, REST and
// muxws), measured with the muxws driver and wasm module its first muxws call loads.
export const APPS = {
  full: `import * as pkg from '@dynamicforms/fastapi-viewsets';
globalThis.everything = pkg;
pkg.connectMuxws('/ws').then((peer) => { globalThis.peer = peer; }, () => {});`,
  rest: `import { restViewSet, ViewSetMixin, onCallActivity, pendingCallCount, retryNow, HttpError } from '@dynamicforms/fastapi-viewsets';
class Items extends restViewSet()('id', [ViewSetMixin]) {}
const items = new Items({ basePath: '/items' });
onCallActivity(() => { document.title = String(pendingCallCount()); });
document.body.onclick = () => retryNow();
items.list().then((list) => { document.body.textContent = list.length; }, (error) => { if (error instanceof HttpError) document.body.textContent = error.status; });`,
  watch: `import { restViewSet, ViewSetMixin, onCallActivity, pendingCallCount, retryNow, HttpError } from '@dynamicforms/fastapi-viewsets';
class Items extends restViewSet()('id', [ViewSetMixin]) {}
const items = new Items({ basePath: '/items' });
onCallActivity(() => { document.title = String(pendingCallCount()); });
document.body.onclick = () => retryNow();
let rows = [];
items.watch({ async onChange(change) { rows = await items.applyChanges(rows, change); document.body.textContent = rows.length; }, async onResync() { rows = await items.list(); } });
items.list().then((list) => { rows = list; document.body.textContent = list.length; }, (error) => { if (error instanceof HttpError) document.body.textContent = error.status; });`,
  live: `import { restViewSet, ViewSetMixin, onCallActivity, pendingCallCount, retryNow, liveList } from '@dynamicforms/fastapi-viewsets';
class Items extends restViewSet()('id', [ViewSetMixin]) {}
const items = new Items({ basePath: '/items' });
onCallActivity(() => { document.title = String(pendingCallCount()); });
document.body.onclick = () => retryNow();
const list = liveList(items);
list.subscribe(() => { document.body.textContent = list.rows.length; });`,
  livePaged: `import { restViewSet, PaginatedListMixin, RetrieveMixin, onCallActivity, pendingCallCount, retryNow, liveList } from '@dynamicforms/fastapi-viewsets';
class Items extends restViewSet()('id', [PaginatedListMixin, RetrieveMixin]) {}
const items = new Items({ basePath: '/items' });
onCallActivity(() => { document.title = String(pendingCallCount()); });
document.body.onclick = () => retryNow();
const list = liveList(items);
list.subscribe(() => { document.body.textContent = list.rows.length; });
document.body.onscroll = () => list.loadMore();`,
  muxws: `import { restViewSet, muxwsViewSet, connectMuxws, ViewSetMixin, onCallActivity, pendingCallCount, retryNow, HttpError } from '@dynamicforms/fastapi-viewsets';
class Items extends restViewSet()('id', [ViewSetMixin]) {}
const items = new Items({ basePath: '/items' });
onCallActivity(() => { document.title = String(pendingCallCount()); });
document.body.onclick = () => retryNow();
items.list().then((list) => { document.body.textContent = list.length; }, (error) => { if (error instanceof HttpError) document.body.textContent = error.status; });
class WsItems extends muxwsViewSet()('id', [ViewSetMixin]) {}
const wsItems = new WsItems({ basePath: '/items', peer: () => connectMuxws('/ws') });
wsItems.list().then((list) => { document.body.textContent = list.length; });`,
};
/** What each app is called in the output. */
export const LABEL = { full: 'whole package', rest: 'REST-only app', watch: 'REST-only app with watch()', live: 'REST-only app with liveList()', livePaged: 'REST-only app with liveList() over a paginated ViewSet', muxws: 'REST and muxws app' };
