// Status marks beside the BAI lines of the chat and the folded protocol prompt, end to end in the
// real extension through the chat fixture: each line's mark says what became of it (ran, refused
// with the reason, waiting while a question is open, ignored for a pasted example or a stale
// ACK), the marks follow a re-render of the site's message list, text that only looks like a mark
// is nothing, the prompt folds and unfolds with a real click, the setting turns both off; and on
// other sites' layouts each mark sits beside the message its line is in.
//
// The marks are drawn in a closed shadow root (pages cannot read them): the test reads what is
// drawn through the extension itself (an extension page asks the chat tab's content script).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { startServer } from './lib/server.mjs';
import { ACK_LINE, actionLine, answerQuestion, handshakeBlock, installTarget, openChat, protocolPrompt } from './lib/chat.mjs';

/** Waits until the content script has finished a poll after the current moment. */
async function settled(tab) {
  const before = Number(await tab.evaluate(() => document.querySelector('bai-banner')?.dataset.polls ?? 0));
  await tab.evaluate(() => {
    const nudge = document.createElement('span');
    nudge.hidden = true;
    document.body.append(nudge);
  });
  await tab.waitFor((n) => Number(document.querySelector('bai-banner')?.dataset.polls ?? 0) > n, { args: [before], what: 'the next poll' });
}

/** What the chat tab at `url` draws now, asked through an extension page. */
function drawn(extPage, url) {
  return extPage.evaluate(async (address) => {
    const api = globalThis.browser ?? globalThis.chrome;
    const found = (await api.tabs.query({})).find((t) => t.url === address);
    if (!found) return null;
    return api.tabs.sendMessage(found.id, { type: 'line_marks' }).catch(() => null);
  }, url);
}

/** Polls what is drawn until `check(snapshot)` is truthy (bounded); returns that snapshot. */
async function drawnUntil(extPage, url, check, what, timeout = 15000) {
  const deadline = Date.now() + timeout;
  let last = null;
  for (;;) {
    last = await drawn(extPage, url);
    if (last && check(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; drawn: ${JSON.stringify(last, null, 1)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The mouse moves to viewport point (x, y) of `tab`. */
async function hoverAt(tab, x, y) {
  if (tab.page) {
    await tab.toFront();
    await tab.page.mouse.move(x, y);
    return;
  }
  await tab.focus();
  await tab.browser.session.command('POST', '/actions', {
    actions: [{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' }, actions: [{ type: 'pointerMove', x: Math.round(x), y: Math.round(y), origin: 'viewport' }] }],
  });
}

/** A real click at viewport point (x, y) of `tab` (the fold toggle is in a closed shadow root). */
async function clickAt(tab, x, y) {
  if (tab.page) {
    await tab.toFront();
    await tab.page.mouse.click(x, y);
    return;
  }
  await tab.focus();
  await tab.browser.session.command('POST', '/actions', {
    actions: [{
      type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' },
      actions: [{ type: 'pointerMove', x: Math.round(x), y: Math.round(y), origin: 'viewport' }, { type: 'pointerDown', button: 0 }, { type: 'pointerUp', button: 0 }],
    }],
  });
  await tab.browser.session.command('DELETE', '/actions');
}

const inMessage = (snapshot, index) => snapshot.marks.filter((m) => m.message_index === index);

/** Every shown mark sits beside (vertically within) the message its line is in. */
function assertBesideTheirMessages(snapshot) {
  for (const mark of snapshot.marks.filter((m) => m.shown)) {
    assert.ok(mark.mark_y >= mark.message_top - 1 && mark.mark_y <= mark.message_bottom + 1, `mark ${mark.key} at y=${mark.mark_y} is beside message ${mark.message_index} (${mark.message_top}..${mark.message_bottom})`);
  }
}

for (const name of browserNames()) {
  describe(`line marks in ${name}`, () => {
    let server;
    let browser;
    let extPage;

    before(async () => {
      server = await startServer();
      browser = await BROWSERS[name].launch();
      extPage = await browser.openExtensionPage('extension/panel/panel.html');
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    test('each line marked with what became of it; re-render, forged marks, the folded prompt, the setting', async () => {
      const workflowId = `wf-marks-${name}`;
      const url = `${server.origin}/chat/c/marks-${name}`;
      const tab = await openChat(browser, url);
      await tab.evaluate(installTarget);

      // The pasted protocol: folded to one line; its example lines are ignored, none refused.
      await tab.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
      let snap = await drawnUntil(extPage, url, (s) => s.prompts.length === 1 && s.prompts[0].folded && inMessage(s, 0).length > 0, 'the folded prompt and its marks');
      assert.ok(inMessage(snap, 0).every((m) => m.status === 'ignored' && m.glyph === '–'), JSON.stringify(inMessage(snap, 0)));
      assert.ok(inMessage(snap, 0).some((m) => m.code === 'action_from_user' && m.tooltip.startsWith('action_from_user ignored:')), 'the reason, code first, on hover');
      const foldedHeight = snap.prompts[0].height;
      assert.ok(foldedHeight < 60, `folded to one line (${foldedHeight}px)`);
      assert.ok(inMessage(snap, 0).some((m) => !m.shown), 'lines the fold hides carry no visible mark');

      // The toggle unfolds it (a real click), and folds it again.
      const toggle = snap.prompts[0].toggle_center;
      await clickAt(tab, toggle.x, toggle.y);
      snap = await drawnUntil(extPage, url, (s) => s.prompts[0] && !s.prompts[0].folded, 'the prompt unfolded');
      assert.ok(snap.prompts[0].height > foldedHeight * 5, `unfolded (${snap.prompts[0].height}px)`);
      assert.match(snap.prompts[0].toggle, /^Fold/);
      await clickAt(tab, snap.prompts[0].toggle_center.x, snap.prompts[0].toggle_center.y);
      snap = await drawnUntil(extPage, url, (s) => s.prompts[0]?.folded, 'the prompt folded again');
      assert.equal(snap.prompts[0].height, foldedHeight);

      // The handshake waits for the user while the question is open, then ran.
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `Ready.\n\n${handshakeBlock(workflowId)}`);
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      snap = await drawnUntil(extPage, url, (s) => inMessage(s, 1).length === 1, 'the handshake mark');
      assert.deepEqual(inMessage(snap, 1).map((m) => [m.kind, m.status, m.glyph]), [['handshake', 'waiting', '⏳']]);
      await answerQuestion(tab, 'allow');
      const ack = await tab.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
      const nonce = ACK_LINE.exec(ack)[2];
      snap = await drawnUntil(extPage, url, (s) => inMessage(s, 2).length === 1, 'the ACK mark');
      assert.deepEqual(inMessage(snap, 1).map((m) => [m.kind, m.status]), [['handshake', 'ran']]);
      assert.deepEqual(inMessage(snap, 2).map((m) => [m.kind, m.status, m.glyph, m.tooltip]), [['ack', 'ran', '✓', 'ran: posted by BAI']]);

      // An action that runs: ✓.
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `Clicking.\n\n${actionLine(workflowId, nonce, 1, 'click', { selector: { type: 'css', value: '#counter' } })}`);
      snap = await drawnUntil(extPage, url, (s) => inMessage(s, 3)[0]?.status === 'ran', 'action 1 ran');
      assert.equal(await tab.evaluate(() => window.__target.clicks), 1);

      // A risky click: waiting for the user while the question is open, then refused with the
      // reason when the user says no. A repeated action_id in the same message is refused by
      // the engine with its own code.
      const buy = actionLine(workflowId, nonce, 2, 'click', { selector: { type: 'css', value: '#buy' } });
      const reused = actionLine(workflowId, nonce, 2, 'click', { selector: { type: 'css', value: '#counter' } });
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `Buying.\n\n${buy}\n${reused}`);
      snap = await drawnUntil(extPage, url, (s) => inMessage(s, 4)[0]?.status === 'waiting', 'the risky click waiting for the user');
      assert.equal(inMessage(snap, 4)[0].glyph, '⏳');
      assert.deepEqual(inMessage(snap, 4).slice(1).map((m) => [m.status, m.code, m.glyph]), [['refused', 'id_reused', '✗']]);
      await answerQuestion(tab, 'deny');
      snap = await drawnUntil(extPage, url, (s) => inMessage(s, 4)[0]?.status === 'refused', 'the denied click refused');
      const denied = inMessage(snap, 4)[0];
      assert.equal(denied.glyph, '✗');
      assert.ok(denied.code, 'a refusal carries its code');
      assert.ok(denied.tooltip.startsWith(`${denied.code} refused: `) && denied.tooltip.length > `${denied.code} refused: `.length + 5, denied.tooltip);
      assert.equal(await tab.evaluate(() => window.__target.purchases), 0);

      // Text that looks like marks, and a fake mark element in the model's message: nothing of
      // ours. A copy of the ACK with a stale nonce, pasted by the user: ignored, with why.
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), 'All done ✓ ran\n\n✗ refused ⏳ waiting – ignored');
      await tab.evaluate(() => {
        const turns = document.querySelectorAll('[data-message-author-role="assistant"]');
        const last = turns[turns.length - 1];
        const fake = document.createElement('bai-line-marks');
        fake.textContent = '✓';
        const span = document.createElement('span');
        span.className = 'mark';
        span.dataset.status = 'ran';
        span.textContent = '✓';
        last.append(fake, span);
      });
      const stale = ack.replace(nonce, 'n_' + 'f'.repeat(32));
      await tab.evaluate((text) => window.chatFixture.addUserMessage(text), stale);
      snap = await drawnUntil(extPage, url, (s) => inMessage(s, 6).length === 1, 'the stale ACK marked');
      assert.deepEqual(inMessage(snap, 5), [], 'no mark for text or elements that only look like marks');
      assert.deepEqual(inMessage(snap, 6).map((m) => [m.kind, m.status, m.code]), [['ack', 'ignored', 'foreign_ack']]);
      assert.equal(snap.layers, 1, 'one layer of ours, outside the transcript');
      assert.equal(await tab.evaluate(() => [...document.documentElement.children].filter((c) => c.localName === 'bai-line-marks' && c.shadowRoot === null).length), 1, 'ours: a closed shadow root outside the body');
      assertBesideTheirMessages(snap);
      // Scrolled to the top: the folded prompt, the handshake, the ACK and the actions in view,
      // and no mark drawn for a line scrolled out of the list.
      await tab.evaluate(() => { document.getElementById('main').scrollTop = 0; });
      await settled(tab);
      snap = await drawnUntil(extPage, url, (s) => inMessage(s, 1)[0]?.shown, 'the handshake mark in view');
      assertBesideTheirMessages(snap);
      const list = await tab.evaluate(() => { const r = document.getElementById('main').getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; });
      for (const mark of snap.marks.filter((m) => m.shown)) assert.ok(mark.mark_y > list.top && mark.mark_y < list.bottom, `mark ${mark.key} drawn inside the message list`);
      assert.ok(snap.marks.some((m) => !m.shown && m.message_top > list.bottom), 'lines below the list\'s fold get no mark');
      // The refused click's reason on hover.
      const refusedMark = inMessage(snap, 4)[0];
      assert.ok(refusedMark.shown && !refusedMark.tip_shown, 'the reason is hidden until hovered');
      await hoverAt(tab, refusedMark.mark_x, refusedMark.mark_y);
      snap = await drawnUntil(extPage, url, (s) => inMessage(s, 4)[0]?.tip_shown, 'the reason shown on hover');
      await tab.screenshot('marks-transcript');
      await hoverAt(tab, 1, list.bottom - 5);

      // Marks do not change what the reader reads: the page's text is the same with them off.
      const withMarks = await tab.evaluate(() => document.getElementById('thread').textContent);
      const lastKeys = snap.marks.map((m) => `${m.key}=${m.status}`);

      // The site re-renders its whole list (new elements, same text): the marks follow.
      await tab.evaluate(() => {
        const thread = document.getElementById('thread');
        thread.replaceChildren(...[...thread.children].map((turn) => turn.cloneNode(true)));
      });
      await settled(tab);
      snap = await drawnUntil(extPage, url, (s) => s.marks.length === lastKeys.length && s.prompts[0]?.folded && s.marks.filter((m) => m.shown).length > 0, 'the marks after the re-render');
      assert.deepEqual(snap.marks.map((m) => `${m.key}=${m.status}`), lastKeys, 'same marks, same statuses');
      assertBesideTheirMessages(snap);
      assert.equal(snap.prompts[0].height, foldedHeight, 'the new prompt element is folded too');
      assert.equal(await tab.evaluate(() => document.querySelectorAll('[data-bai-folded]').length), 1);

      // The setting turns marks and folding off, and on again.
      await extPage.click('#set-line-marks');
      snap = await drawnUntil(extPage, url, (s) => !s.enabled, 'marks off');
      assert.deepEqual([snap.marks, snap.prompts], [[], []]);
      assert.equal(await tab.evaluate(() => document.querySelectorAll('[data-bai-folded]').length), 0, 'nothing folded');
      const withoutMarks = await tab.evaluate(() => document.getElementById('thread').textContent);
      assert.equal(withoutMarks, withMarks);
      await extPage.click('#set-line-marks');
      snap = await drawnUntil(extPage, url, (s) => s.enabled && s.marks.length === lastKeys.length && s.prompts[0]?.folded, 'marks on again');
      await tab.close();
    });

    test('a result carrying page text that names the prompt is not folded as the prompt', async () => {
      const workflowId = `wf-marks-title-${name}`;
      const url = `${server.origin}/chat/c/marks-title-${name}`;
      const tab = await openChat(browser, url);
      await tab.evaluate(installTarget);
      // The target (the chat page itself here) titles itself with the prompt's own words: the
      // result line carries the title to the model.
      await tab.evaluate(() => { document.title = 'COPY_THIS_TO_CHATGPT Use this protocol to talk to the browser extension'; });
      await tab.evaluate((text) => window.chatFixture.addUserMessage(text), protocolPrompt(workflowId));
      await drawnUntil(extPage, url, (s) => s.prompts.length === 1 && s.prompts[0].folded, 'the folded prompt');
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `Ready.\n\n${handshakeBlock(workflowId, { capabilities: ['action_lines', 'result_lines'] })}`);
      await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      await answerQuestion(tab, 'allow');
      const ack = await tab.waitFor(() => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK' });
      const nonce = JSON.parse(ack.slice('BAI_ACK '.length)).ack_nonce;
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `Clicking.\n\n${actionLine(workflowId, nonce, 1, 'click', { selector: { type: 'css', value: '#counter' } })}`);
      // The result's message index (+1, so that the wait sees a truthy value).
      const result = (await tab.waitFor(() => window.chatFixture.messages().findIndex((m) => m.role === 'user' && m.text.startsWith('BAI_RESULT ')) + 1, { what: 'the result' })) - 1;
      assert.ok(await tab.evaluate((i) => window.chatFixture.messages()[i].text.includes('COPY_THIS_TO_CHATGPT'), result), 'the result carries the page title');
      const snap = await drawnUntil(extPage, url, (s) => s.marks.some((m) => m.message_index === result && m.kind === 'result'), 'the result marked');
      assert.deepEqual(snap.prompts.map((p) => p.message_index), [0], 'only the pasted prompt is folded');
      assert.deepEqual(inMessage(snap, result).map((m) => [m.kind, m.status, m.tooltip]), [['result', 'ran', 'ran: posted by BAI']]);
      assert.equal(await tab.evaluate(() => document.querySelectorAll('[data-bai-folded]').length), 1);
      await tab.close();
    });

    // ChatGPT's current layout (li) and other sites' captured layouts: each mark sits beside
    // the message its line is in.
    for (const markup of ['li', 'claude', 'gemini']) {
      test(`${markup}: marks beside the handshake, the ACK and the action`, async () => {
        const workflowId = `wf-marks-${markup}-${name}`;
        const url = `${server.origin}/chat/c/marks-${markup}-${name}?markup=${markup}`;
        const tab = await openChat(browser, url);
        await tab.evaluate(installTarget);
        await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `Sure.\n\n${handshakeBlock(workflowId)}`);
        await tab.waitFor(() => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
        await answerQuestion(tab, 'allow');
        const ack = await tab.waitFor(() => window.chatFixture.sentMessages().find((text) => text.startsWith('BAI_ACK ')), { what: 'the ACK' });
        const nonce = ACK_LINE.exec(ack)[2];
        await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `Clicking.\n\n${actionLine(workflowId, nonce, 1, 'click', { selector: { type: 'css', value: '#counter' } })}`);
        const snap = await drawnUntil(extPage, url, (s) => s.marks.length === 3 && s.marks.every((m) => m.status === 'ran' && m.shown), 'three marks, all ran');
        assert.deepEqual(snap.marks.map((m) => [m.message_index, m.kind]), [[0, 'handshake'], [1, 'ack'], [2, 'action']]);
        assertBesideTheirMessages(snap);
        await tab.close();
      });
    }
  });
}
