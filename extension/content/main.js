// The content script proper (an ES module, imported by loader.js). It starts the wasm core and
// hands the page to it; the logic lives in Rust (crate/src/chat, crate/src/dom).

import { ext } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';
import { Banner } from './banner.js';
import { startChat } from './chat.js';
import { startExecutor } from './executor.js';
import { executorCore, loadCore, wasmBlockedByPage } from './load-core.js';

/** Stable codes for why the core could not start; shown in the panel. */
function classifyStartError(error) {
  // Chromium applies the page's Content-Security-Policy to wasm compiled in content scripts; its
  // error text does not say so, so test it directly.
  if (wasmBlockedByPage()) return 'wasm_blocked_by_csp';
  return 'core_start_failed';
}

export async function start() {
  const started = performance.now();
  let coreVersion = null;
  let startError = null;
  // A chat page loads the chat role's module; every other page only the executor's (issue 17:
  // each content script loads what it uses). On the manifest's built-in chat hosts
  // (chat-host.js ran first) that is known at once; on a site the user added, the background
  // says, deciding in Rust (crate/src/sites.rs: a site the user added as a chat site). Without
  // an answer the page is no chat page.
  const role = globalThis.__baiBuiltInChatHost === true
    ? { mayRunChat: true, userChatSite: false }
    : await ext.runtime.sendMessage({ type: Msg.CONTENT_ROLE }).catch(() => null);
  const roleMs = performance.now() - started;
  const chatCapable = role?.mayRunChat === true;
  const userChatSite = role?.userChatSite === true;
  // The wasm build, or where the page's CSP forbids wasm (Chromium) the JS build of the same crate.
  const loaded = await loadCore(ext, chatCapable ? 'chat' : 'exec');
  const { core, flavor: coreFlavor, error } = loaded;
  try {
    if (error) throw error;
    coreVersion = core.version();
  } catch (error) {
    startError = { code: classifyStartError(error), message: String(error?.message ?? error) };
  }
  const startMs = performance.now() - started;
  // The chat module checks the host again (chat_page_status says `not_a_chat` wherever the
  // chat role may not run), whatever the background said.
  const chat = coreVersion && chatCapable ? JSON.parse(core.chat_page_status(userChatSite)) : null;
  // Every page the content script runs on can be a workflow's target; chat pages can too (a
  // workflow may act on its own chat tab), but `navigate` never takes a chat page away from
  // its conversation. On a chat page the executor's module loads only when an action runs here.
  const executor = executorCore(ext, chatCapable ? undefined : { now: loaded });
  if (coreVersion) startExecutor(executor, { canNavigate: !chat?.site_name && !chat?.site });

  const reply = await ext.runtime.sendMessage({
    type: Msg.CONTENT_READY,
    url: location.href,
    coreVersion,
    startError,
    startMs,
    // Where start-up went: asking the background for the role, then loading the module (and
    // its phases); before all that, importing this module and its imports (loader.js).
    startParts: {
      roleMs,
      loadMs: startMs - roleMs,
      ...loaded.phases,
      importMs: typeof globalThis.__baiLoaderAt === 'number' ? started - globalThis.__baiLoaderAt : null,
    },
    coreFlavor: coreVersion ? coreFlavor : null,
    coreRole: chatCapable ? 'chat' : 'exec',
    chat,
  });

  // 'messages': a readable chat; 'composer_only': watched (a new chat, whose first messages
  // show its layout); 'unrecognized': a chat host or an added chat site whose markup no profile
  // reads: say so instead of seeing nothing.
  let banner = null;
  const mountBanner = (status) => {
    banner = Banner.mount();
    banner.setCoreStatus({
      contentVersion: coreVersion,
      backgroundVersion: reply?.coreVersion ?? null,
      layout: status.layout,
      siteName: status.site_name,
    });
  };
  if (chat && chat.layout !== 'not_a_chat') mountBanner(chat);
  if (!chat?.may_run_chat || !reply?.coreVersion) return;
  if (chat.site) {
    await startChat(core, banner, executor);
    return;
  }
  watchForLateChat(core, userChatSite, chat.layout === 'unrecognized', (status) => {
    if (banner) banner.setLayout(status.layout);
    else mountBanner(status);
    startChat(core, banner, executor);
  });
}

/** How long a local page that shows no chat is watched for one rendered late. */
const LOCAL_WATCH_MS = 60_000;

/**
 * Single-page apps render their chat after the page loaded: look again when the page changes
 * (at most once a second) and call `found` once a layout profile matches. A page that should be
 * a chat (`keepWatching`) is watched until then; a local page for a minute.
 */
function watchForLateChat(core, userChatSite, keepWatching, found) {
  const started = performance.now();
  let scheduled = false;
  const observer = new MutationObserver(() => {
    if (scheduled) return;
    if (!keepWatching && performance.now() - started > LOCAL_WATCH_MS) {
      observer.disconnect();
      return;
    }
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      const status = JSON.parse(core.chat_page_status(userChatSite));
      if (!status.site) return;
      observer.disconnect();
      found(status);
    }, 1000);
  });
  observer.observe(document, { childList: true, subtree: true });
}
