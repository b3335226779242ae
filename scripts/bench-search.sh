#!/usr/bin/env bash
# Label search benchmark (issue 47): rete's index against SQLite FTS5 on the same labels, per
# typeahead query (every keystroke of 100 labels), warm, p50/p99, and index sizes. Writes
# docs/benchmark-search.json; the table in docs/BENCHMARK.md is copied from it by hand.
# Usage: scripts/bench-search.sh [PEOPLE]   (social graph size, default 200000)
set -euo pipefail
cd "$(dirname "$0")/.."
people="${1:-200000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cargo build --release -q -p rete-cli
cargo build --release -q -p rete-search --example search_bench
target="${CARGO_TARGET_DIR:-target}/release"
rete="$target/rete"
results=()
run() { # name, input
    local name="$1" input="$2"
    local t0 t1
    "$rete" build -q --no-search "$input" -o "$work/$name-plain.rete"
    t0=$(date +%s.%N)
    "$rete" build -q "$input" -o "$work/$name.rete"
    t1=$(date +%s.%N)
    "$target/examples/search_bench" "$work/$name.rete" "$work/$name.tsv" "$work/$name.q" "$work/$name-rete.json" >/dev/null
    python3 scripts/bench-search.py "$work/$name.tsv" "$work/$name.q" "$work/$name-fts.json" >/dev/null
    python3 - "$name" "$work" "$(stat -c %s "$work/$name-plain.rete")" <<'PY' > "$work/$name.json"
import json, sys
name, work, plain = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = json.load(open(f"{work}/{name}-rete.json"))
f = json.load(open(f"{work}/{name}-fts.json"))
r["file"] = name
r["file_without_index_bytes"] = plain
print(json.dumps({"dataset": name, "rete": r, "fts5": f}, ensure_ascii=False))
PY
    results+=("$work/$name.json")
}
"$rete" generate social --people "$people" -o "$work/social.nt"
run "social-$people" "$work/social.nt"
run vocabularies samples/vocabularies.nq
python3 - "${results[@]}" <<'PY' > docs/benchmark-search.json
import json, sys
print(json.dumps([json.load(open(p)) for p in sys.argv[1:]], indent=2, ensure_ascii=False))
PY
python3 - <<'PY'
import json
for d in json.load(open("docs/benchmark-search.json")):
    r, f = d["rete"], d["fts5"]
    print(f'{d["dataset"]}: rete p50 {r["p50_ms"]:.3f} p99 {r["p99_ms"]:.3f} ms, first {r["first_query_ms"]:.1f} ms, index {r["index_bytes"]} B ({100*r["index_bytes"]/r["file_without_index_bytes"]:.1f} % of the file without it); FTS5 p50 {f["p50_ms"]:.3f} p99 {f["p99_ms"]:.3f} ms, {f["index_bytes"]} B')
PY
