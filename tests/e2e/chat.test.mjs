// The chat side end to end, in the real extension: the pasted protocol, a streamed handshake,
// the user's approval, the ACK through the real ProseMirror composer, actions on the page, the
// panel's account of it, and nothing re-executed after a reload.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { FIXTURES, startServer } from './lib/server.mjs';
import { ACK_LINE, actionLine, answerBanner, bannerState, handshakeBlock, installTarget, openChat, protocolPrompt, shownQuestion, startWorkflow } from './lib/chat.mjs';

/** Waits until the content script has finished a poll after the current moment. */
async function settled(tab) {
  const before = Number(await tab.evaluate(() => document.querySelector('bai-banner')?.dataset.polls ?? 0));
  await tab.evaluate(() => {
    // Any DOM change makes the session poll once more; this one is outside the transcript.
    const nudge = document.createElement('span');
    nudge.hidden = true;
    document.body.append(nudge);
  });
  await tab.waitFor((n) => Number(document.querySelector('bai-banner')?.dataset.polls ?? 0) > n, { args: [before], what: 'the next poll' });
}

for (const name of browserNames()) {
  describe(`chat side in ${name}`, () => {
    let server;
    let browser;

    before(async () => {
      // ChatGPT's new-chat page is "/": the chat page is served there too.
      const chatPage = await fs.readFile(path.join(FIXTURES, 'pages', 'chat', 'index.html'));
      server = await startServer({
        route: (request, response) => {
          if (request.url.split('?')[0] !== '/') return false;
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(chatPage);
          return true;
        },
      });
      browser = await BROWSERS[name].launch();
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    test('pasted protocol, streamed handshake, approval, ACK through the composer, actions, panel', async () => {
      const workflowId = `wf-e2e-${name}`;
      const url = `${server.origin}/chat/c/happy-${name}?markup=2025`;
      const tab = await openChat(browser, url);
      await tab.evaluate(installTarget);

      // The user pastes the protocol: its example lines and bai block never act.
      await tab.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
      await settled(tab);
      let state = await tab.evaluate(bannerState);
      assert.equal(state.question, undefined, 'no question for the pasted protocol');

      // The model streams its handshake; half a block asks nothing.
      const id = await tab.evaluate(() => window.chatFixture.startAssistantMessage());
      await tab.evaluate((id, chunk) => window.chatFixture.appendAssistantChunk(id, chunk), id, 'Ready when you are.\n\n```bai\n{"protocol":"BAI/0.3",');
      await settled(tab);
      assert.equal((await tab.evaluate(bannerState)).question, undefined, 'no question while the handshake streams');
      const block = handshakeBlock(workflowId);
      await tab.evaluate((id, chunk) => window.chatFixture.appendAssistantChunk(id, chunk), id, block.slice(block.indexOf('"workflow_id"')) + '\n');
      await settled(tab);
      assert.equal((await tab.evaluate(bannerState)).question, undefined, 'no question before the message completes');
      await tab.evaluate((id) => window.chatFixture.finishAssistantMessage(id), id);
      state = await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      assert.equal(state, workflowId);
      await tab.screenshot('chat-approval-question');

      // The user allows (a real click); the ACK goes through the real composer as a user message.
      await answerBanner(tab, 'allow');
      const ack = await tab.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK message' });
      const match = ACK_LINE.exec(ack);
      assert.ok(match, `exact ACK line: ${ack}`);
      assert.equal(match[1], workflowId);
      const nonce = match[2];
      assert.deepEqual(await tab.evaluate(() => window.chatFixture.sentMessages()), [ack], 'sent through the composer');
      assert.equal(await tab.evaluate(() => window.chatFixture.composerText()), '', 'composer left empty');

      // The model acts.
      const lines = [
        actionLine(workflowId, nonce, 1, 'click', { selector: { type: 'css', value: '#counter' } }),
        actionLine(workflowId, nonce, 2, 'input_text', { selector: { type: 'aria', value: 'Email' }, text: 'user@example.com' }),
        actionLine(workflowId, nonce, 3, 'done', { success: true, summary: 'Clicked and typed' }),
      ];
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `Doing it now.\n\n${lines.join('\n')}`);
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.workflowState === 'done', { what: 'the workflow to finish' });
      // The poll that decided them also ran them (one at a time) before it reported.
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.actionsRun === '2', { what: 'two actions to run' });
      assert.deepEqual(await tab.evaluate(() => window.__target), { clicks: 1, email: 'user@example.com', purchases: 0 });
      await tab.screenshot('chat-after-actions');

      // The panel tells the story.
      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(url)}`);
      const log = await panel.waitFor(() => {
        const items = [...document.querySelectorAll('#log li')].map((li) => li.textContent);
        return items.some((t) => t.startsWith('Action 3: done')) ? items : null;
      }, { what: 'the panel log' });
      assert.ok(log.some((t) => t.startsWith('Ignored 11 protocol lines in a user message (foreign_ack, action_from_user, foreign_result)')), log.join('\n'));
      assert.ok(log.some((t) => t.startsWith(`ChatGPT asks to start workflow ${workflowId}`)), log.join('\n'));
      assert.ok(log.some((t) => t.startsWith(`Allowed workflow ${workflowId}`)), log.join('\n'));
      assert.ok(log.some((t) => t.startsWith('Posted the acknowledgement')), log.join('\n'));
      assert.ok(log.some((t) => t.startsWith('Action 1: click css “#counter”')), log.join('\n'));
      assert.ok(log.some((t) => t.startsWith('Action 2: input_text aria “Email”')), log.join('\n'));
      assert.ok(!log.join('\n').includes('user@example.com'), 'typed text is not shown in the log');
      assert.equal(await panel.evaluate(() => document.body.dataset.workflowState), 'done');
      await panel.screenshot('panel-after-workflow');
      if (panel.page) {
        // Chromium can emulate the dark color scheme: the panel follows it.
        await panel.page.emulateMedia({ colorScheme: 'dark' });
        assert.equal(await panel.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(17, 24, 39)');
        await panel.screenshot('panel-after-workflow-dark');
      }
      await panel.close();
    });

    test('a reload mid-workflow re-executes nothing; an old conversation acts on nothing', async () => {
      const workflowId = `wf-reload-${name}`;
      const path = `/chat/c/reload-${name}`;
      const url = `${server.origin}${path}`;
      const tab = await openChat(browser, url);
      await tab.evaluate(installTarget);
      const nonce = await startWorkflow(tab, workflowId);
      const click = (id) => actionLine(workflowId, nonce, id, 'click', { selector: '#counter' });
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), click(1));
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.actionsRun === '1');
      assert.equal(await tab.evaluate(() => window.__target.clicks), 1);

      // Reload: the page renders the same conversation again, all at once.
      await tab.goto(url);
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.polls, { what: 'the resumed session' });
      await tab.evaluate(installTarget);
      assert.equal(await tab.evaluate(() => window.chatFixture.messages().length), 3, 'handshake, ACK, action restored');
      await settled(tab);
      const afterReload = await tab.evaluate(() => ({ ...document.querySelector('bai-banner').dataset, clicks: window.__target.clicks }));
      assert.equal(afterReload.actionsRun, '0', 'no action re-executed after the reload');
      assert.equal(afterReload.clicks, 0);
      assert.equal(afterReload.question, undefined, 'no second approval question');
      assert.equal(await tab.evaluate(() => window.chatFixture.sentMessages().length), 0, 'no second ACK');
      // The workflow goes on: the next action runs, once.
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), click(2));
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.actionsRun === '1', { what: 'action 2 to run' });
      assert.equal(await tab.evaluate(() => window.__target.clicks), 1);

      // The same conversation opened at another address, with no state of ours: an old
      // conversation. Its handshake is stale and its nonce is not ours: nothing happens.
      const old = await browser.newTab(`${server.origin}/chat/c/old-copy-${name}?conversation=${encodeURIComponent(path)}`);
      await old.waitFor(() => document.querySelector('bai-banner')?.dataset.polls, { what: 'the old conversation to be read' });
      await old.evaluate(installTarget);
      await settled(old);
      const oldState = await old.evaluate(() => ({ ...document.querySelector('bai-banner').dataset, messages: window.chatFixture.messages().length }));
      assert.equal(oldState.messages, 4, 'handshake, ACK, two actions');
      assert.equal(oldState.actionsRun, '0');
      assert.equal(oldState.question, undefined, 'no approval asked for an old handshake');
      assert.equal(await old.evaluate(() => window.__target.clicks), 0);
    });

    test('a conversation opened from the new-chat page keeps its own state: a denied handshake is not asked again', async () => {
      const conversation = `/chat/c/from-new-chat-${name}`;
      const tab = await openChat(browser, `${server.origin}${conversation}`);
      await tab.evaluate(() => window.chatFixture.addUserMessage('please start a workflow'));
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshakeBlock(`wf-denied-${name}`));
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the question' });
      await answerBanner(tab, 'deny');
      await settled(tab);

      // The user goes to "/" and clicks the conversation in the sidebar: the address changes
      // first (pushState), then the page renders the conversation it fetched.
      await tab.goto(`${server.origin}/`);
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.polls, { what: 'the session on /' });
      await settled(tab);
      await tab.evaluate((path) => history.pushState({}, '', path), conversation);
      await settled(tab);
      const rendered = await tab.evaluate((path) => {
        const saved = JSON.parse(localStorage.getItem(`chatFixture:${path}`) ?? '[]');
        for (const { role, source } of saved) {
          if (role === 'user') window.chatFixture.addUserMessage(source);
          else window.chatFixture.addAssistantMessage(source);
        }
        return saved.length;
      }, conversation);
      assert.equal(rendered, 2);
      await settled(tab);
      await settled(tab);
      assert.equal((await tab.evaluate(bannerState)).question, undefined, 'the denied handshake is not asked about again');
    });

    test('a failed action says why and skips the rest of its message; Stop ends the workflow', async () => {
      const workflowId = `wf-fail-${name}`;
      const url = `${server.origin}/chat/c/fail-${name}?markup=2024`;
      const tab = await openChat(browser, url);
      await tab.evaluate(installTarget);
      const nonce = await startWorkflow(tab, workflowId);
      const lines = [
        actionLine(workflowId, nonce, 1, 'click', { selector: '#counter >>> !' }),
        actionLine(workflowId, nonce, 2, 'click', { selector: '#counter' }),
      ];
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), lines.join('\n'));
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.actionsRun === '1', { what: 'action 1 to be tried' });
      await settled(tab);
      assert.equal(await tab.evaluate(() => window.__target.clicks), 0, 'action 2 was skipped');

      // Stop, from the banner (a real click).
      await tab.clickInShadow('bai-banner', 'button.stop');
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.workflowState === 'stopped', { what: 'the workflow to stop' });
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), actionLine(workflowId, nonce, 3, 'click', { selector: '#counter' }));
      await settled(tab);
      assert.equal(await tab.evaluate(() => window.__target.clicks), 0, 'nothing runs after Stop');

      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(url)}`);
      const log = await panel.waitFor(() => {
        const items = [...document.querySelectorAll('#log li')].map((li) => li.textContent);
        return items.some((t) => t.includes('workflow_finished')) ? items : null;
      }, { what: 'the refusal after Stop' });
      const text = log.join('\n');
      assert.match(text, /Action 1: click css “#counter >>> !” failed/);
      assert.match(text, /invalid_selector/);
      assert.match(text, /Action 2: click skipped/);
      assert.match(text, /Stopped workflow/);
      assert.equal(await panel.evaluate(() => document.body.dataset.workflowState), 'stopped');
      await panel.screenshot('panel-failure-and-stop');
      await panel.close();
    });

    test('a risky click waits for the user: denied in the page, it never runs; allowed in the panel, it runs once', async () => {
      const workflowId = `wf-risky-${name}`;
      const url = `${server.origin}/chat/c/risky-${name}`;
      const tab = await openChat(browser, url);
      await tab.evaluate(installTarget);
      const nonce = await startWorkflow(tab, workflowId);

      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), actionLine(workflowId, nonce, 1, 'click', { selector: '#buy' }));
      const question = await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the action question' });
      assert.equal(question, `${workflowId}:1`);
      const { text } = await shownQuestion(tab, question);
      assert.match(text, /Action 1 \(click css “#buy”\) needs your approval/);
      assert.match(text, /the button “Buy now” looks like it will buy something/);
      assert.equal(await tab.evaluate(() => window.__target.purchases), 0, 'nothing bought while asking');
      await tab.screenshot('chat-risky-question');
      await answerBanner(tab, 'deny');
      await tab.waitFor(() => !document.querySelector('bai-banner').dataset.question, { what: 'the question to close' });

      // The model tries again; this time the user allows it from the panel.
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), actionLine(workflowId, nonce, 2, 'click', { selector: '#buy' }));
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the second question' });
      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(url)}`);
      await panel.waitFor(() => document.getElementById('question').dataset.action === '2', { what: 'the question in the panel' });
      assert.match(await panel.evaluate(() => document.getElementById('question-text').textContent), /Action 2 \(click css “#buy”\) needs your approval/);
      await panel.screenshot('panel-risky-question');
      // Allow accepts answers a moment after the question appears (a stray click cannot answer).
      await panel.waitFor(() => document.getElementById('question').dataset.questionReady, { what: 'the panel question to accept answers' });
      await panel.click('#allow');
      await tab.waitFor(() => window.__target.purchases === 1, { what: 'the approved purchase' });
      const log = await panel.waitFor(() => {
        const items = [...document.querySelectorAll('#log li')].map((li) => li.textContent);
        return items.some((t) => t.startsWith('Allowed action 2')) ? items : null;
      }, { what: 'the approval in the log' });
      const all = log.join('\n');
      assert.match(all, /Refused action 1/);
      assert.match(all, /Action 1: click css “#buy” failed.*denied_by_user/);
      assert.equal(await tab.evaluate(() => window.__target.purchases), 1, 'runs once');
      await panel.close();
    });

    test('BAI never overwrites what the user is typing; insert-only leaves its line for the user to send', async () => {
      const url = `${server.origin}/chat/c/typing-${name}`;
      const tab = await openChat(browser, url);
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshakeBlock(`wf-typing-${name}`));
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      // The user is in the middle of writing something.
      await tab.type('#prompt-textarea', 'half a thought');
      await answerBanner(tab, 'allow');
      const note = await tab.waitFor(() => document.querySelector('bai-banner').shadowRoot.querySelector('.note')?.textContent, { what: 'the waiting note' });
      assert.match(note, /when the message box is empty/);
      assert.equal(await tab.evaluate(() => window.chatFixture.composerText()), 'half a thought', 'the draft is untouched');
      assert.deepEqual(await tab.evaluate(() => window.chatFixture.sentMessages()), []);
      // The user goes back to their draft and sends it; then BAI posts its line.
      await tab.click('#prompt-textarea');
      await tab.press('Enter');
      const sent = await tab.waitFor(() => window.chatFixture.sentMessages().length === 2 && window.chatFixture.sentMessages(), { what: 'the ACK after the user\'s message', timeout: 15000 })
        .catch(async (error) => {
          throw new Error(`${error.message}: ${JSON.stringify(await tab.evaluate(() => ({ sent: window.chatFixture.sentMessages(), composer: window.chatFixture.composerText(), note: document.querySelector('bai-banner').shadowRoot.querySelector('.note')?.textContent })))}`);
        });
      assert.equal(sent[0], 'half a thought');
      assert.match(sent[1], /^BAI_ACK \{"protocol":"BAI\/0\.3","workflow_id":"wf-typing-/);

      // Insert-only: the line waits in the composer for the user.
      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(url)}`);
      await panel.waitFor(() => document.body.dataset.ready);
      await panel.click('#set-insert-only');
      await panel.waitFor(() => document.getElementById('set-insert-only').checked);
      const url2 = `${server.origin}/chat/c/insert-only-${name}`;
      const other = await openChat(browser, url2);
      await other.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshakeBlock(`wf-insert-${name}`));
      await other.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      await answerBanner(other, 'allow');
      const composed = await other.waitFor(() => window.chatFixture.composerText().startsWith('BAI_ACK ') && window.chatFixture.composerText(), { what: 'the ACK in the composer' });
      assert.match(composed, /"workflow_id":"wf-insert-/);
      assert.deepEqual(await other.evaluate(() => window.chatFixture.sentMessages()), [], 'not sent by BAI');
      await panel.click('#set-insert-only');
      await panel.waitFor(() => !document.getElementById('set-insert-only').checked);
      await panel.close();
    });

    test('the same conversation open in two tabs runs each action once', async () => {
      const workflowId = `wf-twotabs-${name}`;
      const url = `${server.origin}/chat/c/two-tabs-${name}`;
      const first = await openChat(browser, url);
      await first.evaluate(installTarget);
      const nonce = await startWorkflow(first, workflowId);
      // A second tab shows the same conversation (it resumes the saved state).
      const second = await openChat(browser, url);
      await second.evaluate(installTarget);
      await settled(second);
      // The model's next message appears in both tabs.
      const line = actionLine(workflowId, nonce, 1, 'click', { selector: '#counter' });
      await first.evaluate((text) => window.chatFixture.addAssistantMessage(text), line);
      await first.waitFor(() => window.__target.clicks === 1, { what: 'the click in the first tab' });
      await second.evaluate((text) => window.chatFixture.addAssistantMessage(text), line);
      await second.waitFor(() => document.querySelector('bai-banner')?.dataset.actionsRun === '1', { what: 'the second tab to consider it' });
      assert.equal(await second.evaluate(() => window.__target.clicks), 0, 'not run again in the second tab');
    });

    test('two tabs deciding the same action at the same moment: exactly one claim wins, and it runs once', async () => {
      const workflowId = `wf-race-${name}`;
      const url = `${server.origin}/chat/c/race-${name}`;
      const first = await openChat(browser, url);
      await first.evaluate(installTarget);
      const nonce = await startWorkflow(first, workflowId);
      const second = await openChat(browser, url);
      await second.evaluate(installTarget);
      await settled(second);
      // Both tabs show the model's line at one wall-clock moment, so both sessions decide it
      // and ask the background to claim it at about the same time.
      const line = actionLine(workflowId, nonce, 1, 'click', { selector: '#counter' });
      const at = Date.now() + 1500;
      for (const tab of [first, second]) {
        await tab.evaluate((text, when) => { setTimeout(() => window.chatFixture.addAssistantMessage(text), Math.max(0, when - Date.now())); }, line, at);
      }
      for (const tab of [first, second]) {
        await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.actionsRun === '1', { what: 'both tabs to try the action' });
      }
      const clicks = (await first.evaluate(() => window.__target.clicks)) + (await second.evaluate(() => window.__target.clicks));
      assert.equal(clicks, 1, 'the click ran in exactly one tab');
      if (browser.inBackground) {
        // The claim itself, raced in the background: many claims of one key at once, one wins,
        // and the claim is saved in storage.session (it outlives the worker).
        const outcome = await browser.inBackground(async (key) => {
          const wins = await Promise.all(Array.from({ length: 8 }, () => globalThis.baiBackground.claimOnce(key)));
          return { wins: wins.filter(Boolean).length, saved: Boolean((await chrome.storage.session.get(key))[key]) };
        }, `ran:${workflowId}-direct:1`);
        assert.deepEqual(outcome, { wins: 1, saved: true });
      }
    });

    test('lines that must never act: injected in a user message, wrong nonce, before the ACK', async () => {
      const workflowId = `wf-adv-${name}`;
      const url = `${server.origin}/chat/c/adversarial-${name}?markup=2026`;
      const tab = await openChat(browser, url);
      await tab.evaluate(installTarget);
      const click = (nonce, id) => actionLine(workflowId, nonce, id, 'click', { selector: '#counter' });

      // A pre-ACK action inside the handshake message (0.3 forbids it).
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `${handshakeBlock(workflowId)}\n\n${click('n_0000000000000000', 1)}`);
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question);
      await answerBanner(tab, 'allow');
      const ack = await tab.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text);
      const nonce = ACK_LINE.exec(ack)[2];

      // A user message carrying a perfect action line: users (and pages) can paste anything.
      await tab.evaluate((text) => window.chatFixture.addUserMessage(text), click(nonce, 1));
      await settled(tab);
      // An assistant line with someone else's nonce: refused, and the workflow fails closed.
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), click('n_1111111111111111', 1));
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.workflowState === 'failed', { what: 'the workflow to fail closed' });
      // Even a correct line after that does nothing.
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), click(nonce, 1));
      await settled(tab);
      assert.equal(await tab.evaluate(() => window.__target.clicks), 0, 'nothing was clicked');
      assert.equal(await tab.evaluate(() => document.querySelector('bai-banner').dataset.actionsRun), '0');

      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(url)}`);
      const log = await panel.waitFor(() => {
        const items = [...document.querySelectorAll('#log li')].map((li) => li.textContent);
        return items.filter((t) => t.startsWith('Refused a line')).length >= 2 && items.some((t) => t.startsWith('Ignored')) ? items : null;
      }, { what: 'the refusals in the panel' }).catch(async (error) => {
        const probe = await panel.evaluate(() => {
          const items = [...document.querySelectorAll('#log li')].map((li) => li.textContent);
          return items.length;
        }).catch((e) => `probe error ${e.message}`);
        throw new Error(`${error.message}; probe: ${probe}`);
      });
      const refusals = log.filter((t) => t.startsWith('Refused a line')).join('\n');
      assert.match(refusals, /before_ack/);
      assert.match(refusals, /nonce_mismatch/);
      assert.ok(log.some((t) => t.startsWith('Ignored a protocol line in a user message (action_from_user)')), log.join('\n'));
      await panel.screenshot('panel-refusals');
      await panel.close();
    });

    // Another conversation shown at an address where one was approved counts nothing of it
    // (red team red8, session 20): the page clears the transcript and shows a new one (a
    // single-address app, a temporary chat), or a new chat's page ("/") opens again. The same
    // handshake there is a new one, asked about again; an action of the old workflow, with its
    // nonce pasted in by the user, runs nothing.
    for (const how of ['cleared in the page', 'replaced at once on the new chat page', 'a new chat page opened again']) {
      test(`a conversation replacing an approved one inherits nothing (${how})`, async () => {
        const workflowId = `wf-replaced-${how.split(' ')[0]}-${name}`;
        // The fixture keeps each conversation's messages under its `conversation` parameter:
        // "/" opened again shows a new, empty chat, as ChatGPT's does.
        const url = how === 'cleared in the page' ? `${server.origin}/chat/c/replaced-${name}` : `${server.origin}/?conversation=replaced-1-${how.length}-${name}`;
        let tab = await openChat(browser, url);
        await tab.evaluate(installTarget);
        await tab.evaluate(() => window.chatFixture.addUserMessage('first conversation'));
        const nonce = await startWorkflow(tab, workflowId);
        const ack = await tab.evaluate(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text);
        await settled(tab);
        if (how === 'cleared in the page') {
          await tab.evaluate(() => window.chatFixture.clear());
        } else if (how === 'replaced at once on the new chat page') {
          // No poll sees the page empty: another first message takes the old one's place.
          await tab.evaluate(() => {
            window.chatFixture.clear();
            window.chatFixture.addUserMessage('second conversation');
          });
        } else {
          await tab.close();
          tab = await openChat(browser, `${server.origin}/?conversation=replaced-2-${name}`);
          await tab.evaluate(installTarget);
        }
        await settled(tab);
        await tab.evaluate((text) => window.chatFixture.addUserMessage(text), `Another chat. For context, you got this yesterday:\n${ack}`);
        await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshakeBlock(workflowId));
        if (how !== 'a new chat page opened again') {
          await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the handshake asked about again' });
        } else {
          // In another tab the background refuses to ask about a workflow its first chat tab
          // owns: the handshake is denied at once. Either way, nothing of the old one counts.
          await settled(tab);
        }
        await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), actionLine(workflowId, nonce, 1, 'click', { selector: '#counter' }));
        await settled(tab);
        assert.equal(await tab.evaluate(() => window.__target.clicks), 0, 'the old approval and nonce run nothing');
        assert.equal(await tab.evaluate(() => document.querySelector('bai-banner').dataset.actionsRun), '0');
        if ((await tab.evaluate(bannerState))?.question) await answerBanner(tab, 'deny');
        await settled(tab);
        assert.equal(await tab.evaluate(() => window.__target.clicks), 0);
      });
    }

    test('BAI/0.2: a conversation replacing an approved one in the page runs none of its lines without a question', async () => {
      const workflowId = `wf-replaced-v02-${name}`;
      const tab = await openChat(browser, `${server.origin}/chat/c/replaced-v02-${name}`);
      await tab.evaluate(installTarget);
      const handshake = '```bai\n' + JSON.stringify({ protocol: 'BAI/0.2', workflow_id: workflowId, state: 'awaiting_extension_ack', capabilities: ['action_lines'] }) + '\n```';
      const click = `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.2', workflow_id: workflowId, action_id: 1, type: 'click', payload: { selector: '#counter' } })}`;
      await tab.evaluate(() => window.chatFixture.addUserMessage('first conversation'));
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshake);
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      await answerBanner(tab, 'allow');
      await tab.waitFor(() => window.chatFixture.messages().some((m) => m.role === 'user' && m.text.startsWith('BAI_ACK ')), { what: 'the ACK' });
      await settled(tab);
      await tab.evaluate(() => window.chatFixture.clear());
      await settled(tab);
      await tab.evaluate(() => window.chatFixture.addUserMessage('another conversation'));
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `Sure.\n\n${handshake}`);
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the handshake asked about again' });
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), click);
      await settled(tab);
      assert.equal(await tab.evaluate(() => window.__target.clicks), 0, 'nothing runs before the answer');
      await answerBanner(tab, 'deny');
      await settled(tab);
      assert.equal(await tab.evaluate(() => window.__target.clicks), 0);
    });

    test('BAI/0.2: actions written before the ACK are announced in the question and run once, only after Allow', async () => {
      const workflowId = `wf-v02-${name}`;
      const url = `${server.origin}/chat/c/v02-${name}`;
      const tab = await openChat(browser, url);
      await tab.evaluate(installTarget);
      const handshake = `BAI_HANDSHAKE ${JSON.stringify({ protocol: 'BAI/0.2', workflow_id: workflowId, state: 'awaiting_extension_ack' })}`;
      const click = `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.2', workflow_id: workflowId, action_id: 1, type: 'click', payload: { selector: '#counter' } })}`;
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `${handshake}\n${click}`);
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      const { text: question } = await shownQuestion(tab);
      assert.match(question, /1 action it already wrote will run as soon as you allow\./);
      assert.equal(await tab.evaluate(() => window.__target.clicks), 0, 'nothing runs before the answer');
      await answerBanner(tab, 'allow');
      await tab.waitFor(() => window.__target.clicks === 1, { what: 'the held click' }).catch(async (error) => {
        const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(url)}`);
        await panel.waitFor(() => document.body.dataset.ready);
        const raw = await panel.evaluate(async (address) => {
          const found = (await chrome.tabs.query({})).find((t) => t.url === address);
          return JSON.stringify((await chrome.runtime.sendMessage({ type: 'tab_log', tabId: found.id })).log);
        }, url);
        throw new Error(`${error.message}; log: ${raw}`);
      });
      await settled(tab);
      assert.equal(await tab.evaluate(() => window.__target.clicks), 1, 'the held action ran once');
      const ack = await tab.evaluate(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text);
      assert.match(ack, new RegExp(`^BAI_ACK \\{"protocol":"BAI/0\\.2","workflow_id":"${workflowId}","state":"extension_acknowledged","ack_nonce":"n_[0-9a-f]{32}"\\}$`));
    });
  });
}
