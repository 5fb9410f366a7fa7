//! The handshake of a complete assistant message: found, refused (several, stale, too many
//! workflows) or started.

use super::{Decision, Engine, MAX_WORKFLOWS, Site};
use crate::protocol::fence::{bai_blocks, bai_fence_lines};
use crate::protocol::outcome::RunBook;
use crate::protocol::record::{HandshakeForm, parse_handshake};
use crate::protocol::refusal::Refusal;
use crate::protocol::scanner::{RecordPrefix, RecordScanner, ScanItem};
use crate::protocol::workflow::{Workflow, WorkflowState};

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
