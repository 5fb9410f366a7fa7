// The question window: a small extension page the background opens (windows.create, type
// popup) whenever BAI must ask, so the user sees the question even with the panel closed. It
// shows the oldest open question with Allow and Deny; page scripts cannot reach it.

import { ext } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';
import { armAnswers, questionFingerprint, questionKey, renderQuestion, timeLeftText } from '../shared/questions.js';

// Elements of this page's own markup, looked up by id: the markup declares them, so they are
// typed `any` rather than cast at every use.
/** @type {(id: string) => any} */
const $ = (id) => document.getElementById(id);

let shown = null;
let disarm = () => {};
let generation = 0;

async function refresh() {
  const mine = ++generation;
  const reply = await ext.runtime.sendMessage({ type: Msg.PENDING_QUESTIONS });
  if (mine !== generation) return;
  const questions = reply?.questions ?? [];
  const next = questions[0] ?? null;
  $('more').textContent = questions.length > 1 ? `${questions.length - 1} more question${questions.length === 2 ? '' : 's'} after this one.` : '';
  document.body.dataset.ready = '1';
  if (next?.id === shown?.id) return;
  disarm();
  shown = next;
  delete document.body.dataset.questionReady;
  if (!next) {
    $('question').hidden = true;
    delete document.body.dataset.question;
    $('status').textContent = 'No question is waiting.';
    return;
  }
  const fingerprint = await questionFingerprint(next);
  if (mine !== generation) return;
  renderQuestion($('question-text'), next);
  $('time-left').textContent = timeLeftText(next);
  $('question').hidden = false;
  $('status').textContent = '';
  document.body.dataset.question = questionKey(next);
  document.title = `BAI asks: ${next.origin ?? 'this chat tab'}`;
  disarm = armAnswers({
    allow: $('allow'),
    deny: $('deny'),
    always: $('always'),
    question: next,
    fingerprint,
    onArmed: () => { document.body.dataset.questionReady = '1'; },
    send: async (answer, digest) => {
      const result = await ext.runtime.sendMessage({ type: Msg.ANSWER_QUESTION, questionId: next.id, fingerprint: digest, answer });
      const said = { allow: 'Allowed.', always_allow: 'Allowed; BAI added the rule (see Approval rules in the panel).', deny: 'Denied.' }[answer];
      $('status').textContent = result?.error ? `Not counted: ${result.error.message}` : said;
      await refresh();
    },
  });
}

// The time left to answer. Each tick also asks the background for the open questions, which
// denies those whose time is up (a worker that slept checks then).
setInterval(() => {
  $('time-left').textContent = shown ? timeLeftText(shown) : '';
  if (shown && Number.isFinite(shown.expiresAt) && Date.now() >= shown.expiresAt) refresh();
}, 1000);

ext.runtime.onMessage.addListener((message) => {
  if (message?.type === Msg.QUESTIONS_CHANGED) refresh();
});
refresh();
