// Prints the package's size as a frontend user pays it: gzip -9 of the wasm, the wasm-bindgen glue
// and the facade, each and together.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dir = process.argv[2] ?? 'pkg';
const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;
const wasm = gz(join(dir, 'wasm/fastapi_viewsets_bg.wasm'));
const glue = gz(join(dir, 'wasm/fastapi_viewsets.js'));
const facade = readdirSync(dir).filter((f) => f.endsWith('.js')).reduce((sum, f) => sum + gz(join(dir, f)), 0);
const total = wasm + glue + facade;
console.log(`size (gzip -9): wasm ${wasm} B + glue ${glue} B + facade ${facade} B = ${total} B (${(total / 1024).toFixed(1)} KiB)`);
