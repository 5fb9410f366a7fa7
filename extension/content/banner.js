// The in-page banner on chat tabs: a small status pill with a Stop button. It lives in a shadow
// root so the chat page's CSS does not restyle it by accident; the root is open, so a page
// script can read, rewrite or cover it. That is why it never holds a question or an Allow
// button: when BAI must ask, the banner only says that BAI waits for an answer, and the question
// itself is shown in the extension's own window and panel (extension/question/), which pages
// cannot reach. A page that forges a banner has nothing to approve.

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

/** Wraps a handler so only real user input counts. */
function trusted(handler) {
  return (event) => {
    if (!event.isTrusted) return;
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
    this.showButton = el('button', { type: 'button', class: 'show-question' }, 'Show the question');
    this.question = el('div', { class: 'question', role: 'group', 'aria-label': 'BAI waits for your answer' },
      el('div', { class: 'question-text' }, 'BAI is waiting for your answer in its own window (or the BAI panel).'),
      el('div', { class: 'row' }, this.showButton));
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
    this.showHandlers = [];
    this.showButton.addEventListener('click', trusted(() => this.showHandlers.forEach((h) => h())));
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

  /** Says that BAI waits for the user's answer to question `key` (`workflow` or
   * `workflow:action`). The question and its buttons are on the extension's own pages. */
  showWaiting(key) {
    this.host.dataset.question = key;
    this.question.classList.add('open');
  }

  clearQuestion() {
    delete this.host.dataset.question;
    this.question.classList.remove('open');
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

  onShowQuestion(handler) {
    this.showHandlers.push(handler);
  }

  setNote(text) {
    this.note.textContent = text;
  }

  setError(text) {
    this.card.dataset.tone = 'error';
    this.note.textContent = text;
  }
}
