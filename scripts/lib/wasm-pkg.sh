# shellcheck shell=bash
# Compiles the core to wasm and makes a wasm-bindgen package of it. Sourced by scripts/build (the
# extension's extension/pkg/) and scripts/bench (the same build plus the `bench` feature's
# exports, which the extension never ships).

# bai_build_wasm_pkg OUT_DIR NAME [CARGO_ARGS...]: profile wasm-release, then wasm-bindgen into
# OUT_DIR (NAME.js + NAME_bg.wasm), then wasm-opt unless BAI_FAST=1.
bai_build_wasm_pkg() {
  local out=$1 name=$2
  shift 2
  cargo build --quiet -p bai --lib --target wasm32-unknown-unknown --profile wasm-release "$@"
  mkdir -p "$out"
  # --target web: an ES module with an explicit init(), loaded by the background worker (static
  # import), the panel, and the content scripts (dynamic import of a web-accessible URL).
  wasm-bindgen --target web --out-dir "$out" --out-name "$name" \
    "${CARGO_TARGET_DIR:-$BAI_ROOT/target}/wasm32-unknown-unknown/wasm-release/bai.wasm"
  # The glue without the Rust doc comments wasm-bindgen copies into it and with its whitespace
  # and syntax minified, names kept (esbuild, as scripts/build-js-core uses it; esnext: nothing
  # lowered). The chat module's glue: 11.2 -> 6.9 KiB gzip. Fast builds too, so the tests run
  # the glue the extension ships.
  "$BAI_ROOT/node_modules/.bin/esbuild" "$out/$name.js" --format=esm --target=esnext \
    --minify-whitespace --minify-syntax --legal-comments=none --log-level=warning \
    --outfile="$out/$name.js.min"
  mv "$out/$name.js.min" "$out/$name.js"
  if [ "${BAI_FAST:-0}" != "1" ]; then
    # npm binaryen's wasm-opt, never Debian's (v108 produces modules that fail at runtime).
    # --converge repeats -Oz until the module stops shrinking; the producers and target_features
    # sections are metadata no browser reads (wasm-bindgen has already used the latter). Together
    # about 0.9 KiB gzip for ~10 s more build time (measured on 69b2a1f).
    "$BAI_ROOT/node_modules/.bin/wasm-opt" -Oz --converge --strip-producers --strip-target-features \
      --enable-bulk-memory --enable-nontrapping-float-to-int \
      --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
      "$out/${name}_bg.wasm" -o "$out/${name}_bg.wasm.opt"
    mv "$out/${name}_bg.wasm.opt" "$out/${name}_bg.wasm"
  fi
}
