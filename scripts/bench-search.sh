#!/usr/bin/env bash
# Label search benchmark (issue 47): rete's index against SQLite FTS5 on the same labels, per
# typeahead query (every keystroke of 100 labels), warm, p50/p99, index sizes, build time and
# peak RSS with and without the index, and the requests and bytes of each keystroke over HTTP
# (scripts/range-server.py on 127.0.0.1, one long-lived reader), and upstream rete-graph's
# prefix_search and text_search on the same queries (scripts/bench-search-upstream.py). Writes
# docs/benchmark-search.json; the table in docs/BENCHMARK.md is copied from it by hand.
# Usage: scripts/bench-search.sh [PEOPLE]   (social graph size, default 200000)
# Datasets: the social graph, samples/vocabularies.nq, npm @zazuko/rdf-vocabularies 2023.1.19
# (fetched with `npm pack`), and LUBM when asked for.
# env: LUBM=N adds a LUBM(N) row (N-Triples from rete-bench's lubm-nt example).
set -euo pipefail
cd "$(dirname "$0")/.."
people="${1:-200000}"
work="$(mktemp -d)"
server=""
trap 'if [ -n "$server" ]; then kill "$server"; fi; rm -rf "$work"' EXIT
cargo build --release -q -p rete-cli
cargo build --release -q -p rete-search --example search_bench
target="${CARGO_TARGET_DIR:-target}/release"
rete="$target/rete"
results=()
python3 scripts/range-server.py "$work" "$work/server.log" 0 > "$work/port" &
server=$!
while [ ! -s "$work/port" ]; do sleep 0.1; done
url="http://127.0.0.1:$(cat "$work/port")"
run() { # name, input…
    local name="$1"
    shift
    /usr/bin/time -f '%e %M' -o "$work/$name-plain.time" \
        "$rete" build -q --no-search "$@" -o "$work/$name-plain.rete"
    /usr/bin/time -f '%e %M' -o "$work/$name.time" \
        "$rete" build -q "$@" -o "$work/$name.rete"
    "$target/examples/search_bench" "$work/$name.rete" "$work/$name.tsv" "$work/$name.q" \
        "$work/$name-rete.json" "$url/$name.rete" >/dev/null
    python3 scripts/bench-search.py "$work/$name.tsv" "$work/$name.q" "$work/$name-fts.json" >/dev/null
    python3 scripts/bench-search-upstream.py "$rete" "$work/$name.rete" "$work/$name.tsv" \
        "$work/$name-rete-hits.tsv" "$work/$name-upstream.json" >/dev/null
    python3 - "$name" "$work" "$(stat -c %s "$work/$name-plain.rete")" <<'PY' > "$work/$name.json"
import json, sys
name, work, plain = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = json.load(open(f"{work}/{name}-rete.json"))
f = json.load(open(f"{work}/{name}-fts.json"))
u = json.load(open(f"{work}/{name}-upstream.json"))
r["file"] = name
r["file_without_index_bytes"] = plain
for key, path in (("build", f"{work}/{name}.time"), ("build_without_index", f"{work}/{name}-plain.time")):
    secs, kib = open(path).read().split()
    r[key] = {"seconds": float(secs), "peak_rss_bytes": int(kib) * 1024}
print(json.dumps({"dataset": name, "rete": r, "fts5": f, "upstream": u}, ensure_ascii=False))
PY
    results+=("$work/$name.json")
    rm -f "$work/$name-plain.rete"
}
"$rete" generate social --people "$people" -o "$work/social.nt"
run "social-$people" "$work/social.nt"
run vocabularies samples/vocabularies.nq
# Real multilingual labels: the 84 vocabularies of npm @zazuko/rdf-vocabularies (195 350 quads).
(cd "$work" && npm pack -q @zazuko/rdf-vocabularies@2023.1.19 >/dev/null && tar xzf zazuko-*.tgz)
run zazuko-vocabularies "$work"/package/ontologies/*.nq
if [ -n "${LUBM:-}" ]; then
    cargo run --release -q -p rete-bench --example lubm-nt -- "$LUBM" > "$work/lubm.nt"
    run "lubm-$LUBM" "$work/lubm.nt"
fi
python3 - "${results[@]}" <<'PY' > docs/benchmark-search.json
import json, sys
print(json.dumps([json.load(open(p)) for p in sys.argv[1:]], indent=2, ensure_ascii=False))
PY
python3 - <<'PY'
import json
for d in json.load(open("docs/benchmark-search.json")):
    r, f = d["rete"], d["fts5"]
    m = r["remote"]
    b, p = r["build"], r["build_without_index"]
    print(f'{d["dataset"]}: rete p50 {r["p50_ms"]:.3f} p99 {r["p99_ms"]:.3f} ms, first {r["first_query_ms"]:.1f} ms, index {r["index_bytes"]} B ({100*r["index_bytes"]/r["file_without_index_bytes"]:.1f} % of the file without it); FTS5 p50 {f["p50_ms"]:.3f} p99 {f["p99_ms"]:.3f} ms, {f["index_bytes"]} B; build {b["seconds"]} s vs {p["seconds"]} s, peak RSS {b["peak_rss_bytes"]>>20} vs {p["peak_rss_bytes"]>>20} MiB; remote first search {m["first_search_requests"]} requests, keystrokes max {m["keystroke_requests_max"]} requests / {m["keystroke_bytes_max"]} B')
    u = d["upstream"]
    print(f'  upstream rete-graph: prefix_search p50 {u["prefix_search"]["p50_ms"]:.4f} p99 {u["prefix_search"]["p99_ms"]:.4f} ms, text_search p50 {u["text_search"]["p50_ms"]:.4f} p99 {u["text_search"]["p99_ms"]:.4f} ms, text index {u["text_index_bytes"]} B; typed-from label in the top 10 (every keystroke / complete words; the term itself): ours {u["ours_found_label"]} / {u["ours_found_label_complete"]} ({u["ours_found_source"]} / {u["ours_found_source_complete"]}), prefix_search {u["prefix_search"]["found_label"]} / {u["prefix_search"]["found_label_complete"]} ({u["prefix_search"]["found_source"]} / {u["prefix_search"]["found_source_complete"]}), text_search {u["text_search"]["found_label"]} / {u["text_search"]["found_label_complete"]} ({u["text_search"]["found_source"]} / {u["text_search"]["found_source_complete"]}) of {u["queries"]} / {u["complete_queries"]}; as named graphs {u["named_graphs_answered"]} answered')
PY
