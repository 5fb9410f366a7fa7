//! The BAI protocol engine (BAI/0.2 and BAI/0.3), sans-IO.
//!
//! Nothing in this module touches a browser API, reads a clock or draws random numbers: the host
//! passes nonces, approvals and time in. That keeps it deterministic, testable natively and
//! usable unchanged from the wasm content script and from the `bai` CLI.

pub mod action;
pub mod selector;

pub use action::Action;
pub use selector::{Selector, SelectorKind};
