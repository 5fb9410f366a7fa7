// Starts the Rust core in a content script, in one of two builds of the same crate with the same
// exports (version, chat_page_status, ChatSession, post_line, perform_action, protocol_prompt):
//
// - 'wasm': extension/pkg/ (scripts/build), wherever the page lets us compile WebAssembly;
// - 'js': extension/pkg-js/bai.js (scripts/build-js-core), the crate built for the wasm MVP
//   feature set and translated to plain JavaScript by binaryen's wasm2js. Chromium applies the
//   PAGE's Content-Security-Policy to WebAssembly compiled in content scripts, so a page whose
//   script-src lacks 'wasm-unsafe-eval' blocks the wasm build there. The JS build needs neither
//   eval nor new Function: it is an ordinary module loaded from the extension, which such a
//   policy allows (see README, "Strict Content-Security-Policy pages").
//
// Both builds keep their state in module scope, so each tab runs exactly one of them.

/** True when this page forbids compiling WebAssembly: the smallest valid module fails to compile. */
export function wasmBlockedByPage() {
  try {
    new WebAssembly.Module(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
    return false;
  } catch {
    return true;
  }
}

/** The compiled wasm module at `url`: streamed (compiled while it downloads) where possible. */
async function compileWasm(url) {
  if (typeof WebAssembly.compileStreaming === 'function') {
    try {
      return await WebAssembly.compileStreaming(fetch(url));
    } catch (error) {
      // A response without the wasm MIME type cannot be streamed; any other failure is real.
      if (!(error instanceof TypeError)) throw error;
    }
  }
  const response = await fetch(url);
  return WebAssembly.compile(await response.arrayBuffer());
}

/**
 * Resolves to `{ core, flavor, error }`: the core's module namespace and which build it is
 * ('wasm' | 'js'), or `core: null, flavor: null` and the error when neither build could start.
 * Never rejects.
 */
export async function loadCore(ext) {
  // Literal specifiers (resolved against this module's URL, in the extension) keep the linters'
  // unsafe-import warnings away; the wasm file's URL comes from the extension's runtime.
  let wasmError = null;
  if (!wasmBlockedByPage()) {
    try {
      // Fetching and compiling the module (the larger part of start-up, most of all in Firefox)
      // starts before the glue is imported, so the two overlap; the glue then only instantiates.
      const compiling = compileWasm(ext.runtime.getURL('extension/pkg/bai_bg.wasm'));
      // Settled here too, so a failed import leaves no unhandled rejection behind.
      compiling.catch(() => {});
      const core = await import('../pkg/bai.js');
      await core.default({ module_or_path: await compiling });
      return { core, flavor: 'wasm', error: null };
    } catch (error) {
      // Only a page that forbids wasm is a reason for the JS build; any other failure is a bug
      // the JS build would hide.
      if (!wasmBlockedByPage()) return { core: null, flavor: null, error };
      wasmError = error;
    }
  }
  try {
    // Importing the module runs the core's start function: nothing to initialize.
    const core = await import('../pkg-js/bai.js');
    return { core, flavor: 'js', error: null };
  } catch (error) {
    return { core: null, flavor: null, error: wasmError ?? error };
  }
}
