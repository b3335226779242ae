#!/usr/bin/env bash
# Prints the path of the release app the app benchmarks run: $RETE_APP when set, else the app
# built here (`npm run tauri -- build --no-bundle`, into $CARGO_TARGET_DIR or target/).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${RETE_APP:-}" ]; then
  realpath "$RETE_APP"
  exit
fi
npm run -s tauri -- build --no-bundle >/dev/null
realpath "${CARGO_TARGET_DIR:-target}/release/rete-desktop"
