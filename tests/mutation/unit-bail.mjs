// The test command of each mutant: the unit suite's files one at a time (each in its own process,
// as `node --test tests/unit/` runs them on this machine), stopping at the first file that fails.
// A killed mutant then costs one or two files instead of the whole suite; a survivor runs all of
// them. The files that exercise the runtime most come first; any other file follows in name order.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const FIRST = ['mutation', 'repeats', 'outcomes', 'keys', 'cancel', 'activity', 'offline', 'proxies', 'axios', 'muxws', 'fakes'];
const rank = (file) => {
  const at = FIRST.findIndex((name) => file.startsWith(name));
  return at < 0 ? FIRST.length : at;
};
const files = readdirSync('tests/unit')
  .filter((file) => file.endsWith('.test.mjs'))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
for (const file of files) {
  const run = spawnSync(process.execPath, ['--test', `tests/unit/${file}`], { stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(`unit-bail: ${file} failed (${run.status ?? run.signal})`);
    process.exit(1);
  }
}
