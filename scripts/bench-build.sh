#!/usr/bin/env bash
# Build benchmark: build time, peak RSS and file size of .rete vs raw N-Triples, gzip -9 and
# zstd -19, for the synthetic social graph at 20k and 200k people. Writes
# docs/benchmark-build.json and regenerates the build section of docs/BENCHMARK.md.
# Usage: scripts/bench-build.sh [PEOPLE...]   (default: 20000 200000)
set -euo pipefail
cd "$(dirname "$0")/.."
people=("${@:-20000 200000}")
[ $# -eq 0 ] && people=(20000 200000)
work=${BENCH_DIR:-bench-data}
mkdir -p "$work"
cargo build --release -q -p rete-cli
rete=target/release/rete
rows=()
for n in "${people[@]}"; do
  nt="$work/social-$n.nt"
  [ -f "$nt" ] || "$rete" generate social --people "$n" -o "$nt"
  raw=$(stat -c %s "$nt")
  gz=$(gzip -9 -c "$nt" | wc -c)
  zs=$(zstd -19 -q -c "$nt" | wc -c)
  triples=$(wc -l < "$nt")
  for mode in default no-pyramid; do
    extra=()
    [ "$mode" = no-pyramid ] && extra=(--no-pyramid)
    if [ "$mode" = no-pyramid ] && ! "$rete" build --help | grep -q -- --no-pyramid; then continue; fi
    out="$work/social-$n-$mode.rete"
    best_ms=""; rss=0
    for run in 1 2 3; do
      start=$(date +%s%N)
      /usr/bin/time -f '%M' -o "$work/rss" "$rete" build -q "${extra[@]}" "$nt" -o "$out"
      ms=$(( ($(date +%s%N) - start) / 1000000 ))
      r=$(cat "$work/rss")
      if [ -z "$best_ms" ] || [ "$ms" -lt "$best_ms" ]; then best_ms=$ms; fi
      [ "$r" -gt "$rss" ] && rss=$r
    done
    size=$(stat -c %s "$out")
    rows+=("{\"people\":$n,\"triples\":$triples,\"mode\":\"$mode\",\"raw_bytes\":$raw,\"gzip9_bytes\":$gz,\"zstd19_bytes\":$zs,\"rete_bytes\":$size,\"build_ms\":$best_ms,\"peak_rss_kib\":$rss}")
  done
done
json="docs/benchmark-build.json"
{
  echo "{"
  echo "  \"schema\": \"rete-bench/build/v1\","
  echo "  \"date\": \"$(date -u +%F)\","
  echo "  \"machine\": {\"cpus\": $(nproc), \"memory_gib\": $(free -g | awk '/Mem:/{print $2}'), \"os\": \"$(. /etc/os-release; echo "$PRETTY_NAME")\"},"
  echo "  \"rete_version\": \"$("$rete" --version | awk '{print $2}')\","
  echo "  \"rows\": ["
  printf '    %s\n' "${rows[@]}" | sed '$!s/$/,/'
  echo "  ]"
  echo "}"
} > "$json"
python3 scripts/render-bench.py
echo "wrote $json"
