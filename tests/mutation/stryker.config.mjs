// StrykerJS over the facade's TypeScript sources, run from the repository's root by run.mjs.
//
// Mutation switching makes this cheap: Stryker writes every mutant of a file into one instrumented
// copy of it (each behind a check of the active mutant's id), so the sandbox is compiled and
// bundled ONCE (buildCommand: tsc + scripts/bundle.mjs into the sandbox's pkg/), and each mutant
// costs one run of the unit suite with __STRYKER_ACTIVE_MUTANT__ set. Mutants are reported
// against the .ts lines, not the bundle's.
//
// The file list comes from run.mjs (MUTATE, comma-separated paths under pkg-template/src).
const files = (process.env.MUTATE ?? 'pkg-template/src/runtime.ts').split(',').filter(Boolean);
const concurrency = Number(process.env.CONCURRENCY ?? 2);
// BASELINE=1 (run.mjs --baseline): the suite without the tests written for its survivors
// (tests/unit/mutation-*.test.mjs), to measure what the rest of the suite kills.
const baseline = Boolean(process.env.BASELINE);

export default {
  // The facade's sources are compiled and bundled in the sandbox, once, after instrumentation.
  mutate: files,
  buildCommand: 'node tests/mutation/build-sandbox.mjs',
  testRunner: 'command',
  commandRunner: { command: 'node tests/mutation/unit-bail.mjs' },
  // The command runner cannot say which test covers which mutant: every mutant runs the suite
  // (unit-bail.mjs stops it at the first failing file).
  coverageAnalysis: 'off',
  // Only what the build and the unit suite read is copied into each sandbox.
  ignorePatterns: [
    '/*',
    '!/package.json',
    '!/pkg',
    '!/pkg-template',
    '!/scripts',
    '!/tests',
    '/tests/*',
    '!/tests/unit',
    '!/tests/mutation',
    '/tests/mutation/*',
    '!/tests/mutation/build-sandbox.mjs',
    '!/tests/mutation/unit-bail.mjs',
    ...(baseline ? ['/tests/unit/mutation-*.test.mjs'] : []),
  ],
  disableTypeChecks: 'pkg-template/src/**/*.ts',
  // The machine is shared: two sandboxes at most.
  concurrency,
  // The suite takes ~4-7 s here; a mutant that loops (or leaves a timer the fake clock never
  // fires, so node --test hangs) is cut at 1.5x the dry run + 25 s: the machine is shared, and under
  // load a surviving mutant's run has taken 3x the dry run's time.
  timeoutMS: 25_000,
  timeoutFactor: 1.5,
  tempDirName: 'tests/mutation/.stryker-tmp',
  // Kept for recheck.mjs, which runs the survivors again against new tests (the newest sandbox is the one it takes).
  cleanTempDir: false,
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  jsonReporter: { fileName: 'tests/mutation/reports/mutation.json' },
  htmlReporter: { fileName: 'tests/mutation/reports/mutation.html' },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  thresholds: { high: 80, low: 60, break: null },
  logLevel: 'info',
  fileLogLevel: 'off',
  allowEmpty: false,
};
