// The content script proper (an ES module, imported by loader.js). It starts the wasm core and
// hands the page to it; the logic lives in Rust (crate/src/chat, crate/src/dom).

import init, * as core from '../pkg/bai.js';
import { ext } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';
import { Banner } from './banner.js';
import { startChat } from './chat.js';

/** True when this page forbids compiling WebAssembly: the smallest valid module fails to compile. */
function wasmBlockedByPage() {
  try {
    new WebAssembly.Module(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
    return false;
  } catch {
    return true;
  }
}

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
  try {
    await init({ module_or_path: ext.runtime.getURL('extension/pkg/bai_bg.wasm') });
    coreVersion = core.version();
  } catch (error) {
    startError = { code: classifyStartError(error), message: String(error?.message ?? error) };
  }
  const startMs = performance.now() - started;
  const chat = coreVersion ? JSON.parse(core.chat_page_status()) : null;

  const reply = await ext.runtime.sendMessage({
    type: Msg.CONTENT_READY,
    url: location.href,
    coreVersion,
    startError,
    startMs,
    chat,
  });

  if (chat?.site) {
    const banner = Banner.mount();
    banner.setCoreStatus({
      contentVersion: coreVersion,
      backgroundVersion: reply?.coreVersion ?? null,
      transcriptReadable: chat.transcript_readable,
      site: chat.site,
    });
    if (chat.transcript_readable && reply?.coreVersion) await startChat(core, banner);
  }
}
