// The executor role of the content script: on a page a workflow targets, it runs the validated
// actions the background worker delivers, through the Rust DOM engine, after the safety policy
// (Rust) has reviewed them against the element they target; it answers with the structured
// result, or with the reasons the user must approve first.

import { ext } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';
import { loadSettings, policySettingsJson } from '../shared/settings.js';

export function startExecutor(core) {
  // One action at a time, in arrival order.
  let chain = Promise.resolve();
  ext.runtime.onMessage.addListener((message, _sender, sendResponse) => {
    if (message?.type !== Msg.EXECUTE_ACTION) return false;
    chain = chain.then(() => executeHere(core, message)).then(sendResponse, (error) => sendResponse({ error: { code: 'action_failed', message: String(error) } }));
    return true;
  });
}

function parseFailure(error) {
  try {
    return typeof error === 'string' ? JSON.parse(error) : { code: error?.code ?? 'action_failed', message: error?.message ?? String(error) };
  } catch {
    return { code: 'action_failed', message: String(error) };
  }
}

/**
 * Reviews and runs one action on this page. `approved` is true only when the user allowed this
 * very action after an earlier answer asked for approval.
 * Answers `{result}`, `{error: {code, message}}` or `{needs_approval: {reasons}}`.
 */
export async function executeHere(core, { action, timeoutMs, expectOrigin, approved }) {
  // The background checked the tab's origin; check again here, where it cannot change under us.
  if (expectOrigin && location.origin !== expectOrigin) {
    return { error: { code: 'target_out_of_scope', message: `This page is ${location.origin}, not ${expectOrigin}; BAI did not act.` } };
  }
  try {
    if (!approved) {
      const settings = await loadSettings();
      const verdict = JSON.parse(await core.review_action(JSON.stringify(action), policySettingsJson(settings), timeoutMs ?? undefined));
      if (verdict.verdict === 'ask') return { needs_approval: { reasons: verdict.reasons, target: verdict.target } };
    }
    return { result: JSON.parse(await core.execute_action(JSON.stringify(action), timeoutMs ?? undefined)) };
  } catch (error) {
    return { error: parseFailure(error) };
  }
}
