// Messages between the content scripts, the background worker and the panel. Every message is
// an object tagged by `type`; these constants are the only place the tags are spelled.

export const Msg = Object.freeze({
  /** content -> background: the wasm core started (or failed to) in a tab. */
  CONTENT_READY: 'content_ready',
  /** panel -> background: what do you know about this tab? */
  TAB_STATUS: 'tab_status',
  /** content (chat) -> background: something happened in the chat session (logged, shown). */
  CHAT_EVENT: 'chat_event',
  /** panel -> background -> content: the user stopped a workflow. (Allow and Deny are answers
   * to questions: ANSWER_QUESTION.) */
  USER_DECISION: 'user_decision',
  /** content (chat) -> background: ask the user this (shown only on the extension's own pages:
   * the question window and the panel); answered `{ questionId }`. */
  ASK_USER: 'ask_user',
  /** content (chat) -> background: this question no longer stands (stopped, conversation left). */
  WITHDRAW_QUESTION: 'withdraw_question',
  /** content (chat) -> background: show the question window again (the user closed it). */
  SHOW_QUESTIONS: 'show_questions',
  /** extension page -> background: the open questions, oldest first. */
  PENDING_QUESTIONS: 'pending_questions',
  /** extension page -> background: the user's answer to question `questionId`, with the
   * fingerprint of what the page showed. */
  ANSWER_QUESTION: 'answer_question',
  /** content (chat) -> background: a question's time may be up; deny the questions whose time
   * is (the background checks the time itself). */
  QUESTION_DUE: 'question_due',
  /** background -> content (chat): the user answered question `questionId` ('allow', 'deny'),
   * or nobody did in time ('timed_out'). */
  QUESTION_ANSWERED: 'question_answered',
  /** background -> extension pages: the list of open questions changed. */
  QUESTIONS_CHANGED: 'questions_changed',
  /** content (chat) or panel -> background: the user pressed Stop on this workflow; end what it
   * has in flight on its target tab. */
  STOP_WORKFLOW: 'stop_workflow',
  /** background -> content (target): end the actions of these workflows now, before they touch
   * anything more. */
  CANCEL_ACTIONS: 'cancel_actions',
  /** panel -> background: the tab's event log. */
  TAB_LOG: 'tab_log',
  /** panel -> background: the tab a workflow id (from "Copy protocol prompt") will act on. */
  BIND_TARGET: 'bind_target',
  /** content (chat) -> background: which tab does this workflow act on? */
  TARGET_FOR: 'target_for',
  /** content (chat) -> background: run this validated action on the workflow's target. */
  RUN_ACTION: 'run_action',
  /** content (chat) -> background: may this tab run this action on its own page? (Once only,
   * across every tab showing the conversation.) */
  CLAIM_ACTION: 'claim_action',
  /** background -> content (target): run this action here and answer with the result. */
  EXECUTE_ACTION: 'execute_action',
  /** content (chat) -> background -> content (target): the target page's URL, title and, when
   * asked, what changed since the last observation (for the result posted to the model). */
  PAGE_STATE: 'page_state',
  /** background -> content (target): are you loaded and listening? (Answered `{pong: true}`.) */
  PING: 'ping',
  /** panel -> background: the user granted a site's host permission; remember it, register the
   * content script there and start it in the site's open tabs. */
  GRANT_SITE: 'grant_site',
  /** panel -> background: forget a site, unregister its content script, give up its permission. */
  REMOVE_SITE: 'remove_site',
  /** content (chat) -> background: keep this conversation's held actions (their typed text) in
   * memory-only storage.session, never on disk; `texts: null` forgets them. */
  HELD_TEXTS_SAVE: 'held_texts_save',
  /** content (chat) -> background: the held actions kept for this conversation, if any. */
  HELD_TEXTS_LOAD: 'held_texts_load',
  /** panel -> background: delete every saved conversation state now ("Clear saved
   * conversations"). */
  CLEAR_CONVERSATIONS: 'clear_conversations',
  /** background -> panel: something changed; re-read the status. */
  STATUS_CHANGED: 'status_changed',
});
