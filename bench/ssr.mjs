// Server rendering (issue 35): the time to render a page with a live list on the server
// (`useLiveList`, which reads the topic's rev and the rows, and hands both to the client), side by
// side with the same page reading the list the plain way (`onServerPrefetch(() => items.list())`, as
// Nuxt's `useAsyncData(() => items.list())` does), for the same 20 rows, in one Node 20 process
// against the real backend (no fault proxy), alternating the two, each render in its own request
// scope (`runInRequest`) with `createSSRApp` + `renderToString` and the payload serialized. Nothing
// is asserted; the medians are printed. Not part of bench/run.mjs (yet).
//   node --experimental-websocket bench/ssr.mjs [renders]   (after bash scripts/build.sh)
import { register } from 'node:module';

const pkgUrl = new URL('../pkg/index.js', import.meta.url).href;
register(`data:text/javascript,${encodeURIComponent(`export async function resolve(s, c, n) { return s === '@dynamicforms/fastapi-viewsets' ? { url: ${JSON.stringify(pkgUrl)}, shortCircuit: true } : n(s, c); }`)}`);
const { startStack } = await import('../tests/harness/stack.mjs');
const { median } = await import('./stats.mjs');
const pkg = await import(pkgUrl);
const { h, createSSRApp, defineComponent, onServerPrefetch, shallowRef } = await import('vue');
const { renderToString } = await import('vue/server-renderer');
const { useLiveList, viewsetsSSR } = await import('../pkg/vue/index.js');
const { runInRequest } = await import('../pkg/ssr/index.js');

const renders = Number(process.argv[2] ?? 300);
const stack = await startStack({ proxy: false });
try {
  const items = new (pkg.restViewSet()('id', [pkg.ViewSetMixin]))({ basePath: '/items', baseUrl: stack.baseUrl, schemaCheck: false });
  for (let at = 0; at < 20; at++) await items.create({ name: `row ${at}` });
  const list = (rows) => h('ul', rows.map((row) => h('li', row.name)));
  const Live = defineComponent({ setup: () => { const { rows } = useLiveList(items); return () => list(rows.value); } });
  const Plain = defineComponent({
    setup() {
      const rows = shallowRef([]);
      onServerPrefetch(async () => void (rows.value = await items.list()));
      return () => list(rows.value);
    },
  });
  const render = (component) => runInRequest(async () => {
    const viewsets = viewsetsSSR();
    return (await renderToString(createSSRApp(component).use(viewsets))) + viewsets.serialize();
  });
  const times = { live: [], plain: [] };
  for (let round = 0; round < renders; round++) {
    for (const [name, component] of round % 2 ? [['live', Live], ['plain', Plain]] : [['plain', Plain], ['live', Live]]) {
      const start = performance.now();
      await render(component);
      // the first tenth warms up
      if (round >= renders / 10) times[name].push(performance.now() - start);
    }
  }
  const [live, plain] = [median(times.live), median(times.plain)];
  console.log(JSON.stringify({ renders: times.live.length, useLiveListMs: +live.toFixed(2), plainListMs: +plain.toFixed(2), ratio: +(live / plain).toFixed(2) }));
} finally {
  await stack.stop();
}
