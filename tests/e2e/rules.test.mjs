// Approval rules and question timeouts, through the real extension and the chat fixture, in
// Chromium and Firefox. The user writes rules in the panel (or with "Always allow this on this
// site" in a question); the Rust policy applies them inside its one review:
//   - an allow rule runs its action without a question, and "Always allow" adds such a rule;
//   - an expired rule does nothing: the question is asked again;
//   - a deny rule fails the action with `denied_by_rule`, named in the model's result;
//   - a question nobody answers is denied after the timeout set in the panel
//     (`question_timed_out`), and leaves the question window;
//   - no rule lets BAI type into a password field without the question, or leave the site.

import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { actionLine, answerQuestion, openChat, protocolPrompt, shownQuestion, setPanelSetting } from './lib/chat.mjs';

function handshake(workflowId) {
  return '```bai\n' + JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'handshake', state: 'awaiting_extension_ack', capabilities: ['action_lines', 'result_lines', 'extended_actions'] }) + '\n```';
}

/** Tabs a test opened; closed after it (closing a chat tab withdraws its open questions). */
const opened = [];

/** The panel, as the user opens it next to `tabUrl`. */
async function openPanel(browser, tabUrl) {
  const panel = await browser.openExtensionPage(`extension/panel/panel.html${tabUrl ? `?tabUrl=${encodeURIComponent(tabUrl)}` : ''}`);
  await panel.waitFor(() => document.body.dataset.ready && document.body.dataset.rulesShown);
  return panel;
}

/** The chat tab's activity log as the panel shows it, newest first. */
async function chatLog(browser, chatUrl) {
  const panel = await openPanel(browser, chatUrl);
  const items = await panel.evaluate(() => [...document.querySelectorAll('#log li')].map((li) => li.textContent));
  await panel.close();
  return items.join('\n');
}

/** Adds a rule with the panel's form, as the user would: typed fields, a real click on Add. */
async function addRuleInPanel(browser, { verdict, actions, name = '', site }) {
  const panel = await openPanel(browser);
  const before = await panel.evaluate(() => document.querySelectorAll('#rules li').length);
  await panel.evaluate((value) => {
    const select = document.getElementById('rule-verdict');
    select.value = value;
    select.dispatchEvent(new Event('change'));
    document.getElementById('rule-site').value = '';
  }, verdict);
  await panel.type('#rule-actions', actions);
  if (name) await panel.type('#rule-name', name);
  await panel.type('#rule-site', site);
  await panel.click('#add-rule');
  await panel.waitFor((n) => document.querySelectorAll('#rules li').length > n, { args: [before], what: 'the rule in the panel list' });
  const shown = await panel.evaluate(() => [...document.querySelectorAll('#rules li .rule-text')].map((li) => li.textContent));
  await panel.close();
  return shown;
}

/** Changes one stored setting from an extension page (the panel's own storage). */
async function setSetting(browser, name, value) {
  const panel = await openPanel(browser);
  await panel.evaluate(async (key, v) => {
    const ext = globalThis.browser ?? globalThis.chrome;
    const stored = (await ext.storage.local.get('bai:settings'))['bai:settings'] ?? {};
    await ext.storage.local.set({ 'bai:settings': { ...stored, [key]: v } });
  }, name, value);
  await panel.close();
}

/** The BAI_RESULT records posted into the chat so far, parsed. */
async function results(chat) {
  const lines = await chat.evaluate(() => window.chatFixture.messages().filter((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ')).map((m) => m.text));
  return lines.map((line) => JSON.parse(line.slice('BAI_RESULT '.length)));
}

/** The outcome the model is told for action `id`, once its result is posted. */
async function outcomeOf(chat, id) {
  await chat.waitFor((n) => window.chatFixture.messages().some((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ') && m.text.includes(`"action_id":${n},`)), { args: [id], what: `the result of action ${id}`, timeout: 30000 });
  return (await results(chat)).flatMap((r) => r.actions).find((a) => a.action_id === id);
}

/**
 * Opens the cart page as the target, binds a workflow to it from the panel, starts the workflow
 * in a chat tab and allows its handshake in the question window.
 */
async function startOnCart(browser, server, label) {
  const targetUrl = `${server.origin}/rules/cart.html?${label}`;
  const target = await browser.newTab(targetUrl);
  opened.push(target);
  await target.waitFor(() => Array.isArray(window.__pressed), { what: 'the cart page' });
  const panel = await openPanel(browser, targetUrl);
  await panel.click('#copy-prompt');
  const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow, { what: 'the copied prompt' });
  await panel.close();
  const chatUrl = `${server.origin}/chat/c/rules-${label}`;
  const chat = await openChat(browser, chatUrl);
  opened.push(chat);
  await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
  await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshake(workflowId));
  await answerQuestion(chat, 'allow', workflowId);
  const ack = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
  const nonce = /"ack_nonce":"(n_[0-9a-f]{32})"/.exec(ack)[1];
  const say = (id, type, payload) => chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), actionLine(workflowId, nonce, id, type, payload));
  return { target, chat, chatUrl, workflowId, say };
}

for (const name of browserNames()) {
  describe(`approval rules in ${name}`, () => {
    let server;
    let browser;

    before(async () => {
      server = await startServer();
      browser = await BROWSERS[name].launch();
      await browser.newTab('about:blank');
    });

    afterEach(async () => {
      while (opened.length) await opened.pop().close().catch(() => {});
      // Each test starts with no rules and the default timeout.
      await setSetting(browser, 'approvalRules', []);
      await setSetting(browser, 'questionTimeoutSeconds', 120);
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    test('a rule allows without a question; "Always allow this on this site" adds one; an expired rule asks again', async () => {
      const { target, chat, chatUrl, workflowId, say } = await startOnCart(browser, server, `allow-${name}`);
      // The user allows the cart's "Remove item" button on this site, by its whole name.
      const listed = await addRuleInPanel(browser, { verdict: 'allow', actions: 'click', name: '"Remove item"', site: server.origin });
      assert.deepEqual(listed, [`Allow click named exactly “Remove item” on ${server.origin}`]);
      await say(1, 'click', { selector: '#remove' });
      await target.waitFor(() => window.__pressed.includes('remove'), { what: 'the click the rule allows' });
      assert.equal((await outcomeOf(chat, 1)).status, 'ok');
      let log = await chatLog(browser, chatUrl);
      assert.doesNotMatch(log, /Action 1:.*waits for your approval/);
      assert.match(log, /Action 1: click.*allowed without asking by your rule “allow click named exactly “Remove item” on http:\/\/127\.0\.0\.1:\d+”/);

      // "Delete account" has no rule: the question offers "Always allow" for this very name.
      await say(2, 'click', { selector: '#delete' });
      const question = await shownQuestion(chat, `${workflowId}:2`);
      assert.match(question.text, /the button “Delete account” looks like it will delete something/);
      const always = await question.window.evaluate(() => ({ hidden: document.getElementById('always').hidden, text: document.getElementById('always').textContent, left: document.getElementById('time-left').textContent }));
      assert.equal(always.hidden, false);
      assert.equal(always.text, 'Always allow click on “Delete account” on this site');
      assert.match(always.left, /^BAI denies this in [0-2]:\d\d if you do not answer\.$/);
      await question.window.screenshot(`rules-always-allow-${name}`).catch(() => {});
      await question.window.click('#always');
      await target.waitFor(() => window.__pressed.includes('delete'), { what: 'the click allowed always' });
      // The next "Delete account" runs without a question, and the panel lists the new rule.
      await say(3, 'click', { selector: '#delete' });
      await target.waitFor(() => window.__pressed.filter((p) => p === 'delete').length === 2, { what: 'the second click, by the new rule' });
      const panel = await openPanel(browser, chatUrl);
      // The log reaches the panel after the click landed: wait for its entry.
      await panel.waitFor(() => [...document.querySelectorAll('#log li')].some((li) => /^Action 3: click.*allowed without asking/.test(li.textContent)), { what: 'action 3 in the panel log' });
      const rules = await panel.evaluate(() => [...document.querySelectorAll('#rules li .rule-text')].map((li) => li.textContent));
      assert.deepEqual(rules, [`Allow click named exactly “Remove item” on ${server.origin}`, `Allow click named exactly “Delete account” on ${server.origin}`]);
      // The audit export holds the rules and the decisions.
      const audit = JSON.parse(await panel.evaluate(() => globalThis.baiPanel.auditJson()));
      assert.equal(audit.approval_rules.length, 2);
      assert.ok(audit.events.some((e) => e.kind === 'rule_added' && e.rule.name === '"Delete account"' && e.by === 'user'));
      assert.ok(audit.events.some((e) => e.kind === 'executed' && e.action_id === 1 && /Remove item/.test(e.result?.allowed_by_rule?.rule)));
      assert.ok(audit.events.some((e) => e.kind === 'executed' && e.action_id === 3 && /Delete account/.test(e.result?.allowed_by_rule?.rule)));
      await panel.screenshot(`rules-panel-${name}`).catch(() => {});
      await panel.evaluate(() => document.getElementById('rules-title').scrollIntoView());
      await panel.screenshot(`rules-list-${name}`).catch(() => {});
      await panel.close();

      // Time passes: the "Remove item" rule expires (its expiry moved into the past). It does
      // nothing any more, and the question is asked again.
      await setSetting(browser, 'approvalRules', (await (async () => {
        const p = await openPanel(browser);
        const stored = await p.evaluate(async () => ((await (globalThis.browser ?? globalThis.chrome).storage.local.get('bai:settings'))['bai:settings']).approvalRules);
        await p.close();
        return stored.map((rule) => (rule.name === '"Remove item"' ? { ...rule, expires_at_ms: Date.now() - 1000 } : rule));
      })()));
      const expiredPanel = await openPanel(browser);
      await expiredPanel.waitFor(() => [...document.querySelectorAll('#rules li[data-expired]')].map((li) => li.textContent).join(' ').includes('expired'), { what: 'the panel to show the rule expired' });
      await expiredPanel.close();
      await say(4, 'click', { selector: '#remove' });
      const again = await shownQuestion(chat, `${workflowId}:4`);
      assert.match(again.text, /the button “Remove item” looks like it will remove something/);
      await answerQuestion(chat, 'deny', `${workflowId}:4`);
      assert.equal((await outcomeOf(chat, 4)).code, 'denied_by_user');
      assert.deepEqual(await target.evaluate(() => window.__pressed), ['remove', 'delete', 'delete']);
      log = await chatLog(browser, chatUrl);
      assert.match(log, /Refused action 4by you/);

      // Remove, in the panel, takes a rule away.
      const removing = await openPanel(browser);
      const id = await removing.evaluate(() => [...document.querySelectorAll('#rules li')].find((li) => li.textContent.includes('Delete account'))?.dataset.rule);
      await removing.click(`#rules li[data-rule="${id}"] button`);
      await removing.waitFor(() => document.querySelectorAll('#rules li').length === 1, { what: 'the rule to leave the list' });
      assert.match(await removing.evaluate(() => document.querySelector('#rules li').textContent), /Remove item.*expired/);
      await removing.close();
    });

    test('a deny rule fails the action with denied_by_rule, named in the model\'s result and the panel', async () => {
      const { target, chat, chatUrl, say } = await startOnCart(browser, server, `deny-${name}`);
      await addRuleInPanel(browser, { verdict: 'deny', actions: 'click', name: 'delete|remove', site: server.origin });
      await say(1, 'click', { selector: '#delete' });
      const outcome = await outcomeOf(chat, 1);
      assert.equal(outcome.status, 'failed');
      assert.equal(outcome.code, 'denied_by_rule');
      assert.equal(outcome.reason, `Your rule “deny click whose name has “delete|remove” on ${server.origin}” does not allow this action; BAI did not act.`);
      // Other buttons are not covered.
      await say(2, 'click', { selector: '#next' });
      await target.waitFor(() => window.__pressed.includes('next'), { what: 'the click no rule denies' });
      assert.deepEqual(await target.evaluate(() => window.__pressed), ['next']);
      const log = await chatLog(browser, chatUrl);
      assert.match(log, /Action 1: click css “#delete” faileddenied_by_rule: Your rule “deny click whose name has “delete\|remove”/);
    });

    test('a question nobody answers is denied after the timeout (question_timed_out) and leaves the question window', async () => {
      const { target, chat, chatUrl, workflowId, say } = await startOnCart(browser, server, `timeout-${name}`);
      await setPanelSetting(browser, 'set-question-timeout', '3', 'questionTimeoutSeconds', 3);
      await say(1, 'click', { selector: '#delete' });
      const key = `${workflowId}:1`;
      const question = await shownQuestion(chat, key);
      assert.match(await question.window.evaluate(() => document.getElementById('time-left').textContent), /^BAI denies this in 0:0[0-3] if you do not answer\.$/);
      // Nobody answers. The chat tab stops waiting, and the model is told why.
      await chat.waitFor((k) => document.querySelector('bai-banner')?.dataset.question !== k, { args: [key], what: 'the question to time out', timeout: 15000 });
      const outcome = await outcomeOf(chat, 1);
      assert.equal(outcome.code, 'question_timed_out');
      assert.match(outcome.reason, /Nobody answered BAI's question in time/);
      assert.deepEqual(await target.evaluate(() => window.__pressed), []);
      // The question is gone from the background's list (the window closes once none is left).
      const pending = await openPanel(browser);
      const left = await pending.evaluate(async () => (await (globalThis.browser ?? globalThis.chrome).runtime.sendMessage({ type: 'pending_questions' })).questions.length);
      assert.equal(left, 0);
      assert.equal(await pending.evaluate(() => document.getElementById('question').hidden), true, 'the panel shows no question');
      await pending.close();
      const log = await chatLog(browser, chatUrl);
      assert.match(log, /Refused action 1nobody answered in time/);
    });

    test('a stale record of the question window (another window under its id) never hides a question', async () => {
      const { target, chat, workflowId, say } = await startOnCart(browser, server, `stale-window-${name}`);
      // The background's record of its question window names a window that shows something
      // else (here the window the tests use), as a record left from a window being closed can.
      const panel = await openPanel(browser);
      // First the handshake's question window closes (its record goes with it).
      const recordedNow = () => panel.evaluate(async () => (await (globalThis.browser ?? globalThis.chrome).storage.session.get('questionWindow')).questionWindow ?? null);
      for (const deadline = Date.now() + 10000; (await recordedNow()) !== null;) {
        assert.ok(Date.now() < deadline, 'the handshake question window closed');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const otherWindow = await panel.evaluate(async () => {
        const ext = globalThis.browser ?? globalThis.chrome;
        const current = await ext.windows.getCurrent();
        await ext.storage.session.set({ questionWindow: current.id });
        return current.id;
      });
      await panel.close();
      await say(1, 'click', { selector: '#delete' });
      // The question still gets a window of its own: focusing the recorded one would leave it
      // unseen until its time ran out.
      const question = await shownQuestion(chat, `${workflowId}:1`);
      assert.match(question.text, /the button “Delete account” looks like it will delete something/);
      const recorded = await question.window.evaluate(async () => (await (globalThis.browser ?? globalThis.chrome).storage.session.get('questionWindow')).questionWindow);
      assert.notEqual(recorded, otherWindow, 'the record now names the question window');
      await answerQuestion(chat, 'deny', `${workflowId}:1`);
      assert.equal((await outcomeOf(chat, 1)).code, 'denied_by_user');
      assert.deepEqual(await target.evaluate(() => window.__pressed), []);
    });

    test('no rule lets BAI type into a password field without asking, or leave the site', async () => {
      const { target, chat, workflowId, say } = await startOnCart(browser, server, `limits-${name}`);
      await addRuleInPanel(browser, { verdict: 'allow', actions: 'input_text, navigate, click', site: server.origin });
      await say(1, 'input_text', { selector: '#password', text: 'hunter2' });
      const question = await shownQuestion(chat, `${workflowId}:1`);
      assert.match(question.text, /it types into or edits a password field/);
      assert.equal(await question.window.evaluate(() => document.getElementById('always').hidden), true, 'no "Always allow" for a password field');
      await answerQuestion(chat, 'deny', `${workflowId}:1`);
      assert.equal((await outcomeOf(chat, 1)).code, 'denied_by_user');
      assert.equal(await target.evaluate(() => window.__passwordTyped), false);
      // Another origin (localhost instead of 127.0.0.1): refused, whatever the rule says.
      const offSite = server.origin.replace('127.0.0.1', 'localhost');
      await say(2, 'navigate', { url: `${offSite}/rules/cart.html?away` });
      const outcome = await outcomeOf(chat, 2);
      assert.equal(outcome.code, 'navigation_out_of_scope');
      assert.equal(await target.evaluate(() => location.href), `${server.origin}/rules/cart.html?limits-${name}`);
    });

    test('settings changed together, with the panel closed at once, are all saved', async () => {
      // Three changes in one moment, the panel closed right after: each must be saved. (The panel
      // used to read the settings, then write them: changes made together each dropped the
      // others', and a panel closed between the two dropped its own.)
      const panel = await openPanel(browser);
      await panel.evaluate(() => {
        const set = (id, apply) => {
          const control = document.getElementById(id);
          apply(control);
          control.dispatchEvent(new Event('change'));
        };
        set('set-approval-mode', (c) => { c.value = 'each_action'; });
        set('set-insert-only', (c) => { c.checked = true; });
        set('set-question-timeout', (c) => { c.value = '77'; });
      });
      await panel.close();
      const reader = await openPanel(browser);
      try {
        const wanted = { approvalMode: 'each_action', insertOnly: true, questionTimeoutSeconds: 77 };
        const read = () => reader.evaluate(async () => ((await (globalThis.browser ?? globalThis.chrome).storage.local.get('bai:settings'))['bai:settings'] ?? {}));
        const deadline = Date.now() + 10000;
        let saved = await read();
        // Polled: a page's storage is read by an async call, which the in-page waiter cannot await.
        while (!Object.keys(wanted).every((k) => saved[k] === wanted[k])) {
          if (Date.now() > deadline) assert.fail(`not every setting was saved: ${JSON.stringify(saved)}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
          saved = await read();
        }
        assert.equal(saved.approvalMode, 'each_action');
        // A change the panel does not know is refused with a typed error, and nothing is saved.
        // (Only its code comes back: a WebDriver answer with an `error` field reads as a failure.)
        const refused = await reader.evaluate(async () => {
          const reply = await (globalThis.browser ?? globalThis.chrome).runtime.sendMessage({ type: 'change_settings', change: { set: 'approvalModeX', value: 'auto' } });
          return reply?.error?.code ?? null;
        });
        assert.equal(refused, 'unknown_setting');
      } finally {
        await reader.close();
        await setSetting(browser, 'approvalMode', 'once_per_workflow');
        await setSetting(browser, 'insertOnly', false);
      }
    });
  });
}
