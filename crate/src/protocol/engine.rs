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
//! nothing identical or conflicting was seen before; the whole state is `serde` data, so a host
//! that saves and restores it (a page reload) and feeds the same transcript again decides nothing
//! new.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::action::{Action, ActionOptions};
use super::error::{EngineError, RejectCode, Rejection, excerpt};
use super::fence::{bai_blocks, bai_fence_lines};
use super::fingerprint::Fingerprint;
use super::record::{
    Capability, HandshakeForm, ProtocolVersion, ack_line_with_capabilities, action_id_field,
    is_valid_nonce, object_fingerprint, parse_ack, parse_handshake, parse_object, protocol_field,
    str_field, workflow_field,
};
use super::refusal::{AckMismatch, Refusal};
use super::result::{RESULT_PREFIX, ResultReport, build_line};
use super::scanner::{RecordPrefix, RecordProblem, RecordScanner, ScanItem, processable_len};
use super::validate::{action_from_wire, options_from_wire};
use super::workflow::{
    HeldAction, IssuedResult, MAX_REMEMBERED_RESULTS, Workflow, WorkflowInfo, WorkflowState,
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct PendingResult {
    workflow_id: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    executed: Vec<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    rejected: Vec<RejectedAction>,
    /// False while the only outcome is a successful `done`, which needs no answer.
    #[serde(default)]
    needed: bool,
}

/// What the engine remembers about one message index.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct MessageCursor {
    /// The role seen at this index (`None`: never seen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    role: Option<Role>,
    /// Bytes of text processed (a line start, or the end of a complete message).
    processed: usize,
    /// Fingerprint of `text[..processed]`.
    prefix: Fingerprint,
    /// The message was seen complete and its handshake (if any) was handled.
    finished: bool,
    /// Records already reported as rejected, so a re-scan does not report them twice.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    reported: Vec<Fingerprint>,
    /// Action outcomes waiting for the message to complete, to announce as
    /// [`Decision::ResultDue`]; emptied when announced, so a reload never announces them again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pending: Vec<PendingResult>,
}

/// The sans-IO BAI engine. See the module documentation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Engine {
    messages: Vec<MessageCursor>,
    workflows: Vec<Workflow>,
    /// Workflow ids whose handshake was stale (or that were forgotten): never acknowledged.
    stale: Vec<String>,
    /// Length of the transcript as last observed.
    #[serde(default)]
    transcript_len: usize,
    /// Messages whose scan stopped before the end of what could be processed (a streaming record
    /// names a workflow not known yet), in index order: fed again unchanged, they are scanned on
    /// from there. Usually empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
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

    /// Feed the whole transcript as the page shows it now. Call again on every change.
    ///
    /// Messages the page no longer shows (a shorter snapshot) keep their cursors: if they come
    /// back unchanged they cost nothing.
    pub fn observe(&mut self, messages: &[Message]) -> Vec<Decision> {
        let count = messages.len().min(MAX_MESSAGES);
        if self.messages.len() < count {
            self.messages.resize_with(count, MessageCursor::default);
        }
        self.transcript_len = count;
        let mut out = Vec::new();
        for (index, message) in messages.iter().take(count).enumerate() {
            self.process_message(index, message, index + 1 == count, &mut out);
        }
        self.drop_unaskable_handshakes(&mut out);
        out
    }

    /// Feed the transcript of a conversation just opened, with no state saved for it: an old
    /// conversation, or one this browser never saw. Like [`Engine::observe`], except that no
    /// complete handshake in it is offered for acknowledgement, not even one in the last
    /// message: nobody in this browser watched it arrive, so it may be days old or meant for
    /// another browser. (A handshake still streaming when the page opens is judged when it
    /// completes, as usual.)
    pub fn observe_opened(&mut self, messages: &[Message]) -> Vec<Decision> {
        let count = messages.len().min(MAX_MESSAGES);
        if self.messages.len() < count {
            self.messages.resize_with(count, MessageCursor::default);
        }
        self.transcript_len = count;
        let mut out = Vec::new();
        for (index, message) in messages.iter().take(count).enumerate() {
            self.process_message(index, message, false, &mut out);
        }
        self.drop_unaskable_handshakes(&mut out);
        out
    }

    /// Feed one message that changed (appended, grown while streaming, or re-rendered). The
    /// transcript is taken to be at least `index + 1` messages long; the message is the newest
    /// one if `index` is the highest index seen since the last [`Engine::observe`].
    pub fn update_message(&mut self, index: usize, message: &Message) -> Vec<Decision> {
        let mut out = Vec::new();
        if index >= MAX_MESSAGES {
            return out;
        }
        if index >= self.messages.len() {
            self.messages.resize_with(index + 1, MessageCursor::default);
        }
        self.transcript_len = self.transcript_len.max(index + 1);
        let is_last = index + 1 == self.transcript_len;
        self.process_message(index, message, is_last, &mut out);
        self.drop_unaskable_handshakes(&mut out);
        out
    }

    /// Feed the messages that changed since the last call, as `(index, message)`, together with
    /// the transcript's current length. Prefer this to [`Engine::update_message`] when several
    /// messages change at once: a handshake counts only if it is the newest message, which only
    /// the length can tell.
    pub fn update_messages<'m>(
        &mut self,
        transcript_len: usize,
        changes: impl IntoIterator<Item = (usize, &'m Message)>,
    ) -> Vec<Decision> {
        let count = transcript_len.min(MAX_MESSAGES);
        if self.messages.len() < count {
            self.messages.resize_with(count, MessageCursor::default);
        }
        self.transcript_len = count;
        let mut out = Vec::new();
        for (index, message) in changes {
            if index >= count {
                continue;
            }
            self.process_message(index, message, index + 1 == count, &mut out);
        }
        self.drop_unaskable_handshakes(&mut out);
        out
    }

    /// A handshake whose workflow already failed in the same call (a refused BAI/0.2 line held
    /// in its own message) is not offered: the host would ask the user about a workflow that
    /// can no longer be approved. Its rejection and state change still go out.
    fn drop_unaskable_handshakes(&self, out: &mut Vec<Decision>) {
        out.retain(|d| match d {
            Decision::HandshakeFound { workflow_id, .. } => self
                .workflows
                .iter()
                .any(|w| w.id == *workflow_id && w.state == WorkflowState::AwaitingExtensionAck),
            _ => true,
        });
    }

    /// The user approved the handshake of `workflow_id`; `nonce` (`n_` + 16-64 lowercase hex
    /// digits, from a CSPRNG) goes into the ACK line. Yields the [`Decision::Ack`], the state
    /// changes and, for BAI/0.2, the actions held until now.
    pub fn approve(
        &mut self,
        workflow_id: &str,
        nonce: &str,
    ) -> Result<Vec<Decision>, EngineError> {
        if !is_valid_nonce(nonce) {
            return Err(EngineError::InvalidNonce {
                nonce: excerpt(nonce),
            });
        }
        let position = self.position(workflow_id)?;
        let Some(workflow) = self.workflows.get(position) else {
            return Err(EngineError::UnknownWorkflow {
                workflow_id: workflow_id.to_owned(),
            });
        };
        if workflow.state != WorkflowState::AwaitingExtensionAck {
            return Err(EngineError::NotAwaitingApproval {
                workflow_id: workflow_id.to_owned(),
                state: workflow.state,
            });
        }
        let mut out = vec![Decision::Ack {
            workflow_id: workflow.id.clone(),
            protocol: workflow.protocol,
            ack_nonce: nonce.to_owned(),
            line: ack_line_with_capabilities(
                workflow.protocol,
                &workflow.id,
                nonce,
                &workflow.capabilities,
            ),
        }];
        for (i, other) in self.workflows.iter_mut().enumerate() {
            if i != position && !other.state.is_finished() {
                other.state = WorkflowState::Superseded;
                other.held.clear();
                out.push(Decision::StateChanged {
                    workflow_id: other.id.clone(),
                    state: WorkflowState::Superseded,
                });
            }
        }
        let Some(workflow) = self.workflows.get_mut(position) else {
            return Ok(out);
        };
        workflow.state = WorkflowState::Active;
        workflow.ack_nonce = Some(nonce.to_owned());
        out.push(Decision::StateChanged {
            workflow_id: workflow.id.clone(),
            state: WorkflowState::Active,
        });
        for held in std::mem::take(&mut workflow.held) {
            if workflow.state != WorkflowState::Active {
                out.push(Decision::Reject(Rejection {
                    code: RejectCode::WorkflowFinished,
                    reason: format!(
                        "action {} came after the workflow ended (it is {}); start a new handshake for more actions",
                        held.action_id, workflow.state
                    ),
                    message_index: held.message_index,
                    excerpt: held.excerpt,
                    workflow_id: Some(workflow.id.clone()),
                    action_id: Some(held.action_id),
                }));
                continue;
            }
            Self::execute(
                workflow,
                held.action_id,
                held.fingerprint,
                held.action,
                ActionOptions::default(),
                &mut out,
            );
        }
        Ok(out)
    }

    /// The user refused the handshake of `workflow_id`.
    pub fn deny(&mut self, workflow_id: &str) -> Result<Vec<Decision>, EngineError> {
        let position = self.position(workflow_id)?;
        let Some(workflow) = self.workflows.get_mut(position) else {
            return Err(EngineError::UnknownWorkflow {
                workflow_id: workflow_id.to_owned(),
            });
        };
        if workflow.state != WorkflowState::AwaitingExtensionAck {
            return Err(EngineError::NotAwaitingApproval {
                workflow_id: workflow_id.to_owned(),
                state: workflow.state,
            });
        }
        workflow.state = WorkflowState::Denied;
        workflow.held.clear();
        Ok(vec![Decision::StateChanged {
            workflow_id: workflow.id.clone(),
            state: WorkflowState::Denied,
        }])
    }

    /// The user pressed stop: nothing more executes for `workflow_id`; held actions are dropped.
    pub fn stop(&mut self, workflow_id: &str) -> Result<Vec<Decision>, EngineError> {
        let position = self.position(workflow_id)?;
        let Some(workflow) = self.workflows.get_mut(position) else {
            return Err(EngineError::UnknownWorkflow {
                workflow_id: workflow_id.to_owned(),
            });
        };
        if workflow.state.is_finished() {
            return Err(EngineError::AlreadyFinished {
                workflow_id: workflow_id.to_owned(),
                state: workflow.state,
            });
        }
        workflow.state = WorkflowState::Stopped;
        workflow.held.clear();
        Ok(vec![Decision::StateChanged {
            workflow_id: workflow.id.clone(),
            state: WorkflowState::Stopped,
        }])
    }

    /// The `BAI_RESULT` line to post into the chat (as the user) for `workflow_id`, after running
    /// the actions a [`Decision::ResultDue`] listed. Numbers the results 1, 2, 3... per workflow,
    /// writes the workflow's current state, caps every part of the report (see
    /// [`crate::protocol::result`]) so the line stays under 8000 characters, and remembers the
    /// line so that it is recognized, and not reported as foreign, when it shows up in the chat.
    pub fn result_line(
        &mut self,
        workflow_id: &str,
        report: &ResultReport,
    ) -> Result<String, EngineError> {
        let position = self.position(workflow_id)?;
        let Some(workflow) = self.workflows.get_mut(position) else {
            return Err(EngineError::UnknownWorkflow {
                workflow_id: workflow_id.to_owned(),
            });
        };
        if !workflow.has(Capability::ResultLines) {
            return Err(EngineError::ResultsNotNegotiated {
                workflow_id: workflow_id.to_owned(),
            });
        }
        if workflow.ack_nonce.is_none() {
            return Err(EngineError::NotAcknowledged {
                workflow_id: workflow_id.to_owned(),
                state: workflow.state,
            });
        }
        let result_id = workflow.results_issued + 1;
        let line = build_line(
            workflow.protocol,
            &workflow.id,
            result_id,
            workflow.state,
            report,
        );
        let json = line
            .strip_prefix(RESULT_PREFIX)
            .unwrap_or_default()
            .trim_start();
        // The fingerprint is of the parsed object, as the transcript's copy will be read; a line
        // that did not parse back would simply never be recognized (reported as foreign).
        if let Ok(map) = parse_object(json) {
            if workflow.results.len() >= MAX_REMEMBERED_RESULTS {
                workflow.results.remove(0);
            }
            workflow.results.push(IssuedResult {
                fingerprint: object_fingerprint(&map),
                seen: false,
            });
        }
        workflow.results_issued = result_id;
        Ok(line)
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

    /// Every workflow the engine remembers, oldest first.
    pub fn workflows(&self) -> Vec<WorkflowInfo> {
        self.workflows.iter().map(Workflow::info).collect()
    }

    /// The engine state as JSON, to persist across page reloads.
    pub fn save(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    /// An engine restored from [`Engine::save`]'s JSON.
    pub fn restore(json: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(json)
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

    fn process_message(
        &mut self,
        index: usize,
        message: &Message,
        is_last: bool,
        out: &mut Vec<Decision>,
    ) {
        let Some(cursor) = self.messages.get_mut(index) else {
            return;
        };
        let text = message.text.as_str();
        let unchanged = cursor.role == Some(message.role)
            && text
                .as_bytes()
                .get(..cursor.processed)
                .is_some_and(|prefix| Fingerprint::of(prefix) == cursor.prefix);
        if !unchanged {
            let (reported, pending) = if cursor.role == Some(message.role) {
                (
                    std::mem::take(&mut cursor.reported),
                    std::mem::take(&mut cursor.pending),
                )
            } else {
                (Vec::new(), Vec::new())
            };
            *cursor = MessageCursor {
                role: Some(message.role),
                reported,
                pending,
                ..MessageCursor::default()
            };
            cursor.prefix = Fingerprint::of(b"");
        }
        let from = cursor.processed;
        let handshake_due = message.complete && !cursor.finished;
        if !handshake_due && from == processable_len(text, message.complete) {
            return;
        }
        if handshake_due {
            if message.role == Role::Assistant {
                self.handle_handshake(index, text, is_last, out);
            }
            if let Some(cursor) = self.messages.get_mut(index) {
                cursor.finished = true;
            }
        }
        let mut processed = processable_len(text, message.complete);
        for item in RecordScanner::new(text, from, message.complete) {
            let flow = match &item {
                ScanItem::Partial { line_start } => {
                    processed = *line_start;
                    break;
                }
                ScanItem::Record {
                    prefix, span, json, ..
                } => {
                    let site = Site {
                        message_index: index,
                        text: text.get(span.clone()).unwrap_or_default(),
                        offset: span.start,
                    };
                    let parsed = parse_object(text.get(json.clone()).unwrap_or_default());
                    let before = out.len();
                    let flow = self.handle_record(*prefix, message, &site, parsed, out);
                    self.note_outcomes(*prefix, message.role, index, out.get(before..));
                    flow
                }
                ScanItem::Invalid {
                    prefix,
                    span,
                    problem,
                    ..
                } => {
                    let site = Site {
                        message_index: index,
                        text: text.get(span.clone()).unwrap_or_default(),
                        offset: span.start,
                    };
                    let refusal = match problem {
                        RecordProblem::MissingJson => Refusal::MissingJson {
                            prefix: prefix.as_str(),
                        },
                        RecordProblem::Unterminated => Refusal::UnterminatedRecord {
                            prefix: prefix.as_str(),
                        },
                        RecordProblem::TrailingText => Refusal::TrailingText {
                            prefix: prefix.as_str(),
                        },
                    };
                    let before = out.len();
                    let flow = self.handle_record(*prefix, message, &site, Err(refusal), out);
                    self.note_outcomes(*prefix, message.role, index, out.get(before..));
                    flow
                }
            };
            if let Flow::Wait = flow {
                processed = item.line_start();
                break;
            }
        }
        if let Some(cursor) = self.messages.get_mut(index) {
            let processed = processed.max(from);
            let waiting = processed < processable_len(text, message.complete);
            match (self.waiting.binary_search(&index), waiting) {
                (Err(at), true) => self.waiting.insert(at, index),
                (Ok(at), false) => {
                    self.waiting.remove(at);
                }
                _ => {}
            }
            cursor.processed = processed;
            cursor.prefix = Fingerprint::of(text.as_bytes().get(..processed).unwrap_or_default());
            if message.complete {
                for pending in std::mem::take(&mut cursor.pending) {
                    if pending.needed {
                        out.push(Decision::ResultDue {
                            workflow_id: pending.workflow_id,
                            message_index: index,
                            executed: pending.executed,
                            rejected: pending.rejected,
                        });
                    }
                }
            }
        }
    }

    /// Remember what an assistant's action record led to (`decisions`, just pushed), for the
    /// [`Decision::ResultDue`] of its message. Only workflows that negotiated `result_lines` and
    /// were acknowledged count: a result may only follow the ACK. Rejections never reported
    /// again (a re-scan) do not show up here, so nothing is announced twice.
    fn note_outcomes(
        &mut self,
        prefix: RecordPrefix,
        role: Role,
        index: usize,
        decisions: Option<&[Decision]>,
    ) {
        if prefix != RecordPrefix::Action || role != Role::Assistant {
            return;
        }
        for decision in decisions.unwrap_or_default() {
            let (workflow_id, executed, rejected, needed) = match decision {
                Decision::Execute {
                    workflow_id,
                    action_id,
                    action,
                    ..
                } => {
                    let quiet_done = matches!(action, Action::Done { success: true, .. });
                    (workflow_id, Some(*action_id), None, !quiet_done)
                }
                Decision::Reject(r) => {
                    let Some(workflow_id) = &r.workflow_id else {
                        continue;
                    };
                    let rejected = RejectedAction {
                        action_id: r.action_id,
                        code: r.code,
                        reason: r.reason.clone(),
                    };
                    (workflow_id, None, Some(rejected), true)
                }
                _ => continue,
            };
            let wants_results = self.workflows.iter().any(|w| {
                w.id == *workflow_id
                    && w.has(Capability::ResultLines)
                    && w.ack_nonce.is_some()
                    && index > w.handshake_message
            });
            if !wants_results {
                continue;
            }
            // A finished workflow gets one last result: for the message that ended it (its
            // refusal, or the records after it in the same message). Lines in later messages
            // are still refused, but announce nothing: otherwise every such message would
            // start another round of result and reply, with nothing left to run.
            let ended_here = decisions.unwrap_or_default().iter().any(|d| {
                matches!(d, Decision::StateChanged { workflow_id: changed, .. } if changed == workflow_id)
            });
            let already_pending = self
                .messages
                .get(index)
                .is_some_and(|cursor| cursor.pending.iter().any(|p| p.workflow_id == *workflow_id));
            let finished = self
                .workflows
                .iter()
                .any(|w| w.id == *workflow_id && w.state.is_finished());
            if finished && !ended_here && !already_pending && executed.is_none() {
                continue;
            }
            let Some(cursor) = self.messages.get_mut(index) else {
                return;
            };
            let position = match cursor
                .pending
                .iter()
                .position(|p| p.workflow_id == *workflow_id)
            {
                Some(p) => p,
                None => {
                    cursor.pending.push(PendingResult {
                        workflow_id: workflow_id.clone(),
                        ..PendingResult::default()
                    });
                    cursor.pending.len() - 1
                }
            };
            if let Some(pending) = cursor.pending.get_mut(position) {
                pending.executed.extend(executed);
                pending.rejected.extend(rejected);
                pending.needed |= needed;
            }
        }
    }

    /// Remember that the record at `site` was reported; false if it already was.
    fn mark_reported(&mut self, site: &Site<'_>) -> bool {
        let key = site.key();
        let Some(cursor) = self.messages.get_mut(site.message_index) else {
            return true;
        };
        if cursor.reported.contains(&key) {
            return false;
        }
        if cursor.reported.len() >= MAX_REPORTED_PER_MESSAGE {
            cursor.reported.remove(0);
        }
        cursor.reported.push(key);
        true
    }

    fn reject(&mut self, site: &Site<'_>, rejection: Rejection, out: &mut Vec<Decision>) {
        if self.mark_reported(site) {
            out.push(Decision::Reject(rejection));
        }
    }

    fn refuse(
        &mut self,
        site: &Site<'_>,
        refusal: Refusal,
        workflow_id: Option<&str>,
        action_id: Option<u64>,
        out: &mut Vec<Decision>,
    ) {
        let rejection = Rejection {
            code: refusal.code(),
            reason: refusal.to_string(),
            message_index: site.message_index,
            excerpt: excerpt(site.text),
            workflow_id: workflow_id.map(str::to_owned),
            action_id,
        };
        self.reject(site, rejection, out);
    }

    /// The handshake of a complete assistant message, if it has one.
    fn handle_handshake(
        &mut self,
        index: usize,
        text: &str,
        is_last: bool,
        out: &mut Vec<Decision>,
    ) {
        let blocks = bai_blocks(text);
        let mut candidates: Vec<(std::ops::Range<usize>, Result<&str, Refusal>, HandshakeForm)> =
            blocks
                .iter()
                .map(|b| {
                    (
                        b.span.clone(),
                        Ok(text.get(b.content.clone()).unwrap_or_default()),
                        HandshakeForm::BaiBlock,
                    )
                })
                .collect();
        for item in RecordScanner::new(text, 0, true) {
            match item {
                ScanItem::Record {
                    prefix: RecordPrefix::Handshake,
                    span,
                    json,
                    ..
                } => {
                    candidates.push((
                        span,
                        Ok(text.get(json).unwrap_or_default()),
                        HandshakeForm::Line,
                    ));
                }
                ScanItem::Invalid {
                    prefix: RecordPrefix::Handshake,
                    span,
                    ..
                } => {
                    let refusal = Refusal::HandshakeLineIncomplete;
                    candidates.push((span, Err(refusal), HandshakeForm::Line));
                }
                _ => {}
            }
        }
        candidates.sort_by_key(|c| c.0.start);
        let Some((span, json, form)) = candidates.first() else {
            return;
        };
        let site = Site {
            message_index: index,
            text: text.get(span.clone()).unwrap_or_default(),
            offset: span.start,
        };
        // A `bai` fence line the top-level reading does not count as a block (in a quote or a
        // list, over-indented, upper case, or inside another block that a container may end
        // early) could still be a second handshake to some renderer: it counts too.
        let hidden = bai_fence_lines(text).saturating_sub(blocks.len());
        let count = candidates.len() + hidden;
        if count > 1 {
            let refusal = Refusal::MultipleHandshakes { count };
            self.refuse(&site, refusal, None, None, out);
            return;
        }
        let handshake = match json.clone().and_then(|json| parse_handshake(json, *form)) {
            Ok(h) => h,
            Err(refusal) => {
                self.refuse(&site, refusal, None, None, out);
                return;
            }
        };
        let id = handshake.workflow_id.as_str();
        if self.is_stale(id) {
            let refusal = Refusal::StaleHandshake {
                workflow_id: id.to_owned(),
            };
            self.refuse(&site, refusal, Some(id), None, out);
            return;
        }
        if self.workflows.iter().any(|w| w.id == id) {
            // The same handshake again (re-render, repetition): already handled.
            return;
        }
        if !is_last {
            let refusal = Refusal::HandshakeNotNewest {
                workflow_id: id.to_owned(),
            };
            self.refuse(&site, refusal, Some(id), None, out);
            self.remember_stale(handshake.workflow_id);
            return;
        }
        if self.workflows.len() >= MAX_WORKFLOWS {
            match self.workflows.iter().position(|w| w.state.is_finished()) {
                Some(oldest) => {
                    let forgotten = self.workflows.remove(oldest);
                    self.remember_stale(forgotten.id);
                }
                None => {
                    let refusal = Refusal::TooManyWorkflows {
                        open: MAX_WORKFLOWS,
                    };
                    self.refuse(&site, refusal, Some(id), None, out);
                    return;
                }
            }
        }
        self.workflows.push(Workflow {
            id: handshake.workflow_id.clone(),
            protocol: handshake.protocol,
            state: WorkflowState::AwaitingExtensionAck,
            handshake_message: index,
            ack_nonce: None,
            ack_seen: false,
            success: None,
            executed: Vec::new(),
            held: Vec::new(),
            capabilities: handshake.capabilities,
            results_issued: 0,
            results: Vec::new(),
        });
        out.push(Decision::HandshakeFound {
            workflow_id: handshake.workflow_id,
            protocol: handshake.protocol,
            message_index: index,
        });
    }

    fn handle_record(
        &mut self,
        prefix: RecordPrefix,
        message: &Message,
        site: &Site<'_>,
        parsed: Result<Map<String, Value>, Refusal>,
        out: &mut Vec<Decision>,
    ) -> Flow {
        match (prefix, message.role) {
            // Handshake lines are read with the message's handshake, once it is complete.
            (RecordPrefix::Handshake, _) => Flow::Continue,
            (RecordPrefix::Ack, Role::User) => {
                self.handle_ack(site, parsed, out);
                Flow::Continue
            }
            (RecordPrefix::Ack, Role::Assistant) => {
                self.refuse_extension_line(site, &parsed, Refusal::AckFromAssistant, out);
                Flow::Continue
            }
            (RecordPrefix::Action, Role::User) => {
                let map = parsed.as_ref().ok();
                let workflow_id = map.and_then(workflow_field).map(str::to_owned);
                let action_id = map.and_then(|m| action_id_field(m).ok());
                self.refuse(
                    site,
                    Refusal::ActionFromUser,
                    workflow_id.as_deref(),
                    action_id,
                    out,
                );
                Flow::Continue
            }
            (RecordPrefix::Action, Role::Assistant) => {
                self.handle_action(message, site, parsed, out)
            }
            (RecordPrefix::Result, Role::User) => {
                self.handle_result(site, parsed, out);
                Flow::Continue
            }
            // Like an ACK written by the model: reported, never read, and it does not fail the
            // workflow (the model may be quoting an earlier result back).
            (RecordPrefix::Result, Role::Assistant) => {
                self.refuse_extension_line(site, &parsed, Refusal::ResultFromAssistant, out);
                Flow::Continue
            }
        }
    }

    /// A line only the extension writes (ACK, result) found in an assistant message: reported
    /// with the workflow it names, never read, and the workflow goes on.
    fn refuse_extension_line(
        &mut self,
        site: &Site<'_>,
        parsed: &Result<Map<String, Value>, Refusal>,
        refusal: Refusal,
        out: &mut Vec<Decision>,
    ) {
        let workflow_id = parsed
            .as_ref()
            .ok()
            .and_then(workflow_field)
            .map(str::to_owned);
        self.refuse(site, refusal, workflow_id.as_deref(), None, out);
    }

    /// A `BAI_RESULT` line in a user message: ours (issued by [`Engine::result_line`]) is noted
    /// silently; anything else is reported once and never acted on.
    fn handle_result(
        &mut self,
        site: &Site<'_>,
        parsed: Result<Map<String, Value>, Refusal>,
        out: &mut Vec<Decision>,
    ) {
        let map = match parsed {
            Ok(map) => map,
            Err(why) => {
                // A duplicate key keeps its own code (see `Refusal::code`): it is how a copy of
                // our line could be made to read as ours to one reader and as something else to
                // another.
                let refusal = Refusal::UnreadableResult(Box::new(why));
                self.refuse(site, refusal, None, None, out);
                return;
            }
        };
        let fingerprint = object_fingerprint(&map);
        let workflow_id = workflow_field(&map).map(str::to_owned);
        let workflow = workflow_id
            .as_deref()
            .and_then(|id| self.workflows.iter_mut().find(|w| w.id == id));
        let known_workflow = match workflow {
            Some(workflow) => {
                if let Some(issued) = workflow
                    .results
                    .iter_mut()
                    .find(|r| r.fingerprint == fingerprint)
                {
                    issued.seen = true;
                    return;
                }
                true
            }
            None => false,
        };
        let refusal = Refusal::ForeignResult {
            workflow_id: workflow_id.clone().unwrap_or_default(),
            known_workflow,
        };
        self.refuse(site, refusal, workflow_id.as_deref(), None, out);
    }

    fn handle_ack(
        &mut self,
        site: &Site<'_>,
        parsed: Result<Map<String, Value>, Refusal>,
        out: &mut Vec<Decision>,
    ) {
        let ack = match parsed.and_then(|map| parse_ack(&map)) {
            Ok(ack) => ack,
            Err(why) => {
                let refusal = Refusal::UnreadableAck(Box::new(why));
                self.refuse(site, refusal, None, None, out);
                return;
            }
        };
        let own = self.workflows.iter_mut().find(|w| {
            w.id == ack.workflow_id
                && w.protocol == ack.protocol
                && w.ack_nonce.as_deref() == Some(ack.ack_nonce.as_str())
        });
        if let Some(workflow) = own {
            workflow.ack_seen = true;
            return;
        }
        let why = match self.workflows.iter().find(|w| w.id == ack.workflow_id) {
            Some(w) if w.ack_nonce.is_some() => AckMismatch::WrongNonce,
            Some(_) => AckMismatch::NotAcknowledged,
            None => AckMismatch::UnknownWorkflow,
        };
        let refusal = Refusal::ForeignAck {
            workflow_id: ack.workflow_id.clone(),
            why,
        };
        self.refuse(site, refusal, Some(&ack.workflow_id), None, out);
    }

    /// Reject a record of the active workflow after its ACK: the workflow fails.
    fn fail(
        &mut self,
        position: usize,
        site: &Site<'_>,
        refusal: Refusal,
        action_id: Option<u64>,
        out: &mut Vec<Decision>,
    ) {
        let Some(workflow) = self.workflows.get_mut(position) else {
            return;
        };
        let workflow_id = workflow.id.clone();
        workflow.state = WorkflowState::Failed;
        workflow.held.clear();
        let code = refusal.code();
        let reason =
            format!("{refusal}; workflow {workflow_id:?} has failed and runs nothing more");
        // A failure is reported even if the same record was reported before (under another
        // state): the state change must come with its cause.
        let rejection = Rejection {
            code,
            reason,
            message_index: site.message_index,
            excerpt: excerpt(site.text),
            workflow_id: Some(workflow_id.clone()),
            action_id,
        };
        self.mark_reported(site);
        out.push(Decision::Reject(rejection));
        out.push(Decision::StateChanged {
            workflow_id,
            state: WorkflowState::Failed,
        });
    }

    fn handle_action(
        &mut self,
        message: &Message,
        site: &Site<'_>,
        parsed: Result<Map<String, Value>, Refusal>,
        out: &mut Vec<Decision>,
    ) -> Flow {
        let index = site.message_index;
        // A record whose workflow cannot be read counts against the active workflow.
        let (map, workflow_id) = match parsed {
            Ok(map) => match workflow_field(&map).map(str::to_owned) {
                Some(id) => (map, id),
                None => {
                    let refusal = Refusal::ActionNoWorkflowId;
                    let action_id = action_id_field(&map).ok();
                    self.refuse_unattributed(site, refusal, action_id, out);
                    return Flow::Continue;
                }
            },
            Err(refusal) => {
                self.refuse_unattributed(site, refusal, None, out);
                return Flow::Continue;
            }
        };
        let action_id = action_id_field(&map);
        let known_id = action_id.as_ref().ok().copied();
        if self.is_stale(&workflow_id) {
            let refusal = Refusal::NotAcknowledged {
                workflow_id: workflow_id.clone(),
            };
            self.refuse(site, refusal, Some(&workflow_id), known_id, out);
            return Flow::Continue;
        }
        let Some(position) = self.workflows.iter().position(|w| w.id == workflow_id) else {
            if !message.complete {
                return Flow::Wait;
            }
            let refusal = Refusal::UnknownWorkflow {
                workflow_id: workflow_id.clone(),
            };
            self.refuse(site, refusal, Some(&workflow_id), known_id, out);
            return Flow::Continue;
        };
        let fingerprint = object_fingerprint(&map);
        let Some(workflow) = self.workflows.get(position) else {
            return Flow::Continue;
        };
        if let Some(id) = known_id {
            if workflow.executed_identical(id, fingerprint) {
                // A re-render or a repetition of an executed action: nothing to do.
                return Flow::Continue;
            }
        }
        let state = workflow.state;
        let protocol = workflow.protocol;
        if state.is_finished() {
            let refusal = Refusal::WorkflowFinished {
                workflow_id: workflow_id.clone(),
                state,
            };
            self.refuse(site, refusal, Some(&workflow_id), known_id, out);
            return Flow::Continue;
        }
        let before_ack =
            state == WorkflowState::AwaitingExtensionAck || index <= workflow.handshake_message;
        // BAI/0.2 lets the model write actions before the ACK: they are held and run once the
        // user approves. A held line goes through exactly the checks of a live one, and a refused
        // one fails the workflow exactly as a live one does: there is one rejection path.
        let held = before_ack
            && protocol == ProtocolVersion::V0_2
            && state == WorkflowState::AwaitingExtensionAck;
        if before_ack && !held {
            self.refuse(site, Refusal::BeforeAck, Some(&workflow_id), known_id, out);
            return Flow::Continue;
        }
        // The workflow the line counts for (active after its ACK, or holding BAI/0.2 lines):
        // any problem fails it.
        let action_id = match action_id {
            Ok(id) => id,
            Err(refusal) => {
                self.fail(position, site, refusal, None, out);
                return Flow::Continue;
            }
        };
        if held && workflow.held_identical(action_id, fingerprint) {
            // The same held line again (a re-render): already held.
            return Flow::Continue;
        }
        match self.check_record(position, &map, action_id, fingerprint, held) {
            Ok((action, options)) => {
                let Some(workflow) = self.workflows.get_mut(position) else {
                    return Flow::Continue;
                };
                if held {
                    // BAI/0.2 negotiates no capabilities, so a held action has no options.
                    workflow.held.push(HeldAction {
                        action_id,
                        fingerprint,
                        action,
                        message_index: index,
                        excerpt: excerpt(site.text),
                    });
                } else {
                    Self::execute(workflow, action_id, fingerprint, action, options, out);
                }
            }
            Err(refusal) => self.fail(position, site, refusal, Some(action_id), out),
        }
        Flow::Continue
    }

    /// A record whose workflow cannot be read: it fails the active workflow if it comes after that
    /// workflow's ACK, and any BAI/0.2 workflow holding lines, and is only reported otherwise.
    fn refuse_unattributed(
        &mut self,
        site: &Site<'_>,
        refusal: Refusal,
        action_id: Option<u64>,
        out: &mut Vec<Decision>,
    ) {
        // The workflows the line would count for had it named one: the active workflow after its
        // ACK, and every BAI/0.2 workflow holding lines written since its handshake.
        let counted: Vec<usize> = self
            .workflows
            .iter()
            .enumerate()
            .filter(|(_, w)| match w.state {
                WorkflowState::Active => site.message_index > w.handshake_message,
                WorkflowState::AwaitingExtensionAck => {
                    w.protocol == ProtocolVersion::V0_2 && site.message_index >= w.handshake_message
                }
                _ => false,
            })
            .map(|(p, _)| p)
            .collect();
        if counted.is_empty() {
            self.refuse(site, refusal, None, action_id, out);
            return;
        }
        for position in counted {
            self.fail(position, site, refusal.clone(), action_id, out);
        }
    }

    /// Checks an action record of a workflow it counts for: live (active, after the ACK) or held
    /// (BAI/0.2, before the ACK, numbered after the lines already held). The action to run.
    fn check_record(
        &self,
        position: usize,
        map: &Map<String, Value>,
        action_id: u64,
        fingerprint: Fingerprint,
        held: bool,
    ) -> Result<(Action, ActionOptions), Refusal> {
        let Some(workflow) = self.workflows.get(position) else {
            return Err(Refusal::WorkflowGone);
        };
        let (accepted, identical, limit) = if held {
            (
                workflow.held.len(),
                workflow.held_identical(action_id, fingerprint),
                MAX_HELD_ACTIONS,
            )
        } else {
            (
                workflow.executed.len(),
                workflow.executed_identical(action_id, fingerprint),
                MAX_ACTIONS_PER_WORKFLOW,
            )
        };
        let next = accepted as u64 + 1;
        if action_id < next && !identical {
            return Err(Refusal::IdReused { action_id, next });
        }
        check_protocol(map, workflow.protocol)?;
        if workflow.protocol == ProtocolVersion::V0_3 {
            if str_field(map, "kind") != Some("action") {
                return Err(Refusal::InvalidKind { action_id });
            }
            let expected = workflow.ack_nonce.as_deref().unwrap_or_default();
            match str_field(map, "ack_nonce") {
                Some(nonce) if nonce == expected => {}
                Some(_) => return Err(Refusal::WrongNonce { action_id }),
                None => return Err(Refusal::MissingNonce { action_id }),
            }
        }
        if action_id > next {
            return Err(Refusal::IdOutOfSequence {
                action_id,
                expected: next,
            });
        }
        if accepted >= limit {
            return Err(Refusal::TooManyActions { limit, held });
        }
        action_of(map, action_id, workflow.protocol, &workflow.capabilities)
    }

    fn execute(
        workflow: &mut Workflow,
        action_id: u64,
        fingerprint: Fingerprint,
        action: Action,
        options: ActionOptions,
        out: &mut Vec<Decision>,
    ) {
        workflow.executed.push(fingerprint);
        let done = match &action {
            Action::Done { success, .. } => Some(*success),
            _ => None,
        };
        out.push(Decision::Execute {
            workflow_id: workflow.id.clone(),
            action_id,
            action,
            options,
        });
        if let Some(success) = done {
            workflow.success = Some(success);
            workflow.state = WorkflowState::Done;
            workflow.held.clear();
            out.push(Decision::StateChanged {
                workflow_id: workflow.id.clone(),
                state: WorkflowState::Done,
            });
        }
    }
}

fn check_protocol(map: &Map<String, Value>, expected: ProtocolVersion) -> Result<(), Refusal> {
    let protocol = protocol_field(map)?;
    if protocol != expected {
        return Err(Refusal::ProtocolMismatch {
            record: protocol,
            expected,
        });
    }
    Ok(())
}

/// The action and its per-action options. The ledger's fingerprint is of the whole record object,
/// so `timeout_ms`, `on_error` and `reason` are part of an action's identity: the same id with a
/// different reason is a different action (`id_reused`).
fn action_of(
    map: &Map<String, Value>,
    action_id: u64,
    protocol: ProtocolVersion,
    capabilities: &[Capability],
) -> Result<(Action, ActionOptions), Refusal> {
    // Capabilities are BAI/0.3's: a 0.2 workflow cannot negotiate any.
    let capabilities = (protocol != ProtocolVersion::V0_2).then_some(capabilities);
    let type_name = match map.get("type") {
        Some(Value::String(t)) => t.as_str(),
        _ => {
            return Err(Refusal::ActionNoType { action_id });
        }
    };
    let Some(payload) = map.get("payload") else {
        return Err(Refusal::ActionNoPayload { action_id });
    };
    let with_id = |refusal: Refusal| Refusal::InAction {
        action_id,
        refusal: Box::new(refusal),
    };
    let action = action_from_wire(type_name, payload, capabilities).map_err(with_id)?;
    let options = options_from_wire(map, capabilities).map_err(with_id)?;
    Ok((action, options))
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
