// What an app ships of the package with each other bundler's defaults, beside scripts/size.mjs's
// figures (Vite's defaults, which the build enforces): the same small apps (scripts/size-apps.mjs),
// each built as an app that sets nothing builds, gzip -9 of each file.
//   webpack 5         `webpack --mode production` (minified by its default terser); its runtime is
//                     counted (every webpack app ships one; the package's asset URLs and top-level
//                     await use parts of it)
//   Rollup 4          `rollup -c` of `{ input, output: { dir }, plugins: [nodeResolve()] }`: Rollup
//                     does not minify by default, so this is unminified code
//   esbuild 0.28      `esbuild --bundle --format=esm` (the one setting it needs: README), unminified
//                     as by default, and with `--minify`
// Rollup and esbuild emit no file for the package's URL files (follow-engine.js, axios-send.js,
// schema-check.js, wasm/muxws_bg.wasm): the app copies them, and they count as the package ships them.
// "rest" counts what the app loads at start (the entry and its static imports); "watch" that and the
// follower's engine; "full" every file. Nothing here is enforced.
//   node scripts/size-bundlers.mjs [pkg]     prints a line per bundler and app
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

import { APPS, LABEL } from './size-apps.mjs';

const URL_FILES = ['follow-engine.js', 'axios-send.js', 'schema-check.js', 'wasm/muxws_bg.wasm'];

/** A fresh app folder for `bundler`'s build of app `name`, the package linked into its node_modules. */
function appFolder(pkgDir, bundler, name) {
  const root = resolve('target', 'size-apps', `${bundler}-${name}`);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(join(root, 'node_modules', '@dynamicforms'), { recursive: true });
  symlinkSync(pkgDir, join(root, 'node_modules', '@dynamicforms', 'fastapi-viewsets'), 'dir');
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: `${bundler}-${name}`, private: true, type: 'module' }));
  writeFileSync(join(root, 'src', 'main.js'), APPS[name] + '\n');
  return root;
}

const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;

/** The package's URL files an app that copies them ships: [label, bytes], those of `name` that load at start counted. */
function urlFiles(pkgDir, name) {
  return URL_FILES.map((file) => [file.replace('wasm/', ''), gz(join(pkgDir, file))]);
}
const atStart = (name, file) => name === 'full' || (name === 'watch' && file.startsWith('follow-engine'));

async function webpackApp(pkgDir, name) {
  const { default: webpack } = await import('webpack');
  const root = appFolder(pkgDir, 'webpack', name);
  const dist = join(root, 'dist');
  const stats = await new Promise((done, fail) => {
    const compiler = webpack({ mode: 'production', context: root, entry: './src/main.js', output: { path: dist } });
    compiler.run((error, result) => compiler.close(() => (error ? fail(error) : result.hasErrors() ? fail(new Error(result.toString('errors-only'))) : done(result))));
  });
  const json = stats.toJson({ all: false, assets: true, chunks: true, entrypoints: true });
  const entry = new Set(json.entrypoints.main.assets.map((asset) => asset.name));
  const files = [];
  for (const asset of json.assets) {
    // (an asset module's name keeps the query of the URL it was named by: `?no-inline`)
    const file = asset.name.replace(/\?.*/, '');
    if (!/\.(js|wasm)$/.test(file)) continue;
    const label = asset.info.sourceFilename ? asset.info.sourceFilename.replace(/\?.*/, '').split('/').pop() : file;
    files.push([label, gz(join(dist, file)), name === 'full' || entry.has(asset.name) || atStart(name, label)]);
  }
  return files;
}

async function rollupApp(pkgDir, name) {
  const { rollup } = await import('rollup');
  const { nodeResolve } = await import('@rollup/plugin-node-resolve');
  const root = appFolder(pkgDir, 'rollup', name);
  const bundle = await rollup({ input: join(root, 'src', 'main.js'), plugins: [nodeResolve({ rootDir: root })], onwarn() {} });
  const { output } = await bundle.write({ dir: join(root, 'dist') });
  await bundle.close();
  const entry = output.find((chunk) => chunk.type === 'chunk' && chunk.isEntry);
  const start = new Set([entry.fileName, ...entry.imports]);
  const files = output.filter((chunk) => chunk.type === 'chunk').map((chunk) => [chunk.fileName, gz(join(root, 'dist', chunk.fileName)), name === 'full' || start.has(chunk.fileName)]);
  return [...files, ...urlFiles(pkgDir, name).map(([file, bytes]) => [file, bytes, atStart(name, file)])];
}

async function esbuildApp(pkgDir, name, minify) {
  const esbuild = await import('esbuild');
  const root = appFolder(pkgDir, minify ? 'esbuild-minify' : 'esbuild', name);
  await esbuild.build({ entryPoints: ['src/main.js'], bundle: true, format: 'esm', outdir: 'dist', absWorkingDir: root, logLevel: 'silent', minify });
  return [['main.js', gz(join(root, 'dist', 'main.js')), true], ...urlFiles(pkgDir, name).map(([file, bytes]) => [file, bytes, atStart(name, file)])];
}

export const BUNDLERS = {
  'webpack 5, production defaults': webpackApp,
  'Rollup 4 + node-resolve, defaults (not minified)': rollupApp,
  'esbuild --bundle --format=esm (not minified)': (pkgDir, name) => esbuildApp(pkgDir, name, false),
  'esbuild --bundle --format=esm --minify': (pkgDir, name) => esbuildApp(pkgDir, name, true),
};

/** Measures every app with every bundler: `[{ bundler, app, files: [[label, bytes, counted]], total }]`. */
export async function measureBundlers(pkgDir = resolve('pkg'), apps = Object.keys(APPS)) {
  const rows = [];
  for (const [bundler, run] of Object.entries(BUNDLERS)) {
    for (const app of apps) {
      const files = await run(resolve(pkgDir), app);
      rows.push({ bundler, app, files, total: files.filter(([, , counted]) => counted).reduce((sum, [, bytes]) => sum + bytes, 0) });
    }
  }
  return rows;
}

/** The line scripts/size.mjs prints for a Vite app, for another bundler's. */
export function sizeLine({ bundler, app, files, total }) {
  const named = ([file, bytes]) => `${file} ${bytes}`;
  const later = files.filter(([, , counted]) => !counted);
  return `size (${LABEL[app]}, ${bundler}, gzip -9): ${files.filter(([, , counted]) => counted).map(named).join(' + ')} = ${total} B (${(total / 1024).toFixed(1)} KiB)` +
    (later.length ? ` (on demand only: ${later.map(named).join(', ')})` : '');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await measureBundlers(resolve(process.argv[2] ?? 'pkg'))) console.log(sizeLine(row));
}
