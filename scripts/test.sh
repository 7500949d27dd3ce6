#!/usr/bin/env bash
# The whole test suite, from a clean clone: installs what is missing (scripts/install.sh), builds the
# package, then runs every runner. Every server a test needs is started and stopped by the tests
# themselves (127.0.0.1, free ports, stopped by PID); the last step checks that none is left.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
step() { printf '\n==== %s\n' "$*"; }

bash scripts/install.sh

step "the import graph: no circle, each folder of the facade within its rules, floors of value imports (and the largest source file)"
node scripts/imports.mjs

step "cargo test: the pure Rust core, the muxws protocol, the wasm modules' record codes (native, virtual clock)"
cargo test

step "build the npm package into pkg/ (and the sizes an app ships, against the budget)"
bash scripts/build.sh

step "types: the seed's TypeScript and 0.6-style application code under tsc --strict against the package's .d.ts (TypeScript 5.9, and 5.0, the oldest the package supports)"
for tsc_bin in tsc tests/types/oldest/node_modules/.bin/tsc; do
  "$tsc_bin" -p tests/types/tsconfig.json
  "$tsc_bin" -p tests/types/compat/tsconfig.json
  echo "types: ok with TypeScript $("$tsc_bin" -v | cut -d' ' -f2)"
done
# The packed tarball as npm installs it, in a fresh app: skipLibCheck false, strict,
# exactOptionalPropertyTypes, noUncheckedIndexedAccess; TypeScript 5.0, 5.9 and the newest 6.x
node tests/types/packed.mjs
# The package's objects in Vue state (@vue/reactivity's types need TypeScript 5.1 or later)
tsc -p tests/types/vue/tsconfig.json
echo "types: ok in Vue state"
# The demo's TypeScript, as the README shows the package used
tsc -p www/tsconfig.json
echo "types: ok in the demo"

step "Node: the facade's unit tests (fake fetch, WebSocket and clock; no backend)"
node --test tests/unit/

step "Node 20: harness self-test and end to end against the real backend"
node --experimental-websocket --no-warnings=ExperimentalWarning --test tests/harness/ tests/e2e/

step "Chromium (headless, playwright-core): end to end against the real backend"
node --test tests/browser/

step "Node 20: volume under faults (2 000 calls per transport), leaks, bad arguments"
node --experimental-websocket --no-warnings=ExperimentalWarning --test tests/chaos/

step "no process left behind"
node tests/harness/no-leftovers.mjs
