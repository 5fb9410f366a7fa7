// Where a selector query's time goes: the V8 sampling profiler (CDP) around repeated
// `bench_selector` calls on figure 4's 10,000-element page, self time grouped by function
// (wasm functions by name when the module keeps its name section: build the bench package with
// BAI_FAST=1). Chromium only.
//
//   node bench/browser/profile-selectors.mjs [aria|text|role|css ...]

import { BROWSERS } from '../../tests/e2e/lib/browsers.mjs';
import { startServer } from '../../tests/e2e/lib/server.mjs';

const QUERIES = {
  role: { type: 'role', value: 'button', name: 'Save 1500' },
  aria: { type: 'aria', value: 'Quantity 1500' },
  text: { type: 'text', value: 'Item 1500' },
  css: { type: 'css', value: '#row-1500 button' },
};
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(QUERIES);

function buildPage(rows) {
  const container = document.createElement('main');
  const parts = [];
  for (let i = 0; i < rows; i++) {
    parts.push(`<div class="row" id="row-${i}"><span class="label">Item ${i}</span><input type="number" aria-label="Quantity ${i}"><button type="button">Save ${i}</button><a href="#item-${i}">Details ${i}</a></div>`);
  }
  container.innerHTML = parts.join('');
  document.body.replaceChildren(container);
}

const server = await startServer();
const browser = await BROWSERS.chromium.launch();
try {
  const tab = await browser.newTab(`${server.origin}/plain.html`);
  const page = tab.page;
  await tab.evaluate(buildPage, 2000);
  await page.evaluate(async (origin) => {
    const mod = await import(`${origin}/build/bench-pkg/bai.js`);
    await mod.default({ module_or_path: `${origin}/build/bench-pkg/bai_bg.wasm` });
    window.__bai = mod;
  }, server.origin);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  for (const name of wanted) {
    const json = JSON.stringify(QUERIES[name]);
    await page.evaluate((json) => window.__bai.bench_selector(json, 3), json);
    await cdp.send('Profiler.start');
    const result = await page.evaluate((json) => JSON.parse(window.__bai.bench_selector(json, 10)), json);
    const { profile } = await cdp.send('Profiler.stop');
    const self = new Map();
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const deltas = profile.timeDeltas;
    let total = 0;
    profile.samples.forEach((id, i) => {
      const node = byId.get(id);
      const key = `${node.callFrame.functionName || '(anon)'} ${node.callFrame.url.split('/').pop()}`;
      const ms = (deltas[i + 1] ?? 0) / 1000;
      total += ms;
      self.set(key, (self.get(key) ?? 0) + ms);
    });
    // The callers of the heaviest DOM call, three frames up.
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const callers = new Map();
    profile.samples.forEach((id, i) => {
      if (byId.get(id).callFrame.functionName !== (process.env.CALLERS_OF ?? 'querySelectorAll')) return;
      const chain = [];
      for (let p = parent.get(id), k = 0; p && k < 4; p = parent.get(p), k++) chain.push(byId.get(p).callFrame.functionName.replace(/::h[0-9a-f]{16}$/, ''));
      const key = chain.join(' < ');
      callers.set(key, (callers.get(key) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
    });
    const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25);
    process.stdout.write(`\n## ${name}: ${result.count} match(es), times ${result.times_ms.map((t) => t.toFixed(1)).join(' ')} ms; profiled ${total.toFixed(0)} ms (self time, per query)\n`);
    for (const [key, ms] of top) process.stdout.write(`${(ms / 10).toFixed(2).padStart(8)}  ${key}\n`);
    for (const [key, ms] of [...callers.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5)) process.stdout.write(`  caller ${(ms / 10).toFixed(2)}  ${key}\n`);
  }
} finally {
  await browser.close();
  await server.close();
}
