#!/usr/bin/env bash
# Scale benchmark: build, size, remote, query and (APP=1) app measurements at 10 M+
# triples. Writes docs/benchmark-scale.json and the Scale section of docs/BENCHMARK.md.
# Usage: scripts/bench-scale.sh [SIZES...]   (default: 10M; also 30M, 100M, lubm:N)
# Environment: BENCH_DIR (data, default bench-data, reused), REBUILD=1, QUERIES=10M, APP=1,
# EXPLORE_S=300, UPSTREAM=1 — see scripts/bench-scale.py. Needs ~3 GB of disk per 10 M triples.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p rete-cli
exec python3 scripts/bench-scale.py "$@"
