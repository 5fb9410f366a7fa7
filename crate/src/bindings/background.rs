//! Entry points of the background worker and the panel: sites, the protocol text, the log's
//! redaction, the default policy, a picture's check. Built with the `role-background` feature:
//! extension pages load this module, no content script does.

use wasm_bindgen::prelude::*;

use super::error_object;

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

/// The default policy settings as JSON (the panel shows and edits them).
#[wasm_bindgen]
pub fn default_policy_settings() -> String {
    serde_json::to_string(&crate::policy::PolicySettings::default()).unwrap_or_default()
}

/// Whether the picture taken between the looks `first` and `second` (JSON, see
/// [`crate::pictures::Look`]), `width`×`height` image pixels, may be masked and sent for the
/// target `origin`: answers the scale per axis (JSON `{x, y}`), or rejects with the failure
/// `{code, message}` (see [`crate::pictures::check_looks`]). A look that does not parse is no
/// picture (`screenshot_masks_unavailable`).
#[wasm_bindgen]
pub fn picture_check(
    first: &str,
    second: &str,
    origin: &str,
    width: f64,
    height: f64,
) -> Result<String, JsValue> {
    use crate::pictures::{Look, PictureError, check_looks};
    let fail = |error: PictureError| error_object(error.code(), &error.to_string());
    let parse = |text: &str| {
        serde_json::from_str::<Look>(text).map_err(|_| fail(PictureError::MasksUnavailable))
    };
    let scale =
        check_looks(&parse(first)?, &parse(second)?, origin, width, height).map_err(fail)?;
    serde_json::to_string(&scale).map_err(|_| fail(PictureError::MasksUnavailable))
}

/// Whether a page on `hostname` may run the chat role ([`crate::sites::may_run_chat`]): the
/// background answers each content script with it before the script loads a module, so a
/// target page loads only the executor's module and never the chat role.
#[wasm_bindgen]
pub fn may_run_chat(hostname: &str, user_added_chat_site: bool) -> bool {
    crate::sites::may_run_chat(hostname, user_added_chat_site)
}
