// Classic content script (MV3 content scripts cannot be ES modules): it only imports the real
// module, which must be listed in web_accessible_resources.
(async () => {
  const api = globalThis.browser ?? globalThis.chrome;
  try {
    const main = await import(api.runtime.getURL('extension/content/main.js'));
    await main.start();
  } catch (error) {
    console.error('[bai] content script failed to start', error);
  }
})();
