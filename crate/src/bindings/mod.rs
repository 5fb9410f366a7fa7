//! Thin wasm-bindgen entry points for the extension's JS glue. Logic lives in `protocol` and
//! `dom`; this module converts between JS values and Rust types and nothing else.

#[cfg(feature = "bench")]
mod bench;
mod chat_session;
pub mod held_text;
mod line_marks;
pub mod perform;
mod tabs;
pub mod vision;

use wasm_bindgen::prelude::*;

pub use chat_session::ChatSession;
pub use perform::perform_action;
pub use tabs::owned_tabs;

/// Runs once when the module is instantiated: route Rust panics to the console with a stack,
/// instead of an opaque "unreachable executed".
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The core's version; the content script and the background report it when they start.
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_owned()
}

/// What the content script needs to know about the page it runs in, as JSON
/// ([`crate::chat::ChatPageStatus`]). `user_chat_site`: the user added this page's site as a
/// chat site (Settings › Sites); elsewhere outside the built-in hosts the page is never a chat
/// page, whatever its markup (see [`crate::sites::may_run_chat`]).
#[wasm_bindgen]
pub fn chat_page_status(user_chat_site: Option<bool>) -> Result<String, JsError> {
    let window = web_sys::window().ok_or_else(|| JsError::new("no window"))?;
    let document = window
        .document()
        .ok_or_else(|| JsError::new("no document"))?;
    let hostname = window.location().hostname().unwrap_or_default();
    let user_chat_site = user_chat_site.unwrap_or(false);
    let status = if crate::sites::may_run_chat(&hostname, user_chat_site) {
        crate::chat::page_status(&document, &hostname, user_chat_site)
    } else {
        crate::chat::ChatPageStatus::not_a_chat()
    };
    serde_json::to_string(&status).map_err(|error| JsError::new(&error.to_string()))
}

/// Writes `line` into the chat's composer and sends it (unless `insert_only`), then confirms it
/// appeared as a user message. `site`: the layout profile the chat session reads the page with
/// ([`ChatSession::site`]); without it, the profile that best matches the page. Resolves to
/// `"sent_and_confirmed"` or `"inserted"`; rejects with an object `{code, message}` (see
/// [`crate::chat::composer::ComposerError`]).
#[wasm_bindgen]
pub async fn post_line(
    line: String,
    insert_only: bool,
    site: Option<String>,
) -> Result<JsValue, JsValue> {
    use crate::chat::composer::{self, SendMode};
    let document = web_sys::window()
        .and_then(|window| window.document())
        .ok_or_else(|| JsValue::from_str("no document"))?;
    let hostname = web_sys::window().map(|w| w.location().hostname().unwrap_or_default());
    let named = site.and_then(|site| {
        crate::chat::SITES
            .iter()
            .find(|profile| profile.name == site)
    });
    let profile = named
        .or_else(|| {
            crate::chat::choose_profile(&document, hostname.as_deref().unwrap_or_default())
                .map(|found| found.profile)
        })
        .ok_or_else(|| error_object("composer_not_found", "this is not a chat page"))?;
    let mode = if insert_only {
        SendMode::InsertOnly
    } else {
        SendMode::Send
    };
    match composer::post_line(&document, profile, &line, mode).await {
        Ok(outcome) => Ok(JsValue::from_str(match outcome {
            composer::PostOutcome::SentAndConfirmed => "sent_and_confirmed",
            composer::PostOutcome::Inserted => "inserted",
        })),
        Err(error) => Err(error_object(error.code(), &error.to_string())),
    }
}

/// Makes the next element ref number at least `n`: the background keeps one counter per tab, so
/// refs stay unique across the pages a tab shows and a ref from an earlier page never names an
/// element of a later one.
#[wasm_bindgen]
pub fn set_ref_floor(n: u32) {
    crate::dom::set_ref_floor(n);
}

/// The number the next new element ref will get (the background stores it per tab).
#[wasm_bindgen]
pub fn next_ref_number() -> u32 {
    crate::dom::next_ref_number()
}

/// Whether this page was observed (so a diff against that observation means something).
#[wasm_bindgen]
pub fn has_observation() -> bool {
    crate::dom::refs::has_baseline()
}

/// What changed since this page's last observation (JSON of [`crate::dom::ObservationDiff`]),
/// at most `max_elements` entries; makes the page as it is now the next baseline.
#[wasm_bindgen]
pub fn observe_changes(max_elements: u32) -> Result<String, JsError> {
    serde_json::to_string(&crate::dom::observe_changes(max_elements))
        .map_err(|error| JsError::new(&error.to_string()))
}

/// The site of an address the user typed or a tab's URL, as JSON ([`crate::sites::Site`]);
/// throws `{code, message}` ([`crate::sites::SiteError`]) when it is not one web site.
#[wasm_bindgen]
pub fn site_for_address(address: &str) -> Result<String, JsValue> {
    match crate::sites::site_for_address(address) {
        Ok(site) => {
            serde_json::to_string(&site).map_err(|error| JsValue::from_str(&error.to_string()))
        }
        Err(error) => Err(error_object(error.code(), &error.to_string())),
    }
}

/// The public chat sites the panel offers to turn on, as JSON
/// ([`crate::sites::OPTIONAL_CHAT_SITES`]).
#[wasm_bindgen]
pub fn optional_chat_sites() -> String {
    serde_json::to_string(crate::sites::OPTIONAL_CHAT_SITES).unwrap_or_default()
}

/// The protocol text users paste into ChatGPT, with `workflow_id` in place of the placeholder.
#[wasm_bindgen]
pub fn protocol_prompt(workflow_id: &str) -> String {
    crate::protocol::prompt_text(workflow_id)
}

/// A DOM failure as JSON for the glue. Where the page offers something close to what the
/// selector asked for, it carries `hints` (observation lines with refs): the model can act on
/// those next instead of guessing again.
fn failure_with_hints(
    action: &crate::protocol::Action,
    error: &crate::dom::ActionError,
) -> serde_json::Value {
    let hints = crate::dom::hints_for_failure(action, error);
    let mut value =
        serde_json::to_value(error).unwrap_or_else(|_| serde_json::json!({ "code": error.code() }));
    if let (Some(object), false) = (value.as_object_mut(), hints.is_empty()) {
        object.insert("hints".into(), hints.into());
    }
    // The failure goes to the log, the panel and the model: text read from the page in it (a
    // field's actual value, a candidate's label) loses anything that looks like a secret.
    redact_strings(&mut value);
    value
}

/// A chat-session event as the log (and the audit export) may keep it, by structure: the event
/// is parsed, every string under a `text` key (typed text; the key found however it was
/// escaped) becomes `•••`, record lines quoted inside strings are masked the same way
/// ([`crate::protocol::redact_typed_text`]), and content-pattern secrets are redacted from
/// every string. Unparseable input gives `{"kind":"unreadable_event"}`.
#[wasm_bindgen]
pub fn redact_log_event(event_json: &str) -> String {
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(event_json) else {
        return r#"{"kind":"unreadable_event"}"#.to_owned();
    };
    redact_log_value(&mut value);
    value.to_string()
}

fn redact_log_value(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) => {
            *text = crate::dom::redact::redact_secrets(&crate::protocol::redact_typed_text(text));
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact_log_value),
        serde_json::Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                if key == "text" && field.is_string() {
                    *field = serde_json::Value::from("•••");
                } else if is_identifier_key(key) && field.is_string() {
                    // Workflow ids, nonces and conversation addresses are BAI's own
                    // identifiers (often UUIDs, which look like tokens): kept as they are.
                } else {
                    redact_log_value(field);
                }
            }
        }
        _ => {}
    }
}

/// Keys whose string values are identifiers BAI or the protocol made, not page content.
fn is_identifier_key(key: &str) -> bool {
    key == "conversation" || key.ends_with("_id") || key.contains("nonce")
}

/// Replaces card-like numbers and token-like words in every string of `value`
/// ([`crate::dom::redact::redact_secrets`]).
pub(super) fn redact_strings(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) => *text = crate::dom::redact::redact_secrets(text),
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact_strings),
        serde_json::Value::Object(fields) => fields.values_mut().for_each(redact_strings),
        _ => {}
    }
}

fn error_object(code: &str, message: &str) -> JsValue {
    let object = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&object, &"code".into(), &code.into());
    let _ = js_sys::Reflect::set(&object, &"message".into(), &message.into());
    object.into()
}

/// Stop: ends every action running on this page at its next check (waiting for its element, a
/// `wait_for` condition, a review), before it touches anything more, and drops every element
/// held for a question, so no earlier Allow can act any more.
#[wasm_bindgen]
pub fn cancel_actions() {
    crate::dom::cancel::cancel_all();
    crate::dom::hold::drop_all();
}

/// The default policy settings as JSON (the panel shows and edits them).
#[wasm_bindgen]
pub fn default_policy_settings() -> String {
    serde_json::to_string(&crate::policy::PolicySettings::default()).unwrap_or_default()
}
