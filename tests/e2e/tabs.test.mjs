// Several tabs per workflow (capability `tabs`), end to end in the real extension: a scripted
// model that reads only the chat opens a second tab on its bound site, acts on both (each page
// counts its own presses), is refused a ref of one tab used on the other, a tab it does not own
// and a tab on another origin; the user closes the new tab mid-way, its next action fails
// `tab_closed` while the bound tab goes on working.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { answerBanner, protocolPrompt, waitForLedger } from './lib/chat.mjs';

const CAPABILITIES = ['action_lines', 'result_lines', 'observe', 'extended_actions', 'tabs'];

function handshake(workflowId) {
  return 'I will work in two tabs.\n\n```bai\n' + JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'handshake', state: 'awaiting_extension_ack', capabilities: CAPABILITIES }) + '\n```';
}

const isResult = (text) => text.startsWith('BAI_RESULT ');

/** Waits for result line number `n` (1-based) and answers its record; on a timeout the error
 * carries the chat's log. */
async function result(browser, chat, n) {
  try {
    await chat.waitFor((count) => window.chatFixture.messages().filter((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ')).length >= count, { args: [n], what: `result ${n}`, timeout: 30000 });
  } catch (error) {
    const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(await chat.evaluate(() => location.href))}`);
    const items = await panel.waitFor(() => document.body.dataset.ready && [...document.querySelectorAll('#log li')].map((li) => li.textContent));
    throw new Error(`${error.message}; chat log (newest first):\n${items.join('\n')}`);
  }
  const lines = await chat.evaluate(() => window.chatFixture.messages().filter((m) => m.role === 'user').map((m) => m.text));
  const line = lines.filter(isResult)[n - 1];
  return JSON.parse(line.slice('BAI_RESULT '.length));
}

/** The addresses of every tab of the browser (the extension's own pages included). */
async function openAddresses(browser) {
  if (browser.name === 'chromium') return browser.context.pages().filter((page) => !page.isClosed()).map((page) => page.url());
  const handles = await browser.session.command('GET', '/window/handles');
  const urls = [];
  for (const handle of handles) {
    await browser.session.command('POST', '/window', { handle });
    urls.push(String(await browser.session.command('GET', '/url')));
  }
  browser.current = null;
  return urls;
}

/** The user closes the tab showing `url` (one the tests did not open themselves). */
async function closeTabShowing(browser, url) {
  if (browser.name === 'chromium') {
    const page = browser.context.pages().find((p) => !p.isClosed() && p.url() === url);
    assert.ok(page, `a tab shows ${url}`);
    await page.close();
    return;
  }
  const handles = await browser.session.command('GET', '/window/handles');
  for (const handle of handles) {
    if (browser.testHandles.has(handle)) continue;
    await browser.session.command('POST', '/window', { handle });
    if (String(await browser.session.command('GET', '/url')) === url) {
      await browser.session.command('DELETE', '/window');
      browser.current = null;
      return;
    }
  }
  assert.fail(`no tab shows ${url}`);
}

/** The user takes the tab showing `url` (one the tests did not open themselves) to `to`. */
async function navigateTabShowing(browser, url, to) {
  if (browser.name === 'chromium') {
    const page = browser.context.pages().find((p) => !p.isClosed() && p.url() === url);
    assert.ok(page, `a tab shows ${url}`);
    await page.goto(to);
    return;
  }
  const handles = await browser.session.command('GET', '/window/handles');
  for (const handle of handles) {
    if (browser.testHandles.has(handle)) continue;
    await browser.session.command('POST', '/window', { handle });
    if (String(await browser.session.command('GET', '/url')) === url) {
      await browser.session.command('POST', '/url', { url: to });
      browser.current = null;
      return;
    }
  }
  assert.fail(`no tab shows ${url}`);
}

/** The ref of each listed element (`@e12 button "Add one"` → `@e12`). */
const refsOf = (elements) => elements.map((element) => element.split(' ')[0]).filter((ref) => /^@e\d+$/.test(ref));

/** Binds a new tab showing the list page (`query`: an address no earlier test's tab shows, so
 * that the panel binds this one), starts a `tabs` workflow on it from a new chat, and answers
 * what the test needs to talk as the model. */
async function startTabsWorkflow(browser, server, conversation, query = '') {
  const listUrl = `${server.origin}/tabs/list.html${query}`;
  const target = await browser.newTab(listUrl);
  await target.waitFor(() => document.getElementById('count'));

  const panel = await browser.openExtensionPage(`extension/panel/panel.html?tabUrl=${encodeURIComponent(listUrl)}`);
  await panel.waitFor(() => document.body.dataset.ready);
  await panel.click('#copy-prompt');
  const workflowId = await panel.waitFor(() => document.body.dataset.lastPromptWorkflow, { what: 'the copied prompt' });

  const chat = await browser.newTab(`${server.origin}/chat/c/${conversation}`);
  await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.polls, { what: 'the chat session', timeout: 30000 });
  await chat.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
  await chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), handshake(workflowId));
  await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
  await answerBanner(chat, 'allow');
  const ackText = await chat.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
  const ack = JSON.parse(ackText.slice('BAI_ACK '.length));
  assert.deepEqual(ack.capabilities, CAPABILITIES);

  let nextId = 1;
  const line = (type, payload, extra = {}) => `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'action', ack_nonce: ack.ack_nonce, action_id: nextId++, type, payload, ...extra })}`;
  const say = (...lines) => chat.evaluate((text) => window.chatFixture.addAssistantMessage(text), lines.join('\n'));
  let results = 0;
  const next = () => result(browser, chat, ++results);
  return { listUrl, target, chat, workflowId, line, say, next };
}

for (const name of browserNames()) {
  describe(`several tabs in ${name}`, () => {
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

    test('open a tab, act on both, refuse foreign tabs, refs and origins, go on after one is closed', async () => {
      const { listUrl, target, chat, line, say, next } = await startTabsWorkflow(browser, server, `tabs-${name}`);
      const cartUrl = `${server.origin}/tabs/cart.html`;

      // 1. A new tab on the bound site, named t2.
      await say(line('open_tab', { url: '/tabs/cart.html' }));
      const opened = await next();
      assert.equal(opened.state, 'active');
      assert.deepEqual(opened.actions.map((a) => [a.type, a.status, a.code]), [['open_tab', 'ok', undefined]]);
      assert.deepEqual(opened.actions[0].effects, ['tab_opened']);
      assert.deepEqual(opened.actions[0].data, { tab: 't2', url: cartUrl, title: 'Tabs: cart' });
      assert.ok((await openAddresses(browser)).includes(cartUrl), 'the new tab shows the cart');

      // 2. Act on both tabs in one message: each page counts only its own presses.
      await say(
        line('click', { selector: '#add' }, { tab: 't2' }),
        line('click', { selector: '#add' }),
        line('click', { selector: '#add' }, { tab: 't2' }),
        line('extract', { selector: '#count' }, { tab: 't2' }),
        line('extract', { selector: '#count' }, { tab: 't1' }),
      );
      const both = await next();
      assert.deepEqual(both.actions.map((a) => a.status), ['ok', 'ok', 'ok', 'ok', 'ok'], JSON.stringify(both.actions));
      assert.deepEqual(both.actions[3].data, ['cart 2']);
      assert.deepEqual(both.actions[4].data, ['1']);
      assert.equal(await target.evaluate(() => document.getElementById('count').textContent), '1');
      // The result's page is still the bound tab's.
      assert.equal(both.page.url, listUrl);

      // 3. Refs belong to the tab that issued them: t2's button ref is refused on t1 before
      // anything is delivered, and works on t2.
      await say(line('observe', {}, { tab: 't2' }));
      const observed = await next();
      const button = observed.observation.elements.find((element) => element.includes('button "Add one"'));
      assert.ok(button, JSON.stringify(observed.observation));
      const ref = button.split(' ')[0];
      await say(line('click', { selector: { type: 'ref', value: ref } }));
      const foreignRef = await next();
      assert.equal(foreignRef.actions[0].status, 'failed');
      assert.equal(foreignRef.actions[0].code, 'ref_from_other_tab');
      assert.match(foreignRef.actions[0].reason, /tab t2/);
      await say(line('click', { selector: { type: 'ref', value: ref } }, { tab: 't2' }), line('extract', { selector: '#count' }, { tab: 't2' }));
      const ownRef = await next();
      assert.deepEqual(ownRef.actions.map((a) => a.status), ['ok', 'ok']);
      assert.deepEqual(ownRef.actions[1].data, ['cart 3']);
      assert.equal(await target.evaluate(() => document.getElementById('count').textContent), '1', 'the bound tab was not touched');

      // 4. A tab the workflow does not own is refused, whatever it is.
      await say(line('click', { selector: '#add' }, { tab: 't9' }));
      const unowned = await next();
      assert.equal(unowned.actions[0].status, 'failed');
      assert.equal(unowned.actions[0].code, 'tab_not_owned');
      assert.equal(unowned.state, 'active');

      // 5. open_tab to another origin is refused, and no tab opens.
      const before = await openAddresses(browser);
      const otherOrigin = server.origin.replace('127.0.0.1', 'localhost');
      await say(line('open_tab', { url: `${otherOrigin}/tabs/cart.html` }));
      const offSite = await next();
      assert.equal(offSite.actions[0].status, 'failed');
      assert.equal(offSite.actions[0].code, 'navigation_out_of_scope');
      assert.equal((await openAddresses(browser)).length, before.length, 'no tab was opened');

      // 6. The user closes t2 mid-way: its next action fails tab_closed, t1 goes on.
      await closeTabShowing(browser, cartUrl);
      await say(
        line('click', { selector: '#add' }, { tab: 't2', on_error: 'skip' }),
        line('click', { selector: '#add' }),
        line('extract', { selector: '#count' }),
      );
      const afterClose = await next();
      assert.deepEqual(afterClose.actions.map((a) => [a.status, a.code]), [['failed', 'tab_closed'], ['ok', undefined], ['ok', undefined]], JSON.stringify(afterClose.actions));
      assert.deepEqual(afterClose.actions[2].data, ['2']);
      assert.equal(afterClose.state, 'active');
      assert.equal(await target.evaluate(() => document.getElementById('count').textContent), '2');

      // 7. The list of the workflow's tabs says which are alive.
      await say(line('tabs', {}));
      const listed = await next();
      assert.equal(listed.actions[0].status, 'ok');
      assert.deepEqual(listed.actions[0].data.tabs, [
        { tab: 't1', bound: true, alive: true, state: 'open', origin: server.origin, title: 'Tabs: list' },
        { tab: 't2', bound: false, alive: false, state: 'closed', origin: server.origin },
      ]);

      await say(line('done', { success: true }));
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.workflowState === 'done', { what: 'the workflow to finish' });
    });

    // Red team 20, F8 and F9.
    test('refs of the page changes read in t1 are never issued in t2; tabs never says where a tab went', async () => {
      const { target, line, say, next } = await startTabsWorkflow(browser, server, `tabs-refs-${name}`, '?refs');
      const cartUrl = `${server.origin}/tabs/cart.html?refs`;
      await say(line('open_tab', { url: '/tabs/cart.html?refs' }));
      assert.equal((await next()).actions[0].data?.tab, 't2');
      await say(line('observe', {}));
      const first = await next();
      assert.ok(first.observation?.elements?.length, JSON.stringify(first));

      // The page in t1 grows; the model acts there without observing: the result's page
      // changes (read in t1) give the new elements new refs.
      await target.evaluate(() => {
        for (let n = 1; n <= 4; n++) {
          const button = document.createElement('button');
          button.type = 'button';
          button.textContent = `New ${n}`;
          document.body.append(button);
        }
      });
      await say(line('click', { selector: '#add' }));
      const changed = await next();
      const added = changed.changes?.added ?? [];
      assert.ok(added.some((element) => element.includes('"New 2"')), JSON.stringify(changed));

      // t2 is observed: none of its refs is one t1 issued.
      await say(line('observe', {}, { tab: 't2' }));
      const second = await next();
      const inT1 = new Set([...refsOf(first.observation.elements), ...refsOf(added), ...refsOf(changed.changes?.changed ?? [])]);
      const inT2 = refsOf(second.observation.elements);
      assert.ok(inT2.length > 0, JSON.stringify(second));
      assert.deepEqual(inT2.filter((ref) => inT1.has(ref)), [], `t1 ${[...inT1]} / t2 ${inT2}`);

      // The page-changes ref is t1's: refused on t2 (naming t1), and it works on t1.
      const newRef = refsOf(added.filter((element) => element.includes('"New 2"')))[0];
      await say(line('click', { selector: { type: 'ref', value: newRef } }, { tab: 't2' }));
      const onT2 = await next();
      assert.deepEqual([onT2.actions[0].status, onT2.actions[0].code], ['failed', 'ref_from_other_tab'], JSON.stringify(onT2.actions));
      assert.match(onT2.actions[0].reason, /tab t1/);
      await say(line('click', { selector: { type: 'ref', value: newRef } }));
      const onT1 = await next();
      assert.equal(onT1.actions[0].status, 'ok', JSON.stringify(onT1.actions));

      // The user takes t2 to another site: the list says it left, never where it went.
      const otherOrigin = server.origin.replace('127.0.0.1', 'localhost');
      await navigateTabShowing(browser, cartUrl, `${otherOrigin}/tabs/cart.html?elsewhere`);
      await say(line('tabs', {}));
      const listed = await next();
      assert.equal(listed.actions[0].status, 'ok', JSON.stringify(listed.actions));
      assert.ok(!JSON.stringify(listed.actions[0].data).includes('localhost'), JSON.stringify(listed.actions[0].data));
      assert.deepEqual(listed.actions[0].data.tabs[1], { tab: 't2', bound: false, alive: false, state: 'left_bound_site', origin: server.origin });
    });

    test('Stop ends an action waiting in a tab the workflow opened; nothing is pressed there later', async () => {
      const { chat, workflowId, line, say, next } = await startTabsWorkflow(browser, server, `tabs-stop-${name}`);
      await say(line('open_tab', { url: '/tabs/cart.html?late' }));
      const opened = await next();
      assert.equal(opened.actions[0].data?.tab, 't2', JSON.stringify(opened.actions));
      // The click is delivered to t2 and waits there for #late, which appears only when the test
      // releases it, after Stop.
      await say(line('click', { selector: '#late' }, { tab: 't2', timeout_ms: 20000 }));
      // No page-visible signal says that an action waits: a short pause, and in Chromium a look
      // at the background's delivery ledger.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      if (browser.inBackground) {
        // A loaded machine may take longer than the pause: wait for the ledger (bounded).
        const delivered = await waitForLedger(browser, `ran:${workflowId}:2`);
        assert.ok(delivered, 'the click was delivered before Stop');
      }
      assert.equal(server.state('cart')?.late, false, 'the element is not there yet when Stop is pressed');
      await chat.clickInShadow('bai-banner', 'button.stop');
      await chat.waitFor(() => document.querySelector('bai-banner')?.dataset.workflowState === 'stopped', { what: 'the workflow to stop' });
      // The element appears well within the click's timeout; the stopped click never lands.
      server.setState('release-late', true);
      const deadline = Date.now() + 15000;
      while (!server.state('cart')?.late && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(server.state('cart')?.late, true, 'the late element appeared');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(server.state('cart').pressed, 0, 'nothing was clicked in t2 after Stop');
    });
  });
}
