#!/usr/bin/env bash
# The search benchmark's app part (issue 47): in the real app (WebKit under Xvfb), every keystroke
# of QUERIES typed into the search box on FILE and on the 20k-people sample (the floor: a small
# file in the same run), each timed from its input event to its hits drawn next to the page's
# frame floor (both started just after the page has drawn a frame), then whole labels chosen
# (the map descends to the entity) next to a details click (e2e/bench/search.e2e.mjs). QUERIES as `search_bench` writes them (scripts/bench-search.sh).
# Writes OUT (JSON: both runs and their summaries); the table in docs/BENCHMARK.md is copied from
# it by hand.
# Usage: scripts/bench-search-app.sh FILE.rete QUERIES.txt OUT.json
# env: RETE_APP (default: the release app, built with `npm run tauri -- build --no-bundle`),
# RETE_SEARCH_KEYS (400), RETE_SEARCH_CHOOSE (10), RETE_SEARCH_START (`frame`; `any`: each
# keystroke and floor started whenever WebDriver's call arrives, as before 2026-12-06), E2E_LOCK.
set -euo pipefail
cd "$(dirname "$0")/.."
file=$(realpath "$1")
queries=$(realpath "$2")
out=$3
lock=${E2E_LOCK:-/work/wt/e2e.lock}
small=$(realpath samples/social-20k.rete)
app=$(scripts/release-app.sh)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The sample's own keystrokes (its labels differ from the big file's), as search_bench writes them.
cargo build --release -q -p rete-search --example search_bench
"${CARGO_TARGET_DIR:-target}/release/examples/search_bench" "$small" "$tmp/small.tsv" "$tmp/small.q" "$tmp/small-engine.json" >/dev/null
for which in big small; do
  f=$file; q=$queries
  if [ "$which" = small ]; then f=$small; q=$tmp/small.q; fi
  RETE_APP="$app" RETE_SCALE_FILE="$f" RETE_SCALE_OUT="$tmp/$which.json" RETE_SCALE_SPEC=search.e2e.mjs \
    RETE_SEARCH_QUERIES="$q" flock "$lock" npx wdio run e2e/bench/scale.conf.mjs
done
python3 - "$tmp" "$file" "$out" <<'PY'
import json, sys, pathlib
tmp, file, out = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
runs = {w: json.loads((tmp / f"{w}.json").read_text()) for w in ("big", "small")}
res = {"file": pathlib.Path(file).name, "floor_file": "samples/social-20k.rete",
       **{f"{w}_summary": r["summary"] for w, r in runs.items()}, "runs": runs}
pathlib.Path(out).write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
for w, r in runs.items():
    print(w, json.dumps(r["summary"]))
PY
