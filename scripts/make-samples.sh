#!/usr/bin/env bash
# Regenerates every sample in samples/ from its deterministic generator or source file. Generated
# data is piped in (the card then names the input `-`), so the files come out byte-identical.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p rete-cli
rete="${CARGO_TARGET_DIR:-target}/debug/rete"
for people in 1000 20000; do
  name="social-$((people / 1000))k"
  "$rete" generate social --people "$people" --seed 42 | "$rete" build -q --format nt - -o "samples/$name.rete"
done
for src in samples/*.ttl; do
  [ -e "$src" ] || continue
  # Shapes for `rete shacl` are inputs of their own, not samples to build.
  case "$src" in *-shapes.ttl) continue ;; esac
  "$rete" build -q "$src" -o "${src%.ttl}.rete"
done
# The multi-vocabulary sample: generated N-Quads, one named graph per vocabulary.
python3 scripts/make-vocabularies-sample.py > samples/vocabularies.nq
"$rete" build -q samples/vocabularies.nq -o samples/vocabularies.rete
ls -l samples/
