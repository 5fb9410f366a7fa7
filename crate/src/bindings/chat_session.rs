//! `ChatSession`: the content script's handle on one chat tab. It owns the transcript reader
//! (fed by one MutationObserver) and the protocol engine, and turns page changes into the
//! engine's decisions. The JS glue only routes those decisions: it asks the user, posts the ACK
//! through [`post_line`](super::post_line), runs actions, and stores [`ChatSession::save`].

use super::held_text::{put_back_held_actions, split_held_texts};
use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Function;
use wasm_bindgen::prelude::*;

use crate::chat::observer::MutationWatcher;
use crate::chat::transcript::{TranscriptReader, observer_options};
use crate::chat::{SiteProfile, choose_profile};
use crate::dom::redact::redact_secrets_naming;
use crate::policy::{PolicySettings, RateLimiter, settings_from_json};
use crate::protocol::decision_write::{
    action_start_json, decisions_json, outcome_step_json, part_changes_json, poll_result_json,
    refused_json, saved_session_json, strings_json, workflows_json,
};
use crate::protocol::engine::{HEAD_PART, PartWriter, join_parts, split_parts};
use crate::protocol::json::read_plain;
use crate::protocol::json_write;
use crate::protocol::marks::LineMarks;
use crate::protocol::outcome::{ActionFailure, ActionReply, ActionStart, changes_worth_reporting};
use crate::protocol::saved_session::SavedSession;
use crate::protocol::secret_query::remember_names;
use crate::protocol::{Capability, Decision, Engine, EngineError, PageInfo, ResultReport};

/// What one [`ChatSession::poll`] returns to JS (written by [`PollResult::json`]).
#[derive(Debug)]
struct PollResult<'a> {
    /// The transcript is not read up to its newest message yet: the engine saw nothing of this
    /// poll (no decisions) and the glue polls again after yielding to the page.
    pending: bool,
    /// The engine's decisions, in order.
    decisions: &'a [Decision],
    /// Messages in the transcript now.
    messages: usize,
    /// Messages read from the DOM since the session started (incrementality check).
    reads: u64,
    /// The layout profile reading this page (it can change while no message was read: a new
    /// chat whose first messages show which layout the page uses).
    site: &'static str,
    /// Code blocks read as handshakes by their content, by message index and rule (logged).
    handshake_recognitions: Vec<(usize, &'static str)>,
}

impl PollResult<'_> {
    /// The JSON its derived `Serialize` wrote, by hand (see
    /// [`crate::protocol::decision_write::poll_result_json`]).
    fn json(&self) -> String {
        poll_result_json(
            self.pending,
            self.decisions,
            self.messages,
            self.reads,
            self.site,
            &self.handshake_recognitions,
        )
    }
}

/// How long one poll may read messages before it yields to the page (the rest of the task, the
/// engine's decisions and the glue, stays well under the 50 ms of a long task).
const READ_SLICE_MS: f64 = 8.0;

/// The content script's session on a chat tab.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ChatSession {
    document: web_sys::Document,
    engine: Engine,
    reader: Rc<RefCell<TranscriptReader>>,
    watcher: Option<MutationWatcher>,
    /// The first poll observes the whole transcript at once: an old conversation opened, or the
    /// page reloaded. Later polls feed only what changed.
    first_poll_done: bool,
    /// The first poll's engine work was put off to the next task once already.
    engine_deferred: bool,
    /// No state was saved for this conversation: it is opened, not resumed.
    opened_fresh: bool,
    /// Caps actions per workflow and per minute (see [`crate::policy`]).
    limiter: RateLimiter,
    /// Result reports built by [`ChatSession::message_report`], waiting for the page's state.
    reports: Vec<(String, ResultReport)>,
    /// What the last [`ChatSession::save_changes`] wrote (or the restore read).
    writer: PartWriter,
    /// What became of each BAI line, for the marks drawn beside them (see
    /// [`ChatSession::line_marks`]).
    marks: LineMarks,
    /// The layout profile named in the last whole poll result the glue was given (see
    /// [`ChatSession::poll`]).
    told_profile: Option<&'static SiteProfile>,
    /// The names of the secret fields the target pages had (an executor's answer and page
    /// state carry them): a result's addresses lose the values under these names, also on the
    /// page a form sent by GET led to, which has no such field. Saved with the session (names,
    /// never values): a reload of the chat tab must not forget them, or that page's address
    /// would reach the model whole.
    secret_names: Vec<String>,
    /// The page's clock, asked once (the poll times its read slices with it).
    clock: Option<web_sys::Performance>,
    /// The glue's "poll soon" callback (also called by the page observer).
    notify: Function,
    /// The timer that polls again when a message waiting to be quiet may be complete
    /// (`transcript::QUIET_MS`), if one is set.
    wake_timer: Option<i32>,
    /// The first message's element when the engine last saw the transcript, and its text then:
    /// another one there may mean another conversation (see [`ChatSession::poll`]).
    first_message: Option<(web_sys::Element, String)>,
    /// The conversation was replaced in the page and the engine started over; not yet told to
    /// the glue ([`ChatSession::take_conversation_replaced`]).
    replaced: bool,
}

/// Polls again (calls `notify`) at page time `at` (ms), when a message waiting to be quiet may
/// be complete though the page does not change. One timer at a time: each poll sets the next.
fn set_wake(
    timer: &mut Option<i32>,
    notify: &Function,
    clock: Option<&web_sys::Performance>,
    at: Option<f64>,
) {
    let Some(window) = web_sys::window() else {
        return;
    };
    if let Some(previous) = timer.take() {
        window.clear_timeout_with_handle(previous);
    }
    let (Some(at), Some(clock)) = (at, clock) else {
        return;
    };
    // A millisecond after the deadline, so the poll it starts finds the time passed; the delay
    // is at most QUIET_MS, so it fits an i32.
    #[allow(
        clippy::cast_possible_truncation,
        reason = "a small, non-negative delay"
    )]
    let delay = ((at - clock.now()).max(0.0) + 1.0).ceil() as i32;
    *timer = window
        .set_timeout_with_callback_and_timeout_and_arguments_0(notify, delay)
        .ok();
}

/// A JSON object's fields (`None`: not JSON, or not an object), read as serde_json reads it.
fn object(json: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    match read_plain(json) {
        Ok(serde_json::Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// Reads a saved session; a state saved before the limiter was persisted is a bare engine state.
/// `held_texts` is what [`ChatSession::save_held_texts`] returned (kept in `storage.session`).
/// `parts` is the saved slices (name -> JSON) a head in parts refers to. Also returns the
/// secret field names the session had learnt.
fn restore(
    json: &str,
    held_texts: Option<&str>,
    parts: &serde_json::Map<String, serde_json::Value>,
) -> Result<(Engine, RateLimiter, Vec<String>), String> {
    let texts = held_texts.and_then(object).unwrap_or_default();
    let saved = SavedSession::read(json).unwrap_or_else(|| SavedSession {
        engine: json.to_owned(),
        limiter: RateLimiter::default(),
        secret_names: Vec::new(),
    });
    let head = read_plain(&saved.engine).map_err(|e| e.to_string())?;
    let part = |name: &str| {
        parts
            .get(name)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    let mut state = join_parts(head, &part).map_err(|e| e.to_string())?;
    put_back_held_actions(&mut state, &texts);
    Ok((
        Engine::restore_value(&state).map_err(|e| e.to_string())?,
        saved.limiter,
        saved.secret_names,
    ))
}

/// Whether this page is a new chat's, with no address of its own yet
/// ([`crate::sites::is_new_chat_path`]).
fn on_new_chat_page() -> bool {
    web_sys::window()
        .and_then(|window| window.location().pathname().ok())
        .is_some_and(|path| crate::sites::is_new_chat_path(&path))
}

/// `code: message`, so the script can tell a refusal it answers (`held_actions_changed`).
fn engine_error(error: EngineError) -> JsError {
    JsError::new(&format!("{}: {error}", error.code()))
}

fn hostname() -> String {
    web_sys::window()
        .and_then(|window| window.location().hostname().ok())
        .unwrap_or_default()
}

/// The layout profile for this page, or an error the panel can show.
fn profile_for_page(document: &web_sys::Document) -> Result<&'static SiteProfile, JsError> {
    choose_profile(document, &hostname())
        .map(|found| found.profile)
        .ok_or_else(|| JsError::new("BAI does not recognize this page's chat layout"))
}

#[wasm_bindgen]
impl ChatSession {
    /// Starts reading this tab's transcript. `saved_state` is what [`ChatSession::save`]
    /// returned before a reload (or `undefined` for a conversation seen for the first time).
    /// `notify` is called (with no arguments) whenever the page changed; the glue then calls
    /// [`ChatSession::poll`] (coalescing bursts of calls).
    #[wasm_bindgen(constructor)]
    ///
    /// `held_texts` is what [`ChatSession::save_held_texts`] returned (kept in
    /// `storage.session`, never on disk); without it, held actions that carried typed text are
    /// dropped. `saved_parts` (JSON `{name: json}`) holds the parts a state saved by
    /// [`ChatSession::save_changes`] refers to (its head's `parts`).
    pub fn new(
        saved_state: Option<String>,
        notify: Function,
        held_texts: Option<String>,
        saved_parts: Option<String>,
    ) -> Result<ChatSession, JsError> {
        let document = web_sys::window()
            .and_then(|window| window.document())
            .ok_or_else(|| JsError::new("no document"))?;
        let profile = profile_for_page(&document)?;
        let opened_fresh = saved_state.is_none();
        let parts = saved_parts.as_deref().and_then(object).unwrap_or_default();
        let mut writer = PartWriter::new();
        let (engine, limiter, secret_names) = match &saved_state {
            Some(json) => {
                let restored = restore(json, held_texts.as_deref(), &parts).map_err(|error| {
                    JsError::new(&format!("saved state unreadable ({error}); not resuming"))
                })?;
                // What storage holds now: the next save writes only what differs.
                writer.note_written(
                    parts
                        .iter()
                        .filter_map(|(name, json)| Some((name.as_str(), json.as_str()?)))
                        .chain([(HEAD_PART, json.as_str())]),
                );
                restored
            }
            None => (Engine::new(), RateLimiter::default(), Vec::new()),
        };
        let reader = Rc::new(RefCell::new(TranscriptReader::new(
            document.clone(),
            profile,
        )));
        let document_for_session = document.clone();
        reader.borrow_mut().full_scan();
        let body = document.body().ok_or_else(|| JsError::new("no body"))?;
        let reader_for_observer = Rc::clone(&reader);
        let notify_on_change = notify.clone();
        let watcher = MutationWatcher::new(&body, &observer_options(), move |records| {
            reader_for_observer.borrow_mut().note_mutations(records);
            let _ = notify_on_change.call0(&JsValue::NULL);
        })
        .map_err(|_| JsError::new("could not observe the page"))?;
        Ok(ChatSession {
            document: document_for_session,
            engine,
            reader,
            watcher: Some(watcher),
            first_poll_done: false,
            engine_deferred: false,
            opened_fresh,
            limiter,
            reports: Vec::new(),
            writer,
            marks: LineMarks::new(),
            told_profile: None,
            secret_names,
            clock: web_sys::window().and_then(|window| window.performance()),
            notify,
            wake_timer: None,
            first_message: None,
            replaced: false,
        })
    }

    /// Reads what changed and feeds it to the engine. Returns JSON
    /// `{pending, decisions: [...], messages, reads, ...}`; `pending`: the transcript is not read
    /// to its end yet (nothing decided), poll again after yielding to the page. Save the state (see [`ChatSession::save`]) before
    /// acting on the decisions, so a reload in between never repeats an action.
    ///
    /// A poll with nothing for the glue to do (read to the end, no decision, no handshake
    /// recognized, the same site as the last whole result) returns only the number of messages,
    /// as a JS number (no `reads`): most polls are such, and parsing a JSON object cost the
    /// page's main thread about a tenth of a quiet poll (measured on the chat fixture,
    /// Chromium); a number also needs no string decoded on the way out.
    pub fn poll(&mut self) -> Result<JsValue, JsError> {
        self.follow_layout();
        let mut reader = self.reader.borrow_mut();
        // A long conversation is read in slices of at most READ_SLICE_MS, one per task, so the
        // page stays responsive. The engine sees the transcript only once it is read up to the
        // newest message: a half-read conversation never looks like a finished one (nothing
        // runs, no handshake is offered, from a partial read).
        let clock = self.clock.as_ref();
        let started = clock.map(web_sys::Performance::now);
        let elapsed = || match (clock, started) {
            (Some(clock), Some(started)) => clock.now() - started,
            _ => 0.0,
        };
        let all_read = reader.read_pending_until(|| elapsed() >= READ_SLICE_MS);
        // The first poll gives the whole transcript to the engine: when reading already took
        // a good part of this task, that goes into the next one (once, so it always comes).
        let engine_waits = all_read
            && !self.first_poll_done
            && !self.engine_deferred
            && elapsed() >= READ_SLICE_MS / 2.0;
        self.engine_deferred |= engine_waits;
        if !all_read || engine_waits {
            return Ok(JsValue::from_str(
                &PollResult {
                    pending: true,
                    decisions: &[],
                    messages: reader.len(),
                    reads: reader.reads(),
                    site: reader.profile().name,
                    handshake_recognitions: Vec::new(),
                }
                .json(),
            ));
        }
        // Another conversation in the page at the same address: every message gone, or, on a
        // new chat's page (no address of its own), another first message with other words. The
        // engine starts over as on a conversation just opened, so nothing the user approved in
        // the old one counts in this one, and what this one shows now is old (red team red8,
        // session 20). A first message re-rendered with the same words (a site swapping its
        // draft of the user's message for the one its server confirmed) is the same
        // conversation; away from a new chat's page the address names the conversation, and a
        // first message dropped by a list that keeps only what is on screen changes nothing.
        let first = reader.element(0).map(|(element, _)| element.clone());
        let known = self.first_message.as_ref().map(|(element, _)| element);
        if first.as_ref() != known {
            let text = first
                .as_ref()
                .and_then(|element| element.text_content())
                .unwrap_or_default();
            let replaced = match (&self.first_message, &first) {
                (Some(_), None) => true,
                (Some((_, before)), Some(_)) => *before != text && on_new_chat_page(),
                (None, _) => false,
            };
            if replaced && self.first_poll_done {
                self.engine = Engine::new();
                self.opened_fresh = true;
                self.first_poll_done = false;
                self.marks = LineMarks::new();
                self.reports.clear();
                self.replaced = true;
            }
            self.first_message = first.map(|element| (element, text));
        }
        // The first poll takes the whole transcript: only later ones need what changed.
        let changes = if self.first_poll_done {
            reader.take_changes()
        } else {
            reader.take_changed_indexes();
            Vec::new()
        };
        // By message index and rule (see [`crate::chat::text::read_message`]): logged.
        let handshake_recognitions: Vec<(usize, &'static str)> = reader
            .take_handshake_recognitions()
            .into_iter()
            .map(|(message_index, rule)| (message_index, rule.as_str()))
            .collect();
        self.marks.truncate(reader.len());
        let decisions = if self.first_poll_done {
            let len = reader.len();
            self.marks
                .note_messages(changes.iter().map(|(index, message)| (*index, message)));
            self.engine.update_messages(
                len,
                changes.iter().map(|(index, message)| (*index, message)),
            )
        } else {
            self.first_poll_done = true;
            let messages = reader.messages();
            self.marks.note_messages(messages.iter().enumerate());
            if self.opened_fresh {
                self.engine.observe_opened(&messages)
            } else {
                self.engine.observe(&messages)
            }
        };
        self.marks.note_decisions(&decisions);
        set_wake(
            &mut self.wake_timer,
            &self.notify,
            self.clock.as_ref(),
            reader.take_wake_at(),
        );
        let profile = reader.profile();
        if decisions.is_empty()
            && handshake_recognitions.is_empty()
            && self
                .told_profile
                .is_some_and(|told| std::ptr::eq(told, profile))
        {
            // Message counts stay far below 2^53.
            #[allow(clippy::cast_precision_loss, reason = "small counts")]
            let messages = reader.len() as f64;
            return Ok(JsValue::from_f64(messages));
        }
        self.told_profile = Some(profile);
        Ok(JsValue::from_str(
            &PollResult {
                pending: false,
                decisions: &decisions,
                messages: reader.len(),
                reads: reader.reads(),
                site: profile.name,
                handshake_recognitions,
            }
            .json(),
        ))
    }

    /// The layout profile reading this page (its name, as in the panel's diagnostics).
    pub fn site(&self) -> String {
        self.reader.borrow().profile().name.to_owned()
    }

    /// While no message was read, the page may show another layout than the one chosen at
    /// start (a new chat: the composer matched one profile, the first messages show which
    /// layout the page really uses). Switch to the profile that reads messages.
    fn follow_layout(&mut self) {
        let current = self.reader.borrow().profile();
        if !self.reader.borrow().is_empty() || current.count_messages(&self.document) > 0 {
            return;
        }
        let Some(found) = choose_profile(&self.document, &hostname()) else {
            return;
        };
        if found.messages > 0 && !std::ptr::eq(found.profile, current) {
            let mut reader = TranscriptReader::new(self.document.clone(), found.profile);
            // The page had no message a moment ago: these are new, and may be being written.
            reader.treat_all_as_new();
            reader.full_scan();
            *self.reader.borrow_mut() = reader;
        }
    }

    /// The user allowed the handshake: returns the decisions (the ACK line to post first).
    /// `held_set` is the workflow's `held_set` read when the question was shown: if the model's
    /// held actions changed since, nothing is approved and the error starts with
    /// `held_actions_changed` (ask again).
    pub fn approve(
        &mut self,
        workflow_id: &str,
        nonce: &str,
        held_set: &str,
    ) -> Result<String, JsError> {
        let decisions = self
            .engine
            .approve_shown(workflow_id, nonce, held_set)
            .map_err(engine_error)?;
        self.marks.note_answer(workflow_id, true);
        self.marks.note_decisions(&decisions);
        Ok(decisions_json(&decisions))
    }

    /// The user refused the handshake.
    pub fn deny(&mut self, workflow_id: &str) -> Result<String, JsError> {
        let decisions = self.engine.deny(workflow_id).map_err(engine_error)?;
        self.marks.note_answer(workflow_id, false);
        self.marks.note_decisions(&decisions);
        Ok(decisions_json(&decisions))
    }

    /// The user pressed Stop.
    pub fn stop(&mut self, workflow_id: &str) -> Result<String, JsError> {
        let decisions = self.engine.stop(workflow_id).map_err(engine_error)?;
        self.marks.note_decisions(&decisions);
        Ok(decisions_json(&decisions))
    }

    /// BAI asks the user whether action `action_id` of `workflow_id` may run: its line's mark
    /// waits for the answer (the answer comes back through [`ChatSession::record_outcome`]).
    pub fn note_question(&mut self, workflow_id: &str, action_id: u32) {
        self.marks.note_question(workflow_id, action_id.into());
    }

    /// Changes whenever [`ChatSession::line_marks`] may answer something else (the glue only
    /// moves the marks it has while this stays the same and their lines are still on the page).
    pub fn line_marks_revision(&self) -> f64 {
        // Revisions stay far below 2^53.
        #[allow(clippy::cast_precision_loss, reason = "small counts")]
        let revision = self.marks.revision() as f64;
        revision
    }

    /// The status marks to draw beside the BAI lines, and the pasted protocol prompts to fold
    /// (see [`super::line_marks`]).
    pub fn line_marks(&self) -> JsValue {
        super::line_marks::line_marks(&self.reader.borrow(), &self.marks)
    }

    /// A [`Decision::ResultDue`] (its JSON, as [`ChatSession::poll`] gave it) whose actions
    /// have run: the engine puts the message's report together from the outcomes it recorded.
    /// Returns `{"page_changes": bool}`: whether the result should carry what changed on the
    /// page (a model that observes, and no observation in this report). Then call
    /// [`ChatSession::result_line`].
    pub fn message_report(&mut self, due_json: &str) -> Result<String, JsError> {
        let due = Decision::result_due_from_json(due_json)
            .map_err(|error| JsError::new(&format!("unreadable result decision: {error}")))?
            .ok_or_else(|| JsError::new("not a result_due decision"))?;
        let Decision::ResultDue { workflow_id, .. } = &due else {
            return Err(JsError::new("not a result_due decision"));
        };
        let report = self
            .engine
            .message_report(&due)
            .ok_or_else(|| JsError::new("no such workflow"))?;
        let observes = self.engine.negotiated(workflow_id, Capability::Observe);
        let page_changes = observes && report.observation.is_none();
        self.reports.retain(|(id, _)| id != workflow_id);
        self.reports.push((workflow_id.clone(), report));
        Ok(format!("{{\"page_changes\":{page_changes}}}"))
    }

    /// The `BAI_RESULT` line for the report [`ChatSession::message_report`] built, with the
    /// page's state (`page_json`: `{url, title, changes?}` or `null`). The engine remembers it,
    /// so when it shows up in the transcript it is recognized as its own. Save the state before
    /// posting it.
    pub fn result_line(&mut self, workflow_id: &str, page_json: &str) -> Result<String, JsError> {
        let at = self
            .reports
            .iter()
            .position(|(id, _)| id == workflow_id)
            .ok_or_else(|| JsError::new("no result report is waiting for this workflow"))?;
        let (_, mut report) = self.reports.swap_remove(at);
        let page = read_plain(page_json).unwrap_or_default();
        remember_names(&mut self.secret_names, page.get("secretNames"));
        if let (Some(url), Some(title)) = (
            page.get("url").and_then(serde_json::Value::as_str),
            page.get("title").and_then(serde_json::Value::as_str),
        ) {
            report.page = Some(PageInfo {
                url: url.to_owned(),
                title: title.to_owned(),
            });
        }
        if report.observation.is_none() {
            report.changes = page
                .get("changes")
                .filter(|changes| changes_worth_reporting(changes))
                .cloned();
        }
        // Everything in a result goes to the model: the page's address (reset tokens in a
        // query), reasons and data lose anything that looks like a secret.
        let names: Vec<&str> = self.secret_names.iter().map(String::as_str).collect();
        report.edit_strings(&mut |text| *text = redact_secrets_naming(text, &names));
        let line = self
            .engine
            .result_line(workflow_id, &report)
            .map_err(engine_error)?;
        self.marks.note_issued(&line);
        Ok(line)
    }

    /// The host is about to run action `action_id` of `workflow_id` (from an `execute`
    /// decision). Returns JSON `{next: "run"}`, `{next: "skip", why}`, `{next: "finished"}` (a
    /// `done`: nothing to run) or `{next: "refused", error}` (over the rate limits in
    /// `settings_json`: the host stops the workflow). Outcomes are recorded by the engine.
    pub fn begin_action(
        &mut self,
        workflow_id: &str,
        action_id: u32,
        now_ms: f64,
        settings_json: &str,
    ) -> Result<String, JsError> {
        let start = self.engine.begin_action(workflow_id, action_id.into());
        self.marks.note_start(workflow_id, action_id.into(), &start);
        if start != ActionStart::Run {
            return Ok(action_start_json(&start));
        }
        let settings = settings_from_json(settings_json).unwrap_or_else(PolicySettings::strictest);
        // Milliseconds since 1970 fit in a u64; negative or NaN clamp to 0.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "clamped"
        )]
        let now = now_ms.max(0.0) as u64;
        match self.limiter.admit(&settings, workflow_id, now) {
            Ok(()) => Ok(action_start_json(&start)),
            Err(error) => {
                let failure = ActionFailure {
                    code: error.code().to_owned(),
                    message: error.to_string(),
                    hints: Vec::new(),
                };
                self.engine
                    .refuse_action(workflow_id, action_id.into(), &failure)
                    .map_err(engine_error)?;
                self.marks
                    .note_refused(workflow_id, action_id.into(), &failure);
                Ok(refused_json(&failure))
            }
        }
    }

    /// One attempt of the running action answered: `reply_json` is `{result}`, `{error: {code,
    /// message, hints?}}`, `{answer: "deny" | "withdrawn"}` (the user did not allow it) or
    /// `null` (no answer). Returns JSON `{next: "retry", attempt, failure}`, `{next: "go_on",
    /// failure?}` or `{next: "stop_message", failure}`; the engine keeps the outcome for the
    /// result line.
    pub fn record_outcome(
        &mut self,
        workflow_id: &str,
        action_id: u32,
        reply_json: &str,
    ) -> Result<String, JsError> {
        // An unreadable reply is no answer: a failure, never a success.
        let reply = ActionReply::from_json(reply_json);
        if let Ok(value) = read_plain(reply_json) {
            remember_names(&mut self.secret_names, value.get("secretNames"));
        }
        let step = self
            .engine
            .record_outcome(workflow_id, action_id.into(), reply.as_ref())
            .map_err(engine_error)?;
        self.marks
            .note_outcome(workflow_id, action_id.into(), &step);
        Ok(outcome_step_json(&step))
    }

    /// The secret field names the target pages had (JSON list of strings), for the executor:
    /// it redacts the values under them from the addresses it reads (`wait_for url_contains`
    /// on the page a form sent by GET led to).
    pub fn secret_names(&self) -> String {
        let mut out = String::new();
        json_write::list(&mut out, &self.secret_names, |out, name| {
            json_write::string(out, name);
        });
        out
    }

    /// The actions of one poll have all run (see [`Engine::actions_settled`]).
    pub fn actions_settled(&mut self) {
        self.engine.actions_settled();
    }

    /// Whether a workflow is active: the banner's "running" state, asked after every poll (the
    /// whole list as JSON, [`ChatSession::workflows`], cost the page a parse each time).
    pub fn any_active(&self) -> bool {
        self.engine.any_active()
    }

    /// Every workflow the engine knows, as JSON (for the panel).
    pub fn workflows(&self) -> Result<String, JsError> {
        Ok(workflows_json(&self.engine.workflows()))
    }

    /// The whole session state (engine, rate limits and the secret field names learnt), to persist after every poll and
    /// every admitted action: a reload must neither repeat an action nor reset the limits. The
    /// text of actions held before the ACK (often a password) is blanked: it belongs in
    /// [`ChatSession::save_held_texts`], which never goes to disk.
    pub fn save(&self) -> Result<String, JsError> {
        let engine = self
            .engine
            .save()
            .map_err(|_| JsError::new("could not write JSON"))?;
        let (engine, _) =
            split_held_texts(&engine).map_err(|error| JsError::new(&error.to_string()))?;
        Ok(saved_session_json(
            &engine,
            &self.limiter,
            None,
            &self.secret_names,
        ))
    }

    /// What changed in the session state since the last save (or the restore), to write to
    /// storage: JSON `{set: [[name, json], ...], remove: [name, ...]}`. The part named `head`
    /// is what [`ChatSession::new`] takes as `saved_state`; the others are slices of the lists
    /// that grow with the conversation, which it takes as `saved_parts`. Each write is the head
    /// and the last slices, not the whole state (see [`crate::protocol::engine::split_parts`]).
    /// Typed text of held actions is blanked, as in [`ChatSession::save`].
    pub fn save_changes(&mut self) -> Result<String, JsError> {
        let engine = self
            .engine
            .save()
            .map_err(|_| JsError::new("could not write JSON"))?;
        let (engine, _) =
            split_held_texts(&engine).map_err(|error| JsError::new(&error.to_string()))?;
        let state = read_plain(&engine).map_err(|error| JsError::new(&error.to_string()))?;
        let mut parts = split_parts(state);
        let head = parts
            .pop()
            .map(|(_, json)| json)
            .ok_or_else(|| JsError::new("no head"))?;
        let names: Vec<String> = parts.iter().map(|(name, _)| name.clone()).collect();
        let head = saved_session_json(&head, &self.limiter, Some(&names), &self.secret_names);
        parts.push((HEAD_PART.to_owned(), head));
        Ok(part_changes_json(&self.writer.changes(parts)))
    }

    /// Storage lost what was written (the user cleared saved conversations, or the state moves
    /// to another key): the next [`ChatSession::save_changes`] writes everything. Returns the
    /// names of the parts written before, as JSON (to delete them where they were).
    pub fn forget_written(&mut self) -> Result<String, JsError> {
        let written = std::mem::take(&mut self.writer);
        Ok(strings_json(&written.names()))
    }

    /// The held actions that carry typed text, as JSON (`{}` when none): for `storage.session`
    /// (memory only, cleared when the browser closes), never `storage.local`.
    pub fn save_held_texts(&self) -> Result<String, JsError> {
        let engine = self
            .engine
            .save()
            .map_err(|_| JsError::new("could not write JSON"))?;
        let (_, texts) =
            split_held_texts(&engine).map_err(|error| JsError::new(&error.to_string()))?;
        Ok(json_write::value_json(&serde_json::Value::Object(texts)))
    }

    /// Whether the conversation was replaced in the page since the last call, the engine
    /// starting over (see [`ChatSession::poll`]): the glue drops the old one's questions and
    /// saved state, so that it is never resumed as this one's.
    pub fn take_conversation_replaced(&mut self) -> bool {
        std::mem::take(&mut self.replaced)
    }

    /// Stops observing the page.
    pub fn close(&mut self) {
        self.watcher = None;
    }
}
