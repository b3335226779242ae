#!/usr/bin/env bash
# The app part of the scale benchmark (called by scripts/bench-scale.py with APP=1; runs alone too):
# launch → top level on screen on FILE against the 20k-people sample (e2e/bench/launch.mjs, RUNS
# launches each, interleaved), then the scripted exploration (e2e/bench/scale.e2e.mjs through
# WebdriverIO, EXPLORE_S seconds). Every app run holds /work/wt/e2e.lock (or $E2E_LOCK): the
# WebDriver ports and the X display are shared. The exploration runs on the 20k-people sample too,
# as the floor its times are read against. Writes OUT (JSON).
# Usage: scripts/bench-scale-app.sh FILE.rete OUT.json   env: RETE_APP (default: the release app,
# built with `npm run tauri -- build --no-bundle`), RUNS (3), EXPLORE_S (300), RETE_SCALE_PEOPLE.
set -euo pipefail
cd "$(dirname "$0")/.."
file=$(realpath "$1")
out=$2
lock=${E2E_LOCK:-/work/wt/e2e.lock}
runs=${RUNS:-3}
small=$(realpath samples/social-20k.rete)
app=$(scripts/release-app.sh)
if [ -z "${RETE_SCALE_PEOPLE:-}" ]; then
  # The people of a social file, for the exploration's random subjects.
  RETE_SCALE_PEOPLE=$(target/release/rete sparql "$file" 'SELECT (COUNT(*) AS ?n) WHERE { ?s a foaf:Person }' --format tsv | tail -n1 | sed 's/"//g; s/\^\^.*//')
fi
export RETE_SCALE_PEOPLE
tmp=$(mktemp -d)
for _ in $(seq "$runs"); do
  flock "$lock" node e2e/bench/launch.mjs "$app" "$file" 1 >>"$tmp/big.jsonl"
  flock "$lock" node e2e/bench/launch.mjs "$app" "$small" 1 >>"$tmp/small.jsonl"
done
# The memory floor of a WebKit page on this host: the app's start page (no file) and WebKitGTK's
# MiniBrowser on a static page, each process with its WebKit processes (e2e/bench/floor.mjs).
flock "$lock" node e2e/bench/floor.mjs "$app" "$runs" >"$tmp/webkit.jsonl"
# The same exploration on the 20k-people sample, in the same run: the floor. There is no GPU
# here, and every step ends with frames composited in software GL, so a time means something next
# to the same step on the small file (the question the issue asks: as smooth as the sample?).
RETE_APP="$app" RETE_SCALE_FILE="$file" RETE_SCALE_OUT="$tmp/explore.json" \
  flock "$lock" npx wdio run e2e/bench/scale.conf.mjs
RETE_APP="$app" RETE_SCALE_FILE="$small" RETE_SCALE_OUT="$tmp/floor.json" RETE_SCALE_PEOPLE=20000 \
  flock "$lock" npx wdio run e2e/bench/scale.conf.mjs
python3 scripts/bench-scale-app.py "$tmp" "$out" "$app"
rm -rf "$tmp"
