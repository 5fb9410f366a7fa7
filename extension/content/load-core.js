// Starts the Rust core in a content script. The crate ships one module per role (issue 17: each
// content script loads only what it uses; crate/src/bindings/mod.rs):
//
// - 'chat': extension/pkg/bai.js (ChatSession, post_line, chat_page_status, ...), on chat pages;
//   the background worker and the panel load it too;
// - 'exec': extension/pkg/exec.js (perform_action, observe_changes, screen_masks, ...), the
//   executor, on every page a workflow may target (on a chat page only once an action runs there).
//
// Each role comes in two builds of the same crate with the same exports:
//
// - 'wasm': extension/pkg/ (scripts/build), wherever the page lets us compile WebAssembly;
// - 'js': extension/pkg-js/bai.js (scripts/build-js-core), the crate built for the wasm MVP
//   feature set and translated to plain JavaScript by binaryen's wasm2js. Chromium applies the
//   PAGE's Content-Security-Policy to WebAssembly compiled in content scripts, so a page whose
//   script-src lacks 'wasm-unsafe-eval' blocks the wasm build there. The JS build needs neither
//   eval nor new Function: it is an ordinary module loaded from the extension, which such a
//   policy allows (see README, "Strict Content-Security-Policy pages").
//
// Both builds keep their state in module scope, so each tab runs exactly one build of a role.

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
 * The chat module's compile loader.js began before importing this module (on the built-in chat
 * hosts), taken once; null for any other role or page.
 * @param {'chat' | 'exec'} role
 * @returns {Promise<WebAssembly.Module> | null}
 */
function takeEarlyCompile(role) {
  const early = role === 'chat' ? globalThis.__baiChatModuleCompiling : undefined;
  if (!early) return null;
  delete globalThis.__baiChatModuleCompiling;
  return early;
}

/** Each role's files. Literal specifiers (resolved against this module's URL, in the extension)
 * keep the linters' unsafe-import warnings away; the wasm file's URL comes from the runtime. */
const ROLES = {
  chat: {
    wasm: 'extension/pkg/bai_bg.wasm',
    glue: () => import('../pkg/bai.js'),
    js: () => import('../pkg-js/bai.js'),
  },
  exec: {
    wasm: 'extension/pkg/exec_bg.wasm',
    glue: () => import('../pkg/exec.js'),
    js: () => import('../pkg-js/exec.js'),
  },
};

/**
 * Resolves to `{ core, flavor, error, phases? }`: the `role` module's namespace ('chat' | 'exec')
 * and which build it is ('wasm' | 'js'), or `core: null, flavor: null` and the error when neither
 * build could start; `phases` times the wasm build's loading. Never rejects.
 * @param {any} ext
 * @param {'chat' | 'exec'} role
 */
export async function loadCore(ext, role) {
  const files = ROLES[role];
  let wasmError = null;
  if (!wasmBlockedByPage()) {
    try {
      // Fetching and compiling the module (the larger part of start-up, most of all in Firefox)
      // starts before the glue is imported, so the two overlap; the glue then only instantiates.
      // Each phase's time is kept for the start-up figure (bench/browser/startup.mjs): when the
      // module had compiled and the glue was imported (since loading began), instantiation.
      const began = performance.now();
      const phases = { compiledMs: 0, glueMs: 0, instantiateMs: 0 };
      const compiling = takeEarlyCompile(role) ?? compileWasm(ext.runtime.getURL(files.wasm));
      // Settled here too, so a failed import leaves no unhandled rejection behind.
      compiling.then(() => { phases.compiledMs = performance.now() - began; }, () => {});
      const core = await files.glue();
      phases.glueMs = performance.now() - began;
      const compiled = await compiling;
      const instantiating = performance.now();
      await core.default({ module_or_path: compiled });
      phases.instantiateMs = performance.now() - instantiating;
      return { core, flavor: 'wasm', error: null, phases };
    } catch (error) {
      // Only a page that forbids wasm is a reason for the JS build; any other failure is a bug
      // the JS build would hide.
      if (!wasmBlockedByPage()) return { core: null, flavor: null, error };
      wasmError = error;
    }
  }
  try {
    // Importing the module runs the core's start function: nothing to initialize.
    const core = await files.js();
    return { core, flavor: 'js', error: null };
  } catch (error) {
    return { core: null, flavor: null, error: wasmError ?? error };
  }
}

/**
 * The executor's core, loaded the first time something asks for it: on a chat page, only once
 * a workflow acts on that page (most chat pages never are a target), on any other page right
 * away (`now`). `get()` resolves to the module namespace or rejects with the start error;
 * `loaded` is the module once it is there (for calls that must not wait, such as Stop).
 * @param {any} ext
 * @param {{ now?: Awaited<ReturnType<typeof loadCore>> }} [started] a load already done
 */
export function executorCore(ext, started) {
  /** @type {Promise<any> | null} */
  let loading = null;
  const holder = {
    /** @type {any} */
    loaded: null,
    /** @returns {Promise<any>} */
    get() {
      loading ??= (started?.now ? Promise.resolve(started.now) : loadCore(ext, 'exec')).then(({ core, error }) => {
        if (!core) throw error ?? new Error('the executor core did not start');
        holder.loaded = core;
        return core;
      });
      return loading;
    },
  };
  if (started?.now?.core) holder.loaded = started.now.core;
  return holder;
}
