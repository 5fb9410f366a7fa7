// Results over several lines (`chunked_results`), end to end in the real extension: a scripted
// model that reads only the chat extracts a 50,000-character article from a target tab, gets it
// in parts (each a complete BAI_RESULT line within the cap), asks for every next part with
// `more` and the token the previous part named, and reassembles exactly the page's text. A used
// token is then refused and ends the workflow.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { answerBanner, protocolPrompt } from './lib/chat.mjs';

const CAPABILITIES = ['action_lines', 'result_lines', 'observe', 'extended_actions', 'chunked_results'];
/** The cap of one result line (crate/src/protocol/result.rs), in characters (code points). */
const LINE_MAX_CHARS = 8000;

function handshake(workflowId) {
  return 'I will read the article.\n\n```bai\n' + JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'handshake', state: 'awaiting_extension_ack', capabilities: CAPABILITIES }) + '\n```';
}

/** The BAI_RESULT lines posted into the chat so far. */
function resultLines(chat) {
  return chat.evaluate(() => window.chatFixture.messages().filter((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ')).map((m) => m.text));
}

/** Waits for result line number `n` (1-based); on a timeout the error carries the chat's log. */
async function nextResultLine(browser, chat, n) {
  try {
    await chat.waitFor((count) => window.chatFixture.messages().filter((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ')).length >= count, { args: [n], what: `result ${n}`, timeout: 30000 });
  } catch (error) {
    const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(await chat.evaluate(() => location.href))}`);
    const items = await panel.waitFor(() => document.body.dataset.ready && [...document.querySelectorAll('#log li')].map((li) => li.textContent));
    throw new Error(`${error.message}; chat log (newest first):\n${items.join('\n')}`);
  }
  return (await resultLines(chat))[n - 1];
}

/** A result line's record, after checking that the line is complete in itself. */
function record(line) {
  assert.ok([...line].length <= LINE_MAX_CHARS, `a line of ${[...line].length} characters`);
  assert.ok(!/[\n\r\u2028\u2029]/.test(line), 'the line stays one line');
  return JSON.parse(line.slice('BAI_RESULT '.length));
}

for (const name of browserNames()) {
  describe(`results over several lines in ${name}`, () => {
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

    test('a 50,000-character extraction comes in several result lines, fetched with more, and reassembles exactly', async () => {
      const articleUrl = `${server.origin}/article/index.html`;
      const target = await browser.newTab(articleUrl);
      const pageText = await target.waitFor(() => document.getElementById('story')?.textContent);
      const CARD = '4111 1111 1111 1111';
      assert.ok(pageText.includes(CARD));
      // What extract reads: the page's text with the card number redacted.
      const extracted = pageText.replace(CARD, '[redacted card number]');
      assert.ok([...extracted].length > 50000);

      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(articleUrl)}`);
      await panel.waitFor(() => document.body.dataset.ready);
      await panel.click('#copy-prompt');
      const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow, { what: 'the copied prompt' });

      const chat = await browser.newTab(`${server.origin}/chat/c/chunks-${name}`);
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.polls, { what: 'the chat session', timeout: 30000 });
      await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshake(workflowId));
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      await answerBanner(chat, 'allow');
      const ackText = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
      const ack = JSON.parse(ackText.slice('BAI_ACK '.length));
      assert.deepEqual(ack.capabilities, CAPABILITIES);

      let nextId = 1;
      const say = (type, payload) => chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'action', ack_nonce: ack.ack_nonce, action_id: nextId++, type, payload })}`);

      await say('extract', { selector: '#story', max_chars: 60000 });
      const first = record(await nextResultLine(browser, chat, 1));
      assert.equal(first.result_id, 1);
      assert.equal(first.state, 'active');
      assert.equal(first.truncated, undefined);
      assert.deepEqual(first.page, { url: articleUrl, title: 'Long article' });
      assert.deepEqual({ ...first.actions[0], data: undefined }, { action_id: 1, type: 'extract', status: 'ok', effects: ['extracted'], data: undefined });
      assert.equal(first.actions[0].data.length, 1);
      assert.match(first.continuation.token, /^m_[0-9a-f]{16}$/);
      assert.ok(extracted.startsWith(first.actions[0].data[0]));

      // The rest waits in the engine state saved for this conversation (deleted with it by the
      // retention setting), redacted as the chat will see it.
      const stateKey = `bai:conv:${server.origin}/chat/c/chunks-${name}`;
      const savedState = () => panel.evaluate(async (k) => (await chrome.storage.local.get(k))[k] ?? '', stateKey);
      const saved = await savedState();
      assert.ok(saved.includes(first.continuation.token), 'the continuation is in the saved state');
      assert.ok(saved.includes('[redacted card number]'));
      assert.ok(!JSON.stringify(await panel.evaluate(async () => chrome.storage.local.get(null))).includes(CARD), 'no card number on disk');

      // The model asks for each next part with the newest token, and appends as the prompt says.
      const values = [...first.actions[0].data];
      let continuation = first.continuation;
      const tokens = [];
      let parts = 1;
      while (continuation) {
        const remainingBefore = continuation.remaining_chars;
        tokens.push(continuation.token);
        const moreId = nextId;
        await say('more', { token: continuation.token });
        parts += 1;
        const part = record(await nextResultLine(browser, chat, parts));
        assert.equal(part.result_id, parts);
        assert.equal(part.actions.length, 1);
        assert.equal(part.actions[0].action_id, moreId);
        assert.equal(part.actions[0].type, 'more');
        assert.equal(part.actions[0].status, 'ok');
        for (const segment of part.actions[0].data) {
          assert.equal(segment.result_id, 1);
          assert.equal(segment.action_id, 1);
          assert.equal(segment.field, 'data');
          const [head, ...rest] = segment.values;
          if (segment.joins) values[values.length - 1] += head;
          else values.push(head);
          values.push(...rest);
        }
        continuation = part.continuation;
        if (continuation) assert.ok(continuation.remaining_chars < remainingBefore);
        assert.ok(parts < 30, 'the parts never end');
      }
      assert.ok(parts >= 7, `${parts} result lines`);
      assert.equal(new Set(tokens).size, tokens.length, 'every part has its own token');
      assert.deepEqual(values, [extracted], 'the parts reassemble into exactly what extract read');

      // A second long extraction leaves a new continuation; a token already used gives nothing
      // more: refused, the workflow ends, and its continuation is no longer saved.
      await say('extract', { selector: '#story', max_chars: 60000 });
      const again = record(await nextResultLine(browser, chat, parts + 1));
      assert.ok(!tokens.includes(again.continuation.token));
      assert.ok((await savedState()).includes(again.continuation.token));
      await say('more', { token: tokens[0] });
      const refused = record(await nextResultLine(browser, chat, parts + 2));
      assert.equal(refused.state, 'failed');
      assert.equal(refused.actions[0].action_id, nextId - 1);
      assert.equal(refused.actions[0].status, 'rejected');
      assert.equal(refused.actions[0].code, 'continuation_used');
      // The saved state wraps the engine's own JSON: read the workflow from it.
      const savedWorkflow = async () => JSON.parse(JSON.parse(await savedState()).engine).workflows.find((w) => w.id === workflowId);
      const deadline = Date.now() + 15000;
      let workflow = await savedWorkflow();
      while (workflow.state !== 'failed' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        workflow = await savedWorkflow();
      }
      assert.equal(workflow.state, 'failed');
      assert.equal(workflow.continuation, undefined, 'a finished workflow keeps no continuation');
    });
  });
}
