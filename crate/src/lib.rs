//! # bai
//!
//! The core of the BAI browser extension: a model in ChatGPT writes `BAI_ACTION` lines, and this
//! crate decides which of them may run and runs them on a live page.
//!
//! Three layers, each depending only on the one above it:
//!
//! 1. [`protocol`]: the sans-IO protocol engine. Chat messages in, decisions out. No browser, no
//!    clock, no randomness of its own; builds and tests natively.
//!    [`policy`] is pure too: which validated actions may run without asking the user, and
//!    [`sites`]: which sites BAI may touch and which host permission covers an address.
//! 2. `dom` (wasm32 only): finds elements and performs actions on the live DOM through web-sys.
//!    `chat` (wasm32 only) is the part of that layer that reads chat pages.
//! 3. `bindings` (wasm32 only): thin wasm-bindgen entry points used by the extension's JS glue.

pub mod pictures;
pub mod policy;
pub mod protocol;
pub mod sites;

#[cfg(target_arch = "wasm32")]
pub mod dom;

#[cfg(target_arch = "wasm32")]
pub mod chat;

#[cfg(target_arch = "wasm32")]
pub mod bindings;

/// The crate version, shown in the panel and reported by the content script when it starts.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
