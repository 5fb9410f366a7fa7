// One place that hides the differences between Chrome and Firefox extension APIs.
// Both browsers expose `chrome.*` with promise-returning methods in Manifest V3; Firefox also has
// `browser.*`. Only the side panel differs: Chrome's sidePanel vs Firefox's sidebarAction.

export const ext = globalThis.browser ?? globalThis.chrome;

export const isFirefox = typeof globalThis.browser !== 'undefined' && !!globalThis.browser.runtime?.getBrowserInfo;

/** Opens the panel: Chrome's side panel, or Firefox's sidebar. Must run inside a user gesture. */
export async function openPanel(tabId) {
  if (ext.sidePanel?.open) {
    await ext.sidePanel.open({ tabId });
  } else if (ext.sidebarAction?.open) {
    await ext.sidebarAction.open();
  }
}
