# shellcheck shell=bash
# Compiles the core to wasm and makes a wasm-bindgen package of it. Sourced by scripts/build (the
# extension's extension/pkg/) and scripts/bench (the same build plus the `bench` feature's
# exports, which the extension never ships).

# What the shipped modules (and their JavaScript builds, scripts/build-js-core) are compiled with,
# on top of profile wasm-release. The standard library comes with the stable toolchain compiled
# for speed (opt-level 3) and with its panic machinery; rebuilt from source with our profile
# (-Z build-std, nightly) it is compiled for size like the crate, `optimize_for_size` picks its
# smaller algorithms (sorting, formatting), `-Z location-detail=none` drops the file:line:column
# of every possible panic, and `immediate-abort` makes a panic trap at once instead of formatting
# a message: a panic is a bug either way (profile wasm-release already aborts), the module
# just no longer prints its message to the console first (BAI_FAST=1 builds, on stable, still
# do). Except `core`, kept at opt-level 3 as the stable toolchain ships it: its string search,
# case mapping and slice code are the selector engines' and the accessible names' inner loops
# (all of std at "z" made figure 4's role query 9 -> 11 ms and figure 9's names 27 -> 30 ms;
# core at 3 costs no bytes). The executor module: 207.8 -> 184.4 KiB gzip (measured on 033d07c,
# wasm-opt -Oz). Given on the command line, not in Cargo.toml, where stable builds would warn
# that no package `core` exists.
BAI_SHIPPED_RUSTFLAGS="-Z location-detail=none -Z unstable-options -C panic=immediate-abort"
BAI_SHIPPED_BUILD_STD=(-Z build-std=std,panic_abort -Z build-std-features=optimize_for_size
  --config 'profile.wasm-release.package.core.opt-level=3')

# bai_build_wasm_pkg OUT_DIR NAME [CARGO_ARGS...]: profile wasm-release, then wasm-bindgen into
# OUT_DIR (NAME.js + NAME_bg.wasm), then wasm-opt unless BAI_FAST=1. BAI_FAST=1 builds on stable
# with the precompiled standard library (quick, and a panic prints its message); otherwise on
# nightly with the shipped flags above, in its own target directory (target/h-wasm) so the two
# never invalidate each other's cache.
bai_build_wasm_pkg() {
  local out=$1 name=$2 target_dir
  shift 2
  if [ "${BAI_FAST:-0}" = "1" ]; then
    target_dir="${CARGO_TARGET_DIR:-$BAI_ROOT/target}"
    cargo build --quiet -p bai --lib --target wasm32-unknown-unknown --profile wasm-release "$@"
  else
    bai_ensure_nightly_std
    target_dir="$BAI_ROOT/target/h-wasm"
    CARGO_TARGET_DIR="$target_dir" RUSTFLAGS="$BAI_SHIPPED_RUSTFLAGS" \
      cargo +nightly build --quiet -p bai --lib "${BAI_SHIPPED_BUILD_STD[@]}" \
      --target wasm32-unknown-unknown --profile wasm-release "$@"
  fi
  mkdir -p "$out"
  # --target web: an ES module with an explicit init(), loaded by the background worker (static
  # import), the panel, and the content scripts (dynamic import of a web-accessible URL).
  wasm-bindgen --target web --out-dir "$out" --out-name "$name" \
    "$target_dir/wasm32-unknown-unknown/wasm-release/bai.wasm"
  # The names of the imports and of the closure shims, which only the module and its glue see,
  # made short in both (`w0`, `w1`, ... for `__wbg_<name>_<hash>`; see short-names.mjs). The
  # executor module: 7.4 KiB gzip less (wasm and glue). Fast builds too, for the same reason as
  # the esbuild step.
  node "$BAI_ROOT/scripts/lib/short-names.mjs" "$out/${name}_bg.wasm" "$out/$name.js"
  # The glue without the Rust doc comments wasm-bindgen copies into it, minified (esbuild, as
  # scripts/build-js-core uses it; esnext: nothing lowered). Its exports keep their names; its
  # local names (helpers, import shims), which nothing outside the module sees, are shortened.
  # The chat module's glue: 11.2 -> 6.9 KiB gzip with whitespace and syntax minified, the
  # executor's 5610 -> 5002 bytes with the names too. Fast builds too, so the tests run the glue
  # the extension ships.
  "$BAI_ROOT/node_modules/.bin/esbuild" "$out/$name.js" --format=esm --target=esnext \
    --minify --legal-comments=none --log-level=warning \
    --outfile="$out/$name.js.min"
  mv "$out/$name.js.min" "$out/$name.js"
  if [ "${BAI_FAST:-0}" != "1" ]; then
    # npm binaryen's wasm-opt, never Debian's (v108 produces modules that fail at runtime).
    # --converge repeats -Oz until the module stops shrinking; the producers and target_features
    # sections are metadata no browser reads (wasm-bindgen has already used the latter). Together
    # about 0.9 KiB gzip for ~10 s more build time (measured on 69b2a1f). --low-memory-unused:
    # the module never reads or writes below address 1024 (the bottom of the 1 MiB stack, which
    # starts at 0 and grows down from 1 MiB; data starts at 1 MiB), so an address `x + c` with a
    # small constant c can become a load/store offset: the two differ only when x + c wraps past
    # 4 GiB into that low kilobyte. The executor: 0.8 KiB gzip, its JavaScript build 1.8 KiB.
    #
    # -g keeps the function names (the name section), in a copy under the target directory:
    # bench/wasm-size.mjs reads it to say where the shipped module's bytes go (scripts/bench) and
    # scripts/test to keep Rust's float code out of the executor. The shipped module is that
    # copy without its name section, byte for byte what wasm-opt writes without -g (compared on
    # the three modules at 47ecf72: -g decides only whether the names are written), so the
    # names describe exactly the shipped code, at no extra build time. Keyed by the output
    # directory: scripts/bench's `bench` build (tests/fixtures/build/bench-pkg) keeps its own.
    local named
    named="$target_dir/names/$(basename "$out")"
    mkdir -p "$named"
    "$BAI_ROOT/node_modules/.bin/wasm-opt" -Oz --converge --low-memory-unused -g \
      --strip-producers --strip-target-features \
      --enable-bulk-memory --enable-nontrapping-float-to-int \
      --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
      "$out/${name}_bg.wasm" -o "$named/${name}_bg.wasm"
    node "$BAI_ROOT/scripts/lib/name-section.mjs" strip "$named/${name}_bg.wasm" "$out/${name}_bg.wasm"
  fi
}
