// Accessible names, ours against the browser's own (Chromium's accessibility tree over CDP), for
// every element of every case in tests/fixtures/dom/accname/cases.json and of the fixture pages
// given on the command line. A research tool, not a test: it prints the elements whose names
// differ, grouped by the browser's role, so conformance gaps show with their markup.
//
//   scripts/bench once (or BAI_FAST=1 with the bench feature) to build tests/fixtures/build/bench-pkg/
//   node bench/browser/accname-diff.mjs [/fixture/server/path.html | local-file.html ...] > diff.json

import fs from 'node:fs';
import { BROWSERS } from '../../tests/e2e/lib/browsers.mjs';
import { startServer } from '../../tests/e2e/lib/server.mjs';
import { loadBenchCore, openAccessibilityPage } from './accname-page.mjs';

const CASES = JSON.parse(fs.readFileSync(new URL('../../tests/fixtures/dom/accname/cases.json', import.meta.url), 'utf8'));
// Roles whose name the browser computes but which carry none by the spec (or whose name nobody
// reads): differences there are not gaps.
const SKIP_ROLES = new Set(['generic', 'none', 'presentation', 'StaticText', 'InlineTextBox', 'LineBreak', 'paragraph', 'RootWebArea', 'ignored', 'LabelText', 'ListMarker']);

const server = await startServer();
const browser = await BROWSERS.chromium.launch();
const out = { differ: [], compared: 0 };
try {
  const { page, cdp } = await openAccessibilityPage(browser, server);
  // The bench build of the core, imported into the page (as figure 9 does).
  const loadCore = () => loadBenchCore(page, server.origin);
  const numberElements = () =>
    page.evaluate(() => {
      let i = 0;
      for (const element of document.body.getElementsByTagName('*')) element.setAttribute('data-axi', String(i++));
    });
  await loadCore();
  const inputs = CASES.map((c) => ({ label: `${c.source} | ${c.name}`, html: c.html }));
  for (const path of process.argv.slice(2)) {
    if (path.startsWith('live:')) {
      // A fixture page loaded with its scripts (a component library renders it).
      inputs.push({ label: path, live: path.slice('live:'.length) });
      continue;
    }
    const html = fs.existsSync(path) ? fs.readFileSync(path, 'utf8') : await (await fetch(`${server.origin}${path}`)).text();
    inputs.push({ label: path, html: html.replace(/<script[\s\S]*?<\/script>/gi, '') });
  }
  for (const input of inputs) {
    if (input.live) {
      await page.goto(`${server.origin}${input.live}`);
      await page.waitForLoadState('networkidle');
      await loadCore();
    } else {
      await page.evaluate((html) => {
        document.body.innerHTML = html;
      }, input.html);
    }
    await numberElements();
    // Images and fonts that change layout-dependent names settle first.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const ours = JSON.parse(await page.evaluate(() => window.__bai.bench_names(1))).names;
    const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
    const indexOf = new Map();
    const walk = (node) => {
      const attrs = node.attributes ?? [];
      for (let k = 0; k < attrs.length; k += 2) if (attrs[k] === 'data-axi') indexOf.set(node.backendNodeId, Number(attrs[k + 1]));
      for (const child of node.children ?? []) walk(child);
    };
    walk(root);
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    for (const node of nodes) {
      if (node.ignored || node.backendDOMNodeId === undefined) continue;
      const index = indexOf.get(node.backendDOMNodeId);
      if (index === undefined) continue;
      const role = node.role?.value ?? '';
      if (SKIP_ROLES.has(role)) continue;
      const theirs = (node.name?.value ?? '').trim();
      const mine = (ours[index] ?? '').trim();
      out.compared++;
      if (process.env.AX_ALL || theirs.replace(/\s+/g, ' ') !== mine.replace(/\s+/g, ' ')) {
        const markup = await page.evaluate((i) => document.querySelector(`[data-axi="${i}"]`)?.outerHTML.replace(/ data-axi="\d+"/g, '').slice(0, 300), index);
        out.differ.push({ input: input.label, role, chromium: theirs, ours: mine, markup });
      }
    }
  }
} finally {
  await browser.close();
  await server.close();
}
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
