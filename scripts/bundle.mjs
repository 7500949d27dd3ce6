// Bundles the facade, as tsc compiled it, into the package's modules: index.js (everything an app
// imports; the calls module's bytes included, see scripts/inline-wasm.mjs), one chunk per dynamic
// import (the muxws driver, muxws/), and the follower's engine (follow-engine.js, follow/), the axios
// transport's sending half (axios-send.js, axios/), the schema check (schema-check.js, schema-check/)
// and the live list (live/live-list.js, live/), each of them bundled on its own, with rolldown (the
// bundler inside Vite). One module instead of a dozen: a browser importing the package directly
// fetches one file instead of a waterfall of imports; a bundler sees the same exports. `new URL('./wasm/muxws_bg.wasm', import.meta.url)` is left as it
// is, so an app's bundler still emits the muxws module as an asset.
//   node scripts/bundle.mjs <tsc output dir> <package dir>
import { rolldown } from 'rolldown';

const [from, to] = process.argv.slice(2);
// follow-engine.js is a module of its own: follow.ts imports it by its URL (see there), so that an
// app's bundler copies it as an asset rather than wrapping the import in a preload helper. It
// imports nothing of index.js (what it needs comes in its services).
// It is bundled on its own and minified: an app's bundler copies an asset as it is.
const bundle = await rolldown({ input: { index: `${from}/index.js` }, platform: 'neutral', logLevel: 'warn' });
// The driver's chunk is named for its folder (muxws/driver.ts -> muxws-driver.js), beside index.js,
// where its `new URL('./wasm/…', import.meta.url)` finds the module. It is the build's only chunk:
// the driver imports no value of index.js's (what it needs comes in its services), so no chunk of
// shared code is split off (scripts/imports.mjs checks the imports; a file more fails here).
const { output } = await bundle.write({ dir: to, format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'muxws-[name].js' });
const extra = output.filter((file) => file.type === 'chunk' && file.fileName !== 'index.js' && file.fileName !== 'muxws-driver.js');
if (extra.length) throw new Error(`bundle: index.js's build split off ${extra.map((file) => file.fileName).join(', ')}: a value import shared by the entry and the driver (hand it in with muxwsServices)`);
await bundle.close();
// axios-send.js likewise: axios.ts imports it by its URL once a proxy with axiosInstance is made;
// schema-check.js too: schema.ts imports it once a proxy's schema check has the backend's schema;
// live/live-list.js too, in a folder of its own: live.ts imports it by its URL on the first liveList();
// live/paged.js beside it (live-paged/): what only paged lists need, which the live list loads
// (through its services, by a URL index.js makes) the first time a list turns out paged.
// Each is its folder of pkg-template/src (follow/, axios/, schema-check/, live/) bundled alone.
// devtools/panel.js too: the devtools panel (devtools/), loaded by the devtools subpath's development entry.
for (const [name, file] of [['follow-engine', 'follow/index'], ['axios-send', 'axios/send'], ['schema-check', 'schema-check/check'], ['live/live-list', 'live/live-list'], ['live/paged', 'live-paged/index'], ['devtools/panel', 'devtools/panel']]) {
  const chunk = await rolldown({ input: { [name]: `${from}/${file}.js` }, platform: 'neutral', logLevel: 'warn' });
  await chunk.write({ dir: to, format: 'esm', entryFileNames: '[name].js', minify: true });
  await chunk.close();
}
// vue/index.js: the subpath @dynamicforms/fastapi-viewsets/vue, an entry of the package's own that
// imports `vue` (an optional peer) and the package by its own name (one runtime per page), both
// left as imports. Not minified: an app's bundler minifies it with the app.
const vue = await rolldown({ input: { 'vue/index': `${from}/vue/index.js` }, platform: 'neutral', logLevel: 'warn', external: ['vue', '@dynamicforms/fastapi-viewsets'] });
await vue.write({ dir: to, format: 'esm', entryFileNames: '[name].js' });
await vue.close();
// devtools/index.js and devtools/stub.js: the subpath @dynamicforms/fastapi-viewsets/devtools, its
// development entry (the record, mountDevtools(), which loads devtools/panel.js beside it) and the stub
// every other build resolves (package.json's exports); the package imported by its own name, as vue/.
const devtools = await rolldown({ input: { 'devtools/index': `${from}/devtools-subpath/index.js`, 'devtools/stub': `${from}/devtools-subpath/stub.js` }, platform: 'neutral', logLevel: 'warn', external: ['@dynamicforms/fastapi-viewsets'] });
const { output: devtoolsOutput } = await devtools.write({ dir: to, format: 'esm', entryFileNames: '[name].js' });
if (devtoolsOutput.some((file) => file.type === 'chunk' && !file.isEntry)) throw new Error('bundle: the devtools subpath split off a shared chunk: the stub imports nothing');
await devtools.close();
// ssr/index.js: the subpath @dynamicforms/fastapi-viewsets/ssr (Node only), request scopes on
// `node:async_hooks`; it imports the package by its own name (one runtime), never imported by
// index.js or vue/index.js, so no browser bundle sees node:async_hooks. Not minified.
const ssr = await rolldown({ input: { 'ssr/index': `${from}/ssr/index.js` }, platform: 'node', logLevel: 'warn', external: ['node:async_hooks', '@dynamicforms/fastapi-viewsets'] });
await ssr.write({ dir: to, format: 'esm', entryFileNames: '[name].js' });
await ssr.close();
// nuxt/: the subpath @dynamicforms/fastapi-viewsets/nuxt, the Nuxt module (module.js, run by Nuxt at
// build time in Node) and what it adds to an app: its plugins (plugin-server.js, plugin-client.js, and
// plugin-devtools.js in `nuxt dev`) and
// Nitro's (nitro.js). Each is bundled on its own (what they share is a constant); each imports the
// package's subpaths by their names (one runtime per page, one scope resolver per process), Vue,
// Nuxt's `#app` and Node's modules, all left as imports; not minified.
for (const name of ['module', 'plugin-server', 'plugin-client', 'plugin-devtools', 'nitro']) {
  const nuxt = await rolldown({ input: { [`nuxt/${name}`]: `${from}/nuxt/${name}.js` }, platform: 'neutral', logLevel: 'warn', external: ['vue', '#app', /^@dynamicforms\/fastapi-viewsets(\/|$)/, /^node:/] });
  await nuxt.write({ dir: to, format: 'esm', entryFileNames: '[name].js' });
  await nuxt.close();
}
