#!/usr/bin/env bash
# Builds the npm package @dynamicforms/fastapi-viewsets into pkg/:
#   cargo (wasm32, size profile) -> wasm-bindgen --target web -> wasm-opt -Oz (binaryen 132 from npm)
#   -> the TS facade (pkg-template/src, compiled by tsc) -> package.json from pkg-template.
# The facade instantiates the module on import (top-level await): no init step for the caller.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

# Everything is assembled in a staging folder and swapped into pkg/ at the end, so a test that
# imports pkg/ while a build runs sees the old package or the new one, never half of either.
out=target/pkg-staging
work=target/pkg-work
rm -rf "$out" "$work"
mkdir -p "$out/wasm" "$work"

cargo build --release --target wasm32-unknown-unknown --lib
wasm-bindgen --target web --out-dir "$work" --out-name fastapi_viewsets \
  target/wasm32-unknown-unknown/release/fastapi_viewsets.wasm
# Never Debian's wasm-opt (108 breaks the externref table): the npm one is first on PATH.
wasm-opt -Oz --converge --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue \
  "$work/fastapi_viewsets_bg.wasm" -o "$work/fastapi_viewsets_bg.opt.wasm"

# The facade imports ./wasm/*: the generated glue goes next to its sources for tsc, then into pkg/.
gen=pkg-template/src/wasm
rm -rf "$gen" && mkdir -p "$gen"
cp "$work/fastapi_viewsets.js" "$gen/"
# wasm-bindgen declares `[Symbol.dispose]()` on exported classes, which needs lib esnext.disposable:
# a consumer on an ES2022 lib with skipLibCheck off would fail to compile, so the line goes.
grep -v 'Symbol.dispose' "$work/fastapi_viewsets.d.ts" > "$gen/fastapi_viewsets.d.ts"
tsc -p pkg-template/tsconfig.json --outDir "$out"
cp "$gen"/* "$out/wasm/"
cp "$work/fastapi_viewsets_bg.opt.wasm" "$out/wasm/fastapi_viewsets_bg.wasm"
node scripts/package-json.mjs pkg-template/package.json Cargo.toml "$out/package.json"
cp README.md "$out/README.md" 2>/dev/null || true

rm -rf pkg.old && { [ ! -e pkg ] || mv pkg pkg.old; } && mv "$out" pkg && rm -rf pkg.old
node scripts/size.mjs pkg
