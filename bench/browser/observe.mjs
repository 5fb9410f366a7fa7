// Figure 8: the size of what the model reads about a page. Ours = `dom::observe` (the extension's
// wasm with the `bench` feature, imported into the page from /build/bench-pkg/ as figure 4 does; timed
// in Rust around observe + JSON serialization, `bench_observe` in crate/src/bindings/bench.rs),
// at the default budget (60 lines) and at the largest (300). Playwright = playwright-core's
// public `locator('body').ariaSnapshot()` (YAML, default mode) on the same page, plus, for
// context, `page.ariaSnapshot({ mode: 'ai' })` (the snapshot with `[ref=eN]` markers that
// Playwright's agent tooling hands a model). Times for Playwright are taken two ways: in the
// page around the injected script's `ariaSnapshot(document.body)` (no protocol round trip, like
// ours), and from Node around the public call (round trip included). Rounds alternate.
// Sizes are characters (Unicode code points); tokens are approximated as characters ÷ 4. Our
// size is given twice: the binding's whole JSON (with url and title), and the observation as
// the BAI_RESULT line carries it (without them: the result's `page` says where, for every
// result); Playwright's snapshot names no page either.
// Chromium only (playwright-core drives Chromium here).

import { injectedScriptSource, INJECTED_OPTIONS } from './selectors.mjs';
import { summary } from './stats.mjs';

const ROUNDS = 15;
const WARMUP = 3;
const NODE_ROUNDS = 6;

export const PAGES = [
  { name: 'shop', path: '/shop/index.html', about: 'e2e shop: two products, a status line, a link' },
  { name: 'checkout', path: '/shop/checkout.html', about: 'e2e checkout form: 4 fields' },
  { name: 'login (React)', path: '/target/login.html', about: 'React controlled login form', ready: () => !!document.querySelector('#login-email') },
  { name: 'settings', path: '/bench/settings.html', about: '89 form controls in 7 sections, help text' },
  { name: 'products', path: '/bench/products.html', about: 'filters + 50 product cards (Add to cart, Save for later, link)' },
  { name: 'docs', path: '/bench/docs.html', about: 'nav + 200 sidebar links + long article' },
];

const chars = (s) => [...s].length;

export async function run({ browser, server }) {
  const origin = server.origin; // the bench feature's wasm, built by scripts/bench
  const out = { approx_tokens: 'characters / 4', rounds: ROUNDS, pages: [] };
  for (const pageSpec of PAGES) {
    const tab = await browser.newTab(`${server.origin}${pageSpec.path}`);
    const page = tab.page;
    try {
      if (pageSpec.ready) await page.waitForFunction(`(${pageSpec.ready.toString()})()`, null, { timeout: 10000 });
      // What the page holds, so a reader can judge the ratio (and see that the extension's
      // content script added nothing to the DOM that Playwright would count).
      const dom = await page.evaluate(() => ({
        elements: document.getElementsByTagName('*').length,
        body_text_chars: [...document.body.innerText].length,
      }));
      await page.evaluate(async (origin) => {
        const mod = await import(`${origin}/build/bench-pkg/bai.js`);
        await mod.default({ module_or_path: `${origin}/build/bench-pkg/bai_bg.wasm` });
        window.__bai = mod;
      }, origin);
      await page.evaluate(`(() => { const module = {}; ${injectedScriptSource()}
        window.__pw = new (module.exports.InjectedScript())(globalThis, ${JSON.stringify(INJECTED_OPTIONS)}); })()`);

      const inPage = await page.evaluate(({ rounds, warmup }) => {
        const res = { ours60: [], ours300: [], pw: [], pwAi: [], ratio60: [], ratio300: [] };
        let last = {};
        for (let round = 0; round < warmup + rounds; round++) {
          const o60 = JSON.parse(window.__bai.bench_observe(60, 1));
          const o300 = JSON.parse(window.__bai.bench_observe(300, 1));
          let started = performance.now();
          const yaml = window.__pw.ariaSnapshot(document.body, { mode: 'default' });
          const pw = performance.now() - started;
          started = performance.now();
          const ai = window.__pw.ariaSnapshot(document.body, { mode: 'ai' });
          const pwAi = performance.now() - started;
          last = { o60, o300, yaml, ai };
          if (round < warmup) continue;
          res.ours60.push(o60.times_ms[0]);
          res.ours300.push(o300.times_ms[0]);
          res.pw.push(pw);
          res.pwAi.push(pwAi);
          res.ratio60.push(pw > 0 ? o60.times_ms[0] / pw : NaN);
          res.ratio300.push(pw > 0 ? o300.times_ms[0] / pw : NaN);
        }
        return { ...res, last };
      }, { rounds: ROUNDS, warmup: WARMUP });

      // Playwright's public API, from Node (what a Playwright user calls).
      const nodeDefault = [];
      const nodeAi = [];
      let yaml = '';
      let ai = '';
      for (let i = 0; i < NODE_ROUNDS; i++) {
        let started = performance.now();
        yaml = await page.locator('body').ariaSnapshot();
        nodeDefault.push(performance.now() - started);
        started = performance.now();
        ai = await page.ariaSnapshot({ mode: 'ai' });
        nodeAi.push(performance.now() - started);
      }

      const { o60, o300 } = inPage.last;
      const linesText = (o) => o.observation.elements.join('\n');
      // What the BAI_RESULT line carries for an observe: the extension moves url and title to
      // the result's `page` (sent with every result, observed or not) and keeps the rest
      // (`protocol::outcome::success`).
      const asSent = (o) => {
        const { url: _url, title: _title, ...sent } = o.observation;
        return chars(JSON.stringify(sent));
      };
      const entry = {
        name: pageSpec.name,
        path: pageSpec.path,
        about: pageSpec.about,
        dom,
        ours: {
          found: o300.total,
          default_budget: { lines: o60.lines, more: o60.more, json_chars: o60.json_chars, as_sent_chars: asSent(o60), lines_chars: chars(linesText(o60)), ms: summary(inPage.ours60) },
          max_budget: { lines: o300.lines, more: o300.more, json_chars: o300.json_chars, as_sent_chars: asSent(o300), lines_chars: chars(linesText(o300)), ms: summary(inPage.ours300) },
          sample: o300.observation.elements.slice(0, 8),
        },
        playwright: {
          default: {
            chars: chars(yaml),
            lines: yaml.split('\n').length,
            in_page_chars: chars(inPage.last.yaml),
            in_page_ms: summary(inPage.pw),
            from_node_ms: summary(nodeDefault),
            sample: yaml.split('\n').slice(0, 8),
          },
          ai: {
            chars: chars(ai),
            lines: ai.split('\n').length,
            in_page_chars: chars(inPage.last.ai),
            in_page_ms: summary(inPage.pwAi),
            from_node_ms: summary(nodeAi),
          },
        },
      };
      entry.ratio_as_sent_default_budget = entry.ours.default_budget.as_sent_chars / entry.playwright.default.chars;
      entry.ratio_as_sent_max_budget = entry.ours.max_budget.as_sent_chars / entry.playwright.default.chars;
      entry.ratio_size_default_budget = entry.ours.default_budget.json_chars / entry.playwright.default.chars;
      entry.ratio_size_max_budget = entry.ours.max_budget.json_chars / entry.playwright.default.chars;
      entry.ratio_size_max_budget_over_ai = entry.ours.max_budget.json_chars / entry.playwright.ai.chars;
      entry.ratio_time_default_budget = summary(inPage.ratio60);
      entry.ratio_time_max_budget = summary(inPage.ratio300);
      out.pages.push(entry);
      process.stderr.write(`[bench] observe ${pageSpec.name}: ours ${entry.ours.default_budget.json_chars} / ${entry.ours.max_budget.json_chars} chars (${o300.total} found), playwright ${entry.playwright.default.chars} chars (ai ${entry.playwright.ai.chars})\n`);
    } catch (error) {
      out.pages.push({ name: pageSpec.name, path: pageSpec.path, error: String(error?.stack ?? error) });
      process.stderr.write(`[bench] observe ${pageSpec.name} failed: ${error?.stack ?? error}\n`);
    } finally {
      await tab.close();
    }
  }
  return out;
}
