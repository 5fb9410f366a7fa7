// Sites the user adds: a target on a site the manifest does not grant (127.0.0.2) gets BAI only
// after the user allows it from "Copy protocol prompt"; the model then acts there; removing the
// site in Settings › Sites takes the access back and the next action fails closed.
//
// The permission prompt: Firefox runs its real permissions.request path with the prompt turned
// off by a pref (extensions.webextOptionalPermissionPrompts=false, set in browsers.mjs), so
// granting is covered end to end except the doorhanger's pixels. Chromium's dialog cannot be
// accepted in automation (no switch, no DevTools method), so its grant is recorded in the test
// profile before start (recordChromiumGrants in browsers.mjs, a test-only path) and the panel's
// permissions.request resolves true as for a site allowed earlier: everything after the user's
// "Allow" is covered, the dialog itself is not.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { actionLine, answerBanner, handshakeBlock, protocolPrompt, shownQuestion } from './lib/chat.mjs';

const ACK_NONCE = /"ack_nonce":"(n_[0-9a-f]{32})"/;
const SITE = 'http://127.0.0.2/*';

for (const name of browserNames()) {
  describe(`sites the user adds, in ${name}`, () => {
    let chatServer;
    let siteServer;
    let browser;

    before(async () => {
      chatServer = await startServer();
      siteServer = await startServer({ host: '127.0.0.2' });
      browser = await BROWSERS[name].launch({ grantedHosts: [SITE] });
    });

    after(async () => {
      await browser?.close();
      await chatServer?.close();
      await siteServer?.close();
    });

    test('Copy protocol prompt asks for the site, the model acts there, Remove takes it back', async () => {
      const targetUrl = `${siteServer.origin}/target/login.html`;
      const target = await browser.newTab(targetUrl);
      await target.waitFor(() => window.__loginState, { what: 'the React app' });

      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(targetUrl)}`);
      await panel.waitFor(() => document.body.dataset.ready);
      // Before the grant BAI does not run on the site at all.
      assert.equal(await panel.evaluate(() => document.getElementById('core-tab').textContent), 'not running in this tab');
      assert.equal(await panel.evaluate(() => document.querySelectorAll('#sites li').length), 0);

      await panel.click('#copy-prompt');
      const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow || document.getElementById('copy-status').textContent.startsWith('Not copied') && document.getElementById('copy-status').textContent, { what: 'the copied prompt' });
      assert.doesNotMatch(workflowId, /^Not copied/, workflowId);
      assert.match(await panel.evaluate(() => document.getElementById('prompt-target').textContent), /Example shop: sign in \(http:\/\/127\.0\.0\.2:\d+\)/);
      // The grant is the browser's, and the site is listed as a target site.
      assert.equal(await panel.evaluate((site) => (globalThis.browser ?? chrome).permissions.contains({ origins: [site] }), SITE), true);
      const listed = await panel.waitFor(() => {
        const items = [...document.querySelectorAll('#sites li')].map((li) => `${li.dataset.pattern} ${li.dataset.kind} ${li.textContent}`);
        return items.length > 0 && items;
      }, { what: 'the sites list' });
      assert.equal(listed.length, 1);
      assert.match(listed[0], /^http:\/\/127\.0\.0\.2\/\* target http:\/\/127\.0\.0\.2target siteRemove$/);
      // The page that was already open got the content script (injected), as the executor only.
      const running = await panel.waitFor(() => document.getElementById('core-tab').dataset.code === 'ready' && document.getElementById('chat-site').textContent, { what: 'the content script in the target tab' });
      assert.equal(running, 'not a chat page');
      // A target site loads the executor's module only, never the chat role's (issue 17).
      assert.equal(await panel.evaluate(() => document.getElementById('core-tab').dataset.role), 'exec');

      // The model's handshake in the local chat page, then Allow.
      const chatUrl = `${chatServer.origin}/chat/c/sites-${name}`;
      const chat = await browser.newTab(chatUrl);
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.polls, { what: 'the chat session' });
      await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshakeBlock(workflowId));
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      assert.match((await shownQuestion(chat)).text, /control\s*http:\/\/127\.0\.0\.2:\d+\s*page title “Example shop: sign in”/);
      await answerBanner(chat, 'allow');
      const ack = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text);
      const nonce = ACK_NONCE.exec(ack)[1];
      const line = (id, type, payload) => actionLine(workflowId, nonce, id, type, payload);

      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), line(1, 'input_text', { selector: { type: 'aria', value: 'Email' }, text: 'ada@example.com' }));
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.actionsRun === '1', { what: 'action 1' });
      // Proof from the React app's own state on 127.0.0.2.
      assert.equal(await target.waitFor(() => window.__loginState?.email, { what: 'the typed email' }), 'ada@example.com');

      // Settings › Sites, then Remove.
      await panel.evaluate(() => document.getElementById('sites-title').scrollIntoView());
      const shot = await panel.screenshot('panel-sites');
      assert.ok(shot);
      await panel.click('#sites li[data-pattern="http://127.0.0.2/*"] button');
      await panel.waitFor(() => document.querySelectorAll('#sites li').length === 0 && document.getElementById('sites-status').textContent, { what: 'the site to go' });
      assert.equal(await panel.evaluate((site) => (globalThis.browser ?? chrome).permissions.contains({ origins: [site] }), SITE), false, 'the browser grant is given back');
      await panel.screenshot('panel-sites-removed');

      // The content script still runs in the open tab until it reloads, so the refusal must come
      // from the background: the next action fails closed and the page is untouched.
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), line(2, 'input_text', { selector: { type: 'aria', value: 'Email' }, text: 'eve@example.com' }));
      const chatPanel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(chatUrl)}`);
      const failed = await chatPanel.waitFor(() => [...document.querySelectorAll('#log li')].map((li) => li.textContent).find((t) => t.startsWith('Action 2')), { what: 'action 2 in the log' });
      assert.match(failed, /failed.*target_access_removed: BAI no longer has access to http:\/\/127\.0\.0\.2:\d+/);
      assert.equal(await target.evaluate(() => window.__loginState.email), 'ada@example.com', 'nothing typed after the removal');
      await chatPanel.screenshot('panel-site-removed-action-failed');

      // A page opened on the site from now on gets no content script (a new tab: the old tab's
      // status stays in the background until the tab closes).
      const againUrl = `${targetUrl}?again`;
      const again = await browser.newTab(againUrl);
      await again.waitFor(() => window.__loginState && document.readyState === 'complete', { what: 'the app in a new tab' });
      const afterRemoval = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(againUrl)}`);
      await afterRemoval.waitFor(() => document.body.dataset.ready);
      assert.equal(await afterRemoval.evaluate(() => document.getElementById('core-tab').textContent), 'not running in this tab');
    });
  });

  describe(`a chat site the user adds, in ${name}`, () => {
    let chatServer;
    let siteServer;
    let browser;

    before(async () => {
      chatServer = await startServer();
      siteServer = await startServer({ host: '127.0.0.2' });
      browser = await BROWSERS[name].launch({ grantedHosts: [SITE] });
    });

    after(async () => {
      await browser?.close();
      await chatServer?.close();
      await siteServer?.close();
    });

    test('a self-hosted chat UI is read only after the user adds it as a chat site', async () => {
      // A ChatGPT-compatible chat served from a site BAI has no access to yet.
      const chatUrl = `${siteServer.origin}/chat/c/self-hosted-${name}`;
      const chat = await browser.newTab(chatUrl);
      await chat.waitFor(() => window.chatFixture && document.readyState === 'complete', { what: 'the chat page' });
      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(chatUrl)}`);
      await panel.waitFor(() => document.body.dataset.ready);
      assert.equal(await panel.evaluate(() => document.getElementById('core-tab').textContent), 'not running in this tab');
      assert.equal(await chat.evaluate(() => document.querySelector('bai-banner')), null, 'no BAI before the user adds the site');

      // Settings › Sites › Add chat site.
      await panel.evaluate((origin) => {
        document.getElementById('add-chat-site').value = origin;
      }, siteServer.origin);
      await panel.click('#add-chat-site-button');
      const listed = await panel.waitFor(() => {
        const items = [...document.querySelectorAll('#sites li')].map((li) => `${li.dataset.pattern} ${li.dataset.kind}`);
        return items.length > 0 && items;
      }, { what: 'the sites list' });
      assert.deepEqual(listed, ['http://127.0.0.2/* chat']);

      // The open tab gets the content script, as a chat page: the model's handshake is asked
      // about and acknowledged through the page's own composer.
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.polls, { what: 'the chat session on the added site' });
      const workflowId = `wf-self-hosted-${name}`;
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshakeBlock(workflowId));
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      await answerBanner(chat, 'allow');
      const ack = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
      assert.match(ack, new RegExp(`"workflow_id":"${workflowId}"`));
      await panel.screenshot('panel-chat-site-added');
    });
  });
}
