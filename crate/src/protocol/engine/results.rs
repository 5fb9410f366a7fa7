//! The `BAI_RESULT` lines the engine issues for a workflow that negotiated `result_lines`.

use super::Engine;
use crate::protocol::error::EngineError;
use crate::protocol::record::{Capability, object_fingerprint, parse_object};
use crate::protocol::result::{RESULT_PREFIX, ResultReport, build_line};
use crate::protocol::workflow::{IssuedResult, MAX_REMEMBERED_RESULTS};

impl Engine {
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
}
