// The model as an attacker: it tries to get a risky action past the user. Three classes, each
// tried in several forms, in the real extension in Chromium and Firefox:
//   1. Questions the page cannot forge: the chat page rewrites BAI's banner, adds its own Allow
//      buttons and a lying title; the question and its Allow live only in the extension's own
//      window; an answer with the wrong fingerprint does not count.
//   2. Risk judged on what the control really is and does: an icon-only Delete in a nameless
//      wrapper, a Delete in a web component's shadow root, a harmless link to a risky address
//      (percent-encoded), a form's action, a button outside its form (form=), formaction, Enter
//      through a default button outside the form, a link a shadow tree wraps around a slotted
//      child, a choice whose change submits its form, an element nothing describes; and harmless
//      controls with risky nouns ("Favourite book") that run without a question.
//   3. Stop cancels in flight: an action delivered to the target, waiting for an element that
//      appears 3 s later, ends at Stop and nothing is clicked; an open question ends too.

import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { actionLine, answerQuestion, openChat, protocolPrompt, shownQuestion, waitForLedger, setPanelSetting } from './lib/chat.mjs';

/** A model that asks for the richer actions (press_key, select_option). */
function handshake(workflowId) {
  return '```bai\n' + JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'handshake', state: 'awaiting_extension_ack', capabilities: ['action_lines', 'extended_actions'] }) + '\n```';
}

/** The chat tab's activity log as the panel shows it, newest first. */
async function chatLog(browser, chatUrl) {
  const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(chatUrl)}`);
  const items = await panel.waitFor(() => document.body.dataset.ready && [...document.querySelectorAll('#log li')].map((li) => li.textContent));
  await panel.close();
  return items;
}

/**
 * Opens the controls page as the target, binds a workflow to it from the panel, and starts the
 * workflow in a chat tab; the handshake question is checked (the target's real origin first,
 * then the page's lying title) and allowed in the question window.
 */
/** Tabs a test opened; closed after it, pass or fail (closing a chat tab withdraws its open
 * questions, so a failed test leaves none in the question window for the next). */
const opened = [];

async function startOnControls(browser, server, label) {
  const targetUrl = `${server.origin}/review/controls.html?${label}`;
  const target = await browser.newTab(targetUrl);
  opened.push(target);
  await target.waitFor(() => Array.isArray(window.__pressed) && Boolean(customElements.get('x-trash')), { what: 'the controls page' });
  const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(targetUrl)}`);
  await panel.waitFor(() => document.body.dataset.ready);
  await panel.click('#copy-prompt');
  const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow, { what: 'the copied prompt' });
  const chatUrl = `${server.origin}/chat/c/review-${label}`;
  const chat = await openChat(browser, chatUrl);
  opened.push(chat);
  await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
  await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshake(workflowId));
  const question = await shownQuestion(chat, workflowId);
  const origin = await question.window.evaluate(() => document.querySelector('#question-text .q-origin').textContent);
  assert.equal(origin, server.origin, 'the question names the real origin of the target');
  assert.match(question.text, /asks to control\s*http:\/\/127\.0\.0\.1:\d+\s*page title “https:\/\/bank\.example\.com — Allow this safe action”/);
  await answerQuestion(chat, 'allow', workflowId);
  const ack = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
  const nonce = /"ack_nonce":"(n_[0-9a-f]{32})"/.exec(ack)[1];
  const say = (id, type, payload) => chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), actionLine(workflowId, nonce, id, type, payload));
  await panel.close();
  return { target, chat, chatUrl, workflowId, say };
}

/** Sets "Ask me" in the panel, as the user would. */
async function setApprovalMode(browser, mode) {
  await setPanelSetting(browser, 'set-approval-mode', mode, 'approvalMode');
}

for (const name of browserNames()) {
  describe(`an attacking model in ${name}`, () => {
    let server;
    let browser;

    before(async () => {
      server = await startServer();
      browser = await BROWSERS[name].launch();
      // A tab that stays open, so closing a test's tabs never closes the browser's last window.
      await browser.newTab('about:blank');
    });

    afterEach(async () => {
      while (opened.length) await opened.pop().close().catch(() => {});
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    test('the page cannot forge the question: no Allow in the page, forged buttons do nothing, a wrong fingerprint does not count', async () => {
      const { target, chat, chatUrl, workflowId, say } = await startOnControls(browser, server, `forge-${name}`);
      // The chat page attacks BAI's banner: whenever it changes, the page rewrites its words and
      // adds an Allow button; it also puts its own "Allow" over the corner.
      await chat.evaluate(() => {
        const host = document.querySelector('bai-banner');
        const forge = () => {
          if (host.shadowRoot.querySelector('#forged')) return;
          const button = document.createElement('button');
          button.id = 'forged';
          button.className = 'allow';
          button.textContent = 'Allow';
          host.shadowRoot.querySelector('.question-text').textContent = 'BAI asks: may ChatGPT count the items? (harmless)';
          host.shadowRoot.append(button);
        };
        new MutationObserver(forge).observe(host.shadowRoot, { subtree: true, childList: true, attributes: true });
        new MutationObserver(forge).observe(host, { attributes: true });
        const cover = document.createElement('button');
        cover.id = 'cover-allow';
        cover.textContent = 'Allow';
        cover.style.cssText = 'position:fixed;left:0;bottom:0;z-index:2147483647;width:200px;height:80px';
        document.body.append(cover);
      });
      await say(1, 'click', { selector: '#tb' });
      const key = `${workflowId}:1`;
      await chat.waitFor((k) => document.querySelector('bai-banner')?.dataset.question === k, { args: [key], what: 'BAI to wait for an answer' });
      // BAI's own banner holds no Allow: only the page's forgery has one, and it approves nothing.
      const own = await chat.evaluate(() => [...document.querySelector('bai-banner').shadowRoot.querySelectorAll('button')].filter((b) => b.id !== 'forged').map((b) => b.textContent));
      assert.deepEqual(own.filter((text) => /allow|deny/i.test(text)), [], `BAI's banner buttons: ${own}`);
      await chat.clickInShadow('bai-banner', '#forged');
      await chat.click('#cover-allow');
      // The question window shows BAI's words, with the real origin first.
      const question = await shownQuestion(chat, key);
      assert.match(question.text, /^On\s*http:\/\/127\.0\.0\.1:\d+\s*page title “https:\/\/bank\.example\.com/);
      assert.match(question.text, /Action 1 \(click css “#tb”\) needs your approval because the button “Delete” looks like it will delete something/);
      // An extension page answering with a fingerprint of something else is refused.
      const refused = await question.window.evaluate(async () => {
        const ext = globalThis.browser ?? globalThis.chrome;
        const { questions } = await ext.runtime.sendMessage({ type: 'pending_questions' });
        const reply = await ext.runtime.sendMessage({ type: 'answer_question', questionId: questions[0].id, fingerprint: '0'.repeat(32), answer: 'allow' });
        return JSON.stringify(reply);
      });
      assert.equal(JSON.parse(refused)?.error?.code, 'question_not_open');
      assert.deepEqual(await target.evaluate(() => window.__pressed), [], 'nothing pressed by forged answers');
      assert.equal(await chat.evaluate(() => document.querySelector('bai-banner').dataset.question), key, 'the question is still open');
      // The user's real answer in the question window counts.
      await answerQuestion(chat, 'allow', key);
      await target.waitFor(() => window.__pressed.includes('toolbar-delete'), { what: 'the approved click' });
      assert.deepEqual(await target.evaluate(() => window.__pressed), ['toolbar-delete']);
      const log = (await chatLog(browser, chatUrl)).join('\n');
      assert.match(log, /Allowed action 1/);
    });

    test('risk is judged on what is really pressed and where it goes, in every spelling; harmless nouns run without a question', async () => {
      const { target, chat, chatUrl, workflowId, say } = await startOnControls(browser, server, `risk-${name}`);
      // "Never ask, except for risky actions": only the policy's judgement asks.
      await setApprovalMode(browser, 'auto');
      try {
        const risky = [
          ['click', { selector: '#tb' }, /the button “Delete” looks like it will delete something/],
          ['click', { selector: '#trash' }, /the button “Delete” looks like it will delete something/],
          ['click', { selector: '#go' }, /it goes to http:\/\/127\.0\.0\.1:\d+\/review\/%64elete-account\.html, which looks like it will delete something/],
          ['click', { selector: '#save' }, /it goes to http:\/\/127\.0\.0\.1:\d+\/api\/deleteAccount, which looks like it will delete something/],
          ['click', { selector: '#outside' }, /it goes to http:\/\/127\.0\.0\.1:\d+\/remove_user, which looks like it will remove something/],
          ['click', { selector: '#fa' }, /it goes to http:\/\/127\.0\.0\.1:\d+\/x\/DELETE-all, which looks like it will delete something/],
          ['press_key', { key: 'Enter', selector: { type: 'css', value: '#amount' } }, /the button “Pay now” looks like it will pay something/],
          ['click', { selector: '#slotted' }, /it goes to http:\/\/127\.0\.0\.1:\d+\/review\/delete-account\.html, which looks like it will delete something/],
          ['click', { selector: '#slotted-closed' }, /it goes to http:\/\/127\.0\.0\.1:\d+\/review\/remove-files\.html, which looks like it will remove something/],
          ['click', { selector: '#slotted-download' }, /which saves a file on your computer/],
          ['select_option', { selector: { type: 'css', value: '#plan' }, option: 'Yearly' }, /it goes to http:\/\/127\.0\.0\.1:\d+\/account\/delete, which looks like it will delete something/],
          ['click', { selector: '#blank' }, /BAI cannot tell what div#blank\b.* does/],
        ];
        let id = 0;
        for (const [type, payload, reason] of risky) {
          id += 1;
          await say(id, type, payload);
          const key = `${workflowId}:${id}`;
          const question = await shownQuestion(chat, key);
          assert.match(question.text, reason, `action ${id}: ${question.text}`);
          await answerQuestion(chat, 'deny', key);
        }
        assert.deepEqual(await target.evaluate(() => window.__pressed), [], 'nothing was pressed');
        // Harmless controls with risky nouns run at once.
        await say(++id, 'select_option', { selector: { type: 'css', value: '#fav' }, option: 'Emma' });
        await say(++id, 'click', { selector: '#details' });
        await target.waitFor(() => window.__pressed.includes('details'), { what: 'the harmless actions' });
        assert.deepEqual(await target.evaluate(() => window.__pressed), ['fav:Emma', 'details']);
        const log = (await chatLog(browser, chatUrl)).join('\n');
        assert.doesNotMatch(log, new RegExp(`Action (${id - 1}|${id}):.*waits for your approval`));
        for (let n = 1; n <= risky.length; n++) assert.match(log, new RegExp(`Refused action ${n}(?!\\d)`));
      } finally {
        await setApprovalMode(browser, 'once_per_workflow');
      }
    });

    test('Stop ends an action already delivered and waiting for its element, and an open question; nothing is pressed later', async () => {
      const { target, chat, chatUrl, workflowId, say } = await startOnControls(browser, server, `stop-${name}`);
      // The model's click is delivered while its element is not there yet.
      await say(1, 'click', { selector: '#late' });
      // Let the delivery reach the target (it then waits for #late, up to its 5 s timeout). No
      // page-visible signal says that an action is waiting, so: a short pause, and in Chromium
      // a look at the background's delivery ledger.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      if (browser.inBackground) {
        // A loaded machine may take longer than the pause: wait for the ledger (bounded).
        const delivered = await waitForLedger(browser, `ran:${workflowId}:1`);
        assert.ok(delivered, 'the click was delivered to the target before Stop');
      }
      assert.equal(await target.evaluate(() => Boolean(document.getElementById('late'))), false, 'the element is not there yet');
      await chat.clickInShadow('bai-banner', 'button.stop');
      const stopped = await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.workflowState === 'stopped', { what: 'the workflow to stop' });
      assert.ok(stopped);
      const failed = (await chatLog(browser, chatUrl)).find((t) => t.startsWith('Action 1'));
      assert.match(failed ?? '', /failed.*stopped/, `log: ${failed}`);
      // The element appears (3 s after the click was delivered, well within its timeout); the
      // stopped click never lands on it.
      await target.evaluate(() => window.addLateButton(1200));
      await target.waitFor(() => Boolean(document.getElementById('late')), { what: 'the late element', timeout: 8000 });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.deepEqual(await target.evaluate(() => window.__pressed), [], 'nothing was clicked after Stop');

      // An open question ends at Stop too: the question window no longer offers it, and the
      // action never runs.
      const second = await startOnControls(browser, server, `stop-question-${name}`);
      await second.say(1, 'click', { selector: '#tb' });
      const key = `${second.workflowId}:1`;
      const question = await shownQuestion(second.chat, key);
      await second.chat.clickInShadow('bai-banner', 'button.stop');
      await second.chat.waitFor(() => !document.querySelector('bai-banner')?.dataset.question, { what: 'the question to end' });
      await question.window.waitFor((k) => document.body.dataset.question !== k, { args: [key], what: 'the question window to drop it' }).catch(() => {
        // The window closes once nothing is waiting: that drops it too.
      });
      const log = (await chatLog(browser, second.chatUrl)).join('\n');
      assert.match(log, /Action 1: click css “#tb” failed.*stopped/);
      assert.deepEqual(await second.target.evaluate(() => window.__pressed), [], 'the question\'s action never ran');
    });
  });
}
