// The user's settings, in extension storage (shared by the panel and the content scripts).

import { ext } from './browser.js';

export const SETTINGS_KEY = 'bai:settings';

export const DEFAULT_SETTINGS = Object.freeze({
  /** 'each_action' | 'once_per_workflow' | 'auto' (see crate/src/policy). */
  approvalMode: 'once_per_workflow',
  /** Insert BAI's lines into the composer without sending them. */
  insertOnly: false,
  /** Words that make a click risky; null means the built-in list. */
  riskyWords: null,
  /** Days a conversation's saved state is kept after it was last used (then deleted). */
  conversationRetentionDays: 30,
  /** Approval rules, as crate::policy::ApprovalRule reads them: { id, site, actions, name,
   * verdict: 'allow' | 'ask' | 'deny', expires_at_ms }. The Rust policy decides with them. */
  approvalRules: [],
  /** A question nobody answers in this many seconds is denied (`question_timed_out`). */
  questionTimeoutSeconds: 120,
  /** Status marks beside the BAI lines of the chat, and the pasted protocol prompt folded. */
  lineMarks: true,
  /** "Pictures of pages": the user turned on `screenshot` pictures (the browser's capture
   * permission is needed as well; see extension/panel/panel.js setupPictures). */
  pictures: false,
  /** Show a screenshot's numbered marks on the target page too. */
  showMarks: true,
});

/** The shortest question timeout the panel accepts, in seconds. */
export const MIN_QUESTION_TIMEOUT_SECONDS = 2;

/** The question timeout in milliseconds, from the settings (the default when unreadable). */
export function questionTimeoutMs(settings) {
  const seconds = Number(settings.questionTimeoutSeconds);
  const valid = Number.isFinite(seconds) && seconds >= MIN_QUESTION_TIMEOUT_SECONDS;
  return Math.round((valid ? seconds : DEFAULT_SETTINGS.questionTimeoutSeconds) * 1000);
}

// ---- Saved conversations -------------------------------------------------------------------
// Each conversation's engine state is kept in storage.local under CONVERSATION_PREFIX + its
// address (so a reload never repeats an action), with the time it was last saved under
// CONVERSATION_SAVED_AT_PREFIX + the same address. The background deletes both after
// `conversationRetentionDays`, and all of them when the user clears them in the panel. Typed
// text of actions held before the ACK never goes there (storage.session only). The state is
// saved in parts (the engine's ChatSession.save_changes): the head under CONVERSATION_PREFIX +
// address, and the slices of its growing lists under CONVERSATION_PART_PREFIX + address + '#' +
// part name, so each save writes what changed, not the whole state.

export const CONVERSATION_PREFIX = 'bai:conv:';
export const CONVERSATION_SAVED_AT_PREFIX = 'bai:conv-at:';
export const CONVERSATION_PART_PREFIX = 'bai:conv-part:';

/** The storage key of part `name` of the conversation saved under `key`. */
export const conversationPartKey = (key, name) => `${CONVERSATION_PART_PREFIX}${key.slice(CONVERSATION_PREFIX.length)}#${name}`;

/** The names of the parts a saved head refers to (none if it is unreadable). */
export function savedPartNames(head) {
  try {
    const names = JSON.parse(head)?.parts;
    return Array.isArray(names) ? names : [];
  } catch {
    return [];
  }
}

/** The parts a saved head refers to, as `{name: json}` (JSON text), or undefined. */
export async function loadConversationParts(key, head) {
  const names = savedPartNames(head);
  if (!names.length) return undefined;
  const stored = await ext.storage.local.get(names.map((name) => conversationPartKey(key, name)));
  const parts = {};
  for (const name of names) {
    const json = stored[conversationPartKey(key, name)];
    if (typeof json === 'string') parts[name] = json;
  }
  return JSON.stringify(parts);
}

export async function loadSettings() {
  const stored = (await ext.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] ?? {};
  return { ...DEFAULT_SETTINGS, ...stored };
}

/**
 * One change to the stored settings: `{ set, value }` (a setting of DEFAULT_SETTINGS other than
 * the rules), `{ addRule }` or `{ removeRule }` (a rule's id). The panel sends it to the
 * background (CHANGE_SETTINGS), which applies every change in turn with [applySettingsChange]:
 * a read-then-write in the panel could be dropped when the panel closes between the two, and
 * two writers (the panel, the question window's "Always allow") could each drop the other's.
 * @typedef {{ set: string, value: unknown } | { addRule: object } | { removeRule: string }} SettingsChange
 */

/** Why `change` cannot be applied (a typed failure), or null. */
export function settingsChangeError(change) {
  if (change && typeof change.set === 'string') {
    if (!Object.hasOwn(DEFAULT_SETTINGS, change.set) || change.set === 'approvalRules') {
      return { code: 'unknown_setting', message: `BAI has no setting named ${JSON.stringify(change.set)}; nothing was saved.` };
    }
    return null;
  }
  if (change && change.addRule && typeof change.addRule === 'object') return null;
  if (change && typeof change.removeRule === 'string') return null;
  return { code: 'bad_settings_change', message: 'The settings change was not understood; nothing was saved.' };
}

/**
 * Applies `change` to the stored settings and answers the rule it added, if any. Only the
 * background calls it, one change at a time (background.js `changeSettings`).
 * @param {SettingsChange} change
 */
export async function applySettingsChange(change) {
  const current = (await ext.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] ?? {};
  const rules = Array.isArray(current.approvalRules) ? current.approvalRules : [];
  if ('set' in change) {
    await ext.storage.local.set({ [SETTINGS_KEY]: { ...current, [change.set]: change.value } });
    return {};
  }
  if ('addRule' in change) {
    const added = { id: crypto.randomUUID(), expires_at_ms: null, name: '', ...change.addRule };
    await ext.storage.local.set({ [SETTINGS_KEY]: { ...current, approvalRules: [...rules, added] } });
    return { rule: added };
  }
  await ext.storage.local.set({ [SETTINGS_KEY]: { ...current, approvalRules: rules.filter((rule) => rule.id !== change.removeRule) } });
  return {};
}

/**
 * The settings as the Rust policy reads them (crate::policy::PolicySettings). A review also
 * passes `site` (the origin the action acts on) and `nowMs`: the approval rules of that site
 * apply, and only until they expire.
 * @param {any} settings
 * @param {{ site?: string, nowMs?: number }} [context]
 */
export function policySettingsJson(settings, { site, nowMs } = {}) {
  const policy = { approval_mode: settings.approvalMode };
  if (Array.isArray(settings.riskyWords)) policy.risky_words = settings.riskyWords;
  if (Array.isArray(settings.approvalRules)) policy.rules = settings.approvalRules;
  if (typeof site === 'string') policy.site = site;
  if (Number.isFinite(nowMs)) policy.now_ms = Math.floor(nowMs);
  return JSON.stringify(policy);
}

/** A rule in words, as the panel lists it (the Rust policy names it the same way in questions
 * and refusals: crate::policy::ApprovalRule::describe). */
export function describeRule(rule) {
  const verb = { allow: 'Allow', ask: 'Ask for', deny: 'Deny' }[rule.verdict] ?? rule.verdict;
  const name = String(rule.name ?? '').trim();
  const exact = /^"([^"|]*)"$/.exec(name);
  const named = !name ? '' : exact ? ` named exactly “${exact[1]}”` : ` whose name has “${name}”`;
  return `${verb} ${(rule.actions ?? []).join(', ') || 'nothing'}${named} on ${rule.site}`;
}

// ---- Sites the user allowed ----------------------------------------------------------------
// Beyond the hosts the manifest grants, BAI may touch only sites the user allowed through the
// browser's permission prompt. Each is kept here (storage.local, so content scripts can read
// it) as { pattern, origin, host, kind: 'chat' | 'target', addedAt }; `pattern` is the host
// permission (crate/src/sites.rs). The browser's grant is the truth; this list says what the
// user added each site for, and lets the background restore its content-script registrations.

export const SITES_KEY = 'bai:sites';

export async function loadSites() {
  const sites = (await ext.storage.local.get(SITES_KEY))[SITES_KEY];
  return Array.isArray(sites) ? sites : [];
}

/** Whether the page at `location` is on a site the user added as a chat site. */
export async function isUserChatSite(location) {
  const pattern = `${location.protocol}//${location.hostname}/*`;
  return (await loadSites()).some((site) => site.kind === 'chat' && site.pattern === pattern);
}
