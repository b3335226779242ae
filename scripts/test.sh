#!/usr/bin/env bash
# Runs every test of the project: formatting, clippy, the Rust workspace (unit, property,
# corruption, W3C RDF and SPARQL suites, oracles, remote-reader servers), UI unit tests and the
# desktop end-to-end tests in the real WebKit webview under Xvfb. One debug build serves all layers.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
step() { printf '\n==> %s\n' "$*"; }

step "rustfmt"
cargo fmt --all --check

step "no import circle between the files of a crate (scripts/import-cycles.py)"
python3 scripts/import-cycles.py

step "clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo test (workspace)"
cargo test --workspace --locked --no-fail-fast

step "fuzz smoke: each decoder target a few seconds on the committed corpus (scripts/fuzz.sh)"
bash scripts/fuzz.sh smoke 3

step "desktop app: UI unit tests, app Rust tests, .deb checks and end-to-end tests"
bash .ci/app.sh
step "all tests passed"
