//! Thin wasm-bindgen entry points for the extension's JS glue. Logic lives in `protocol` and
//! `dom`; this module converts between JS values and Rust types and nothing else.
//!
//! The extension ships three modules of this crate, one per role, so that each page loads only
//! what it uses (issue 17): `role-exec` (the executor on a target page: `exec`, `perform`,
//! `vision`), `role-chat` (the chat page: `chat`, `chat_session`, `held_text`, `line_marks`) and
//! `role-background` (the background worker and the panel: `background`, `tabs`). Tests and
//! native builds have all three.

#[cfg(feature = "role-background")]
mod background;
#[cfg(feature = "bench")]
mod bench;
#[cfg(feature = "role-chat")]
mod chat;
#[cfg(feature = "role-chat")]
mod chat_session;
#[cfg(feature = "role-exec")]
mod exec;
#[cfg(feature = "role-chat")]
pub mod held_text;
#[cfg(feature = "role-chat")]
mod line_marks;
#[cfg(feature = "role-exec")]
pub mod perform;
#[cfg(feature = "role-background")]
mod tabs;
#[cfg(feature = "role-exec")]
pub mod vision;

use wasm_bindgen::prelude::*;

#[cfg(feature = "role-background")]
pub use background::*;
#[cfg(feature = "role-chat")]
pub use chat::*;
#[cfg(feature = "role-chat")]
pub use chat_session::ChatSession;
#[cfg(feature = "role-exec")]
pub use exec::*;
#[cfg(feature = "role-exec")]
pub use perform::perform_action;
#[cfg(feature = "role-background")]
pub use tabs::owned_tabs;

/// Runs once when the module is instantiated: route Rust panics to the console with a stack,
/// instead of an opaque "unreachable executed". Not in the shipped modules: built with
/// `-C panic=immediate-abort` (`scripts/lib/wasm-pkg.sh`), a panic traps before any hook could
/// run, so the hook and its formatting of the panic were dead code there.
#[wasm_bindgen(start)]
pub fn start() {
    #[cfg(not(panic = "immediate-abort"))]
    console_error_panic_hook::set_once();
}

/// The core's version; the content script and the background report it when they start.
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_owned()
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

/// The failure `{code, message}` of a picture not taken or not sent (see
/// [`crate::pictures::PictureError`]): the glue knows what happened, the core says it.
#[cfg(any(feature = "role-chat", feature = "role-background"))]
#[wasm_bindgen]
pub fn picture_failure(code: &str, origin: &str, detail: &str) -> String {
    let error = crate::pictures::PictureError::from_code(code, origin, detail);
    let mut out = String::new();
    let mut o = crate::protocol::json_write::Object::new(&mut out);
    o.string("code", error.code());
    o.string("message", &error.to_string());
    o.end();
    out
}
