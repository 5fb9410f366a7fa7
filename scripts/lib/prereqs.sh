# shellcheck shell=bash
# Installs what the build and the tests need, only when it is missing. Sourced by scripts/build
# and scripts/test; every step is idempotent and prints one line when it has work to do.
#
# What and why (see README, "Build"):
# - wasm32 target: the extension's core is a wasm module.
# - wasm-bindgen-cli, pinned to the wasm-bindgen version in Cargo.lock (the CLI and the crate
#   must match exactly). Installed without --locked: its lock file names a crate version that
#   the registry mirror does not carry.
# - geckodriver (from crates.io): drives Firefox for the wasm tests and the end-to-end tests.
# - Debian chromium + chromium-driver + firefox-esr: the real browsers the tests run in.
# - npm dev dependencies (package.json): binaryen's wasm-opt (Debian's v108 breaks modules),
#   esbuild (test fixture bundles), playwright-core (drives Debian's Chromium; never the
#   `playwright` package, which downloads browsers), web-ext (lint).
# - A nightly toolchain with rust-src, for the shipped modules' -Z build-std (see wasm-pkg.sh).

set -euo pipefail

BAI_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export PATH="$HOME/.cargo/bin:$BAI_ROOT/node_modules/.bin:$PATH"

bai_log() { printf '[bai] %s\n' "$*" >&2; }

bai_wasm_bindgen_version() {
  # The version Cargo.lock resolved for the wasm-bindgen crate.
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' \
    "$BAI_ROOT/Cargo.lock"
}

bai_ensure_rust_target() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    bai_log "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
}

bai_ensure_wasm_bindgen_cli() {
  local want have
  want="$(bai_wasm_bindgen_version)"
  have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
  if [ "$have" != "$want" ] || ! command -v wasm-bindgen-test-runner >/dev/null; then
    bai_log "installing wasm-bindgen-cli $want (have: ${have:-none}; about 3 minutes)"
    cargo install --quiet wasm-bindgen-cli --version "$want" --force
  fi
}

bai_ensure_geckodriver() {
  if ! command -v geckodriver >/dev/null; then
    bai_log "installing geckodriver from crates.io (about 2 minutes)"
    cargo install --quiet --locked geckodriver
  fi
}

bai_ensure_browsers() {
  local missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
  [ -x /usr/bin/firefox-esr ] || missing+=(firefox-esr)
  command -v zip >/dev/null || missing+=(zip)
  command -v unzip >/dev/null || missing+=(unzip)
  if [ "${#missing[@]}" -gt 0 ]; then
    bai_log "installing Debian packages: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

bai_ensure_npm_deps() {
  # Reinstall when package-lock.json changed since the last install.
  local stamp="$BAI_ROOT/node_modules/.bai-lock-stamp"
  if [ ! -f "$stamp" ] || ! cmp -s "$stamp" "$BAI_ROOT/package-lock.json"; then
    bai_log "installing npm dev dependencies"
    (cd "$BAI_ROOT" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    cp "$BAI_ROOT/package-lock.json" "$stamp"
  fi
}

# The nightly toolchain with the standard library's source: the shipped modules are built with
# -Z build-std (scripts/lib/wasm-pkg.sh, scripts/build-js-core).
bai_ensure_nightly_std() {
  if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    bai_log "installing the nightly toolchain (minimal, with rust-src)"
    rustup toolchain install nightly --profile minimal --component rust-src
  elif ! rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^rust-src'; then
    bai_log "adding rust-src to the nightly toolchain"
    rustup component add rust-src --toolchain nightly
  fi
}

# Everything the build needs.
bai_ensure_build_prereqs() {
  bai_ensure_rust_target
  bai_ensure_npm_deps
  bai_ensure_wasm_bindgen_cli
}

# Everything the tests need on top of the build.
bai_ensure_test_prereqs() {
  bai_ensure_build_prereqs
  bai_ensure_browsers
  bai_ensure_geckodriver
}
