// Secrets never reach the model, the log or the disk (issue 15), end to end in the real
// extension: a prompt-injected "model" that reads only the chat tries every way to learn a
// React controlled password, a CVC and a recovery code the user typed on the target page; the
// same questions asked again after the user changed the secrets get the very same answers. Then
// typed text held before the ACK stays off storage.local, the log masks an escaped "text" key,
// and saved conversations go away after the retention time and when the user clears them.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { answerBanner, installTarget, openChat, protocolPrompt, shownQuestion } from './lib/chat.mjs';

const CAPABILITIES = ['action_lines', 'result_lines', 'observe', 'extended_actions'];

function handshake(workflowId) {
  return 'Reading the payment page.\n\n```bai\n' + JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'handshake', state: 'awaiting_extension_ack', capabilities: CAPABILITIES }) + '\n```';
}

/** Polls `fn(...args)` (which may be async) in `tab` until it is truthy. */
async function poll(tab, fn, args, what, timeout = 15000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await tab.evaluate(fn, ...args).catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const resultLines = (chat) => chat.evaluate(() => window.chatFixture.messages().filter((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ')).map((m) => m.text));

async function nextResult(chat, n) {
  await chat.waitFor((count) => window.chatFixture.messages().filter((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ')).length >= count, { args: [n], what: `result ${n}`, timeout: 30000 });
  const line = (await resultLines(chat))[n - 1];
  return { line, result: JSON.parse(line.slice('BAI_RESULT '.length)) };
}

/** Every way the attacker asks about the secret fields (each skipped on failure so all run). */
const PROBES = [
  ['observe', {}],
  ['assert', { selector: 'input[value^="h"]', expect: 'exists' }],
  ['assert', { selector: { type: 'css', value: 'form:has(input[value^="h"])' }, expect: 'exists' }],
  ['assert', { selector: 'input[type=password]', expect: 'value_equals', value: 'hunter2-Pw' }],
  ['assert', { selector: '#cvc', expect: 'value_equals', value: '8264' }],
  ['wait_for', { selector: '[data-value^="8"]', state: 'attached' }],
  ['wait_for', { selector: { type: 'xpath', value: "//textarea[contains(., 'ZX')]" }, state: 'attached' }],
  ['assert', { selector: { type: 'text', value: 'ZXCV' }, expect: 'exists' }],
  ['assert', { selector: { type: 'label', value: 'Recovery code ZXCV' }, expect: 'exists' }],
  ['assert', { selector: { type: 'css', value: '#rc:empty' }, expect: 'absent' }],
  ['wait_for', { text: 'ZXCV' }],
  ['extract', { selector: '#rc' }],
  ['extract', { selector: '#cvc', attribute: 'value' }],
  ['extract', { selector: 'input[type=password]', attribute: 'value' }],
  ['extract', { selector: '#pay' }],
];

/** What the answer to each probe must be, whatever the secrets are. */
function expectedProbeOutcomes() {
  const refused = { status: 'failed', code: 'secret_field' };
  return [
    { status: 'ok' },
    refused,
    refused,
    refused,
    refused,
    refused,
    refused,
    { status: 'failed', code: 'assertion_failed' },
    { status: 'failed', code: 'assertion_failed' },
    refused,
    refused,
    { status: 'ok', data: ['[redacted recovery code]'] },
    { status: 'ok', data: ['[redacted security code]'] },
    { status: 'ok', data: ['[redacted password]'] },
    { status: 'ok', data: ['CVC Recovery code Delivery note Save card'] },
  ];
}

for (const name of browserNames()) {
  describe(`secrets in ${name}`, () => {
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

    test('a prompt-injected model learns nothing about a React password, a CVC or a recovery code, and the answers do not change with them', async () => {
      const targetUrl = `${server.origin}/secrets/index.html`;
      const target = await browser.newTab(targetUrl);
      await target.waitFor(() => Boolean(window.__loginState && window.__typeAsUser), { what: 'the payment page' });
      const typeSecrets = (password, cvc, code) => target.evaluate((p, c, r) => {
        window.__typeAsUser('input[type=password]', p);
        window.__typeAsUser('#cvc', c);
        window.__typeAsUser('#rc', r);
      }, password, cvc, code);
      // The user types the secrets; React mirrors the password into the value attribute.
      await typeSecrets('hunter2-Pw', '8264', 'ZXCV-9876-QWER');
      assert.equal(await target.evaluate(() => window.__loginState.password), 'hunter2-Pw');
      assert.equal(await target.evaluate(() => document.querySelector('input[type=password]').getAttribute('value')), 'hunter2-Pw', 'React mirrors the value');

      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(targetUrl)}`);
      await panel.waitFor(() => document.body.dataset.ready);
      await panel.click('#copy-prompt');
      const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow, { what: 'the copied prompt' });

      const chat = await openChat(browser, `${server.origin}/chat/c/secrets-${name}`);
      await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshake(workflowId));
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      await answerBanner(chat, 'allow');
      const ackText = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
      const nonce = JSON.parse(ackText.slice('BAI_ACK '.length)).ack_nonce;
      let nextId = 1;
      const say = (actions) => chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), actions.map(([type, payload, extra]) => `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'action', ack_nonce: nonce, action_id: nextId++, type, payload, on_error: 'skip', timeout_ms: 300, ...extra })}`).join('\n'));

      const outcomes = (result) => result.actions.map(({ action_id: _id, type: _type, reason: _reason, hints: _hints, effects: _effects, ...rest }) => rest);
      const secretsIn = (line, secrets) => secrets.filter((s) => line.includes(s));

      await say(PROBES);
      const first = await nextResult(chat, 1);
      assert.deepEqual(outcomes(first.result), expectedProbeOutcomes(), first.line);
      assert.deepEqual(secretsIn(first.line, ['hunter2', 'ZXCV-9876', '8264', 'QWER']), [], first.line);
      const lines = first.result.observation.elements;
      assert.ok(lines.some((l) => /textbox "Password" value=<hidden>$/.test(l)), lines.join('\n'));
      assert.ok(lines.some((l) => /textbox "CVC" value=<hidden> secret="card security code"/.test(l)), lines.join('\n'));
      assert.ok(lines.some((l) => /textbox "Recovery code" value=<hidden> secret="recovery code"/.test(l)), lines.join('\n'));
      const refusal = first.result.actions[1];
      assert.match(refusal.reason, /could test the value of a secret field/);

      // The user changes every secret; the same questions get the same answers.
      await typeSecrets('Other-Secret-77', '1111', 'PLMO-1234-ZZZZ');
      await say(PROBES);
      const second = await nextResult(chat, 2);
      assert.deepEqual(outcomes(second.result), outcomes(first.result));
      assert.deepEqual(second.result.actions.map((a) => a.reason ?? null), first.result.actions.map((a) => a.reason ?? null));
      assert.deepEqual(second.result.observation, first.result.observation);
      assert.deepEqual(secretsIn(second.line, ['Other-Secret', 'PLMO-1234', 'ZZZZ']), [], second.line);
      assert.ok(!/\b1111\b/.test(second.line), second.line);

      // Filling a secret field still works once the user allows it; its value never comes back.
      await say([['input_text', { selector: { type: 'label', value: 'CVC' }, text: '5309' }, { on_error: 'stop', timeout_ms: 2000 }], ['extract', { selector: '#cvc', attribute: 'value' }]]);
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the question about typing into the CVC' });
      // The question is shown in BAI's own question window (never in the page).
      assert.match((await shownQuestion(chat)).text, /password/);
      await answerBanner(chat, 'allow');
      const third = await nextResult(chat, 3);
      assert.deepEqual(third.result.actions.map(({ action_id: _id, ...rest }) => rest), [
        { type: 'input_text', status: 'ok', effects: ['value_set'] },
        { type: 'extract', status: 'ok', effects: ['extracted'], data: ['[redacted security code]'] },
      ]);
      assert.equal(await target.evaluate(() => document.getElementById('cvc').value), '5309');
      await chat.screenshot('secrets-results');
    });

    test('a login form sent by GET asks first, and no address the model reads holds the password', async () => {
      // The red team's page (session 11): a login form whose script never attached goes by GET,
      // so Enter in the e-mail field would put the password into the address, and the address
      // comes back to the model in the result.
      const targetUrl = `${server.origin}/secrets/get-login.html`;
      const target = await browser.newTab(targetUrl);
      await target.waitFor(() => Boolean(document.getElementById('password')), { what: 'the login page' });
      await target.evaluate(() => { document.getElementById('password').value = 'hunter2-GET'; });

      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(targetUrl)}`);
      await panel.waitFor(() => document.body.dataset.ready);
      await panel.click('#copy-prompt');
      const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow, { what: 'the copied prompt' });
      const chat = await openChat(browser, `${server.origin}/chat/c/get-login-${name}`);
      await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshake(workflowId));
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      await answerBanner(chat, 'allow');
      const ackText = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
      const nonce = JSON.parse(ackText.slice('BAI_ACK '.length)).ack_nonce;
      let nextId = 1;
      const say = (actions) => chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), actions.map(([type, payload]) => `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'action', ack_nonce: nonce, action_id: nextId++, type, payload, on_error: 'stop', timeout_ms: 2000 })}`).join('\n'));

      // "Sign in" is harmless and the mode asks once per workflow: only the GET form asks.
      await say([['press_key', { selector: '#email', key: 'Enter' }]]);
      const question = await shownQuestion(chat);
      assert.match(question.text, /sends the form by GET, which puts what the secret field holds into the address/);
      await answerBanner(chat, 'allow');
      const first = await nextResult(chat, 1);
      // The browser did send the password in the address; the model never reads it.
      await target.waitFor(() => location.search.includes('password='), { what: 'the GET submission' });
      assert.match(await target.evaluate(() => location.href), /password=hunter2-GET/);
      assert.ok(!first.line.includes('hunter2'), first.line);
      assert.match(first.result.page.url, /\?email=ann%40example\.com&password=\[redacted\]$/, first.line);

      // Observing the new page and reading a link that carries a reset token show neither.
      await say([['observe', {}], ['extract', { selector: '#reset', attribute: 'href' }]]);
      const second = await nextResult(chat, 2);
      assert.ok(!second.line.includes('hunter2') && !second.line.includes('zq81'), second.line);
      assert.deepEqual(second.result.actions[1].data, ['?reset_token=[redacted]&lang=en'], second.line);
    });

    test('a password field with a name no rule knows, sent by GET to another page, stays out of the addresses the model reads', async () => {
      // The field is `xq7`: only the login page says it is secret, and the page the form leads
      // to has no such field. The executor's answer carries the login page's secret field
      // names; the chat tab redacts the next page's address with them.
      const targetUrl = `${server.origin}/secrets/get-login-named.html`;
      const target = await browser.newTab(targetUrl);
      await target.waitFor(() => Boolean(document.getElementById('xq7')), { what: 'the login page' });
      await target.evaluate(() => { document.getElementById('xq7').value = 'hunter2-XQ'; });

      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(targetUrl)}`);
      await panel.waitFor(() => document.body.dataset.ready);
      await panel.click('#copy-prompt');
      const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow, { what: 'the copied prompt' });
      const chat = await openChat(browser, `${server.origin}/chat/c/get-login-named-${name}`);
      await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshake(workflowId));
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      await answerBanner(chat, 'allow');
      const ackText = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
      const nonce = JSON.parse(ackText.slice('BAI_ACK '.length)).ack_nonce;
      let nextId = 1;
      const say = (actions) => chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), actions.map(([type, payload]) => `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'action', ack_nonce: nonce, action_id: nextId++, type, payload, on_error: 'stop', timeout_ms: 2000 })}`).join('\n'));

      await say([['press_key', { selector: '#email', key: 'Enter' }]]);
      await shownQuestion(chat);
      await answerBanner(chat, 'allow');
      const first = await nextResult(chat, 1);
      await target.waitFor(() => location.pathname.endsWith('/signed-in.html'), { what: 'the GET submission' });
      assert.match(await target.evaluate(() => location.href), /xq7=hunter2-XQ/);
      assert.ok(!first.line.includes('hunter2'), first.line);
      assert.match(first.result.page.url, /signed-in\.html\?email=ann%40example\.com&xq7=\[redacted\]$/, first.line);

      // The chat tab reloads (red team, session 16: the names lived in memory only, and the
      // next result quoted the address whole): the restored session still knows them.
      await chat.goto(`${server.origin}/chat/c/get-login-named-${name}`);
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.polls, { what: 'the resumed session' });

      // The next page read on its own: the names are still known.
      await say([['observe', {}], ['wait_for', { url_contains: 'xq7=h' }]]);
      const second = await nextResult(chat, 2);
      assert.ok(!second.line.includes('hunter2'), second.line);
      // `url_contains` matches the address as the model reads it: no letter of the password.
      assert.equal(second.result.actions[1].status, 'failed', second.line);
      assert.equal(second.result.actions[1].code, 'timeout', second.line);
    });

    test('typed text stays off the disk, the log masks escaped keys, and saved conversations are deleted', async () => {
      const workflowId = `wf-held-${name}`;
      const chatUrl = `${server.origin}/chat/c/held-${name}`;
      const chat = await openChat(browser, chatUrl);
      await chat.evaluate(installTarget);
      const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(chatUrl)}`);
      await panel.waitFor(() => document.body.dataset.ready);
      const disk = () => panel.evaluate(async () => JSON.stringify(await chrome.storage.local.get(null)));

      // BAI/0.2: an action written before the ACK is held until the user answers.
      const handshakeLine = `BAI_HANDSHAKE ${JSON.stringify({ protocol: 'BAI/0.2', workflow_id: workflowId, state: 'awaiting_extension_ack' })}`;
      const typed = `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.2', workflow_id: workflowId, action_id: 1, type: 'input_text', payload: { selector: '#email', text: 'held-S3cret-txt' } })}`;
      await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), `${handshakeLine}\n${typed}`);
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      const key = `bai:conv:${server.origin}/chat/c/held-${name}`;
      const saved = await poll(panel, async (k, id) => {
        const stored = (await chrome.storage.local.get(k))[k];
        return stored && stored.includes(id) ? stored : null;
      }, [key, workflowId], 'the saved conversation');
      assert.ok(saved.includes('input_text'), 'the held action is saved');
      assert.ok(!(await disk()).includes('held-S3cret-txt'), 'the typed text is not on disk');
      // Allowed: the held action runs with its text (kept in memory).
      await answerBanner(chat, 'allow');
      await chat.waitFor(() => window.__target.email === 'held-S3cret-txt', { what: 'the held text typed' });
      assert.ok(!(await disk()).includes('held-S3cret-txt'), 'still not on disk');

      // A pasted line spells "text" with a JSON escape: the log and the export mask it anyway.
      const escaped = 'BAI_ACTION {"protocol":"BAI/0.2","workflow_id":"' + workflowId + '","action_id":2,"type":"input_text","payload":{"selector":"#email","t\\u0065xt":"esc-S3cret-txt"}}';
      await chat.evaluate((text) => window.chatFixture.addUserMessage(text), escaped);
      const logPanel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(chatUrl)}`);
      await logPanel.waitFor(() => document.body.dataset.ready && [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes('action_from_user')), { what: 'the refusal in the log' });
      await logPanel.evaluate(() => {
        URL.createObjectURL = (blob) => { window.__exported = blob; return 'blob:captured'; };
        HTMLAnchorElement.prototype.click = function captureDownload() { window.__downloadName = this.download; };
      });
      await logPanel.click('#export-log');
      await logPanel.waitFor(() => Boolean(window.__exported), { what: 'the exported log' });
      const exported = await logPanel.evaluate(async () => window.__exported.text());
      assert.ok(exported.includes('action_from_user'), 'the refusal is exported');
      assert.ok(!exported.includes('esc-S3cret-txt'), 'the escaped key is masked in the export');
      assert.ok(!exported.includes('held-S3cret-txt'), 'the held text is not in the export');
      assert.ok(!(await disk()).includes('esc-S3cret-txt'));

      // Retention: a conversation unused for longer than the setting is deleted.
      const day = 24 * 3600 * 1000;
      await panel.evaluate(async (d) => {
        await chrome.storage.local.set({
          'bai:conv:https://old.example/c/1': '{}',
          'bai:conv-at:https://old.example/c/1': Date.now() - 40 * d,
          'bai:conv:https://recent.example/c/2': '{}',
          'bai:conv-at:https://recent.example/c/2': Date.now() - 2 * d,
        });
      }, day);
      // Changing the setting applies it at once.
      await panel.evaluate(() => {
        const input = document.getElementById('set-retention-days');
        input.value = '10';
        input.dispatchEvent(new Event('change'));
      });
      await poll(panel, async () => {
        const stored = await chrome.storage.local.get(null);
        return !('bai:conv:https://old.example/c/1' in stored) && !('bai:conv-at:https://old.example/c/1' in stored);
      }, [], 'the old conversation to be deleted');
      let all = JSON.parse(await disk());
      assert.ok('bai:conv:https://recent.example/c/2' in all, 'a recent conversation is kept');
      assert.equal(all['bai:settings'].conversationRetentionDays, 10);

      // "Clear saved conversations" deletes them all.
      await panel.click('#clear-conversations');
      const status = await panel.waitFor(() => document.getElementById('clear-status').textContent || null, { what: 'the clear status' });
      assert.match(status, /^Cleared \d+ saved conversations?\./);
      all = JSON.parse(await disk());
      assert.ok(!('bai:conv:https://recent.example/c/2' in all), 'cleared');
      await panel.screenshot('secrets-panel-cleared');
    });
  });
}
