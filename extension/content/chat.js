// The chat role of the content script: runs a ChatSession (Rust: transcript reader + protocol
// engine) on this tab and routes its decisions. The order of work on every poll is:
//   1. read what changed and let the engine decide (Rust),
//   2. persist the engine state (so a reload never repeats a decision),
//   3. act: ask the user, post the ACK, run actions one at a time.

import { ext } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';
import { CONVERSATION_PREFIX, CONVERSATION_SAVED_AT_PREFIX, SETTINGS_KEY, conversationPartKey, loadConversationParts, loadSettings, savedPartNames, policySettingsJson } from '../shared/settings.js';
import { coreStartFailure, executeHere, pageState } from './executor.js';
import { LineMarksLayer } from './marks.js';

/** Persisted per conversation: the origin and path identify it (ChatGPT: /c/<id>). */
function conversationKey() {
  return `${CONVERSATION_PREFIX}${location.origin}${location.pathname}`;
}

/** When the conversation's state was last saved (the background deletes old ones). */
const savedAtKey = (key) => CONVERSATION_SAVED_AT_PREFIX + key.slice(CONVERSATION_PREFIX.length);

/** Held actions' typed text lives only in the background's storage.session (memory). */
async function loadHeldTexts(key) {
  const reply = await ext.runtime.sendMessage({ type: Msg.HELD_TEXTS_LOAD, conversation: key }).catch(() => null);
  return reply?.texts ?? undefined;
}

/** A fresh ACK nonce: "n_" + 128 random bits from the browser's CSPRNG, as lowercase hex. */
function freshNonce() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return 'n_' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The bytes of a `data:image/png;base64,…` URL. */
function pictureBytes(dataUrl) {
  const binary = atob(dataUrl.slice(dataUrl.indexOf(',') + 1));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * @param {typeof import('../pkg/bai.js')} core the chat role's module (its calls are checked
 *   against the declarations wasm-bindgen writes; the JavaScript build has the same exports)
 * @param {any} banner
 * @param {{ get: () => Promise<typeof import('../pkg/exec.js')>, loaded: typeof import('../pkg/exec.js') | null }} executor the executor's core, for a workflow
 *   that acts on this chat tab itself (loaded then: extension/content/load-core.js)
 */
export async function startChat(core, banner, executor) {
  // Element refs on this tab, when a workflow acts on the chat tab itself: the next number is
  // kept across reloads (targets in other tabs keep theirs in the background), so a ref from
  // before a reload never names a new element.
  const REFS_KEY = 'bai:chat-tab-refs';
  const stored = await ext.storage.local.get([conversationKey(), REFS_KEY]);
  let chatTabRefFloor = stored[REFS_KEY] ?? 1;
  const keepRefFloor = (next) => {
    if (!next || next <= chatTabRefFloor) return;
    chatTabRefFloor = next;
    ext.storage.local.set({ [REFS_KEY]: next }).catch(() => {});
  };
  let settings = await loadSettings();
  /** @type {LineMarksLayer | null} */
  let lineMarks = null;
  ext.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && changes[SETTINGS_KEY]) loadSettings().then((fresh) => { settings = fresh; lineMarks?.setEnabled(settings.lineMarks !== false); });
    // The saved state was deleted (the user cleared saved conversations): the next save writes
    // all of it again, not only what changed.
    if (area === 'local' && changes[key] && changes[key].newValue === undefined) session?.forget_written();
  });
  let key = conversationKey();

  /** A new chat's page, with no address of its own yet (ChatGPT's "/", Claude's "/new"...):
   * its conversation gets one after the first message. */
  const isNewChat = (conversation) => core.is_new_chat_address(new URL(conversation.slice(CONVERSATION_PREFIX.length)).pathname);

  /** Deletes the state saved under `conversation`: its head, its save time and `parts`. */
  const dropSaved = (conversation, parts) => ext.storage.local.remove([conversation, savedAtKey(conversation), ...parts.map((name) => conversationPartKey(conversation, name))]);

  let pollScheduled = false;
  const schedulePoll = () => {
    if (pollScheduled) return;
    pollScheduled = true;
    // One poll per burst of mutations (a streaming message mutates many times per frame).
    setTimeout(poll, 0);
  };

  // A new chat's page ("/", "/new", ...: no address of its own yet) holds another conversation
  // each time it opens: a state left there is never resumed (the core says which pages those
  // are). Anywhere else the address names the conversation.
  if (isNewChat(key) && stored[key]) {
    await dropSaved(key, savedPartNames(stored[key]));
    delete stored[key];
  }

  /** @type {import('../pkg/bai.js').ChatSession} */
  let session;
  try {
    session = new core.ChatSession(stored[key] ?? undefined, schedulePoll, stored[key] ? await loadHeldTexts(key) : undefined, stored[key] ? await loadConversationParts(key, stored[key]) : undefined);
  } catch (error) {
    report({ kind: 'session_error', code: 'session_start_failed', message: String(error?.message ?? error) });
    banner.setError(`BAI could not read this chat: ${error?.message ?? error}`);
    return;
  }

  // Status marks beside the BAI lines and the folded prompt (drawn from what the core says).
  const marksLayer = LineMarksLayer.mount(() => session);
  lineMarks = marksLayer;
  marksLayer.setEnabled(settings.lineMarks !== false);

  const pendingHandshakes = new Map();
  // Screenshots' masked pictures, per workflow, until its result message carries them (memory
  // only: never stored, logged or reported).
  /** @type {Map<string, Array<{ actionId: number, image: string }>>} */
  const pictures = new Map();
  let actionChain = Promise.resolve();

  /**
   * Queues `work` behind everything queued before it. A step that throws is reported and the
   * queue goes on: one broken step must not silently stop every later action and result.
   */
  function queue(work) {
    return actionChain.then(work).catch((error) => {
      report({ kind: 'session_error', code: 'internal_error', message: String(error?.stack ?? error?.message ?? error) });
    });
  }

  function report(event) {
    ext.runtime.sendMessage({ type: Msg.CHAT_EVENT, event: { ...event, at: Date.now() } }).catch(() => {});
  }

  /** The engine state goes to disk without any typed text; held actions' text goes to memory
   * (the background's storage.session) only. Only what changed since the last save is written
   * (the engine says which parts: the head and the newest slices of its growing lists). */
  let heldTextsSaved = '{}';
  async function persist() {
    const { set, remove } = JSON.parse(session.save_changes());
    const writes = { [savedAtKey(key)]: Date.now() };
    for (const [name, json] of set) writes[name === 'head' ? key : conversationPartKey(key, name)] = json;
    await ext.storage.local.set(writes);
    if (remove.length) await ext.storage.local.remove(remove.map((name) => conversationPartKey(key, name)));
    const texts = session.save_held_texts();
    if (texts !== heldTextsSaved) {
      heldTextsSaved = texts;
      await ext.runtime.sendMessage({ type: Msg.HELD_TEXTS_SAVE, conversation: key, texts: texts === '{}' ? null : texts }).catch(() => {});
    }
  }


  /**
   * ChatGPT switches conversations without reloading the page. The engine's state belongs to
   * one conversation: a different one gets its own session (its saved state, or none), and
   * every open question of the old one is dropped.
   */
  async function followConversation() {
    const now = conversationKey();
    if (now === key) return;
    const saved = (await ext.storage.local.get(now))[now];
    // A new chat that got its own address carries its state there, but only to an address that
    // has none: from "/", a click on an old conversation in the sidebar must open that one
    // (its saved state, its messages as old), never overwrite it with the new chat's.
    if (isNewChat(key)) {
      // "/" is always a new chat: its state never stays there. It moves to the conversation's
      // own address (written there whole), or is dropped when that address has a state.
      await dropSaved(key, JSON.parse(session.forget_written()).filter((name) => name !== 'head'));
      if (!saved) {
        heldTextsSaved = '';
        key = now;
        await persist();
        return;
      }
    }
    session.close();
    key = now;
    session = new core.ChatSession(saved ?? undefined, schedulePoll, saved ? await loadHeldTexts(now) : undefined, saved ? await loadConversationParts(now, saved) : undefined);
    heldTextsSaved = '';
    pendingHandshakes.clear();
    withdrawQuestions();
    report({ kind: 'session_started', conversation: key, resumed: Boolean(saved) });
  }

  /**
   * The page shows another conversation at the same address (the core saw every message go, or
   * a new chat's first message change): the core started over. The old conversation's open
   * questions go, and its saved state with them, so it is never resumed as this one's.
   */
  async function conversationReplaced() {
    await dropSaved(key, JSON.parse(session.forget_written()).filter((name) => name !== 'head'));
    heldTextsSaved = '';
    pendingHandshakes.clear();
    withdrawQuestions();
    report({ kind: 'session_started', conversation: key, resumed: false });
  }

  let polls = 0;
  let actionsRun = 0;
  let reportedLayout = {};
  async function poll() {
    pollScheduled = false;
    await followConversation();
    // `bai:poll` measures (in the page's performance timeline) what each page change costs the
    // main thread: reading what changed and the engine's decisions. scripts/bench reads them.
    const started = performance.now();
    const raw = session.poll();
    if (session.take_conversation_replaced()) await conversationReplaced();
    // A quiet poll (nothing decided or recognized, the same site as the last whole result) comes
    // as the number of messages alone (see ChatSession::poll): no JSON to parse.
    const quiet = typeof raw === 'number';
    const result = quiet ? { pending: false, decisions: [], messages: raw, site: reportedLayout.site } : JSON.parse(raw);
    performance.measure('bai:poll', { start: started, end: performance.now(), detail: { messages: result.messages, reads: result.reads, pending: result.pending, quiet } });
    if (result.pending) {
      // A long transcript is read in slices, one per task: yield to the page, then read on.
      // Nothing was decided, and the progress markers wait for the whole read.
      schedulePoll();
      return;
    }
    // What BAI reads here, logged when it changes (a new chat shows its layout with its first
    // messages), and every code block taken for a handshake by its content alone.
    const layout = { site: result.site, reading: result.messages > 0 };
    if (layout.site !== reportedLayout.site || layout.reading !== reportedLayout.reading) {
      reportedLayout = layout;
      report({ kind: 'chat_layout', site: result.site, messages: result.messages });
    }
    for (const { message_index, rule } of result.handshake_recognitions ?? []) {
      report({ kind: 'handshake_recognized', message_index, rule });
    }
    if (result.decisions.length > 0) {
      await persist();
      for (const decision of result.decisions) handle(decision);
    }
    // The poll's actions have run: the engine ends what a failure skips for workflows without
    // result lines (with them, that lasts until the message's result).
    actionChain = queue(() => session.actions_settled());
    marksLayer.refresh();
    await actionChain;
    marksLayer.refresh();
    banner.setRunning(session.any_active());
    // Visible progress markers: how many polls finished (with their actions) and how many
    // actions ran on this page since it loaded. The panel and the tests read them.
    banner.setProgress({ polls: ++polls, actionsRun, messages: result.messages });
  }

  function handle(decision) {
    switch (decision.decision) {
      case 'handshake_found':
        return onHandshake(decision);
      case 'ack':
        return onAck(decision);
      case 'execute':
        actionChain = queue(() => runAction(decision));
        return actionChain;
      case 'result_due':
        // After the message's actions (queued before it) have run.
        actionChain = queue(() => postResult(decision));
        return actionChain;
      case 'reject':
        report({ kind: 'rejected', ...decision });
        return undefined;
      case 'state_changed':
        // Queued behind the actions decided before it, so the log reads in the order things
        // happen ("action 3 done", then "workflow finished").
        actionChain = queue(() => {
          report({ kind: 'state_changed', workflow_id: decision.workflow_id, state: decision.state });
          banner.setWorkflowState(decision.workflow_id, decision.state);
          banner.setRunning(session.any_active());
        });
        return actionChain;
      default:
        report({ kind: 'unknown_decision', decision });
        return undefined;
    }
  }

  async function onHandshake({ workflow_id, protocol }) {
    pendingHandshakes.set(workflow_id, protocol);
    const target = await targetOf(workflow_id);
    const targetName = target ? `${target.title} (${target.origin})` : 'this chat tab';
    report({ kind: 'handshake_found', workflow_id, protocol, target: targetName });
    // The held actions the question shows: the approval names them (the engine refuses it if
    // the model's held actions changed meanwhile, and the user is asked again).
    const info = workflowInfo(workflow_id);
    const heldSet = info?.held_set ?? '';
    if (settings.approvalMode === 'auto') {
      decide(workflow_id, 'allow', 'policy', heldSet);
      return;
    }
    const heldActions = info?.held_actions ?? 0;
    const answer = await askUser({ kind: 'handshake', workflowId: workflow_id, protocol, heldActions });
    if (answer === 'allow' || answer === 'deny') decide(workflow_id, answer, 'user', heldSet);
    // Nobody answered in time: refused.
    if (answer === 'timed_out') decide(workflow_id, 'deny', 'timeout');
  }

  // Questions this tab asked, by the background's question id. The question is shown only on
  // the extension's own pages; this page's banner only says that BAI waits.
  const questions = new Map();
  // Answers that arrived before the background's reply to the question (kept until it does).
  const earlyAnswers = new Map();

  /** Asks the user through the background (question window and panel); resolves to 'allow',
   * 'deny', 'timed_out' when nobody answered in time, or 'withdrawn' when Stop or a
   * conversation switch took the question back. */
  async function askUser(question) {
    const key = question.kind === 'action' ? `${question.workflowId}:${question.actionId}` : question.workflowId;
    const reply = await ext.runtime.sendMessage({ type: Msg.ASK_USER, question }).catch((error) => /** @type {import('../shared/messages.js').ReplyOf<import('../shared/messages.js').AskUserMsg>} */ ({ error: { code: 'ask_failed', message: String(error?.message ?? error) } }));
    if (!reply?.questionId) {
      report({ kind: 'session_error', code: reply?.error?.code ?? 'ask_failed', message: reply?.error?.message ?? 'BAI could not show its question' });
      return 'deny';
    }
    banner.showWaiting(key);
    // The background denies the question when its time is up; a worker that was asleep then
    // is woken by this reminder (it checks the time itself).
    if (Number.isFinite(reply.expiresAt)) {
      setTimeout(() => ext.runtime.sendMessage({ type: Msg.QUESTION_DUE }).catch(() => {}), Math.max(0, reply.expiresAt - Date.now()) + 250);
    }
    return new Promise((resolve) => {
      questions.set(reply.questionId, { key, workflowId: question.workflowId, resolve });
      if (earlyAnswers.has(reply.questionId)) {
        settleQuestion(reply.questionId, earlyAnswers.get(reply.questionId));
        earlyAnswers.delete(reply.questionId);
      }
    });
  }

  function settleQuestion(questionId, answer) {
    const open = questions.get(questionId);
    if (!open) return false;
    questions.delete(questionId);
    const still = [...questions.values()];
    if (still.length) banner.showWaiting(still[still.length - 1].key);
    else banner.clearQuestion();
    open.resolve(answer);
    return true;
  }

  /** Takes back every open question (each ends as 'withdrawn'). */
  function withdrawQuestions() {
    for (const questionId of [...questions.keys()]) {
      ext.runtime.sendMessage({ type: Msg.WITHDRAW_QUESTION, questionId }).catch(() => {});
      settleQuestion(questionId, 'withdrawn');
    }
  }

  /** Workflows the engine still runs (or waits to acknowledge). */
  function unfinishedWorkflows() {
    return JSON.parse(session.workflows()).filter((w) => w.state === 'active' || w.state === 'awaiting_extension_ack');
  }

  async function decide(workflowId, answer, by, heldSet = '') {
    if (answer === 'stop') {
      // Stop means stop: every unfinished workflow of this conversation, not only the one the
      // button was last showing (a model could start a second one to hide the first).
      const decisions = [];
      const stopped = unfinishedWorkflows();
      for (const workflow of stopped) {
        decisions.push(...JSON.parse(session.stop(workflow.workflow_id)));
        report({ kind: 'stopped', workflow_id: workflow.workflow_id, by });
        pendingHandshakes.delete(workflow.workflow_id);
      }
      // What is in flight ends now: an action waiting for its element here (a workflow acting
      // on this tab) or in its target tab (through the background), and every open question.
      executor.loaded?.cancel_actions();
      withdrawQuestions();
      await Promise.all(stopped.map((workflow) => ext.runtime.sendMessage({ type: Msg.STOP_WORKFLOW, workflowId: workflow.workflow_id }).catch(() => {})));
      await persist();
      for (const decision of decisions) handle(decision);
      return;
    }
    if (!pendingHandshakes.has(workflowId)) return;
    const protocol = pendingHandshakes.get(workflowId);
    pendingHandshakes.delete(workflowId);
    let decisions;
    try {
      decisions = JSON.parse(answer === 'allow' ? session.approve(workflowId, freshNonce(), heldSet) : session.deny(workflowId));
    } catch (error) {
      if (!String(error?.message ?? '').startsWith('held_actions_changed')) throw error;
      report({ kind: 'session_error', code: 'held_actions_changed', message: String(error.message) });
      onHandshake({ workflow_id: workflowId, protocol });
      return;
    }
    await persist();
    report({ kind: answer === 'allow' ? 'approved' : 'denied', workflow_id: workflowId, by });
    marksLayer.refresh();
    for (const decision of decisions) handle(decision);
  }

  function onAck({ workflow_id, line }) {
    return postLine(line, {
      what: 'acknowledgement',
      posted: (outcome) => report({ kind: 'ack_posted', workflow_id, outcome }),
      failed: (error) => report({ kind: 'ack_failed', workflow_id, code: error?.code ?? 'unknown', message: error?.message ?? String(error) }),
    });
  }

  /** Posts one line (ACK or result) into the chat through the composer, retrying with
   * back-off; never overwrites what the user is typing (waits for an empty composer). */
  async function postLine(line, { what, posted, failed, images = [] }) {
    const delays = [0, 500, 1000, 2000, 4000];
    let lastError = null;
    const conversation = key;
    for (let attempt = 0; attempt < 60; attempt++) {
      const delay = delays[Math.min(attempt, delays.length - 1)];
      if (delay) await sleep(delay);
      // Never post into another conversation than the one the line answers.
      if (conversationKey() !== conversation) {
        lastError = { code: 'conversation_changed', message: `you switched to another conversation before BAI could post its ${what}` };
        break;
      }
      try {
        // A screenshot's picture joins the result message (the last one, if several).
        const picture = images[images.length - 1];
        posted(picture
          ? await core.post_line_with_image(line, settings.insertOnly, session.site(), pictureBytes(picture.image), `bai-screenshot-${picture.actionId}.png`)
          : await core.post_line(line, settings.insertOnly, session.site()));
        return true;
      } catch (error) {
        lastError = error;
        // The send button was pressed but the line did not show up: sending again could post
        // it twice. Say so instead.
        if (error?.code === 'not_confirmed') break;
        // The site does not take the text BAI inserts (its send button stays disabled, or the
        // box rejects it): trying again cannot help, and the panel must say so.
        if (error?.code === 'send_disabled' || error?.code === 'insert_rejected') break;
        if (error?.code === 'vision_unsupported_site' || error?.code === 'image_not_attached') break;
        // A picture BAI attached stayed in the box (BAI could not take it back out): another
        // try would attach a second copy. The user is told to remove it.
        if (error?.code === 'image_left_in_composer') break;
        if (error?.code === 'user_is_typing' || error?.code === 'composer_changed') {
          banner.setNote(`BAI will post its ${what} when the message box is empty.`);
          continue;
        }
        if (attempt >= delays.length - 1) break;
      }
    }
    failed(lastError);
    banner.setError(`BAI could not post its ${what}: ${lastError?.message ?? lastError}`);
    return false;
  }

  function workflowInfo(workflowId) {
    return JSON.parse(session.workflows()).find((w) => w.workflow_id === workflowId) ?? null;
  }

  /** The target page's URL and title, plus what changed since its last observation. */
  async function targetPageState(workflowId, withChanges) {
    const target = await targetOf(workflowId);
    if (!target) {
      const state = pageState(await executor.get(), { changes: withChanges, refFloor: chatTabRefFloor });
      keepRefFloor(state.nextRef);
      return state;
    }
    const state = await ext.runtime.sendMessage({ type: Msg.PAGE_STATE, workflowId, changes: withChanges });
    return state?.error ? null : state;
  }

  /**
   * A message's actions are over: BAI tells the model what happened in one BAI_RESULT line
   * (built by the engine, which will recognize it in the transcript as its own).
   */
  async function postResult(due) {
    const { workflow_id, message_index } = due;
    // The engine puts the report together from the outcomes it recorded; the glue adds the
    // page's state ("what the page looks like now": for a model that observes and did not
    // observe in this message, what changed since).
    let line;
    try {
      const { page_changes } = JSON.parse(session.message_report(JSON.stringify(due)));
      const page = await targetPageState(workflow_id, page_changes).catch(() => null);
      line = session.result_line(workflow_id, JSON.stringify(page ?? null));
      await persist();
    } catch (error) {
      report({ kind: 'result_failed', workflow_id, code: 'result_not_built', message: String(error?.message ?? error) });
      return;
    }
    // The same conversation open in two tabs: one of them posts.
    const claim = await ext.runtime.sendMessage({ type: Msg.CLAIM_ACTION, workflowId: workflow_id, actionId: `result@${message_index}` });
    const images = pictures.get(workflow_id) ?? [];
    pictures.delete(workflow_id);
    if (claim?.error) return;
    await postLine(line, {
      images,
      what: 'result',
      posted: (outcome) => report({ kind: 'result_posted', workflow_id, outcome, actions: due.executed.length + due.rejected.length }),
      failed: (error) => report({ kind: 'result_failed', workflow_id, code: error?.code ?? 'unknown', message: error?.message ?? String(error) }),
    });
  }

  // A workflow's target is fixed once its handshake was seen (the background also records this
  // tab as the workflow's owner on the first question): ask once per workflow, not per action.
  const targets = new Map();
  async function targetOf(workflowId) {
    if (!targets.has(workflowId)) {
      const { target } = await ext.runtime.sendMessage({ type: Msg.TARGET_FOR, workflowId });
      targets.set(workflowId, target ?? null);
    }
    return targets.get(workflowId);
  }

  /** Runs an action on the workflow's target tab (through the background), or here.
   * `approval`: the hold id of the question the user allowed (the core acts on the element it
   * held for that question), else null.
   * @returns {Promise<import('../shared/messages.js').ActionReply>} */
  async function perform(workflow_id, action_id, action, approval, { timeoutMs, attempt, tab, starting = () => {} }) {
    const target = await targetOf(workflow_id);
    if (action.type === 'screenshot') {
      // Before any picture is taken: it must be of a bound target (not this chat), and this
      // chat site must be one BAI can attach a picture to.
      if (!target) return { error: JSON.parse(core.picture_failure('screenshot_needs_target', '', '')) };
      try {
        core.check_image_input(session.site());
      } catch (error) {
        return { error: { code: error?.code ?? 'vision_unsupported_site', message: String(error?.message ?? error) } };
      }
    }
    // A workflow that negotiated `tabs` acts on the tabs it owns, chosen in the background
    // (background/tabs.js); without a bound tab it has none to choose from.
    const ownsTabs = workflowInfo(workflow_id)?.capabilities?.includes('tabs');
    if (ownsTabs && target) {
      starting();
      return ext.runtime.sendMessage({ type: Msg.RUN_TAB_ACTION, workflowId: workflow_id, actionId: action_id, action, approval, timeoutMs, attempt, ...(tab ? { tab } : {}), secretNames: JSON.parse(session.secret_names()) });
    }
    if (ownsTabs && (tab || action.type === 'open_tab' || action.type === 'tabs')) {
      return { error: { code: 'no_target', message: 'This workflow acts on the chat tab itself, which has no other tabs: bind a tab with "Copy protocol prompt" to use open_tab, tabs or "tab".' } };
    }
    if (!target) {
      // Claimed once, before the first try (the approved retry of the same action is that try).
      if (!approval) {
        const claimId = attempt ? `${action_id}#${attempt}` : action_id;
        const claim = await ext.runtime.sendMessage({ type: Msg.CLAIM_ACTION, workflowId: workflow_id, actionId: claimId });
        starting();
        if (claim?.error) return { error: claim.error };
      }
      let here;
      try {
        here = await executor.get();
      } catch (error) {
        return { error: coreStartFailure(error) };
      }
      const reply = await executeHere(here, { action, approval, timeoutMs, refFloor: chatTabRefFloor, secretNames: JSON.parse(session.secret_names()) });
      keepRefFloor(reply.nextRef);
      return reply;
    }
    starting();
    return ext.runtime.sendMessage({ type: Msg.RUN_ACTION, workflowId: workflow_id, actionId: action_id, action, approval, timeoutMs, attempt, secretNames: JSON.parse(session.secret_names()) });
  }

  /** Asks whether one action may run (risky clicks, passwords, "ask before each action"). */
  async function askAboutAction(summary, reasons) {
    report({ kind: 'action_needs_approval', ...summary, reasons });
    session.note_question(summary.workflow_id, summary.action_id);
    marksLayer.refresh();
    const answer = await askUser({
      kind: 'action',
      workflowId: summary.workflow_id,
      actionId: summary.action_id,
      actionType: summary.type,
      selector: summary.selector,
      detail: summary.detail,
      target: summary.target,
      targetName: summary.targetName,
      reasons,
      claim: summary.reason,
    });
    if (answer !== 'withdrawn') report({ kind: answer === 'allow' ? 'action_approved' : 'action_denied', workflow_id: summary.workflow_id, action_id: summary.action_id, by: answer === 'timed_out' ? 'timeout' : 'user' });
    return answer;
  }

  /** A few words on what an action without a plain target will do, for the log (never typed
   * text: `input_text`'s text stays out).
   * @param {import('../shared/messages.js').WireAction} action */
  function actionDetail({ type, payload = {} }) {
    switch (type) {
      case 'navigate': return `to ${payload.url}`;
      case 'open_tab': return `new tab at ${payload.url}`;
      case 'press_key': return payload.key;
      case 'select_option': return `“${payload.option}”`;
      // The payload as the protocol documents it (the core serializes actions in wire form).
      case 'wait_for':
        if (payload.url_contains !== undefined) return `URL contains “${payload.url_contains}”`;
        if (payload.text !== undefined) return `text “${payload.text}”`;
        return payload.state ?? null;
      case 'assert': return payload.expect?.replaceAll('_', ' ') ?? null;
      case 'extract': return payload.attribute ? `attribute ${payload.attribute}` : null;
      default: return null;
    }
  }

  /** The rate-limit count is part of the saved state, so reloading the chat does not reset the
   * limits. Saved after the action, not before: the write costs a storage round trip, and the
   * engine's own state (saved before acting) already keeps the action from running twice. */
  function persistCount() {
    persist().catch(() => {});
  }

  /**
   * Runs one action the engine handed out. The engine decides everything: whether it runs at
   * all (stopped, skipped after a failure, a `done`, over the rate limits), and after each
   * attempt whether to try again, go on or skip the rest of the message; it records the outcome
   * for the result line. This loop only performs, asks the user, and logs.
   * @param {{ workflow_id: string, action_id: number, action: import('../shared/messages.js').WireAction, options?: { timeout_ms?: number, reason?: string, on_error?: unknown, tab?: string } }} decision
   */
  async function runAction({ workflow_id, action_id, action, options = {} }) {
    const summary = { workflow_id, action_id, type: action.type, selector: action.payload?.selector ?? null };
    if (options.tab) summary.tab = options.tab;
    const detail = actionDetail(action);
    if (detail) summary.detail = detail;
    if (options.reason) summary.reason = options.reason;
    const start = JSON.parse(session.begin_action(workflow_id, action_id, Date.now(), policySettingsJson(settings)));
    marksLayer.refresh();
    if (start.next === 'skip') {
      report({ kind: 'skipped', ...summary, ...(start.why === 'earlier_failure' ? {} : { why: start.why }) });
      return;
    }
    if (start.next === 'finished') {
      // `done`, or `more` (the next part of a long result, which the engine writes into this
      // message's result line): neither touches the page.
      report({ kind: 'executed', ...summary, result: action.type === 'more' ? { more: true } : { done: action.payload } });
      return;
    }
    if (start.next === 'refused') {
      report({ kind: 'failed', ...summary, error: start.error });
      await decide(workflow_id, 'stop', 'policy');
      return;
    }
    let attempt = 0;
    for (;;) {
      // Logged once per attempt, before its outcome. An action on this tab logs it after its
      // claim: the log's storage write, sent right before the claim, held up the claim's own
      // write in the background by 5-6 ms of every action (figure 7, session 12). Elsewhere it
      // goes with the delivery, as before.
      let logged = false;
      const starting = () => {
        if (logged) return;
        logged = true;
        report({ kind: 'executing', ...summary, ...(attempt ? { attempt } : {}) });
      };
      actionsRun += 1;
      const reply = await attemptAction(summary, action, { timeoutMs: options.timeout_ms, attempt, tab: options.tab, starting });
      starting();
      // The picture stays in memory for the result message, out of the log and the engine.
      if (reply && 'image' in reply && typeof reply.image === 'string') {
        pictures.set(workflow_id, [...(pictures.get(workflow_id) ?? []), { actionId: action_id, image: reply.image }]);
        delete reply.image;
      }
      const step = JSON.parse(session.record_outcome(workflow_id, action_id, JSON.stringify(reply ?? null)));
      marksLayer.refresh();
      if (step.failure) report({ kind: 'failed', ...summary, error: step.failure });
      else report({ kind: 'executed', ...summary, result: 'result' in reply ? reply.result : undefined });
      if (step.next !== 'retry') break;
      attempt = step.attempt;
    }
    persistCount();
  }

  /** One attempt: perform, and when the target asks, the user's answer and the approved run.
   * Answers the target's reply (`{result}` or `{error}`), or `{answer}` when the user did not
   * allow the action. */
  async function attemptAction(summary, action, how) {
    const { workflow_id, action_id } = summary;
    try {
      let reply = await perform(workflow_id, action_id, action, null, how);
      if (reply?.needs_approval) {
        const answer = await askAboutAction({ ...summary, target: reply.needs_approval.target, targetName: reply.needs_approval.targetName }, reply.needs_approval.reasons);
        if (answer !== 'allow') return { answer: answer === 'withdrawn' || answer === 'timed_out' ? answer : 'deny' };
        const names = reply.secretNames;
        reply = await perform(workflow_id, action_id, action, reply.needs_approval.hold, how);
        // The approved run may take the page away before it answers (a form sent by GET): the
        // names the first look found still reach the session.
        if (reply && names && !reply.secretNames) reply.secretNames = names;
      }
      return reply;
    } catch (error) {
      return { error: { code: error?.code ?? 'action_failed', message: String(error?.message ?? error) } };
    }
  }

  // Only the background reaches this listener (pages cannot send extension messages). An answer
  // counts only for a question this tab asked and the background still held open.
  ext.runtime.onMessage.addListener((message) => {
    if (message?.type === Msg.QUESTION_ANSWERED) {
      const answer = message.answer === 'allow' || message.answer === 'timed_out' ? message.answer : 'deny';
      if (!settleQuestion(message.questionId, answer)) earlyAnswers.set(message.questionId, answer);
      return;
    }
    if (message?.type === Msg.USER_DECISION && message.answer === 'stop') decide(message.workflowId, 'stop', 'user');
  });
  banner.onStop(() => decide(null, 'stop', 'user'));
  banner.onShowQuestion(() => ext.runtime.sendMessage({ type: Msg.SHOW_QUESTIONS }).catch(() => {}));

  report({ kind: 'session_started', conversation: key, resumed: Boolean(stored[key]) });
  await poll();
}
