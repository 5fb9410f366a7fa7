// The name and role of each case's target (`#t`) as the browsers compute them, beside the case's
// expectation: Chromium's accessibility tree over CDP, and Firefox's computed label and role over
// WebDriver (geckodriver's computedlabel / computedrole). A research tool for writing cases, not a
// test: the wasm test (crate/tests/browser_accname.rs) checks ours against the expectations.
//
//   node bench/browser/accname-target.mjs [cases.json] [name-substring] > targets.json
//
// Prints every case where a browser differs from the expectation (AX_ALL=1: every case). Roles are
// each browser's own spelling (Chromium's tree says "image", "generic", "none"; Firefox "" for none).

import fs from 'node:fs';
import { BROWSERS } from '../../tests/e2e/lib/browsers.mjs';
import { startServer } from '../../tests/e2e/lib/server.mjs';
import { ELEMENT_KEY as ELEMENT } from '../../tests/e2e/lib/webdriver.mjs';
import { loadBenchCore, openAccessibilityPage } from './accname-page.mjs';

const file = process.argv[2] ?? new URL('../../tests/fixtures/dom/accname/cases.json', import.meta.url);
const filter = process.argv[3] ?? '';
const CASES = JSON.parse(fs.readFileSync(file, 'utf8')).filter((c) => c.name.includes(filter));
// As the wasm test mounts a case: `data-shadow` holds the markup of an open shadow root.
const MOUNT = (html) => {
  document.body.innerHTML = html;
  const host = document.querySelector('[data-shadow]');
  if (host) host.attachShadow({ mode: 'open' }).innerHTML = host.getAttribute('data-shadow');
};
const norm = (s) => (s ?? '').trim().replace(/\s+/g, ' ');

const server = await startServer();
const results = CASES.map((c) => ({ name: c.name, html: c.html, expected: c.expected, role: c.role }));
try {
  const chromium = await BROWSERS.chromium.launch();
  try {
    const { page, cdp } = await openAccessibilityPage(chromium, server);
    // Our name too, from the bench build of the core, when it is built.
    const core = await loadBenchCore(page, server.origin).then(
      () => true,
      () => false,
    );
    for (const [i, c] of CASES.entries()) {
      await page.evaluate(MOUNT, c.html);
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      // The target may be in a shadow root: the whole tree, shadow roots included, is searched.
      const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
      let backendNodeId;
      const walk = (node) => {
        const attrs = node.attributes ?? [];
        for (let k = 0; k < attrs.length; k += 2) if (attrs[k] === 'id' && attrs[k + 1] === 't') backendNodeId ??= node.backendNodeId;
        for (const child of [...(node.shadowRoots ?? []), ...(node.children ?? [])]) walk(child);
      };
      walk(root);
      if (backendNodeId === undefined) continue;
      const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { backendNodeId, fetchRelatives: false });
      const node = nodes[0];
      if (core) {
        results[i].ours = await page.evaluate(() => {
          const index = [...document.body.getElementsByTagName('*')].findIndex((e) => e.id === 't');
          return index < 0 ? null : (JSON.parse(window.__bai.bench_names(1)).names[index] ?? '').trim().replace(/\s+/g, ' ');
        });
      }
      results[i].chromium = node ? { name: norm(node.name?.value), role: node.ignored ? 'ignored' : (node.role?.value ?? '') } : null;
    }
  } finally {
    await chromium.close();
  }
  const firefox = await BROWSERS.firefox.launch();
  try {
    const tab = await firefox.newTab(`${server.origin}/plain.html`);
    const session = firefox.session;
    for (const [i, c] of CASES.entries()) {
      await tab.evaluate(MOUNT, c.html);
      let found;
      try {
        found = await session.command('POST', '/element', { using: 'css selector', value: '#t' });
      } catch {
        try {
          const host = await session.command('POST', '/element', { using: 'css selector', value: '[data-shadow]' });
          const shadow = await session.command('GET', `/element/${host[ELEMENT]}/shadow`);
          found = await session.command('POST', `/shadow/${Object.values(shadow)[0]}/element`, { using: 'css selector', value: '#t' });
        } catch {
          continue;
        }
      }
      const id = found[ELEMENT];
      const name = await session.command('GET', `/element/${id}/computedlabel`);
      const role = await session.command('GET', `/element/${id}/computedrole`);
      results[i].firefox = { name: norm(name), role };
    }
  } finally {
    await firefox.close();
  }
} finally {
  await server.close();
}
const differ = results.filter(
  (r) =>
    process.env.AX_ALL ||
    (r.expected !== undefined && (r.chromium?.name !== norm(r.expected) || r.firefox?.name !== norm(r.expected))) ||
    (r.role !== undefined && (r.chromium?.role !== r.role || r.firefox?.role !== r.role)),
);
process.stdout.write(JSON.stringify({ cases: results.length, differ }, null, 1) + '\n');
