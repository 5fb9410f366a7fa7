// The in-page banner on chat tabs: a small status pill that expands into questions (may this
// chat act?) and a Stop button. It lives in a shadow root so the chat page's CSS cannot restyle
// it. The root is open so assistive technology and tests can read it; every button handler
// ignores untrusted events, so the page's own scripts cannot press Allow on the user's behalf.

const STYLE = `
:host { all: initial; position: fixed; z-index: 2147483647; right: 16px; bottom: 16px; max-width: 420px;
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color-scheme: light dark; }
.card { display: flex; flex-direction: column; gap: 8px; padding: 8px 12px; border-radius: 14px;
  background: #1e3a8a; color: #fff; box-shadow: 0 2px 10px rgb(0 0 0 / 0.3); }
.card[data-tone="warn"] { background: #92400e; }
.card[data-tone="error"] { background: #991b1b; }
.row { display: flex; gap: 8px; align-items: center; }
.dot { width: 8px; height: 8px; border-radius: 50%; background: #4ade80; flex: none; }
.card[data-tone="warn"] .dot { background: #fbbf24; }
.card[data-tone="error"] .dot { background: #fca5a5; }
.question { display: none; flex-direction: column; gap: 8px; }
.question.open { display: flex; }
.note:empty { display: none; }
.note { opacity: .9; }
button { font: inherit; border-radius: 8px; padding: 4px 12px; border: 1px solid #fff; cursor: pointer;
  background: transparent; color: #fff; }
button.allow { background: #fff; color: #1e3a8a; font-weight: 600; }
button:focus-visible { outline: 3px solid #fde047; outline-offset: 2px; }
button:disabled { opacity: .55; cursor: default; }
button[hidden] { display: none; }
code { font: 12px ui-monospace, monospace; }
`;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** Questions ignore clicks and key presses for this long after they appear or change, so a
 * key press or click meant for the chat cannot answer a question that just popped up. */
const ANSWER_DELAY_MS = 600;

/** Wraps a handler so only real user input counts, and not before `notBefore()`. */
function trusted(handler, notBefore = () => 0) {
  return (event) => {
    if (!event.isTrusted || performance.now() < notBefore()) return;
    handler(event);
  };
}

export class Banner {
  static mount() {
    let host = document.querySelector('bai-banner');
    if (!host) {
      host = document.createElement('bai-banner');
      document.documentElement.append(host);
      host.attachShadow({ mode: 'open' });
    }
    return new Banner(host);
  }

  constructor(host) {
    this.host = host;
    const style = el('style');
    style.textContent = STYLE;
    this.text = el('span', { class: 'text' });
    this.stopButton = el('button', { type: 'button', class: 'stop', hidden: '' }, 'Stop');
    this.questionText = el('div', { class: 'question-text', id: 'bai-question' });
    this.allowButton = el('button', { type: 'button', class: 'allow', 'aria-describedby': 'bai-question' }, 'Allow');
    this.denyButton = el('button', { type: 'button', class: 'deny', 'aria-describedby': 'bai-question' }, 'Deny');
    this.question = el('div', { class: 'question', role: 'group', 'aria-label': 'BAI asks for permission' },
      this.questionText, el('div', { class: 'row' }, this.allowButton, this.denyButton));
    this.note = el('div', { class: 'note' });
    this.card = el('div', { class: 'card', role: 'status', 'aria-live': 'polite' },
      el('div', { class: 'row' }, el('span', { class: 'dot', 'aria-hidden': 'true' }), this.text, this.stopButton),
      this.question, this.note);
    host.shadowRoot.replaceChildren(style, this.card);
    this.activeWorkflow = null;
    this.stopHandlers = [];
    this.stopButton.addEventListener('click', trusted(() => {
      if (this.activeWorkflow) this.stopHandlers.forEach((h) => h(this.activeWorkflow));
    }));
  }

  /**
   * `layout` (crate/src/chat ChatLayout): 'messages' (a readable chat), 'composer_only' (no
   * message read yet: a new chat, or a layout BAI does not read) or 'unrecognized'.
   */
  setCoreStatus({ contentVersion, backgroundVersion, layout, siteName }) {
    const ready = contentVersion && backgroundVersion;
    this.contentVersion = contentVersion;
    this.siteName = siteName ?? 'this chat';
    this.host.dataset.coreContent = contentVersion ?? '';
    this.host.dataset.coreBackground = backgroundVersion ?? '';
    if (!ready) {
      this.host.dataset.state = 'core_error';
      this.card.dataset.tone = 'error';
      this.text.textContent = 'BAI could not start here. Open the BAI panel for details.';
      return;
    }
    this.setLayout(layout);
  }

  /** What BAI reads on this page (see setCoreStatus). */
  setLayout(layout) {
    if (this.host.dataset.state === 'core_error' || this.host.dataset.layout === layout) return;
    this.host.dataset.layout = layout;
    if (layout === 'messages') {
      this.host.dataset.state = 'ready';
      this.card.dataset.tone = 'ok';
      this.text.textContent = `BAI ${this.contentVersion} is watching this chat`;
    } else if (layout === 'composer_only') {
      this.host.dataset.state = 'no_messages';
      this.card.dataset.tone = 'ok';
      this.text.textContent = `BAI ${this.contentVersion}: no message read here yet`;
    } else {
      this.host.dataset.state = 'transcript_unreadable';
      this.card.dataset.tone = 'warn';
      this.text.textContent = `BAI does not recognize this page's chat layout (${this.siteName}).`;
    }
  }

  /** Asks whether workflow `workflowId` may act; `answer('allow' | 'deny')` is called once. */
  askHandshake({ workflowId, protocol, target, heldActions = 0 }, answer) {
    this.host.dataset.question = workflowId;
    // BAI/0.2 lets a model write actions before the ACK: say that they run on Allow.
    const held = heldActions > 0
      ? [el('br'), el('strong', {}, `${heldActions} action${heldActions === 1 ? '' : 's'} it already wrote will run as soon as you allow.`)]
      : [];
    this.questionText.replaceChildren(
      'ChatGPT asks to control ', el('strong', {}, target), '. ',
      el('br'), 'Workflow ', el('code', {}, workflowId), ` (${protocol}).`, ...held,
    );
    this.question.classList.add('open');
    this.armQuestion(answer);
  }

  /** Shows the question's buttons; they answer only after ANSWER_DELAY_MS. Focus stays where
   * the user has it: moving it to Allow would let a stray Enter approve. */
  armQuestion(answer) {
    const shownAt = performance.now();
    const notBefore = () => shownAt + ANSWER_DELAY_MS;
    this.allowButton.onclick = trusted(() => answer('allow'), notBefore);
    this.denyButton.onclick = trusted(() => answer('deny'), notBefore);
    // The buttons look disabled until they accept answers.
    delete this.host.dataset.questionReady;
    this.allowButton.disabled = true;
    this.denyButton.disabled = true;
    clearTimeout(this.armTimer);
    this.armTimer = setTimeout(() => {
      this.allowButton.disabled = false;
      this.denyButton.disabled = false;
      this.host.dataset.questionReady = '1';
    }, ANSWER_DELAY_MS);
  }

  /** Asks whether one action may run; `answer('allow' | 'deny')` is called once. */
  askAction({ workflow_id, action_id, type, reason }, reasons, answer) {
    this.host.dataset.question = `${workflow_id}:${action_id}`;
    const because = reasons.map((why) => why.message ?? why.code).join('; ');
    // The model's own words for why it wants this, quoted: they are its claim, not a fact.
    const claim = reason ? [el('br'), `ChatGPT says: “${reason}”`] : [];
    this.questionText.replaceChildren(
      el('strong', {}, `Action ${action_id} (${type}) needs your approval`), ...claim, el('br'), `because ${because}.`,
    );
    this.question.classList.add('open');
    this.armQuestion(answer);
  }

  clearQuestion() {
    clearTimeout(this.armTimer);
    delete this.host.dataset.question;
    delete this.host.dataset.questionReady;
    this.question.classList.remove('open');
    this.allowButton.onclick = null;
    this.denyButton.onclick = null;
  }

  /** Shows whether any workflow is still running (from the engine's list): Stop stays
   * available as long as one is, whatever the latest event was about. */
  setRunning(running) {
    this.activeWorkflow = running ? 'all' : null;
    this.stopButton.hidden = !running;
  }

  setWorkflowState(workflowId, state) {
    this.host.dataset.workflow = workflowId;
    this.host.dataset.workflowState = state;
    const words = {
      awaiting_extension_ack: 'waiting for your answer',
      active: 'running',
      done: 'finished',
      failed: 'stopped after an invalid action (see the panel)',
      superseded: 'replaced by a newer workflow',
      stopped: 'stopped by you',
      denied: 'refused by you',
    };
    this.text.textContent = `BAI workflow ${words[state] ?? state}`;
    this.card.dataset.tone = state === 'failed' ? 'error' : 'ok';
    this.note.textContent = '';
  }

  setProgress({ polls, actionsRun, messages }) {
    if (messages > 0) this.setLayout('messages');
    this.host.dataset.polls = String(polls);
    this.host.dataset.actionsRun = String(actionsRun);
    this.host.dataset.messages = String(messages);
  }

  onStop(handler) {
    this.stopHandlers.push(handler);
  }

  setNote(text) {
    this.note.textContent = text;
  }

  setError(text) {
    this.card.dataset.tone = 'error';
    this.note.textContent = text;
  }
}
