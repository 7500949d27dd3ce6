// The devtools subpath's cost, measured as Vite 8 builds with its defaults: the REST-only app
// (size-apps.mjs) built twice, once as it is and once importing `@dynamicforms/fastapi-viewsets/devtools`
// and calling `mountDevtools()`, the package installed as an app has it (node_modules, so that its
// `exports` conditions apply). A production build resolves the subpath to its stub: the app's files
// must be the same bytes, or this exits 1. A development build (NODE_ENV=development, as `vite`'s dev
// server and `NODE_ENV=development vite build` resolve `development`) is printed: its files beside
// the app's without the import.
// With --webpack, also webpack 5 (its defaults, mode development and production) on an app that
// only mounts the devtools: what each emits (not enforced; the build does not run it).
//   node scripts/size-devtools.mjs [pkg] [--webpack]          (build.sh runs it without --webpack)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

import { APPS } from './size-apps.mjs';

const pkgDir = resolve(process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 'pkg');
const MOUNT = "import { mountDevtools } from '@dynamicforms/fastapi-viewsets/devtools';\nmountDevtools();\n";

/** Builds the REST-only app (with the devtools' import when `devtools`); returns its files: [name without hash, bytes, gzip -9 bytes, text]. */
async function built(name, devtools) {
  const { build } = await import('vite');
  const root = resolve('target', 'size-apps', name);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, 'node_modules', '@dynamicforms'), { recursive: true });
  symlinkSync(pkgDir, join(root, 'node_modules', '@dynamicforms', 'fastapi-viewsets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><script type="module" src="./main.js"></script>\n');
  writeFileSync(join(root, 'main.js'), (devtools ? MOUNT : '') + APPS.rest + '\n');
  await build({ root, logLevel: 'silent', configFile: false, build: { outDir: join(root, 'dist'), emptyOutDir: true } });
  const dir = join(root, 'dist', 'assets');
  return readdirSync(dir)
    .filter((file) => /\.(js|wasm)$/.test(file))
    .sort()
    .map((file) => {
      const bytes = readFileSync(join(dir, file));
      return { file: file.replace(/-[\w-]{8}\./, '.'), hashed: file, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, text: bytes };
    });
}

const line = (files) => files.map((f) => `${f.file} ${f.gzip}`).join(' + ') + ` = ${files.reduce((n, f) => n + f.gzip, 0)} B`;

if (process.env.SIZE_DEVTOOLS_MODE === 'development') {
  // the child: NODE_ENV=development, so Vite resolves the "development" condition
  const without = await built('devtools-dev-without', false);
  const withIt = await built('devtools-dev-with', true);
  const same = withIt.filter((f) => without.some((g) => g.hashed === f.hashed && g.text.equals(f.text))).map((f) => f.file);
  const changed = withIt.filter((f) => !same.includes(f.file)).map((f) => {
    const before = without.find((g) => g.file === f.file);
    return before ? `${f.file} ${before.gzip} -> ${f.gzip}` : `${f.file} ${f.gzip} (new)`;
  });
  console.log(`size (REST-only app importing the devtools subpath, Vite 8, NODE_ENV=development build, gzip -9): ${line(withIt)}; the same bytes as without it: ${same.join(', ')}; changed: ${changed.join(', ')}`);
} else {
  const without = await built('devtools-prod-without', false);
  const withIt = await built('devtools-prod-with', true);
  const equal = without.length === withIt.length && without.every((f, i) => f.hashed === withIt[i].hashed && f.text.equals(withIt[i].text));
  console.log(`size (REST-only app importing the devtools subpath, Vite 8 defaults, production, gzip -9): ${line(withIt)}; without the import: ${line(without)}; ${equal ? 'the same bytes: 0 B of the panel' : 'NOT the same bytes'}`);
  const child = spawnSync(process.execPath, [new URL(import.meta.url).pathname, pkgDir], { env: { ...process.env, NODE_ENV: 'development', SIZE_DEVTOOLS_MODE: 'development' }, encoding: 'utf8' });
  process.stdout.write(child.stdout);
  if (child.status !== 0) {
    process.stderr.write(child.stderr);
    process.exit(1);
  }
  if (process.argv.includes('--webpack')) await webpackLines();
  if (!equal) process.exit(1);
}

/** webpack 5, modes development and production, an app whose only code mounts the devtools. */
async function webpackLines() {
  const { default: webpack } = await import('webpack');
  for (const mode of ['development', 'production']) {
    const root = resolve('target', 'size-apps', `devtools-webpack-${mode}`);
    rmSync(root, { recursive: true, force: true });
    mkdirSync(join(root, 'node_modules', '@dynamicforms'), { recursive: true });
    symlinkSync(pkgDir, join(root, 'node_modules', '@dynamicforms', 'fastapi-viewsets'));
    writeFileSync(join(root, 'main.js'), MOUNT);
    await new Promise((done, fail) => webpack({ mode, context: root, entry: './main.js', output: { path: join(root, 'dist') } }, (error, stats) => (error ? fail(error) : stats.hasErrors() ? fail(new Error(stats.toString('errors-only'))) : done())));
    const files = readdirSync(join(root, 'dist')).map((file) => `${file} ${gzipSync(readFileSync(join(root, 'dist', file)), { level: 9 }).length}`);
    const main = readFileSync(join(root, 'dist', 'main.js'), 'utf8');
    console.log(`size (an app that only mounts the devtools, webpack 5 mode ${mode}, gzip -9): ${files.join(', ')}; main.js ${/mountDevtools/.test(main) ? 'holds the development entry' : 'holds none of it'}; not enforced`);
  }
}
