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
  // On the built-in chat hosts (chat-host.js ran first) the page loads the chat module, so its
  // compile, the larger part of start-up in Firefox (bench/NOTES.md §6), starts now, beside the
  // import of main.js and its modules, instead of after it. load-core.js takes the promise, a
  // failure included: a page whose policy forbids wasm gets the JavaScript build as before.
  if (globalThis.__baiBuiltInChatHost === true && typeof WebAssembly === 'object') {
    const url = api.runtime.getURL('extension/pkg/bai_bg.wasm');
    const whole = () => fetch(url).then((response) => response.arrayBuffer()).then((bytes) => WebAssembly.compile(bytes));
    const compiling = typeof WebAssembly.compileStreaming === 'function'
      // A response without the wasm MIME type cannot be streamed (a TypeError); compile it whole.
      ? WebAssembly.compileStreaming(fetch(url)).catch((error) => {
        if (error instanceof TypeError) return whole();
        throw error;
      })
      : whole();
    // Settled here too: a failure is handled where the module is taken, not reported twice.
    compiling.catch(() => {});
    globalThis.__baiChatModuleCompiling = compiling;
  }
  try {
    const main = await import(api.runtime.getURL('extension/content/main.js'));
    await main.start();
  } catch (error) {
    console.error('[bai] content script failed to start', error);
  }
})();
