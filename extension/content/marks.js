// The status marks beside the BAI lines of the chat (ran ✓, refused ✗, waiting ⏳, ignored –),
// and the pasted protocol prompt folded to one line. What each mark says comes from the Rust
// core (ChatSession.line_marks: the engine's decisions, tied to a line the reader found); this
// file only draws.
//
// The marks live in a closed shadow root of an element outside the page's body, laid over the
// transcript (position: fixed): nothing is inserted into the site's messages, so the reader
// (which reads only the site's message elements) never sees them, a re-render of the site's list
// cannot break them (they are placed again from the reader's current elements), and nothing a
// model writes ("✓", a fake mark element) can be one or change one. The fold is one attribute
// on the prompt's message element plus a rule of ours (max-height), taken off with the toggle
// or when the setting is off; the attribute is not one the reader watches or reads.

import { ext } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';

const FOLD_ATTRIBUTE = 'data-bai-folded';
const FOLD_STYLE_ID = 'bai-fold-style';
/** One line of the prompt stays visible (the toggle sits beside it). */
const FOLD_CSS = `[${FOLD_ATTRIBUTE}] { max-height: 2.6em !important; overflow: hidden !important; }`;

const GLYPHS = { ran: '✓', refused: '✗', waiting: '⏳', queued: '…', running: '…', ignored: '–' };
const WORDS = { ran: 'ran', refused: 'refused', waiting: 'waiting for you', queued: 'queued', running: 'running', ignored: 'ignored' };

const STYLE = `
:host { all: initial; position: fixed; inset: 0; pointer-events: none; z-index: 2147483646;
  font: 12px/1.3 system-ui, -apple-system, "Segoe UI", sans-serif; color-scheme: light dark; }
.mark { position: absolute; left: 0; top: 0; pointer-events: auto; width: 18px; height: 18px;
  border-radius: 50%; display: flex; align-items: center; justify-content: center; cursor: default;
  font-weight: 700; color: #fff; background: #475569; box-shadow: 0 0 0 2px rgb(255 255 255 / .8); }
.mark[data-status="ran"] { background: #15803d; }
.mark[data-status="refused"] { background: #b91c1c; }
.mark[data-status="waiting"] { background: #b45309; }
.mark[data-status="queued"], .mark[data-status="running"] { background: #1d4ed8; }
.mark[data-status="ignored"] { background: #64748b; }
.mark:focus-visible { outline: 3px solid #fde047; outline-offset: 1px; }
.tip { display: none; position: absolute; left: 22px; top: -2px; width: max-content; max-width: 360px;
  padding: 4px 8px; border-radius: 6px; background: #111827; color: #f9fafb; font-weight: 400;
  white-space: normal; box-shadow: 0 2px 8px rgb(0 0 0 / .3); }
.mark:hover .tip, .mark:focus .tip { display: block; }
.tip code { font: 11px ui-monospace, monospace; color: #fca5a5; }
.fold { position: absolute; left: 0; top: 0; pointer-events: auto; font: inherit; font-size: 11px;
  border: 1px solid #1e3a8a; border-radius: 10px; padding: 1px 8px; background: #dbeafe; color: #1e3a8a;
  cursor: pointer; }
.fold:focus-visible { outline: 3px solid #fde047; outline-offset: 1px; }
[hidden] { display: none !important; }
`;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

const OVERFLOWS = /auto|scroll|hidden|clip/;

/**
 * The part of the viewport where `element`'s content can be seen: the viewport cut by every
 * scrolling (or clipping) ancestor, so a line scrolled out of the site's message list gets no
 * mark drawn over the rest of the page. `memo` keeps each ancestor's answer for one draw.
 */
function visibleBox(element, memo) {
  const parent = element.parentElement;
  if (!parent || parent === document.body || parent === document.documentElement) {
    return { top: 0, left: 0, bottom: innerHeight, right: innerWidth };
  }
  const known = memo.get(parent);
  if (known) return known;
  let box = visibleBox(parent, memo);
  const style = getComputedStyle(parent);
  if (OVERFLOWS.test(style.overflowY) || OVERFLOWS.test(style.overflowX)) {
    const r = parent.getBoundingClientRect();
    box = { top: Math.max(box.top, r.top), left: Math.max(box.left, r.left), bottom: Math.min(box.bottom, r.bottom), right: Math.min(box.right, r.right) };
  }
  memo.set(parent, box);
  return box;
}

/** Where a mark's line is on screen now (viewport pixels), or null when it is not shown. */
function lineRect(mark, memo) {
  const { node, node_offset: offset, element } = mark;
  if (!node?.isConnected || !element?.isConnected) return null;
  // One look at the message first: a message out of view has no line in view (most of a long
  // conversation, skipped without measuring its lines).
  const messages = memo.messages ?? (memo.messages = new Map());
  let message = messages.get(element);
  if (!message) {
    const box = element.getBoundingClientRect();
    const view = visibleBox(element, memo);
    message = { box, out: box.bottom < view.top || box.top > view.bottom || box.height === 0 };
    messages.set(element, message);
  }
  if (message.out) return null;
  let rect;
  if (node.nodeType === Node.TEXT_NODE) {
    const range = document.createRange();
    const end = Math.min(offset + 1, node.length);
    range.setStart(node, Math.min(offset, end));
    range.setEnd(node, end);
    rect = range.getClientRects()[0] ?? range.getBoundingClientRect();
  } else {
    rect = node.getBoundingClientRect();
  }
  if (!rect || (rect.width === 0 && rect.height === 0)) return null;
  // A line the message clips (a folded prompt) is not shown: no mark for it either.
  const { box } = message;
  if (rect.top >= box.bottom - 1 || rect.bottom <= box.top) return null;
  const view = visibleBox(element, memo);
  if (rect.top < view.top - 1 || rect.top + Math.min(rect.height, 18) > view.bottom + 1) return null;
  return { top: rect.top, left: Math.min(rect.left, box.left), height: rect.height };
}

export class LineMarksLayer {
  /** @param {() => import('../pkg/bai.js').ChatSession} currentSession the chat session now (a
   *   conversation switch replaces it) */
  static mount(currentSession) {
    const host = document.createElement('bai-line-marks');
    document.documentElement.append(host);
    return new LineMarksLayer(host, host.attachShadow({ mode: 'closed' }), currentSession);
  }

  constructor(host, root, currentSession) {
    this.host = host;
    this.root = root;
    this.currentSession = currentSession;
    /** The session and its marks' revision last read. */
    this.read = { session: null, revision: -1 };
    this.enabled = true;
    this.state = { marks: [], prompts: [] };
    /** Prompts the user unfolded, by message index. */
    this.unfolded = new Set();
    /** Drawn nodes by key, reused between draws. */
    this.drawn = new Map();
    this.folds = new Map();
    /** Elements this layer marked folded: taken off when no longer listed. Kept here rather
     * than found with a document-wide attribute query, which costs ~4 ms per draw on a
     * 5,000-message page (every draw follows every page change). */
    this.foldedElements = new Set();
    const style = el('style');
    style.textContent = STYLE;
    this.layer = el('div', { class: 'layer' });
    root.replaceChildren(style, this.layer);
    this.frame = 0;
    const later = () => this.schedule();
    addEventListener('scroll', later, { capture: true, passive: true });
    addEventListener('resize', later, { passive: true });
    // The extension's own pages (the panel, tests) may ask what is drawn; pages cannot send
    // extension messages.
    ext.runtime.onMessage.addListener((message, _sender, sendResponse) => {
      if (message?.type !== Msg.LINE_MARKS) return false;
      sendResponse(this.snapshot());
      return false;
    });
  }

  setEnabled(enabled) {
    if (enabled === this.enabled) return;
    this.enabled = enabled;
    this.refresh();
  }

  /** After a poll, an action step, a scroll or a resize: the marks are drawn once, in the next
   * frame (where the page lays itself out anyway), never more than once a frame, and not at all
   * in a tab nobody sees. */
  refresh() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.drawNow();
    });
  }

  schedule() {
    this.refresh();
  }

  /** Reads (when needed) and draws now. `bai:marks` in the page's performance timeline says
   * what that costs (read like `bai:poll`). */
  drawNow() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    const started = performance.now();
    this.update();
    this.draw();
    performance.measure('bai:marks', { start: started, end: performance.now(), detail: { marks: this.state.marks.length } });
  }

  /** Reads the marks again when the core says they changed or a line's place on the page was
   * replaced (a re-render). */
  update() {
    if (!this.enabled) {
      this.state = { marks: [], prompts: [] };
      this.read = { session: null, revision: -1 };
      return;
    }
    const session = this.currentSession();
    const revision = session.line_marks_revision();
    if (session !== this.read.session || revision !== this.read.revision || this.stale()) {
      this.state = session.line_marks();
      this.read = { session, revision };
    }
  }

  /** A mark's line or a prompt's element the page replaced since the last read. */
  stale() {
    return this.state.marks.some((m) => !m.node?.isConnected || !m.element?.isConnected) || this.state.prompts.some((p) => !p.element?.isConnected);
  }

  draw() {
    const memo = new Map();
    this.drawFolds(memo);
    const seen = new Set();
    for (const mark of this.state.marks) {
      seen.add(mark.key);
      let node = this.drawn.get(mark.key);
      if (!node) {
        node = el('span', { class: 'mark', tabindex: '0', role: 'img' });
        this.layer.append(node);
        this.drawn.set(mark.key, node);
      }
      const sentence = `${WORDS[mark.status] ?? mark.status}: ${mark.message}`;
      if (node.dataset.status !== mark.status || node.dataset.sentence !== sentence || node.dataset.code !== (mark.code ?? '')) {
        node.dataset.status = mark.status;
        node.dataset.sentence = sentence;
        node.dataset.code = mark.code ?? '';
        node.setAttribute('aria-label', `BAI ${mark.kind} line ${mark.code ? `${mark.code} ` : ''}${sentence}`);
        const tip = el('span', { class: 'tip', role: 'tooltip' });
        if (mark.code) tip.append(el('code', {}, mark.code), ' ');
        tip.append(sentence);
        node.replaceChildren(GLYPHS[mark.status] ?? '?', tip);
      }
      node.dataset.messageIndex = String(mark.message_index);
      const at = lineRect(mark, memo);
      node.hidden = !at;
      if (at) node.style.transform = `translate(${Math.max(2, at.left - 24)}px, ${at.top + Math.max(0, (at.height - 18) / 2)}px)`;
    }
    for (const [key, node] of this.drawn) {
      if (!seen.has(key)) {
        node.remove();
        this.drawn.delete(key);
      }
    }
  }

  drawFolds(memo) {
    const style = document.getElementById(FOLD_STYLE_ID);
    if (this.state.prompts.length && !style) {
      const rule = el('style', { id: FOLD_STYLE_ID });
      rule.textContent = FOLD_CSS;
      (document.head ?? document.documentElement).append(rule);
    }
    // Folds of prompts no longer listed (setting off, conversation changed) are taken off.
    const listed = new Set(this.state.prompts.map((p) => p.element));
    for (const element of this.foldedElements) {
      if (listed.has(element)) continue;
      element.removeAttribute(FOLD_ATTRIBUTE);
      this.foldedElements.delete(element);
    }
    const seen = new Set();
    for (const { message_index: index, element } of this.state.prompts) {
      seen.add(index);
      const folded = !this.unfolded.has(index);
      if (folded !== element.hasAttribute(FOLD_ATTRIBUTE)) element.toggleAttribute(FOLD_ATTRIBUTE, folded);
      this.foldedElements.add(element);
      let button = this.folds.get(index);
      if (!button) {
        button = el('button', { type: 'button', class: 'fold' });
        button.addEventListener('click', (event) => {
          if (!event.isTrusted) return;
          if (this.unfolded.has(index)) this.unfolded.delete(index);
          else this.unfolded.add(index);
          this.drawNow();
        });
        this.layer.append(button);
        this.folds.set(index, button);
      }
      button.textContent = folded ? 'BAI protocol prompt (folded) — show ▾' : 'Fold the BAI protocol prompt ▴';
      button.setAttribute('aria-expanded', String(!folded));
      button.dataset.messageIndex = String(index);
      // At the top right of the prompt's first line, while that line is in view.
      const box = element.isConnected ? element.getBoundingClientRect() : null;
      const view = box && visibleBox(element, memo);
      const inView = box && view && box.height > 0 && box.top >= view.top - 1 && box.top + 20 <= view.bottom;
      button.hidden = !inView;
      if (inView) button.style.transform = `translate(${Math.max(2, box.right - button.offsetWidth - 8)}px, ${box.top + 4}px)`;
    }
    for (const [index, button] of this.folds) {
      if (!seen.has(index)) {
        button.remove();
        this.folds.delete(index);
      }
    }
  }

  /** What is drawn now, as the user sees it (for the extension's own pages and tests). A tab in
   * the background draws nothing until it is seen: it draws first. */
  snapshot() {
    this.drawNow();
    const marks = this.state.marks.map((mark) => {
      const node = this.drawn.get(mark.key);
      const shown = node && !node.hidden ? node.getBoundingClientRect() : null;
      const message = mark.element?.isConnected ? mark.element.getBoundingClientRect() : null;
      return {
        key: mark.key,
        message_index: mark.message_index,
        kind: mark.kind,
        status: mark.status,
        code: mark.code ?? null,
        glyph: node?.firstChild?.textContent ?? null,
        tooltip: node?.querySelector('.tip')?.textContent ?? null,
        shown: Boolean(shown),
        // The mark's middle against its message's box, so a test can tell which message it is
        // beside.
        mark_y: shown ? shown.top + shown.height / 2 : null,
        mark_x: shown ? shown.left + shown.width / 2 : null,
        // The reason shows on hover or keyboard focus.
        tip_shown: Boolean(node && getComputedStyle(node.querySelector('.tip') ?? node).display === 'block'),
        message_top: message?.top ?? null,
        message_bottom: message?.bottom ?? null,
      };
    });
    const prompts = this.state.prompts.map(({ message_index: index, element }) => {
      const toggle = this.folds.get(index);
      const box = toggle && !toggle.hidden ? toggle.getBoundingClientRect() : null;
      return {
        message_index: index,
        folded: element.hasAttribute(FOLD_ATTRIBUTE),
        height: element.getBoundingClientRect().height,
        toggle: toggle?.textContent ?? null,
        toggle_center: box ? { x: box.left + box.width / 2, y: box.top + box.height / 2 } : null,
      };
    });
    // Layers of ours: elements of this name directly under <html> (one named so inside the
    // page's markup is not one).
    const layers = [...document.documentElement.children].filter((child) => child.localName === 'bai-line-marks').length;
    return { enabled: this.enabled, marks, prompts, layers };
  }
}
