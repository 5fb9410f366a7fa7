// Figure 6: content-script start-up on the local chat page, in each browser, over repeated page
// loads. Two figures:
// - `core_init_ms`: what the content script itself measures around wasm fetch + compile +
//   instantiate (`startMs` in extension/content/main.js, kept by the background in
//   storage.session and read here from an extension page);
// - `dom_content_loaded_to_banner_ready_ms` (Chromium only, needs an init script): from the
//   page's DOMContentLoaded to the banner showing `data-state`, i.e. loader.js, the module
//   imports, wasm instantiation, the page check, the round trip to the background and the banner.
// The first load is reported apart (cold: nothing cached); the summary is over the others.

import { summary } from './stats.mjs';

const LOADS = 12;

function watchBanner() {
  window.__bench = { bannerAt: null };
  new MutationObserver((_, observer) => {
    if (document.querySelector('bai-banner')?.dataset.state) {
      window.__bench.bannerAt = performance.now();
      observer.disconnect();
    }
  }).observe(document, { subtree: true, childList: true, attributes: true });
}

export async function run({ browser, server, name }) {
  const panel = await browser.openExtensionPage('extension/panel/panel.html');
  const tab = await browser.newTab();
  if (tab.page) await tab.page.addInitScript(watchBanner);
  const init = [];
  // The parts of core init: the background's answer which role the page runs, then loading
  // that role's module (fetch, compile, instantiate).
  const roleParts = [];
  const loadParts = [];
  // Finer phases when the content script reports them (extension/content/load-core.js, main.js):
  // `compiledMs` / `glueMs` when the module had compiled / the glue was imported, since loading
  // began (the two overlap), `instantiateMs` instantiation alone, and `importMs` importing the
  // content script's modules (loader.js -> start()), which comes before core init's clock.
  const phaseParts = {};
  const toBanner = [];
  for (let i = 0; i < LOADS; i++) {
    const url = `${server.origin}/chat/c/startup-${name}-${i}`;
    await tab.goto(url);
    await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.state, { what: 'the banner' });
    let status = null;
    for (let attempt = 0; attempt < 200 && !status; attempt++) {
      status = await panel.evaluate(async (url) => {
        const api = globalThis.browser ?? globalThis.chrome;
        const all = await api.storage.session.get(null);
        return Object.values(all).find((s) => s && s.url === url && typeof s.startMs === 'number') ?? null;
      }, url);
      if (!status) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    if (!status) throw new Error(`no start-up status for ${url}`);
    init.push(status.startMs);
    if (status.startParts) {
      roleParts.push(status.startParts.roleMs);
      loadParts.push(status.startParts.loadMs);
      for (const [phase, ms] of Object.entries(status.startParts)) {
        if (phase === 'roleMs' || phase === 'loadMs' || typeof ms !== 'number') continue;
        (phaseParts[phase] ??= []).push(ms);
      }
    }
    if (tab.page) {
      toBanner.push(await tab.evaluate(() => window.__bench.bannerAt - performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd));
    }
  }
  const out = {
    cold_core_init_ms: init[0],
    core_init_ms: summary(init.slice(1)),
  };
  // What the user waits for from the content script's first line: importing its modules, then
  // core init (loader.js starts compiling the chat module before the import, so part of the
  // compile hides behind it; core init alone would not show what that costs or saves).
  const imports = phaseParts.importMs ?? [];
  if (imports.length === init.length) out.content_script_to_ready_ms = summary(init.slice(1).map((ms, i) => ms + imports[i + 1]));
  if (roleParts.length === init.length) {
    out.role_answer_ms = summary(roleParts.slice(1));
    out.module_load_ms = summary(loadParts.slice(1));
    const names = { compiledMs: 'module_compiled_ms', glueMs: 'glue_imported_ms', instantiateMs: 'instantiate_ms', importMs: 'content_script_import_ms' };
    for (const [phase, samples] of Object.entries(phaseParts)) {
      if (names[phase] && samples.length === init.length) out[names[phase]] = summary(samples.slice(1));
    }
  }
  if (toBanner.length) {
    out.cold_dom_content_loaded_to_banner_ready_ms = toBanner[0];
    out.dom_content_loaded_to_banner_ready_ms = summary(toBanner.slice(1));
  }
  const parts = Object.entries(out).filter(([k]) => /^(module_|glue_|instantiate_|content_script_)/.test(k)).map(([k, v]) => `${k} ${v.median}`).join(', ');
  process.stderr.write(`[bench] ${name} startup: init ${out.core_init_ms.median} ms, from the content script's start ${out.content_script_to_ready_ms?.median ?? '?'} ms${parts ? ` (${parts})` : ''}\n`);
  return out;
}
