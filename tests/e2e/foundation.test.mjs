// Foundation: the real unpacked extension loads in Chromium and Firefox, its wasm core starts in
// the content script and in the background worker, and pages with a strict CSP behave as
// documented in the README ("Strict Content-Security-Policy pages").

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';

const bannerState = () => {
  const host = document.querySelector('bai-banner');
  return host && host.dataset.state ? { ...host.dataset, text: host.shadowRoot.textContent.trim() } : null;
};

for (const name of browserNames()) {
  describe(`foundation in ${name}`, () => {
    let server;
    let browser;

    before(async () => {
      server = await startServer();
      browser = await BROWSERS[name].launch();
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    test('the wasm core starts in the content script and in the background worker', async () => {
      const tab = await browser.newTab(`${server.origin}/chat-basic.html`);
      const state = await tab.waitFor(bannerState, { what: 'the BAI banner' });
      assert.equal(state.state, 'ready', `banner: ${JSON.stringify(state)}`);
      assert.match(state.coreContent, /^\d+\.\d+\.\d+$/, 'content-script core version');
      assert.equal(state.coreBackground, state.coreContent, 'background core answered with the same version');
      assert.match(state.text, /is watching this chat/);
      await tab.screenshot('foundation-chat-banner');
    });

    test('a page that is not a chat gets no banner', async () => {
      const tab = await browser.newTab(`${server.origin}/plain.html`);
      // The chat page above proves the content script runs on this origin; give this one the same
      // chance by waiting for its own page load, then for the core's status in the background.
      await tab.waitFor(() => document.readyState === 'complete');
      const chatTab = await browser.newTab(`${server.origin}/chat-basic.html`);
      await chatTab.waitFor(bannerState, { what: 'banner on a second chat tab (ordering barrier)' });
      assert.equal(await tab.evaluate(() => document.querySelector('bai-banner')), null);
    });

    test('strict CSP page: documented behavior', async () => {
      const tab = await browser.newTab(`${server.origin}/csp/chat.html`);
      await tab.waitFor(() => document.documentElement.dataset.pageScript === 'ran', { what: 'the page script' });
      if (name === 'firefox') {
        // Firefox does not apply the page's CSP to the extension's wasm: the core runs.
        const state = await tab.waitFor(bannerState, { what: 'the BAI banner' });
        assert.equal(state.state, 'ready');
      } else {
        // Chromium applies the page's CSP to wasm compiled in content scripts: the wasm build
        // cannot start, so the core runs from its JavaScript build (extension/pkg-js/), and the
        // panel says so.
        const state = await tab.waitFor(bannerState, { what: 'the BAI banner' });
        assert.equal(state.state, 'ready', `banner: ${JSON.stringify(state)}`);
        const status = await browser.inBackground(async (url) => {
          const tabs = await chrome.tabs.query({});
          const target = tabs.find((t) => t.url === url);
          for (let i = 0; i < 200; i++) {
            const stored = await chrome.storage.session.get(`tab:${target.id}`);
            if (stored[`tab:${target.id}`]) return { tabId: target.id, ...stored[`tab:${target.id}`] };
            await new Promise((r) => setTimeout(r, 50));
          }
          return null;
        }, `${server.origin}/csp/chat.html`);
        assert.ok(status, 'the content script reported to the background');
        assert.equal(status.startError, null, JSON.stringify(status));
        assert.equal(status.coreFlavor, 'js', JSON.stringify(status));
        // A chat page loads the chat role's module (the executor's only once it acts on itself).
        assert.equal(status.coreRole, 'chat', JSON.stringify(status));
        assert.equal(status.contentCore, state.coreContent);
        const panel = await browser.newTab(`${browser.extensionOrigin}/extension/panel/panel.html?tab=${status.tabId}`);
        const core = await panel.waitFor(() => {
          const el = document.getElementById('core-tab');
          return document.body.dataset.ready && el.dataset.code ? { ...el.dataset, text: el.textContent } : null;
        }, { what: 'the panel diagnostics' })
          .catch(async (error) => {
            throw new Error(`${error.message}; panel: ${await panel.evaluate(() => document.body.innerText)}`);
          });
        assert.equal(core.code, 'ready');
        assert.equal(core.flavor, 'js');
        assert.match(core.text, /JavaScript build/);
        await panel.screenshot('foundation-panel-csp');
      }
    });
  });
}
