// The executor role of the content script: on a page a workflow targets, it runs the validated
// actions the background worker delivers, each in one call into the Rust core, which reviews
// the element the action targets with the safety policy and acts on exactly that element; it
// answers with the structured result, or with the reasons the user must approve first.

import { ext } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';
import { loadSettings, policySettingsJson } from '../shared/settings.js';
import { actionDeadlineMs } from '../shared/deadline.js';
import { hideMarks, showMarks } from './marks-overlay.js';

/** This document's random id (the content script runs once per document): a screenshot's two
 * looks must come from the same document, not from one the tab went back to meanwhile. Not
 * `crypto.randomUUID`, which plain-http pages lack. */
const DOCUMENT_ID = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');

/** Resolves after the next frame was painted (two animation frames), or after 200 ms where the
 * page gets no frames (a background tab in Firefox, whose capture paints the page itself). */
function nextPaint() {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 200);
    requestAnimationFrame(() => requestAnimationFrame(() => {
      clearTimeout(timer);
      resolve(undefined);
    }));
  });
}

/** Whether `node` is a frame or holds one in its light tree. */
const FRAMES = 'iframe,frame,embed,object,fencedframe,portal';
const holdsFrame = (/** @type {Node} */ node) => node instanceof Element && (node.matches(FRAMES) || node.querySelector(FRAMES) !== null);

/** Notes any frame added to or removed from the page's light tree while a picture is taken. */
const frameWatch = (() => {
  let moved = false;
  /** @type {MutationObserver | null} */
  let observer = null;
  const note = (/** @type {MutationRecord[]} */ records) => {
    for (const record of records) {
      if ([...record.addedNodes, ...record.removedNodes].some(holdsFrame)) moved = true;
    }
  };
  return {
    start() {
      observer?.disconnect();
      moved = false;
      observer = new MutationObserver(note);
      observer.observe(document, { childList: true, subtree: true });
    },
    touched: () => moved,
    /** Stops watching; whether a frame was touched since start (true when never started). */
    stop() {
      if (!observer) return true;
      note(observer.takeRecords());
      observer.disconnect();
      observer = null;
      return moved;
    },
  };
})();

/**
 * @param {{ get: () => Promise<any>, loaded: any }} execCore the executor's core, loaded on first
 *   use (extension/content/load-core.js: executorCore)
 * @param {{ canNavigate: boolean }} options
 */
export function startExecutor(execCore, { canNavigate }) {
  // One action at a time, in arrival order.
  /** @type {Promise<unknown>} */
  let chain = Promise.resolve();
  // Workflows the user stopped: their actions still queued here end without running.
  const cancelled = new Set();
  ext.runtime.onMessage.addListener((message, _sender, sendResponse) => {
    if (message?.type === Msg.CANCEL_ACTIONS) {
      // Stop: the action running now (waiting for its element, a wait_for, a review) ends at
      // its next check, before it touches anything more (crate/src/dom/cancel.rs). `inFlightOnly`
      // (the background gave up waiting for an action) ends what runs, not the workflow.
      if (!message.inFlightOnly) for (const id of message.workflowIds ?? []) cancelled.add(id);
      // A core not loaded yet runs nothing that could be ended.
      execCore.loaded?.cancel_actions();
      sendResponse({ ok: true });
      return false;
    }
    if (message?.type === Msg.PING) {
      sendResponse({ pong: true });
      return false;
    }
    if (message?.type === Msg.SCREEN_MASKS) {
      // Right away, not behind the queue: the picture was just taken while the screenshot
      // action's answer was on its way, and nothing else runs in between.
      execCore.get().then((core) => ({ masks: { ...JSON.parse(core.screen_masks()), document: DOCUMENT_ID, origin: location.origin } }))
        .catch((error) => ({ error: parseFailure(error) }))
        .then(sendResponse);
      return true;
    }
    if (message?.type === Msg.SCREEN_FRAMES_HIDDEN) {
      if (message.after) {
        // Right after the capture, the stylesheet still in: every frame still hidden, and none
        // was moved or added meanwhile (say into a shadow tree the stylesheet does not reach
        // in Chromium, and back).
        const touched = frameWatch.stop();
        execCore.get().then((core) => !touched && core.screen_frames_hidden(), () => false).then((hidden) => sendResponse({ hidden }));
        return true;
      }
      // Checked after a frame was painted with the stylesheet, so the capture cannot get an
      // older frame.
      frameWatch.start();
      Promise.all([execCore.get(), nextPaint()])
        .then(([core]) => sendResponse({ hidden: !frameWatch.touched() && core.screen_frames_hidden() }), () => sendResponse({ hidden: false }));
      return true;
    }
    if (message?.type === Msg.SHOW_MARKS) {
      // Only now, after the picture: an overlay appearing before it would tell the page when
      // the picture is taken. Marks of another document (the tab went back) are not shown.
      if (message.document === DOCUMENT_ID) {
        loadSettings().then((settings) => {
          if (settings.showMarks === false) hideMarks();
          else showMarks(message.marks);
        }, () => {});
      }
      sendResponse({ ok: true });
      return false;
    }
    if (message?.type === Msg.PAGE_STATE) {
      chain = chain.then(() => execCore.get()).then((core) => pageState(core, message)).then(sendResponse, (error) => sendResponse({ error: { code: 'page_state_failed', message: String(error) } }));
      return true;
    }
    return false;
  });
  // The background delivers each action by calling this from scripting.executeScript, which runs
  // in this content script's world (the page's scripts cannot see it). Being found is the proof
  // the action reached an executor: when it is not there yet, the delivery says so and nothing
  // ran, so the background can deliver again without a separate ping.
  // The deliveries this document took and has not answered yet: after the tab navigated, the
  // background asks whether its delivery is still here (else the page that had it is gone).
  const unanswered = new Set();
  /** @type {{ alive: () => boolean, holds: (id: string) => boolean, execute: (message: import('../shared/messages.js').ExecuteActionMsg) => Promise<import('../shared/messages.js').ActionReply> }} */
  const executor = {
    // A content script left behind by an extension reload has no runtime; it must not act.
    alive: () => Boolean(ext.runtime?.id),
    holds: (id) => unanswered.has(id),
    execute(message) {
      const id = message.deliveryId;
      if (id) unanswered.add(id);
      const answer = chain.then(() => execCore.get().then(
        (core) => (cancelled.has(message.workflowId) ? stoppedAnswer(core) : executeHere(core, { ...message, canNavigate })),
        (error) => /** @type {Awaited<ReturnType<typeof executeHere>>} */ ({ error: coreStartFailure(error) }),
      ));
      chain = answer.catch(() => {});
      answer.finally(() => unanswered.delete(id)).catch(() => {});
      return answer.then((reply) => {
        const { navigateTo, ...rest } = reply;
        // The answer leaves before the page does: navigating first could lose it.
        if (navigateTo) setTimeout(() => location.assign(navigateTo), 50);
        return rest;
      }, () => ({ error: scriptFailure() }));
    },
  };
  Object.defineProperty(globalThis, 'baiExecutor', { value: executor, configurable: true });
}

/** Why an action could not run: the executor's core did not start on this page. */
export function coreStartFailure(error) {
  return { code: 'core_start_failed', message: `BAI's core could not start on this page, so nothing ran: ${error?.message ?? error}` };
}

/** The answer for an action of a workflow the user stopped: nothing ran. */
function stoppedAnswer(core) {
  return { error: { code: 'stopped', message: 'You pressed Stop; BAI did not act.' }, nextRef: core.next_ref_number() };
}

/**
 * The failure of an action whose code threw or never finished: a page's exception can carry any
 * text (the page's, or what it read), so nothing of it is kept.
 * @param {string} [why]
 */
function scriptFailure(why = 'threw an unexpected error') {
  return { code: 'script_error', message: `BAI's action ${why} on this page (the page or the browser broke it), so BAI stopped it. Check the page before going on; observe it before asking for the action again.` };
}

/** Marks the end of an action's time (see ../shared/deadline.js). */
const OUT_OF_TIME = Symbol('out of time');
/** Marks an exception that went through the core while the action ran. */
const ESCAPED = Symbol('escaped');

/** Called when an exception escapes one of the core's steps (see watchEscapes). */
const escapeListeners = new Set();

/**
 * The core's async calls run their steps from queueMicrotask (wasm-bindgen-futures). An exception
 * the page or the browser throws inside a step (in Firefox, touching an element of a frame that
 * was removed: a dead object) goes through the core and out of that step, and the call's promise
 * never settles. Wrapping the world's queueMicrotask (this content script's world only; the page
 * has its own) tells the action in flight at once; the deadline stays for any other way to hang.
 */
function watchEscapes() {
  const queue = globalThis.queueMicrotask?.bind(globalThis);
  if (!queue || /** @type {any} */ (queue).baiWatched) return;
  const watched = (/** @type {() => void} */ callback) => queue(() => {
    try {
      callback();
    } catch (error) {
      for (const listener of escapeListeners) listener();
      // Still reported to the browser's console as before (nothing of it goes anywhere else).
      throw error;
    }
  });
  Object.defineProperty(watched, 'baiWatched', { value: true });
  globalThis.queueMicrotask = watched;
}
watchEscapes();

/** `promise`, or OUT_OF_TIME after `ms`, or ESCAPED when an exception escapes the core first. */
function within(promise, ms) {
  let timer;
  let listener = () => {};
  const stopped = new Promise((resolve) => {
    timer = setTimeout(() => resolve(OUT_OF_TIME), ms);
    listener = () => resolve(ESCAPED);
    escapeListeners.add(listener);
  });
  return Promise.race([promise, stopped]).finally(() => {
    clearTimeout(timer);
    escapeListeners.delete(listener);
  });
}

/** Why the core refused the call itself (the one rejection it makes: not an action). Anything
 * else it rejects with is an exception from the page or the browser. */
function parseFailure(error) {
  if (error?.code === 'invalid_action' && typeof error.message === 'string') return { code: error.code, message: error.message };
  return scriptFailure();
}

/**
 * The page's URL and title, and (when `changes`) what changed since the last observation.
 * @param {any} core
 * @param {{ changes?: boolean, maxElements?: number, refFloor?: number }} request
 */
export function pageState(core, { changes, maxElements, refFloor }) {
  if (refFloor) core.set_ref_floor(refFloor);
  // The address as the model may read it (the core redacts secret parameters' values).
  const state = { url: core.page_url(), title: document.title, secretNames: JSON.parse(core.secret_field_names()) };
  if (changes && core.has_observation()) state.changes = JSON.parse(core.observe_changes(maxElements ?? 60));
  state.nextRef = core.next_ref_number();
  return state;
}

/**
 * A `navigate` action's destination, resolved against this page, if it stays on this page's
 * origin (the workflow's scope); else a failure.
 */
function navigationTarget(action, canNavigate) {
  if (!canNavigate) {
    return { error: { code: 'navigate_needs_target', message: 'navigate would take the chat page itself away from the conversation; bind another tab with "Copy protocol prompt" to navigate.' } };
  }
  let url;
  try {
    url = new URL(action.payload.url, location.href);
  } catch {
    return { error: { code: 'navigation_out_of_scope', message: `${action.payload.url} is not an address BAI can open.` } };
  }
  if (url.origin !== location.origin) {
    return { error: { code: 'navigation_out_of_scope', message: `${url.origin} is outside this workflow's site ${location.origin}; BAI navigates only within it.` } };
  }
  return { url: url.href };
}

/**
 * Reviews and runs one action on this page, in one call into the Rust core (`perform_action`):
 * it resolves the target once, reviews what it really activates, and acts on exactly that
 * element, or holds it and answers `{needs_approval: {reasons, target, hold}}`. `approval` is
 * the `hold` id of such an answer, sent back only after the user allowed that very action: the
 * core then acts on the held element if it is unchanged (else `target_changed`). `refFloor`
 * keeps element refs unique across the pages a tab shows (the background remembers the next
 * number per tab).
 * Answers `{result, nextRef}`, `{error: {code, message, hints?}, nextRef}` or
 * `{needs_approval: {reasons, target, targetName, hold}}`; a navigation also carries
 * `navigateTo`, done after answering.
 * @param {any} core
 * @param {{ action: import('../shared/messages.js').WireAction, timeoutMs?: number, expectOrigin?: string, approval?: unknown, refFloor?: number, canNavigate?: boolean, secretNames?: string[] }} request
 */
export async function executeHere(core, { action, timeoutMs, expectOrigin, approval, refFloor, canNavigate = false, secretNames: knownNames = [] }) {
  // The background checked the tab's origin; check again here, where it cannot change under us.
  if (expectOrigin && location.origin !== expectOrigin) {
    return { error: { code: 'target_out_of_scope', message: `This page is ${location.origin}, not ${expectOrigin}; BAI did not act.` } };
  }
  let destination = null;
  if (action.type === 'navigate' || action.type === 'open_tab') {
    // `open_tab` leaves this page where it is (the background opens the new tab), so it may
    // come from any page; its address must stay on this page's origin all the same.
    destination = navigationTarget(action, canNavigate || action.type === 'open_tab');
    // Nothing ran on the page, so the tab's refs are where the background has them.
    if (destination.error) return { ...destination, nextRef: refFloor };
  }
  try {
    const settings = await loadSettings();
    // The user's rules for this site apply (the origin checked above), until they expire.
    const context = { site: expectOrigin ?? location.origin, nowMs: Date.now() };
    const hold = typeof approval === 'string' ? approval : undefined;
    // One call: the core sets the ref floor, reviews, acts (or holds), and returns the next ref.
    // `knownNames`: secret field names of pages met before (the chat tab keeps them), so an
    // address a form sent by GET led to is read redacted here too.
    const performed = await within(core.perform_action(JSON.stringify(action), policySettingsJson(settings, context), timeoutMs ?? undefined, hold, refFloor || undefined, JSON.stringify(knownNames)), actionDeadlineMs(action, timeoutMs));
    if (performed === OUT_OF_TIME || performed === ESCAPED) {
      // Whatever still runs of it ends at its next check, before it touches anything more.
      try {
        core.cancel_actions();
      } catch {
        // A core an exception broke may throw here too; the failure below stands.
      }
      return { error: scriptFailure(performed === ESCAPED ? 'threw an unexpected error' : 'did not finish in time') };
    }
    const outcome = JSON.parse(performed);
    // The names of the page's secret fields, for the chat tab's redaction of later addresses.
    const secretNames = outcome.secret_names;
    if (outcome.needs_approval) return { needs_approval: outcome.needs_approval, secretNames };
    const nextRef = outcome.next_ref;
    // A failure carries `hints` (close matches with refs), added by the Rust core.
    if (outcome.error) return { error: outcome.error, nextRef, secretNames };
    if (destination && outcome.navigate === 'allowed' && action.type === 'open_tab') {
      // Reviewed and allowed like a navigation: the background opens the tab (tabs.js).
      const result = { action: 'open_tab', effects: [], attempts: 1, elapsed_ms: 0 };
      if (outcome.allowed_by_rule) result.allowed_by_rule = outcome.allowed_by_rule;
      return { result, openTab: destination.url, nextRef, secretNames };
    }
    if (destination && outcome.navigate === 'allowed') {
      const result = { action: 'navigate', effects: [{ kind: 'navigation_started', url: destination.url }], attempts: 1, elapsed_ms: 0 };
      // The user's rule that let this run without a question, for the log (audit).
      if (outcome.allowed_by_rule) result.allowed_by_rule = outcome.allowed_by_rule;
      return {
        result,
        navigateTo: destination.url,
        nextRef,
        secretNames,
      };
    }
    // A screenshot's first look names its document (see withPicture); the marks are shown to
    // the user after the picture (SHOW_MARKS).
    const vision = action.type === 'screenshot' ? outcome.result?.data?.vision : null;
    if (vision) Object.assign(vision, { document: DOCUMENT_ID, origin: location.origin });
    return { result: outcome.result, nextRef, secretNames };
  } catch (error) {
    return { error: parseFailure(error) };
  }
}
