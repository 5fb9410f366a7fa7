//! Thin wasm-bindgen entry points for the extension's JS glue. Logic lives in `protocol` and
//! `dom`; this module converts between JS values and Rust types and nothing else.

use wasm_bindgen::prelude::*;

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
/// ([`crate::chat::ChatPageStatus`]).
#[wasm_bindgen]
pub fn chat_page_status() -> Result<String, JsError> {
    let window = web_sys::window().ok_or_else(|| JsError::new("no window"))?;
    let document = window.document().ok_or_else(|| JsError::new("no document"))?;
    let hostname = window.location().hostname().unwrap_or_default();
    let status = crate::chat::page_status(&document, &hostname);
    serde_json::to_string(&status).map_err(|error| JsError::new(&error.to_string()))
}
