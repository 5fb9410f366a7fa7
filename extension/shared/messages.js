// Messages between the content scripts, the background worker and the panel. Every message is
// an object tagged by `type`; these constants are the only place the tags are spelled.

export const Msg = Object.freeze(/** @type {const} */ ({
  /** content -> background, first thing: may this page run the chat role? Answered
   * `{ mayRunChat, userChatSite }`; the content script then loads that role's module. */
  CONTENT_ROLE: 'content_role',
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
  /** content (chat) -> background: run this validated action of a workflow that negotiated
   * `tabs`, on the owned tab its `tab` field names (background/tabs.js). */
  RUN_TAB_ACTION: 'run_tab_action',
  /** content (chat) -> background: may this tab run this action on its own page? (Once only,
   * across every tab showing the conversation.) */
  CLAIM_ACTION: 'claim_action',
  /** background -> content (target): run this action here and answer with the result. Not a
   * runtime message: the background hands it to the tab's executor through
   * scripting.executeScript, and that call's answer says whether an executor was there. */
  EXECUTE_ACTION: 'execute_action',
  /** content (chat) -> background -> content (target): the target page's URL, title and, when
   * asked, what changed since the last observation (for the result posted to the model). */
  PAGE_STATE: 'page_state',
  /** background -> content (target): what a picture of this page must hide now (a
   * `screenshot`'s second look, after the picture). */
  SCREEN_MASKS: 'screen_masks',
  /** background -> content (target): the capture's user stylesheet is in; answer, after the
   * next frame, whether every frame of the page is hidden by it (`{hidden}`). With `after`
   * (right after the capture): whether they still are, and no frame was added or removed. */
  SCREEN_FRAMES_HIDDEN: 'screen_frames_hidden',
  /** background -> content (target): the picture was taken (or not); show the user the
   * screenshot's numbered marks now, if that document is still the one here. */
  SHOW_MARKS: 'show_marks',
  /** background -> content (target): are you loaded and listening? (Answered `{pong: true}`;
   * asked only after an action loaded another page in the bound tab.) */
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
  /** panel -> background: change one setting or approval rule (`change`: settings.js
   * SettingsChange). The background applies changes one at a time, so a panel closed right after
   * a change, or two writers at once, lose nothing. */
  CHANGE_SETTINGS: 'change_settings',
  /** background -> panel: something changed; re-read the status. */
  STATUS_CHANGED: 'status_changed',
  /** extension page -> content (chat): the line marks and folded prompts drawn now (what the
   * user sees in the closed shadow layer; answered with a snapshot). */
  LINE_MARKS: 'line_marks',
}));

// ---- Message shapes, declared once ---------------------------------------------------------
// Every message and its reply, as JSDoc types. `tsc --noEmit` (jsconfig.json, run by
// scripts/test's `types` layer) checks every `ext.runtime.sendMessage` / `ext.tabs.sendMessage`
// against them (see `Ext` in browser.js). Content that is the Rust core's JSON (actions,
// results, events) stays `unknown`/`object` here: its shape is declared in Rust.

/** @typedef {{ code?: string, message: string, hints?: string[] }} ErrorInfo */
/** A refusal or failure: every reply may be one. @typedef {{ error?: ErrorInfo }} MaybeFailure */
/** @typedef {{ ok?: true } & MaybeFailure} OkReply */
/** An action as the core writes it (`{type, payload}`). @typedef {{ type: string, payload?: any }} WireAction */
/** A question to the user (background/askUser normalizes it). @typedef {{ kind: 'handshake' | 'action', workflowId: string, [field: string]: unknown }} Question */

/**
 * @typedef {{ type: 'content_role' }} ContentRoleMsg
 * @typedef {{ type: 'content_ready', url: string, coreVersion: string | null, startError?: unknown, startMs?: number, startParts?: { roleMs: number, loadMs: number }, coreFlavor?: string | null, coreRole?: 'chat' | 'exec', chat?: unknown }} ContentReadyMsg
 * @typedef {{ type: 'tab_status', tabId: number }} TabStatusMsg
 * @typedef {{ type: 'chat_event', event: { kind: string, at: number, [field: string]: unknown } }} ChatEventMsg
 * @typedef {{ type: 'user_decision', tabId?: number, workflowId: string | null, answer: 'stop' }} UserDecisionMsg
 * @typedef {{ type: 'ask_user', question: Question }} AskUserMsg
 * @typedef {{ type: 'withdraw_question', questionId: string }} WithdrawQuestionMsg
 * @typedef {{ type: 'show_questions' }} ShowQuestionsMsg
 * @typedef {{ type: 'pending_questions', tabId?: number }} PendingQuestionsMsg
 * @typedef {{ type: 'answer_question', questionId: string, fingerprint: string, answer: 'allow' | 'deny' | 'always_allow' }} AnswerQuestionMsg
 * @typedef {{ type: 'question_answered', questionId: string, answer: 'allow' | 'deny' | 'timed_out' }} QuestionAnsweredMsg
 * @typedef {{ type: 'question_due' }} QuestionDueMsg
 * @typedef {{ type: 'questions_changed' }} QuestionsChangedMsg
 * @typedef {{ type: 'stop_workflow', workflowId: string }} StopWorkflowMsg
 * @typedef {{ type: 'cancel_actions', workflowIds: string[], inFlightOnly?: boolean }} CancelActionsMsg
 * @typedef {{ type: 'tab_log', tabId: number }} TabLogMsg
 * @typedef {{ type: 'bind_target', workflowId: string, tabId: number }} BindTargetMsg
 * @typedef {{ type: 'target_for', workflowId: string }} TargetForMsg
 * @typedef {{ type: 'run_action', workflowId: string, actionId: number, action: WireAction, approval?: string | null, timeoutMs?: number, attempt?: number, secretNames?: string[] }} RunActionMsg
 * @typedef {{ type: 'claim_action', workflowId: string, actionId: number | string }} ClaimActionMsg
 * @typedef {{ type: 'run_tab_action', workflowId: string, actionId: number, action: WireAction, approval?: string | null, timeoutMs?: number, attempt?: number, tab?: string, secretNames?: string[] }} RunTabActionMsg
 * @typedef {{ type: 'execute_action', workflowId: string, action: WireAction, timeoutMs?: number, approval?: string, expectOrigin: string, refFloor: number, deliveryId?: string, secretNames?: string[] }} ExecuteActionMsg
 * @typedef {{ type: 'page_state', workflowId?: string, changes?: boolean, maxElements?: number, refFloor?: number }} PageStateMsg
 * @typedef {{ type: 'ping' }} PingMsg
 * @typedef {{ type: 'screen_masks' }} ScreenMasksMsg
 * @typedef {{ type: 'screen_frames_hidden', after?: boolean }} ScreenFramesHiddenMsg
 * @typedef {{ type: 'show_marks', marks: any[], document?: string }} ShowMarksMsg
 * @typedef {{ type: 'grant_site', address: string, kind?: string }} GrantSiteMsg
 * @typedef {{ type: 'remove_site', pattern: string }} RemoveSiteMsg
 * @typedef {{ type: 'held_texts_save', conversation: string, texts: string | null }} HeldTextsSaveMsg
 * @typedef {{ type: 'held_texts_load', conversation: string }} HeldTextsLoadMsg
 * @typedef {{ type: 'clear_conversations' }} ClearConversationsMsg
 * @typedef {{ type: 'change_settings', change: import('./settings.js').SettingsChange }} ChangeSettingsMsg
 * @typedef {{ type: 'status_changed', tabId?: number }} StatusChangedMsg
 */

/**
 * Every message, tagged by `type`.
 * @typedef {ContentRoleMsg | ContentReadyMsg | TabStatusMsg | ChatEventMsg | UserDecisionMsg | AskUserMsg | WithdrawQuestionMsg | ShowQuestionsMsg | PendingQuestionsMsg | AnswerQuestionMsg | QuestionAnsweredMsg | QuestionDueMsg | QuestionsChangedMsg | StopWorkflowMsg | CancelActionsMsg | TabLogMsg | BindTargetMsg | TargetForMsg | RunActionMsg | RunTabActionMsg | ClaimActionMsg | ExecuteActionMsg | PageStateMsg | PingMsg | ScreenMasksMsg | ScreenFramesHiddenMsg | ShowMarksMsg | GrantSiteMsg | RemoveSiteMsg | HeldTextsSaveMsg | HeldTextsLoadMsg | ClearConversationsMsg | ChangeSettingsMsg | StatusChangedMsg} Message
 */

/**
 * The target tab's page: URL, title, what changed, and the next element ref number.
 * @typedef {{ url?: string, title?: string, changes?: { added: unknown[], removed: unknown[], changed: unknown[], more?: number }, nextRef?: number, secretNames?: string[] } & MaybeFailure} PageStateReply
 */
/**
 * An action's answer: what it did, why it failed, or the reasons the user must approve first.
 * `image`: a screenshot's masked picture (PNG data URL), from the background to the chat tab only.
 * @typedef {{ result?: any, needs_approval?: { reasons: string[], target?: string, [field: string]: unknown }, nextRef?: number, secretNames?: string[], image?: string } & MaybeFailure} ActionReply
 */
/** A workflow's bound target tab. @typedef {{ tabId: number, origin: string, url: string, title: string, at: number }} Binding */

/**
 * What each message is answered with.
 * @typedef {{
 *   content_role: { mayRunChat: boolean, userChatSite: boolean },
 *   content_ready: { coreVersion: string | null, coreError: string | null },
 *   tab_status: { background?: { version: string | null, error: string | null }, tab?: any } & MaybeFailure,
 *   chat_event: OkReply,
 *   user_decision: OkReply,
 *   ask_user: { questionId?: string, expiresAt?: number } & MaybeFailure,
 *   withdraw_question: OkReply,
 *   show_questions: OkReply,
 *   pending_questions: { questions?: Array<{ id: string, tabId: number, fingerprint: string, [field: string]: unknown }> } & MaybeFailure,
 *   answer_question: OkReply,
 *   question_answered: void,
 *   question_due: OkReply,
 *   questions_changed: void,
 *   stop_workflow: OkReply,
 *   cancel_actions: OkReply,
 *   tab_log: { log?: object[] } & MaybeFailure,
 *   bind_target: { binding?: Binding } & MaybeFailure,
 *   target_for: { target: Binding | null },
 *   run_action: ActionReply,
 *   run_tab_action: ActionReply,
 *   claim_action: OkReply,
 *   execute_action: ActionReply,
 *   page_state: PageStateReply,
 *   ping: { pong: true },
 *   screen_masks: { masks?: { viewport: any, masks: any[], document: string, origin: string } } & MaybeFailure,
 *   screen_frames_hidden: { hidden: boolean },
 *   show_marks: { ok: boolean },
 *   grant_site: OkReply & { [field: string]: unknown },
 *   remove_site: OkReply & { [field: string]: unknown },
 *   held_texts_save: OkReply,
 *   held_texts_load: { texts?: string | null } & MaybeFailure,
 *   clear_conversations: { removed?: number } & MaybeFailure,
 *   change_settings: { rule?: any } & MaybeFailure,
 *   status_changed: void,
 * }} Replies
 */

/**
 * The reply to message `M`.
 * @template {Message} M
 * @typedef {Replies[M['type']]} ReplyOf
 */
