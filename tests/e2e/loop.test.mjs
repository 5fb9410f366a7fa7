// Closing the loop, end to end in the real extension: a model-like script that starts blind on a
// three-page shop, observes, acts by ref, gets failures back (a stale ref, a wrong selector with
// hints), recovers with what the results told it, and finishes. It reads only what a model can
// read in the chat: BAI's ACK and BAI_RESULT lines. Every result it receives is asserted exactly.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { answerBanner, answerQuestion, installTarget, protocolPrompt, shownQuestion } from './lib/chat.mjs';

const CAPABILITIES = ['action_lines', 'result_lines', 'observe', 'extended_actions'];

/** The handshake of a model that asks for every extension. */
function handshake(workflowId) {
  return 'I will drive the shop.\n\n```bai\n' + JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'handshake', state: 'awaiting_extension_ack', capabilities: CAPABILITIES }) + '\n```';
}

/** The BAI_RESULT records posted into the chat so far, parsed. */
async function results(chat) {
  const lines = await chat.evaluate(() => window.chatFixture.messages().filter((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ')).map((m) => m.text));
  return lines.map((line) => JSON.parse(line.slice('BAI_RESULT '.length)));
}

/** Waits for result number `n` (1-based) and returns it; on a timeout, the error carries the
 * chat tab's log from the panel. */
async function nextResult(browser, chat, n) {
  try {
    await chat.waitFor((count) => window.chatFixture.messages().filter((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ')).length >= count, { args: [n], what: `result ${n}`, timeout: 30000 });
  } catch (error) {
    const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(await chat.evaluate(() => location.href))}`);
    const items = await panel.waitFor(() => document.body.dataset.ready && [...document.querySelectorAll('#log li')].map((li) => li.textContent));
    throw new Error(`${error.message}; chat log (newest first):\n${items.join('\n')}`);
  }
  return (await results(chat))[n - 1];
}

/** Waits for the question about action `key` (`workflow:action`), checks its text in the
 * extension's question window and allows it there, as the user would. */
async function approve(chat, key, text, screenshot) {
  await chat.waitFor((k) => document.querySelector('bai-banner')?.dataset.question === k, { args: [key], what: `the question about ${key}`, timeout: 15000 });
  const question = await shownQuestion(chat, key);
  assert.match(question.text, text);
  if (screenshot) await question.window.screenshot(screenshot);
  await answerQuestion(chat, 'allow', key);
}

/** The ref of the first observation line matching `pattern`. */
function refOf(lines, pattern) {
  const line = lines.find((l) => pattern.test(l));
  assert.ok(line, `no line matches ${pattern} in:\n${lines.join('\n')}`);
  return line.split(' ')[0];
}

for (const name of browserNames()) {
  describe(`closing the loop in ${name}`, () => {
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

    test('a model observes, acts by ref, recovers from failures using the results, and completes a three-page order', async () => {
      const origin = server.origin;
      const shopUrl = `${origin}/shop/index.html`;
      const target = await browser.newTab(shopUrl);
      await target.waitFor(() => document.getElementById('cart')?.textContent === 'Cart: 0 items', { what: 'the shop' });

      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(shopUrl)}`);
      await panel.waitFor(() => document.body.dataset.ready);
      await panel.click('#copy-prompt');
      const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow, { what: 'the copied prompt' });

      const chat = await browser.newTab(`${origin}/chat/c/loop-${name}`);
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.polls, { what: 'the chat session' });
      await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshake(workflowId));
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      await answerBanner(chat, 'allow');
      const ackText = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
      const ack = JSON.parse(ackText.slice('BAI_ACK '.length));
      assert.match(ack.ack_nonce, /^n_[0-9a-f]{32}$/);
      assert.equal(ackText, `BAI_ACK ${JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'ack', state: 'extension_acknowledged', ack_nonce: ack.ack_nonce, capabilities: CAPABILITIES })}`);

      let nextId = 1;
      const say = (actions) => chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), actions.map(([type, payload, extra]) => `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'action', ack_nonce: ack.ack_nonce, action_id: nextId++, type, payload, ...extra })}`).join('\n'));

      // 1. Blind: look at the page.
      await say([['observe', {}]]);
      const r1 = await nextResult(browser, chat, 1);
      const result = (n, actions, page, extra = {}) => ({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'result', result_id: n, state: 'active', actions, page, ...extra });
      const shop = { url: shopUrl, title: 'Mug shop' };
      const checkoutPage = { url: `${origin}/shop/checkout.html`, title: 'Checkout' };
      assert.deepEqual(r1, result(1, [{ action_id: 1, type: 'observe', status: 'ok', effects: ['observed'] }], shop, {
        observation: {
          elements: [
            '@e1 heading "Mug shop" level=1',
            '@e2 heading "Blue mug" level=2',
            '@e3 button "Add to cart" [in: "Blue mug"]',
            '@e4 heading "Red mug" level=2',
            '@e5 button "Add to cart" [in: "Red mug"]',
            '@e6 link "Checkout"',
          ],
        },
      }));
      const seen = r1.observation.elements;

      // 2. Act by ref: the blue mug into the cart. The result says what changed on the page
      // since the observation (the button now has the focus).
      const blueAdd = refOf(seen, /button "Add to cart".*Blue mug/);
      const checkout = refOf(seen, /link "Checkout"/);
      await say([['click', { selector: { type: 'ref', value: blueAdd } }, { reason: 'Put the blue mug in the cart' }]]);
      const r2 = await nextResult(browser, chat, 2);
      assert.deepEqual(r2, result(2, [{ action_id: 2, type: 'click', status: 'ok', effects: ['focused', 'dom_changed'] }], shop, {
        changes: { added: [], changed: ['@e3 button "Add to cart" focused [in: "Blue mug"]'], removed: [] },
      }));
      assert.equal(await target.evaluate(() => document.getElementById('cart').textContent), 'Cart: 1 item');

      // "Checkout" is a risky word: the user is asked, with the model's reason beside it.
      await say([['click', { selector: { type: 'ref', value: checkout } }, { reason: 'Go to the checkout' }]]);
      await approve(chat, `${workflowId}:3`, /the button “Checkout” looks like it will checkout something.*ChatGPT says: “Go to the checkout”/, 'loop-question-with-reason');
      const r3 = await nextResult(browser, chat, 3);
      // The link's click reports its navigation (with or without the focus it also moved: the
      // new page can replace the old one before the click's report comes back).
      assert.deepEqual({ ...r3.actions[0], effects: r3.actions[0].effects.filter((e) => e !== 'focused') }, { action_id: 3, type: 'click', status: 'ok', effects: ['navigation_started'] });
      assert.deepEqual({ ...r3, actions: [] }, result(3, [], checkoutPage));

      // 3. A ref from the previous page names nothing here: stale_ref, and the rest is skipped.
      await say([['click', { selector: { type: 'ref', value: blueAdd } }], ['observe', {}]]);
      const r4 = await nextResult(browser, chat, 4);
      assert.deepEqual(r4, result(4, [
        { action_id: 4, type: 'click', status: 'failed', code: 'stale_ref', reason: '@e3 no longer identifies the same element (it was not issued on this page; the page changed or reloaded since the observation); observe again and use the new refs' },
        { action_id: 5, type: 'observe', status: 'skipped' },
      ], checkoutPage));

      // 4. A wrong guess: the failure carries hints with refs.
      await say([['input_text', { selector: '#full-name', text: 'Ann' }, { timeout_ms: 500 }], ['check', { selector: { type: 'label', value: 'I accept the terms' } }]]);
      const r5 = await nextResult(browser, chat, 5);
      assert.deepEqual(r5, result(5, [
        {
          action_id: 6,
          type: 'input_text',
          status: 'failed',
          code: 'not_found',
          reason: "css '#full-name' matched no element; check the page content and use a selector that exists (css, text or a shorter name)",
          hints: ['@e8 textbox "Full name" required'],
        },
        { action_id: 7, type: 'check', status: 'skipped' },
      ], checkoutPage));
      const nameRef = refOf(r5.actions[0].hints, /textbox "Full name"/);

      // 5. Recover with the hint and finish the order on the next page.
      await say([
        ['input_text', { selector: { type: 'ref', value: nameRef }, text: 'Ann' }],
        ['select_option', { selector: { type: 'label', value: 'Country' }, option: 'Germany' }],
        ['check', { selector: { type: 'label', value: 'I accept the terms' } }],
        // Enter in the name field submits the form through "Place order": reviewed like a click
        // on that button.
        ['press_key', { key: 'Enter', selector: { type: 'ref', value: nameRef } }],
        ['wait_for', { url_contains: '/shop/done.html' }],
        ['assert', { selector: '#thanks', expect: 'text_equals', value: 'Thank you, Ann!' }],
        ['extract', { selector: '#summary' }],
      ]);
      await approve(chat, `${workflowId}:11`, /the button “Place order” looks like it will (place )?order something/);
      const r6 = await nextResult(browser, chat, 6);
      const pressEnter = r6.actions[3];
      // Enter submits and navigates; whether the key's own report still saw the key, the submit
      // event and the focus before the page went away depends on timing.
      assert.ok(pressEnter.effects.includes('navigation_started'), JSON.stringify(pressEnter));
      assert.deepEqual(pressEnter.effects.filter((e) => !['navigation_started', 'form_submitted', 'focused', 'key_pressed'].includes(e)), [], JSON.stringify(pressEnter));
      assert.deepEqual({ ...pressEnter, effects: [] }, { action_id: 11, type: 'press_key', status: 'ok', effects: [] });
      assert.deepEqual({ ...r6, actions: r6.actions.filter((a) => a.action_id !== 11) }, result(6, [
        { action_id: 8, type: 'input_text', status: 'ok', effects: ['value_set'] },
        { action_id: 9, type: 'select_option', status: 'ok', effects: ['option_selected'] },
        { action_id: 10, type: 'check', status: 'ok', effects: ['checked_changed', 'focused'] },
        { action_id: 12, type: 'wait_for', status: 'ok', effects: ['condition_met'] },
        { action_id: 13, type: 'assert', status: 'ok', effects: ['assertion_held'] },
        { action_id: 14, type: 'extract', status: 'ok', effects: ['extracted'], data: ['1 × Blue mug to Germany'] },
      ], { url: `${origin}/shop/done.html`, title: 'Order placed' }));

      // The shop's own record of the order.
      assert.equal(await target.evaluate(() => document.getElementById('thanks').textContent), 'Thank you, Ann!');
      assert.equal(await target.evaluate(() => document.getElementById('summary').textContent), '1 × Blue mug to Germany');
      await target.screenshot('loop-order-placed');

      // Back to the shop by address; another site is out of the workflow's scope.
      await say([['navigate', { url: '/shop/index.html' }], ['navigate', { url: 'https://example.com/' }, { on_error: 'skip' }], ['wait_for', { text: 'Cart: 0 items' }]]);
      const r7 = await nextResult(browser, chat, 7);
      assert.deepEqual(r7, result(7, [
        { action_id: 15, type: 'navigate', status: 'ok', effects: ['navigation_started'] },
        { action_id: 16, type: 'navigate', status: 'failed', code: 'navigation_out_of_scope', reason: `https://example.com is outside this workflow's site ${origin}; BAI navigates only within it.` },
        { action_id: 17, type: 'wait_for', status: 'ok', effects: ['condition_met'] },
      ], shop));
      assert.equal(await target.evaluate(() => JSON.parse(localStorage.getItem('shop-order')).name), 'Ann');

      await say([['done', { success: true, summary: 'Ordered one blue mug for Ann' }]]);
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.workflowState === 'done', { what: 'the workflow to finish' });

      await chat.screenshot('loop-chat-results');
      // No result for a message whose only action was a successful done.
      assert.equal((await results(chat)).length, 7);

      // The audit log, exported from the panel as JSON: what was asked, allowed and by whom,
      // what ran, failed and was reported back; never the typed text.
      const chatPanel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(await chat.evaluate(() => location.href))}`);
      await chatPanel.waitFor(() => document.body.dataset.ready && document.querySelectorAll('#log li').length > 0, { what: 'the panel log' });
      await chatPanel.evaluate(() => {
        // Capture the file instead of saving it: the test reads what the user would get.
        URL.createObjectURL = (blob) => { window.__exported = blob; return 'blob:captured'; };
        HTMLAnchorElement.prototype.click = function captureDownload() { window.__downloadName = this.download; };
      });
      await chatPanel.screenshot('loop-panel-log');
      await chatPanel.click('#export-log');
      await chatPanel.waitFor(() => Boolean(window.__exported), { what: 'the exported log' });
      const exported = await chatPanel.evaluate(async () => ({ name: window.__downloadName, text: await window.__exported.text() }));
      assert.match(exported.name, /^bai-audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.json$/);
      const audit = JSON.parse(exported.text);
      assert.equal(audit.format, 'bai-audit-log/1');
      const kinds = audit.events.map((e) => e.kind);
      assert.equal(kinds.filter((k) => k === 'result_posted').length, 7);
      assert.deepEqual(audit.events.filter((e) => e.kind === 'action_approved').map((e) => [e.action_id, e.by]), [[3, 'user'], [11, 'user']]);
      assert.deepEqual(audit.events.find((e) => e.kind === 'approved'), { ...audit.events.find((e) => e.kind === 'approved'), workflow_id: workflowId, by: 'user' });
      assert.ok(audit.events.some((e) => e.kind === 'failed' && e.action_id === 6 && e.error.code === 'not_found'));
      // The log says what wait_for and assert checked, read from the action's wire payload.
      const detailOf = (id) => audit.events.find((e) => e.kind === 'executed' && e.action_id === id)?.detail;
      assert.equal(detailOf(12), 'URL contains “/shop/done.html”');
      assert.equal(detailOf(13), 'text equals');
      assert.ok(!exported.text.includes('"Ann"'), 'typed text is not in the audit log');
    });

    test('on_error: skip goes on after a failure; retry tries again until a late element appears', async () => {
      const workflowId = `wf-on-error-${name}`;
      const chatUrl = `${server.origin}/chat/c/on-error-${name}`;
      const chat = await browser.newTab(chatUrl);
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.polls, { what: 'the chat session' });
      // This workflow acts on the chat tab itself: a click counter, and a button that appears
      // 1.2 s after the model's actions arrive.
      await chat.evaluate(installTarget);
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshake(workflowId));
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      await answerBanner(chat, 'allow');
      const ackText = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
      const nonce = JSON.parse(ackText.slice('BAI_ACK '.length)).ack_nonce;
      const line = (id, type, payload, extra) => `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'action', ack_nonce: nonce, action_id: id, type, payload, ...extra })}`;
      await chat.evaluate(() => {
        window.__late = 0;
        setTimeout(() => {
          const late = document.createElement('button');
          late.id = 'late';
          late.textContent = 'Late';
          late.addEventListener('click', () => { window.__late += 1; });
          document.getElementById('target-area').append(late);
        }, 1200);
      });
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), [
        line(1, 'click', { selector: '#missing' }, { timeout_ms: 200, on_error: 'skip' }),
        line(2, 'click', { selector: '#counter' }),
        line(3, 'click', { selector: '#late' }, { timeout_ms: 300, on_error: 'retry', retries: 5 }),
        line(4, 'click', { selector: '#counter' }),
      ].join('\n'));
      const r1 = await nextResult(browser, chat, 1);
      assert.equal(r1.actions[0].code, 'not_found');
      assert.deepEqual(r1.actions.map((a) => [a.action_id, a.status]), [[1, 'failed'], [2, 'ok'], [3, 'ok'], [4, 'ok']]);
      assert.deepEqual(r1.page, { url: chatUrl, title: await chat.evaluate(() => document.title) });
      assert.deepEqual(await chat.evaluate(() => [window.__target.clicks, window.__late]), [2, 1], 'each click ran once; the late button once, after retries');
    });
  });
}
