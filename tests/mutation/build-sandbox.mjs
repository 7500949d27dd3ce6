// Stryker's buildCommand, run once per sandbox (the repository's root as cwd), after Stryker has
// written the instrumented .ts files: compiles the facade with tsc and bundles it into the
// sandbox's pkg/ (index.js and the muxws driver chunk), as scripts/build.sh does. The wasm modules
// are not rebuilt: the calls module's bytes (pkg-template/src/wasm/calls-bytes.js) and
// pkg/wasm/muxws_bg.wasm come from the last `bash scripts/build.sh`.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';

const out = 'tests/mutation/.tsc';
// Stryker links the sandbox's node_modules only when the project's is a folder; where it is a link
// (a worktree sharing another's), run.mjs names the real folder and it is linked here.
if (!existsSync('node_modules') && process.env.SANDBOX_NODE_MODULES) symlinkSync(process.env.SANDBOX_NODE_MODULES, 'node_modules', 'dir');
if (!existsSync('pkg-template/src/wasm/calls-bytes.js') || !existsSync('pkg/index.js')) {
  console.error('build-sandbox: no built package; run `bash scripts/build.sh` first');
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit' });
run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'pkg-template/tsconfig.json', '--outDir', out, '--declaration', 'false']);
mkdirSync(`${out}/wasm`, { recursive: true });
cpSync('pkg-template/src/wasm/calls-bytes.js', `${out}/wasm/calls-bytes.js`);
run(process.execPath, ['scripts/bundle.mjs', out, 'pkg']);
