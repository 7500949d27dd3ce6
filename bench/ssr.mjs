// Server rendering (issue 35), in one Node 20 process against the real backend (no fault proxy),
// each section's samples alternated between what it compares, medians printed (nothing asserted):
//
// 1. render: the time to render a page with a live list on the server (`useLiveList`, which reads
//    the topic's rev and the rows, and hands both to the client) against the same page reading the
//    list the plain way (`onServerPrefetch(() => items.list())`, as Nuxt's
//    `useAsyncData(() => items.list())` does), for the same 20 rows, each render in its own request
//    scope (`runInRequest`) with `createSSRApp` + `renderToString` and the payload serialized; "warm"
//    as a server renders under traffic (the topic's rev an earlier render took less than 5 s ago is
//    reused: no poll), "cold" as a topic's first render (the package's clock moved 6 s on before
//    each, so the rev is read again: a poll, then the read).
// 2. rev: what the rev costs at the backend, by plain `fetch` (no package): `POST /events/poll`
//    with and without an `Idempotency-Key` (the key is what makes the backend's idempotency
//    middleware do its work), a poll of a custom topic (no ViewSet's checks), and `GET /items` with
//    and without a key.
// 3. live: the time to live after hydration: a client list made with `initial` (the server's rows
//    and rev, as a hydrated page makes it) until its rows are the list's (`ready`, no read) and until
//    its follower has heard the server (a poll answered over REST, the subscribe answered over
//    muxws, push mode: `follower.ready`), against a list without SSR
//    until its first read landed (`ready`); then from another client's write (`POST /items`, sent
//    by plain `fetch`; the time includes that call) until the row shows in the hydrated list, over
//    REST polling (every 250 ms) and over muxws push. The muxws peer is connected once, before.
//   node --experimental-websocket bench/ssr.mjs [renders] [rounds]   (after bash scripts/build.sh)
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
const rounds = Number(process.argv[3] ?? 40);
/** The real clock, for the measures; the package's clock (`performance.now`) may be moved on by `skew`. */
const clock = performance.now.bind(performance);
let skew = 0;
performance.now = () => clock() + skew;
const round2 = (x) => +x.toFixed(2);
const medians = (times) => Object.fromEntries(Object.entries(times).map(([name, xs]) => [name, round2(median(xs))]));

const stack = await startStack({ proxy: false });
try {
  const base = stack.baseUrl;
  const Items = pkg.restViewSet()('id', [pkg.ViewSetMixin]);
  const items = new Items({ basePath: '/items', baseUrl: base, schemaCheck: false });
  for (let at = 0; at < 20; at++) await items.create({ name: `row ${at}` });
  const list = (rows) => h('ul', rows.map((row) => h('li', row.name)));
  let lastEntry;
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
    const html = (await renderToString(createSSRApp(component).use(viewsets))) + viewsets.serialize();
    lastEntry = viewsets.payload()['live:/items|null']?.[0];
    return html;
  });

  // 1. render, warm and cold
  const times = { live: [], plain: [], liveCold: [], plainCold: [] };
  for (let round = 0; round < renders; round++) {
    const order = round % 2 ? [['live', Live], ['plain', Plain]] : [['plain', Plain], ['live', Live]];
    for (const cold of [false, true]) {
      for (const [name, component] of order) {
        // a topic's first render: the rev an earlier render took is older than 5 s (moved on before
        // the live page's cold render only: the warm ones then find a rev taken less than 5 s ago)
        if (cold && name === 'live') skew += 6000;
        const start = clock();
        await render(component);
        // the first tenth warms up
        if (round >= renders / 10) times[name + (cold ? 'Cold' : '')].push(clock() - start);
      }
    }
  }
  const m = medians(times);
  console.log(JSON.stringify({ section: 'render', renders: times.live.length, warm: { useLiveListMs: m.live, plainListMs: m.plain, ratio: round2(m.live / m.plain) }, cold: { useLiveListMs: m.liveCold, plainListMs: m.plainCold, ratio: round2(m.liveCold / m.plainCold) } }));

  // 2. the rev's cost at the backend
  const json = { 'content-type': 'application/json' };
  const key = () => ({ 'idempotency-key': `"${crypto.randomUUID()}"` });
  const kinds = {
    pollWithKey: () => fetch(`${base}/events/poll`, { method: 'POST', headers: { ...json, ...key() }, body: JSON.stringify({ cursors: { '/items': null } }) }),
    pollWithoutKey: () => fetch(`${base}/events/poll`, { method: 'POST', headers: json, body: JSON.stringify({ cursors: { '/items': null } }) }),
    pollCustomTopic: () => fetch(`${base}/events/poll`, { method: 'POST', headers: json, body: JSON.stringify({ cursors: { imports: null } }) }),
    listWithKey: () => fetch(`${base}/items`, { headers: key() }),
    listWithoutKey: () => fetch(`${base}/items`),
    pollByGet: () => fetch(`${base}/events/poll`),
  };
  const revTimes = Object.fromEntries(Object.keys(kinds).map((name) => [name, []]));
  const statuses = {};
  for (let round = 0; round < renders; round++) {
    for (const [name, send] of Object.entries(kinds)) {
      const start = clock();
      const answer = await send();
      await answer.text();
      statuses[name] = answer.status;
      if (round >= renders / 10) revTimes[name].push(clock() - start);
    }
  }
  console.log(JSON.stringify({ section: 'rev', samples: revTimes.pollWithKey.length, ms: medians(revTimes), statuses }));

  // 3. time to live after hydration, and a change to its showing
  const peer = await pkg.connectMuxws(stack.wsUrl);
  try {
    const wsItems = new (pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]))({ basePath: '/items', peer, schemaCheck: false });
    const live = { restHydratedRows: [], restHydrated: [], restWithoutSsr: [], muxwsHydratedRows: [], muxwsHydrated: [], muxwsWithoutSsr: [], restChange: [], muxwsChange: [] };
    const options = { pollIntervalMs: 250 };
    /** Resolves once `list` shows a row named `name`. */
    const shows = (target, name) => new Promise((resolve) => {
      const check = () => target.rows.some((row) => row.name === name) && (stop?.(), resolve());
      const stop = target.subscribe(check);
      check();
    });
    for (let round = 0; round < rounds; round++) {
      for (const [transport, proxy] of round % 2 ? [['rest', items], ['muxws', wsItems]] : [['muxws', wsItems], ['rest', items]]) {
        // the server's render of the page (its rev read now), then the client's hydration
        skew += 6000;
        await render(Live);
        const initial = { rows: lastEntry.rows, rev: lastEntry.rev };
        let start = clock();
        const hydrated = pkg.liveList(proxy, undefined, { ...options, initial });
        await hydrated.ready;
        // the server's rows are the list's (a Vue page shows them before, from the payload)
        live[`${transport}HydratedRows`].push(clock() - start);
        await hydrated.follower.ready;
        if (transport === 'muxws') while (hydrated.follower.mode !== 'push') await new Promise((resolve) => setTimeout(resolve, 1));
        live[`${transport}Hydrated`].push(clock() - start);
        start = clock();
        const plain = pkg.liveList(proxy, undefined, options);
        await plain.ready;
        live[`${transport}WithoutSsr`].push(clock() - start);
        await plain.close();
        const name = `change ${transport} ${round}`;
        const shown = shows(hydrated, name);
        start = clock();
        await fetch(`${base}/items`, { method: 'POST', headers: { ...json, ...key() }, body: JSON.stringify({ name }) }).then((answer) => answer.text());
        await shown;
        live[`${transport}Change`].push(clock() - start);
        await hydrated.close();
      }
    }
    console.log(JSON.stringify({ section: 'live', rounds, pollIntervalMs: options.pollIntervalMs, ms: medians(live) }));
  } finally {
    await peer.close();
  }
} finally {
  await stack.stop();
}
