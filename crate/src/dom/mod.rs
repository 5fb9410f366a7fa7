//! The DOM layer: finds elements and performs validated actions on the live page, through
//! web-sys. Built only for wasm32.
//!
//! - [`selector`]: one engine per selector kind behind [`selector::SelectorEngine`], and
//!   [`selector::resolve`] (exactly one element or a typed error).
//! - [`action`]: one file per action; [`execute`] is the entry point the bindings call.
//! - Shared helpers: [`accname`] (W3C accessible names), [`roles`] (implicit roles),
//!   [`visibility`], [`describe`] (short element descriptions), [`matching`] (whitespace
//!   normalization), [`tree`] (shadow roots and iframes).
//! - [`error::ActionError`] and [`report::ActionReport`] are what the extension shows and sends
//!   back to the model; the error codes are listed in `ERRORS.md`.

pub mod accname;
pub mod action;
pub mod describe;
pub mod error;
#[doc(hidden)]
pub mod fixture;
mod js;
pub mod matching;
pub mod report;
pub mod roles;
pub mod selector;
pub mod tree;
pub mod visibility;

pub use action::execute;
pub use error::ActionError;
pub use report::{ActionReport, Effect, ExecOptions};
