// The background worker (Chrome: service worker; Firefox: event page). It routes messages
// between the chat tab, the target tab and the panel, and keeps per-tab status. It loads the
// same wasm core as the content scripts, for the decisions that belong here.

import init, * as core from '../pkg/bai.js';
import { ext, isFirefox } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';

// Service workers may not use top-level await: start the core now, await it where needed.
const coreReady = init({ module_or_path: ext.runtime.getURL('extension/pkg/bai_bg.wasm') })
  .then(() => ({ version: core.version(), error: null }))
  .catch((error) => ({ version: null, error: String(error?.message ?? error) }));

// The toolbar button opens the panel (Chrome side panel / Firefox sidebar).
if (ext.sidePanel?.setPanelBehavior) {
  ext.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
} else if (isFirefox && ext.sidebarAction?.toggle) {
  ext.action.onClicked.addListener(() => ext.sidebarAction.toggle());
}

/** Per-tab status, in session storage so it survives the worker being stopped and restarted. */
const tabKey = (tabId) => `tab:${tabId}`;

async function recordContentReady(tabId, message) {
  const status = {
    url: message.url,
    contentCore: message.coreVersion,
    startError: message.startError ?? null,
    startMs: message.startMs,
    chat: message.chat ?? null,
    at: Date.now(),
  };
  await ext.storage.session.set({ [tabKey(tabId)]: status });
  ext.runtime.sendMessage({ type: Msg.STATUS_CHANGED, tabId }).catch(() => {});
  return status;
}

/** The event log of a tab's chat session (most recent last, capped). */
const logKey = (tabId) => `log:${tabId}`;
const LOG_CAP = 500;
// Appends are serialized per tab: storage has no atomic append, and events arrive in bursts.
const logChains = new Map();

function appendLog(tabId, event) {
  const previous = logChains.get(tabId) ?? Promise.resolve();
  const next = previous.then(async () => {
    const stored = await ext.storage.session.get(logKey(tabId));
    const log = stored[logKey(tabId)] ?? [];
    log.push(event);
    if (log.length > LOG_CAP) log.splice(0, log.length - LOG_CAP);
    await ext.storage.session.set({ [logKey(tabId)]: log });
  });
  logChains.set(tabId, next.catch(() => {}));
  return next;
}

async function handle(message, sender) {
  switch (message?.type) {
    case Msg.CONTENT_READY: {
      const background = await coreReady;
      if (sender.tab?.id !== undefined) await recordContentReady(sender.tab.id, message);
      return { coreVersion: background.version, coreError: background.error };
    }
    case Msg.TAB_STATUS: {
      const background = await coreReady;
      const stored = await ext.storage.session.get(tabKey(message.tabId));
      return { background, tab: stored[tabKey(message.tabId)] ?? null };
    }
    case Msg.CHAT_EVENT: {
      const tabId = sender.tab?.id;
      if (tabId === undefined) return { error: 'chat events come from tabs' };
      await appendLog(tabId, message.event);
      ext.runtime.sendMessage({ type: Msg.STATUS_CHANGED, tabId }).catch(() => {});
      return { ok: true };
    }
    case Msg.TAB_LOG: {
      const stored = await ext.storage.session.get(logKey(message.tabId));
      return { log: stored[logKey(message.tabId)] ?? [] };
    }
    case Msg.USER_DECISION: {
      // Only the extension's own pages (the panel) may send decisions, never a content script.
      if (!sender.url?.startsWith(ext.runtime.getURL(''))) return { error: 'decisions come from the panel' };
      await ext.tabs.sendMessage(message.tabId, message);
      return { ok: true };
    }
    default:
      return { error: `unknown message type ${JSON.stringify(message?.type)}` };
  }
}

ext.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // Only our own extension's pages and content scripts can reach onMessage; still, treat the
  // message as data and answer every call.
  handle(message, sender).then(sendResponse, (error) => sendResponse({ error: String(error) }));
  return true;
});

ext.tabs.onRemoved.addListener((tabId) => {
  ext.storage.session.remove([tabKey(tabId), logKey(tabId)]).catch(() => {});
  logChains.delete(tabId);
});

// Exposed for the end-to-end tests, which read it through the worker (Chromium only).
globalThis.baiBackground = { coreReady };
