// Bundles the facade, as tsc compiled it, into the package's modules: index.js (everything an app
// imports; the calls module's bytes included, see scripts/inline-wasm.mjs) and one chunk per dynamic
// import (the muxws driver), with rolldown (the bundler inside Vite). One module instead of a dozen:
// a browser importing the package directly fetches one file instead of a waterfall of imports; a
// bundler sees the same exports. `new URL('./wasm/muxws_bg.wasm', import.meta.url)` is left as it
// is, so an app's bundler still emits the muxws module as an asset.
//   node scripts/bundle.mjs <tsc output dir> <package dir>
import { rolldown } from 'rolldown';

const [from, to] = process.argv.slice(2);
const bundle = await rolldown({ input: { index: `${from}/index.js` }, platform: 'neutral', logLevel: 'warn' });
await bundle.write({ dir: to, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name].js' });
await bundle.close();
