// The model (and the page it reads) as an attacker against the review: BAI reviews one element,
// and the page tries to get a different one pressed. Each action is one call into the Rust
// core, which resolves the selector once, reviews that element (what is really under the
// pointer, the option really chosen) and acts on exactly that element; an element held across
// the user's question is acted on after Allow only if it is still on the page and unchanged.
// Tried in the real extension in Chromium and Firefox, on tests/fixtures/pages/held/attacks.html,
// which records every press in the page's own state:
//   - after the question appears, the page swaps the button for another under the same
//     selector, re-labels it, or re-renders an identical clone;
//   - a list grows so that an `index` now names another row; an index past the end at review
//     time, the rows arriving later;
//   - the element is absent at review time and a risky one appears later;
//   - a harmless disabled button, allowed at once, is swapped or re-labelled while the click
//     waits for it; a Delete slides under the pointer inside a reviewed wrapper;
//   - focus moves away between the question and the answer (a key without a selector);
//   - select_option by a value whose label is risky; a custom list whose options exist only
//     once opened;
// and that allowed actions still run.

import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { answerQuestion, openChat, protocolPrompt, shownQuestion } from './lib/chat.mjs';

/** A model that asks for results and the richer actions (index, timeout_ms, press_key…). */
function handshake(workflowId) {
  return '```bai\n' + JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'handshake', state: 'awaiting_extension_ack', capabilities: ['action_lines', 'result_lines', 'extended_actions'] }) + '\n```';
}

/** Tabs a test opened; closed after it, pass or fail. */
const opened = [];

/** The BAI_RESULT records posted into the chat so far, parsed. */
async function results(chat) {
  const lines = await chat.evaluate(() => window.chatFixture.messages().filter((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ')).map((m) => m.text));
  return lines.map((line) => JSON.parse(line.slice('BAI_RESULT '.length)));
}

/**
 * Opens the attack page as the target, binds a workflow to it, starts it in a chat tab, and
 * returns helpers: `say(id, type, payload, extra)` writes one action line as the model;
 * `outcome(id)` waits for the result line that reports it.
 */
async function startOnAttacks(browser, server, label) {
  const targetUrl = `${server.origin}/held/attacks.html?${label}`;
  const target = await browser.newTab(targetUrl);
  opened.push(target);
  await target.waitFor(() => Array.isArray(window.__pressed) && typeof window.swapDanger === 'function', { what: 'the attack page' });
  const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(targetUrl)}`);
  await panel.waitFor(() => document.body.dataset.ready);
  await panel.click('#copy-prompt');
  const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow, { what: 'the copied prompt' });
  await panel.close();
  const chat = await openChat(browser, `${server.origin}/chat/c/held-${label}`);
  opened.push(chat);
  await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
  await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshake(workflowId));
  await answerQuestion(chat, 'allow', workflowId);
  const ack = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
  const nonce = /"ack_nonce":"(n_[0-9a-f]{32})"/.exec(ack)[1];
  const say = (id, type, payload, extra = {}) => {
    const line = `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'action', ack_nonce: nonce, action_id: id, type, payload, ...extra })}`;
    return chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), line);
  };
  const outcome = async (id) => {
    await chat.waitFor((n) => window.chatFixture.messages().some((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ') && JSON.parse(m.text.slice(11)).actions.some((a) => a.action_id === n)), { args: [id], what: `the result of action ${id}`, timeout: 30000 });
    return (await results(chat)).flatMap((r) => r.actions).find((a) => a.action_id === id);
  };
  const pressed = () => target.evaluate(() => window.__pressed);
  return { target, chat, workflowId, say, outcome, pressed, key: (id) => `${workflowId}:${id}` };
}

for (const name of browserNames()) {
  describe(`the element BAI reviewed is the element it acts on, in ${name}`, () => {
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

    test('swapped, re-labelled or re-rendered after the question: the Allow acts on nothing (target_changed)', async () => {
      const { target, say, outcome, pressed, chat, key } = await startOnAttacks(browser, server, `swap-${name}`);
      const attacks = [
        ['.danger', () => window.swapDanger(), /the button “Delete draft” looks like it will delete something/],
        ['.danger', () => window.relabelDanger(), /the button “Delete account” looks like it will delete something/],
        ['.rr', () => window.rerender(), /the button “Delete old drafts” looks like it will delete something/],
      ];
      let id = 0;
      for (const [selector, attack, asked] of attacks) {
        id += 1;
        await say(id, 'click', { selector });
        const question = await shownQuestion(chat, key(id));
        assert.match(question.text, asked, `action ${id}: ${question.text}`);
        // The page changes the target while the user reads the question.
        await target.evaluate(attack);
        await answerQuestion(chat, 'allow', key(id));
        const result = await outcome(id);
        assert.equal(result.status, 'failed', JSON.stringify(result));
        assert.equal(result.code, 'target_changed', JSON.stringify(result));
        assert.deepEqual(await pressed(), [], `after action ${id}: nothing pressed`);
      }
    });

    test('a list that grows under an index: the reviewed row is pressed, a row past the end is never pressed unreviewed', async () => {
      const { target, say, outcome, pressed, chat, key } = await startOnAttacks(browser, server, `list-${name}`);
      // Index 1 is "Remove B" when BAI asks; then a row is added at the top, so index 1 is "A".
      await say(1, 'click', { selector: { type: 'css', value: '.rm', index: 1 } });
      const question = await shownQuestion(chat, key(1));
      assert.match(question.text, /the button “Remove B” looks like it will remove something/);
      await target.evaluate(() => window.growList(['Remove Z'], true));
      await answerQuestion(chat, 'allow', key(1));
      assert.equal((await outcome(1)).status, 'ok');
      assert.deepEqual(await pressed(), ['remove-B'], 'exactly the reviewed row');
      // An index past the end fails before anything runs; rows that arrive later are not pressed.
      await say(2, 'click', { selector: { type: 'css', value: '.rm', index: 5 } }, { timeout_ms: 500 });
      const past = await outcome(2);
      assert.equal(past.code, 'index_out_of_range', JSON.stringify(past));
      await target.evaluate(() => window.growList(['Remove C', 'Remove D', 'Remove E'], false));
      // Past the end while the action waits: the row that arrives is reviewed, and asked about.
      await say(3, 'click', { selector: { type: 'css', value: '.rm', index: 7 } }, { timeout_ms: 8000 });
      await target.evaluate(() => setTimeout(() => window.growList(['Delete everything', 'Delete all rows'], false), 700));
      const late = await shownQuestion(chat, key(3));
      assert.match(late.text, /the button “Delete all rows” looks like it will delete something/);
      await answerQuestion(chat, 'deny', key(3));
      assert.equal((await outcome(3)).code, 'denied_by_user');
      assert.deepEqual(await pressed(), ['remove-B'], 'nothing else pressed');
    });

    test('allowed at once, then swapped, re-labelled or covered by a Delete while the click waits: nothing is pressed', async () => {
      const { target, say, outcome, pressed } = await startOnAttacks(browser, server, `wait-${name}`);
      // The attack lands 3 s after it is armed: the click (timeout 8 s) must have been reviewed
      // and be waiting by then, which a loaded machine did not always manage within 1.5 s.
      const attacks = [
        ['#slow', () => window.swapSlowAfter(3000)],
        ['#slow2', () => window.relabelSlowAfter(3000)],
        ['#toolbar', () => window.swapUnderPointerAfter(3000)],
      ];
      let id = 0;
      for (const [selector, attack] of attacks) {
        id += 1;
        await target.evaluate(attack);
        // Harmless ("Save", "Open"): no question; the click waits for the button to be usable.
        await say(id, 'click', { selector }, { timeout_ms: 8000 });
        const result = await outcome(id);
        assert.equal(result.code, 'target_changed', `${selector}: ${JSON.stringify(result)}`);
        assert.deepEqual(await pressed(), [], `after ${selector}: nothing pressed`);
      }
    });

    test('absent at review time, a risky element that appears later is asked about; a key whose focus moved acts on nothing', async () => {
      const { target, say, outcome, pressed, chat, key } = await startOnAttacks(browser, server, `late-${name}`);
      await target.evaluate(() => setTimeout(() => {
        const late = document.createElement('button');
        late.id = 'late';
        late.dataset.press = 'late-delete';
        late.textContent = 'Delete account';
        document.body.append(late);
      }, 800));
      await say(1, 'click', { selector: '#late' }, { timeout_ms: 8000 });
      const question = await shownQuestion(chat, key(1));
      assert.match(question.text, /the button “Delete account” looks like it will delete something/);
      await answerQuestion(chat, 'deny', key(1));
      assert.equal((await outcome(1)).code, 'denied_by_user');
      // Space on the focused "Delete message"; the page moves the focus to "Send all" before
      // the user answers.
      await target.evaluate(() => document.getElementById('f-del').focus());
      await say(2, 'press_key', { key: 'Space' });
      const focused = await shownQuestion(chat, key(2));
      assert.match(focused.text, /the button “Delete message” looks like it will delete something/);
      await target.evaluate(() => document.getElementById('f-other').focus());
      await answerQuestion(chat, 'allow', key(2));
      assert.equal((await outcome(2)).code, 'target_changed');
      assert.deepEqual(await pressed(), [], 'nothing pressed');
    });

    test('select_option is judged by the option really chosen; a risky option found only when the list opens is not chosen', async () => {
      const { say, outcome, pressed, chat, key } = await startOnAttacks(browser, server, `select-${name}`);
      const risky = [
        ['x1', /“Delete my account” looks like it will delete something/],
        ['p2', /“Pay yearly” looks like it will pay something/],
      ];
      let id = 0;
      for (const [value, asked] of risky) {
        id += 1;
        await say(id, 'select_option', { selector: '#plan', option: value });
        const question = await shownQuestion(chat, key(id));
        assert.match(question.text, asked, question.text);
        await answerQuestion(chat, 'deny', key(id));
        assert.equal((await outcome(id)).code, 'denied_by_user');
      }
      // A harmless option runs without a question.
      await say(++id, 'select_option', { selector: '#plan', option: 'm' });
      assert.equal((await outcome(id)).status, 'ok');
      // The custom list shows no options until it opens: the option is judged once it is open,
      // right before it would be chosen. "Delete account", which the user never saw: not
      // chosen (and no question that could not show it).
      await say(++id, 'select_option', { selector: '#size', option: 'x1' });
      const refused = await outcome(id);
      assert.equal(refused.code, 'target_changed', JSON.stringify(refused));
      // An unseen but harmless option is chosen without a question (no false failure).
      await say(++id, 'select_option', { selector: '#size', option: 's' });
      assert.equal((await outcome(id)).status, 'ok');
      assert.deepEqual(await pressed(), ['plan:m', 'size:s']);
    });

    test('an allowed action still runs: the approved element is pressed once, a harmless one at once', async () => {
      const { say, outcome, pressed, chat, key } = await startOnAttacks(browser, server, `allowed-${name}`);
      await say(1, 'click', { selector: '#keep' });
      const question = await shownQuestion(chat, key(1));
      assert.match(question.text, /the button “Delete draft copy” looks like it will delete something/);
      await answerQuestion(chat, 'allow', key(1));
      assert.equal((await outcome(1)).status, 'ok');
      await say(2, 'click', { selector: '#counter' });
      assert.equal((await outcome(2)).status, 'ok');
      assert.deepEqual(await pressed(), ['keep-delete', 'counter']);
    });
  });
}
