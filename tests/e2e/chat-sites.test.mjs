// Chat layouts beyond ChatGPT's older generations, end to end in the real extension (one browser
// start per browser for the whole file): ChatGPT's July 2026 "li" layout with its signed-out
// React-controlled textarea (handshake streamed, Allow, ACK through that composer, actions,
// BAI_RESULT posted through it), the same flow on the Claude (ProseMirror), Gemini (Quill),
// Copilot (React textarea), Open WebUI (ProseMirror) and LibreChat (React textarea) fixture
// pages, a handshake whose code
// block lost its "bai" label (recognized by its content, logged with its rule), a page whose
// chat layout BAI does not read, and turning a public chat site on from the panel.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { actionLine, answerBanner, handshakeBlock, installTarget, openChat } from './lib/chat.mjs';

const OTHER_SITE = 'http://127.0.0.2/*';
const CLAUDE_SITE = 'https://claude.ai/*';
const ACK = /^BAI_ACK \{"protocol":"BAI\/0\.3","workflow_id":"([^"]+)","kind":"ack","state":"extension_acknowledged","ack_nonce":"(n_[0-9a-f]{32})"/;

/** The panel's log for the tab showing `url`, once an entry starts with `prefix`. */
async function panelLog(browser, url, prefix) {
  const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(url)}`);
  const items = await panel.waitFor(
    (start) => {
      const list = [...document.querySelectorAll('#log li')].map((li) => li.textContent);
      return list.some((text) => text.startsWith(start)) ? list : null;
    },
    { args: [prefix], what: `“${prefix}” in the panel` },
  ).catch(async (error) => {
    const shown = await panel.evaluate(() => [...document.querySelectorAll('#log li')].map((li) => li.textContent).join('\n'));
    throw new Error(`${error.message}; log:\n${shown}`);
  });
  return { panel, items };
}

for (const name of browserNames()) {
  describe(`chat layouts in ${name}`, () => {
    let server;
    let otherSite;
    let browser;

    before(async () => {
      server = await startServer();
      otherSite = await startServer({ host: '127.0.0.2' });
      browser = await BROWSERS[name].launch({ grantedHosts: [OTHER_SITE, CLAUDE_SITE] });
    });

    after(async () => {
      await browser?.close();
      await server?.close();
      await otherSite?.close();
    });

    test('ChatGPT li layout: streamed handshake, Allow, ACK and result through the React textarea', async () => {
      const workflowId = `wf-li-${name}`;
      // Trusted Types enforced by the page, and a stop button named only in French.
      const url = `${server.origin}/chat/c/li-${name}?markup=li&lang=fr&trusted-types=1`;
      const tab = await openChat(browser, url);
      await tab.evaluate(installTarget);
      assert.equal(await tab.evaluate(() => {
        try {
          document.body.insertAdjacentHTML('beforeend', '<i></i>');
          return 'html accepted';
        } catch {
          return 'refused';
        }
      }), 'refused', 'the page enforces Trusted Types');

      const id = await tab.evaluate(() => window.chatFixture.startAssistantMessage());
      assert.match(await tab.evaluate((id) => document.querySelector('li[data-message-role=assistant]').id, id), /^pending-/);
      const block = handshakeBlock(workflowId, { capabilities: ['action_lines', 'result_lines'] });
      await tab.evaluate((id, chunk) => window.chatFixture.appendAssistantChunk(id, chunk), id, `Ready.\n\n${block.slice(0, 40)}`);
      await tab.evaluate((id, chunk) => window.chatFixture.appendAssistantChunk(id, chunk), id, `${block.slice(40)}\n`);
      // Streaming, flagged on the item itself: nothing is asked before it completes.
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.messages === '1', { what: 'the streaming reply to be read' });
      assert.equal(await tab.evaluate(() => document.querySelector('bai-banner').dataset.question ?? null), null, 'no question while streaming');
      await tab.evaluate((id) => window.chatFixture.finishAssistantMessage(id), id);
      assert.equal(await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' }), workflowId);
      assert.equal(await tab.evaluate(() => document.querySelector('bai-banner').dataset.state), 'ready');

      await answerBanner(tab, 'allow');
      const ack = await tab.waitFor(() => window.chatFixture.sentMessages().find((text) => text.startsWith('BAI_ACK ')), { what: 'the ACK sent through the React composer' });
      const match = ACK.exec(ack);
      assert.ok(match, ack);
      assert.equal(match[1], workflowId);
      const nonce = match[2];
      assert.equal(await tab.evaluate(() => window.chatFixture.composerText()), '', 'React state empty after sending');
      const ackMessage = await tab.evaluate(() => document.querySelector('li[data-message-role=user] [data-user-message-copy]')?.textContent);
      assert.equal(ackMessage, ack, 'the ACK shows as a user message in its bubble');

      const lines = [
        actionLine(workflowId, nonce, 1, 'click', { selector: { type: 'css', value: '#counter' } }),
        actionLine(workflowId, nonce, 2, 'input_text', { selector: { type: 'aria', value: 'Email' }, text: 'li@example.com' }),
      ];
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `On it.\n\n${lines.join('\n')}`);
      const result = await tab.waitFor(() => window.chatFixture.sentMessages().find((text) => text.startsWith('BAI_RESULT ')), { what: 'the result line', timeout: 20000 });
      const report = JSON.parse(result.slice('BAI_RESULT '.length));
      assert.equal(report.workflow_id, workflowId);
      assert.deepEqual(report.actions.map((a) => [a.action_id, a.type, a.status]), [[1, 'click', 'ok'], [2, 'input_text', 'ok']]);
      assert.deepEqual(await tab.evaluate(() => window.__target), { clicks: 1, email: 'li@example.com', purchases: 0 });
      await tab.screenshot('chat-li-after-result');

      const { panel, items } = await panelLog(browser, url, 'Told ChatGPT what happened');
      assert.ok(items.some((t) => t.startsWith('Reading this chat (layout chatgpt-li)')), items.join('\n'));
      assert.ok(items.some((t) => t.startsWith('Posted the acknowledgement')), items.join('\n'));
      assert.match(await panel.evaluate(() => document.getElementById('chat-site').textContent), /^chatgpt-li: transcript readable/);
      await panel.close();
    });

    test('a handshake whose code block lost its label is recognized by its content, asked about and logged', async () => {
      const workflowId = `wf-unlabelled-${name}`;
      const url = `${server.origin}/chat/c/unlabelled-${name}?markup=li`;
      const tab = await openChat(browser, url);
      // The same object in a user message is never a handshake.
      await tab.evaluate((text) => window.chatFixture.addUserMessage(text), handshakeBlock(`${workflowId}-pasted`, { fence: '' }));
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `Here:\n\n${handshakeBlock(workflowId, { fence: '' })}`);
      assert.equal(await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' }), workflowId);
      await answerBanner(tab, 'deny');
      const { panel, items } = await panelLog(browser, url, 'Refused workflow');
      const recognized = items.filter((t) => t.startsWith('Took a code block for a handshake by its content'));
      assert.equal(recognized.length, 1, items.join('\n'));
      assert.match(recognized[0], /rule unlabelled_block_content/);
      assert.match(recognized[0], /assistant’s message 2/);
      assert.equal(await tab.evaluate(() => window.chatFixture.sentMessages().length), 0, 'nothing posted after Deny');
      await panel.close();
    });

    test('a site that does not take the inserted line: the panel says so, the box is left empty', async () => {
      const workflowId = `wf-deaf-${name}`;
      const url = `${server.origin}/chat/c/deaf-${name}?markup=li&composer=deaf`;
      const tab = await openChat(browser, url);
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshakeBlock(workflowId));
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      await answerBanner(tab, 'allow');
      const { panel, items } = await panelLog(browser, url, 'Could not post the acknowledgement');
      const failure = items.find((t) => t.startsWith('Could not post the acknowledgement'));
      // The React textarea reverts the text it ignored (insert_rejected); a site that keeps the
      // text but never enables send gives send_disabled (crate/tests/browser_chat_li.rs).
      assert.match(failure, /(insert_rejected|send_disabled): the chat did not take the text BAI inserted/);
      assert.ok(!items.some((t) => t.includes('when the message box is empty')), items.join('\n'));
      assert.equal(await tab.evaluate(() => document.querySelector('textarea#mobile-composer-prompt').value), '', 'BAI took its line back out');
      assert.deepEqual(await tab.evaluate(() => window.chatFixture.sentMessages()), []);
      assert.match(await tab.evaluate(() => document.querySelector('bai-banner').shadowRoot.textContent), /did not take the text/);
      await panel.close();
    });

    test('a chat site whose layout no profile reads says so, in the page and in the panel', async () => {
      // A page on a site the user adds as a chat site, whose markup is no chat BAI knows.
      const url = `${otherSite.origin}/plain.html`;
      const page = await browser.newTab(url);
      await page.waitFor(() => document.readyState === 'complete', { what: 'the page' });
      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(url)}`);
      await panel.waitFor(() => document.body.dataset.ready, { what: 'the panel' });
      await panel.evaluate((origin) => {
        document.getElementById('add-chat-site').value = origin;
      }, otherSite.origin);
      await panel.click('#add-chat-site-button');
      const banner = await page.waitFor(() => {
        const host = document.querySelector('bai-banner');
        return host?.dataset.state && { state: host.dataset.state, text: host.shadowRoot.textContent };
      }, { what: 'the banner on the added chat site' });
      assert.equal(banner.state, 'transcript_unreadable');
      assert.match(banner.text, /BAI does not recognize this page's chat layout/);
      const diagnostics = await panel.waitFor(() => {
        const text = document.getElementById('chat-site').textContent;
        return text.includes('recognize') && text;
      }, { what: 'the diagnostics' });
      assert.match(diagnostics, /^BAI does not recognize this page's chat layout/);
      await panel.screenshot('panel-unrecognized-layout');
      // The page renders a chat late (as single-page apps do): BAI starts reading it.
      await page.evaluate(() => {
        const list = document.createElement('ol');
        const item = document.createElement('li');
        item.setAttribute('data-message-role', 'user');
        item.id = 'late-1';
        const bubble = document.createElement('button');
        bubble.setAttribute('data-user-message-bubble', '');
        const copy = document.createElement('p');
        copy.setAttribute('data-user-message-copy', '');
        copy.textContent = 'hello';
        bubble.append(copy);
        item.append(bubble);
        list.append(item);
        document.body.append(list);
      });
      assert.equal(await page.waitFor(() => document.querySelector('bai-banner')?.dataset.state === 'ready' && document.querySelector('bai-banner').dataset.messages, { what: 'the late chat to be read' }), '1');
      assert.match(await panel.waitFor(() => {
        const text = document.getElementById('chat-site').textContent;
        return text.includes('readable') && text;
      }, { what: 'the diagnostics after the late chat' }), /^chatgpt-li: transcript readable/);
      await panel.close();
    });

    for (const site of ['claude', 'gemini', 'copilot', 'open-webui', 'librechat']) {
      test(`${site}: handshake, Allow, ACK through its composer, an action, the result`, async () => {
        const workflowId = `wf-${site}-${name}`;
        const url = `${server.origin}/chat/c/${site}-${name}?markup=${site}`;
        const tab = await openChat(browser, url);
        await tab.evaluate(installTarget);
        // The model's handshake (Gemini renders the ```bai block as "Code snippet").
        await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `Sure.\n\n${handshakeBlock(workflowId, { capabilities: ['action_lines', 'result_lines'] })}`);
        assert.equal(await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' }), workflowId);
        await answerBanner(tab, 'allow');
        const ack = await tab.waitFor(() => window.chatFixture.sentMessages().find((text) => text.startsWith('BAI_ACK ')), { what: `the ACK through ${site}'s composer` });
        const match = ACK.exec(ack);
        assert.ok(match, ack);
        assert.equal(await tab.evaluate(() => window.chatFixture.composerText()), '', 'the composer is empty again');
        await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), actionLine(workflowId, match[2], 1, 'click', { selector: { type: 'css', value: '#counter' } }));
        const result = await tab.waitFor(() => window.chatFixture.sentMessages().find((text) => text.startsWith('BAI_RESULT ')), { what: 'the result line', timeout: 20000 });
        const report = JSON.parse(result.slice('BAI_RESULT '.length));
        assert.deepEqual(report.actions.map((a) => [a.action_id, a.status]), [[1, 'ok']]);
        assert.equal(await tab.evaluate(() => window.__target.clicks), 1);
        const { panel, items } = await panelLog(browser, url, 'Told ChatGPT what happened');
        assert.ok(items.some((t) => t.startsWith(`Reading this chat (layout ${site})`)), items.join('\n'));
        const byContent = items.some((t) => t.startsWith('Took a code block for a handshake by its content'));
        assert.equal(byContent, site === 'gemini', `content rule used only where the label is lost: ${items.join('\n')}`);
        await tab.screenshot(`chat-${site}-after-result`);
        await panel.close();
      });
    }

    test('a public chat site is turned on from the panel in one click, and removed', async () => {
      const panel = await browser.openExtensionPage('extension/panel/panel.html');
      await panel.waitFor(() => document.querySelector('#optional-chat-sites li[data-pattern="https://claude.ai/*"] button'), { what: 'the offered chat sites' });
      const offered = await panel.evaluate(() => [...document.querySelectorAll('#optional-chat-sites li')].map((li) => li.dataset.pattern));
      assert.deepEqual(offered, ['https://claude.ai/*', 'https://gemini.google.com/*', 'https://copilot.microsoft.com/*']);
      await panel.click('#optional-chat-sites li[data-pattern="https://claude.ai/*"] button');
      const listed = await panel.waitFor(() => [...document.querySelectorAll('#sites li')].map((li) => `${li.dataset.pattern} ${li.dataset.kind}`).find((t) => t.startsWith('https://claude.ai/')), { what: 'Claude in the sites list' });
      assert.equal(listed, 'https://claude.ai/* chat');
      assert.equal(await panel.evaluate(() => (globalThis.browser ?? chrome).permissions.contains({ origins: ['https://claude.ai/*'] })), true);
      await panel.waitFor(() => document.querySelector('#optional-chat-sites li[data-pattern="https://claude.ai/*"]')?.dataset.on, { what: 'Claude shown as on' });
      await panel.screenshot('panel-chat-site-turned-on');
      await panel.click('#sites li[data-pattern="https://claude.ai/*"] button');
      await panel.waitFor(() => document.querySelector('#optional-chat-sites li[data-pattern="https://claude.ai/*"] button'), { what: 'Claude offered again' });
      await panel.close();
    });
  });
}
