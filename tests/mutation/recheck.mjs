// Runs the mutants a Stryker run let live again, against the unit suite as it is now, without a
// new Stryker run: the sandbox Stryker kept (cleanTempDir: false) holds the instrumented, built
// package, where any mutant is switched on by __STRYKER_ACTIVE_MUTANT__. Tests are only ever added,
// so a mutant the last run killed stays killed; the survivors are the ones to run again.
//   node tests/mutation/recheck.mjs [--all] [--unit a,b] [--sample N] [--sandbox DIR] [--report FILE] [id ...]
// Without ids: every Survived/NoCoverage mutant of the report (default reports/mutation.json, the
// last run's; it must be the report of the run that made the sandbox). By default only the new
// files tests/unit/mutation-*.test.mjs run (fast); --all runs the whole suite (unit-bail.mjs).
// --unit a,b: the unit files whose names start with a or b instead (e.g. mutation-follow,follow).
// --sample N: the report is of a sampled run (run.mjs --sample N): only ids that are multiples of N count.
// Prints each mutant's status and the score the report's file(s) would have now.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const args = process.argv.slice(2);
const all = args.includes('--all');
const valueOf = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : null);
let sandbox = valueOf('--sandbox');
const reportFile = valueOf('--report') ?? join(here, 'reports', 'mutation.json');
const unit = (valueOf('--unit') ?? 'mutation-').split(',').filter(Boolean);
const sample = Number(valueOf('--sample') ?? 1) || 1;
const ids = args.filter((arg, i) => !arg.startsWith('--') && !['--sandbox', '--report', '--unit', '--sample'].includes(args[i - 1]));
if (!sandbox) {
  const tmp = join(here, '.stryker-tmp');
  const dirs = existsSync(tmp) ? readdirSync(tmp).filter((name) => name.startsWith('sandbox-')).map((name) => join(tmp, name)) : [];
  dirs.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  sandbox = dirs[0];
}
if (!sandbox || !existsSync(join(sandbox, 'pkg', 'index.js'))) {
  console.error('recheck: no kept sandbox; run `node tests/mutation/run.mjs` first');
  process.exit(1);
}
if (!existsSync(join(sandbox, 'node_modules'))) symlinkSync(realpathSync(join(root, 'node_modules')), join(sandbox, 'node_modules'), 'dir');
// The unit suite as it is now (new tests included) into the sandbox.
cpSync(join(root, 'tests', 'unit'), join(sandbox, 'tests', 'unit'), { recursive: true });

const report = JSON.parse(readFileSync(reportFile, 'utf8'));
const byId = new Map();
for (const [file, { mutants }] of Object.entries(report.files)) for (const m of mutants) if (Number(m.id) % sample === 0) byId.set(m.id, { ...m, file });
const todo = ids.length ? ids : [...byId.values()].filter((m) => m.status === 'Survived' || m.status === 'NoCoverage').map((m) => m.id);
const newFiles = readdirSync(join(root, 'tests', 'unit')).filter((name) => unit.some((prefix) => name.startsWith(prefix)) && name.endsWith('.test.mjs'));
const command = all ? ['tests/mutation/unit-bail.mjs'] : ['--test', ...newFiles.map((name) => `tests/unit/${name}`)];
if (all) cpSync(join(here, 'unit-bail.mjs'), join(sandbox, 'tests', 'mutation', 'unit-bail.mjs'));

function runOne(id) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, command, { cwd: sandbox, stdio: 'ignore', env: { ...process.env, FOLLOW_CASES: process.env.FOLLOW_CASES ?? '100', FOLLOW_SEED: process.env.FOLLOW_SEED ?? '1', SAMPLE: '1', __STRYKER_ACTIVE_MUTANT__: String(id) } });
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(signal ? 'Timeout' : code === 0 ? 'Survived' : 'Killed');
    });
  });
}

// The tests must pass on the instrumented package with no mutant switched on, or every "kill" is void.
if ((await runOne('')) !== 'Survived') {
  console.error('recheck: the tests fail with no mutant active; fix them first');
  process.exit(1);
}
const concurrency = Number(process.env.CONCURRENCY ?? 2);
const results = new Map();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < todo.length) {
      const id = todo[next++];
      const status = await runOne(id);
      results.set(id, status);
      const m = byId.get(id);
      const where = m ? `${m.file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} -> ${JSON.stringify(m.replacement ?? '')}` : '';
      console.log(`${status.padEnd(8)} #${id} ${where}`);
    }
  }),
);
if (!ids.length) {
  const mutants = [...byId.values()].filter((m) => m.status !== 'Ignored' && m.status !== 'CompileError' && m.status !== 'RuntimeError');
  const killed = mutants.filter((m) => m.status === 'Killed' || m.status === 'Timeout' || (results.has(m.id) && results.get(m.id) !== 'Survived'));
  console.log(`\nnow: ${killed.length} of ${mutants.length} killed or timed out: ${((100 * killed.length) / mutants.length).toFixed(1)} %`);
}
