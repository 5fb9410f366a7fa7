//! The handshake of a complete assistant message: found, refused (several, stale, too many
//! workflows) or started.

use super::{Decision, Engine, MAX_WORKFLOWS, Site};
use crate::protocol::fence::{bai_blocks, bai_fence_lines};
use crate::protocol::outcome::RunBook;
use crate::protocol::record::{HandshakeForm, parse_handshake, parse_object};
use crate::protocol::refusal::Refusal;
use crate::protocol::scanner::{RecordPrefix, RecordScanner, ScanItem};
use crate::protocol::workflow::{Workflow, WorkflowState};
use crate::protocol::{Message, Role};

impl Engine {
    /// The handshake of a complete assistant message, if it has one.
    pub(super) fn handle_handshake(
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
        crate::protocol::small_sort::sort_by_key(&mut candidates, |c| c.0.start);
        let found = candidates.len();
        // The first candidate by value: its refusal moves into the rejection (no `Refusal`
        // clone in the chat module).
        let Some((span, json, form)) = candidates.into_iter().next() else {
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
        let count = found + hidden;
        if count > 1 {
            let refusal = Refusal::MultipleHandshakes { count };
            self.refuse(&site, refusal, None, None, out);
            return;
        }
        let handshake = match json.and_then(|json| parse_handshake(json, form)) {
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
            handshake_lost: false,
            ack_nonce: None,
            ack_seen: false,
            success: None,
            executed: Vec::new(),
            held: Vec::new(),
            capabilities: handshake.capabilities,
            results_issued: 0,
            results: Vec::new(),
            continuation: None,
            spent_tokens: Vec::new(),
            run: RunBook::default(),
        });
        out.push(Decision::HandshakeFound {
            workflow_id: handshake.workflow_id,
            protocol: handshake.protocol,
            message_index: index,
        });
    }
}

/// Whether `message` holds a handshake of workflow `id`: a ```` ```bai ```` block or a
/// `BAI_HANDSHAKE` line whose `workflow_id` is `id`, in an assistant message.
fn holds_handshake_of(message: &Message, id: &str) -> bool {
    if message.role != Role::Assistant || !message.text.contains(id) {
        return false;
    }
    let text = message.text.as_str();
    let names_id = |json: &str| {
        parse_object(json)
            .ok()
            .and_then(|object| {
                object
                    .get("workflow_id")
                    .and_then(|v| v.as_str().map(|s| s == id))
            })
            .unwrap_or(false)
    };
    bai_blocks(text)
        .iter()
        .any(|b| names_id(text.get(b.content.clone()).unwrap_or_default()))
        || RecordScanner::new(text, 0, true).any(|item| {
            matches!(&item, ScanItem::Record { prefix: RecordPrefix::Handshake, json, .. }
                if names_id(text.get(json.clone()).unwrap_or_default()))
        })
}

impl Engine {
    /// Finds each workflow's handshake again when its message moved: older messages loaded on
    /// top of the conversation, or taken off it, shift every index, and "before the ACK" is
    /// judged by the handshake's index. `messages` is the whole transcript or the messages that
    /// changed (every message whose index moved has changed). Of several messages holding the
    /// handshake, the last counts; the index moves forward to it always (fewer lines count as
    /// written after the handshake), and back only when the stored message no longer holds it
    /// (messages above were taken off): a copy of the handshake the model wrote above, in
    /// history this browser never saw, never pulls the anchor up over the lines after it. When no
    /// message holds it any more and the stored one is gone or changed (the user switched to
    /// another branch of the conversation), the anchor is marked lost until the handshake shows
    /// up again.
    pub(super) fn relocate_handshakes<'m>(
        &mut self,
        messages: impl Iterator<Item = (usize, &'m Message)> + Clone,
    ) {
        let transcript_len = self.transcript_len;
        for workflow in &mut self.workflows {
            let stored = workflow.handshake_message;
            // The stored message is gone (the transcript ends above it) or changed into one
            // without the handshake: another branch of the conversation, or messages taken off.
            let stored_lost = stored >= transcript_len
                || messages
                    .clone()
                    .find(|(index, _)| *index == stored)
                    .is_some_and(|(_, m)| !holds_handshake_of(m, &workflow.id));
            let last = messages
                .clone()
                .filter(|(_, m)| holds_handshake_of(m, &workflow.id))
                .map(|(index, _)| index)
                .last();
            match last {
                Some(last) => {
                    if last > stored || (last < stored && (stored_lost || workflow.handshake_lost))
                    {
                        workflow.handshake_message = last;
                    }
                    workflow.handshake_lost = false;
                }
                // No message holds it: the anchor stays where it was (it may come back, a branch
                // switched back), but nothing is judged against it meanwhile.
                None if stored_lost => workflow.handshake_lost = true,
                None => {}
            }
        }
    }
}
