// One place that hides the differences between Chrome and Firefox extension APIs.
// Both browsers expose `chrome.*` with promise-returning methods in Manifest V3; Firefox also has
// `browser.*`. Only the side panel differs: Chrome's sidePanel vs Firefox's sidebarAction.

/**
 * The extension API. Only message sending is typed (checked against the shapes declared in
 * messages.js); the rest of the browser API is left untyped.
 * @typedef {{
 *   runtime: { sendMessage: <M extends import('./messages.js').Message>(message: M) => Promise<import('./messages.js').ReplyOf<M>>, [api: string]: any },
 *   tabs: { sendMessage: <M extends import('./messages.js').Message>(tabId: number, message: M, options?: { frameId?: number }) => Promise<import('./messages.js').ReplyOf<M>>, [api: string]: any },
 *   [api: string]: any,
 * }} Ext
 */

/** @type {Ext} */
// @ts-ignore -- `browser` (Firefox) and `chrome` are the browsers' own globals, untyped here.
export const ext = globalThis.browser ?? globalThis.chrome;

// @ts-ignore -- the browsers' own global, untyped here.
export const isFirefox = typeof globalThis.browser !== 'undefined' && !!globalThis.browser.runtime?.getBrowserInfo;

/** Opens the panel: Chrome's side panel, or Firefox's sidebar. Must run inside a user gesture. */
export async function openPanel(tabId) {
  if (ext.sidePanel?.open) {
    await ext.sidePanel.open({ tabId });
  } else if (ext.sidebarAction?.open) {
    await ext.sidebarAction.open();
  }
}
