// Runs the browser benchmarks (figures 3, 4, 6, 7, 8, 9) in Chromium and Firefox with the real
// unpacked extension, and prints one JSON object on stdout. Used by scripts/bench.
//
//   node bench/browser/run.mjs [figure ...]     # figures: incremental selectors startup latency observe names

import { execFileSync } from 'node:child_process';
import { BROWSERS, browserNames } from '../../tests/e2e/lib/browsers.mjs';
import { startServer } from '../../tests/e2e/lib/server.mjs';

const FIGURES = {
  incremental: { browsers: ['chromium'], module: './incremental.mjs' },
  selectors: { browsers: ['chromium'], module: './selectors.mjs' },
  startup: { browsers: ['chromium', 'firefox'], module: './startup.mjs' },
  latency: { browsers: ['chromium', 'firefox'], module: './latency.mjs' },
  observe: { browsers: ['chromium'], module: './observe.mjs' },
  names: { browsers: ['chromium'], module: './names.mjs' },
};

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(FIGURES);
const server = await startServer();
const results = { browsers: {} };
try {
  for (const name of browserNames()) {
    const figures = wanted.filter((f) => FIGURES[f].browsers.includes(name));
    if (!figures.length) continue;
    const browser = await BROWSERS[name].launch();
    const opened = trackTabs(browser);
    try {
      results.browsers[name] = { version: browserVersion(browser, name) };
      for (const figure of figures) {
        const started = Date.now();
        const { run } = await import(FIGURES[figure].module);
        try {
          results.browsers[name][figure] = await run({ browser, server, name });
        } catch (error) {
          results.browsers[name][figure] = { error: String(error?.stack ?? error) };
          process.stderr.write(`[bench] ${name} ${figure} failed: ${error?.stack ?? error}\n`);
        }
        await retireTabs(opened, name);
        process.stderr.write(`[bench] ${name} ${figure} done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
}
process.stdout.write(JSON.stringify(results) + '\n');

/**
 * Remembers every tab and extension page a figure opens through `browser`. Figures share one
 * browser instance per browser, and a figure run in the full bench must meet the browser as it
 * would alone: before this, figure 7 ran beside the start-up figure's panel (a second panel
 * refreshing on every status change, in Firefox on the background page's own thread) and its
 * last chat tab, and in Chromium beside the 5,000-message conversation of figure 3, still live.
 */
function trackTabs(browser) {
  const opened = new Set();
  for (const method of ['newTab', 'openExtensionPage']) {
    const original = browser[method];
    browser[method] = async function (...args) {
      const tab = await original.apply(this, args);
      opened.add(tab);
      return tab;
    };
  }
  return opened;
}

/**
 * Ends what a figure left open: every page it opened goes to about:blank (its content script,
 * observers and timers end with it) and is closed, but one, kept blank: closing a browser's last
 * window ends its WebDriver session.
 */
async function retireTabs(opened, name) {
  // Pages the figure closed itself are done (Chromium tells; Firefox's figures close none).
  const tabs = [...opened].filter((tab) => !tab.page?.isClosed());
  opened.clear();
  for (const [i, tab] of tabs.entries()) {
    try {
      await tab.goto('about:blank');
      if (i < tabs.length - 1) await tab.close();
    } catch (error) {
      process.stderr.write(`[bench] ${name}: could not close a figure's tab: ${error?.message ?? error}\n`);
    }
  }
}

function browserVersion(browser, name) {
  const binary = name === 'chromium' ? '/usr/bin/chromium' : '/usr/bin/firefox-esr';
  try {
    return execFileSync(binary, ['--version'], { encoding: 'utf8', env: { ...process.env, MOZ_HEADLESS: '1' } }).trim();
  } catch {
    return 'unknown';
  }
}
