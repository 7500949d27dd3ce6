// What an app ships of the package, measured as a bundler ships it: two small apps built with Vite
// (production: minified, tree-shaken, code-split), and gzip -9 of every JS chunk and wasm file they
// emit. "full" uses every export and connects muxws (so the lazily loaded muxws chunk and module
// count); "rest" is an app that uses only REST proxies and call activity.
//   node scripts/size.mjs [pkg]      prints both figures; exits 1 when one is over its budget
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const pkgDir = resolve(process.argv[2] ?? 'pkg');
/** The budgets of issue 11 (gzip -9 bytes). */
export const BUDGET = { full: 40 * 1024, rest: 18 * 1024 };

const APPS = {
  full: `import * as pkg from '@dynamicforms/fastapi-viewsets';
globalThis.everything = pkg;
pkg.connectMuxws('/ws').then((peer) => { globalThis.peer = peer; }, () => {});`,
  rest: `import { restViewSet, ViewSetMixin, onCallActivity, pendingCallCount, retryNow, HttpError } from '@dynamicforms/fastapi-viewsets';
class Items extends restViewSet()('id', [ViewSetMixin]) {}
const items = new Items({ basePath: '/items' });
onCallActivity(() => { document.title = String(pendingCallCount()); });
document.body.onclick = () => retryNow();
items.list().then((list) => { document.body.textContent = list.length; }, (error) => { if (error instanceof HttpError) document.body.textContent = error.status; });`,
};

/** Builds app `name` and returns `{ files: [[file, gzip bytes]], total }`. */
async function measure(name) {
  const root = resolve('target', 'size-apps', name);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><script type="module" src="./main.js"></script>\n');
  writeFileSync(join(root, 'main.js'), APPS[name] + '\n');
  await build({
    root,
    logLevel: 'silent',
    configFile: false,
    resolve: { alias: { '@dynamicforms/fastapi-viewsets': join(pkgDir, 'index.js') } },
    build: { outDir: join(root, 'dist'), emptyOutDir: true, target: 'es2022', assetsInlineLimit: 0, modulePreload: false },
  });
  const assets = join(root, 'dist', 'assets');
  const files = readdirSync(assets)
    .filter((file) => /\.(js|wasm)$/.test(file))
    .map((file) => [file, gzipSync(readFileSync(join(assets, file)), { level: 9 }).length]);
  return { files, total: files.reduce((sum, [, bytes]) => sum + bytes, 0) };
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
let over = false;
for (const name of Object.keys(APPS)) {
  const { files, total } = await measure(name);
  const parts = files.map(([file, bytes]) => `${file.replace(/-[\w-]{8}\./, '.')} ${bytes}`).join(' + ');
  const within = total <= BUDGET[name];
  over ||= !within;
  console.log(`size (${name === 'full' ? 'whole package' : 'REST-only app'}, minified, gzip -9): ${parts} = ${total} B (${kib(total)}); budget ${kib(BUDGET[name])}: ${within ? 'within' : 'OVER'}`);
}
if (over) {
  console.error('size: over budget');
  process.exit(1);
}
