//! The protocol state machine: chat messages in, decisions out.
//!
//! The host feeds snapshots of the transcript ([`Engine::observe`]) or single changed messages
//! ([`Engine::update_message`]) as often as the page changes. The engine remembers, per message
//! index, how far it processed the text and a fingerprint of that prefix, so an unchanged message
//! costs one hash comparison and a grown (streaming) message is scanned only from where it left
//! off. A message whose processed prefix changed is re-scanned from the start; what already
//! executed is recognized by the per-workflow ledger and never runs again.
//!
//! Exactly-once: an action executes only if its workflow is active, its id is the next one, and
//! nothing identical or conflicting was seen before; the whole state is saved as JSON, so a host
//! that saves and restores it (a page reload) and feeds the same transcript again decides nothing
//! new.
//!
//! This file holds the engine's types and state; each concern of its behaviour is one file:
//! [`observing`] (messages in, scanning, results due), [`handshake`], [`records`] (record lines by
//! prefix and role; ACK and result lines), [`actions`] (action records, the ledger, execution),
//! [`reporting`] (refusals reported once; failing a workflow), [`approvals`] (approve, deny,
//! stop), [`results`] (`BAI_RESULT` lines) and [`persistence`] (save, restore).

use serde::{Deserialize, Serialize};

use super::action::{Action, ActionOptions};
use super::error::{EngineError, RejectCode, Rejection};
use super::fingerprint::Fingerprint;
use super::record::ProtocolVersion;
use super::workflow::{Workflow, WorkflowInfo, WorkflowState};

mod actions;
mod approvals;
mod handshake;
mod observing;
mod outcomes;
mod persistence;
mod records;
mod reporting;
mod results;

pub use persistence::{
    HEAD_PART, JoinError, PartChanges, PartWriter, RestoreError, join_parts, split_parts,
};

/// Most actions one workflow may execute; the ledger keeps one fingerprint per action.
pub const MAX_ACTIONS_PER_WORKFLOW: usize = 4096;
/// Most BAI/0.2 actions held before the ACK.
pub const MAX_HELD_ACTIONS: usize = 256;
/// Most workflows remembered; the oldest finished one is forgotten (and treated as stale) first.
pub const MAX_WORKFLOWS: usize = 32;
/// Most stale or forgotten workflow ids remembered.
pub const MAX_STALE_WORKFLOWS: usize = 256;
/// Most messages tracked; `update_message` beyond this index is ignored.
pub const MAX_MESSAGES: usize = 100_000;
/// Rejections remembered per message so a re-render does not report them again.
const MAX_REPORTED_PER_MESSAGE: usize = 64;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user (and the extension, which posts its ACK as the user).
    User,
    /// The model.
    Assistant,
}

fn default_true() -> bool {
    true
}

/// One chat message as the page shows it now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// The normalized text, fenced code blocks written as fences.
    pub text: String,
    /// False while the assistant is still streaming it.
    #[serde(default = "default_true")]
    pub complete: bool,
}

impl Message {
    /// A complete message.
    pub fn new(role: Role, text: impl Into<String>) -> Self {
        Self {
            role,
            text: text.into(),
            complete: true,
        }
    }

    /// A message still streaming.
    pub fn streaming(role: Role, text: impl Into<String>) -> Self {
        Self {
            role,
            text: text.into(),
            complete: false,
        }
    }
}

/// What the host should do, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decision {
    /// A valid handshake: ask the user, then call [`Engine::approve`] or [`Engine::deny`].
    HandshakeFound {
        /// The workflow it starts.
        workflow_id: String,
        /// Its protocol.
        protocol: ProtocolVersion,
        /// The message that carried it.
        message_index: usize,
    },
    /// Post `line` into the chat (as the user) to acknowledge the workflow.
    Ack {
        /// The acknowledged workflow.
        workflow_id: String,
        /// Its protocol.
        protocol: ProtocolVersion,
        /// The nonce the model must echo (0.3).
        ack_nonce: String,
        /// The exact line to post.
        line: String,
    },
    /// Perform the action on the page.
    Execute {
        /// The workflow.
        workflow_id: String,
        /// Its id within the workflow.
        action_id: u64,
        /// What to do.
        action: Action,
        /// Per-action `timeout_ms`, `on_error` and `reason` (`extended_actions`; default
        /// otherwise).
        #[serde(default, skip_serializing_if = "ActionOptions::is_default")]
        options: ActionOptions,
    },
    /// A record was refused.
    Reject(Rejection),
    /// A workflow's state changed.
    StateChanged {
        /// The workflow.
        workflow_id: String,
        /// Its new state.
        state: WorkflowState,
    },
    /// A complete assistant message asked for actions of a workflow that negotiated
    /// `result_lines`: once its `Execute` decisions (which come before this one) have run, build
    /// the report, call [`Engine::result_line`] and post the line into the chat. Emitted once per
    /// message (again only if a re-rendered message decides something new).
    ResultDue {
        /// The workflow.
        workflow_id: String,
        /// The assistant message.
        message_index: usize,
        /// The actions of the message that were handed out to execute, in order.
        executed: Vec<u64>,
        /// The action records of the message that were refused, in order.
        rejected: Vec<RejectedAction>,
    },
}

/// An action record a [`Decision::ResultDue`] must report as refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RejectedAction {
    /// Its action_id, when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_id: Option<u64>,
    /// Why it was refused.
    pub code: RejectCode,
    /// The specific reason.
    pub reason: String,
}

/// Outcomes of one assistant message for one workflow, not yet announced by a
/// [`Decision::ResultDue`] (the message may still be streaming).
#[derive(Debug, Clone, Default, PartialEq)]
struct PendingResult {
    workflow_id: String,
    executed: Vec<u64>,
    rejected: Vec<RejectedAction>,
    /// False while the only outcome is a successful `done`, which needs no answer.
    needed: bool,
}

/// What the engine remembers about one message index.
#[derive(Debug, Clone, Default, PartialEq)]
struct MessageCursor {
    /// The role seen at this index (`None`: never seen).
    role: Option<Role>,
    /// Bytes of text processed (a line start, or the end of a complete message).
    processed: usize,
    /// Fingerprint of `text[..processed]`.
    prefix: Fingerprint,
    /// The message was seen complete and its handshake (if any) was handled.
    finished: bool,
    /// Records already reported as rejected, so a re-scan does not report them twice.
    reported: Vec<Fingerprint>,
    /// Action outcomes waiting for the message to complete, to announce as
    /// [`Decision::ResultDue`]; emptied when announced, so a reload never announces them again.
    pending: Vec<PendingResult>,
}

/// The sans-IO BAI engine. See the module documentation. Its state is written and read back by
/// hand ([`Engine::save`], [`Engine::restore`]), in the format its serde derives wrote.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Engine {
    messages: Vec<MessageCursor>,
    workflows: Vec<Workflow>,
    /// Workflow ids whose handshake was stale (or that were forgotten): never acknowledged.
    stale: Vec<String>,
    /// Length of the transcript as last observed.
    transcript_len: usize,
    /// Messages whose scan stopped before the end of what could be processed (a streaming record
    /// names a workflow not known yet), in index order: fed again unchanged, they are scanned on
    /// from there. Usually empty.
    waiting: Vec<usize>,
}

/// Whether scanning the rest of a message goes on now or waits.
enum Flow {
    Continue,
    /// A streaming message names a workflow not known yet (its handshake may be in this same
    /// message): wait for the message to complete.
    Wait,
}

/// Where a record sits, for rejections.
struct Site<'a> {
    message_index: usize,
    /// The record text (prefix to end of object, or to end of line if invalid).
    text: &'a str,
    /// Byte offset in the message, to tell two identical records apart.
    offset: usize,
}

impl Site<'_> {
    fn key(&self) -> Fingerprint {
        Fingerprint::of(self.text.as_bytes()).with(Fingerprint(self.offset as u64))
    }
}

impl Engine {
    /// A fresh engine for one conversation.
    pub fn new() -> Self {
        Self::default()
    }

    /// The messages below `before` whose scan is waiting (see [`Engine::update_messages`]): fed
    /// again unchanged they may decide something, while any other message already seen and fed
    /// again unchanged costs a fingerprint and decides nothing. A host that only appends
    /// messages (`bai replay`) feeds these and the new one, instead of the whole transcript.
    pub fn waiting_messages(&self, before: usize) -> Vec<usize> {
        self.waiting
            .iter()
            .copied()
            .take_while(|&index| index < before)
            .collect()
    }

    /// What the engine knows about one workflow.
    pub fn workflow(&self, workflow_id: &str) -> Option<WorkflowInfo> {
        self.workflows
            .iter()
            .find(|w| w.id == workflow_id)
            .map(Workflow::info)
    }

    /// Whether `workflow_id`'s handshake negotiated `capability`.
    pub fn negotiated(&self, workflow_id: &str, capability: super::record::Capability) -> bool {
        self.workflows
            .iter()
            .any(|w| w.id == workflow_id && w.has(capability))
    }

    /// Whether a workflow is active (acknowledged, not ended): what the chat tab's banner shows
    /// as "running" after every poll, without the whole list as JSON.
    pub fn any_active(&self) -> bool {
        self.workflows
            .iter()
            .any(|workflow| workflow.state == WorkflowState::Active)
    }

    /// Every workflow the engine remembers, oldest first.
    pub fn workflows(&self) -> Vec<WorkflowInfo> {
        self.workflows.iter().map(Workflow::info).collect()
    }

    fn position(&self, workflow_id: &str) -> Result<usize, EngineError> {
        self.workflows
            .iter()
            .position(|w| w.id == workflow_id)
            .ok_or_else(|| EngineError::UnknownWorkflow {
                workflow_id: workflow_id.to_owned(),
            })
    }

    fn is_stale(&self, workflow_id: &str) -> bool {
        self.stale.iter().any(|id| id == workflow_id)
    }

    fn remember_stale(&mut self, workflow_id: String) {
        if self.is_stale(&workflow_id) {
            return;
        }
        if self.stale.len() >= MAX_STALE_WORKFLOWS {
            self.stale.remove(0);
        }
        self.stale.push(workflow_id);
    }
}

#[cfg(test)]
mod tests;
