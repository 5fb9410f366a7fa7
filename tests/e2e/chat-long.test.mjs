// A long conversation opened in the real extension: the first read is split over tasks (the
// page stays responsive), nothing is decided until it reaches the newest message, and then the
// conversation works as a short one does.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { actionLine, installTarget, startWorkflow } from './lib/chat.mjs';

// Long enough that reading it takes several slices of 8 ms; short enough that the fixture page
// (which scrolls to the end after each restored message) loads within the navigation timeout.
const MESSAGES = 1000;

/** `n` alternating user and assistant messages in the chat page's stored format. */
function seed(n) {
  const messages = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) messages.push({ role: 'user', source: `Question ${i}: what does the page show?` });
    else messages.push({ role: 'assistant', source: `Answer ${i}: a header, a **form** and a list.\n\n- one\n- two` });
  }
  return messages;
}

for (const name of browserNames()) {
  describe(`a long conversation in ${name}`, () => {
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

    test(`${MESSAGES.toLocaleString('en')} messages are read in slices, then a workflow runs`, async () => {
      const path = `/chat/c/long-${name}`;
      const tab = await browser.newTab(`${server.origin}/plain.html`);
      await tab.evaluate((key, value) => {
        localStorage.clear();
        localStorage.setItem(key, value);
      }, `chatFixture:${path}`, JSON.stringify(seed(MESSAGES)));
      await tab.goto(`${server.origin}${path}`);
      await tab.waitFor((n) => document.querySelector('bai-banner')?.dataset.polls && Number(document.querySelector('bai-banner').dataset.messages) === n, { args: [MESSAGES], timeout: 60000, what: 'the whole conversation read' });
      assert.equal(await tab.evaluate(() => document.querySelector('bai-banner').dataset.question ?? null), null, 'no question for a conversation without a handshake');
      if (name === 'chromium') {
        // The content script's poll measures are in the page's timeline in Chromium: the read
        // took several polls, every one before the last said "not read to the end yet".
        const polls = await tab.evaluate(() => performance.getEntriesByName('bai:poll').map((e) => Boolean(e.detail?.pending)));
        const firstDone = polls.indexOf(false);
        assert.ok(firstDone >= 1, `the read was split over tasks: ${JSON.stringify(polls)}`);
        assert.ok(polls.slice(0, firstDone).every(Boolean), 'pending polls until the read was done');
      }

      // The conversation goes on: a handshake, the user's approval, an action.
      await tab.evaluate(installTarget);
      const workflowId = `wf-long-${name}`;
      const nonce = await startWorkflow(tab, workflowId);
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), actionLine(workflowId, nonce, 1, 'click', { selector: '#counter' }));
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.actionsRun === '1', { what: 'the action to run' });
      assert.equal(await tab.evaluate(() => window.__target.clicks), 1);
      if (name === 'chromium') {
        // Polls with nothing for the glue to do (the user's messages, the plain answers) come
        // back as the message count alone, never while reading or deciding; the workflow above
        // ran with them in between.
        const polls = await tab.evaluate(() => performance.getEntriesByName('bai:poll').map((e) => ({ quiet: e.detail?.quiet, pending: e.detail?.pending, messages: e.detail?.messages })));
        const quiet = polls.filter((p) => p.quiet);
        assert.ok(quiet.length >= 1, `some polls were quiet: ${JSON.stringify(polls.slice(-12))}`);
        assert.ok(quiet.every((p) => p.pending === false && p.messages >= MESSAGES), 'a quiet poll is read to the end and counts the messages');
        assert.ok(polls.length > quiet.length + 1, 'the read and the decisions came as whole results');
      }
    });
  });
}
