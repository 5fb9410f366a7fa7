//! One workflow: its lifecycle state and its ledger of executed actions.

use serde::{Deserialize, Serialize};

use super::action::Action;
use super::continuation::{Continuation, SpentToken};
use super::fingerprint::Fingerprint;
use super::negotiation::{CAPABILITY_ACTION_LINES, Capability, ProtocolVersion};
use super::outcome::RunBook;

/// Where a workflow is in its life.
///
/// `awaiting_extension_ack -> active -> done | failed | superseded | stopped`; a handshake the user
/// refused goes from `awaiting_extension_ack` to `denied`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum WorkflowState {
    /// The handshake was found; the user has not approved it yet.
    AwaitingExtensionAck,
    /// Acknowledged: its actions execute.
    Active,
    /// The model sent `done` (successful or not).
    Done,
    /// A record for it was rejected after the ACK: nothing more executes.
    Failed,
    /// A newer handshake was acknowledged.
    Superseded,
    /// The user pressed stop.
    Stopped,
    /// The user refused the handshake.
    Denied,
}

impl WorkflowState {
    /// Every state.
    pub const ALL: &'static [WorkflowState] = &[
        Self::AwaitingExtensionAck,
        Self::Active,
        Self::Done,
        Self::Failed,
        Self::Superseded,
        Self::Stopped,
        Self::Denied,
    ];

    /// The wire name (`"awaiting_extension_ack"`, `"active"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AwaitingExtensionAck => "awaiting_extension_ack",
            Self::Active => "active",
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Superseded => "superseded",
            Self::Stopped => "stopped",
            Self::Denied => "denied",
        }
    }

    /// Whether the workflow is over (nothing will execute for it again).
    pub fn is_finished(self) -> bool {
        !matches!(self, Self::AwaitingExtensionAck | Self::Active)
    }
}

impl std::fmt::Display for WorkflowState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A BAI/0.2 action written before the ACK, held until the workflow is acknowledged.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HeldAction {
    pub(crate) action_id: u64,
    pub(crate) fingerprint: Fingerprint,
    pub(crate) action: Action,
    pub(crate) message_index: usize,
    pub(crate) excerpt: String,
}

/// A workflow the engine knows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Workflow {
    pub(crate) id: String,
    pub(crate) protocol: ProtocolVersion,
    pub(crate) state: WorkflowState,
    /// Index of the message that carried the handshake; the ACK counts as posted right after it.
    pub(crate) handshake_message: usize,
    /// The transcript as last seen holds no message with the handshake (another branch of the
    /// conversation is shown, or its message was taken off): a BAI/0.2 line, which has no nonce,
    /// cannot be placed after the ACK until the handshake shows up again.
    pub(crate) handshake_lost: bool,
    /// Set when the user approved and the ACK was issued.
    pub(crate) ack_nonce: Option<String>,
    /// Whether our ACK has shown up in the transcript.
    pub(crate) ack_seen: bool,
    /// `done`'s `success`, once done.
    pub(crate) success: Option<bool>,
    /// Fingerprint of executed action `i + 1` at index `i`.
    pub(crate) executed: Vec<Fingerprint>,
    /// BAI/0.2 actions written before the ACK, in id order.
    pub(crate) held: Vec<HeldAction>,
    /// The extensions negotiated by the handshake (BAI/0.3), in [`Capability::ALL`] order.
    /// Default empty so states saved before capabilities existed restore as plain workflows.
    pub(crate) capabilities: Vec<Capability>,
    /// How many `BAI_RESULT` lines were issued; the next one gets this + 1 as `result_id`.
    pub(crate) results_issued: u64,
    /// The results issued most recently (at most [`MAX_REMEMBERED_RESULTS`]), to recognize them
    /// when the host posts them into the chat.
    pub(crate) results: Vec<IssuedResult>,
    /// What the last result line could not hold (`chunked_results`), waiting for `more`.
    pub(crate) continuation: Option<Continuation>,
    /// Continuation tokens already used or replaced (bounded), for precise refusals.
    pub(crate) spent_tokens: Vec<SpentToken>,
    /// Actions in flight and outcomes not yet reported: memory only, never saved (a reload
    /// drops what was in flight, and the saved state stays small).
    pub(crate) run: RunBook,
}

/// Results remembered per workflow. An older result that shows up again (a re-rendered message)
/// is then reported as `foreign_result`, which is harmless: results are never acted on.
pub(crate) const MAX_REMEMBERED_RESULTS: usize = 256;

/// A `BAI_RESULT` line this engine issued.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IssuedResult {
    /// Canonical fingerprint of the record's JSON object.
    pub(crate) fingerprint: Fingerprint,
    /// Whether it has shown up in the transcript.
    pub(crate) seen: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Workflow {
    /// Whether this exact action is already held under this id (BAI/0.2, before the ACK).
    pub(crate) fn held_identical(&self, action_id: u64, fingerprint: Fingerprint) -> bool {
        self.held
            .iter()
            .any(|h| h.action_id == action_id && h.fingerprint == fingerprint)
    }

    /// The held set as a token the host shows the user with the question and passes back on
    /// approval ([`crate::protocol::Engine::approve_shown`]): how many lines are held, then
    /// each one's id and the action it would run, written out in order; empty when nothing is
    /// held. The actions themselves, not a hash of them: a 64-bit fingerprint the model could
    /// aim a second set at, so that Allow ran actions the question never showed.
    pub(crate) fn held_set(&self) -> String {
        if self.held.is_empty() {
            return String::new();
        }
        let mut token = format!("{}-", self.held.len());
        for held in &self.held {
            token.push('\n');
            token.push_str(&held.action_id.to_string());
            token.push(' ');
            token.push_str(&super::decision_write::action_json(&held.action));
        }
        token
    }

    /// Whether action `action_id` already executed with exactly this content.
    pub(crate) fn executed_identical(&self, action_id: u64, fingerprint: Fingerprint) -> bool {
        usize::try_from(action_id)
            .ok()
            .and_then(|id| id.checked_sub(1))
            .and_then(|i| self.executed.get(i))
            .is_some_and(|fp| *fp == fingerprint)
    }

    /// Whether the handshake negotiated `capability`.
    pub(crate) fn has(&self, capability: Capability) -> bool {
        self.capabilities.contains(&capability)
    }

    /// The summary the host may show.
    pub(crate) fn info(&self) -> WorkflowInfo {
        WorkflowInfo {
            workflow_id: self.id.clone(),
            protocol: self.protocol,
            state: self.state,
            ack_nonce: self.ack_nonce.clone(),
            ack_seen: self.ack_seen,
            executed_actions: self.executed.len() as u64,
            held_actions: self.held.len() as u64,
            held_set: self.held_set(),
            success: self.success,
            capabilities: if self.capabilities.is_empty() {
                Vec::new()
            } else {
                std::iter::once(CAPABILITY_ACTION_LINES.to_owned())
                    .chain(self.capabilities.iter().map(|c| c.as_str().to_owned()))
                    .collect()
            },
            results_issued: self.results_issued,
            results_seen: self.results.iter().filter(|r| r.seen).count() as u64,
        }
    }
}

/// What the host may show about a workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkflowInfo {
    /// Its id.
    pub workflow_id: String,
    /// Its protocol.
    pub protocol: ProtocolVersion,
    /// Its state.
    pub state: WorkflowState,
    /// The nonce of the ACK issued for it, once approved.
    pub ack_nonce: Option<String>,
    /// Whether the issued ACK has shown up in the transcript.
    pub ack_seen: bool,
    /// How many actions executed.
    pub executed_actions: u64,
    /// How many BAI/0.2 actions wait for the ACK.
    pub held_actions: u64,
    /// Which ones: a token the host keeps with the question it shows and passes to
    /// [`crate::protocol::Engine::approve_shown`]; empty when none are held.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub held_set: String,
    /// `done`'s `success`, once done.
    pub success: Option<bool>,
    /// The capabilities the ACK echoed (`action_lines` first), when the handshake negotiated any
    /// extension; empty for a plain BAI/0.3 or a BAI/0.2 workflow.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
    /// How many `BAI_RESULT` lines [`crate::protocol::Engine::result_line`] issued.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub results_issued: u64,
    /// How many of the remembered issued results showed up in the transcript.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub results_seen: u64,
}
