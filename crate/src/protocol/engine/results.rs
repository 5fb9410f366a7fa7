//! The `BAI_RESULT` lines the engine issues for a workflow that negotiated `result_lines`.

use super::Engine;
use crate::protocol::continuation::{Continuation, remember_spent, token_for};
use crate::protocol::error::EngineError;
use crate::protocol::record::{Capability, object_fingerprint, parse_object};
use crate::protocol::result::{
    Chunking, RESULT_PREFIX, ResultReport, ResultStatus, build_chunked_line, build_line,
};
use crate::protocol::workflow::{IssuedResult, MAX_REMEMBERED_RESULTS, Workflow};

impl Engine {
    /// The `BAI_RESULT` line to post into the chat (as the user) for `workflow_id`, after running
    /// the actions a [`Decision::ResultDue`] listed. Numbers the results 1, 2, 3... per workflow,
    /// writes the workflow's current state, caps every part of the report (see
    /// [`crate::protocol::result`]) so the line stays under 8000 characters, and remembers the
    /// line so that it is recognized, and not reported as foreign, when it shows up in the chat.
    /// With `chunked_results` nothing is cut: what does not fit waits as the workflow's
    /// continuation and the line names its token (see [`crate::protocol::continuation`]); a line
    /// answering a `more` whose token was taken carries the next part in that action's `data`.
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
        let line = if workflow.has(Capability::ChunkedResults) {
            chunked_line(workflow, result_id, report)
        } else {
            build_line(
                workflow.protocol,
                &workflow.id,
                result_id,
                workflow.state,
                report,
            )
        };
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
}

/// The line of a `chunked_results` workflow, and its continuation updated: a `more` of this
/// report whose token was claimed gets the claimed segments (its token is then spent; a `more`
/// that did not run gives its claim back); what does not fit becomes the new continuation under
/// a fresh token, replacing (and making stale) an older one nobody claimed.
fn chunked_line(workflow: &mut Workflow, result_id: u64, report: &ResultReport) -> String {
    let mut more = None;
    if let Some(continuation) = workflow.continuation.take() {
        let delivered = continuation.claimed_by.filter(|id| {
            report
                .actions
                .iter()
                .any(|a| a.action_id == *id && a.status == ResultStatus::Ok)
        });
        match delivered {
            Some(id) => {
                remember_spent(&mut workflow.spent_tokens, continuation.token, false);
                more = Some((id, continuation.segments));
            }
            None => {
                // Not delivered by this line: the claim (if any) is given back.
                workflow.continuation = Some(Continuation {
                    claimed_by: None,
                    ..continuation
                });
            }
        }
    }
    let finished = workflow.state.is_finished();
    let token = match (&workflow.ack_nonce, finished) {
        (Some(nonce), false) => Some(token_for(&workflow.id, nonce, result_id)),
        _ => None,
    };
    let built = build_chunked_line(
        workflow.protocol,
        &workflow.id,
        result_id,
        workflow.state,
        report,
        Chunking {
            more,
            token: token.clone(),
        },
    );
    if finished {
        workflow.continuation = None;
    } else if let (Some(token), false) = (token, built.rest.is_empty()) {
        if let Some(old) = workflow.continuation.take() {
            remember_spent(&mut workflow.spent_tokens, old.token, true);
        }
        workflow.continuation = Some(Continuation {
            token,
            segments: built.rest,
            claimed_by: None,
        });
    }
    built.line
}
