// Mutation testing of the facade's unit suite:
//   node tests/mutation/run.mjs [--baseline] [file ...]   (from anywhere; default: the core files below)
// --baseline leaves out the tests written for the survivors (tests/unit/mutation-*.test.mjs).
// Each file is a name under pkg-template/src ("runtime" or "runtime.ts"). Runs StrykerJS from the
// repository's root with stryker.config.mjs, then prints per file: mutants, killed, survived,
// timed out, no coverage, errors, the score, and the survivors (file:line, mutator, replacement).
// A name may have a folder ("follow/engine"); the report's name then has "_" for "/".
// CONCURRENCY (default 2) sets Stryker's sandboxes. The package must have been built
// (`bash scripts/build.sh`): the sandbox recompiles only the TypeScript facade.
// --unit a,b (or UNIT=a,b): each mutant runs only the unit files whose names start with a or b
// (unit-bail.mjs), e.g. `--unit follow,mutation-follow` for the follower's files.
// --sample N (or SAMPLE=N): a deterministic sample, the mutants whose id is a multiple of N (ids
// are Stryker's, in the order it instruments the files); the others exit at once and are left out
// of the counts. The report's name then ends in .sampleN.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const CORE = ['runtime', 'rest', 'compose', 'timer', 'clock', 'headers', 'body'];
const argv = process.argv.slice(2);
const baseline = argv.includes('--baseline');
const valueOf = (flag) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
const unit = valueOf('--unit') ?? process.env.UNIT ?? '';
const sample = Number(valueOf('--sample') ?? process.env.SAMPLE ?? 1) || 1;
const args = argv.filter((arg, i) => arg !== '--baseline' && !['--unit', '--sample'].includes(arg) && !['--unit', '--sample'].includes(argv[i - 1]));
const names = args.length ? args : CORE;
const files = names.map((name) => `pkg-template/src/${name.replace(/\.ts$/, '')}.ts`);

const started = Date.now();
const stryker = join(here, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
const run = spawnSync(process.execPath, [stryker, 'run', relative(root, join(here, 'stryker.config.mjs'))], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    MUTATE: files.join(','),
    BASELINE: baseline ? '1' : '',
    UNIT: unit,
    SAMPLE: String(sample),
    SANDBOX_NODE_MODULES: realpathSync(join(root, 'node_modules')),
  },
});
const seconds = (Date.now() - started) / 1000;
if (run.status !== 0) process.exit(run.status ?? 1);

// Kept per run as reports/<files>[.baseline].json (recheck.mjs --report reads one).
const stem = names.map((name) => name.replace(/\.ts$/, '').replaceAll('/', '_')).join('+');
const kept = join(here, 'reports', `${stem}${baseline ? '.baseline' : ''}${sample > 1 ? `.sample${sample}` : ''}.json`);
copyFileSync(join(here, 'reports', 'mutation.json'), kept);
console.log(`report: ${relative(root, kept)}`);
const report = JSON.parse(readFileSync(kept, 'utf8'));
const rows = [];
let survivors = [];
const total = { file: 'all', mutants: 0, Killed: 0, Survived: 0, Timeout: 0, NoCoverage: 0, errors: 0 };
for (const [file, { mutants }] of Object.entries(report.files)) {
  const sampled = mutants.filter((m) => Number(m.id) % sample === 0);
  const row = { file: file.replace('pkg-template/src/', ''), mutants: sampled.length, Killed: 0, Survived: 0, Timeout: 0, NoCoverage: 0, errors: 0 };
  for (const m of sampled) {
    if (m.status in row) row[m.status]++;
    else if (m.status !== 'Ignored') row.errors++;
    if (m.status === 'Survived' || m.status === 'NoCoverage') {
      survivors.push(`#${m.id} ${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} -> ${JSON.stringify(m.replacement ?? '')}`);
    }
  }
  rows.push(row);
  for (const key of Object.keys(row)) if (key !== 'file') total[key] += row[key];
}
rows.push(total);
// The score as Stryker counts it: (killed + timed out) / (all but compile and runtime errors).
const score = (r) => (r.mutants - r.errors ? (100 * (r.Killed + r.Timeout)) / (r.mutants - r.errors) : 100);
if (sample > 1) console.log(`\na sample: the mutants whose id is a multiple of ${sample}`);
console.log('\nfile                    mutants  killed  survived  timeout  no-cov  errors   score');
for (const r of rows) {
  console.log(
    `${r.file.padEnd(23)} ${String(r.mutants).padStart(7)} ${String(r.Killed).padStart(7)} ${String(r.Survived).padStart(9)}` +
      ` ${String(r.Timeout).padStart(8)} ${String(r.NoCoverage).padStart(7)} ${String(r.errors).padStart(7)} ${score(r).toFixed(1).padStart(6)} %`,
  );
}
console.log(`\n${total.mutants} mutants in ${seconds.toFixed(0)} s (${(seconds / Math.max(1, total.mutants)).toFixed(1)} s a mutant, wall clock)`);
console.log(`survivors (${survivors.length}):`);
for (const line of survivors) console.log(`  ${line}`);
