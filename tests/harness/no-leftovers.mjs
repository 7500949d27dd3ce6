// Checks that no process the harness started is still running.
//
//   node tests/harness/no-leftovers.mjs            exit 1 and list them when any is left
//   node tests/harness/no-leftovers.mjs --kill     also stop them (SIGTERM to each one's group, then SIGKILL)
//   node tests/harness/no-leftovers.mjs --prune    drop the entries of processes that are gone
//
// stack.mjs appends one JSON line per spawned child to tests/artifacts/harness-pids.jsonl. A PID
// counts as left over when it is alive and still the process that was spawned: same start time
// (/proc/<pid>/stat, field 22) as recorded, so a reused PID of another program is not ours. Without
// /proc, a signal-0 probe decides.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pidFile = path.join(here, '..', 'artifacts', 'harness-pids.jsonl');

function readEntries() {
  let text;
  try {
    text = fs.readFileSync(pidFile, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        return null;
      }
    })
    .filter((entry) => entry && entry.event === 'spawn');
}

function statFields(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the fields after "(comm)": state is field 3, starttime field 22
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The start time of `pid` in clock ticks since boot (Linux), or null. */
export function processStartTime(pid) {
  const fields = statFields(pid);
  return fields ? fields[19] : null;
}

/** Whether the process of a spawn entry is still running. */
export function isAlive(entry) {
  if (fs.existsSync('/proc/self/stat')) {
    const fields = statFields(entry.pid);
    if (fields === null || fields[0] === 'Z' || fields[0] === 'X') return false;
    return entry.start == null || fields[19] === entry.start;
  }
  try {
    process.kill(entry.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The spawn entries whose process is still running; `owner` limits them to the children of one
 * harness process (its PID), `pids` to the given PIDs.
 */
export function findLeftovers({ owner, pids } = {}) {
  return readEntries().filter(
    (entry) => (owner === undefined || entry.owner === owner) && (pids === undefined || pids.includes(entry.pid)) && isAlive(entry),
  );
}

/** Stops the given leftovers: SIGTERM to each one's process group, SIGKILL after `graceMs`. */
export async function killLeftovers(entries, graceMs = 3000) {
  const send = (pid, signal) => {
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        process.kill(pid, signal);
      } catch {
        /* gone */
      }
    }
  };
  for (const entry of entries) send(entry.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && entries.some(isAlive)) await new Promise((resolve) => setTimeout(resolve, 100));
  for (const entry of entries.filter(isAlive)) send(entry.pid, 'SIGKILL');
}

/** Rewrites the PID file without the entries of processes that are gone. */
export function pruneEntries() {
  const keep = readEntries().filter(isAlive);
  if (fs.existsSync(pidFile)) fs.writeFileSync(pidFile, keep.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
  return keep.length;
}

const isMain = process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isMain) {
  const args = new Set(process.argv.slice(2));
  let left = findLeftovers();
  if (left.length && args.has('--kill')) {
    await killLeftovers(left);
    left = findLeftovers();
  }
  if (args.has('--prune')) pruneEntries();
  if (left.length) {
    console.error(`${left.length} harness process(es) still running:`);
    for (const entry of left) console.error(`  pid ${entry.pid} ${entry.name} (owner ${entry.owner}): ${entry.cmdline}`);
    process.exit(1);
  }
  console.log('no harness process left');
}
