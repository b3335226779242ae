#!/usr/bin/env bash
# BSBM Explore benchmark: `rete serve` against Oxigraph's server (`oxigraph serve-read-only`) on
# the same `rete generate bsbm` data, over HTTP, in one run. For each size: generate N-Triples,
# build the .rete (release CLI) and load Oxigraph's store (both timed), start both servers, run
# `rete-bsbm` (correctness gate, then warm-up and timed mixes with 1 and 16 clients, the two
# servers taking turns), stop the servers. Writes docs/benchmark-bsbm.json and the BSBM section of
# docs/BENCHMARK.md.
# Usage: scripts/bench-bsbm.sh [PRODUCTS...]   (default: 2785 27850, about 1 M and 10 M triples)
# Environment: MIXES (timed mixes, default 100), WARMUP (default 20), GATE (gate mixes, default 4),
# THREADS (rete serve workers, default: cores), BENCH_DIR (scratch, default bench-data),
# RETE (a release `rete` binary to use instead of building one).
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
  nt="$work/bsbm-$n.nt"
  [ -f "$nt" ] || "$rete" generate bsbm --products "$n" -o "$nt"
  triples=$(wc -l < "$nt")
  file="$work/bsbm-$n.rete"
  start=$(date +%s%N)
  "$rete" build -q "$nt" -o "$file"
  build_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  store="$work/oxigraph-$n"
  rm -rf "$store"
  start=$(date +%s%N)
  oxigraph load --location "$store" --file "$nt" >/dev/null 2>&1
  load_ms=$(( ($(date +%s%N) - start) / 1000000 ))

  "$rete" serve "bsbm=$file" --bind "127.0.0.1:$rete_port" --threads "$threads" \
    --queue 256 --timeout 300s >"$work/rete-serve.log" 2>&1 &
  pids+=($!); rete_pid=$!
  oxigraph serve-read-only --location "$store" --bind "127.0.0.1:$oxi_port" \
    >"$work/oxigraph-serve.log" 2>&1 &
  pids+=($!); oxi_pid=$!
  rete_url="http://127.0.0.1:$rete_port/bsbm/sparql"
  oxi_url="http://127.0.0.1:$oxi_port/query"
  wait_up "$rete_url"
  wait_up "$oxi_url"
  run="$work/run-$n.json"
  # Oxigraph first: the reference of the gate.
  "$driver" --endpoint "oxigraph=$oxi_url" --endpoint "rete=$rete_url" --products "$n" \
    --mixes "$mixes" --warmup "$warmup" --gate-mixes "$gate" --clients 1,16 --json "$run"
  rss() { awk '/VmHWM/{print $2}' "/proc/$1/status"; }
  rows+=("{\"products\":$n,\"triples\":$triples,\"nt_bytes\":$(stat -c %s "$nt"),\"rete_bytes\":$(stat -c %s "$file"),\"rete_build_ms\":$build_ms,\"oxigraph_load_ms\":$load_ms,\"oxigraph_store_bytes\":$(du -sb "$store" | cut -f1),\"rete_serve_peak_rss_kib\":$(rss $rete_pid),\"oxigraph_serve_peak_rss_kib\":$(rss $oxi_pid),\"run\":$(cat "$run")}")
  kill "$rete_pid" "$oxi_pid"
  wait "$rete_pid" "$oxi_pid" 2>/dev/null || true
  pids=()
  rm -rf "$store"
done

json=docs/benchmark-bsbm.json
{
  echo "{"
  echo "  \"schema\": \"rete-bench/bsbm/v1\","
  echo "  \"date\": \"$(date -u +%F)\","
  echo "  \"machine\": {\"cpus\": $(nproc), \"memory_gib\": $(free -g | awk '/Mem:/{print $2}'), \"os\": \"$(. /etc/os-release; echo "$PRETTY_NAME")\", \"shared\": \"shared with other engineers' builds; both servers measured in the same run, taking turns\"},"
  echo "  \"rete_version\": \"$("$rete" --version | awk '{print $2}')\","
  echo "  \"oxigraph_version\": \"$(oxigraph --version | awk '{print $2}')\","
  echo "  \"rete_threads\": $threads, \"mixes\": $mixes, \"warmup\": $warmup,"
  echo "  \"sizes\": ["
  printf '    %s\n' "${rows[@]}" | sed '$!s/$/,/'
  echo "  ]"
  echo "}"
} > "$json"
python3 -c "import json,sys; json.load(open('$json'))"
python3 scripts/render-bench.py
echo "wrote $json"
