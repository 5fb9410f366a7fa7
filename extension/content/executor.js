// The executor role of the content script: on a page a workflow targets, it runs the validated
// actions the background worker delivers, through the Rust DOM engine, and answers with the
// structured result.

import { ext } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';

export function startExecutor(core) {
  // One action at a time, in arrival order.
  let chain = Promise.resolve();
  ext.runtime.onMessage.addListener((message, _sender, sendResponse) => {
    if (message?.type !== Msg.EXECUTE_ACTION) return false;
    chain = chain.then(() => execute(core, message)).then(sendResponse, (error) => sendResponse({ error: { code: 'action_failed', message: String(error) } }));
    return true;
  });
}

async function execute(core, { action, timeoutMs, expectOrigin }) {
  // The background checked the tab's origin; check again here, where it cannot change under us.
  if (location.origin !== expectOrigin) {
    return { error: { code: 'target_out_of_scope', message: `This page is ${location.origin}, not ${expectOrigin}; BAI did not act.` } };
  }
  try {
    return { result: JSON.parse(await core.execute_action(JSON.stringify(action), timeoutMs ?? undefined)) };
  } catch (error) {
    try {
      return { error: typeof error === 'string' ? JSON.parse(error) : { code: error?.code ?? 'action_failed', message: error?.message ?? String(error) } };
    } catch {
      return { error: { code: 'action_failed', message: String(error) } };
    }
  }
}
