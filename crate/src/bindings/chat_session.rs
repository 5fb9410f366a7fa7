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
use crate::chat::transcript::{TranscriptReader, observer_options};
use crate::chat::{SITES, SiteProfile, page_status};
use crate::policy::{PolicySettings, RateLimiter};
use crate::protocol::{Decision, Engine, EngineError};

/// What one [`ChatSession::poll`] returns to JS.
#[derive(Debug, Serialize)]
struct PollResult<'a> {
    /// The engine's decisions, in order.
    decisions: &'a [Decision],
    /// Messages in the transcript now.
    messages: usize,
    /// Messages read from the DOM since the session started (incrementality check).
    reads: u64,
}

/// The content script's session on a chat tab.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ChatSession {
    engine: Engine,
    reader: Rc<RefCell<TranscriptReader>>,
    watcher: Option<MutationWatcher>,
    /// The first poll observes the whole transcript at once: an old conversation opened, or the
    /// page reloaded. Later polls feed only what changed.
    first_poll_done: bool,
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

/// The site profile for this page, or an error the panel can show.
fn profile_for_page() -> Result<&'static SiteProfile, JsError> {
    let window = web_sys::window().ok_or_else(|| JsError::new("no window"))?;
    let document = window
        .document()
        .ok_or_else(|| JsError::new("no document"))?;
    let hostname = window.location().hostname().unwrap_or_default();
    let status = page_status(&document, &hostname);
    let name = status.site.ok_or_else(|| JsError::new("not a chat page"))?;
    SITES
        .iter()
        .find(|profile| profile.name == name)
        .ok_or_else(|| JsError::new("unknown site profile"))
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
        let profile = profile_for_page()?;
        let document = web_sys::window()
            .and_then(|window| window.document())
            .ok_or_else(|| JsError::new("no document"))?;
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
        reader.borrow_mut().full_scan();
        let body = document.body().ok_or_else(|| JsError::new("no body"))?;
        let reader_for_observer = Rc::clone(&reader);
        let watcher = MutationWatcher::new(&body, &observer_options(), move |records| {
            reader_for_observer.borrow_mut().note_mutations(records);
            let _ = notify.call0(&JsValue::NULL);
        })
        .map_err(|_| JsError::new("could not observe the page"))?;
        Ok(ChatSession {
            engine,
            reader,
            watcher: Some(watcher),
            first_poll_done: false,
            opened_fresh,
            limiter,
        })
    }

    /// Reads what changed and feeds it to the engine. Returns JSON
    /// `{decisions: [...], messages, reads}`. Save the state (see [`ChatSession::save`]) before
    /// acting on the decisions, so a reload in between never repeats an action.
    pub fn poll(&mut self) -> Result<String, JsError> {
        let mut reader = self.reader.borrow_mut();
        let changes = reader.take_changes();
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
            decisions: &decisions,
            messages: reader.len(),
            reads: reader.reads(),
        })
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
