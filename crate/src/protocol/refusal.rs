//! Why one record in the chat was refused, as data: each [`Refusal`] variant carries what its
//! message names, maps to one stable [`RejectCode`] ([`Refusal::code`]) and displays the plain
//! sentence the panel shows and the model receives.
//!
//! The engine turns a refusal into a [`super::error::Rejection`] (code, message, where it was
//! found). A refusal that wraps another ([`Refusal::InAction`], [`Refusal::InHandshake`], ...)
//! adds context to the inner sentence and keeps (or deliberately changes) its code.

use super::error::{RejectCode, excerpt};
use super::join::join;
use super::negotiation::{
    CAPABILITY_ACTION_LINES, Capability, ProtocolVersion, STATE_AWAITING_ACK,
};
use super::quote::Quoted;
use super::workflow::WorkflowState;

/// Why a `more` token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContinuationProblem {
    /// This workflow never issued it (made up, or another workflow's).
    Unknown,
    /// Its part was already given (or is being given) to an earlier `more`.
    Used,
    /// A newer result's continuation replaced it before it was used.
    Stale,
}

/// Why an ACK line is not this extension's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckMismatch {
    /// The workflow was acknowledged here, with another nonce.
    WrongNonce,
    /// The workflow is known but was not acknowledged yet.
    NotAcknowledged,
    /// No workflow of that id is known.
    UnknownWorkflow,
}

/// What is wrong with a per-action field (`timeout_ms`, `on_error`, `retries`, `reason`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OptionsProblem {
    /// `timeout_ms` is not a whole number from 1 to `max_ms`.
    TimeoutOutOfRange { max_ms: u32 },
    /// `retries` is not a whole number from 1 to `max`.
    RetriesOutOfRange { max: u8 },
    /// An `on_error` mode this engine does not know.
    UnknownOnError { written: String },
    /// `on_error` is not a string.
    OnErrorNotString { json_type: &'static str },
    /// `retries` without `"on_error":"retry"`.
    RetriesWithoutRetry,
    /// A `reason` of `chars` characters, over `max`.
    ReasonTooLong { chars: usize, max: usize },
    /// A `reason` with control characters.
    ReasonControl,
    /// `reason` is not a string.
    ReasonNotString { json_type: &'static str },
    /// `tab` is not a tab name (`"t1"`, `"t2"`, ...).
    TabNotName,
    /// `tab` on an action that acts on no page (`done`, `more`, `wait`, `open_tab`, `tabs`).
    TabNotForAction { type_name: &'static str },
}

impl std::fmt::Display for OptionsProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TimeoutOutOfRange { max_ms } => write!(
                f,
                "\"timeout_ms\" must be a whole number of milliseconds from 1 to {max_ms}"
            ),
            Self::RetriesOutOfRange { max } => {
                write!(f, "\"retries\" must be a whole number from 1 to {max}")
            }
            Self::UnknownOnError { written } => write!(
                f,
                "\"on_error\" {} is not known; use \"stop\", \"skip\" or \"retry\"",
                Quoted(&excerpt(written))
            ),
            Self::OnErrorNotString { json_type } => write!(
                f,
                "\"on_error\" must be a string (\"stop\", \"skip\" or \"retry\"), not {json_type}"
            ),
            Self::RetriesWithoutRetry => f.write_str(
                "\"retries\" goes only with \"on_error\":\"retry\"; remove it or add that",
            ),
            Self::ReasonTooLong { chars, max } => write!(
                f,
                "\"reason\" has {chars} characters; keep it to {max}"
            ),
            Self::ReasonControl => f.write_str(
                "\"reason\" must not contain control characters (line breaks, tabs); write one plain sentence",
            ),
            Self::ReasonNotString { json_type } => {
                write!(f, "\"reason\" must be a string, not {json_type}")
            }
            Self::TabNotName => f.write_str(
                "\"tab\" must name one of this workflow's tabs as the results give it (\"t1\" is the bound tab; open_tab gives the others)",
            ),
            Self::TabNotForAction { type_name } => write!(
                f,
                "\"tab\" goes only with actions on a page; {type_name} acts on none, remove it"
            ),
        }
    }
}

/// Why a record's JSON was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonProblem {
    /// Not JSON: `expected` was due at `column`, `found` was there (a quoted character, `U+XXXX`
    /// for an invisible one, or "the end of the text").
    Syntax {
        expected: String,
        found: String,
        column: usize,
    },
    /// JSON that readers read differently, at `column`.
    Disagreement { what: Disagreement, column: usize },
    /// Nested deeper than `max_depth`.
    TooDeep { max_depth: usize },
    /// A key written with a `\` escape.
    EscapedKey { key: String },
    /// A key with characters other than printable ASCII.
    NonAsciiKey { key: String },
}

/// JSON that different readers read differently.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Disagreement {
    /// A high surrogate escape not followed by a low one.
    LoneHighSurrogate { unit: u16 },
    /// A low surrogate escape not after a high one.
    LoneLowSurrogate { unit: u16 },
    /// `\u0000` in a string.
    Nul,
    /// The integer `-0`.
    MinusZeroInteger,
    /// An integer beyond 2^53 - 1.
    IntegerBeyondSafe { token: String },
    /// A fraction or exponent that is negative zero.
    NegativeZero { token: String },
    /// A number out of the double range.
    OutOfRange { token: String },
    /// A number beyond the fast path every reader rounds alike.
    TooPrecise { token: String },
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::LoneHighSurrogate { unit } => write!(
                f,
                "a lone UTF-16 surrogate \\u{unit:04x} (not followed by a low surrogate)"
            ),
            Self::LoneLowSurrogate { unit } => write!(
                f,
                "a lone UTF-16 surrogate \\u{unit:04x} (not after a high surrogate)"
            ),
            Self::Nul => f.write_str("a NUL character (\\u0000) in a string"),
            Self::MinusZeroInteger => f.write_str("the number -0"),
            Self::IntegerBeyondSafe { token } => write!(
                f,
                "the integer {} is beyond 2^53 - 1, where JavaScript rounds",
                excerpt(token)
            ),
            Self::NegativeZero { token } => {
                write!(f, "the number {} (negative zero)", excerpt(token))
            }
            Self::OutOfRange { token } => {
                write!(f, "the number {} is out of range", excerpt(token))
            }
            Self::TooPrecise { token } => write!(
                f,
                "the number {} has more than 15 significant digits or an exponent beyond ±22, which readers may round differently",
                excerpt(token)
            ),
        }
    }
}

impl std::fmt::Display for JsonProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Syntax {
                expected,
                found,
                column,
            } => write!(
                f,
                "the JSON could not be read: {expected} (found {found} at column {column}); write one valid JSON object"
            ),
            Self::Disagreement { what, column } => write!(
                f,
                "{what} (column {column}): JSON readers disagree on it, so it was refused"
            ),
            Self::TooDeep { max_depth } => write!(
                f,
                "the JSON is nested deeper than {max_depth} levels; records need only a few"
            ),
            Self::EscapedKey { key } => write!(
                f,
                "the key {} is written with a \\ escape; write keys as plain text so every reader sees the same key",
                Quoted(&excerpt(key))
            ),
            Self::NonAsciiKey { key } => write!(
                f,
                "the key {} has characters other than printable ASCII; protocol keys are plain ASCII",
                Quoted(&excerpt(key))
            ),
        }
    }
}

/// What is wrong with an action's payload.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PayloadProblem {
    /// The payload is not an object.
    NotObject { json_type: &'static str },
    /// A required field is missing.
    FieldRequired { key: String },
    /// A field that must be a string is not.
    FieldNotString {
        key: String,
        json_type: &'static str,
    },
    /// A number field that is not finite.
    FieldNotFinite { key: String },
    /// A field that must be a number is not.
    FieldNotNumber {
        key: String,
        json_type: &'static str,
    },
    /// A string field that is empty (or blank).
    FieldEmpty { key: String },
    /// `wait`'s `ms` is not a whole number from 0 to `max_ms`.
    WaitOutOfRange { max_ms: u64 },
    /// `scroll` without `y`.
    ScrollNoY,
    /// `done`'s `success` is not a boolean.
    SuccessNotBool,
    /// `observe`'s `max_elements` is not a whole number from 1 to `max`.
    MaxElementsOutOfRange { max: u32 },
    /// `extract`'s `max_chars` is not a whole number from 1 to `max`.
    MaxCharsOutOfRange { max: u32 },
    /// `more`'s `token` is longer than `max_chars` characters.
    TokenTooLong { max_chars: usize },
    /// No `selector`.
    SelectorRequired,
    /// `wait_for`'s `state` without a `selector`.
    StateWithoutSelector,
    /// `wait_for`'s `state` is not one this engine knows.
    UnknownState,
    /// `press_key`'s key is not one of `known`.
    UnknownKey {
        written: String,
        known: Vec<&'static str>,
    },
    /// `extract`'s attribute is not an attribute name of at most `max_chars` characters.
    NotAttributeName { written: String, max_chars: usize },
    /// `wait_for` did not give exactly one condition; `given` lists the ones it gave.
    WaitForFields { given: Vec<&'static str> },
    /// `assert` with a `value` for an `expect` that takes none.
    ValueNotExpected { expect: String },
    /// `assert`'s `expect` is not one this engine knows.
    UnknownExpect { written: String },
    /// `navigate`'s URL is not one it may open.
    Url(UrlProblem),
}

/// Why a `navigate` URL is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlProblem {
    /// Empty, or longer than `max` characters.
    Length { chars: usize, max: usize },
    /// A space, control character or backslash.
    ForbiddenCharacter,
    /// `//host`: another site.
    ProtocolRelative,
    /// Neither an absolute http(s) URL nor a path.
    NotHttp { written: String },
    /// `user@host`.
    UserInfo,
    /// No host name.
    NoHost,
}

impl std::fmt::Display for UrlProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Length { chars, max } => {
                write!(f, "\"url\" has {chars} characters; use 1 to {max}")
            }
            Self::ForbiddenCharacter => f.write_str(
                "\"url\" must not contain spaces, control characters or backslashes; percent-encode them",
            ),
            Self::ProtocolRelative => f.write_str(
                "\"url\" starting with // points to another site; use a path with one leading / or a full https:// URL",
            ),
            Self::NotHttp { written } => write!(
                f,
                "\"url\" {} must be an absolute http:// or https:// URL, or a path starting with /",
                Quoted(&excerpt(written))
            ),
            Self::UserInfo => {
                f.write_str("\"url\" must not contain a user name or password (user@host)")
            }
            Self::NoHost => f.write_str("\"url\" has no host name"),
        }
    }
}

impl std::fmt::Display for PayloadProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotObject { json_type } => {
                write!(f, "\"payload\" must be an object, not {json_type}")
            }
            Self::FieldRequired { key } => write!(f, "\"{key}\" is required"),
            Self::FieldNotString { key, json_type } => {
                write!(f, "\"{key}\" must be a string, not {json_type}")
            }
            Self::FieldNotFinite { key } => write!(f, "\"{key}\" must be a finite number"),
            Self::FieldNotNumber { key, json_type } => {
                write!(f, "\"{key}\" must be a number, not {json_type}")
            }
            Self::FieldEmpty { key } => write!(f, "\"{key}\" must not be empty"),
            Self::WaitOutOfRange { max_ms } => {
                write!(f, "\"ms\" must be a whole number from 0 to {max_ms}")
            }
            Self::ScrollNoY => f.write_str("\"y\" (pixels from the top) is required"),
            Self::SuccessNotBool => f.write_str("\"success\" must be true or false"),
            Self::MaxElementsOutOfRange { max } => {
                write!(f, "\"max_elements\" must be a whole number from 1 to {max}")
            }
            Self::MaxCharsOutOfRange { max } => {
                write!(f, "\"max_chars\" must be a whole number from 1 to {max}")
            }
            Self::TokenTooLong { max_chars } => write!(
                f,
                "\"token\" has more than {max_chars} characters; copy the token of the last result's \"continuation\""
            ),
            Self::SelectorRequired => f.write_str("\"selector\" is required"),
            Self::StateWithoutSelector => f.write_str("\"state\" goes with \"selector\" only"),
            Self::UnknownState => {
                f.write_str("\"state\" must be one of visible, hidden, enabled, attached, detached")
            }
            Self::UnknownKey { written, known } => write!(
                f,
                "key {} is not known; use one of {} (exact spelling)",
                Quoted(&excerpt(written)),
                join(known, ", ")
            ),
            Self::NotAttributeName { written, max_chars } => write!(
                f,
                "\"attribute\" {} is not an attribute name (letters, digits, -, _, :, . and at most {max_chars} characters, e.g. \"href\"); leave it out to read the text",
                Quoted(&excerpt(written))
            ),
            Self::WaitForFields { given } => write!(
                f,
                "give exactly one of \"selector\" (with an optional \"state\"), \"text\" or \"url_contains\"; got {}",
                if given.is_empty() {
                    "none".to_owned()
                } else {
                    join(given, " and ")
                }
            ),
            Self::ValueNotExpected { expect } => write!(
                f,
                "\"value\" goes only with text_equals, text_contains or value_equals; remove it for {}",
                Quoted(&excerpt(expect))
            ),
            Self::UnknownExpect { written } => write!(
                f,
                "\"expect\" {} is not known; use exists, absent, text_equals, text_contains, value_equals, checked or unchecked",
                Quoted(&excerpt(written))
            ),
            Self::Url(problem) => write!(f, "{problem}"),
        }
    }
}

/// What is wrong with a selector.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SelectorProblem {
    /// An empty (or blank) CSS string.
    Empty,
    /// An object selector without a `type`; `allowed` lists the kinds, for the message.
    NoKind { allowed: String },
    /// A selector kind this engine does not know.
    UnknownKind { written: String, allowed: String },
    /// No non-empty `value` string.
    NoValue,
    /// A `ref` selector whose value is not an element ref.
    NotARef { written: String },
    /// `exact` that is not a boolean.
    ExactNotBool,
    /// `index` that is not a whole number from 0.
    IndexNotWhole,
    /// `name` that is not a string.
    NameNotString,
    /// A `ref` selector with `index` or `name`.
    RefWithIndexOrName,
    /// A selector that is neither a string nor an object.
    NotStringOrObject { json_type: &'static str },
}

impl std::fmt::Display for SelectorProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => f.write_str("\"selector\" must not be empty"),
            Self::NoKind { allowed } => {
                write!(f, "the selector needs a \"type\" ({allowed})")
            }
            Self::UnknownKind { written, allowed } => write!(
                f,
                "selector type {} is not known; use {allowed}",
                Quoted(&excerpt(written))
            ),
            Self::NoValue => f.write_str("the selector needs a non-empty \"value\" string"),
            Self::NotARef { written } => write!(
                f,
                "ref {} is not an element ref; use a ref from the latest observe result, like \"@e12\"",
                Quoted(&excerpt(written))
            ),
            Self::ExactNotBool => f.write_str("the selector's \"exact\" must be true or false"),
            Self::IndexNotWhole => {
                f.write_str("the selector's \"index\" must be a whole number from 0")
            }
            Self::NameNotString => f.write_str("the selector's \"name\" must be a string"),
            Self::RefWithIndexOrName => f.write_str(
                "a ref selector names exactly one element; remove \"index\" and \"name\"",
            ),
            Self::NotStringOrObject { json_type } => write!(
                f,
                "\"selector\" must be a string or an object, not {json_type}"
            ),
        }
    }
}

/// One refused record, with the data its message names.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    // --- The JSON reader ---
    /// The JSON does not parse, or is read differently by different readers.
    InvalidJson(JsonProblem),
    /// The same key twice in one object.
    DuplicateKey { key: String, column: usize },
    /// The record's JSON is a value other than an object.
    JsonNotObject,

    // --- The scanner ---
    /// A record prefix not followed by a JSON object on its line.
    MissingJson { prefix: &'static str },
    /// A record whose JSON object is still open at the end of its line.
    UnterminatedRecord { prefix: &'static str },
    /// A record line that goes on after its JSON object.
    TrailingText { prefix: &'static str },

    // --- Fields every record has ---
    /// No `protocol` field.
    ProtocolMissing,
    /// A `protocol` field that is not a string.
    ProtocolNotString,
    /// A protocol this engine does not speak.
    UnsupportedProtocol { protocol: String },
    /// A record whose protocol differs from its workflow's handshake.
    ProtocolMismatch {
        record: ProtocolVersion,
        expected: ProtocolVersion,
    },
    /// The workflow_id of the protocol's worked example.
    ExampleWorkflowId { workflow_id: String },
    /// The workflow_id is still the template placeholder.
    PlaceholderWorkflowId,
    /// A workflow_id of `chars` characters, outside 1 to `max`.
    WorkflowIdLength { chars: usize, max: usize },
    /// A workflow_id with control characters.
    WorkflowIdControl,
    /// A workflow_id with invisible formatting characters (direction marks, zero-width).
    WorkflowIdInvisible,

    // --- Handshakes ---
    /// The handshake's JSON could not be read (the reader's refusal inside).
    HandshakeJson(Box<Refusal>),
    /// A record-level problem found in a handshake: reported as `invalid_handshake`.
    InHandshake(Box<Refusal>),
    /// The handshake is a JSON value other than an object.
    HandshakeNotObject,
    /// The handshake has no `workflow_id` string.
    HandshakeNoWorkflowId,
    /// A BAI/0.3 handshake written as a `BAI_HANDSHAKE` line.
    HandshakeLineV03,
    /// A BAI/0.3 handshake without `"kind":"handshake"`.
    HandshakeKind,
    /// A handshake without the required `state`.
    HandshakeState,
    /// A BAI/0.3 handshake that does not list `action_lines`.
    HandshakeNoActionLines,
    /// A `BAI_HANDSHAKE` line that is not one complete JSON object alone on its line.
    HandshakeLineIncomplete,
    /// More than one handshake in one message.
    MultipleHandshakes { count: usize },
    /// A handshake for a workflow already known to be from an earlier conversation.
    StaleHandshake { workflow_id: String },
    /// A handshake that was not the newest message when first seen.
    HandshakeNotNewest { workflow_id: String },
    /// Too many workflows open at once.
    TooManyWorkflows { open: usize },

    // --- Lines only the extension writes, and lines in the wrong message ---
    /// An ACK line in an assistant message.
    AckFromAssistant,
    /// An action line in a user message.
    ActionFromUser,
    /// A result line in an assistant message.
    ResultFromAssistant,
    /// An ACK line that could not be read as an ACK (the reason inside).
    UnreadableAck(Box<Refusal>),
    /// An ACK line that reads well but is not this extension's.
    ForeignAck {
        workflow_id: String,
        why: AckMismatch,
    },
    /// An ACK without a `workflow_id` string.
    AckNoWorkflowId,
    /// An ACK without an `ack_nonce` string.
    AckNoNonce,
    /// A result line that could not be read (the reason inside).
    UnreadableResult(Box<Refusal>),
    /// A result line this extension did not issue; `known_workflow` tells whether its workflow
    /// is known here.
    ForeignResult {
        workflow_id: String,
        known_workflow: bool,
    },

    // --- Action records: their workflow ---
    /// An action without a `workflow_id` string.
    ActionNoWorkflowId,
    /// An action of a workflow from an earlier conversation.
    NotAcknowledged { workflow_id: String },
    /// An action of a workflow no handshake started.
    UnknownWorkflow { workflow_id: String },
    /// The workflow was dropped while its record was being checked.
    WorkflowGone,
    /// An action of a workflow that is over.
    WorkflowFinished {
        workflow_id: String,
        state: WorkflowState,
    },
    /// A BAI/0.3 action written before the extension's ACK.
    BeforeAck,

    // --- Action records: their id, kind and nonce ---
    /// An action without `action_id`.
    ActionIdMissing,
    /// An `action_id` number that is not a whole number from 1 up to 2^53.
    ActionIdNotWhole { written: String },
    /// An `action_id` that is not a number at all.
    ActionIdNotNumber {
        written: String,
        json_type: &'static str,
    },
    /// An `action_id` already used for a different action.
    IdReused { action_id: u64, next: u64 },
    /// An `action_id` that skips ahead.
    IdOutOfSequence { action_id: u64, expected: u64 },
    /// A `more` whose token does not name the part this workflow can give next.
    Continuation {
        action_id: u64,
        problem: ContinuationProblem,
    },
    /// A BAI/0.3 action without `"kind":"action"`.
    InvalidKind { action_id: u64 },
    /// A BAI/0.3 action whose `ack_nonce` differs from the ACK's.
    WrongNonce { action_id: u64 },
    /// A BAI/0.3 action without `ack_nonce`.
    MissingNonce { action_id: u64 },
    /// Over the action limit: `limit` actions (held before the ACK, or run).
    TooManyActions { limit: usize, held: bool },
    /// An action without a `type` string.
    ActionNoType { action_id: u64 },
    /// An action without `payload`.
    ActionNoPayload { action_id: u64 },
    /// A problem of the type, payload or options of action `action_id`.
    InAction {
        action_id: u64,
        refusal: Box<Refusal>,
    },

    // --- Action types, payloads, selectors and options ---
    /// An action type not known, with the types this workflow may use.
    UnknownActionType {
        type_name: String,
        allowed: Vec<&'static str>,
    },
    /// An action type the type lists know but the payload reader does not (a bug in the lists).
    UnlistedActionType { type_name: String },
    /// `what` (a type, selector kind or field) needs `capability`, not negotiated.
    NotNegotiated {
        what: String,
        capability: Capability,
    },
    /// A field of `capability` in a BAI/0.2 record, which cannot negotiate any.
    FieldNeedsV03 {
        field: String,
        capability: Capability,
    },
    /// A problem found inside the payload of a `type_name` action (a selector's, say).
    InPayload {
        type_name: String,
        refusal: Box<Refusal>,
    },
    /// A payload that does not fit its type.
    InvalidPayload {
        type_name: String,
        problem: PayloadProblem,
    },
    /// A selector that is not valid.
    InvalidSelector(SelectorProblem),
    /// A per-action field (`timeout_ms`, `on_error`, `retries`, `reason`) that is not valid.
    InvalidOptions(OptionsProblem),
}

impl Refusal {
    /// The stable code.
    pub fn code(&self) -> RejectCode {
        match self {
            Self::InvalidJson(_) | Self::JsonNotObject | Self::TrailingText { .. } => {
                RejectCode::InvalidJson
            }
            Self::DuplicateKey { .. } => RejectCode::DuplicateKey,
            Self::MissingJson { .. } => RejectCode::MissingJson,
            Self::UnterminatedRecord { .. } => RejectCode::UnterminatedRecord,
            Self::ProtocolMissing
            | Self::ProtocolNotString
            | Self::AckNoWorkflowId
            | Self::AckNoNonce
            | Self::ActionNoWorkflowId
            | Self::ActionNoType { .. }
            | Self::ActionNoPayload { .. }
            | Self::InvalidOptions(_) => RejectCode::InvalidRecord,
            Self::UnsupportedProtocol { .. } => RejectCode::UnsupportedProtocol,
            Self::ProtocolMismatch { .. } => RejectCode::ProtocolMismatch,
            Self::ExampleWorkflowId { .. } | Self::PlaceholderWorkflowId => {
                RejectCode::PlaceholderWorkflowId
            }
            Self::WorkflowIdLength { .. } | Self::WorkflowIdControl | Self::WorkflowIdInvisible => {
                RejectCode::InvalidWorkflowId
            }
            // A duplicate key keeps its own code everywhere: it is how a line could be made to
            // read one way to one reader and another way to another.
            Self::HandshakeJson(inner) if inner.code() == RejectCode::DuplicateKey => {
                RejectCode::DuplicateKey
            }
            Self::UnreadableAck(inner) if inner.code() == RejectCode::DuplicateKey => {
                RejectCode::DuplicateKey
            }
            Self::UnreadableResult(inner) if inner.code() == RejectCode::DuplicateKey => {
                RejectCode::DuplicateKey
            }
            Self::HandshakeJson(_)
            | Self::InHandshake(_)
            | Self::HandshakeNotObject
            | Self::HandshakeNoWorkflowId
            | Self::HandshakeLineV03
            | Self::HandshakeKind
            | Self::HandshakeState
            | Self::HandshakeNoActionLines
            | Self::HandshakeLineIncomplete => RejectCode::InvalidHandshake,
            Self::MultipleHandshakes { .. } => RejectCode::MultipleHandshakeBlocks,
            Self::StaleHandshake { .. } | Self::HandshakeNotNewest { .. } => {
                RejectCode::StaleHandshake
            }
            Self::TooManyWorkflows { .. } => RejectCode::TooManyWorkflows,
            Self::AckFromAssistant => RejectCode::AckFromAssistant,
            Self::ActionFromUser => RejectCode::ActionFromUser,
            Self::ResultFromAssistant => RejectCode::ResultFromAssistant,
            Self::UnreadableAck(_) | Self::ForeignAck { .. } => RejectCode::ForeignAck,
            Self::UnreadableResult(_) | Self::ForeignResult { .. } => RejectCode::ForeignResult,
            Self::NotAcknowledged { .. } => RejectCode::NotAcknowledged,
            Self::UnknownWorkflow { .. } | Self::WorkflowGone => RejectCode::UnknownWorkflow,
            Self::WorkflowFinished { .. } => RejectCode::WorkflowFinished,
            Self::BeforeAck => RejectCode::BeforeAck,
            Self::ActionIdMissing
            | Self::ActionIdNotWhole { .. }
            | Self::ActionIdNotNumber { .. } => RejectCode::InvalidActionId,
            Self::IdReused { .. } => RejectCode::IdReused,
            Self::IdOutOfSequence { .. } => RejectCode::IdOutOfSequence,
            Self::Continuation { problem, .. } => match problem {
                ContinuationProblem::Unknown => RejectCode::UnknownContinuation,
                ContinuationProblem::Used => RejectCode::ContinuationUsed,
                ContinuationProblem::Stale => RejectCode::ContinuationStale,
            },
            Self::InvalidKind { .. } => RejectCode::InvalidKind,
            Self::WrongNonce { .. } | Self::MissingNonce { .. } => RejectCode::NonceMismatch,
            Self::TooManyActions { .. } => RejectCode::TooManyActions,
            Self::InAction { refusal, .. } | Self::InPayload { refusal, .. } => refusal.code(),
            Self::UnknownActionType { .. } | Self::UnlistedActionType { .. } => {
                RejectCode::UnknownActionType
            }
            Self::NotNegotiated { .. } | Self::FieldNeedsV03 { .. } => {
                RejectCode::CapabilityNotNegotiated
            }
            Self::InvalidPayload { .. } | Self::InvalidSelector(_) => RejectCode::InvalidPayload,
        }
    }
}

impl Refusal {
    /// Writes the sentence of a refusal that reading one action can give (the JSON reader's, and
    /// the action type's, payload's, selector's and options'); `None` for the others (scanner,
    /// records, handshakes, ACKs, results). `Display` writes those through this, so the words
    /// are the same; the executor, which only reads actions, writes through [`ActionSentence`]
    /// and so its wasm holds none of the other sentences. Inlined into both, so the chat's
    /// module (which writes every refusal) has one writer as before, not two. `InPayload` is
    /// written by each of the two, its inner refusal by the same one.
    #[inline(always)]
    fn fmt_action(&self, f: &mut std::fmt::Formatter<'_>) -> Option<std::fmt::Result> {
        Some(match self {
            Self::InvalidJson(problem) => write!(f, "{problem}"),
            Self::DuplicateKey { key, column } => write!(
                f,
                "the key {} appears twice in one object (again at column {column}); readers disagree on which value counts, so write each key once",
                Quoted(&excerpt(key))
            ),
            Self::JsonNotObject => f.write_str("the record is not a JSON object"),
            Self::UnknownActionType { type_name, allowed } => write!(
                f,
                "action type {} is not known; use one of {}",
                Quoted(&excerpt(type_name)),
                join(allowed, ", ")
            ),
            Self::UnlistedActionType { type_name } => {
                write!(
                    f,
                    "action type {} is not known",
                    Quoted(&excerpt(type_name))
                )
            }
            Self::NotNegotiated { what, capability } => {
                // `chunked_results` and `vision` count only beside `result_lines`.
                let with = if matches!(capability, Capability::ChunkedResults | Capability::Vision)
                {
                    format!("\"{}\",", Capability::ResultLines)
                } else {
                    String::new()
                };
                write!(
                    f,
                    "{what} needs the \"{capability}\" capability, which this workflow's handshake did not list; start a new handshake with \"capabilities\":[\"{CAPABILITY_ACTION_LINES}\",{with}\"{capability}\"] to use it"
                )
            }
            Self::FieldNeedsV03 { field, capability } => write!(
                f,
                "the field {} needs the \"{capability}\" capability, which only a BAI/0.3 handshake can list; remove it, or start a BAI/0.3 handshake with \"capabilities\":[\"{CAPABILITY_ACTION_LINES}\",\"{capability}\"]",
                Quoted(field)
            ),
            Self::InvalidPayload { type_name, problem } => {
                write!(f, "{type_name} payload: {problem}")
            }
            Self::InvalidSelector(problem) => write!(f, "{problem}"),
            Self::InvalidOptions(problem) => write!(f, "{problem}"),
            _ => return None,
        })
    }
}

/// A refusal from reading one action (`crate::protocol::validate::action_from_record`), as
/// its sentence: the same words as `Display` for every refusal reading an action gives. Any
/// other refusal (none is given there) is written as its code.
#[derive(Debug)]
pub struct ActionSentence<'a>(pub &'a Refusal);

impl std::fmt::Display for ActionSentence<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Refusal::InPayload { type_name, refusal } = self.0 {
            return write!(f, "{type_name} payload: {}", ActionSentence(refusal));
        }
        match self.0.fmt_action(f) {
            Some(written) => written,
            None => write!(f, "{}", self.0.code()),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(written) = self.fmt_action(f) {
            return written;
        }
        match self {
            Self::InPayload { type_name, refusal } => write!(f, "{type_name} payload: {refusal}"),
            Self::MissingJson { prefix } => write!(
                f,
                "{prefix} is not followed by a JSON object on the same line; write the prefix and the JSON object on one line"
            ),
            Self::UnterminatedRecord { prefix } => write!(
                f,
                "the {prefix} record's JSON is not closed on its line; write each record complete on one line"
            ),
            Self::TrailingText { prefix } => write!(
                f,
                "the {prefix} record's line goes on after its JSON object; write the prefix and one JSON object alone on the line"
            ),
            Self::ProtocolMissing => f.write_str("the \"protocol\" field is missing"),
            Self::ProtocolNotString => f.write_str("the \"protocol\" field must be a string"),
            Self::UnsupportedProtocol { protocol } => write!(
                f,
                "protocol {} is not supported; use \"BAI/0.3\" (or \"BAI/0.2\")",
                Quoted(&excerpt(protocol))
            ),
            Self::ProtocolMismatch { record, expected } => write!(
                f,
                "the record says {record} but the workflow's handshake said {expected}; use {expected}"
            ),
            Self::ExampleWorkflowId { workflow_id } => write!(
                f,
                "the workflow_id {} is the protocol's worked example; use a fresh random id", Quoted(workflow_id)
            ),
            Self::PlaceholderWorkflowId => f.write_str(
                "the workflow_id is still the template placeholder; replace {{RANDOM_UUID}} with a random id",
            ),
            Self::WorkflowIdLength { chars, max } => write!(
                f,
                "the workflow_id has {chars} characters; use 1 to {max}"
            ),
            Self::WorkflowIdControl => f.write_str(
                "the workflow_id contains control characters; use letters, digits and dashes",
            ),
            Self::WorkflowIdInvisible => f.write_str(
                "the workflow_id contains invisible formatting characters (direction marks, zero-width characters); use letters, digits and dashes",
            ),
            Self::HandshakeJson(inner) if inner.code() == RejectCode::DuplicateKey => {
                write!(f, "the handshake: {inner}")
            }
            Self::HandshakeJson(inner) => write!(f, "the handshake: {inner} in the ```bai block"),
            Self::InHandshake(inner) => write!(f, "{inner}"),
            Self::HandshakeNotObject => f.write_str(
                "the handshake is not a JSON object; send the handshake JSON exactly as the protocol shows",
            ),
            Self::HandshakeNoWorkflowId => {
                f.write_str("the handshake has no \"workflow_id\" string")
            }
            Self::HandshakeLineV03 => f.write_str(
                "a BAI/0.3 handshake must be the only ```bai block of the message, not a BAI_HANDSHAKE line",
            ),
            Self::HandshakeKind => {
                f.write_str("a BAI/0.3 handshake must have \"kind\":\"handshake\"")
            }
            Self::HandshakeState => write!(
                f,
                "the handshake must have \"state\":\"{STATE_AWAITING_ACK}\""
            ),
            Self::HandshakeNoActionLines => write!(
                f,
                "a BAI/0.3 handshake must list \"{CAPABILITY_ACTION_LINES}\" in \"capabilities\""
            ),
            Self::HandshakeLineIncomplete => f.write_str(
                "the BAI_HANDSHAKE line is not one complete JSON object alone on its line",
            ),
            Self::MultipleHandshakes { count } => write!(
                f,
                "the message holds {count} handshakes (```bai or ~~~bai fences, wherever they are, or BAI_HANDSHAKE lines); send exactly one ```bai block and no other line starting a bai fence"
            ),
            Self::StaleHandshake { workflow_id } => write!(
                f,
                "workflow {} is from an earlier part of the conversation and was not acknowledged; ask the model for a new handshake with a new workflow_id", Quoted(workflow_id)
            ),
            Self::HandshakeNotNewest { workflow_id } => write!(
                f,
                "the handshake for workflow {} is not the newest message (an old conversation), so it was not acknowledged; ask the model for a new handshake", Quoted(workflow_id)
            ),
            Self::TooManyWorkflows { open } => write!(
                f,
                "{open} workflows are open; stop or finish one before starting another"
            ),
            Self::AckFromAssistant => f.write_str(
                "an ACK line in an assistant message was ignored; only the extension writes BAI_ACK lines, wait for it",
            ),
            Self::ActionFromUser => f.write_str(
                "an action line in a user message was ignored; only the assistant's action lines run",
            ),
            Self::ResultFromAssistant => f.write_str(
                "a BAI_RESULT line in an assistant message was ignored; only the extension writes results, read them in the user messages and never write them",
            ),
            Self::UnreadableAck(inner) => write!(
                f,
                "an ACK line this extension did not write was ignored ({inner})"
            ),
            Self::ForeignAck { workflow_id, why } => {
                let why = match why {
                    AckMismatch::WrongNonce => "its nonce is not the one this extension issued",
                    AckMismatch::NotAcknowledged => {
                        "this extension has not acknowledged that workflow"
                    }
                    AckMismatch::UnknownWorkflow => "this extension did not acknowledge that workflow",
                };
                write!(
                    f,
                    "an ACK for workflow {} was ignored: {why}; only the extension's own ACK counts",
                    Quoted(&excerpt(workflow_id))
                )
            }
            Self::AckNoWorkflowId => f.write_str("the ACK has no \"workflow_id\" string"),
            Self::AckNoNonce => f.write_str("the ACK has no \"ack_nonce\" string"),
            Self::UnreadableResult(inner) => write!(
                f,
                "a result line this extension did not write was ignored ({inner})"
            ),
            Self::ForeignResult {
                workflow_id,
                known_workflow,
            } => {
                let why = if *known_workflow {
                    "this extension did not issue it (or it was changed)"
                } else {
                    "this extension knows no such workflow"
                };
                write!(
                    f,
                    "a result line for workflow {} was ignored: {why}; only the extension's own results count",
                    Quoted(&excerpt(workflow_id))
                )
            }
            Self::ActionNoWorkflowId => f.write_str(
                "the action has no \"workflow_id\" string; copy the workflow_id from the handshake",
            ),
            Self::NotAcknowledged { workflow_id } => write!(
                f,
                "workflow {} was never acknowledged by this extension (its handshake is from an earlier conversation); ask the model for a new handshake",
                Quoted(&excerpt(workflow_id))
            ),
            Self::UnknownWorkflow { workflow_id } => write!(
                f,
                "no handshake started workflow {}; use the workflow_id of the acknowledged handshake",
                Quoted(&excerpt(workflow_id))
            ),
            Self::WorkflowGone => f.write_str("the workflow is gone"),
            Self::WorkflowFinished { workflow_id, state } => write!(
                f,
                "workflow {} is already over (it is {state}); start a new handshake for more actions",
                Quoted(&excerpt(workflow_id))
            ),
            Self::BeforeAck => f.write_str(
                "this action was written before the extension's ACK and was ignored; wait for the BAI_ACK line, then resend the actions with its ack_nonce, starting at action_id 1",
            ),
            Self::ActionIdMissing => f.write_str(
                "the action has no \"action_id\"; number actions 1, 2, 3, ...",
            ),
            Self::ActionIdNotWhole { written } => write!(
                f,
                "action_id {written} is not a whole number from 1 upwards"
            ),
            Self::ActionIdNotNumber { written, json_type } => write!(
                f,
                "action_id {} must be a number, not {json_type}",
                excerpt(written)
            ),
            Self::IdReused { action_id, next } => write!(
                f,
                "action {action_id} was already used for a different action; the next action must have action_id {next}"
            ),
            Self::IdOutOfSequence {
                action_id,
                expected,
            } => write!(
                f,
                "action {action_id} skipped an id: expected {expected}"
            ),
            Self::Continuation { action_id, problem } => match problem {
                ContinuationProblem::Unknown => write!(
                    f,
                    "action {action_id} (more) names a token this workflow never issued; use the \"token\" of the last result's \"continuation\""
                ),
                ContinuationProblem::Used => write!(
                    f,
                    "action {action_id} (more) names a token that was already used; each part is given once, use the newest result's \"continuation\" token"
                ),
                ContinuationProblem::Stale => write!(
                    f,
                    "action {action_id} (more) names a token a newer result replaced; use the newest result's \"continuation\" token"
                ),
            },
            Self::InvalidKind { action_id } => write!(
                f,
                "action {action_id} must carry \"kind\":\"action\""
            ),
            Self::WrongNonce { action_id } => write!(
                f,
                "action {action_id} has an ack_nonce that is not the one in the extension's ACK line; copy it from the BAI_ACK line exactly"
            ),
            Self::MissingNonce { action_id } => write!(
                f,
                "action {action_id} has no ack_nonce; add the \"ack_nonce\" from the extension's BAI_ACK line"
            ),
            Self::TooManyActions { limit, held: true } => write!(
                f,
                "more than {limit} actions were written before the ACK; wait for the ACK"
            ),
            Self::TooManyActions { limit, held: false } => write!(
                f,
                "the workflow reached {limit} actions; finish it with done and start a new handshake"
            ),
            Self::ActionNoType { action_id } => write!(
                f,
                "action {action_id} has no \"type\" string (click, input_text, wait, scroll or done)"
            ),
            Self::ActionNoPayload { action_id } => {
                write!(f, "action {action_id} has no \"payload\" object")
            }
            Self::InAction { action_id, refusal } => write!(f, "action {action_id}: {refusal}"),
            // Written by `fmt_action` above.
            Self::InvalidJson(_)
            | Self::DuplicateKey { .. }
            | Self::JsonNotObject
            | Self::UnknownActionType { .. }
            | Self::UnlistedActionType { .. }
            | Self::NotNegotiated { .. }
            | Self::FieldNeedsV03 { .. }
            | Self::InvalidPayload { .. }
            | Self::InvalidSelector(_)
            | Self::InvalidOptions(_) => Ok(()),
        }
    }
}
