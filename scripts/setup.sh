#!/usr/bin/env bash
# Installs everything the project needs on a fresh Debian 12 machine (idempotent): system
# packages for the Tauri app and its WebKit e2e tests, Python packages used as test oracles
# (networkx, owlready2/HermiT, owlrl, pySHACL) and real SPARQL clients (SPARQLWrapper, rdflib),
# nginx (the replica test of rete serve), npm packages, tauri-driver. Rust comes from rustup.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo

pkgs=(build-essential pkg-config file zstd python3-pip default-jre-headless
      libwebkit2gtk-4.1-dev libxdo-dev libssl-dev libayatana-appindicator3-dev librsvg2-dev
      xvfb xauth webkit2gtk-driver shared-mime-info desktop-file-utils libxml2-utils
      dbus-daemon python3-gi gir1.2-gtk-3.0 xdotool nginx-light)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null; then
  echo "setup: Rust is missing; install it with rustup (https://rustup.rs) and run again" >&2
  exit 1
fi
rustup component add rustfmt clippy >/dev/null 2>&1 || true

# oxigraph: Oxigraph's server (the reference endpoint of the SERVICE tests and the BSBM benchmark).
python3 -m pip install -q --disable-pip-version-check networkx owlready2 owlrl rete-graph==0.3.6 \
  SPARQLWrapper rdflib pyshacl oxigraph==0.5.13 2>&1 | grep -v "Running pip as the 'root' user" || true

if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

if ! command -v tauri-driver >/dev/null; then
  cargo install tauri-driver --locked --quiet --version 2.1.0
fi
# The fuzz crate (its own workspace, see scripts/fuzz.sh): libFuzzer is built from source by
# libfuzzer-sys with the C++ compiler of build-essential; fetch its crates now.
cargo fetch --locked --manifest-path fuzz/Cargo.toml >/dev/null

echo "setup: done"
