#!/usr/bin/env bash
# BSBM Explore benchmark: `rete serve` against Oxigraph's server (`oxigraph serve-read-only`) on
# the same `rete generate bsbm` data, over HTTP, in one run. For each size: generate N-Triples,
# build the .rete (release CLI) and load Oxigraph's store (both timed), start both servers, run
# `rete-bsbm` (correctness gate, then warm-up and timed mixes with 1 and 16 clients, the two
# servers taking turns), stop the servers. Writes docs/benchmark-bsbm.json and the BSBM section of
# docs/BENCHMARK.md.
# Rows of other sizes already in the JSON are kept, so a large size can be run on its own.
# Usage: scripts/bench-bsbm.sh [PRODUCTS...]   (default: 2785 27850, about 1 M and 10 M triples;
# 284826 is BSBM's 100 M scale)
# Environment: QUERY_MIX (tools: the BSBM tools' mix, no Q6 and Q5 twice, the default; with-q6:
# the earlier mix with Q6), MIXES (timed mixes, default 100), WARMUP (default 20), GATE (gate mixes, default 4),
# LONG_MIXES and LONG_WARMUP (then `rete serve` alone again with these: the seed's 500 and 500),
# THREADS (rete serve workers, default: cores), CACHE (rete serve --cache; default: its own), BENCH_DIR (scratch, default bench-data),
# RETE (a release `rete` binary to use instead of building one), ZST=1 (keep the N-Triples
# zstd-compressed: 100 M triples are 22 GB as text; Oxigraph loads them from a pipe),
# BUILD_FLAGS (more `rete build` options: 100 M uses --no-search, as SPARQL does not read the
# search index and its build needs more than the default 2 GiB there), REUSE=1 (keep a .rete and an Oxigraph store already built by an earlier run, with the times it
# recorded in build-N.ms and load-N.ms).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v oxigraph >/dev/null; then
  echo "needs Oxigraph's server binary: pip install oxigraph" >&2
  exit 1
fi
sizes=("$@")
[ $# -eq 0 ] && sizes=(2785 27850)
mixes=${MIXES:-100}
warmup=${WARMUP:-20}
gate=${GATE:-4}
threads=${THREADS:-$(nproc)}
query_mix=${QUERY_MIX:-tools}
work=${BENCH_DIR:-bench-data}/bsbm
mkdir -p "$work"
if [ -n "${RETE:-}" ]; then
  rete=$RETE # an already built `rete` (the one generating the data must match the committed generator)
else
  cargo build --release -q -p rete-cli
  rete=target/release/rete
fi
# The driver is a client: its own cost is the same for both servers (debug profile, optimised
# dependencies).
cargo build -q -p rete-bench --bin rete-bsbm
driver=target/debug/rete-bsbm
rete_port=17878
oxi_port=17879
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

wait_up() { # URL: wait until it answers a query (at most 10 minutes: Oxigraph opens its store)
  for _ in $(seq 1200); do
    if curl -sf -o /dev/null -H 'Content-Type: application/sparql-query' \
      --data 'ASK {}' "$1"; then return 0; fi
    sleep 0.5
  done
  echo "$1 did not come up" >&2
  return 1
}

rows=()
for n in "${sizes[@]}"; do
  if [ "${ZST:-0}" = 1 ]; then
    nt="$work/bsbm-$n.nt.zst"
    [ -f "$nt" ] || "$rete" generate bsbm --products "$n" | zstd -3 -q -o "$nt"
    read -r triples nt_bytes < <(zstd -dc "$nt" | wc -lc)
    nt_stream() { zstd -dc "$nt"; }
  else
    nt="$work/bsbm-$n.nt"
    [ -f "$nt" ] || "$rete" generate bsbm --products "$n" -o "$nt"
    triples=$(wc -l < "$nt")
    nt_bytes=$(stat -c %s "$nt")
    nt_stream() { cat "$nt"; }
  fi
  file="$work/bsbm-$n.rete"
  store="$work/oxigraph-$n"
  if [ "${REUSE:-0}" = 1 ] && [ -f "$file" ] && [ -f "$work/build-$n.ms" ]; then
    build_ms=$(cat "$work/build-$n.ms")
  else
    start=$(date +%s%N)
    # shellcheck disable=SC2086 # flags are words
    "$rete" build -q ${BUILD_FLAGS:-} "$nt" -o "$file"
    build_ms=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "$build_ms" > "$work/build-$n.ms"
  fi
  if [ "${REUSE:-0}" = 1 ] && [ -d "$store" ] && [ -f "$work/load-$n.ms" ]; then
    load_ms=$(cat "$work/load-$n.ms")
  else
    rm -rf "$store"
    start=$(date +%s%N)
    nt_stream | oxigraph load --location "$store" --format nt >/dev/null 2>&1
    load_ms=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "$load_ms" > "$work/load-$n.ms"
    rm -f "$work/optimize-$n.ms"
  fi
  if [ ! -f "$work/optimize-$n.ms" ]; then
    # What the loader recommends before a read-heavy workload (serve-read-only never compacts).
    start=$(date +%s%N)
    oxigraph optimize --location "$store" >/dev/null 2>&1
    echo $(( ($(date +%s%N) - start) / 1000000 )) > "$work/optimize-$n.ms"
  fi
  optimize_ms=$(cat "$work/optimize-$n.ms")

  cache_args=()
  [ -n "${CACHE:-}" ] && cache_args=(--cache "$CACHE")
  "$rete" serve "bsbm=$file" --bind "127.0.0.1:$rete_port" --threads "$threads" \
    "${cache_args[@]}" --queue 256 --timeout 300s >"$work/rete-serve.log" 2>&1 &
  pids+=($!); rete_pid=$!
  oxigraph serve-read-only --location "$store" --bind "127.0.0.1:$oxi_port" \
    >"$work/oxigraph-serve.log" 2>&1 &
  pids+=($!); oxi_pid=$!
  rete_url="http://127.0.0.1:$rete_port/bsbm/sparql"
  oxi_url="http://127.0.0.1:$oxi_port/query"
  wait_up "$rete_url"
  wait_up "$oxi_url"
  run="$work/run-$n.json"
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  # Oxigraph first: the reference of the gate.
  "$driver" --endpoint "oxigraph=$oxi_url" --endpoint "rete=$rete_url" --products "$n" \
    --mixes "$mixes" --warmup "$warmup" --gate-mixes "$gate" --mix "$query_mix" --clients 1,16 \
    --json "$run"
  long=null
  if [ -n "${LONG_MIXES:-}" ]; then
    # The seed's run length for rete alone (its answers were just compared in the gate).
    "$driver" --endpoint "rete=$rete_url" --products "$n" --no-gate \
      --mixes "$LONG_MIXES" --warmup "${LONG_WARMUP:-$LONG_MIXES}" --mix "$query_mix" --clients 1,16 \
      --json "$work/run-long-$n.json"
    long=$(cat "$work/run-long-$n.json")
  fi
  load_after=$(cut -d' ' -f1-3 /proc/loadavg)
  rss() { awk '/VmHWM/{print $2}' "/proc/$1/status"; }
  rows+=("{\"products\":$n,\"triples\":$triples,\"nt_bytes\":$nt_bytes,\"rete_bytes\":$(stat -c %s "$file"),\"rete_build_ms\":$build_ms,\"oxigraph_load_ms\":$load_ms,\"oxigraph_optimize_ms\":$optimize_ms,\"oxigraph_store_bytes\":$(du -sb "$store" | cut -f1),\"rete_serve_peak_rss_kib\":$(rss $rete_pid),\"oxigraph_serve_peak_rss_kib\":$(rss $oxi_pid),\"date\":\"$(date -u +%F)\",\"build_flags\":\"${BUILD_FLAGS:-}\",\"rete_threads\":$threads,\"rete_cache\":\"${CACHE:-default}\",\"query_mix\":\"$query_mix\",\"mixes\":$mixes,\"warmup\":$warmup,\"loadavg\":\"$load_before → $load_after\",\"run\":$(cat "$run"),\"run_long\":$long}")
  kill "$rete_pid" "$oxi_pid"
  wait "$rete_pid" "$oxi_pid" 2>/dev/null || true
  pids=()
  [ "${REUSE:-0}" = 1 ] || rm -rf "$store"
done

json=docs/benchmark-bsbm.json
new="$work/rows.json"
printf '%s\n' "${rows[@]}" > "$new"
python3 - "$json" "$new" "$threads" "$mixes" "$warmup" "$("$rete" --version | awk '{print $2}')" \
  "$(oxigraph --version | awk '{print $2}')" "$(nproc)" "$(free -g | awk '/Mem:/{print $2}')" \
  "$(. /etc/os-release; echo "$PRETTY_NAME")" <<'PY'
import json, sys
path, new, threads, mixes, warmup, rete_v, oxi_v, cpus, mem, os_name = sys.argv[1:]
text, rows, at = open(new).read(), [], 0
while text[at:].strip():  # the rows one after another (each spans lines)
    row, at = json.JSONDecoder().raw_decode(text, at + len(text[at:]) - len(text[at:].lstrip()))
    rows.append(row)
old = json.load(open(path)) if __import__("os").path.exists(path) else {"sizes": []}
for r in old["sizes"]:
    # Rows from a run before sizes carried their own run length (and before the tools' mix).
    r.setdefault("date", old.get("date")); r.setdefault("mixes", old.get("mixes")); r.setdefault("warmup", old.get("warmup"))
    r.setdefault("query_mix", "with-q6")
done = {(r["products"], r["query_mix"]) for r in rows}
kept = [r for r in old["sizes"] if (r["products"], r["query_mix"]) not in done]
out = {
    "schema": "rete-bench/bsbm/v2",
    "machine": {"cpus": int(cpus), "memory_gib": int(mem), "os": os_name,
                "shared": "shared with other engineers' builds; both servers measured in the same run, taking turns"},
    "rete_version": rete_v, "oxigraph_version": oxi_v, "rete_threads": int(threads),
    "sizes": sorted(kept + rows, key=lambda r: (r["query_mix"] != "tools", r["products"])),
}
json.dump(out, open(path, "w"), indent=1, ensure_ascii=False)
PY
python3 -c "import json,sys; json.load(open('$json'))"
python3 scripts/render-bench.py
echo "wrote $json"
