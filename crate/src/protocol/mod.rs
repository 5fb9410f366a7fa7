//! The BAI protocol engine (BAI/0.2 and BAI/0.3), sans-IO.
//!
//! Nothing in this module touches a browser API, reads a clock or draws random numbers: the host
//! passes nonces, approvals and time in. That keeps it deterministic, testable natively and
//! usable unchanged from the wasm content script and from the `bai` CLI.
//!
//! - [`fence`]: CommonMark fenced code blocks, for "the only ```` ```bai ```` block".
//! - [`scanner`]: finds `PREFIX {json}` records and ```` ```bai ```` blocks in a message's text.
//! - [`json`]: the one JSON reader; refuses duplicate keys and what JSON readers disagree on.
//! - [`record`]: typed handshakes, ACKs and action records for each version.
//! - [`validate`]: payload schemas, turning `type` + `payload` into an [`Action`].
//! - [`result`]: `BAI_RESULT` lines, the extension's report to the model (`result_lines`).
//! - [`continuation`]: results over several lines (`chunked_results`) and their `more` tokens.
//! - [`tabs`]: the tabs a workflow owns (`tabs`), their names and their refs.
//! - [`engine`]: the state machine ([`Engine`]) with exactly-once execution.
//! - [`error`]: [`RejectCode`] (what the chat did wrong) and [`EngineError`] (what the host did
//!   wrong). The codes are listed in `ERRORS.md`.
//! - [`replay`]: replays a transcript file through the engine, as the `bai` CLI and the
//!   conformance suite do.

pub mod action;
pub mod continuation;
pub mod decision_write;
pub mod engine;
pub mod error;
pub mod fence;
pub mod fields;
pub mod fingerprint;
pub mod join;
pub mod json;
pub mod json_write;
pub mod marks;
pub mod negotiation;
pub mod outcome;
pub mod prompt;
pub mod quote;
pub mod record;
pub mod refusal;
pub mod replay;
pub mod result;
pub mod saved_session;

pub mod scanner;
pub mod secret_query;
pub mod selector;
pub mod small_sort;
pub mod sorted_map;
pub mod tabs;
pub mod validate;
pub mod word_list;
pub mod workflow;

pub use action::Action;
pub use engine::{
    Decision, Engine, MAX_ACTIONS_PER_WORKFLOW, MAX_HELD_ACTIONS, MAX_MESSAGES,
    MAX_STALE_WORKFLOWS, MAX_WORKFLOWS, Message, RejectedAction, Role,
};
pub use error::{EXCERPT_MAX_CHARS, EngineError, RejectCode, Rejection, redact_typed_text};
pub use prompt::prompt_text;
pub use record::{
    Capability, ProtocolVersion, ack_line, ack_line_with_capabilities, is_valid_nonce,
};
pub use result::{ActionResult, PageInfo, ResultReport, ResultStatus};
pub use selector::{Selector, SelectorKind};
pub use workflow::{WorkflowInfo, WorkflowState};
