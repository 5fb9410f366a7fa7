// The execution side: a workflow bound to another tab by "Copy protocol prompt" acts there (a
// React login form), never anywhere else; a closed target fails the action with a reason.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { actionLine, answerBanner, handshakeBlock, protocolPrompt, shownQuestion } from './lib/chat.mjs';

const ACK_NONCE = /"ack_nonce":"(n_[0-9a-f]{32})"/;

for (const name of browserNames()) {
  describe(`target tab in ${name}`, () => {
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

    test('the chat tab drives a React login in the bound target tab; a closed target fails closed', async () => {
      const targetUrl = `${server.origin}/target/login.html`;
      const target = await browser.newTab(targetUrl);
      await target.waitFor(() => window.__loginState, { what: 'the React app' });

      // The user opens the panel on the target page and copies the protocol prompt.
      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(targetUrl)}`);
      await panel.waitFor(() => document.body.dataset.ready);
      await panel.click('#copy-prompt');
      const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow, { what: 'the copied prompt' });
      const bound = await panel.evaluate(() => document.getElementById('prompt-target').textContent);
      assert.match(bound, /Example shop: sign in \(http:\/\/127\.0\.0\.1:\d+\)/);
      await panel.screenshot('panel-prompt-bound');

      // ChatGPT: the user pastes it, the model answers with the handshake.
      const chatUrl = `${server.origin}/chat/c/target-${name}`;
      const chat = await browser.newTab(chatUrl);
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.polls, { what: 'the chat session' });
      await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
      // `exact` on a selector belongs to extended_actions: the handshake lists it (without it the
      // engine refuses the field, capability_not_negotiated).
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshakeBlock(workflowId, { capabilities: ['action_lines', 'extended_actions'] }));
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      // The question window names the target's origin first, then the page's own title.
      const { text: question } = await shownQuestion(chat);
      assert.match(question, /asks to control\s*http:\/\/127\.0\.0\.1:\d+\s*page title “Example shop: sign in”/);
      await answerBanner(chat, 'allow');
      const ack = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text);
      const nonce = ACK_NONCE.exec(ack)[1];

      const line = (id, type, payload) => actionLine(workflowId, nonce, id, type, payload);
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), [
        line(1, 'input_text', { selector: { type: 'aria', value: 'Email' }, text: 'ada@example.com' }),
        line(2, 'input_text', { selector: { type: 'css', value: 'input[type=password]' }, text: 'correct horse' }),
        line(3, 'click', { selector: { type: 'text', value: 'Sign in', exact: true } }),
      ].join('\n'));
      // Typing into the password field always asks first.
      const passwordQuestion = await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the password question' });
      assert.equal(passwordQuestion, `${workflowId}:2`);
      assert.match((await shownQuestion(chat, passwordQuestion)).text, /types into or edits a password field/);
      assert.equal(await target.evaluate(() => window.__loginState.password), '', 'not typed before the user allows it');
      await answerBanner(chat, 'allow');
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.actionsRun === '3', { what: 'three actions' });

      // Proof from the React app's own state, in the target tab.
      const state = await target.waitFor(() => window.__loginState?.submitted && window.__loginState, { what: 'the React form to submit' })
        .catch(async (error) => {
          const p = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(chatUrl)}`);
          const items = await p.waitFor(() => document.body.dataset.ready && [...document.querySelectorAll('#log li')].map((li) => li.textContent));
          throw new Error(`${error.message}; chat log: ${items.join(' | ')}`);
        });
      assert.deepEqual(state, { email: 'ada@example.com', password: 'correct horse', submitted: true });
      assert.equal(await target.evaluate(() => document.querySelector('[role=status]')?.textContent), 'Welcome, ada@example.com');
      // Nothing happened in the chat tab itself.
      assert.equal(await chat.evaluate(() => window.chatFixture.sentMessages().length), 1, 'only the ACK was sent from the chat');
      await target.screenshot('target-signed-in');

      // The log says what happened, without the typed password.
      // The panel describes the tab it was opened for; the chat's log belongs to the chat tab.
      assert.equal(await panel.evaluate(() => document.querySelectorAll('#log li').length), 0, 'the target tab has no chat log of its own');
      const chatPanel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(chatUrl)}`);
      const chatLog = await chatPanel.waitFor(() => {
        const items = [...document.querySelectorAll('#log li')].map((li) => li.textContent);
        return items.some((t) => t.startsWith('Action 3: click')) ? items : null;
      }, { what: 'the chat tab log' });
      const text = chatLog.join('\n');
      assert.match(text, /Action 3: click text “Sign in”/);
      assert.ok(!text.includes('correct horse'), 'the password never appears in the panel');
      assert.match(await chatPanel.evaluate(() => document.getElementById('wf-target').textContent), /Example shop: sign in/);

      // The target tab closes; the next action fails with a reason and nothing else runs.
      await target.close();
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), [
        line(4, 'click', { selector: 'button' }),
        line(5, 'done', { success: true, summary: 'Signed in' }),
      ].join('\n'));
      const closed = await chatPanel.waitFor(() => [...document.querySelectorAll('#log li')].map((li) => li.textContent).find((t) => t.startsWith('Action 4')), { what: 'action 4 in the log' });
      assert.match(closed, /failed.*target_closed/);
      const skipped = await chatPanel.waitFor(() => [...document.querySelectorAll('#log li')].map((li) => li.textContent).find((t) => t.startsWith('Action 5')), { what: 'action 5 in the log' });
      assert.match(skipped, /skipped/);
      await chatPanel.screenshot('panel-target-closed');
    });
  });
}
