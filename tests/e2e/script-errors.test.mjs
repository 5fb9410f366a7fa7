// An exception inside an action on the target page ends that action with a typed failure, in
// the real extension in Chromium and Firefox; it never leaves the chat waiting, and no page text
// (the page's exception messages carry a secret) reaches the log. The page
// (tests/fixtures/pages/breaks/frames.html) takes away the frame that holds the element BAI is
// checking while BAI waits for it: the frame removed, or its document replaced (in Firefox every
// object BAI holds from it is then dead and throws when touched). The next action still runs.

import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { actionLine, answerQuestion, handshakeBlock, openChat, protocolPrompt, shownQuestion } from './lib/chat.mjs';

const SECRET = '123-45-6789';

/** The entry of action `id` in the chat tab's log, once it is final. */
async function actionEntry(browser, chatUrl, id) {
  const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(chatUrl)}`);
  try {
    return await panel.waitFor((n) => [...document.querySelectorAll('#log li')].map((li) => li.textContent)
      .find((t) => t.startsWith(`Action ${n}:`) && !/waits for your approval/.test(t)), { args: [id], what: `action ${id} in the log`, timeout: 45000 });
  } finally {
    await panel.close();
  }
}

/** The whole log of the chat tab, as text. */
async function logText(browser, chatUrl) {
  const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(chatUrl)}`);
  try {
    await panel.waitFor(() => document.querySelectorAll('#log li').length > 0, { what: 'the log' });
    return await panel.evaluate(() => document.getElementById('log').textContent);
  } finally {
    await panel.close();
  }
}

const opened = [];

/** Binds a workflow to the page and starts it in a chat tab (the user allows it). */
async function startOn(browser, server, label) {
  const targetUrl = `${server.origin}/breaks/frames.html?${label}`;
  const target = await browser.newTab(targetUrl);
  opened.push(target);
  await target.waitFor(() => window.__ready, { what: 'the page' });
  const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(targetUrl)}`);
  await panel.waitFor(() => document.body.dataset.ready);
  await panel.click('#copy-prompt');
  const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow, { what: 'the copied prompt' });
  await panel.close();
  const chatUrl = `${server.origin}/chat/c/breaks-${label}`;
  const chat = await openChat(browser, chatUrl);
  opened.push(chat);
  await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
  await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshakeBlock(workflowId, { capabilities: ['action_lines', 'result_lines', 'extended_actions'] }));
  await shownQuestion(chat, workflowId);
  await answerQuestion(chat, 'allow', workflowId);
  const ack = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
  const nonce = /"ack_nonce":"(n_[0-9a-f]{32})"/.exec(ack)[1];
  const say = (...lines) => chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), lines.map(([id, type, payload]) => actionLine(workflowId, nonce, id, type, payload)).join('\n'));
  return { target, chatUrl, say };
}

/** Each way the page takes the frame away: the frame, the button's name in it. */
const BREAKS = [
  ['the frame is removed while BAI waits for its button', 'removed', 'Apply dark theme'],
  ['the frame\'s document is replaced while BAI waits for its button', 'replaced', 'Apply light theme'],
];

for (const name of browserNames()) {
  describe(`an exception inside an action in ${name}`, () => {
    let server;
    let browser;

    before(async () => {
      server = await startServer();
      browser = await BROWSERS[name].launch();
      await browser.newTab('about:blank');
    });

    afterEach(async () => {
      while (opened.length) await opened.pop().close().catch(() => {});
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    let n = 0;
    for (const [what, frame, label] of BREAKS) {
      const run = `b${++n}-${name}`;
      test(`${what}: the action fails with a typed code and no page text, and the next one runs`, async (t) => {
        const { target, chatUrl, say } = await startOn(browser, server, run);
        await say([1, 'click', { selector: { type: 'role', value: 'button', name: label } }]);
        await target.evaluate((id) => window.__arm(id, 800), frame);
        const entry = await actionEntry(browser, chatUrl, 1);
        t.diagnostic(entry);
        assert.match(entry, /failed\s*(script_error|detached|disabled|not_visible|not_found|target_changed):/, `action 1: ${entry}`);
        await say([2, 'click', { selector: '#harmless' }]);
        assert.doesNotMatch(await actionEntry(browser, chatUrl, 2), /failed/);
        assert.deepEqual(await target.evaluate(() => window.__pressed), ['harmless'], 'only the harmless button was pressed');
        assert.doesNotMatch(await logText(browser, chatUrl), new RegExp(SECRET), 'no page text in the log');
      });
    }
  });
}
