// Figure 3: the content script's main-thread time per page change on the local chat page with
// 100, 1,000 and 5,000 messages (the `bai:poll` performance measures chat.js records), beside a
// naive full re-read of the transcript on every mutation, run in the same page at the same time.
//
// The naive reader (what the original BAI extension did) is a MutationObserver on the thread
// that, on every mutation batch, reads every message element's text and runs a per-line regex
// over it. Two variants: textContent (no layout) and innerText (what a reader of rendered text
// uses; forces layout). Both are timed in the page with performance.now().

import { summary, ratio } from './stats.mjs';

const SIZES = process.env.BAI_BENCH_SIZES ? process.env.BAI_BENCH_SIZES.split(',').map(Number) : [100, 1000, 5000];
const APPENDS = 20;
const CHUNKS = 30;

/** A deterministic conversation of `n` messages in the chat page's localStorage format. */
function seedConversation(n) {
  const prose = [
    'Sure! Here is what the page shows: a header, a navigation bar and a **sign-in form**.',
    '- Check the email field first; if it is empty, type the address and press Tab.',
    '```js\nconst result = items.filter((item) => item.enabled && item.name.includes("save"));\n```',
    'In the protocol, lines such as BAI_ACTION must stand alone; inline mentions are not records.',
    '1. Open the settings page.\n2. Find the "Notifications" toggle.\n3. Turn it off.',
    '## Next steps\nThe quick brown fox jumps over the lazy dog, and then it explains why.',
  ];
  const messages = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) messages.push({ role: 'user', source: `Question ${i}: ${prose[i % prose.length]}` });
    else messages.push({ role: 'assistant', source: [0, 1, 2].map((k) => prose[(i + k) % prose.length]).join('\n\n') });
  }
  return messages;
}

/** In the page: installs the naive full re-reader on the thread. */
function installNaive() {
  const thread = document.getElementById('thread');
  const re = /^[ \t]*(BAI_ACTION|BAI_ACK|BAI_HANDSHAKE)[ \t]*(\{.*\})[ \t]*$/;
  window.__naive = { textContent: [], innerText: [] };
  const reread = (prop) => {
    const started = performance.now();
    let found = 0;
    for (const el of document.querySelectorAll('[data-message-author-role]')) {
      for (const line of el[prop].split('\n')) if (re.test(line)) found++;
    }
    window.__naive[prop].push(performance.now() - started);
    return found;
  };
  new MutationObserver(() => {
    reread('textContent');
    reread('innerText');
  }).observe(thread, { subtree: true, childList: true, characterData: true, attributes: true });
}

async function pollsSince(tab, from) {
  return tab.evaluate((from) => performance.getEntriesByName('bai:poll').slice(from).map((e) => ({ s: e.startTime, d: e.duration, m: e.detail?.messages, r: e.detail?.reads })), from);
}

async function pollCount(tab) {
  return tab.evaluate(() => performance.getEntriesByName('bai:poll').length);
}

async function waitPollAfter(tab, count) {
  await tab.waitFor((n) => performance.getEntriesByName('bai:poll').length > n && document.querySelector('bai-banner')?.dataset.polls, { args: [count], what: 'a poll' });
  // Let a second poll (if the change came in two mutation batches) land.
  await tab.evaluate(() => new Promise((resolve) => setTimeout(resolve, 30)));
}

export async function run({ browser, server, name }) {
  const out = {};
  const tab = await browser.newTab(`${server.origin}/plain.html`);
  if (tab.page) {
    // The chat page scrolls to the end after every restored turn (a forced layout each: O(n^2)
    // while a 5,000-message conversation loads). That is the fixture's cost, not the extension's:
    // until the page has loaded, the main world's scroll reads skip layout. The content script
    // runs in its own world and is unaffected. Chromium only (WebDriver has no init scripts).
    await tab.page.addInitScript(() => {
      Object.defineProperty(HTMLElement.prototype, 'scrollHeight', { get: () => 0, configurable: true });
      Object.defineProperty(HTMLElement.prototype, 'scrollTop', { get: () => 0, set: () => {}, configurable: true });
      addEventListener('load', () => {
        delete HTMLElement.prototype.scrollHeight;
        delete HTMLElement.prototype.scrollTop;
      });
    });
  }
  for (const size of SIZES) {
    try {
      out[size] = await measureSize(tab, server, name, size);
    } catch (error) {
      out[size] = { error: String(error?.message ?? error).slice(0, 400) };
      process.stderr.write(`[bench] ${name} incremental ${size} failed: ${error?.message ?? error}\n`);
    }
  }
  const a = out[SIZES[0]];
  const b = out[SIZES.at(-1)];
  out.flatness_append = ratio(b.ours_append_ms, a.ours_append_ms);
  out.flatness_chunk = ratio(b.ours_chunk_ms, a.ours_chunk_ms);
  return out;
}

async function measureSize(tab, server, name, size) {
  let entry_profile = null;
  {
    const path = `/chat/c/bench-${size}-${Date.now()}`;
    await tab.goto(`${server.origin}/plain.html`);
    await tab.evaluate((key, value) => {
      localStorage.clear();
      localStorage.setItem(key, value);
    }, `chatFixture:${path}`, JSON.stringify(seedConversation(size)));
    await tab.goto(`${server.origin}${path}?isolated`);
    await tab.waitFor((n) => Number(document.querySelector('bai-banner')?.dataset.messages) === n, { args: [size], timeout: 60000, what: `${size} messages read` });
    const initial = await pollsSince(tab, 0);
    const initialLongTasks = initial.filter((p) => p.d > 50).length;
    // The initial read is sliced over tasks (one poll each, yielding between them): its total
    // main-thread time, its longest task, and how long from the first slice to the decision.
    const initialSlices = {
      tasks: initial.length,
      max_task_ms: Math.max(...initial.map((p) => p.d)),
      wall_ms: initial.length ? initial.at(-1).s + initial.at(-1).d - initial[0].s : null,
    };
    // Chromium: the tab's JS heap after the read and a full GC (CDP). Content scripts share the
    // page's isolate, so this is the page's heap plus the content script's (its wasm memory
    // is not part of it; see wasm_memory_bytes below when the glue reports it).
    let heap = null;
    if (tab.page) {
      const cdp = await tab.page.context().newCDPSession(tab.page);
      await cdp.send('HeapProfiler.collectGarbage');
      const { usedSize, totalSize } = await cdp.send('Runtime.getHeapUsage');
      await cdp.detach();
      heap = { used_bytes: usedSize, total_bytes: totalSize };
    }
    await tab.evaluate(installNaive);

    const ours = { append: [], chunk: [] };
    const naive = { append: { textContent: [], innerText: [] }, chunk: { textContent: [], innerText: [] } };
    const collectNaive = async (kind) => {
      const got = await tab.evaluate(() => {
        const copy = { ...window.__naive };
        window.__naive = { textContent: [], innerText: [] };
        return copy;
      });
      // One page change may come in more than one mutation batch: its cost is their sum.
      for (const prop of ['textContent', 'innerText']) naive[kind][prop].push(got[prop].reduce((a, b) => a + b, 0));
    };
    for (let i = 0; i < APPENDS; i++) {
      const before = await pollCount(tab);
      await tab.evaluate((i) => window.chatFixture.addAssistantMessage(`Appended answer ${i}.\n\nIt has **two** paragraphs and a list:\n- one\n- two`), i);
      await waitPollAfter(tab, before);
      const polls = await pollsSince(tab, before);
      ours.append.push(polls.reduce((a, p) => a + p.d, 0));
      await collectNaive('append');
    }
    const id = await tab.evaluate(() => window.chatFixture.startAssistantMessage());
    await tab.evaluate(() => new Promise((resolve) => setTimeout(resolve, 50)));
    await tab.evaluate(() => { window.__naive = { textContent: [], innerText: [] }; });
    for (let i = 0; i < CHUNKS; i++) {
      const before = await pollCount(tab);
      await tab.evaluate((id, chunk) => window.chatFixture.appendAssistantChunk(id, chunk), id, i % 5 === 4 ? `word ${i}.\n\n` : `word ${i} `);
      await waitPollAfter(tab, before);
      const polls = await pollsSince(tab, before);
      ours.chunk.push(polls.reduce((a, p) => a + p.d, 0));
      await collectNaive('chunk');
    }
    await tab.evaluate((id) => window.chatFixture.finishAssistantMessage(id), id);
    // Profile: the site profile's "is the assistant writing?" check (every poll whose last
    // message is the assistant's) runs these selectors over the whole document; when nothing
    // matches, each one walks every element of the page.
    entry_profile = await tab.evaluate(() => {
      const selectors = ['button[data-testid=stop-button]', '[data-testid=composer-stop-button]', 'form button[aria-label*=stop i]', '.result-streaming'];
      const times = [];
      for (let run = 0; run < 15; run++) {
        const started = performance.now();
        for (const selector of selectors) document.querySelector(selector);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      return { stop_selectors_query_ms_median: times[7], elements_on_page: document.getElementsByTagName('*').length };
    });
    if (tab.page && size === SIZES.at(-1)) entry_profile.cpu = await cpuProfile(tab, Number(process.env.BAI_BENCH_PROFILE_APPENDS ?? 10));
    const all = await pollsSince(tab, initial.length);
    const longTasks = all.filter((p) => p.d > 50).length;
    const entry = {
      messages: size,
      initial_read_ms: initial.reduce((a, p) => a + p.d, 0),
      initial_read_long_tasks: initialLongTasks,
      initial_read_tasks: initialSlices.tasks,
      initial_read_task_ms: initial.map((p) => Math.round(p.d * 10) / 10),
      initial_read_max_task_ms: initialSlices.max_task_ms,
      initial_read_wall_ms: initialSlices.wall_ms,
      tab_js_heap_after_read: heap,
      ours_append_ms: summary(ours.append),
      ours_chunk_ms: summary(ours.chunk),
      naive_textContent_append_ms: summary(naive.append.textContent),
      naive_innerText_append_ms: summary(naive.append.innerText),
      naive_textContent_chunk_ms: summary(naive.chunk.textContent),
      naive_innerText_chunk_ms: summary(naive.chunk.innerText),
      max_poll_after_load_ms: Math.max(...all.map((p) => p.d)),
      long_tasks_after_load: longTasks,
      profile: entry_profile,
    };
    entry.ratio_naive_textContent_over_ours_append = ratio(entry.naive_textContent_append_ms, entry.ours_append_ms);
    entry.ratio_naive_innerText_over_ours_append = ratio(entry.naive_innerText_append_ms, entry.ours_append_ms);
    entry.ratio_naive_textContent_over_ours_chunk = ratio(entry.naive_textContent_chunk_ms, entry.ours_chunk_ms);
    entry.ratio_naive_innerText_over_ours_chunk = ratio(entry.naive_innerText_chunk_ms, entry.ours_chunk_ms);
    process.stderr.write(`[bench] ${name} incremental ${size}: ours append ${entry.ours_append_ms.median?.toFixed(3)} ms, naive ${entry.naive_textContent_append_ms.median?.toFixed(3)} ms\n`);
    return entry;
  }
}

/**
 * Chromium: a V8 CPU profile (CDP) over `appends` more appended messages; self time summed per
 * function, for the extension's frames only (its scripts and its wasm; calls into the DOM count
 * in the wasm-bindgen glue function that makes them). Covers the MutationObserver callback as
 * well as the poll, which the `bai:poll` measure does not.
 */
async function cpuProfile(tab, appends) {
  const cdp = await tab.page.context().newCDPSession(tab.page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
  await cdp.send('Profiler.start');
  for (let i = 0; i < appends; i++) {
    const before = await pollCount(tab);
    await tab.evaluate((i) => window.chatFixture.addAssistantMessage(`Profiled answer ${i}.`), i);
    await waitPollAfter(tab, before);
  }
  const { profile } = await cdp.send('Profiler.stop');
  await cdp.detach();
  // The raw profile, for a closer look (chrome://inspect or a script): BAI_BENCH_PROFILE_DUMP=file.
  if (process.env.BAI_BENCH_PROFILE_DUMP) await import('node:fs/promises').then((fs) => fs.writeFile(process.env.BAI_BENCH_PROFILE_DUMP, JSON.stringify(profile)));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const isOurs = (n) => /^(chrome-extension|wasm):/.test(n.callFrame.url);
  const label = (n) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^chrome-extension:\/\/[^/]+\//, '')}`.trim();
  // Every sample under one of the extension's frames counts (DOM and GC time included), under
  // the nearest extension frame.
  const self = new Map();
  // The same samples by the outermost extension frame: which entry point (the poll, the
  // MutationObserver callback, the marks' frame callback...) the time is spent under.
  const entries = new Map();
  let extensionMs = 0;
  profile.samples.forEach((id, i) => {
    let node = byId.get(id);
    while (node && !isOurs(node)) node = byId.get(parent.get(node.id));
    if (!node) return;
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    let outer = node;
    for (let up = byId.get(parent.get(node.id)); up; up = byId.get(parent.get(up.id))) if (isOurs(up)) outer = up;
    entries.set(label(outer), (entries.get(label(outer)) ?? 0) + ms);
    const leaf = byId.get(id);
    const key = leaf === node ? label(node) : `${label(node)} → ${leaf.callFrame.functionName || label(leaf)}`;
    self.set(key, (self.get(key) ?? 0) + ms);
    extensionMs += ms;
  });
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.BAI_BENCH_PROFILE_TOP ?? 10)).map(([frame, ms]) => ({ frame, ms_per_append: ms / appends }));
  const byEntry = [...entries.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([frame, ms]) => ({ frame, ms_per_append: ms / appends }));
  return { appends, extension_ms_per_append: extensionMs / appends, top, by_entry: byEntry };
}
