//! Observing the transcript: snapshots and single messages in, each message scanned from where it
//! left off, and the outcomes of a complete message announced as a result due.

use super::{
    Decision, Engine, Flow, MAX_MESSAGES, Message, MessageCursor, PendingResult, RejectedAction,
    Role, Site,
};
use crate::protocol::action::Action;
use crate::protocol::error::RejectCode;
use crate::protocol::fingerprint::Fingerprint;
use crate::protocol::record::{Capability, parse_object};
use crate::protocol::refusal::Refusal;
use crate::protocol::scanner::{
    RecordPrefix, RecordProblem, RecordScanner, ScanItem, processable_len,
};
use crate::protocol::workflow::WorkflowState;

impl Engine {
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
        self.relocate_handshakes(messages.iter().take(count).enumerate());
        self.drop_held_lines(|index| index >= count);
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
        self.relocate_handshakes(messages.iter().take(count).enumerate());
        self.drop_held_lines(|index| index >= count);
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
        let changes: Vec<(usize, &Message)> = changes
            .into_iter()
            .filter(|(index, _)| *index < count)
            .collect();
        self.relocate_handshakes(changes.iter().copied());
        self.drop_held_lines(|index| index >= count);
        let mut out = Vec::new();
        for (index, message) in changes {
            self.process_message(index, message, index + 1 == count, &mut out);
        }
        self.drop_unaskable_handshakes(&mut out);
        out
    }

    /// Drops the held BAI/0.2 lines of the messages `gone` names (changed, or no longer in the
    /// transcript), and every line held after them, since held lines are numbered without gaps.
    /// The other messages those later lines came from lose all their held lines and are scanned
    /// afresh (handshake included) when next fed, so a line still on the page is held again, or
    /// refused, by the usual checks.
    pub(super) fn drop_held_lines(&mut self, gone: impl Fn(usize) -> bool) {
        let mut rescan: Vec<usize> = Vec::new();
        for workflow in &mut self.workflows {
            // Dropping a message's lines may drop lines of another message held after them:
            // that message loses the rest of its lines too (few lines; a few rounds at most).
            while let Some(first) = workflow
                .held
                .iter()
                .position(|h| gone(h.message_index) || rescan.contains(&h.message_index))
            {
                for later in workflow.held.split_off(first) {
                    if !gone(later.message_index) && !rescan.contains(&later.message_index) {
                        rescan.push(later.message_index);
                    }
                }
            }
        }
        for index in rescan {
            if let Some(cursor) = self.messages.get_mut(index) {
                cursor.processed = 0;
                cursor.prefix = Fingerprint::of(b"");
                cursor.finished = false;
            }
        }
    }

    /// A handshake whose workflow already failed in the same call (a refused BAI/0.2 line held
    /// in its own message) is not offered: the host would ask the user about a workflow that
    /// can no longer be approved. Its rejection and state change still go out.
    pub(super) fn drop_unaskable_handshakes(&self, out: &mut Vec<Decision>) {
        out.retain(|d| match d {
            Decision::HandshakeFound { workflow_id, .. } => self
                .workflows
                .iter()
                .any(|w| w.id == *workflow_id && w.state == WorkflowState::AwaitingExtensionAck),
            _ => true,
        });
    }

    pub(super) fn process_message(
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
            let seen = cursor.role.is_some();
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
            if seen {
                // What the message held before it changed is not what it says now (a
                // regenerated answer, another branch): its lines are held again only if the
                // scan below finds them.
                self.drop_held_lines(|changed| changed == index);
            }
        }
        let Some(cursor) = self.messages.get(index) else {
            return;
        };
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
    pub(super) fn note_outcomes(
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
            // Judged as written after the ACK: anything but a `before_ack` refusal (not the
            // message index, which moves when the page drops older messages; an action that
            // executed was written after the ACK wherever its message now sits).
            let after_ack = !matches!(
                decision,
                Decision::Reject(r) if r.code == RejectCode::BeforeAck
            );
            let wants_results = after_ack
                && self.workflows.iter().any(|w| {
                    w.id == *workflow_id && w.has(Capability::ResultLines) && w.ack_nonce.is_some()
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
}
