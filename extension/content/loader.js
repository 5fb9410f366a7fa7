// Classic content script (MV3 content scripts cannot be ES modules): it only imports the real
// module, which must be listed in web_accessible_resources.
(async () => {
  // The background also injects this file into a tab that was already open when the user granted
  // its site; if the content script already runs there (a registration got there first), a
  // second copy would start a second executor and chat session in the same tab.
  if (globalThis.__baiContentStarted) return;
  globalThis.__baiContentStarted = true;
  // When the content script began: importing main.js and its modules comes before start-up's
  // own clock (reported beside it, extension/content/main.js).
  globalThis.__baiLoaderAt = performance.now();
  const api = globalThis.browser ?? globalThis.chrome;
  try {
    const main = await import(api.runtime.getURL('extension/content/main.js'));
    await main.start();
  } catch (error) {
    console.error('[bai] content script failed to start', error);
  }
})();
