#!/usr/bin/env bash
# Builds the npm package @dynamicforms/fastapi-viewsets into pkg/:
#   the calls module with wasm-pack (cargo, size profile; the installed wasm-bindgen, nothing
#   downloaded: --mode no-install, wasm-pack's own wasm-opt off), the muxws module with cargo alone
#   (it has no wasm-bindgen glue: its driver instantiates it) -> wasm-opt -Oz (binaryen 132 from
#   npm) -> the calls module's bytes into a JS module (scripts/inline-wasm.mjs) -> the TS facade (pkg-template/src, compiled by tsc, bundled by scripts/bundle.mjs into
#   index.js and a chunk per dynamic import) -> package.json from pkg-template;
#   then the sizes an app ships, measured with a bundler (scripts/size.mjs), against the budget.
# The calls module is instantiated on import (synchronously), from the bytes the package's module
# carries; the muxws module, a file of its own, only by connectMuxws().
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

# Everything is assembled in a staging folder and swapped into pkg/ at the end, so a test that
# imports pkg/ while a build runs sees the old package or the new one, never half of either.
out=target/pkg-staging
work=target/pkg-work
rm -rf "$out" "$work"
mkdir -p "$out/wasm" "$work"
gen=pkg-template/src/wasm
rm -rf "$gen" && mkdir -p "$gen"

# optimize <input .wasm> <output name>: wasm-opt into pkg/wasm/<name>_bg.wasm. Never Debian's wasm-opt
# (108 breaks the externref table): the npm one is first on PATH. --low-memory-unused: rustc puts
# the stack first, below the data at 1 MiB, so the low 1 KiB is touched only by a stack 1 MiB
# deep; --zero-filled-memory: each module defines its own memory, zeroed when instantiated. Both
# make the modules smaller; -O3/-O4/-Os measured no smaller than -Oz. --reorder-functions last: the
# most called functions get the lowest indices, so their calls are shorter (muxws module 200 B less
# gzip -9, the calls module's 10 B). Any further passes for one module come as arguments 3 on.
optimize() {
  wasm-opt -Oz --converge "${@:3}" --reorder-functions --low-memory-unused --zero-filled-memory --strip-debug --strip-producers --strip-target-features --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$1" -o "$out/wasm/$2_bg.wasm"
}

# build_calls_wasm: the calls module, built by wasm-pack (wasm-bindgen processes it), optimized, and
# written as a JS module of its bytes (scripts/inline-wasm.mjs says why and how) that calls.ts imports.
# wasm-bindgen's JS glue is not used: every export is a plain function of numbers, and calls.ts
# instantiates the module itself. The .wasm is kept out of the package, in target/wasm/, for the
# benchmark's figures.
build_calls_wasm() {
  wasm-pack --quiet build . --release --target web --mode no-install --no-pack --no-opt \
    --out-dir "$PWD/$work/calls" --out-name calls -- --package fastapi-viewsets
  # wasm-bindgen's own exports (its start function, which fills the externref table through its one
  # import, that table, the globals of its abort handling) serve its JS glue, which the facade does
  # not use (calls.ts instantiates the module with no imports): they go, with all only they reach;
  # every other export stays (162 B smaller before gzip).
  node -e 'const names = WebAssembly.Module.exports(new WebAssembly.Module(require("fs").readFileSync(process.argv[1]))).map((e) => e.name).filter((name) => !name.startsWith("__"));
    console.log(JSON.stringify([{ name: "root", root: true, reaches: names }, ...names.map((name) => ({ name, export: name }))]))' \
    "$work/calls/calls_bg.wasm" > "$work/calls/keep.json"
  wasm-metadce --all-features --graph-file "$work/calls/keep.json" "$work/calls/calls_bg.wasm" -o "$work/calls/calls_kept.wasm" > /dev/null
  optimize "$work/calls/calls_kept.wasm" calls --flatten --rereloop -Oz -Oz
  node scripts/inline-wasm.mjs "$out/wasm/calls_bg.wasm" "$gen/calls-bytes.js"
  mkdir -p "${CARGO_TARGET_DIR:-target}/wasm" && mv "$out/wasm/calls_bg.wasm" "${CARGO_TARGET_DIR:-target}/wasm/calls_bg.wasm"
}

# build_plain_wasm <crate folder> <output name> [passes]: a module of plain exports and imports, no glue;
# its driver instantiates it (the muxws module: crates/muxws-wasm/src/exports.rs).
build_plain_wasm() {
  local crate=$1 name=$2
  cargo build --quiet --release --target wasm32-unknown-unknown --manifest-path "crates/$crate/Cargo.toml"
  optimize "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/${crate//-/_}.wasm" "$name" "${@:3}"
}

build_calls_wasm
# The muxws module's control flow flattened and rebuilt by binaryen's relooper, then -Oz again twice
# (measured: 140 B less gzip -9 than -Oz alone; a second flatten, or --converge after it, more; the
# calls module is optimized the same way)
build_plain_wasm muxws-wasm muxws --flatten --rereloop -Oz -Oz

tsc -p pkg-template/tsconfig.json --outDir "$work/tsc"
mkdir -p "$work/tsc/wasm" && cp "$gen"/*.js "$work/tsc/wasm/"
node scripts/bundle.mjs "$work/tsc" "$out"
# The declarations stay one file per module, as tsc wrote them (index.d.ts re-exports the others);
# the calls module's bytes (wasm/calls-bytes.js) are inside index.js and no declaration names them.
(cd "$work/tsc" && find . -name '*.d.ts') | while read -r file; do
  mkdir -p "$out/$(dirname "$file")" && cp "$work/tsc/$file" "$out/$file"
done
node scripts/package-json.mjs pkg-template/package.json Cargo.toml "$out/package.json"
cp README.md "$out/README.md" 2>/dev/null || true

rm -rf pkg.old && { [ ! -e pkg ] || mv pkg pkg.old; } && mv "$out" pkg && rm -rf pkg.old
node scripts/size.mjs pkg
# the devtools subpath: a production build of an app that imports it is the same bytes as without it
env -u NODE_ENV node scripts/size-devtools.mjs pkg
