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

function browserVersion(browser, name) {
  const binary = name === 'chromium' ? '/usr/bin/chromium' : '/usr/bin/firefox-esr';
  try {
    return execFileSync(binary, ['--version'], { encoding: 'utf8', env: { ...process.env, MOZ_HEADLESS: '1' } }).trim();
  } catch {
    return 'unknown';
  }
}
