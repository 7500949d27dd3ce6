// The small apps whose size scripts/size.mjs (Vite) and scripts/size-bundlers.mjs (webpack, Rollup,
// esbuild) measure: "full" uses every export and connects muxws, "rest" uses only REST proxies and
// call activity, "watch" is the REST-only app that also follows its list.
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
};
/** What each app is called in the output. */
export const LABEL = { full: 'whole package', rest: 'REST-only app', watch: 'REST-only app with watch()' };
