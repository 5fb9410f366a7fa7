//! The DOM layer: finds elements and performs validated actions on the live page, through
//! web-sys. Built only for wasm32.
//!
//! - [`selector`]: one engine per selector kind behind [`selector::SelectorEngine`], and
//!   [`selector::resolve`] (exactly one element or a typed error).
//! - [`action`]: one file per action; [`action::execute_on`] is the entry point the bindings
//!   call with the element the review pinned ([`execute`] resolves the selector every attempt).
//! - [`review`]: what an action really activates, as facts for the policy; [`hold`]: elements
//!   held across the user's question, acted on after Allow only if unchanged
//!   (`target_changed`).
//! - [`observe`]: the page as lines with element refs (`@e3 button "Save"`), and the diff since
//!   the previous observation; [`refs`] keeps the ref registry (per document, numbers never
//!   reused); [`hints`] suggests elements after a selector failed; [`secret`] decides which
//!   fields are secret and refuses anything that could test their values; [`redact`] hides
//!   secrets in text read back.
//! - Shared helpers: [`accname`] (W3C accessible names), [`roles`] (implicit roles),
//!   [`visibility`], [`describe`] (short element descriptions), [`matching`] (whitespace
//!   normalization), [`tree`] (shadow roots and iframes).
//! - [`error::ActionError`] and [`report::ActionReport`] are what the extension shows and sends
//!   back to the model; the error codes are listed in `ERRORS.md`.
//!
//! Decisions where the issue was silent:
//! - Waiting: errors that time may cure (`not_found`, `not_visible`, `disabled`, `covered`,
//!   `not_stable`, `detached`, `read_only`, `index_out_of_range`) are retried until
//!   [`ExecOptions::timeout_ms`] and the last one is returned, so the model hears the concrete
//!   reason rather than a bare `timeout`. `ambiguous` fails at once, as Playwright's strict mode.
//! - CSS descends into shadow roots scope by scope: combinators do not cross a shadow boundary
//!   (`sl-input input` matches nothing, `input` matches the inner field). XPath runs on the top
//!   document only. Matches come in tree order, each shadow root right after its host and each
//!   same-origin frame right after its iframe; `index` counts in that order.
//! - Nodes inside iframes belong to another JS realm, so the layer never relies on
//!   `instanceof` (`dyn_ref`) for DOM nodes; [`tree`] casts by `nodeType`.
//! - `input_text` on a `<label>` types into its control; on a web component into the first field
//!   in its shadow root; on a `<select>` it picks the option whose value or label equals the text.
//! - Password fields: see "What explicitly targets a password field" in `ERRORS.md`.
//! - The click's events go to the deepest element at the click point (when it is the target or
//!   inside it), as a real click would; focus moves to the nearest focusable ancestor (or back to
//!   the document when there is none), since a synthetic mousedown does not move it.
//! - Focus changes go through [`focus`], which fires the focus and blur events the browser holds
//!   back in a background tab (where BAI acts while the user is in the chat).

pub mod accname;
pub mod action;
pub mod address;
pub mod cancel;
pub mod describe;
pub mod drawn_text;
pub mod error;
#[doc(hidden)]
pub mod fixture;
pub(crate) mod focus;
pub mod hints;
pub mod hold;
pub(crate) mod js;
pub mod matching;
pub mod observe;
pub mod redact;
pub mod refs;
pub mod report;
pub mod review;
pub mod roles;
pub mod secret;
pub mod secret_field;
pub mod selector;
pub mod settle;
pub(crate) mod text_color;
pub mod tree;
pub mod visibility;
pub mod vision;

pub use action::execute;
pub use error::ActionError;
pub use hints::hints_for_failure;
pub use observe::{Observation, ObservationDiff, observe, observe_changes};
pub use refs::{next_ref_number, set_ref_floor};
pub use report::{ActionReport, Effect, ExecOptions};
