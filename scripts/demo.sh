#!/usr/bin/env bash
# The demo page: installs what is missing, builds the package, then starts the real backend behind
# the fault proxy and serves www/ (built with Vite) on http://127.0.0.1:8700/ until Ctrl-C.
#   bash scripts/demo.sh [--port N] [--redis] [--processes N]      (PORT=N also works; 0 = a free port)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/build.sh
exec node www/serve.mjs "$@"
