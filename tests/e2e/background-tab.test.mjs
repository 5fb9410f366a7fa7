// Widgets in a background tab, as a user has it: the user is in the chat tab, BAI acts on
// another tab, whose document has no focus (the browser fires no focus or blur events there,
// runs no animation frames and throttles its timers). A model-like script drives real widget
// libraries there through the chat (observe, then actions by ref, reading only BAI_RESULT lines):
// react-select, a Headless UI Listbox (options portalled), Shoelace's sl-select (shadow DOM), a
// searchable select that opens only on focus, and a field that checks (and clears) its text on
// blur. The page reports its own state to the test server, so the test never touches the tab
// (switching to it would give it focus and change what is being tested).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { answerBanner, protocolPrompt } from './lib/chat.mjs';

const CAPABILITIES = ['action_lines', 'result_lines', 'observe', 'extended_actions'];

function handshake(workflowId) {
  return 'I will fill in the order options.\n\n```bai\n' + JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'handshake', state: 'awaiting_extension_ack', capabilities: CAPABILITIES }) + '\n```';
}

const resultLines = () => window.chatFixture.messages().filter((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ')).map((m) => m.text);

/** Waits for result number `n` (1-based) in the chat and returns it parsed; on a timeout the
 * error carries the chat tab's log from the panel. */
async function nextResult(browser, chat, n) {
  try {
    await chat.waitFor((count) => window.chatFixture.messages().filter((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ')).length >= count, { args: [n], what: `result ${n}`, timeout: 60000 });
  } catch (error) {
    const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(await chat.evaluate(() => location.href))}`);
    const items = await panel.waitFor(() => document.body.dataset.ready && [...document.querySelectorAll('#log li')].map((li) => li.textContent));
    throw new Error(`${error.message}; chat log (newest first):\n${items.join('\n')}`);
  }
  const lines = await chat.evaluate(resultLines);
  return JSON.parse(lines[n - 1].slice('BAI_RESULT '.length));
}

/** The ref of the first observation line matching `pattern`. */
function refOf(lines, pattern) {
  const line = lines.find((l) => pattern.test(l));
  assert.ok(line, `no line matches ${pattern} in:\n${lines.join('\n')}`);
  return line.split(' ')[0];
}

/** Waits (bounded) until the state the page reported satisfies `predicate`; returns it. */
async function pageState(server, key, predicate, what) {
  const deadline = Date.now() + 20000;
  for (;;) {
    const state = server.state(key);
    if (state && predicate(state)) return state;
    if (Date.now() > deadline) throw new Error(`the page never reported ${what}; last state: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const name of browserNames()) {
  describe(`widgets in a background tab in ${name}`, () => {
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

    test('a model chooses in real widget libraries and fills a blur-checked field while the user stays in the chat', async () => {
      const key = `bg-${name}`;
      const targetUrl = `${server.origin}/background/widgets.html?key=${key}`;
      await browser.newTab(targetUrl);
      await pageState(server, key, (s) => s.ready, 'its widgets ready');

      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(targetUrl)}`);
      await panel.waitFor(() => document.body.dataset.ready);
      await panel.click('#copy-prompt');
      const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow, { what: 'the copied prompt' });

      // The user goes to the chat tab and stays there: the target is a background tab now.
      const chat = await browser.newTab(`${server.origin}/chat/c/background-${name}`);
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.polls, { what: 'the chat session' });
      await pageState(server, key, (s) => s.visibility === 'hidden' && !s.hasFocus, 'that it went to the background');
      await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshake(workflowId));
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      await answerBanner(chat, 'allow');
      const ackText = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
      const nonce = JSON.parse(ackText.slice('BAI_ACK '.length)).ack_nonce;

      let nextId = 1;
      const say = (actions) => chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), actions.map(([type, payload]) => `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'action', ack_nonce: nonce, action_id: nextId++, type, payload })}`).join('\n'));
      const byRef = (ref) => ({ type: 'ref', value: ref });
      // `not_settled` only says the page still changed when the settle window ended: in a
      // background tab Firefox throttles the page's timers, and under load a library's closing
      // list can outlast the window (seen once in a full run). The page's own state, checked
      // below, is the proof that each choice was made and each list closed.
      const incidental = new Set(['focused', 'dom_changed', 'not_settled']);
      const outcomes = (result) => result.actions.map(({ type, status, code, effects }) => ({ type, status, ...(code ? { code } : {}), ...(effects ? { effects: effects.filter((e) => !incidental.has(e)) } : {}) }));

      // 1. Look at the page.
      await say([['observe', {}]]);
      const seen = (await nextResult(browser, chat, 1)).observation.elements;
      const flavour = refOf(seen, /combobox "Flavour"/);
      const assignee = refOf(seen, /button "Assignee/);
      const size = refOf(seen, /combobox "Size"/);
      const city = refOf(seen, /combobox "City"/);
      const coupon = refOf(seen, /textbox "Coupon"/);
      const next = refOf(seen, /button "Continue"/);

      // 2. One choice in each widget, by ref, in one message: no question for harmless controls.
      await say([
        ['select_option', { selector: byRef(flavour), option: 'Strawberry' }],
        ['select_option', { selector: byRef(assignee), option: 'Grace Hopper' }],
        ['select_option', { selector: byRef(size), option: 'Medium' }],
        ['select_option', { selector: byRef(city), option: 'Lisbon' }],
      ]);
      const chosen = await nextResult(browser, chat, 2);
      assert.deepEqual(outcomes(chosen), [
        { type: 'select_option', status: 'ok', effects: ['option_selected'] },
        { type: 'select_option', status: 'ok', effects: ['option_selected'] },
        { type: 'select_option', status: 'ok', effects: ['option_selected'] },
        { type: 'select_option', status: 'ok', effects: ['option_selected'] },
      ], JSON.stringify(chosen.actions));
      // The libraries' own state: each holds the choice, every list is closed again.
      let state = await pageState(server, key, (s) => s.flavour === 'strawberry' && s.person === 'Grace Hopper' && s.size === 'm' && s.city === 'lisbon' && s.visibleLists === 0 && !s.sizeOpen && !s.cityOpen, 'every choice made and every list closed');
      // The city list opened on the focus event BAI gave the field (the browser fires none in a
      // background tab); the field keeps the focus after the choice, as for a user.
      assert.equal(state.cityFocusEvents, 1, JSON.stringify(state));
      assert.equal(state.cityBlurEvents, 0, JSON.stringify(state));
      assert.equal(state.cityText, 'Lisbon');

      // 3. The coupon field checks its text on blur: an unknown code typed, then the model moves
      // on (a click elsewhere), and the field clears itself as it does for a user.
      await say([
        ['input_text', { selector: byRef(coupon), text: 'bogus' }],
        ['click', { selector: byRef(next) }],
      ]);
      const cleared = await nextResult(browser, chat, 3);
      assert.deepEqual(outcomes(cleared).map((o) => o.status), ['ok', 'ok'], JSON.stringify(cleared.actions));
      state = await pageState(server, key, (s) => s.continued === 1 && s.couponStatus !== '', 'the coupon checked');
      assert.equal(state.couponStatus, 'Unknown coupon, cleared');
      assert.equal(state.couponText, '');
      // Typing into the coupon field took the focus from the city field: it saw its blur.
      assert.equal(state.cityBlurEvents, 1, JSON.stringify(state));

      // A known code, then Tab away: applied.
      await say([
        ['input_text', { selector: byRef(coupon), text: 'save10' }],
        ['press_key', { key: 'Tab' }],
      ]);
      const applied = await nextResult(browser, chat, 4);
      assert.deepEqual(outcomes(applied).map((o) => o.status), ['ok', 'ok'], JSON.stringify(applied.actions));
      state = await pageState(server, key, (s) => s.coupon === 'SAVE10', 'the coupon applied');
      assert.equal(state.couponStatus, 'Coupon SAVE10 applied');
      assert.equal(state.couponText, 'SAVE10');

      // 4. A choice that does not exist fails and leaves the searchable select as it was: closed,
      // still Lisbon (its list opened on the focus BAI gave it, and closed again).
      await say([['select_option', { selector: byRef(city), option: 'Atlantis' }]]);
      const missing = await nextResult(browser, chat, 5);
      assert.deepEqual(outcomes(missing), [{ type: 'select_option', status: 'failed', code: 'option_not_found' }], JSON.stringify(missing.actions));
      assert.match(missing.actions[0].reason, /no option "Atlantis".*Lisbon/);
      state = await pageState(server, key, (s) => s.cityFocusEvents === 2 && !s.cityOpen && s.visibleLists === 0, 'the city list closed after the failure');
      assert.equal(state.city, 'lisbon');
      assert.equal(state.cityText, 'Lisbon');

      // All along the target stayed in the background and the user's focus stayed in the chat.
      assert.equal(state.visibility, 'hidden');
      assert.equal(state.hasFocus, false);
      assert.equal(await chat.evaluate(() => document.visibilityState), 'visible');
    });
  });
}
