//! Turning a refusal into a reported rejection, once per record; and failing a workflow with its
//! cause.

use super::{Decision, Engine, MAX_REPORTED_PER_MESSAGE, Site};
use crate::protocol::error::{Rejection, excerpt};
use crate::protocol::quote::Quoted;
use crate::protocol::refusal::Refusal;
use crate::protocol::workflow::WorkflowState;

impl Engine {
    /// Remember that the record at `site` was reported; false if it already was.
    pub(super) fn mark_reported(&mut self, site: &Site<'_>) -> bool {
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

    pub(super) fn reject(
        &mut self,
        site: &Site<'_>,
        rejection: Rejection,
        out: &mut Vec<Decision>,
    ) {
        if self.mark_reported(site) {
            out.push(Decision::Reject(rejection));
        }
    }

    pub(super) fn refuse(
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

    /// Reject a record of the active workflow after its ACK: the workflow fails.
    pub(super) fn fail(
        &mut self,
        position: usize,
        site: &Site<'_>,
        refusal: &Refusal,
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
        let reason = format!(
            "{refusal}; workflow {} has failed and runs nothing more",
            Quoted(&workflow_id)
        );
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
}
