#!/usr/bin/env bash
# Regenerates every sample in samples/ from its deterministic generator or source file.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p rete-cli
rete=target/release/rete
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$rete" generate social --people 1000 --seed 42 -o "$tmp/social-1k.nt"
"$rete" build -q "$tmp/social-1k.nt" -o samples/social-1k.rete
"$rete" generate social --people 20000 --seed 42 -o "$tmp/social-20k.nt"
"$rete" build -q "$tmp/social-20k.nt" -o samples/social-20k.rete
for src in samples/*.ttl; do
  [ -e "$src" ] || continue
  "$rete" build -q "$src" -o "${src%.ttl}.rete"
done
ls -l samples/
