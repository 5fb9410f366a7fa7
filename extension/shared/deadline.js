// How long one action may take on its page before BAI stops waiting for it. Every wait inside an
// action is bounded (its element up to the timeout, then its attempts up to it again); an action
// that outlives this bound is one whose code died under it (a JS exception thrown through the
// core leaves its promise unsettled), or a page that stopped answering. Either way it ends with a
// typed failure instead of leaving the chat waiting.

/** The executor's own default, `ExecOptions::DEFAULT_TIMEOUT_MS` in crate/src/dom/report.rs. */
const DEFAULT_TIMEOUT_MS = 5000;

/** Room for settling, scrolling and a slow page beyond the action's own waits. */
const SLACK_MS = 10000;

/**
 * Milliseconds `action` may run on its page, given the `timeoutMs` it was sent with.
 * @param {{ type?: string, payload?: any } | undefined} action
 * @param {number | undefined} timeoutMs
 */
export function actionDeadlineMs(action, timeoutMs) {
  const timeout = Number.isFinite(timeoutMs) && Number(timeoutMs) > 0 ? Number(timeoutMs) : DEFAULT_TIMEOUT_MS;
  const waits = action?.type === 'wait' && Number.isFinite(action.payload?.ms) ? Number(action.payload.ms) : 0;
  return 2 * timeout + waits + SLACK_MS;
}
