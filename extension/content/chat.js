// The chat role of the content script: runs a ChatSession (Rust: transcript reader + protocol
// engine) on this tab and routes its decisions. The order of work on every poll is:
//   1. read what changed and let the engine decide (Rust),
//   2. persist the engine state (so a reload never repeats a decision),
//   3. act: ask the user, post the ACK, run actions one at a time.

import { ext } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';
import { SETTINGS_KEY, loadSettings, policySettingsJson } from '../shared/settings.js';
import { executeHere } from './executor.js';

/** Persisted per conversation: the origin and path identify it (ChatGPT: /c/<id>). */
function conversationKey() {
  return `bai:conv:${location.origin}${location.pathname}`;
}

/** A fresh ACK nonce: "n_" + 128 random bits from the browser's CSPRNG, as lowercase hex. */
function freshNonce() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return 'n_' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startChat(core, banner) {
  const stored = await ext.storage.local.get(conversationKey());
  let settings = await loadSettings();
  ext.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && changes[SETTINGS_KEY]) loadSettings().then((fresh) => { settings = fresh; });
  });
  let key = conversationKey();

  let pollScheduled = false;
  const schedulePoll = () => {
    if (pollScheduled) return;
    pollScheduled = true;
    // One poll per burst of mutations (a streaming message mutates many times per frame).
    setTimeout(poll, 0);
  };

  let session;
  try {
    session = new core.ChatSession(stored[key] ?? undefined, schedulePoll);
  } catch (error) {
    report({ kind: 'session_error', code: 'session_start_failed', message: String(error?.message ?? error) });
    banner.setError(`BAI could not read this chat: ${error?.message ?? error}`);
    return;
  }

  const pendingHandshakes = new Map();
  let actionChain = Promise.resolve();

  function report(event) {
    ext.runtime.sendMessage({ type: Msg.CHAT_EVENT, event: { ...event, at: Date.now() } }).catch(() => {});
  }

  async function persist() {
    await ext.storage.local.set({ [key]: session.save() });
  }

  /** A new chat ("/") gets its own address after the first message: same conversation. */
  const isNewChat = (conversation) => new URL(conversation.slice('bai:conv:'.length)).pathname === '/';

  /**
   * ChatGPT switches conversations without reloading the page. The engine's state belongs to
   * one conversation: a different one gets its own session (its saved state, or none), and
   * every open question of the old one is dropped.
   */
  async function followConversation() {
    const now = conversationKey();
    if (now === key) return;
    if (isNewChat(key)) {
      await ext.storage.local.remove(key);
      key = now;
      await persist();
      return;
    }
    session.close();
    const saved = (await ext.storage.local.get(now))[now];
    key = now;
    session = new core.ChatSession(saved ?? undefined, schedulePoll);
    pendingHandshakes.clear();
    for (const [question, resolve] of actionQuestions) {
      actionQuestions.delete(question);
      resolve('deny');
    }
    banner.clearQuestion();
    report({ kind: 'session_started', conversation: key, resumed: Boolean(saved) });
  }

  let polls = 0;
  let actionsRun = 0;
  async function poll() {
    pollScheduled = false;
    await followConversation();
    // `bai:poll` measures (in the page's performance timeline) what each page change costs the
    // main thread: reading what changed and the engine's decisions. scripts/bench reads them.
    const started = performance.now();
    const result = JSON.parse(session.poll());
    performance.measure('bai:poll', { start: started, end: performance.now(), detail: { messages: result.messages, reads: result.reads } });
    if (result.decisions.length > 0) {
      await persist();
      const batch = { failedWorkflows: new Set() };
      for (const decision of result.decisions) handle(decision, batch);
    }
    await actionChain;
    banner.setRunning(unfinishedWorkflows().some((w) => w.state === 'active'));
    // Visible progress markers: how many polls finished (with their actions) and how many
    // actions ran on this page since it loaded. The panel and the tests read them.
    banner.setProgress({ polls: ++polls, actionsRun, messages: result.messages });
  }

  // `batch` groups the decisions of one poll: when an action fails, the later actions the model
  // wrote alongside it are skipped (they were written assuming it would work).
  function handle(decision, batch = { failedWorkflows: new Set() }) {
    switch (decision.decision) {
      case 'handshake_found':
        return onHandshake(decision);
      case 'ack':
        return onAck(decision);
      case 'execute':
        actionChain = actionChain.then(() => runAction(decision, batch));
        return actionChain;
      case 'reject':
        report({ kind: 'rejected', ...decision });
        return undefined;
      case 'state_changed':
        // Queued behind the actions decided before it, so the log reads in the order things
        // happen ("action 3 done", then "workflow finished").
        actionChain = actionChain.then(() => {
          report({ kind: 'state_changed', workflow_id: decision.workflow_id, state: decision.state });
          banner.setWorkflowState(decision.workflow_id, decision.state);
          banner.setRunning(unfinishedWorkflows().some((w) => w.state === 'active'));
        });
        return actionChain;
      default:
        report({ kind: 'unknown_decision', decision });
        return undefined;
    }
  }

  async function onHandshake({ workflow_id, protocol }) {
    pendingHandshakes.set(workflow_id, protocol);
    const { target } = await ext.runtime.sendMessage({ type: Msg.TARGET_FOR, workflowId: workflow_id });
    const targetName = target ? `${target.title} (${target.origin})` : 'this chat tab';
    report({ kind: 'handshake_found', workflow_id, protocol, target: targetName });
    if (settings.approvalMode === 'auto') {
      decide(workflow_id, 'allow', 'policy');
      return;
    }
    banner.askHandshake({ workflowId: workflow_id, protocol, target: targetName }, (answer) => decide(workflow_id, answer, 'user'));
  }

  /** Workflows the engine still runs (or waits to acknowledge). */
  function unfinishedWorkflows() {
    return JSON.parse(session.workflows()).filter((w) => w.state === 'active' || w.state === 'awaiting_extension_ack');
  }

  async function decide(workflowId, answer, by) {
    if (answer === 'stop') {
      // Stop means stop: every unfinished workflow of this conversation, not only the one the
      // button was last showing (a model could start a second one to hide the first).
      const decisions = [];
      for (const workflow of unfinishedWorkflows()) {
        decisions.push(...JSON.parse(session.stop(workflow.workflow_id)));
        report({ kind: 'stopped', workflow_id: workflow.workflow_id, by });
        pendingHandshakes.delete(workflow.workflow_id);
      }
      for (const [key, resolve] of actionQuestions) {
        actionQuestions.delete(key);
        resolve('deny');
      }
      banner.clearQuestion();
      await persist();
      decisions.forEach(handle);
      return;
    }
    if (!pendingHandshakes.has(workflowId)) return;
    pendingHandshakes.delete(workflowId);
    banner.clearQuestion();
    const decisions = JSON.parse(answer === 'allow' ? session.approve(workflowId, freshNonce()) : session.deny(workflowId));
    await persist();
    report({ kind: answer === 'allow' ? 'approved' : 'denied', workflow_id: workflowId, by });
    decisions.forEach(handle);
  }

  async function onAck({ workflow_id, line }) {
    // Retry with back-off; never overwrite what the user is typing (wait for an empty composer).
    const delays = [0, 500, 1000, 2000, 4000];
    let lastError = null;
    const conversation = key;
    for (let attempt = 0; attempt < 60; attempt++) {
      const delay = delays[Math.min(attempt, delays.length - 1)];
      if (delay) await sleep(delay);
      // Never post a nonce into another conversation than the one whose handshake it answers.
      if (conversationKey() !== conversation) {
        lastError = { code: 'conversation_changed', message: 'you switched to another conversation before BAI could post its acknowledgement' };
        break;
      }
      try {
        const outcome = await core.post_line(line, settings.insertOnly);
        report({ kind: 'ack_posted', workflow_id, outcome });
        return;
      } catch (error) {
        lastError = error;
        if (error?.code === 'user_is_typing') {
          banner.setNote('BAI will post its acknowledgement when the message box is empty.');
          continue;
        }
        if (attempt >= delays.length - 1) break;
      }
    }
    report({ kind: 'ack_failed', workflow_id, code: lastError?.code ?? 'unknown', message: lastError?.message ?? String(lastError) });
    banner.setError(`BAI could not post its acknowledgement: ${lastError?.message ?? lastError}`);
  }

  /** Runs an action on the workflow's target tab (through the background), or here. */
  async function perform(workflow_id, action_id, action, approved) {
    const { target } = await ext.runtime.sendMessage({ type: Msg.TARGET_FOR, workflowId: workflow_id });
    if (!target) {
      // Claimed once, before the first try (the approved retry of the same action is that try).
      if (!approved) {
        const claim = await ext.runtime.sendMessage({ type: Msg.CLAIM_ACTION, workflowId: workflow_id, actionId: action_id });
        if (claim?.error) return { error: claim.error };
      }
      return executeHere(core, { action, approved });
    }
    return ext.runtime.sendMessage({ type: Msg.RUN_ACTION, workflowId: workflow_id, actionId: action_id, action, approved });
  }

  // Questions about single actions (risky clicks, passwords, "ask before each action").
  const actionQuestions = new Map();

  function askAboutAction(summary, reasons) {
    const key = `${summary.workflow_id}:${summary.action_id}`;
    report({ kind: 'action_needs_approval', ...summary, reasons });
    return new Promise((resolve) => {
      actionQuestions.set(key, resolve);
      banner.askAction(summary, reasons, (answer) => answerAction(summary.workflow_id, summary.action_id, answer, 'user'));
    });
  }

  function answerAction(workflowId, actionId, answer, by) {
    const key = `${workflowId}:${actionId}`;
    const resolve = actionQuestions.get(key);
    if (!resolve) return;
    actionQuestions.delete(key);
    banner.clearQuestion();
    report({ kind: answer === 'allow' ? 'action_approved' : 'action_denied', workflow_id: workflowId, action_id: actionId, by });
    resolve(answer);
  }

  async function runAction({ workflow_id, action_id, action }, batch) {
    const summary = { workflow_id, action_id, type: action.type, selector: action.payload?.selector ?? null };
    if (batch.failedWorkflows.has(workflow_id)) {
      report({ kind: 'skipped', ...summary });
      return;
    }
    if (action.type === 'done') {
      report({ kind: 'executed', ...summary, result: { done: action.payload } });
      return;
    }
    const limited = session.admit(workflow_id, Date.now(), policySettingsJson(settings));
    if (limited) {
      report({ kind: 'failed', ...summary, error: limited });
      batch.failedWorkflows.add(workflow_id);
      await decide(workflow_id, 'stop', 'policy');
      return;
    }
    report({ kind: 'executing', ...summary });
    actionsRun += 1;
    try {
      let outcome = await perform(workflow_id, action_id, action, false);
      if (outcome.needs_approval) {
        const answer = await askAboutAction({ ...summary, target: outcome.needs_approval.target }, outcome.needs_approval.reasons);
        if (answer !== 'allow') {
          throw JSON.stringify({ code: 'denied_by_user', message: 'You did not allow this action.' });
        }
        outcome = await perform(workflow_id, action_id, action, true);
      }
      if (outcome.error) throw JSON.stringify(outcome.error);
      report({ kind: 'executed', ...summary, result: outcome.result });
    } catch (error) {
      let failure;
      try {
        failure = typeof error === 'string' ? JSON.parse(error) : { code: error?.code, message: error?.message ?? String(error) };
      } catch {
        failure = { code: 'action_failed', message: String(error) };
      }
      report({ kind: 'failed', ...summary, error: failure });
      batch.failedWorkflows.add(workflow_id);
    }
  }

  ext.runtime.onMessage.addListener((message) => {
    if (message?.type !== Msg.USER_DECISION) return;
    if (message.actionId !== undefined) answerAction(message.workflowId, message.actionId, message.answer, 'user');
    else decide(message.workflowId, message.answer, 'user');
  });
  banner.onStop(() => decide(null, 'stop', 'user'));

  report({ kind: 'session_started', conversation: key, resumed: Boolean(stored[key]) });
  await poll();
}
