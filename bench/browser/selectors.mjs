// Figure 4: resolving role, aria, text and css selectors on a 10,000-element page, our engines
// (the extension's wasm built with the `bench` feature by scripts/bench, imported into the page
// from the fixture server's /build/bench-pkg/, and timed in Rust with performance.now() around
// `dom::selector::query_all`, see crate/src/bindings/bench.rs) beside Playwright's own engines (playwright-core's injected
// script, instantiated in the same page the way Playwright does, and timed in the page around
// `injected.querySelectorAll(parsedSelector, document)`). Neither side includes a protocol round
// trip; rounds alternate ours / Playwright so noise hits both alike, and the ratio is per round.
// For context, Playwright's public `locator(...).count()` is also timed from Node (CDP round
// trip included), beside a bare `page.evaluate` round trip.
// Chromium only: playwright-core drives Chromium here (Firefox runs through geckodriver).

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { summary } from './stats.mjs';

const ROWS = 2000; // 5 elements per row: 10,000 elements
const ROUNDS = 15;
const WARMUP = 3;

const CASES = [
  { name: 'role button + name', ours: { type: 'role', value: 'button', name: 'Save 1500' }, playwright: 'internal:role=button[name="Save 1500"i]' },
  { name: 'aria (accessible name)', ours: { type: 'aria', value: 'Quantity 1500' }, playwright: 'internal:label="Quantity 1500"i' },
  { name: 'text', ours: { type: 'text', value: 'Item 1500' }, playwright: 'internal:text="Item 1500"i' },
  { name: 'css', ours: { type: 'css', value: '#row-1500 button' }, playwright: 'css=#row-1500 button' },
];

/** The options Playwright constructs its injected script with (for a Chromium page). */
export const INJECTED_OPTIONS = {
  isUnderTest: false, sdkLanguage: 'javascript', frameSeq: 0, testIdAttributeName: 'data-testid',
  stableRafCount: 1, browserName: 'chromium', shouldPrependErrorPrefix: true, isUtilityWorld: false, customEngines: [],
};

/** playwright-core's injected script source, as Playwright itself evaluates it in a page. */
export function injectedScriptSource() {
  const require = createRequire(import.meta.url);
  const root = path.dirname(require.resolve('playwright-core/package.json'));
  const bundle = fs.readFileSync(path.join(root, 'lib/coreBundle.js'), 'utf8');
  const line = bundle.split('\n').find((l) => l.startsWith("    source5 = '"));
  if (!line) throw new Error('injected script source not found in playwright-core/lib/coreBundle.js');
  // The line is one JavaScript string literal assignment.
  return new Function(`return ${line.trim().replace(/^source5 = /, '').replace(/;$/, '')}`)();
}

function buildPage(rows) {
  const container = document.createElement('main');
  const parts = [];
  for (let i = 0; i < rows; i++) {
    parts.push(`<div class="row" id="row-${i}"><span class="label">Item ${i}</span><input type="number" aria-label="Quantity ${i}"><button type="button">Save ${i}</button><a href="#item-${i}">Details ${i}</a></div>`);
  }
  container.innerHTML = parts.join('');
  document.body.replaceChildren(container);
  return document.getElementsByTagName('*').length;
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
  await page.evaluate(`(() => { const module = {}; ${injectedScriptSource()}
    window.__pw = new (module.exports.InjectedScript())(globalThis, ${JSON.stringify(INJECTED_OPTIONS)}); })()`);

  const rtt = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    await page.evaluate('1');
    rtt.push(performance.now() - started);
  }
  const out = { elements, cases: [], evaluate_round_trip_ms: summary(rtt) };
  for (const c of CASES) {
    const timings = await page.evaluate(({ ours, playwright, rounds, warmup }) => {
      const json = JSON.stringify(ours);
      const parsed = window.__pw.parseSelector(playwright);
      const res = { ours: [], playwright: [], ratio: [], oursCount: 0, playwrightCount: 0 };
      for (let round = 0; round < warmup + rounds; round++) {
        const mine = JSON.parse(window.__bai.bench_selector(json, 1));
        const started = performance.now();
        const theirs = window.__pw.querySelectorAll(parsed, document);
        const pw = performance.now() - started;
        res.oursCount = mine.count;
        res.playwrightCount = theirs.length;
        if (round < warmup) continue;
        res.ours.push(mine.times_ms[0]);
        res.playwright.push(pw);
        res.ratio.push(pw > 0 ? mine.times_ms[0] / pw : NaN);
      }
      return res;
    }, { ...c, rounds: ROUNDS, warmup: WARMUP });
    const locatorCount = [];
    const selector = c.playwright;
    for (let i = 0; i < 6; i++) {
      const started = performance.now();
      await page.locator(selector).count();
      locatorCount.push(performance.now() - started);
    }
    const entry = {
      name: c.name,
      ours_selector: c.ours,
      playwright_selector: c.playwright,
      ours_matches: timings.oursCount,
      playwright_matches: timings.playwrightCount,
      ours_ms: summary(timings.ours),
      playwright_ms: summary(timings.playwright),
      ratio_ours_over_playwright: summary(timings.ratio),
      playwright_locator_count_from_node_ms: summary(locatorCount),
    };
    out.cases.push(entry);
    process.stderr.write(`[bench] selectors ${c.name}: ours ${entry.ours_ms.median} ms (${entry.ours_matches}), playwright ${entry.playwright_ms.median} ms (${entry.playwright_matches})\n`);
  }
  // Profile: the walk over every element (into shadow roots and iframes) our engines start
  // from; for css it is the search for shadow roots and iframes before querySelectorAll.
  const walk = await page.evaluate(() => JSON.parse(window.__bai.bench_tree_walk(25)));
  out.ours_tree_walk_ms = summary(walk.times_ms.slice(3));
  // The native floor for css.
  out.native_query_selector_all_ms = summary(await page.evaluate(() => {
    const times = [];
    for (let i = 0; i < 25; i++) {
      const started = performance.now();
      document.querySelectorAll('#row-1500 button');
      times.push(performance.now() - started);
    }
    return times;
  }));
  await tab.close();
  return out;
}
