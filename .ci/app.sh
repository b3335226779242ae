#!/usr/bin/env bash
# CI layer of the desktop app (called by .ci/run). Idempotent; installs what it needs on a fresh
# Debian machine, builds the app once (binary + .deb through the Tauri CLI) and runs, in order:
# vitest (UI core modules and components), the app's Rust tests (commands on real files, which
# also build the fixtures with a pyramid and a schema block into target/app/fixtures), the .deb
# checks, the WebdriverIO e2e suite in the real webview under Xvfb (every layer reuses the one app
# build and the fixtures), and the browser suite (YASGUI against the workspace's `rete serve`).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export DEBIAN_FRONTEND=noninteractive

step() { printf '\n== app: %s (%ss)\n' "$1" "$SECONDS"; }

step "system packages"
pkgs=(libwebkit2gtk-4.1-dev build-essential file libxdo-dev libssl-dev libayatana-appindicator3-dev
      librsvg2-dev xvfb webkit2gtk-driver xauth shared-mime-info desktop-file-utils libxml2-utils
      # e2e of the desktop integration: a session bus (single instance), a GTK drag source and
      # xdotool (drag and drop, the save dialog).
      dbus-daemon python3-gi gir1.2-gtk-3.0 xdotool)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

step "tauri-driver"
if ! command -v tauri-driver >/dev/null; then
  cargo install tauri-driver --locked --version 2.1.0
fi

step "npm ci"
# scripts/setup.sh installs the same lockfile first; reinstall only when it has not run.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

step "vitest"
npm test

step "the shell's Rust tests, and the pyramid/schema fixtures the e2e suite opens"
# The app's logic (crates/rete-explore) was tested with the workspace; the shell's own tests here.
# Before the Tauri build: a plain cargo build of the app leaves a dev-mode binary in target/debug.
export RETE_FIXTURES="$PWD/target/app/fixtures"
cargo test -p rete-desktop
cargo run -q -p rete-explore --example fixtures -- "$RETE_FIXTURES"

step "build (binary + .deb, debug profile)"
npm run bundle:deb
mkdir -p target/app
cp target/debug/rete-desktop target/app/rete-desktop

step ".deb contents"
deb=$(ls -t target/debug/bundle/deb/*.deb | head -n1)
bash e2e/deb-check.sh "$deb" samples/social-1k.rete

step "e2e (WebdriverIO + tauri-driver + WebKitWebDriver, Xvfb)"
npm run e2e

step "browser e2e (YASGUI in WebKitGTK's MiniBrowser against rete serve)"
npm run e2e:browser

step "done"
