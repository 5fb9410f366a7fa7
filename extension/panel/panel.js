// The panel (Chrome side panel / Firefox sidebar; the same page). It shows what the chat tab's
// session reported, and sends the user's decisions back through the background worker. It holds
// no protocol logic: states and reasons come from the Rust engine as they are.

import init, * as core from '../pkg/background.js';
import { ext, isFirefox } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';
import { MIN_QUESTION_TIMEOUT_SECONDS, SETTINGS_KEY, SITES_KEY, describeRule, loadSettings, loadSites } from '../shared/settings.js';
import { armAnswers, questionFingerprint, renderQuestion, timeLeftText } from '../shared/questions.js';

// Elements of this page's own markup, looked up by id: the markup declares them, so they are
// typed `any` rather than cast at every use.
/** @type {(id: string) => any} */
const $ = (id) => document.getElementById(id);

const STATE_WORDS = {
  awaiting_extension_ack: 'waiting for your answer',
  active: 'running',
  done: 'finished',
  failed: 'stopped: an action line was invalid',
  superseded: 'replaced by a newer workflow',
  stopped: 'stopped by you',
  denied: 'refused by you',
};

/** Who refused, in words. */
const BY_WORDS = { user: 'by you', timeout: 'nobody answered in time', policy: 'by your settings' };

function show(id, text, tone) {
  const el = $(id);
  el.textContent = text;
  el.className = tone ?? '';
}

/**
 * Sends one settings change to the background, which applies changes one at a time (a
 * read-then-write here could be lost when the panel closes between the two). Answers the reply;
 * a refusal is shown under the settings.
 * @param {import('../shared/settings.js').SettingsChange} change
 */
async function changeSettings(change) {
  const reply = await ext.runtime.sendMessage({ type: Msg.CHANGE_SETTINGS, change })
    .catch((error) => /** @type {{ rule?: any, error?: { message: string } }} */ ({ error: { message: String(error) } }));
  $('settings-status').textContent = reply?.error ? `Not saved: ${reply.error.message}` : '';
  return reply ?? {};
}

const saveSetting = (/** @type {string} */ name, /** @type {unknown} */ value) => changeSettings({ set: name, value });

function describeSelector(selector) {
  if (!selector) return '';
  if (typeof selector === 'string') return `css ${selector}`;
  return `${selector.type} “${selector.value}”${selector.name ? ` name “${selector.name}”` : ''}`;
}

async function activeTabId() {
  // ?tab=N lets a tab-hosted panel (and the tests) say which tab it describes.
  const query = new URLSearchParams(location.search);
  if (query.get('tab')) return Number(query.get('tab'));
  if (query.get('tabUrl')) {
    const tabs = await ext.tabs.query({});
    return tabs.find((tab) => tab.url === query.get('tabUrl'))?.id;
  }
  const [tab] = await ext.tabs.query({ active: true, lastFocusedWindow: true });
  return tab?.id;
}

/** One log entry as { what, why, tone }, or null for entries not shown. */
function describeEvent(event) {
  const wf = event.workflow_id ? ` ${event.workflow_id}` : '';
  switch (event.kind) {
    case 'session_started':
      return { what: event.resumed ? 'Resumed this conversation after a reload' : 'Watching this conversation', tone: 'ok' };
    case 'handshake_found':
      return { what: `ChatGPT asks to start workflow${wf}`, why: event.protocol, tone: 'warn' };
    case 'approved':
      return { what: `Allowed workflow${wf}`, why: event.by === 'policy' ? 'by your setting “allow without asking”' : 'by you', tone: 'ok' };
    case 'denied':
      return { what: `Refused workflow${wf}`, why: BY_WORDS[event.by] ?? 'by you', tone: 'warn' };
    case 'rule_added':
      return { what: `Added the rule: ${describeRule(event.rule ?? {})}`, why: 'by you (“Always allow this on this site”)', tone: 'info' };
    case 'stopped':
      return { what: `Stopped workflow${wf}`, why: 'by you', tone: 'warn' };
    case 'ack_posted':
      return { what: 'Posted the acknowledgement in the chat', why: event.outcome === 'inserted' ? 'inserted; press Enter in ChatGPT to send it' : undefined, tone: 'ok' };
    case 'ack_failed':
      return { what: 'Could not post the acknowledgement', why: `${event.code}: ${event.message}`, tone: 'err' };
    case 'executed':
      if (event.type === 'done') {
        const done = event.result?.done ?? {};
        return { what: `Action ${event.action_id}: done (${done.success ? 'success' : 'not successful'})`, why: done.summary, tone: done.success ? 'ok' : 'warn' };
      }
      return {
        what: `Action ${event.action_id}: ${event.type} ${describeSelector(event.selector)}${event.detail ? ` ${event.detail}` : ''}`.trim(),
        why: [
          event.reason ? `“${event.reason}”` : '',
          (event.result?.effects ?? []).map((e) => e.kind.replaceAll('_', ' ')).join(', ') || 'done',
          event.result?.allowed_by_rule ? `allowed without asking by your rule “${event.result.allowed_by_rule.rule}”` : '',
        ].filter(Boolean).join(' — '),
        tone: 'ok',
      };
    case 'failed':
      return {
        what: `Action ${event.action_id}: ${event.type} ${describeSelector(event.selector)} failed${event.attempt ? ` (retry ${event.attempt})` : ''}`,
        why: `${event.error?.code}: ${event.error?.message}${event.error?.hints?.length ? ` Close matches: ${event.error.hints.join('; ')}` : ''}`,
        tone: 'err',
      };
    case 'result_posted':
      return { what: `Told ChatGPT what happened (${event.actions} action${event.actions === 1 ? '' : 's'})`, why: event.outcome === 'inserted' ? 'inserted; press Enter in ChatGPT to send it' : undefined, tone: 'ok' };
    case 'result_failed':
      return { what: 'Could not tell ChatGPT what happened', why: `${event.code}: ${event.message}`, tone: 'err' };
    case 'ignored_group':
      return {
        what: event.count === 1
          ? `Ignored a protocol line in a user message (${event.codes.join(', ')})`
          : `Ignored ${event.count} protocol lines in a user message (${event.codes.join(', ')})`,
        why: 'Lines you paste (such as the examples in the protocol text) never run; only the assistant can act, and only after BAI’s own acknowledgement.',
        tone: 'info',
      };
    case 'action_needs_approval':
      return {
        what: `Action ${event.action_id}: ${event.type} ${describeSelector(event.selector)} waits for your approval`.trim(),
        why: `${event.reason ? `ChatGPT says: “${event.reason}”. ` : ''}because ${event.reasons.map((r) => r.message ?? r.code).join('; ')}`,
        tone: 'warn',
      };
    case 'action_approved':
      return { what: `Allowed action ${event.action_id}`, why: 'by you', tone: 'ok' };
    case 'action_denied':
      return { what: `Refused action ${event.action_id}`, why: BY_WORDS[event.by] ?? 'by you', tone: 'warn' };
    case 'skipped':
      return { what: `Action ${event.action_id}: ${event.type} skipped`, why: event.why === 'stopped' ? 'the workflow was stopped' : 'an earlier action in the same message failed', tone: 'warn' };
    case 'rejected':
      return {
        what: `Refused a line${event.action_id ? ` (action ${event.action_id})` : ''}: ${event.code}`,
        why: `${event.reason}${event.excerpt ? ` — ${event.excerpt}` : ''}`,
        tone: 'err',
      };
    case 'state_changed':
      return { what: `Workflow${wf}: ${STATE_WORDS[event.state] ?? event.state}`, tone: event.state === 'failed' ? 'err' : 'ok' };
    case 'chat_layout':
      return event.messages > 0
        ? { what: `Reading this chat (layout ${event.site}): ${event.messages} message${event.messages === 1 ? '' : 's'}`, tone: 'ok' }
        : { what: `No message read yet (layout ${event.site})`, why: 'a new chat, or BAI does not recognize this page’s chat layout', tone: 'info' };
    case 'handshake_recognized':
      return {
        what: 'Took a code block for a handshake by its content',
        why: `rule ${event.rule}: the page ${event.rule === 'display_cased_label' ? 'showed the block’s label display-cased' : 'lost the block’s “bai” label'}; it holds exactly one BAI handshake object, in the assistant’s message ${event.message_index + 1}`,
        tone: 'info',
      };
    case 'session_error':
      return { what: 'BAI could not read this chat', why: `${event.code}: ${event.message}`, tone: 'err' };
    default:
      return null;
  }
}

/** The current workflow and whether it waits for an answer, from the log. */
function currentWorkflow(log) {
  let current = null;
  for (const event of log) {
    if (event.kind === 'handshake_found') current = { id: event.workflow_id, protocol: event.protocol, target: event.target, state: 'awaiting_extension_ack', asking: true };
    if (!current || event.workflow_id !== current.id) continue;
    if (event.kind === 'state_changed') current.state = event.state;
    if (['approved', 'denied', 'stopped'].includes(event.kind)) current.asking = false;
    if (event.kind === 'state_changed' && event.state !== 'awaiting_extension_ack') current.asking = false;
  }
  return current;
}

let tabId;
/** The tab this panel describes ({ id, url, title }), kept fresh so a click can use it at once. */
let currentTab = null;
let refreshGeneration = 0;
/** The refresh in flight, if any, and whether another was asked for meanwhile. */
let refreshRunning = null;
let refreshAgain = false;

/**
 * Shows the tab's status now, or once more when the refresh in flight ends. An action sends a
 * burst of status changes (one per event it logs); each used to start its own refresh (three
 * messages to the background, the log rendered), and in Firefox the panel shares one thread with
 * the background, so that work sat in the action's path. Now a burst costs two refreshes, the
 * last one reading the newest state.
 */
function refresh() {
  if (refreshRunning) {
    refreshAgain = true;
    return refreshRunning;
  }
  refreshRunning = (async () => {
    try {
      do {
        refreshAgain = false;
        await refreshOnce();
      } while (refreshAgain);
    } finally {
      refreshRunning = null;
    }
  })();
  return refreshRunning;
}

async function refreshOnce() {
  // Kept although refreshes no longer overlap: an older, slower answer must never paint a stale
  // log over a fresh one.
  const generation = ++refreshGeneration;
  const id = await activeTabId();
  const [status, { log = [] } = {}, { questions = [] } = {}] = await Promise.all([
    ext.runtime.sendMessage({ type: Msg.TAB_STATUS, tabId: id }),
    ext.runtime.sendMessage({ type: Msg.TAB_LOG, tabId: id }),
    // Every open question, this tab's first: the panel is the user's own surface wherever the
    // question comes from.
    ext.runtime.sendMessage({ type: Msg.PENDING_QUESTIONS }),
  ]);
  const tab = id === undefined ? null : await ext.tabs.get(id).catch(() => null);
  if (generation !== refreshGeneration) return;
  tabId = id;
  currentTab = tab && { id: tab.id, url: tab.url, title: tab.title };
  renderDiagnostics(status, log);
  renderWorkflow(currentWorkflow(log));
  await renderQuestionOf(questions.find((q) => q.tabId === id) ?? questions[0] ?? null);
  renderLog(log);
  lastLog = log;
  document.body.dataset.ready = '1';
}

/** The log as it was last shown, for "Export log". */
let lastLog = [];

/**
 * The audit log as JSON: every event of this tab (asked, allowed or refused and by whom,
 * executed, failed, rejected, results posted), oldest first, with ISO times. Events never hold
 * typed text or password values: the chat tab leaves them out before logging.
 */
function auditJson(log, settings) {
  return JSON.stringify({
    format: 'bai-audit-log/1',
    exported_at: new Date().toISOString(),
    extension_version: ext.runtime.getManifest().version,
    tab: currentTab && { url: currentTab.url, title: currentTab.title },
    // The rules in force when exported; each decision they made is an event below
    // (`executed` with `result.allowed_by_rule`, `failed` with `denied_by_rule`, `rule_added`).
    approval_rules: (settings.approvalRules ?? []).map((rule) => ({
      ...rule,
      description: describeRule(rule),
      expires_at: rule.expires_at_ms ? new Date(rule.expires_at_ms).toISOString() : null,
    })),
    question_timeout_seconds: settings.questionTimeoutSeconds,
    events: log.map((event) => ({ ...event, at: new Date(event.at).toISOString() })),
  }, null, 2);
}

async function exportLog() {
  const blob = new Blob([auditJson(lastLog, await loadSettings())], { type: 'application/json' });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = `bai-audit-${new Date().toISOString().replaceAll(':', '-').slice(0, 19)}.json`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

function renderWorkflow(workflow) {
  if (!workflow) {
    show('wf-state', 'no workflow yet');
    show('wf-id', '—');
    show('wf-protocol', '—');
    $('stop').hidden = true;
    delete document.body.dataset.workflowState;
    return;
  }
  document.body.dataset.workflowState = workflow.state;
  show('wf-state', STATE_WORDS[workflow.state] ?? workflow.state, workflow.state === 'failed' ? 'err' : 'ok');
  show('wf-id', workflow.id);
  show('wf-protocol', workflow.protocol ?? '—');
  show('wf-target', workflow.target ?? 'this chat tab');
  $('stop').hidden = !(workflow.state === 'active' || workflow.state === 'awaiting_extension_ack');
  $('stop').dataset.workflow = workflow.id;
}

// Refusals of lines in user messages are expected (the pasted protocol text has examples) and
// change nothing: one neutral entry per message instead of a red entry per line.
const USER_MESSAGE_CODES = new Set(['action_from_user', 'foreign_ack', 'foreign_result', 'handshake_in_user_message']);

function groupIgnored(log) {
  const out = [];
  for (const event of log) {
    const informational = event.kind === 'rejected' && USER_MESSAGE_CODES.has(event.code);
    const last = out[out.length - 1];
    if (informational && last?.kind === 'ignored_group' && last.message_index === event.message_index) {
      last.count += 1;
      if (!last.codes.includes(event.code)) last.codes.push(event.code);
    } else if (informational) {
      out.push({ kind: 'ignored_group', message_index: event.message_index, count: 1, codes: [event.code] });
    } else {
      out.push(event);
    }
  }
  return out;
}

/** The question shown now (from the background's list of open questions, never from the log
 * or the page), and how to take its buttons back. */
let shownQuestion = null;
let disarmQuestion = () => {};

async function renderQuestionOf(question) {
  if (question?.id === shownQuestion?.id) return;
  disarmQuestion();
  shownQuestion = question;
  const box = $('question');
  delete box.dataset.questionReady;
  if (!question) {
    box.hidden = true;
    delete box.dataset.workflow;
    delete box.dataset.action;
    return;
  }
  const fingerprint = await questionFingerprint(question);
  if (shownQuestion !== question) return;
  renderQuestion($('question-text'), question);
  box.dataset.workflow = question.workflowId;
  if (question.kind === 'action') box.dataset.action = String(question.actionId);
  else delete box.dataset.action;
  box.hidden = false;
  $('time-left').textContent = timeLeftText(question);
  disarmQuestion = armAnswers({
    allow: $('allow'),
    deny: $('deny'),
    always: $('always'),
    question,
    fingerprint,
    onArmed: () => { box.dataset.questionReady = '1'; },
    send: (answer, digest) => ext.runtime.sendMessage({ type: Msg.ANSWER_QUESTION, questionId: question.id, fingerprint: digest, answer }),
  });
}

function renderLog(log) {
  // Newest first: what just happened is what the user looks for.
  const items = groupIgnored(log).map(describeEvent).filter(Boolean).reverse();
  $('log-empty').hidden = items.length > 0;
  $('log').replaceChildren(...items.map(({ what, why, tone }) => {
    const li = document.createElement('li');
    li.dataset.tone = tone ?? '';
    const strong = document.createElement('span');
    strong.className = 'what';
    strong.textContent = what;
    li.append(strong);
    if (why) {
      const detail = document.createElement('span');
      detail.className = 'why';
      detail.textContent = why;
      li.append(detail);
    }
    return li;
  }));
}

function renderDiagnostics(status, log = []) {
  const bg = status?.background;
  show('core-background', bg?.version ? `ready (${bg.version})` : `failed: ${bg?.error ?? 'no answer'}`, bg?.version ? 'ok' : 'err');
  const tab = status?.tab;
  if (!tab) {
    show('core-tab', 'not running in this tab', 'warn');
    show('chat-site', '—');
    return;
  }
  if (tab.startError) {
    const why = tab.startError.code === 'wasm_blocked_by_csp'
      ? "this page's security policy blocks WebAssembly in extensions"
      : tab.startError.message;
    show('core-tab', `failed (${tab.startError.code}): ${why}`, 'err');
    $('core-tab').dataset.code = tab.startError.code;
  } else {
    // 'js': the page's CSP forbids WebAssembly, so the core runs from its JavaScript build.
    const build = tab.coreFlavor === 'js' ? ", JavaScript build: this page's security policy blocks WebAssembly" : '';
    // Which role's module the page loaded: 'chat' on a chat page, 'exec' (the executor) elsewhere.
    const role = tab.coreRole === 'exec' ? ', executor' : tab.coreRole === 'chat' ? ', chat' : '';
    show('core-tab', `ready (${tab.contentCore}${build}${role}) in ${tab.startMs.toFixed(1)} ms`, 'ok');
    $('core-tab').dataset.code = 'ready';
    $('core-tab').dataset.flavor = tab.coreFlavor ?? '';
    $('core-tab').dataset.role = tab.coreRole ?? '';
  }
  if (tab.startError) {
    show('chat-site', 'unknown: the core could not start on this page', 'warn');
  } else if (tab.chat?.site || tab.chat?.layout === 'unrecognized') {
    // The layout as the chat session last reported it since this page started (a new chat, or
    // a page that rendered its chat late, shows it with its first messages), else as the page
    // started.
    const latest = [...log].reverse().find((event) => event.kind === 'chat_layout' && event.at >= (tab.at ?? 0));
    if (!latest && tab.chat.layout === 'unrecognized') {
      show('chat-site', `BAI does not recognize this page's chat layout${tab.chat.site_name ? ` (${tab.chat.site_name})` : ''}`, 'warn');
    } else {
      const site = latest?.site ?? tab.chat.site;
      const messages = latest ? latest.messages : tab.chat.messages;
      show('chat-site', messages > 0
        ? `${site}: transcript readable`
        : `${site}: no message read yet (a new chat, or BAI does not recognize this page's chat layout)`, messages > 0 ? 'ok' : 'warn');
    }
  } else {
    show('chat-site', 'not a chat page');
  }
}

/** Stop: the chat tab stops every workflow of its conversation, and the background ends what
 * the workflow has in flight on its target tab. */
async function sendStop(workflowId) {
  await Promise.all([
    ext.runtime.sendMessage({ type: Msg.USER_DECISION, tabId, workflowId, answer: 'stop' }),
    ext.runtime.sendMessage({ type: Msg.STOP_WORKFLOW, workflowId }),
  ]);
}

/** The permission the browsers' capture APIs need (see extension/background/vision.js). */
const PICTURE_PERMISSION = { origins: ['<all_urls>'] };

/** "Pictures of pages": asks the browser for the capture permission only when the user turns
 * pictures on (in this click). Turning them off is BAI's own setting, which the background checks
 * before every picture. Firefox also gets the permission back; Chromium does not, because taking
 * back `<all_urls>` there also withholds every other site BAI holds (the sites the user added and
 * the chat sites), so BAI would stop working everywhere; the user can take it back on
 * chrome://extensions. */
async function setupPictures() {
  const box = $('set-pictures');
  const status = $('pictures-status');
  const settings = await loadSettings();
  box.checked = Boolean(settings.pictures) && await ext.permissions.contains(PICTURE_PERMISSION);
  box.addEventListener('change', async () => {
    if (box.checked) {
      const granted = await ext.permissions.request(PICTURE_PERMISSION).catch(() => false);
      box.checked = granted;
      await saveSetting('pictures', granted);
      status.textContent = granted ? 'Pictures are on. BAI asks before each picture unless a rule allows screenshot on the site.' : 'The browser did not allow it; pictures stay off.';
    } else {
      await saveSetting('pictures', false);
      if (isFirefox) await ext.permissions.remove(PICTURE_PERMISSION).catch(() => false);
      status.textContent = isFirefox
        ? 'Pictures are off, and the browser permission is given back.'
        : 'Pictures are off: BAI takes none. Chromium keeps the browser permission (giving it back would also take back the other sites BAI works on); remove it on chrome://extensions if you wish.';
    }
    document.body.dataset.pictures = box.checked ? 'on' : 'off';
  });
  document.body.dataset.pictures = box.checked ? 'on' : 'off';
}

async function setupSettings() {
  const settings = await loadSettings();
  const defaults = JSON.parse(core.default_policy_settings());
  const mode = $('set-approval-mode');
  mode.value = settings.approvalMode;
  mode.addEventListener('change', () => saveSetting('approvalMode', mode.value));
  const words = $('set-risky-words');
  words.value = (settings.riskyWords ?? defaults.risky_words).join('\n');
  words.addEventListener('change', () => {
    const list = words.value.split('\n').map((w) => w.trim()).filter(Boolean);
    saveSetting('riskyWords', list);
  });
  const insertOnly = $('set-insert-only');
  insertOnly.checked = Boolean(settings.insertOnly);
  insertOnly.addEventListener('change', () => saveSetting('insertOnly', insertOnly.checked));
  const lineMarks = $('set-line-marks');
  lineMarks.checked = settings.lineMarks !== false;
  lineMarks.addEventListener('change', () => saveSetting('lineMarks', lineMarks.checked));
  setupPictures();
  const showMarks = $('set-show-marks');
  showMarks.checked = settings.showMarks !== false;
  showMarks.addEventListener('change', () => saveSetting('showMarks', showMarks.checked));
  const retention = $('set-retention-days');
  retention.value = String(settings.conversationRetentionDays);
  retention.addEventListener('change', () => {
    const days = Math.round(Number(retention.value));
    if (Number.isFinite(days) && days >= 1) saveSetting('conversationRetentionDays', Math.min(days, 3650));
    else retention.value = String(settings.conversationRetentionDays);
  });
  const timeout = $('set-question-timeout');
  timeout.value = String(settings.questionTimeoutSeconds);
  timeout.addEventListener('change', () => {
    const seconds = Math.round(Number(timeout.value));
    if (Number.isFinite(seconds) && seconds >= MIN_QUESTION_TIMEOUT_SECONDS) saveSetting('questionTimeoutSeconds', Math.min(seconds, 3600));
    else timeout.value = String(settings.questionTimeoutSeconds);
  });
  $('add-rule').addEventListener('click', addRule);
  $('clear-conversations').addEventListener('click', async () => {
    const reply = await ext.runtime.sendMessage({ type: Msg.CLEAR_CONVERSATIONS }).catch((error) => /** @type {import('../shared/messages.js').ReplyOf<import('../shared/messages.js').ClearConversationsMsg>} */ ({ error: { message: String(error) } }));
    $('clear-status').textContent = reply?.error
      ? `Not cleared: ${reply.error.message}`
      : `Cleared ${reply.removed} saved conversation${reply.removed === 1 ? '' : 's'}. A conversation still open in a tab saves its state again when it next changes; a cleared conversation opened later runs none of its old actions.`;
  });
}

/** The site of an address (crate/src/sites.rs): `{ site }` or `{ error: { code, message } }`. */
function siteOf(address) {
  try {
    return { site: JSON.parse(core.site_for_address(address)) };
  } catch (error) {
    return { error: { code: error?.code ?? 'invalid_site', message: error?.message ?? String(error) } };
  }
}

/**
 * Asks the browser for access to `site` when BAI does not have it built in. Browsers show the
 * permission prompt only from inside the user's click, so this must run before the handler's
 * first await. Resolves to true (granted now or earlier), false (refused) or an error.
 */
function askForSite(site) {
  if (site.built_in) return Promise.resolve(true);
  try {
    return ext.permissions.request({ origins: [site.pattern] });
  } catch (error) {
    return Promise.reject(error);
  }
}

/** After the user answered the prompt: the panel's words for a refusal or a failure, or null. */
async function settleGrant(site, asked, kind) {
  let granted;
  try {
    granted = await asked;
  } catch (error) {
    return { code: 'site_permission_failed', message: `The browser could not ask for access to ${site.host} (${error?.message ?? error}).` };
  }
  if (!granted) {
    return { code: 'site_permission_refused', message: `you did not allow BAI to access ${site.host}, so BAI will not act there. Click again to be asked again.` };
  }
  if (site.built_in) return null;
  const added = await ext.runtime.sendMessage({ type: Msg.GRANT_SITE, address: site.origin, kind });
  return added?.error ?? null;
}

function copyPrompt() {
  // Everything up to the permission request is synchronous (see askForSite).
  const tab = currentTab;
  const parsed = tab?.url ? siteOf(tab.url) : null;
  if (parsed?.error) {
    notCopied(parsed.error);
    return;
  }
  const asked = parsed ? askForSite(parsed.site) : null;
  finishCopy(tab, parsed?.site ?? null, asked);
}

function notCopied(error) {
  $('copy-status').textContent = `Not copied: ${error.message}`;
  $('copy-status').dataset.code = error.code ?? '';
}

async function finishCopy(tab, site, asked) {
  delete $('copy-status').dataset.code;
  if (asked) {
    const refused = await settleGrant(site, asked, 'target');
    if (refused) {
      notCopied(refused);
      return;
    }
  }
  const workflowId = crypto.randomUUID();
  const text = core.protocol_prompt(workflowId);
  // The prompt's workflow id is bound to the tab this panel describes: the page the user wants
  // the model to act on. A handshake with this id then needs no target question.
  const bound = await ext.runtime.sendMessage({ type: Msg.BIND_TARGET, workflowId, tabId: tab?.id ?? (await activeTabId()) });
  if (bound?.error) {
    notCopied(bound.error);
    return;
  }
  document.body.dataset.lastPromptWorkflow = workflowId;
  $('prompt-target').textContent = `Target of the next workflow: ${bound.binding.title} (${bound.binding.origin})`;
  try {
    await navigator.clipboard.writeText(text);
    $('copy-status').textContent = 'Copied. Paste it into ChatGPT and send it.';
  } catch {
    $('copy-status').textContent = 'Could not use the clipboard; select and copy the text from the box below.';
    const area = document.createElement('textarea');
    area.value = text;
    area.rows = 6;
    area.style.width = '100%';
    $('copy-status').after(area);
    area.select();
  }
}

// ---- Settings › Sites ------------------------------------------------------------------------

async function renderSites() {
  const sites = await loadSites();
  $('sites-empty').hidden = sites.length > 0;
  $('sites').replaceChildren(...sites.map((site) => {
    const li = document.createElement('li');
    li.dataset.pattern = site.pattern;
    li.dataset.kind = site.kind;
    const name = document.createElement('span');
    name.className = 'site-origin';
    // The grant covers the host on every port (match patterns have none): show what is granted.
    name.textContent = site.pattern.replace(/\/\*$/, '');
    name.title = `added from ${site.origin}`;
    const kind = document.createElement('span');
    kind.className = 'site-kind';
    kind.textContent = site.kind === 'chat' ? 'chat site' : 'target site';
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.textContent = 'Remove';
    remove.setAttribute('aria-label', `Remove ${site.host}`);
    remove.addEventListener('click', async () => {
      remove.disabled = true;
      await ext.runtime.sendMessage({ type: Msg.REMOVE_SITE, pattern: site.pattern });
      $('sites-status').textContent = `Removed ${site.host}: BAI can no longer read or change its pages.`;
    });
    li.append(name, kind, remove);
    return li;
  }));
}

/** The public chat sites BAI reads but has no access to by default (crate/src/sites.rs), each
 * with a one-click "Turn on" (the browser asks) or, once on, its place in the list above. */
async function renderOptionalChatSites() {
  const sites = await loadSites();
  const offered = JSON.parse(core.optional_chat_sites());
  $('optional-chat-sites').replaceChildren(...offered.map((entry) => {
    const parsed = siteOf(entry.origin).site;
    const li = document.createElement('li');
    li.dataset.pattern = parsed.pattern;
    const name = document.createElement('span');
    name.className = 'site-origin';
    name.textContent = `${entry.name} (${parsed.host})`;
    li.append(name);
    if (sites.some((site) => site.pattern === parsed.pattern && site.kind === 'chat')) {
      const on = document.createElement('span');
      on.className = 'site-kind';
      on.textContent = 'on (remove it above)';
      li.dataset.on = '1';
      li.append(on);
      return li;
    }
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'Turn on';
    button.setAttribute('aria-label', `Turn on ${entry.name}`);
    button.addEventListener('click', () => {
      // Synchronous up to the permission request (see askForSite).
      const asked = askForSite(parsed);
      settleGrant(parsed, asked, 'chat').then((refused) => {
        $('sites-status').textContent = refused
          ? `${entry.name} stays off: ${refused.message}`
          : `${entry.name} is on. Reload its open pages if BAI's badge does not appear there.`;
      });
    });
    li.append(button);
    return li;
  }));
}

function addChatSite() {
  // Synchronous up to the permission request (see askForSite).
  const input = $('add-chat-site');
  const parsed = siteOf(input.value);
  const status = $('sites-status');
  if (parsed.error) {
    status.textContent = parsed.error.message;
    return;
  }
  if (parsed.site.built_in) {
    status.textContent = `${parsed.site.host} is always available to BAI; nothing to add.`;
    return;
  }
  const asked = askForSite(parsed.site);
  settleGrant(parsed.site, asked, 'chat').then((refused) => {
    if (refused) {
      status.textContent = `Not added: ${refused.message}`;
      return;
    }
    input.value = '';
    status.textContent = `Added ${parsed.site.origin} as a chat site. Reload its open pages if BAI's badge does not appear there.`;
  });
}

// ---- Approval rules ------------------------------------------------------------------------
// The panel only writes the rules the user made and lists them; the Rust policy decides with
// them (crate/src/policy/rules.rs).

const ACTION_TYPES = new Set(['click', 'input_text', 'scroll', 'select_option', 'check', 'uncheck', 'press_key', 'hover', 'navigate', 'open_tab', 'wait', 'observe', 'wait_for', 'extract', 'assert', 'screenshot']);

async function renderRules() {
  const { approvalRules: rules = [] } = await loadSettings();
  const now = Date.now();
  $('rules-empty').hidden = rules.length > 0;
  $('rules').replaceChildren(...rules.map((rule) => {
    const li = document.createElement('li');
    li.dataset.rule = rule.id;
    const expired = Number.isFinite(rule.expires_at_ms) && rule.expires_at_ms <= now;
    if (expired) li.dataset.expired = '1';
    const text = document.createElement('span');
    text.className = 'rule-text';
    const until = Number.isFinite(rule.expires_at_ms) ? ` — ${expired ? 'expired' : 'until'} ${new Date(rule.expires_at_ms).toLocaleString()}` : '';
    text.textContent = `${describeRule(rule)}${until}`;
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.textContent = 'Remove';
    remove.setAttribute('aria-label', `Remove the rule: ${describeRule(rule)}`);
    remove.addEventListener('click', () => changeSettings({ removeRule: rule.id }));
    li.append(text, remove);
    return li;
  }));
  // Suggest the site of the tab the panel describes, once.
  if (!document.body.dataset.rulesShown && !$('rule-site').value && currentTab?.url) {
    const { site } = siteOf(currentTab.url);
    if (site) $('rule-site').value = site.origin;
  }
  document.body.dataset.rulesShown = '1';
}

async function addRule() {
  const status = $('rule-status');
  const actions = $('rule-actions').value.split(',').map((a) => a.trim()).filter(Boolean);
  const unknown = actions.filter((a) => !ACTION_TYPES.has(a));
  if (!actions.length || unknown.length) {
    status.textContent = unknown.length ? `Not an action BAI knows: ${unknown.join(', ')}.` : 'Name at least one action (for example: click).';
    return;
  }
  const parsed = siteOf($('rule-site').value.trim());
  if (parsed.error) {
    status.textContent = `Not a site: ${parsed.error.message}`;
    return;
  }
  const forMs = Number($('rule-expiry').value);
  const { rule, error } = await changeSettings({ addRule: {
    site: parsed.site.origin,
    actions,
    name: $('rule-name').value.trim(),
    verdict: $('rule-verdict').value,
    expires_at_ms: forMs > 0 ? Date.now() + forMs : null,
  } });
  if (!rule) {
    status.textContent = `Not added: ${error?.message ?? 'the background did not answer'}.`;
    return;
  }
  status.textContent = `Added: ${describeRule(rule)}.`;
  document.body.dataset.rulesAdded = String(Number(document.body.dataset.rulesAdded ?? 0) + 1);
}

async function main() {
  try {
    await init();
    show('core-panel', `ready (${core.version()})`, 'ok');
  } catch (error) {
    show('core-panel', `failed: ${error}`, 'err');
  }
  $('stop').addEventListener('click', () => sendStop($('stop').dataset.workflow));
  $('copy-prompt').addEventListener('click', copyPrompt);
  $('export-log').addEventListener('click', exportLog);
  await setupSettings();
  $('add-chat-site-button').addEventListener('click', addChatSite);
  ext.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && changes[SETTINGS_KEY]) renderRules();
    if (area === 'local' && changes[SITES_KEY]) {
      renderSites();
      renderOptionalChatSites();
    }
  });
  await renderSites();
  await renderOptionalChatSites().catch(() => {});
  // The time left on the question shown, and rules that expired meanwhile.
  setInterval(() => {
    $('time-left').textContent = shownQuestion ? timeLeftText(shownQuestion) : '';
    if (shownQuestion && Date.now() >= shownQuestion.expiresAt) refresh();
  }, 1000);
  setInterval(renderRules, 30_000);
  // The tab's address is needed inside the click (no await before the permission request).
  ext.tabs.onUpdated.addListener((id, change) => {
    if (id === tabId && (change.url || change.title)) refresh();
  });
  ext.runtime.onMessage.addListener((message) => {
    if (message?.type === Msg.STATUS_CHANGED && (message.tabId === undefined || tabId === undefined || message.tabId === tabId)) refresh();
    if (message?.type === Msg.QUESTIONS_CHANGED) refresh();
  });
  ext.tabs.onActivated?.addListener(() => refresh());
  await refresh();
  await renderRules();
}

main();

// Exposed for the end-to-end tests: the audit export's content, without the file download.
globalThis.baiPanel = { auditJson: async () => auditJson(lastLog, await loadSettings()) };
