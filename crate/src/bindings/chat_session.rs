//! `ChatSession`: the content script's handle on one chat tab. It owns the transcript reader
//! (fed by one MutationObserver) and the protocol engine, and turns page changes into the
//! engine's decisions. The JS glue only routes those decisions: it asks the user, posts the ACK
//! through [`post_line`](super::post_line), runs actions, and stores [`ChatSession::save`].

use super::held_text::{put_back_held_actions, split_held_texts};
use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Function;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::chat::observer::MutationWatcher;
use crate::chat::text::HandshakeRule;
use crate::chat::transcript::{TranscriptReader, observer_options};
use crate::chat::{SiteProfile, choose_profile};
use crate::policy::{PolicySettings, RateLimiter};
use crate::protocol::{Decision, Engine, EngineError};

/// What one [`ChatSession::poll`] returns to JS.
#[derive(Debug, Serialize)]
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
    handshake_recognitions: Vec<HandshakeRecognition>,
}

/// How long one poll may read messages before it yields to the page (the rest of the task, the
/// engine's decisions and the glue, stays well under the 50 ms of a long task).
const READ_SLICE_MS: f64 = 8.0;

/// A code block read as a handshake by its content (see [`crate::chat::text::read_message`]).
#[derive(Debug, Serialize)]
struct HandshakeRecognition {
    message_index: usize,
    rule: HandshakeRule,
}

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
}

/// What [`ChatSession::save`] writes: the engine's own saved state (a JSON string, so the engine
/// alone decides its format) and the rate limiter's windows.
#[derive(Debug, Serialize, serde::Deserialize)]
struct SavedSession {
    engine: String,
    limiter: RateLimiter,
}

/// Reads a saved session; a state saved before the limiter was persisted is a bare engine state.
/// `held_texts` is what [`ChatSession::save_held_texts`] returned (kept in `storage.session`).
fn restore(
    json: &str,
    held_texts: Option<&str>,
) -> Result<(Engine, RateLimiter), serde_json::Error> {
    let texts: serde_json::Map<String, serde_json::Value> = held_texts
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_default();
    let (engine, limiter) = match serde_json::from_str::<SavedSession>(json) {
        Ok(saved) => (saved.engine, saved.limiter),
        Err(_) => (json.to_owned(), RateLimiter::default()),
    };
    let mut state: serde_json::Value = serde_json::from_str(&engine)?;
    put_back_held_actions(&mut state, &texts);
    Ok((Engine::restore(&state.to_string())?, limiter))
}

fn to_json<T: Serialize>(value: &T) -> Result<String, JsError> {
    serde_json::to_string(value).map_err(|error| JsError::new(&error.to_string()))
}

fn engine_error(error: EngineError) -> JsError {
    JsError::new(&error.to_string())
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
    /// dropped.
    pub fn new(
        saved_state: Option<String>,
        notify: Function,
        held_texts: Option<String>,
    ) -> Result<ChatSession, JsError> {
        let document = web_sys::window()
            .and_then(|window| window.document())
            .ok_or_else(|| JsError::new("no document"))?;
        let profile = profile_for_page(&document)?;
        let opened_fresh = saved_state.is_none();
        let (engine, limiter) = match saved_state {
            Some(json) => restore(&json, held_texts.as_deref()).map_err(|error| {
                JsError::new(&format!("saved state unreadable ({error}); not resuming"))
            })?,
            None => (Engine::new(), RateLimiter::default()),
        };
        let reader = Rc::new(RefCell::new(TranscriptReader::new(
            document.clone(),
            profile,
        )));
        let document_for_session = document.clone();
        reader.borrow_mut().full_scan();
        let body = document.body().ok_or_else(|| JsError::new("no body"))?;
        let reader_for_observer = Rc::clone(&reader);
        let watcher = MutationWatcher::new(&body, &observer_options(), move |records| {
            reader_for_observer.borrow_mut().note_mutations(records);
            let _ = notify.call0(&JsValue::NULL);
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
        })
    }

    /// Reads what changed and feeds it to the engine. Returns JSON
    /// `{pending, decisions: [...], messages, reads, ...}`; `pending`: the transcript is not read
    /// to its end yet (nothing decided), poll again after yielding to the page. Save the state (see [`ChatSession::save`]) before
    /// acting on the decisions, so a reload in between never repeats an action.
    pub fn poll(&mut self) -> Result<String, JsError> {
        self.follow_layout();
        let mut reader = self.reader.borrow_mut();
        // A long conversation is read in slices of at most READ_SLICE_MS, one per task, so the
        // page stays responsive. The engine sees the transcript only once it is read up to the
        // newest message: a half-read conversation never looks like a finished one (nothing
        // runs, no handshake is offered, from a partial read).
        let clock = web_sys::window().and_then(|window| window.performance());
        let started = clock.as_ref().map(web_sys::Performance::now);
        let elapsed = || match (&clock, started) {
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
            return to_json(&PollResult {
                pending: true,
                decisions: &[],
                messages: reader.len(),
                reads: reader.reads(),
                site: reader.profile().name,
                handshake_recognitions: Vec::new(),
            });
        }
        // The first poll takes the whole transcript: only later ones need what changed.
        let changes = if self.first_poll_done {
            reader.take_changes()
        } else {
            reader.take_changed_indexes();
            Vec::new()
        };
        let handshake_recognitions = reader
            .take_handshake_recognitions()
            .into_iter()
            .map(|(message_index, rule)| HandshakeRecognition {
                message_index,
                rule,
            })
            .collect();
        let decisions = if self.first_poll_done {
            let len = reader.len();
            self.engine.update_messages(
                len,
                changes.iter().map(|(index, message)| (*index, message)),
            )
        } else {
            self.first_poll_done = true;
            if self.opened_fresh {
                self.engine.observe_opened(&reader.messages())
            } else {
                self.engine.observe(&reader.messages())
            }
        };
        to_json(&PollResult {
            pending: false,
            decisions: &decisions,
            messages: reader.len(),
            reads: reader.reads(),
            site: reader.profile().name,
            handshake_recognitions,
        })
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
            reader.full_scan();
            *self.reader.borrow_mut() = reader;
        }
    }

    /// The user allowed the handshake: returns the decisions (the ACK line to post first).
    pub fn approve(&mut self, workflow_id: &str, nonce: &str) -> Result<String, JsError> {
        to_json(
            &self
                .engine
                .approve(workflow_id, nonce)
                .map_err(engine_error)?,
        )
    }

    /// The user refused the handshake.
    pub fn deny(&mut self, workflow_id: &str) -> Result<String, JsError> {
        to_json(&self.engine.deny(workflow_id).map_err(engine_error)?)
    }

    /// The user pressed Stop.
    pub fn stop(&mut self, workflow_id: &str) -> Result<String, JsError> {
        to_json(&self.engine.stop(workflow_id).map_err(engine_error)?)
    }

    /// The `BAI_RESULT` line reporting what the actions of one message did (`report_json`: JSON
    /// of [`crate::protocol::result::ResultReport`]). The engine remembers it, so when it shows
    /// up in the transcript it is recognized as its own. Save the state before posting it.
    pub fn result_line(&mut self, workflow_id: &str, report_json: &str) -> Result<String, JsError> {
        let mut value: serde_json::Value = serde_json::from_str(report_json)
            .map_err(|error| JsError::new(&format!("unreadable result report: {error}")))?;
        // Everything in a result goes to the model: the page's address (reset tokens in a
        // query), reasons and data lose anything that looks like a secret.
        super::redact_strings(&mut value);
        let report: crate::protocol::result::ResultReport = serde_json::from_value(value)
            .map_err(|error| JsError::new(&format!("unreadable result report: {error}")))?;
        self.engine
            .result_line(workflow_id, &report)
            .map_err(engine_error)
    }

    /// Every workflow the engine knows, as JSON (for the panel).
    pub fn workflows(&self) -> Result<String, JsError> {
        to_json(&self.engine.workflows())
    }

    /// The whole session state (engine and rate limits), to persist after every poll and
    /// every admitted action: a reload must neither repeat an action nor reset the limits. The
    /// text of actions held before the ACK (often a password) is blanked: it belongs in
    /// [`ChatSession::save_held_texts`], which never goes to disk.
    pub fn save(&self) -> Result<String, JsError> {
        let engine = self
            .engine
            .save()
            .map_err(|error| JsError::new(&error.to_string()))?;
        let (engine, _) =
            split_held_texts(&engine).map_err(|error| JsError::new(&error.to_string()))?;
        to_json(&SavedSession {
            engine,
            limiter: self.limiter.clone(),
        })
    }

    /// The held actions that carry typed text, as JSON (`{}` when none): for `storage.session`
    /// (memory only, cleared when the browser closes), never `storage.local`.
    pub fn save_held_texts(&self) -> Result<String, JsError> {
        let engine = self
            .engine
            .save()
            .map_err(|error| JsError::new(&error.to_string()))?;
        let (_, texts) =
            split_held_texts(&engine).map_err(|error| JsError::new(&error.to_string()))?;
        to_json(&texts)
    }

    /// Counts one action of `workflow_id` against the rate limits in `settings_json`; returns
    /// `undefined` when it may run, else `{code, message}` and the host stops the workflow.
    pub fn admit(&mut self, workflow_id: &str, now_ms: f64, settings_json: &str) -> JsValue {
        let settings: PolicySettings =
            serde_json::from_str(settings_json).unwrap_or_else(|_| PolicySettings::strictest());
        // Milliseconds since 1970 fit in a u64; negative or NaN clamp to 0.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "clamped"
        )]
        let now = now_ms.max(0.0) as u64;
        match self.limiter.admit(&settings, workflow_id, now) {
            Ok(()) => JsValue::UNDEFINED,
            Err(error) => super::error_object(error.code(), &error.to_string()),
        }
    }

    /// Stops observing the page.
    pub fn close(&mut self) {
        self.watcher = None;
    }
}
