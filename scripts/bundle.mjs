// Bundles the facade, as tsc compiled it, into the package's modules: index.js (everything an app
// imports; the calls module's wasm-bindgen glue included) and one chunk per dynamic import (the
// muxws driver), with rolldown (the bundler inside Vite). One module instead of a dozen: a browser
// importing the package directly fetches one file, then the wasm, instead of a waterfall of
// imports; a bundler sees the same exports. `new URL('./wasm/…', import.meta.url)` is left as it is,
// so an app's bundler still emits the wasm files as assets.
//   node scripts/bundle.mjs <tsc output dir> <package dir>
import { rolldown } from 'rolldown';

const [from, to] = process.argv.slice(2);
const bundle = await rolldown({ input: { index: `${from}/index.js` }, platform: 'neutral', logLevel: 'warn' });
await bundle.write({ dir: to, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name].js' });
await bundle.close();
