// Figure 9: accessible names on a 5,000-element page. Ours = `dom::accname` (the extension's
// wasm with the `bench` feature, imported into the page from /build/bench-pkg/ as figure 4 does;
// timed in Rust around naming every element of <body> once, `bench_names` in
// crate/src/bindings/bench.rs). Theirs = dom-accessibility-api's `computeAccessibleName` (the
// npm package testing-library uses, pinned in package.json, bundled by esbuild and loaded into
// the same page), timed in the page around the same loop over the same elements, twice: with
// its defaults (which skip CSS generated content: `::before`/`::after` are read only when the
// caller passes `getComputedStyle` or `computedStyleSupportsPseudoElements`), and with
// `computedStyleSupportsPseudoElements: true`, the same work ours always does. Rounds alternate
// so noise hits all alike; the ratios are per round. The figure also counts the elements whose
// names differ (with a few examples), so a speed-up that changes names shows.
// Chromium only (playwright-core drives Chromium here).

import { createRequire } from 'node:module';
import { summary } from './stats.mjs';

const ROWS = 625; // 8 elements per row: 5,000 elements
const ROUNDS = 11;
const WARMUP = 2;

/** dom-accessibility-api as one script that sets `window.__daa`. */
async function libraryScript() {
  const require = createRequire(import.meta.url);
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [require.resolve('dom-accessibility-api')],
    bundle: true,
    format: 'iife',
    globalName: '__daa',
    write: false,
    logLevel: 'silent',
  });
  return `${result.outputFiles[0].text}
window.__daa = __daa;`;
}

function buildPage(rows) {
  const container = document.createElement('main');
  const parts = [];
  for (let i = 0; i < rows; i++) {
    parts.push(`<div class="row"><label for="q-${i}">Quantity <b>${i}</b></label><input id="q-${i}" type="number" value="1"><button type="button"><span class="icon" aria-hidden="true">+</span> Add item ${i}</button><a href="#item-${i}">Details <span>for item ${i}</span></a></div>`);
  }
  container.innerHTML = parts.join('');
  document.body.replaceChildren(container);
  return document.body.getElementsByTagName('*').length;
}

export async function run({ browser, server }) {
  const tab = await browser.newTab(`${server.origin}/plain.html`);
  const page = tab.page;
  const elements = await tab.evaluate(buildPage, ROWS);
  const origin = server.origin; // the bench feature's wasm, built by scripts/bench
  await page.evaluate(async (origin) => {
    const mod = await import(`${origin}/build/bench-pkg/bai.js`);
    await mod.default({ module_or_path: `${origin}/build/bench-pkg/bai_bg.wasm` });
    window.__bai = mod;
  }, origin);
  await page.evaluate(await libraryScript());

  const timings = await page.evaluate(({ rounds, warmup }) => {
    const all = [...document.body.getElementsByTagName('*')];
    const res = { ours: [], theirs: [], theirsPseudo: [], ratio: [], ratioPseudo: [], oursNames: [], theirNames: [] };
    const withPseudo = { computedStyleSupportsPseudoElements: true };
    for (let round = 0; round < warmup + rounds; round++) {
      const mine = JSON.parse(window.__bai.bench_names(1));
      let started = performance.now();
      const names = all.map((element) => window.__daa.computeAccessibleName(element));
      const theirs = performance.now() - started;
      started = performance.now();
      all.forEach((element) => window.__daa.computeAccessibleName(element, withPseudo));
      const theirsPseudo = performance.now() - started;
      res.oursNames = mine.names;
      res.theirNames = names;
      if (round < warmup) continue;
      res.ours.push(mine.times_ms[0]);
      res.theirs.push(theirs);
      res.theirsPseudo.push(theirsPseudo);
      res.ratio.push(theirs > 0 ? mine.times_ms[0] / theirs : NaN);
      res.ratioPseudo.push(theirsPseudo > 0 ? mine.times_ms[0] / theirsPseudo : NaN);
    }
    const differ = [];
    all.forEach((element, i) => {
      if (res.oursNames[i] !== res.theirNames[i]) differ.push({ element: element.outerHTML.slice(0, 120), ours: res.oursNames[i], theirs: res.theirNames[i] });
    });
    return { ...res, count: all.length, differ_count: differ.length, differ_examples: differ.slice(0, 5) };
  }, { rounds: ROUNDS, warmup: WARMUP });
  await tab.close();
  const out = {
    elements,
    named_per_run: timings.count,
    ours_ms: summary(timings.ours),
    dom_accessibility_api_ms: summary(timings.theirs),
    dom_accessibility_api_with_pseudo_elements_ms: summary(timings.theirsPseudo),
    ratio_ours_over_dom_accessibility_api: summary(timings.ratio),
    ratio_ours_over_dom_accessibility_api_with_pseudo_elements: summary(timings.ratioPseudo),
    names_differ: timings.differ_count,
    names_differ_examples: timings.differ_examples,
  };
  process.stderr.write(`[bench] names: ours ${out.ours_ms.median} ms, dom-accessibility-api ${out.dom_accessibility_api_ms.median} ms (ratio ${out.ratio_ours_over_dom_accessibility_api.median}), with pseudo-elements ${out.dom_accessibility_api_with_pseudo_elements_ms.median} ms (ratio ${out.ratio_ours_over_dom_accessibility_api_with_pseudo_elements.median}), ${out.names_differ} names differ\n`);
  return out;
}
