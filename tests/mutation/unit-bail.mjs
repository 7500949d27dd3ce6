// The test command of each mutant: the unit suite's files one at a time (each in its own process,
// as `node --test tests/unit/` runs them on this machine), stopping at the first file that fails.
// A killed mutant then costs one or two files instead of the whole suite; a survivor runs all of
// them. The files that exercise the runtime most come first; any other file follows in name order.
// UNIT=a,b (run.mjs --unit): only the files whose names start with a or b. SAMPLE=N (run.mjs
// --sample): a mutant whose id is not a multiple of N is not in the sample and is not tested (it
// passes at once; run.mjs leaves it out of the counts). FOLLOW_CASES defaults to 100 here, FOLLOW_SEED to 1:
// the property test's run per mutant is short and the same for every mutant.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const active = process.env.__STRYKER_ACTIVE_MUTANT__;
const sample = Number(process.env.SAMPLE ?? 1) || 1;
if (active !== undefined && active !== '' && Number(active) % sample !== 0) process.exit(0);
const only = (process.env.UNIT ?? '').split(',').filter(Boolean);
const env = { ...process.env, FOLLOW_CASES: process.env.FOLLOW_CASES ?? '100', FOLLOW_SEED: process.env.FOLLOW_SEED ?? '1' };

const FIRST = ['mutation', 'follow-push', 'follow-hostile', 'repeats', 'outcomes', 'keys', 'cancel', 'activity', 'offline', 'proxies', 'axios', 'muxws', 'fakes'];
const rank = (file) => {
  const at = FIRST.findIndex((name) => file.startsWith(name));
  return at < 0 ? FIRST.length : at;
};
const files = readdirSync('tests/unit')
  .filter((file) => file.endsWith('.test.mjs'))
  .filter((file) => !only.length || only.some((name) => file.startsWith(name)))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
for (const file of files) {
  const run = spawnSync(process.execPath, ['--test', `tests/unit/${file}`], { stdio: 'inherit', env });
  if (run.status !== 0) {
    console.error(`unit-bail: ${file} failed (${run.status ?? run.signal})`);
    process.exit(1);
  }
}
