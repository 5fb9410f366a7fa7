//! Why the engine refused a record, and how the host can misuse the engine.
//!
//! Two kinds of failure, kept apart as in rustls / quinn-proto:
//!
//! - [`RejectCode`]: the *chat* contained something the engine will not act on (the model or the
//!   page misbehaved, or the input is stale). It is reported as a [`crate::protocol::Decision::Reject`]
//!   and never stops the engine. Codes are stable snake_case strings: the panel shows them, the
//!   model receives them, tests compare them.
//! - [`EngineError`]: the *host* called the engine wrongly (approved an unknown workflow, passed a
//!   malformed nonce). Returned as `Err`, with no state change.
//!
//! An incomplete record in a message that is still streaming is neither: it is "not yet".

use serde::{Deserialize, Serialize};

use super::quote::Quoted;

/// Longest excerpt of offending text carried by a rejection, in characters.
pub const EXCERPT_MAX_CHARS: usize = 200;

/// Why a record in the chat was refused. Each variant has a stable [`code`](Self::code).
///
/// | code | meaning |
/// |---|---|
/// | `action_from_user` | A `BAI_ACTION` line appeared in a user message; only the assistant may ask for actions. |
/// | `ack_from_assistant` | A `BAI_ACK` line appeared in an assistant message; only the extension writes ACKs. |
/// | `foreign_ack` | A `BAI_ACK` line this extension did not write (other workflow, other nonce, malformed). |
/// | `stale_handshake` | A handshake that was not the newest message when it was first seen (an old conversation). |
/// | `multiple_handshake_blocks` | One message held more than one handshake (```` ```bai ```` or `~~~bai` block of any fence length, `BAI_HANDSHAKE` line, or any line that could open a `bai` block to some renderer). |
/// | `invalid_handshake` | A ```` ```bai ```` block or `BAI_HANDSHAKE` line that is not a valid handshake. |
/// | `unsupported_protocol` | A handshake or record named a protocol other than `BAI/0.2` or `BAI/0.3`. |
/// | `invalid_workflow_id` | A workflow_id that is empty, longer than 128 characters, or has control characters. |
/// | `placeholder_workflow_id` | A workflow_id that is still the template placeholder (`{{RANDOM_UUID}}`) or the protocol's example id (`wf_123`). |
/// | `missing_json` | A record prefix not followed by a JSON object on the same line. |
/// | `unterminated_record` | A record whose JSON object is still open at the end of its line. |
/// | `invalid_json` | A record whose JSON does not parse, is not an object, or is read differently by different JSON readers (a lone surrogate, a number beyond 2^53 or out of range, `-0`, an escaped or non-ASCII key, text after the object). |
/// | `duplicate_key` | A record, handshake, ACK or result whose JSON names the same key twice in one object (at any depth, after decoding escapes). |
/// | `invalid_record` | A record missing a required field (`protocol`, `workflow_id`, `type`, `payload`), or with a wrong field type. |
/// | `unknown_workflow` | A record for a workflow_id no handshake introduced. |
/// | `not_acknowledged` | A record for a workflow whose handshake was never acknowledged here (old conversation). |
/// | `workflow_finished` | A record for a workflow that is already done, failed, superseded, stopped or denied. |
/// | `before_ack` | A BAI/0.3 action written before the extension's ACK. |
/// | `protocol_mismatch` | A record whose `protocol` differs from its workflow's handshake. |
/// | `invalid_kind` | A BAI/0.3 action without `"kind":"action"`. |
/// | `nonce_mismatch` | A BAI/0.3 action whose `ack_nonce` is missing or differs from the ACK's. |
/// | `invalid_action_id` | An `action_id` that is not a whole number from 1 upwards. |
/// | `id_out_of_sequence` | An `action_id` that skips ahead (each action must be the previous + 1). |
/// | `id_reused` | An `action_id` already used, with different content. |
/// | `unknown_action_type` | An action `type` this extension does not know. |
/// | `invalid_payload` | An action payload that does not fit its type (missing field, unknown selector type, value out of range). |
/// | `too_many_actions` | A workflow went over the action limit ([`MAX_ACTIONS_PER_WORKFLOW`](crate::protocol::MAX_ACTIONS_PER_WORKFLOW)). |
/// | `too_many_workflows` | Too many workflows are waiting or active at once in this conversation. |
/// | `capability_not_negotiated` | An action type, selector kind or field (`timeout_ms`, `on_error`, `retries`, `reason`; a selector's `exact`, `index`, `name`; `tab`) that needs a capability (`extended_actions`, `observe`, `chunked_results`, `tabs`) the handshake did not list. |
/// | `foreign_result` | A `BAI_RESULT` line in a user message that this extension did not issue. |
/// | `result_from_assistant` | A `BAI_RESULT` line in an assistant message; only the extension writes results. |
/// | `unknown_continuation` | A `more` whose token this workflow never issued (made up, or another workflow's). |
/// | `continuation_used` | A `more` whose token was already used: each part is given once. |
/// | `continuation_stale` | A `more` whose token a newer result's continuation replaced. |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RejectCode {
    /// A `BAI_ACTION` line appeared in a user message; only the assistant may ask for actions.
    ActionFromUser,
    /// A `BAI_ACK` line appeared in an assistant message; only the extension writes ACKs.
    AckFromAssistant,
    /// A `BAI_ACK` line this extension did not write.
    ForeignAck,
    /// A handshake that was not the newest message when first seen (an old conversation).
    StaleHandshake,
    /// One message held more than one handshake.
    MultipleHandshakeBlocks,
    /// A ```` ```bai ```` block or `BAI_HANDSHAKE` line that is not a valid handshake.
    InvalidHandshake,
    /// A protocol other than `BAI/0.2` or `BAI/0.3`.
    UnsupportedProtocol,
    /// A workflow_id that is empty, too long, or has control characters.
    InvalidWorkflowId,
    /// A workflow_id that is still the template placeholder, or the protocol's example id.
    PlaceholderWorkflowId,
    /// A record prefix not followed by a JSON object on the same line.
    MissingJson,
    /// A record whose JSON object is still open at the end of its line.
    UnterminatedRecord,
    /// A record whose JSON does not parse, is not an object, or is read differently by
    /// different JSON readers.
    InvalidJson,
    /// A record whose JSON names the same key twice in one object.
    DuplicateKey,
    /// A record missing a required field, or with a wrong field type.
    InvalidRecord,
    /// A record for a workflow_id no handshake introduced.
    UnknownWorkflow,
    /// A record for a workflow whose handshake was never acknowledged here.
    NotAcknowledged,
    /// A record for a workflow that is already over.
    WorkflowFinished,
    /// A BAI/0.3 action written before the extension's ACK.
    BeforeAck,
    /// A record whose `protocol` differs from its workflow's.
    ProtocolMismatch,
    /// A BAI/0.3 action without `"kind":"action"`.
    InvalidKind,
    /// A BAI/0.3 action whose `ack_nonce` is missing or wrong.
    NonceMismatch,
    /// An `action_id` that is not a whole number from 1 upwards.
    InvalidActionId,
    /// An `action_id` that skips ahead.
    IdOutOfSequence,
    /// An `action_id` already used, with different content.
    IdReused,
    /// An action `type` this extension does not know.
    UnknownActionType,
    /// An action payload that does not fit its type.
    InvalidPayload,
    /// A workflow went over the action limit.
    TooManyActions,
    /// Too many workflows waiting or active at once.
    TooManyWorkflows,
    /// An action type, selector kind or field whose capability the handshake did not list.
    CapabilityNotNegotiated,
    /// A `BAI_RESULT` line in a user message that this extension did not issue.
    ForeignResult,
    /// A `BAI_RESULT` line in an assistant message.
    ResultFromAssistant,
    /// A `more` whose token this workflow never issued.
    UnknownContinuation,
    /// A `more` whose token was already used.
    ContinuationUsed,
    /// A `more` whose token a newer continuation replaced.
    ContinuationStale,
}

impl RejectCode {
    /// Every code, in documentation order.
    pub const ALL: &'static [RejectCode] = &[
        Self::ActionFromUser,
        Self::AckFromAssistant,
        Self::ForeignAck,
        Self::StaleHandshake,
        Self::MultipleHandshakeBlocks,
        Self::InvalidHandshake,
        Self::UnsupportedProtocol,
        Self::InvalidWorkflowId,
        Self::PlaceholderWorkflowId,
        Self::MissingJson,
        Self::UnterminatedRecord,
        Self::InvalidJson,
        Self::DuplicateKey,
        Self::InvalidRecord,
        Self::UnknownWorkflow,
        Self::NotAcknowledged,
        Self::WorkflowFinished,
        Self::BeforeAck,
        Self::ProtocolMismatch,
        Self::InvalidKind,
        Self::NonceMismatch,
        Self::InvalidActionId,
        Self::IdOutOfSequence,
        Self::IdReused,
        Self::UnknownActionType,
        Self::InvalidPayload,
        Self::TooManyActions,
        Self::TooManyWorkflows,
        Self::CapabilityNotNegotiated,
        Self::ForeignResult,
        Self::ResultFromAssistant,
        Self::UnknownContinuation,
        Self::ContinuationUsed,
        Self::ContinuationStale,
    ];

    /// The stable snake_case code.
    pub fn code(self) -> &'static str {
        match self {
            Self::ActionFromUser => "action_from_user",
            Self::AckFromAssistant => "ack_from_assistant",
            Self::ForeignAck => "foreign_ack",
            Self::StaleHandshake => "stale_handshake",
            Self::MultipleHandshakeBlocks => "multiple_handshake_blocks",
            Self::InvalidHandshake => "invalid_handshake",
            Self::UnsupportedProtocol => "unsupported_protocol",
            Self::InvalidWorkflowId => "invalid_workflow_id",
            Self::PlaceholderWorkflowId => "placeholder_workflow_id",
            Self::MissingJson => "missing_json",
            Self::UnterminatedRecord => "unterminated_record",
            Self::InvalidJson => "invalid_json",
            Self::DuplicateKey => "duplicate_key",
            Self::InvalidRecord => "invalid_record",
            Self::UnknownWorkflow => "unknown_workflow",
            Self::NotAcknowledged => "not_acknowledged",
            Self::WorkflowFinished => "workflow_finished",
            Self::BeforeAck => "before_ack",
            Self::ProtocolMismatch => "protocol_mismatch",
            Self::InvalidKind => "invalid_kind",
            Self::NonceMismatch => "nonce_mismatch",
            Self::InvalidActionId => "invalid_action_id",
            Self::IdOutOfSequence => "id_out_of_sequence",
            Self::IdReused => "id_reused",
            Self::UnknownActionType => "unknown_action_type",
            Self::InvalidPayload => "invalid_payload",
            Self::TooManyActions => "too_many_actions",
            Self::TooManyWorkflows => "too_many_workflows",
            Self::CapabilityNotNegotiated => "capability_not_negotiated",
            Self::ForeignResult => "foreign_result",
            Self::ResultFromAssistant => "result_from_assistant",
            Self::UnknownContinuation => "unknown_continuation",
            Self::ContinuationUsed => "continuation_used",
            Self::ContinuationStale => "continuation_stale",
        }
    }

    /// A plain-language sentence for the code in general, saying what to do. A rejection carries
    /// a more specific [`Rejection::reason`].
    pub fn message(self) -> &'static str {
        match self {
            Self::ActionFromUser => {
                "An action line was found in a user message. Only the assistant can ask for actions; it was ignored."
            }
            Self::AckFromAssistant => {
                "An ACK line was found in an assistant message. Only the extension writes ACK lines; it was ignored."
            }
            Self::ForeignAck => {
                "An ACK line was found that this extension did not write. It was ignored; only the extension's own ACK counts."
            }
            Self::StaleHandshake => {
                "This handshake is from earlier in the conversation, so it was not acknowledged. Ask the model for a new handshake."
            }
            Self::MultipleHandshakeBlocks => {
                "The message holds more than one handshake. Ask the model to send exactly one ```bai block."
            }
            Self::InvalidHandshake => {
                "The handshake is not valid. Ask the model to resend the handshake exactly as the protocol shows."
            }
            Self::UnsupportedProtocol => {
                "The protocol version is not supported. Use BAI/0.3 (BAI/0.2 is also accepted)."
            }
            Self::InvalidWorkflowId => {
                "The workflow_id is not valid. Use 1 to 128 characters without control characters."
            }
            Self::PlaceholderWorkflowId => {
                "The workflow_id is the template placeholder or the protocol's example. Ask the model to use a fresh random id."
            }
            Self::MissingJson => {
                "A record prefix is not followed by a JSON object on the same line. Write the prefix and the JSON on one line."
            }
            Self::UnterminatedRecord => {
                "A record's JSON is not closed on its line. Write each record complete on a single line."
            }
            Self::InvalidJson => {
                "A record's JSON could not be read. Write one valid JSON object after the prefix."
            }
            Self::DuplicateKey => {
                "A record names the same key twice, so readers could disagree on its value. Write each key once."
            }
            Self::InvalidRecord => {
                "A record is missing a required field or has a field of the wrong type. Follow the protocol's record format."
            }
            Self::UnknownWorkflow => {
                "A record names a workflow that was never started. Use the workflow_id of the acknowledged handshake."
            }
            Self::NotAcknowledged => {
                "A record names a workflow this extension never acknowledged. Start a new handshake."
            }
            Self::WorkflowFinished => {
                "A record names a workflow that is already over. Start a new handshake for more actions."
            }
            Self::BeforeAck => {
                "An action was written before the extension's ACK. Wait for the ACK line, then send actions with its ack_nonce."
            }
            Self::ProtocolMismatch => {
                "A record's protocol differs from its handshake. Use the same protocol as the handshake."
            }
            Self::InvalidKind => {
                "A BAI/0.3 action must carry \"kind\":\"action\". Add it and resend."
            }
            Self::NonceMismatch => {
                "The action's ack_nonce does not match the ACK. Copy the ack_nonce from the ACK line exactly."
            }
            Self::InvalidActionId => {
                "The action_id must be a whole number starting at 1. Number actions 1, 2, 3, ..."
            }
            Self::IdOutOfSequence => {
                "An action skipped an id. Each action_id must be the previous one plus 1."
            }
            Self::IdReused => {
                "An action_id was used again with different content. Use the next unused id for a new action."
            }
            Self::UnknownActionType => {
                "The action type is not known. Use click, input_text, wait, scroll or done."
            }
            Self::InvalidPayload => {
                "The action's payload does not fit its type. Check the fields the protocol gives for that type."
            }
            Self::TooManyActions => {
                "The workflow has too many actions. Finish it with done and start a new handshake."
            }
            Self::TooManyWorkflows => {
                "Too many workflows are open in this conversation. Stop or finish one first."
            }
            Self::CapabilityNotNegotiated => {
                "The action (its type, selector kind or one of its fields) needs a capability the handshake did not ask for. Start a new handshake that lists it in \"capabilities\"."
            }
            Self::ForeignResult => {
                "A result line was found that this extension did not write. It was ignored; only the extension's own results count."
            }
            Self::ResultFromAssistant => {
                "A result line was found in an assistant message. Only the extension writes BAI_RESULT lines; it was ignored."
            }
            Self::UnknownContinuation => {
                "A more action named a token this workflow never issued. Use the token of the last result's continuation."
            }
            Self::ContinuationUsed => {
                "A more action named a token that was already used. Each part is given once; use the newest result's continuation token."
            }
            Self::ContinuationStale => {
                "A more action named a token that a newer result replaced. Use the newest result's continuation token."
            }
        }
    }
}

impl std::fmt::Display for RejectCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// One refused record: what, why, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejection {
    /// The stable code.
    pub code: RejectCode,
    /// A plain-language, specific reason that says what to do ("action 3 skipped an id:
    /// expected 2").
    pub reason: String,
    /// Index of the message in the transcript.
    pub message_index: usize,
    /// The offending text, at most [`EXCERPT_MAX_CHARS`] characters.
    pub excerpt: String,
    /// The workflow the record belongs to, when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow_id: Option<String>,
    /// The record's action_id, when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_id: Option<u64>,
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.code(), self.reason)
    }
}

/// The host called the engine wrongly. No state changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// No workflow with this id.
    #[error("no workflow {} is known", Quoted(.workflow_id))]
    UnknownWorkflow {
        /// The id passed in.
        workflow_id: String,
    },
    /// The workflow is not waiting for approval (already acknowledged, denied or over).
    #[error("workflow {} is not waiting for approval (it is {state})", Quoted(.workflow_id))]
    NotAwaitingApproval {
        /// The id passed in.
        workflow_id: String,
        /// Its current state.
        state: crate::protocol::WorkflowState,
    },
    /// The workflow is already over.
    #[error("workflow {} is already over (it is {state})", Quoted(.workflow_id))]
    AlreadyFinished {
        /// The id passed in.
        workflow_id: String,
        /// Its current state.
        state: crate::protocol::WorkflowState,
    },
    /// The workflow's handshake did not negotiate `result_lines`, so no result may be posted.
    #[error("workflow {} did not negotiate the result_lines capability", Quoted(.workflow_id))]
    ResultsNotNegotiated {
        /// The id passed in.
        workflow_id: String,
    },
    /// The workflow was never acknowledged, so a result would arrive before its ACK.
    #[error("workflow {} has not been acknowledged (it is {state})", Quoted(.workflow_id))]
    NotAcknowledged {
        /// The id passed in.
        workflow_id: String,
        /// Its current state.
        state: crate::protocol::WorkflowState,
    },
    /// An outcome was reported for an action that is not running (not begun, or already over).
    #[error("action {action_id} of workflow {} is not running", Quoted(.workflow_id))]
    NotRunning {
        /// The id passed in.
        workflow_id: String,
        /// The action id passed in.
        action_id: u64,
    },
    /// The nonce is not `n_` followed by 16 to 64 lowercase hex digits.
    #[error("invalid nonce {}: expected n_ followed by 16 to 64 lowercase hex digits", Quoted(.nonce))]
    InvalidNonce {
        /// The nonce passed in (truncated).
        nonce: String,
    },
    /// The BAI/0.2 actions held for the workflow are not the ones the question showed (the model
    /// wrote more, or a message that held some changed): nothing was approved.
    #[error(
        "the actions workflow {} wrote before the ACK changed since the question was shown ({held_actions} held now); ask again",
        Quoted(.workflow_id)
    )]
    HeldActionsChanged {
        /// The id passed in.
        workflow_id: String,
        /// How many actions are held now.
        held_actions: u64,
    },
}

impl EngineError {
    /// The stable snake_case code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownWorkflow { .. } => "unknown_workflow",
            Self::NotAwaitingApproval { .. } => "not_awaiting_approval",
            Self::AlreadyFinished { .. } => "already_finished",
            Self::ResultsNotNegotiated { .. } => "results_not_negotiated",
            Self::NotAcknowledged { .. } => "not_acknowledged",
            Self::NotRunning { .. } => "not_running",
            Self::InvalidNonce { .. } => "invalid_nonce",
            Self::HeldActionsChanged { .. } => "held_actions_changed",
        }
    }
}

/// `text` cut to at most [`EXCERPT_MAX_CHARS`] characters (never inside a character), with `…`
/// appended when cut.
pub fn excerpt(text: &str) -> String {
    let redacted = redact_typed_text(text);
    let text = redacted.as_str();
    match text.char_indices().nth(EXCERPT_MAX_CHARS) {
        None => text.to_owned(),
        Some((cut, _)) => {
            let mut out = String::with_capacity(cut + 3);
            out.push_str(text.get(..cut).unwrap_or_default());
            out.push('…');
            out
        }
    }
}

/// Replaces the value of every `"text": "…"` JSON string (what `input_text` would type, often a
/// password) with `•••`, so excerpts shown to the user and stored in logs never carry it. Works
/// on invalid and truncated JSON too: an unterminated value is masked to the end.
///
/// Then checks by structure: the record's JSON is parsed, so a key spelled with escapes
/// (`"t\u0065xt"`) or nested anywhere is found too, and the object is written again with those
/// values masked. A record that does not parse but holds a `\u` escape is masked from its
/// first `{` on (its keys cannot be read safely).
pub fn redact_typed_text(text: &str) -> String {
    let literal = redact_literal_text_keys(text);
    redact_text_keys_by_structure(&literal)
}

/// The structural pass of [`redact_typed_text`].
fn redact_text_keys_by_structure(text: &str) -> String {
    let Some(brace) = text.find('{') else {
        return text.to_owned();
    };
    let (head, object) = text.split_at(brace);
    match crate::protocol::json::read_plain_prefix(object) {
        Ok((mut value, end)) => {
            let tail = object.get(end..).unwrap_or_default();
            let tail = redact_text_keys_by_structure(tail);
            if mask_text_values(&mut value) {
                // serde_json's compact text, as `{value}` wrote it (by hand: no serde writer in
                // the chat module).
                let value = crate::protocol::json_write::value_json(&value);
                format!("{head}{value}{tail}")
            } else {
                format!("{head}{}{tail}", object.get(..end).unwrap_or_default())
            }
        }
        _ if object.contains("\\u") => format!("{head}{{•••"),
        _ => text.to_owned(),
    }
}

/// Masks every string under a `text` key (any depth) that is not masked yet; whether it
/// changed anything.
fn mask_text_values(value: &mut serde_json::Value) -> bool {
    match value {
        serde_json::Value::Object(fields) => {
            let mut changed = false;
            for (key, field) in fields.iter_mut() {
                if key == "text" {
                    if let serde_json::Value::String(inner) = field {
                        if inner != "•••" {
                            *inner = "•••".to_owned();
                            changed = true;
                        }
                        continue;
                    }
                }
                changed |= mask_text_values(field);
            }
            changed
        }
        serde_json::Value::Array(items) => {
            // Every item is masked: no short-circuit.
            let mut changed = false;
            for item in items {
                changed |= mask_text_values(item);
            }
            changed
        }
        _ => false,
    }
}

/// The literal pass of [`redact_typed_text`] (keeps the record's own formatting).
fn redact_literal_text_keys(text: &str) -> String {
    const KEY: &str = "\"text\"";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(KEY) {
        let (before, from_key) = rest.split_at(at + KEY.len());
        out.push_str(before);
        let after_key = from_key.trim_start();
        let Some(after_colon) = after_key.strip_prefix(':') else {
            rest = from_key;
            continue;
        };
        let value = after_colon.trim_start();
        let Some(inside) = value.strip_prefix('"') else {
            rest = from_key;
            continue;
        };
        out.push_str(&from_key[..from_key.len() - value.len()]);
        out.push_str("\"•••");
        // Skip the string's contents up to its unescaped closing quote.
        let mut escaped = false;
        let mut end = inside.len();
        for (index, ch) in inside.char_indices() {
            match ch {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => {
                    end = index;
                    break;
                }
                _ => {}
            }
        }
        rest = &inside[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_text_is_redacted_in_excerpts() {
        let record = r##"BAI_ACTION {"type":"input_text","payload":{"selector":"#pw","text" : "Hunter2 \"x\""},"n":1}"##;
        let shown = excerpt(record);
        assert!(!shown.contains("Hunter2"), "{shown}");
        assert!(shown.contains(r#""text" : "•••""#), "{shown}");
        assert!(shown.ends_with(r#"},"n":1}"#), "{shown}");
        // Unterminated: masked to the end.
        assert_eq!(redact_typed_text(r#"{"text":"secr"#), r#"{"text":"•••"#);
        // Escaped keys and nesting are found by parsing.
        let escaped = redact_typed_text(
            r##"BAI_ACTION {"type":"input_text","payload":{"t\u0065xt":"hunter2","selector":{"type":"css","value":"#p"}}}"##,
        );
        assert!(!escaped.contains("hunter2"), "{escaped}");
        let nested =
            redact_typed_text(r#"BAI_ACTION {"a":[{"b":{"text":"x"}},{"te\u0078t":"hunter2"}]}"#);
        assert!(!nested.contains("hunter2"), "{nested}");
        let broken = redact_typed_text(r#"BAI_ACTION {"t\u0065xt":"hunter2","#);
        assert!(!broken.contains("hunter2"), "{broken}");
        // Not a string value, or another key: untouched.
        assert_eq!(
            redact_typed_text(r#"{"text":5,"context":"a"}"#),
            r#"{"text":5,"context":"a"}"#
        );
    }

    #[test]
    fn codes_are_unique_snake_case() {
        let mut seen = std::collections::HashSet::new();
        for code in RejectCode::ALL {
            let s = code.code();
            assert!(
                s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{s}"
            );
            assert!(seen.insert(s), "duplicate {s}");
            let json = serde_json::to_string(code).unwrap();
            assert_eq!(json, format!("\"{s}\""));
            assert!(!code.message().is_empty());
        }
    }

    #[test]
    fn errors_md_lists_every_code() {
        let doc = include_str!("ERRORS.md");
        for code in RejectCode::ALL {
            assert!(
                doc.contains(&format!("`{}`", code.code())),
                "{} missing",
                code.code()
            );
        }
    }

    #[test]
    fn excerpt_is_char_safe() {
        let long = "é".repeat(300);
        let e = excerpt(&long);
        assert_eq!(e.chars().count(), EXCERPT_MAX_CHARS + 1);
        assert!(e.ends_with('…'));
        assert_eq!(excerpt("short"), "short");
        let exact = "a".repeat(EXCERPT_MAX_CHARS);
        assert_eq!(excerpt(&exact), exact);
    }
}
