// The page the accessible-name research tools (accname-diff, accname-fuzz, accname-target) work
// in: a plain page in Chromium with its accessibility tree open over CDP, and the bench build of
// the core (`bench_name_role`, built into tests/fixtures/build/bench-pkg/ by scripts/bench)
// importable into it.

/** A plain page of `server` in `chromium`, with the DOM and Accessibility domains enabled. */
export async function openAccessibilityPage(chromium, server) {
  const tab = await chromium.newTab(`${server.origin}/plain.html`);
  const page = tab.page;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('Accessibility.enable');
  return { tab, page, cdp };
}

/** Imports the bench build of the core into `page` as `window.__bai`; rejects when it is not
 * built. */
export function loadBenchCore(page, origin) {
  return page.evaluate(async (from) => {
    const mod = await import(`${from}/build/bench-pkg/bai.js`);
    await mod.default({ module_or_path: `${from}/build/bench-pkg/bai_bg.wasm` });
    window.__bai = mod;
  }, origin);
}
