// Material UI widgets in a background tab, driven as a model drives them: observe, then actions
// by ref, reading only BAI_RESULT lines. The page (tests/fixtures/pages/mui, bundled from npm by
// scripts/build-fixtures) has a Select whose list is a portal, an Autocomplete that shows only
// six matches (the wanted country is reached by typing, as a user does), a DatePicker with a
// sectioned field and a popup calendar, and a Dialog that fades in. The user stays in the chat
// tab all along; the page reports the state React holds to the test server, so the test never
// touches the tab.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { answerBanner, protocolPrompt } from './lib/chat.mjs';

const CAPABILITIES = ['action_lines', 'result_lines', 'observe', 'extended_actions'];

function handshake(workflowId) {
  return 'I will fill in the delivery details.\n\n```bai\n' + JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'handshake', state: 'awaiting_extension_ack', capabilities: CAPABILITIES }) + '\n```';
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
  describe(`Material UI widgets in a background tab in ${name}`, () => {
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

    test('a model chooses in a Select and an Autocomplete, picks a date and saves a dialog while the user stays in the chat', async () => {
      const key = `mui-${name}`;
      const targetUrl = `${server.origin}/mui/index.html?key=${key}`;
      await browser.newTab(targetUrl);
      await pageState(server, key, (s) => s.ready, 'its widgets ready');

      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(targetUrl)}`);
      await panel.waitFor(() => document.body.dataset.ready);
      await panel.click('#copy-prompt');
      const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow, { what: 'the copied prompt' });

      // The user goes to the chat tab and stays there: the target is a background tab now.
      const chat = await browser.newTab(`${server.origin}/chat/c/mui-${name}`);
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.polls, { what: 'the chat session' });
      await pageState(server, key, (s) => s.visibility === 'hidden' && !s.hasFocus, 'that it went to the background');
      await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshake(workflowId));
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      await answerBanner(chat, 'allow');
      const ackText = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
      const nonce = JSON.parse(ackText.slice('BAI_ACK '.length)).ack_nonce;

      let nextId = 1;
      let results = 0;
      const say = async (actions) => {
        await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), actions.map(([type, payload]) => `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'action', ack_nonce: nonce, action_id: nextId++, type, payload })}`).join('\n'));
        results += 1;
        return nextResult(browser, chat, results);
      };
      const byRef = (ref) => ({ type: 'ref', value: ref });
      const outcomes = (result) => result.actions.map(({ type, status, code, effects }) => ({ type, status, ...(code ? { code } : {}), ...(effects ? { effects: effects.filter((e) => e !== 'focused' && e !== 'dom_changed') } : {}) }));

      // 1. Look at the page.
      const seen = (await say([['observe', {}]])).observation.elements;
      const age = refOf(seen, /combobox "Age"/);
      const country = refOf(seen, /combobox "Country"/);

      // 2. A choice in the Select and one in the Autocomplete (Portugal is not among the six
      // matches shown before typing), in one message, with no question.
      const chosen = await say([
        ['select_option', { selector: byRef(age), option: 'Thirty' }],
        ['select_option', { selector: byRef(country), option: 'Portugal' }],
      ]);
      assert.deepEqual(outcomes(chosen), [
        { type: 'select_option', status: 'ok', effects: ['option_selected'] },
        { type: 'select_option', status: 'ok', effects: ['option_selected'] },
      ], JSON.stringify(chosen.actions));
      let state = await pageState(server, key, (s) => s.age === '30' && s.country === 'Portugal' && s.visibleLists === 0, 'both choices made and both lists closed');
      assert.equal(state.countryText, 'Portugal');

      // 3. The date: open the calendar by its button, then the day, by ref, as a model does
      // with a picker it knows (the calendar starts at June 2026, the page's reference date).
      const seenDate = refOf(seen, /button "Choose date"/);
      const calendar = await say([['click', { selector: byRef(seenDate) }], ['observe', {}]]);
      assert.deepEqual(outcomes(calendar).map((o) => o.status), ['ok', 'ok'], JSON.stringify(calendar.actions));
      const days = calendar.observation.elements;
      // The month shown is in the listing (the day grid is named by it), so the model knows
      // which month the days belong to before it picks one.
      assert.ok(days.some((line) => /grid "June 2026"/.test(line)), days.join('\n'));
      const day15 = refOf(days, /gridcell "15"/);
      const picked = await say([['click', { selector: byRef(day15) }]]);
      assert.deepEqual(outcomes(picked).map((o) => o.status), ['ok'], JSON.stringify(picked.actions));
      state = await pageState(server, key, (s) => s.date === '2026-06-15' && s.visibleCalendars === 0, 'the date picked and the calendar closed');

      // 4. The animated dialog: the click's result comes once the dialog is there, so the
      // model's next observation (same message) sees its checkbox.
      // MUI buttons are styled text-transform: uppercase: named as shown, as in both browsers.
      const gift = refOf(seen, /button "GIFT OPTIONS"/);
      const opened = await say([['click', { selector: byRef(gift) }], ['observe', {}]]);
      const inDialog = opened.observation.elements;
      const wrap = refOf(inDialog, /checkbox "Gift wrap"/);
      const save = refOf(inDialog, /button "SAVE"/);
      const saved = await say([['check', { selector: byRef(wrap) }], ['click', { selector: byRef(save) }]]);
      assert.deepEqual(outcomes(saved).map((o) => o.status), ['ok', 'ok'], JSON.stringify(saved.actions));
      state = await pageState(server, key, (s) => s.gift === 'wrapped' && s.dialog === 'closed' && s.visibleDialogs === 0, 'the gift options saved and the dialog gone');

      // 5. Look again.
      const values = (await say([['observe', {}]])).observation.elements;
      // The observation shows every widget's value now, as the page holds it.
      for (const pattern of [/combobox "Age" value="Thirty"/, /combobox "Country" value="Portugal"/, /spinbutton "Month" value="June"/, /spinbutton "Day" value="15"/, /spinbutton "Year" value="2026"/]) refOf(values, pattern);

      // 6. A country that does not exist: typed, not found, and the Autocomplete is left as
      // found (closed, still Portugal).
      const missing = await say([['select_option', { selector: byRef(country), option: 'Atlantis' }]]);
      assert.deepEqual(outcomes(missing), [{ type: 'select_option', status: 'failed', code: 'option_not_found' }], JSON.stringify(missing.actions));
      state = await pageState(server, key, (s) => s.visibleLists === 0 && s.countryText === 'Portugal', 'the country list closed with its text back');
      assert.equal(state.country, 'Portugal');
      assert.equal(state.age, '30');
      assert.equal(state.date, '2026-06-15');

      // 7. A date typed into MUI's sectioned field (each part a contenteditable spinbutton
      // that reads key presses, not a value): BAI types it key by key into the Month part, the
      // field moves on to Day and Year itself, and the whole field shows the date.
      const month = refOf(values, /spinbutton "Month"/);
      const typed = await say([['input_text', { selector: byRef(month), text: '07/20/2026' }]]);
      assert.deepEqual(outcomes(typed), [{ type: 'input_text', status: 'ok', effects: ['value_set'] }], JSON.stringify(typed.actions));
      state = await pageState(server, key, (s) => s.date === '2026-07-20', 'the typed date');
      assert.equal(state.dateText, '07/20/2026');

      // All along the target stayed in the background and the user's focus stayed in the chat.
      assert.equal(state.visibility, 'hidden');
      assert.equal(state.hasFocus, false);
      assert.equal(await chat.evaluate(() => document.visibilityState), 'visible');
    });
  });
}
