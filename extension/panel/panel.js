// The panel (Chrome side panel / Firefox sidebar). It shows what the extension knows and sends
// the user's decisions to the background worker; it holds no protocol logic of its own.

import init, * as core from '../pkg/bai.js';
import { ext } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';

const $ = (id) => document.getElementById(id);

function show(id, text, tone) {
  const el = $(id);
  el.textContent = text;
  el.className = tone ?? '';
}

async function activeTabId() {
  // ?tab=N lets a tab-hosted panel (and the tests) say which tab it describes.
  const fromQuery = new URLSearchParams(location.search).get('tab');
  if (fromQuery) return Number(fromQuery);
  const [tab] = await ext.tabs.query({ active: true, lastFocusedWindow: true });
  return tab?.id;
}

async function refresh() {
  const tabId = await activeTabId();
  const status = await ext.runtime.sendMessage({ type: Msg.TAB_STATUS, tabId });
  const bg = status?.background;
  show('core-background', bg?.version ? `ready (${bg.version})` : `failed: ${bg?.error ?? 'no answer'}`, bg?.version ? 'ok' : 'err');
  const tab = status?.tab;
  if (!tab) {
    show('core-tab', 'not running in this tab', 'warn');
    show('chat-site', '—');
    return;
  }
  if (tab.startError) {
    const why = tab.startError.code === 'wasm_blocked_by_csp'
      ? "this page's security policy blocks WebAssembly in extensions"
      : tab.startError.message;
    show('core-tab', `failed (${tab.startError.code}): ${why}`, 'err');
    $('core-tab').dataset.code = tab.startError.code;
  } else {
    show('core-tab', `ready (${tab.contentCore}) in ${tab.startMs.toFixed(1)} ms`, 'ok');
    $('core-tab').dataset.code = 'ready';
  }
  if (tab.startError) {
    show('chat-site', 'unknown: the core could not start on this page', 'warn');
  } else if (tab.chat?.site) {
    show('chat-site', tab.chat.transcript_readable
      ? `${tab.chat.site}: transcript readable`
      : `${tab.chat.site}: the page changed, transcript not readable`, tab.chat.transcript_readable ? 'ok' : 'warn');
  } else {
    show('chat-site', 'not a chat page');
  }
}

async function main() {
  try {
    await init();
    show('core-panel', `ready (${core.version()})`, 'ok');
  } catch (error) {
    show('core-panel', `failed: ${error}`, 'err');
  }
  ext.runtime.onMessage.addListener((message) => {
    if (message?.type === Msg.STATUS_CHANGED) refresh();
  });
  ext.tabs.onActivated?.addListener(() => refresh());
  await refresh();
  document.body.dataset.ready = '1';
}

main();
