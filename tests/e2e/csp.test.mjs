// A chat page served with a strict Content-Security-Policy (script-src 'self'; object-src 'none',
// no 'wasm-unsafe-eval'). Chromium applies that policy to WebAssembly compiled in content
// scripts, so there the core runs from its JavaScript build (extension/pkg-js/, built by
// scripts/build-js-core; chosen by extension/content/load-core.js). Firefox does not, so the wasm
// build runs. Either way the same Rust code drives the whole flow: handshake, Allow, ACK, action.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS, browserNames } from './lib/browsers.mjs';
import { STRICT_CSP, startServer } from './lib/server.mjs';
import { actionLine, answerBanner, bannerState, handshakeBlock, installTarget } from './lib/chat.mjs';

const ACK_LINE = /^BAI_ACK \{"protocol":"BAI\/0\.3","workflow_id":"([^"]+)","kind":"ack","state":"extension_acknowledged","ack_nonce":"(n_[0-9a-f]{32})"\}$/;

/** The content script's core as the panel reports it: build flavor and start-up time. */
async function coreInPanel(browser, url) {
  const path = `extension/panel/panel.html?tabUrl=${encodeURIComponent(url)}`;
  // One retry: on a loaded machine Firefox sometimes leaves the new tab blank (seen 2 in ~60).
  const panel = await browser.openExtensionPage(path).catch(() => browser.openExtensionPage(path));
  const core = await waitFor(panel, () => {
    const el = document.getElementById('core-tab');
    return document.body.dataset.ready && el?.dataset.code ? { ...el.dataset, text: el.textContent } : null;
  }, { what: 'the panel diagnostics' });
  await panel.screenshot(`csp-panel-${core.flavor || 'none'}`);
  await panel.close();
  const ms = /in ([\d.]+) ms/.exec(core.text);
  return { ...core, startMs: ms ? Number(ms[1]) : null };
}

/**
 * What a page's policy lets code in the extension's content-script world (Chromium's isolated
 * world) do: eval, new Function, compiling wasm. Runs through the DevTools protocol with
 * allowUnsafeEvalBlockedByCSP off, so eval inside it is subject to the CSP that applies there.
 */
async function probeWorlds(tab) {
  const cdp = await tab.page.context().newCDPSession(tab.page);
  const contexts = [];
  cdp.on('Runtime.executionContextCreated', ({ context }) => contexts.push(context));
  await cdp.send('Runtime.enable');
  const frameId = (await cdp.send('Page.getFrameTree')).frameTree.frame.id;
  const ours = (c) => c.auxData?.frameId === frameId;
  const isolated = contexts.find((c) => ours(c) && c.auxData.type === 'isolated' && c.name.startsWith('BAI'));
  const main = contexts.find((c) => ours(c) && c.auxData.isDefault);
  const probe = `(() => {
    const out = {};
    try { out.eval = eval('1 + 1') === 2 ? 'allowed' : 'wrong'; } catch (e) { out.eval = 'blocked (' + e.name + ')'; }
    try { out.newFunction = new Function('return 2')() === 2 ? 'allowed' : 'wrong'; } catch (e) { out.newFunction = 'blocked (' + e.name + ')'; }
    try { new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])); out.wasm = 'allowed'; } catch (e) { out.wasm = 'blocked (' + e.name + ')'; }
    return out;
  })()`;
  const run = async (context) => (await cdp.send('Runtime.evaluate', {
    expression: probe, contextId: context.id, returnByValue: true, allowUnsafeEvalBlockedByCSP: false,
  })).result.value;
  assert.ok(isolated, `the extension's isolated world: ${JSON.stringify(contexts.map((c) => [c.name, c.auxData]))}`);
  const result = { contentScript: await run(isolated), page: await run(main) };
  await cdp.detach();
  return result;
}

/** tab.waitFor, with what was awaited in any error (WebDriver errors do not say). */
async function waitFor(tab, fn, options) {
  try {
    return await tab.waitFor(fn, options);
  } catch (error) {
    throw new Error(`waiting for ${options.what}: ${error.message}`, { cause: error });
  }
}

async function startChatTab(browser, url) {
  const tab = await browser.newTab(url);
  await waitFor(tab, () => document.querySelector('bai-banner')?.dataset.polls, { what: 'the chat session to start', timeout: 20000 })
    .catch(async (error) => {
      throw new Error(`${error.message}; banner: ${JSON.stringify(await tab.evaluate(bannerState))}`);
    });
  return tab;
}

for (const name of browserNames()) {
  describe(`strict CSP page in ${name}`, () => {
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

    test('the core runs behind the policy and drives handshake, Allow, ACK and a click', async (t) => {
      const workflowId = `wf-csp-${name}`;
      const url = `${server.origin}/csp/chat/?markup=2025&conversation=csp-${name}`;
      const tab = await startChatTab(browser, url);
      // The policy is in force: the page's own inline script would not run, and wasm cannot be
      // compiled by the page.
      assert.equal(await tab.evaluate(() => typeof window.chatFixture), 'object', 'the same-origin page bundle ran');

      const core = await coreInPanel(browser, url);
      assert.equal(core.code, 'ready', core.text);
      assert.equal(core.flavor, name === 'chromium' ? 'js' : 'wasm', core.text);
      t.diagnostic(`${name} ${STRICT_CSP}: core ${core.flavor}, started in ${core.startMs} ms`);
      if (name === 'chromium') {
        assert.match(core.text, /JavaScript build/);
        const worlds = await probeWorlds(tab);
        t.diagnostic(`chromium strict CSP, what code may do: ${JSON.stringify(worlds)}`);
        assert.match(worlds.contentScript.wasm, /^blocked/, 'the page policy blocks wasm in the content script');
        assert.match(worlds.page.wasm, /^blocked/);
        assert.match(worlds.page.eval, /^blocked/);
      }

      await tab.evaluate(installTarget);
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `Ready.\n\n${handshakeBlock(workflowId)}\n`);
      const question = await waitFor(tab, () => document.querySelector('bai-banner')?.dataset.question, { what: 'the approval question' });
      assert.equal(question, workflowId);
      await answerBanner(tab, 'allow');
      const ack = await waitFor(tab, () => window.chatFixture.messages().find((m) => m.role === 'user' && m.text.startsWith('BAI_ACK '))?.text, { what: 'the ACK message' });
      const match = ACK_LINE.exec(ack);
      assert.ok(match, `exact ACK line: ${ack}`);
      assert.equal(match[1], workflowId);
      assert.deepEqual(await tab.evaluate(() => window.chatFixture.sentMessages()), [ack], 'sent through the composer');

      const lines = [
        actionLine(workflowId, match[2], 1, 'click', { selector: { type: 'css', value: '#counter' } }),
        actionLine(workflowId, match[2], 2, 'done', { success: true, summary: 'Clicked' }),
      ];
      await tab.evaluate((text) => window.chatFixture.addAssistantMessage(text), `Clicking.\n\n${lines.join('\n')}`);
      await waitFor(tab, () => document.querySelector('bai-banner')?.dataset.workflowState === 'done', { what: 'the workflow to finish' });
      await waitFor(tab, () => document.querySelector('bai-banner')?.dataset.actionsRun === '1', { what: 'one action to run' });
      assert.equal(await tab.evaluate(() => window.__target.clicks), 1, 'the page saw one click');
      await tab.screenshot('csp-chat-after-click');
    });

    test('start-up time of the build each page gets', async (t) => {
      // The chat page with and without the policy, three loads each (the first test above was the
      // browser's first load). startMs: from the content script's start to the core answering.
      const times = { csp: [], plain: [] };
      // Tabs stay open: closing a WebDriver session's last tab ends the session.
      for (let i = 0; i < 3; i++) {
        for (const kind of ['plain', 'csp']) {
          const url = kind === 'csp'
            ? `${server.origin}/csp/chat/?markup=2025&conversation=csp-timing-${name}-${i}`
            : `${server.origin}/chat/c/csp-timing-${name}-${i}?markup=2025`;
          const tab = await startChatTab(browser, url);
          const core = await coreInPanel(browser, url);
          assert.equal(core.flavor, kind === 'csp' && name === 'chromium' ? 'js' : 'wasm', core.text);
          times[kind].push(core.startMs);
          if (name === 'chromium' && kind === 'plain' && i === 0) {
            const worlds = await probeWorlds(tab);
            t.diagnostic(`chromium no CSP, what code may do: ${JSON.stringify(worlds)}`);
            assert.equal(worlds.contentScript.wasm, 'allowed');
          }
        }
      }
      t.diagnostic(`${name} core start-up ms, no CSP (wasm): ${times.plain.join(', ')}`);
      t.diagnostic(`${name} core start-up ms, strict CSP (${name === 'chromium' ? 'js' : 'wasm'}): ${times.csp.join(', ')}`);
    });
  });
}
