// The package as npm installs it, type-checked as an application checks it: `npm pack` of pkg/, the
// tarball installed into a fresh folder, and tests/types/packed/app.ts checked there with
// skipLibCheck false, strict, exactOptionalPropertyTypes and noUncheckedIndexedAccess, under
// TypeScript 5.0 (tests/types/oldest), the version the package is built with (the workspace's) and
// the newest 6.x (tests/types/newest). A declaration that imports a file the tarball leaves out
// fails here (TS2307), where checking pkg/ itself cannot see it.
//   node tests/types/packed.mjs [pkg dir]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const pkgDir = path.resolve(process.argv[2] ?? path.join(repoRoot, 'pkg'));
const compilers = [
  path.join(here, 'oldest', 'node_modules', 'typescript', 'bin', 'tsc'),
  path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'),
  path.join(here, 'newest', 'node_modules', 'typescript', 'bin', 'tsc'),
];

const app = fs.mkdtempSync(path.join(os.tmpdir(), 'packed-types-'));
let failed = false;
try {
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', app, pkgDir], { encoding: 'utf8' }).trim().split('\n').pop();
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'packed-types', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', path.join(app, tarball)], { cwd: app, stdio: 'ignore' });
  fs.copyFileSync(path.join(here, 'packed', 'app.ts'), path.join(app, 'app.ts'));
  const compilerOptions = {
    target: 'ES2022', module: 'ES2022', moduleResolution: 'bundler', lib: ['ES2022', 'DOM'], types: [], noEmit: true,
    strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, skipLibCheck: false,
  };
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['app.ts'] }));
  for (const tsc of compilers) {
    const version = execFileSync(process.execPath, [tsc, '-v'], { encoding: 'utf8' }).trim();
    try {
      execFileSync(process.execPath, [tsc, '-p', app], { encoding: 'utf8', stdio: 'pipe' });
      console.log(`packed types: ok with ${version}`);
    } catch (error) {
      failed = true;
      console.log(`packed types: FAILED with ${version}\n${error.stdout}`);
    }
  }
} finally {
  fs.rmSync(app, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
