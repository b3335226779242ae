#!/usr/bin/env bash
# Coverage-guided fuzzing of the decoders with libFuzzer (libfuzzer-sys) on the stable toolchain.
#   scripts/fuzz.sh build                 build every target (fuzz/target, instrumented)
#   scripts/fuzz.sh smoke [seconds]       each target briefly on the committed corpus (CI)
#   scripts/fuzz.sh run TARGET [args...]  one target with extra libFuzzer arguments, e.g.
#                                         -runs=2000000 or -max_total_time=600
# Crashes land in fuzz/artifacts/TARGET/; each one becomes a regression test (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
TARGETS=(header perm dict pyramid schema search content_range sparql rdf lenient detect upstream http)
# Stable rustc has no -Zsanitizer; these flags are what cargo-fuzz passes for coverage.
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=3 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares"
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$PWD/target}"
# An explicit --target keeps the flags off build scripts and proc macros (they link no libFuzzer).
HOST=$(rustc -vV | sed -n 's/^host: //p')
BIN="$CARGO_TARGET_DIR/$HOST/release"

build() { cargo build --release --locked --bins --target "$HOST"; }

run() {
  local t=$1; shift
  local art=${ARTIFACTS:-artifacts}
  mkdir -p "$art/$t" "work/$t"
  # New inputs go to work/ (not committed); the committed corpus is read only.
  "$BIN/$t" "work/$t" "corpus/$t" -artifact_prefix="$art/$t/" -timeout=10 -rss_limit_mb=512 \
    -print_final_stats=1 "$@"
}

case "${1:-smoke}" in
  build) build ;;
  smoke)
    build
    secs=${2:-5}
    ARTIFACTS=$(mktemp -d)
    export ARTIFACTS
    for t in "${TARGETS[@]}"; do
      if ! run "$t" -max_total_time="$secs" >"$ARTIFACTS/$t.log" 2>&1; then
        tail -n 40 "$ARTIFACTS/$t.log" >&2
        echo "fuzz smoke: $t failed; the input is in $ARTIFACTS/$t/" >&2
        exit 1
      fi
      echo "fuzz smoke: $t $(grep -o 'number_of_executed_units: [0-9]*' "$ARTIFACTS/$t.log") in ${secs}s"
    done
    rm -rf "$ARTIFACTS"
    ;;
  run) shift; t=$1; shift; run "$t" "$@" ;;
  *) echo "usage: scripts/fuzz.sh build | smoke [seconds] | run TARGET [libFuzzer args]" >&2; exit 2 ;;
esac
