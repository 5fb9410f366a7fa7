// The questions BAI asks the user (may this chat act? may this action run?), as the extension's
// own pages show them: the question window (extension/question/) and the panel. Page scripts
// cannot read, rewrite, restyle or cover these pages, so the words next to Allow are the words
// BAI wrote. The chat tab's content script says what to ask; the background adds where (the
// target's origin, which the page cannot choose) and keeps the only list of open questions.

/** Questions ignore clicks for this long after they appear or change, so a click meant for
 * something else cannot answer a question that just popped up. */
export const ANSWER_DELAY_MS = 600;

/** The fields a question is shown with, in a fixed order: its fingerprint covers exactly these. */
const SHOWN_FIELDS = [
  'id', 'kind', 'chatOrigin', 'origin', 'pageTitle', 'workflowId', 'protocol', 'heldActions',
  'actionId', 'actionType', 'selector', 'detail', 'target', 'targetName', 'reasons', 'claim',
];

/** Reasons the rule "Always allow" makes waives (crate::policy::rules::allow_waives); for any
 * other reason (a password field, a target nobody could check or describe, a risky address
 * behind a control's name) BAI would ask again, so "Always allow" is not offered. */
const WAIVABLE_REASONS = new Set(['each_action_mode', 'risky_click', 'risky_navigation', 'enter_may_send', 'downloads_file']);

/**
 * The rule "Always allow this on this site" makes for `question`, or null when it offers none:
 * this action type, on a target of exactly this name (a quoted whole name: no other control
 * matches it), on the question's site. Made from the question as shown; the background makes
 * it again from its own copy before storing it.
 */
export function alwaysAllowRule(question) {
  if (question?.kind !== 'action' || !question.actionType || !/^https?:\/\//.test(question.origin ?? '')) return null;
  const reasons = question.reasons ?? [];
  if (!reasons.length || !reasons.every((reason) => WAIVABLE_REASONS.has(reason.code))) return null;
  // A risky name inside the target (an icon-only "Delete" in a toolbar), or a download link
  // around it, is not the target's own name: a rule for the target's name would not cover it.
  if (reasons.some((reason) => (reason.code === 'risky_click' || reason.code === 'downloads_file') && reason.name?.trim() !== String(question.targetName ?? '').trim())) return null;
  // `|` and `"` are the pattern's own syntax; as word separators they change no word.
  const name = String(question.targetName ?? '').replace(/[|"]/g, ' ').replace(/\s+/g, ' ').trim();
  if (!/[\p{L}\p{N}]/u.test(name)) return null;
  return { site: question.origin, actions: [question.actionType], name: `"${name}"`, verdict: 'allow', expires_at_ms: null };
}

/** "Denied in 1:52 if you do not answer", from the question's deadline. */
export function timeLeftText(question, now = Date.now()) {
  if (!Number.isFinite(question?.expiresAt)) return '';
  const seconds = Math.max(0, Math.ceil((question.expiresAt - now) / 1000));
  const clock = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  return `BAI denies this in ${clock} if you do not answer.`;
}

/** A short hex digest of what a question shows. The page that shows a question sends the
 * digest of what it rendered with the answer; the background counts the answer only when it
 * is the digest of the question still waiting. */
export async function questionFingerprint(question) {
  const shown = SHOWN_FIELDS.map((field) => [field, question[field] ?? null]);
  const bytes = new TextEncoder().encode(JSON.stringify(shown));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest.slice(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** `workflow` or `workflow:action`: what the in-page banner and the tests call the question. */
export function questionKey(question) {
  return question.kind === 'action' ? `${question.workflowId}:${question.actionId}` : question.workflowId;
}

function describeSelector(selector) {
  if (!selector) return '';
  if (typeof selector === 'string') return `css ${selector}`;
  return `${selector.type} “${selector.value}”${selector.name ? ` name “${selector.name}”` : ''}`;
}

/**
 * The question as lines of `{ text, tone }`, the target's origin first: the page's title is
 * chosen by the page, so it comes after the origin, quoted and labelled as the page's words.
 */
export function questionLines(question) {
  const title = question.pageTitle ? `page title “${question.pageTitle}”` : 'no page title';
  if (question.kind === 'handshake') {
    const lines = [
      { text: `ChatGPT (${question.chatOrigin}) asks to control`, tone: 'lead' },
      { text: question.origin ?? 'this chat tab', tone: 'origin' },
      { text: title, tone: 'page' },
      { text: `Workflow ${question.workflowId} (${question.protocol}).`, tone: 'detail' },
    ];
    if (question.heldActions > 0) {
      const n = question.heldActions;
      lines.push({ text: `${n} action${n === 1 ? '' : 's'} it already wrote will run as soon as you allow.`, tone: 'warn' });
    }
    return lines;
  }
  const what = [question.actionType, describeSelector(question.selector), question.detail].filter(Boolean).join(' ');
  const because = (question.reasons ?? []).map((why) => why.message ?? why.code).join('; ');
  const lines = [
    { text: 'On', tone: 'lead' },
    { text: question.origin ?? 'this chat tab', tone: 'origin' },
    { text: title, tone: 'page' },
    { text: `Action ${question.actionId} (${what}) needs your approval because ${because}.`, tone: 'main' },
  ];
  if (question.target) lines.push({ text: `It acts on: ${question.target}`, tone: 'detail' });
  // The model's own words for why it wants this: its claim, not a fact.
  if (question.claim) lines.push({ text: `ChatGPT says: “${question.claim}”`, tone: 'claim' });
  return lines;
}

/** Renders `question` into `container` (text only: nothing from a page becomes markup). */
export function renderQuestion(container, question) {
  container.replaceChildren(...questionLines(question).map(({ text, tone }) => {
    const line = document.createElement('p');
    line.className = `q-${tone}`;
    line.textContent = text;
    return line;
  }));
}

/**
 * Arms Allow and Deny for `question`: they answer only after ANSWER_DELAY_MS, only for real
 * clicks (`isTrusted`) while the page is visible, and only with the fingerprint of what is
 * shown. `send(answer, fingerprint)` is called at most once per question.
 */
export function armAnswers({ allow, deny, always, question, fingerprint, send, onArmed }) {
  const shownAt = performance.now();
  let answered = false;
  // "Always allow this on this site", only where the question offers a rule.
  const rule = alwaysAllowRule(question);
  const buttons = [allow, deny, ...(always && rule ? [always] : [])];
  if (always) {
    always.hidden = !rule;
    always.textContent = rule ? `Always allow ${rule.actions[0]} on “${rule.name.slice(1, -1)}” on this site` : '';
  }
  const handler = (answer) => (event) => {
    if (answered || !event.isTrusted || performance.now() < shownAt + ANSWER_DELAY_MS) return;
    if (document.visibilityState !== 'visible') return;
    answered = true;
    for (const button of buttons) button.disabled = true;
    send(answer, fingerprint);
  };
  allow.onclick = handler('allow');
  deny.onclick = handler('deny');
  if (always) always.onclick = rule ? handler('always_allow') : null;
  for (const button of buttons) button.disabled = true;
  const timer = setTimeout(() => {
    for (const button of buttons) button.disabled = false;
    onArmed?.(question);
  }, ANSWER_DELAY_MS);
  return () => clearTimeout(timer);
}
