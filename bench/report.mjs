// Turns the raw benchmark output (native JSON lines, browser JSON) into bench/results.json and
// bench/results.md, adding the sizes (figure 5) and the machine the run was on.
//
//   node bench/report.mjs scanner.json engine.json browser.json

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FLOAT_KIND, shippedWithNames, summarize } from './wasm-size.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
// `--rerender`: rebuild results.md from results.json (same run, same machine record).
const rerender = process.argv[2] === '--rerender' ? JSON.parse(fs.readFileSync(path.join(here, 'results.json'), 'utf8')) : null;
const [scannerFile, engineFile, browserFile] = process.argv.slice(2);
const lastJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8').trim().split('\n').filter((l) => l.startsWith('{')).at(-1));
const scanner = rerender ? rerender.scanner : lastJson(scannerFile);
const engine = rerender ? rerender.engine : lastJson(engineFile);
const browser = rerender ? { browsers: rerender.browsers } : lastJson(browserFile);

const sh = (cmd, args) => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
};
const cpuModel = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? os.cpus()[0]?.model;
const machine = rerender ? rerender.machine : {
  cpu: cpuModel,
  cores: os.availableParallelism?.() ?? os.cpus().length,
  memory_gib: +(os.totalmem() / 2 ** 30).toFixed(1),
  os: `${os.type()} ${os.release()}`,
  rustc: sh('rustc', ['--version']),
  node: process.version,
  chromium: browser.browsers?.chromium?.version ?? sh('/usr/bin/chromium', ['--version']),
  firefox: browser.browsers?.firefox?.version ?? sh('/usr/bin/firefox-esr', ['--version']),
  playwright_core: JSON.parse(fs.readFileSync(path.join(root, 'node_modules/playwright-core/package.json'), 'utf8')).version,
  dom_accessibility_api: (() => { try { return JSON.parse(fs.readFileSync(path.join(root, 'node_modules/dom-accessibility-api/package.json'), 'utf8')).version; } catch { return undefined; } })(),
  load_average_at_report: os.loadavg().map((x) => +x.toFixed(2)),
  commit: sh('git', ['-C', root, 'rev-parse', '--short', 'HEAD']),
  date: new Date().toISOString(),
};
const phases = rerender ? rerender.phases : process.env.BAI_BENCH_PHASES ? JSON.parse(process.env.BAI_BENCH_PHASES) : null;

// Figure 5: sizes.
function sizeOf(files) {
  const raw = files.reduce((a, f) => a + fs.statSync(path.join(root, f)).size, 0);
  const gzip = files.reduce((a, f) => a + zlib.gzipSync(fs.readFileSync(path.join(root, f)), { level: 9 }).length, 0);
  return { files, raw, gzip };
}
const contentJs = ['extension/content', 'extension/shared'].flatMap((dir) =>
  fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.js')).map((f) => `${dir}/${f}`));
// One module per content-script role (crate/src/bindings/mod.rs): the chat page loads `bai`, a
// target page `exec`; a chat page that is its own workflow's target loads `exec` too, on its first
// action. The target is per module. (The background worker's and panel's module, `background`,
// is no content script's and is reported apart.)
const roleSize = (name) => ({
  wasm: sizeOf([`extension/pkg/${name}_bg.wasm`]),
  glue: sizeOf([`extension/pkg/${name}.js`]),
  wasm_and_glue: sizeOf([`extension/pkg/${name}_bg.wasm`, `extension/pkg/${name}.js`]),
  js_build: fs.existsSync(path.join(root, `extension/pkg-js/${name}.js`)) ? sizeOf([`extension/pkg-js/${name}.js`]) : null,
});
// Where each role's wasm bytes go (issue 17): its functions by name, from the copy of the shipped
// module with names that scripts/build keeps (bench/wasm-size.mjs; scripts/bench checked it is
// the shipped module). Body bytes of the code section, uncompressed.
const where = (name) => {
  const { file, bytes, fast } = shippedWithNames(name);
  return { file, fast, ...summarize(bytes, 10) };
};
const size = rerender ? rerender.size : (() => {
  const roles = { chat: roleSize('bai'), exec: roleSize('exec') };
  const largest = Object.values(roles).reduce((a, r) => (r.wasm_and_glue.gzip > a.wasm_and_glue.gzip ? r : a));
  return {
    roles,
    where: { chat: where('bai'), exec: where('exec') },
    // The larger role's module: what one content script loads at most when it starts.
    wasm_and_glue: largest.wasm_and_glue,
    background: sizeOf(['extension/pkg/background_bg.wasm', 'extension/pkg/background.js']),
    content_script_js: sizeOf(contentJs),
    target_gzip_bytes: 150 * 1024,
    js_target_gzip_bytes: 250 * 1024,
  };
})();

const results = { machine, phases, scanner, engine, size, browsers: browser.browsers ?? {} };
if (!rerender) fs.writeFileSync(path.join(here, 'results.json'), JSON.stringify(results, null, 2) + '\n');

// ---- Markdown --------------------------------------------------------------------------
const f = (x, digits = 2) => (x === null || x === undefined || Number.isNaN(x) ? 'n/a' : Number(x).toFixed(digits));
const ms = (s, d = 2) => (s ? `${f(s.median, d)} / ${f(s.p95, d)}` : 'n/a');
const kib = (b) => `${(b / 1024).toFixed(1)} KiB`;
const mbps = (mb, msValue) => (msValue ? mb / (msValue / 1000) : null);
const verdict = (ok) => (ok === null || ok === undefined ? '–' : ok ? 'met' : '**missed**');
const lines = [];
const p = (...xs) => lines.push(...xs);

const chromium = results.browsers.chromium ?? {};
const firefox = results.browsers.firefox ?? {};
const inc = chromium.incremental ?? {};
const sel = chromium.selectors ?? {};

const scanRatio = scanner.ratios.scanner_time_over_memchr_floor;
const scanMbps = mbps(scanner.mb, scanner.ms.record_scanner.median);
const inc5000 = inc['5000'] ?? {};
const inc100 = inc['100'] ?? {};
const worstSelector = (sel.cases ?? []).reduce((a, c) => Math.max(a, c.ratio_ours_over_playwright?.median ?? 0), 0);
const startC = chromium.startup?.core_init_ms;
const startF = firefox.startup?.core_init_ms;
const latC = chromium.latency?.action_to_effect_ms;
const latF = firefox.latency?.action_to_effect_ms;

p('# Benchmarks', '');
p(`Run \`scripts/build && scripts/bench\` (under 5 minutes). Generated by \`bench/report.mjs\` on ${machine.date} at commit \`${machine.commit}\`.`, '');
p('## Machine', '');
p('| | |', '|---|---|');
p(`| CPU | ${machine.cpu} |`, `| Cores | ${machine.cores} |`, `| Memory | ${machine.memory_gib} GiB |`, `| OS | ${machine.os} |`);
p(`| Rust | ${machine.rustc} |`, `| Node | ${machine.node} |`, `| Chromium | ${machine.chromium} |`, `| Firefox | ${machine.firefox} |`, `| playwright-core | ${machine.playwright_core} |`);
if (machine.load_average_at_report) p(`| Load average when the report was written (1 / 5 / 15 min) | ${machine.load_average_at_report.join(' / ')} (other work on the machine competes with the run) |`);
p('');
if (phases) p(`Run time: ${phases.total_s} s in all (${phases.bench_pkg_s !== undefined ? `compiling the bench wasm ${phases.bench_pkg_s} s, ` : ''}compiling the native benchmarks ${phases.compile_s} s, native figures ${phases.native_s} s, browser figures ${phases.browsers_s} s).`, '');
p('A shared, noisy 2-core machine: every figure is **median / p95** over repeated runs, and every comparison is a ratio of runs made in the same process, interleaved.', '');

p('## Targets', '');
p('| # | Figure | Result (median / p95) | Target | Verdict |', '|---|---|---|---|---|');
p(`| 1 | Scanner time ÷ bare memchr pass (10 MB) | ${ms(scanRatio)} (scanner ${f(scanMbps, 0)} MB/s) | ≤ 3× | ${verdict(scanRatio.median <= 3)} |`);
p(`| 2 | Engine, 5,000 messages / 2,000 actions, per message (incremental) | ${ms(engine.incremental.per_message_us, 2)} µs; peak heap ${kib(engine.incremental.peak_heap_bytes)} | – | – |`);
p(`| 3a | Chromium: our time per appended message, 5,000 ÷ 100 messages | ${f(inc.flatness_append)}× (${ms(inc100.ours_append_ms)} → ${ms(inc5000.ours_append_ms)} ms) | ≤ 2× | ${verdict(inc.flatness_append === undefined ? null : inc.flatness_append <= 2)} |`);
p(`| 3b | Chromium: naive full re-read ÷ ours per appended message at 5,000 | ${f(inc5000.ratio_naive_textContent_over_ours_append, 1)}× (textContent) / ${f(inc5000.ratio_naive_innerText_over_ours_append, 1)}× (innerText) | ≥ 50× | ${verdict(inc5000.ratio_naive_textContent_over_ours_append === undefined ? null : inc5000.ratio_naive_textContent_over_ours_append >= 50)} |`);
const longAfter = ['100', '1000', '5000'].map((k) => inc[k]?.long_tasks_after_load ?? null);
// The initial read runs in slices (one task each): the target is on its longest task.
const initialMax = inc5000.initial_read_max_task_ms ?? inc5000.initial_read_ms;
p(`| 3c | Chromium: polls > 50 ms after load (100 / 1,000 / 5,000); initial read at 5,000 | ${longAfter.join(' / ')}; initial read at 5,000: longest task ${f(initialMax, 1)} ms of ${inc5000.initial_read_tasks ?? 1} (total ${f(inc5000.initial_read_ms, 1)} ms, ${f(inc5000.initial_read_wall_ms, 1)} ms to the first decision) | none; initial read ≤ 30 ms per task | ${verdict(longAfter.every((x) => x === 0) && (inc5000.initial_read_long_tasks ?? 1) === 0 && (initialMax ?? Infinity) <= 30)} |`);
if (inc5000.tab_js_heap_after_read) p(`| 3d | Chromium: the tab's JS heap after reading 5,000 messages (page + content script, after GC) | ${kib(inc5000.tab_js_heap_after_read.used_bytes)} | – | – |`);
p(`| 4 | Selectors, ours ÷ Playwright in the same page | ${(sel.cases ?? []).map((c) => `${c.name.split(' ')[0]} ${f(c.ratio_ours_over_playwright?.median)}×`).join(', ')} (worst ${f(worstSelector)}×) | ≤ 1.0 | ${verdict(sel.cases ? worstSelector <= 1 : null)} |`);
if (size.roles) {
  const roles = Object.entries(size.roles);
  p(`| 5 | Content-script wasm + JS glue, gzip, per role | ${roles.map(([n, r]) => `${n} ${kib(r.wasm_and_glue.gzip)}`).join(', ')} | ≤ 150 KiB each | ${verdict(roles.every(([, r]) => r.wasm_and_glue.gzip <= size.target_gzip_bytes))} |`);
  if (roles.every(([, r]) => r.js_build)) {
    p(`| 5b | JavaScript build (strict-CSP pages), gzip, per role | ${roles.map(([n, r]) => `${n} ${kib(r.js_build.gzip)}`).join(', ')} | ≤ 250 KiB each | ${verdict(roles.every(([, r]) => r.js_build.gzip <= size.js_target_gzip_bytes))} |`);
  }
  const floatBytes = (role) => size.where?.[role]?.by_kind.find((k) => k.kind === FLOAT_KIND)?.bytes;
  if (floatBytes('exec') !== undefined) {
    p(`| 5c | Rust float code in the executor: code bytes under \`dec2flt\` / \`flt2dec\` / float \`fmt\` / \`zmij\` names (§5) | ${floatBytes('exec')} B (chat: ${floatBytes('chat')} B) | 0 | ${verdict(floatBytes('exec') === 0)} |`);
  }
} else {
  p(`| 5 | Content-script wasm + JS glue, gzip | ${kib(size.wasm_and_glue.gzip)} (${size.wasm_and_glue.gzip} B) | ≤ 150 KiB | ${verdict(size.wasm_and_glue.gzip <= size.target_gzip_bytes)} |`);
}
p(`| 6 | Start-up (wasm init), Chromium; Firefox | ${ms(startC, 1)} ms; ${ms(startF, 1)} ms | ≤ 20 ms median | Chromium ${verdict(startC ? startC.median <= 20 : null)}, Firefox ${verdict(startF ? startF.median <= 20 : null)} |`);
p(`| 7 | Action → effect, Chromium; Firefox | ${ms(latC, 1)} ms; ${ms(latF, 1)} ms | ≤ 50 ms median | Chromium ${verdict(latC ? latC.median <= 50 : null)}, Firefox ${verdict(latF ? latF.median <= 50 : null)} |`);
const obs = (chromium.observe?.pages ?? []).filter((e) => !e.error);
const worst = (key) => obs.reduce((a, e) => Math.max(a, e[key] ?? 0), 0);
const worstPage = (key) => obs.reduce((a, e) => (!a || e[key] > a[key] ? e : a), null)?.name ?? 'n/a';
if (obs.length) {
  p(`| 8 | Observation size: ours ÷ Playwright's \`locator('body').ariaSnapshot()\`, chars, worst of ${obs.length} pages (ours as the BAI_RESULT line carries it; in parentheses, the binding's JSON with url + title) | budget 60: ${f(worst('ratio_as_sent_default_budget'))}× (${worstPage('ratio_as_sent_default_budget')}) (with url + title ${f(worst('ratio_size_default_budget'))}×); budget 300: ${f(worst('ratio_as_sent_max_budget'))}× (${worstPage('ratio_as_sent_max_budget')}) (${f(worst('ratio_size_max_budget'))}×); best page ${f(obs.reduce((a, e) => Math.min(a, e.ratio_as_sent_default_budget), Infinity))}× @60 | ≤ 1.0 on every page | 60: ${verdict(worst('ratio_as_sent_default_budget') <= 1)}, 300: ${verdict(worst('ratio_as_sent_max_budget') <= 1)} (${obs.filter((e) => e.ratio_as_sent_max_budget > 1).map((e) => e.name).join(', ') || 'no page'} over) |`, '');
} else {
  p(`| 8 | Observation size | ${chromium.observe?.error ? 'error' : 'not run'} | ≤ 1.0 on every page | – |`, '');
}
const names = chromium.names;
if (names && !names.error) {
  // The row goes before the blank line that ends the table.
  lines.splice(lines.length - 1, 0, `| 9 | Accessible names of every element of a ${names.elements.toLocaleString('en')}-element page, ours ÷ dom-accessibility-api in the same page | ${ms(names.ratio_ours_over_dom_accessibility_api_with_pseudo_elements)}× against the same work (its \`computedStyleSupportsPseudoElements: true\`); ${ms(names.ratio_ours_over_dom_accessibility_api)}× against its defaults (no \`::before\`/\`::after\`) | ≤ 1.0 | same work ${verdict(names.ratio_ours_over_dom_accessibility_api_with_pseudo_elements.median <= 1)}, defaults ${verdict(names.ratio_ours_over_dom_accessibility_api.median <= 1)} |`);
}

p('## 1. Scanner throughput (native)', '');
p(`${(scanner.bytes / 1e6).toFixed(1)} MB of chat prose, code and inline prefix mentions, ${scanner.records} records (one per 1,200 lines); ${scanner.rounds} interleaved rounds after warm-up; release profile (opt-level 3, LTO). \`crate/benches/scanner.rs\`.`, '');
p('| Pass | ms (median / p95) | MB/s at median | Time ÷ memchr floor (median / p95) |', '|---|---|---|---|');
const row = (name, key, ratioKey) => p(`| ${name} | ${ms(scanner.ms[key], 3)} | ${f(mbps(scanner.mb, scanner.ms[key].median), 0)} | ${ratioKey ? ms(scanner.ratios[ratioKey]) : ''} |`);
row('bare `memchr` for an absent byte (floor)', 'memchr_floor');
row('`memchr_iter` over every line break', 'memchr_newlines');
row('**`RecordScanner`** (all records)', 'record_scanner', 'scanner_time_over_memchr_floor');
row('`RecordScanner` + `bai_blocks` (what the engine runs per message)', 'record_scanner_and_bai_blocks');
row('naive: `regex` per line', 'naive_regex_per_line');
p('', `Naive ÷ scanner: ${ms(scanner.ratios.naive_time_over_scanner, 1)}×. Scanner ÷ newline pass: ${ms(scanner.ratios.scanner_time_over_memchr_newlines)}×.`, '');

p('## 2. Engine (native)', '');
p(`A ${engine.messages.toLocaleString('en')}-message conversation (${(engine.transcript_bytes / 1e6).toFixed(2)} MB: the pasted protocol, a BAI/0.3 handshake, the ACK, then turns; ${engine.actions.toLocaleString('en')} assistant turns carry one \`BAI_ACTION\` each), all ${engine.actions} actions executed. Peak heap from a counting global allocator (above what was live before the run). \`crate/benches/engine.rs\`.`, '');
p('| How the host feeds it | Per message (median / p95) | Whole conversation (median) | Peak heap |', '|---|---|---|---|');
p(`| incremental: \`update_messages(len, [(i, msg)])\` per new message (the content script) | ${ms(engine.incremental.per_message_us, 2)} µs | ${f(engine.incremental.total_ms.median, 1)} ms | ${kib(engine.incremental.peak_heap_bytes)} |`);
p(`| \`protocol::replay\`, live (observes prefixes 1…n: \`bai replay\`, conformance) | ${ms(engine.replay_live.per_message_us, 1)} µs; first 100: ${f(engine.replay_live.first_100_messages_us.median, 1)} µs, last 100: ${f(engine.replay_live.last_100_messages_us.median, 1)} µs | ${f(engine.replay_live.total_ms.median, 0)} ms | ${kib(engine.replay_live.peak_heap_bytes)} |`);
p(`| snapshot: one \`observe\` of all 5,000 (opening an old conversation) | ${f(engine.snapshot.total_ms.median * 1000 / engine.messages, 2)} µs (mean) | ${ms(engine.snapshot.total_ms, 1)} ms | ${kib(engine.snapshot.peak_heap_bytes)} |`);
p('', `Saved engine state after the conversation: ${kib(engine.incremental.saved_state_bytes)} of JSON (\`Engine::save\`).`, '');
if (engine.state_writes) {
  p(`Bytes written to storage.local per action (the content script saves the changed parts of the state after every poll that decided something, and the head again after each action; \`split_parts\` + \`PartWriter\`): ${kib(engine.state_writes.bytes_per_action_at_end)} per action at ${engine.actions.toLocaleString('en')} actions (the last 100), ${kib(engine.state_writes.bytes_per_action_mean)} on average (target ≤ 16 KiB); writing the whole state each time would be ${kib(engine.state_writes.whole_state_bytes)} per write.`, '');
}
p(`\`observe\` re-fingerprints every message it is given (one hash of each unchanged message's processed prefix), so live replay is quadratic in the conversation: per-message cost grows from ${f(engine.replay_live.first_100_messages_us.median, 1)} µs (first 100) to ${f(engine.replay_live.last_100_messages_us.median, 1)} µs (last 100). The browser does not pay this (it feeds only changed messages through \`update_messages\`); the CLI and the conformance suite do.`, '');

p('## 3. Incremental reading in the browser (Chromium)', '');
p('The local chat page pre-seeded with N messages, the real extension loaded. **Ours** = the `bai:poll` measures the content script records (reading what changed + engine decisions, main thread), summed per page change. **Naive** = a full re-read of every message on each mutation batch plus a regex per line, run in the same page at the same time (a MutationObserver on the thread), in two variants: `textContent` (no layout) and `innerText` (forces layout, as a reader of rendered text does). 20 appended messages and 30 streamed chunks per size. `bench/browser/incremental.mjs`. The page is served cross-origin isolated (`?isolated`: COOP + COEP), so Chromium\'s clock reads in 5 µs steps instead of 0.1 ms. The CPU profile below counts everything else the extension does per page change (the MutationObserver callback, the marks\' frame).', '');
p('| Messages | Ours / append (ms) | Naive textContent / append | Naive innerText / append | Ratio naive ÷ ours (tC / iT) | Ours / chunk | Naive tC / chunk | Ratio (tC) | Initial read | Stop-selector check (ms) |', '|---|---|---|---|---|---|---|---|---|---|');
for (const k of ['100', '1000', '5000']) {
  const e = inc[k];
  if (!e || e.error) {
    p(`| ${k} | ${e?.error ? 'error: ' + e.error.replace(/\n/g, ' ').slice(0, 120) : 'not run'} |||||||||`);
    continue;
  }
  p(`| ${Number(k).toLocaleString('en')} | ${ms(e.ours_append_ms, 1)} | ${ms(e.naive_textContent_append_ms, 1)} | ${ms(e.naive_innerText_append_ms, 1)} | ${f(e.ratio_naive_textContent_over_ours_append, 1)} / ${f(e.ratio_naive_innerText_over_ours_append, 1)} | ${ms(e.ours_chunk_ms, 1)} | ${ms(e.naive_textContent_chunk_ms, 1)} | ${f(e.ratio_naive_textContent_over_ours_chunk, 1)} | ${f(e.initial_read_ms, 1)} ms | ${f(e.profile?.stop_selectors_query_ms_median, 1)} (${e.profile?.elements_on_page?.toLocaleString('en')} elements) |`);
}
const cpu = inc5000.profile?.cpu;
if (cpu) {
  p('', `CPU profile at 5,000 messages (V8 sampling profiler over CDP, ${cpu.appends} more appends; every sample under one of the extension's frames, grouped by that frame → the leaf; covers the MutationObserver callback as well as the poll): **${f(cpu.extension_ms_per_append, 1)} ms of extension main-thread time per appended message** (profiler overhead included).`, '');
  p('| Frame (nearest extension frame → leaf) | ms per append |', '|---|---|');
  for (const t of cpu.top) p(`| \`${t.frame}\` | ${f(t.ms_per_append, 2)} |`);
}
p('', `Flatness (ours, 5,000 ÷ 100): ${f(inc.flatness_append)}× per appended message, ${f(inc.flatness_chunk)}× per streamed chunk.`, '');
p('Firefox is not measured for this figure: its `performance.now()` resolution is 1 ms in a page (sub-millisecond polls read as 0 or 1), and the fixture page takes minutes to restore a 5,000-message conversation there (a forced layout per restored turn; in Chromium the bench neutralizes the main world\'s scroll reads until `load` with an init script, which WebDriver cannot install).', '');

p('## 4. Selector speed (Chromium, 10,000-element page)', '');
p(`${sel.elements?.toLocaleString('en') ?? 'n/a'} elements (2,000 rows of a label, a number input with an aria-label, a button and a link). **Ours**: the extension's wasm built with the \`bench\` feature (its \`bench_*\` exports added, optimized the same way), imported into the page from the fixture server's \`/build/bench-pkg/\`, timed in Rust around \`dom::selector::query_all\` (\`bench_selector\` in \`crate/src/bindings/bench.rs\`). **Playwright**: playwright-core ${machine.playwright_core}'s injected script, instantiated in the page as Playwright does it, timed in the page around \`querySelectorAll(parseSelector(s), document)\`. No protocol round trip on either side; rounds alternate, the ratio is per round. For context, Playwright's public \`locator(s).count()\` timed from Node (CDP round trip included; a bare \`page.evaluate\` round trip is ${ms(sel.evaluate_round_trip_ms, 1)} ms). \`bench/browser/selectors.mjs\`.`, '');
p('| Case | Ours | Playwright | Matches (ours / PW) | Ours (ms) | Playwright in page (ms) | Ratio ours ÷ PW | `locator.count()` from Node (ms) |', '|---|---|---|---|---|---|---|---|');
for (const c of sel.cases ?? []) {
  p(`| ${c.name} | \`${JSON.stringify(c.ours_selector)}\` | \`${c.playwright_selector}\` | ${c.ours_matches} / ${c.playwright_matches} | ${ms(c.ours_ms, 1)} | ${ms(c.playwright_ms, 1)} | ${ms(c.ratio_ours_over_playwright)} | ${ms(c.playwright_locator_count_from_node_ms, 1)} |`);
}
p('', `Profile: our walk over every element (a tree walker per scope, descending into shadow roots and same-origin iframes; two wasm→DOM calls per element: the next element and its shadow root), which the role, aria and text engines start from (role and aria then take their candidates with one \`querySelectorAll\` on a page without shadow roots or frames, one \`matches\` per element otherwise) and which the css engine runs to find the scopes (shadow roots, iframes) before \`querySelectorAll\`: ${ms(sel.ours_tree_walk_ms, 1)} ms. Native \`document.querySelectorAll\` for the css case: ${ms(sel.native_query_selector_all_ms, 2)} ms.`, '');
p('Semantics differ in places: our `aria` matches the accessible name of any element that can carry one; Playwright has no such selector, `internal:label` (labels and aria-label of form controls) is the closest. Our `text` returns the innermost element; Playwright\'s text engine likewise skips ancestors of a match.', '');

p('## 5. Size', '');
p('| Artifact | Raw | gzip -9 |', '|---|---|---|');
for (const [role, r] of Object.entries(size.roles ?? { all: size })) {
  const name = r.wasm.files[0].replace(/^extension\/pkg\//, '').replace(/_bg\.wasm$/, '');
  p(`| ${role}: \`extension/pkg/${name}_bg.wasm\` (wasm-opt -Oz) | ${kib(r.wasm.raw)} | ${kib(r.wasm.gzip)} |`);
  p(`| ${role}: \`extension/pkg/${name}.js\` (wasm-bindgen glue) | ${kib(r.glue.raw)} | ${kib(r.glue.gzip)} |`);
  p(`| **${role}: wasm + glue** | ${kib(r.wasm_and_glue.raw)} | **${kib(r.wasm_and_glue.gzip)}** |`);
  if (r.js_build) p(`| ${role}: \`extension/pkg-js/${name}.js\` (JavaScript build) | ${kib(r.js_build.raw)} | ${kib(r.js_build.gzip)} |`);
}
if (size.background) p(`| background worker and panel: \`extension/pkg/background_bg.wasm\` + glue (no content script loads it) | ${kib(size.background.raw)} | ${kib(size.background.gzip)} |`);
p(`| content-script JS (${size.content_script_js.files.length} files in extension/content, extension/shared) | ${kib(size.content_script_js.raw)} | ${kib(size.content_script_js.gzip)} |`, '');
p('The measured wasm is the one the extension ships: the benchmark entry points of `crate/src/bindings/bench.rs` (`bench_selector`, `bench_tree_walk`, `bench_observe`) are only in the `bench` feature\'s build, which figures 4 and 8 load.', '');
if (size.where) {
  // Where the bytes go: per content-script role, the largest groups side by side, then the kinds.
  const cut = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);
  const cell = (g, n) => (g ? `\`${cut(g.name, n)}\` | ${kib(g.bytes)}` : ' | ');
  const share = (bytes, of) => `${((100 * bytes) / of).toFixed(1)}%`;
  p('### Where the bytes go', '');
  p('Function body bytes of the code section (uncompressed), by the function names of the shipped module (`wasm-opt -Oz -g` keeps them in a copy, `target/h-wasm/names/pkg/`, which is the shipped module plus its name section, byte for byte; `node bench/wasm-size.mjs --role exec` prints all of it). A bai module (two path levels) counts the functions whose path, or implementing type (`<bai::x::T as Trait>`), is in it; the standard library\'s generic code made for bai\'s types counts under its own crate (core, alloc). Kinds overlap.', '');
  for (const [role, w] of Object.entries(size.where)) {
    const data = w.sections.find((x) => x.name === 'data')?.bytes ?? 0;
    p(`**${role}** (\`${w.file}\`${w.fast ? ', a BAI_FAST build: unoptimized' : ''}): ${kib(w.total - (w.sections.find((x) => x.name === 'custom: name')?.bytes ?? 0))} without names; code ${kib(w.code_bytes)} in ${w.functions} functions, data ${kib(data)}.`, '');
    p('| bai module | | crate | | largest function | |', '|---|---|---|---|---|---|');
    for (let i = 0; i < 10; i++) {
      const fn = w.top_functions[i];
      p(`| ${cell(w.by_bai_module[i], 40)} | ${cell(w.by_crate[i], 30)} | ${fn ? `\`${cut(fn.name, 70)}\` | ${fn.bytes} B` : ' | '} |`);
    }
    p('', `Kinds: ${w.by_kind.map((k) => `${k.kind.replace(/ \(.*$/, '')} ${kib(k.bytes)} (${share(k.bytes, w.code_bytes)})`).join('; ')}.`, '');
  }
}

p('## 6. Start-up', '');
p('Repeated loads of the chat page (12 per browser; the first, cold, reported apart). **Core init** = what the content script measures around wasm fetch + compile + instantiate (`startMs`, read back from the background\'s storage.session through an extension page). **DOMContentLoaded → banner ready** (Chromium, via an init script) adds loader.js, the module imports, the page check, the round trip to the background and mounting the banner. `bench/browser/startup.mjs`.', '');
p('| Browser | Core init (ms) | Cold core init | DOMContentLoaded → banner (ms) | Cold |', '|---|---|---|---|---|');
for (const [name, b] of [['Chromium', chromium], ['Firefox', firefox]]) {
  const s = b.startup;
  if (!s || s.error) { p(`| ${name} | ${s?.error ? 'error' : 'not run'} | | | |`); continue; }
  p(`| ${name} | ${ms(s.core_init_ms, 1)} | ${f(s.cold_core_init_ms, 1)} | ${s.dom_content_loaded_to_banner_ready_ms ? ms(s.dom_content_loaded_to_banner_ready_ms, 1) : 'n/a'} | ${f(s.cold_dom_content_loaded_to_banner_ready_ms, 1)} |`);
}
p('');
// The phases of core init and the import before it (extension/content/load-core.js, main.js).
const phaseRows = [['module_compiled_ms', 'module compiled (since loading began)'], ['glue_imported_ms', 'glue imported (since loading began, in parallel)'], ['instantiate_ms', 'instantiation'], ['content_script_import_ms', 'before core init: loader.js importing main.js and its modules']];
if ([chromium, firefox].some((b) => b.startup?.module_compiled_ms)) {
  p('| Phase (median ms) | Chromium | Firefox |', '|---|---|---|');
  for (const [key, label] of phaseRows) p(`| ${label} | ${f(chromium.startup?.[key]?.median, 1)} | ${f(firefox.startup?.[key]?.median, 1)} |`);
  p('');
}
p('Firefox rounds `performance.now()` to 1 ms.', '');

p('## 7. End-to-end latency', '');
p('Real extension, automatic approval. **Handshake → ACK**: the assistant\'s complete handshake message added → the ACK present in the transcript as a user message (posted through the real ProseMirror composer); one fresh conversation per sample. **Action → effect**: a message with one complete `BAI_ACTION` click added to an idle chat tab (the previous action reported) → the target\'s click listener runs (target on the chat tab). Split of the action time: mutation → poll start (MutationObserver, `setTimeout(0)`), the poll (`bai:poll`), poll end → click (persisting the engine state to storage.local, then the executor: actionability checks, a stability check over **one animation frame**, scroll, click). `bench/browser/latency.mjs`.', '');
p('| Browser | Handshake → ACK (ms) | Action → effect (ms) | Mutation → poll | Poll | Poll end → click |', '|---|---|---|---|---|---|');
for (const [name, b] of [['Chromium', chromium], ['Firefox', firefox]]) {
  const l = b.latency;
  if (!l || l.error) { p(`| ${name} | ${l?.error ? 'error' : 'not run'} | | | | |`); continue; }
  p(`| ${name} | ${ms(l.handshake_to_ack_ms, 1)} | ${ms(l.action_to_effect_ms, 1)} | ${ms(l.action_breakdown_ms.mutation_to_poll_start, 1)} | ${ms(l.action_breakdown_ms.poll, 1)} | ${ms(l.action_breakdown_ms.poll_end_to_click, 1)} |`);
}
p('', '## 8. Observation size (Chromium)', '');
p(`What the model reads about a page. **Ours**: \`dom::observe\` in the extension's wasm (the \`bench\` feature's build, imported into the page from the fixture server as in figure 4), serialized to JSON, measured twice: **as sent** = \`{elements}\` (plus \`more\` when the budget left elements out), what the \`BAI_RESULT\` line carries for an observe (the extension moves url and title to the result's \`page\`, which every result has, observed or not; Playwright's snapshot names no page either), and **binding JSON** = \`{url, title, elements}\` (and \`more\`) as the binding returns it; at the default budget (60 lines) and the largest (300); timed in Rust around observe + serialization (\`bench_observe\` in \`crate/src/bindings/bench.rs\`). **Playwright**: playwright-core ${machine.playwright_core}'s public \`locator('body').ariaSnapshot()\` (YAML, default mode), timed in the page around the injected script's \`ariaSnapshot(document.body)\` (no round trip, like ours) and from Node around the public call (CDP round trip included). For context, \`page.ariaSnapshot({ mode: 'ai' })\`, the variant with \`[ref=eN]\` markers that Playwright's agent tooling gives a model. Sizes in characters; **tokens ≈ characters ÷ 4** (an approximation, no tokenizer was run). ${chromium.observe?.rounds ?? 'n/a'} alternating rounds per page after warm-up. \`bench/browser/observe.mjs\`; the larger pages are \`tests/fixtures/pages/bench/\`.`, '');
p('**Read the ratio with what each side includes.** Ours lists only interactive elements (links, buttons, fields, selects, widget roles, editors, `<summary>`) and headings, one line each with a ref, state and, when two share role and name, a context (`[in: "…"]`); it leaves out static text, images, lists, tables and landmarks, and stops at the budget (`more` counts the rest). Playwright\'s snapshot is the whole accessibility tree under `body`: the same controls **plus** every paragraph of text, image alt texts, lists, list items, tables, landmarks and groups, nested by indentation, with no budget. So "ours smaller" partly means "ours says less": prose the model might need (prices, ratings, error messages) is not in our observation and must be read with `extract`.', '');
p('| Page | DOM elements / body text chars | Found by observe | Ours @60 as sent: lines (+more), chars, ~tokens | Ours @300 as sent: lines, chars, ~tokens | Playwright `ariaSnapshot()`: lines, chars, ~tokens | **Ratio ours ÷ PW, as sent (@60 / @300)** | Ratio with url + title (@60 / @300) | Ours @300 lines only (no JSON): chars, ÷ PW | PW `mode: ai`: chars, ~tokens | Ours @300 as sent ÷ PW ai |', '|---|---|---|---|---|---|---|---|---|---|---|');
const tok = (c) => Math.round(c / 4).toLocaleString('en');
const num = (x) => (x ?? 0).toLocaleString('en');
for (const e of chromium.observe?.pages ?? []) {
  if (e.error) { p(`| ${e.name} | error: ${e.error.replace(/\n/g, ' ').slice(0, 120)} ||||||||||`); continue; }
  const d = e.ours.default_budget;
  const m = e.ours.max_budget;
  const pw = e.playwright.default;
  p(`| ${e.name} (\`${e.path}\`) | ${num(e.dom.elements)} / ${num(e.dom.body_text_chars)} | ${e.ours.found} | ${d.lines}${d.more ? ` (+${d.more})` : ''}, ${num(d.as_sent_chars)}, ${tok(d.as_sent_chars)} | ${m.lines}${m.more ? ` (+${m.more})` : ''}, ${num(m.as_sent_chars)}, ${tok(m.as_sent_chars)} | ${pw.lines}, ${num(pw.chars)}, ${tok(pw.chars)} | **${f(e.ratio_as_sent_default_budget)}** / **${f(e.ratio_as_sent_max_budget)}** | ${f(e.ratio_size_default_budget)} / ${f(e.ratio_size_max_budget)} | ${num(m.lines_chars)}, ${f(m.lines_chars / pw.chars)} | ${num(e.playwright.ai.chars)}, ${tok(e.playwright.ai.chars)} | ${f(m.as_sent_chars / e.playwright.ai.chars)} |`);
}
p('', 'Time per snapshot (ms, median / p95). Chromium coarsens `performance.now()` to 0.1 ms.', '');
p('| Page | Ours @60 | Ours @300 | Playwright in page (default) | Ratio ours @60 ÷ PW in page | Playwright in page (`ai`) | Playwright `locator.ariaSnapshot()` from Node | `page.ariaSnapshot({mode: ai})` from Node |', '|---|---|---|---|---|---|---|---|');
for (const e of obs) {
  p(`| ${e.name} | ${ms(e.ours.default_budget.ms, 1)} | ${ms(e.ours.max_budget.ms, 1)} | ${ms(e.playwright.default.in_page_ms, 1)} | ${ms(e.ratio_time_default_budget)} | ${ms(e.playwright.ai.in_page_ms, 1)} | ${ms(e.playwright.default.from_node_ms, 1)} | ${ms(e.playwright.ai.from_node_ms, 1)} |`);
}
const mismatch = obs.filter((e) => e.playwright.default.in_page_chars !== e.playwright.default.chars);
if (mismatch.length) p('', `The in-page injected-script snapshot differs in size from the public call on: ${mismatch.map((e) => `${e.name} (${e.playwright.default.in_page_chars} vs ${e.playwright.default.chars})`).join(', ')}.`);
const sample = obs.find((e) => e.name === 'products') ?? obs[0];
if (sample) {
  p('', `The first lines of each on the \`${sample.name}\` page (ours @300, then Playwright):`, '');
  p('```', ...sample.ours.sample, '```', '', '```yaml', ...sample.playwright.default.sample, '```');
}
p('');

if (names && !names.error) {
  p('## 9. Accessible names (Chromium, in page)', '');
  p(`${names.elements.toLocaleString('en')} elements (625 rows of a \`<label for>\` with bold text, a number input, a button with an aria-hidden icon span, a link with a nested span), every element named once per round. **Ours**: \`dom::accname\` in the extension's wasm (the \`bench\` feature's build, as in figure 4), timed in Rust around the loop (\`bench_names\` in \`crate/src/bindings/bench.rs\`). **dom-accessibility-api** ${machine.dom_accessibility_api ?? ''} (npm, what testing-library uses), bundled by esbuild into the same page, timed around the same loop twice: with its defaults, which skip CSS generated content unless the caller passes a \`getComputedStyle\`, and with \`computedStyleSupportsPseudoElements: true\`, the work ours always does. Rounds alternate; ratios per round. \`bench/browser/names.mjs\`.`, '');
  p('| | ms (median / p95) | ours ÷ this (median / p95) |', '|---|---|---|');
  p(`| ours | ${ms(names.ours_ms, 1)} | – |`);
  p(`| dom-accessibility-api, with pseudo-elements | ${ms(names.dom_accessibility_api_with_pseudo_elements_ms, 1)} | ${ms(names.ratio_ours_over_dom_accessibility_api_with_pseudo_elements)} |`);
  p(`| dom-accessibility-api, defaults | ${ms(names.dom_accessibility_api_ms, 1)} | ${ms(names.ratio_ours_over_dom_accessibility_api)} |`, '');
  p(`Names that differ between the two (defaults): ${names.names_differ} of ${names.named_per_run}${names.names_differ_examples?.length ? `, e.g. \`${names.names_differ_examples[0].element}\`: ours ${JSON.stringify(names.names_differ_examples[0].ours)}, theirs ${JSON.stringify(names.names_differ_examples[0].theirs)}` : ''}.`, '');
}

const notesFile = path.join(here, 'NOTES.md');
if (fs.existsSync(notesFile)) p(fs.readFileSync(notesFile, 'utf8').trim(), '');
fs.writeFileSync(path.join(here, 'results.md'), lines.join('\n'));
process.stderr.write(lines.slice(lines.indexOf('## Targets'), lines.indexOf('## 1. Scanner throughput (native)')).join('\n') + '\n');
