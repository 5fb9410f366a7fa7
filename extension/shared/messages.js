// Messages between the content scripts, the background worker and the panel. Every message is
// an object tagged by `type`; these constants are the only place the tags are spelled.

export const Msg = Object.freeze({
  /** content -> background: the wasm core started (or failed to) in a tab. */
  CONTENT_READY: 'content_ready',
  /** panel -> background: what do you know about this tab? */
  TAB_STATUS: 'tab_status',
  /** content (chat) -> background: something happened in the chat session (logged, shown). */
  CHAT_EVENT: 'chat_event',
  /** panel -> background -> content: the user allowed, denied or stopped a workflow. */
  USER_DECISION: 'user_decision',
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
