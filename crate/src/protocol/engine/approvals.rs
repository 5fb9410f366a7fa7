//! The user's answers to a handshake: approve (the ACK, and BAI/0.2's held actions), deny, stop.

use super::{Decision, Engine};
use crate::protocol::action::ActionOptions;
use crate::protocol::error::{EngineError, RejectCode, Rejection, excerpt};
use crate::protocol::record::{ack_line_with_capabilities, is_valid_nonce};
use crate::protocol::workflow::WorkflowState;

impl Engine {
    /// The user approved the handshake of `workflow_id`; `nonce` (`n_` + 16-64 lowercase hex
    /// digits, from a CSPRNG) goes into the ACK line. Yields the [`Decision::Ack`], the state
    /// changes and, for BAI/0.2, the actions held until now. For a host that approves right
    /// after the observation that found the handshake (nothing can have been held since); a host
    /// that asks the user meanwhile calls [`Engine::approve_shown`].
    pub fn approve(
        &mut self,
        workflow_id: &str,
        nonce: &str,
    ) -> Result<Vec<Decision>, EngineError> {
        self.approve_held(workflow_id, nonce, None)
    }

    /// Like [`Engine::approve`], for the question the user answered: `held_set` is the
    /// workflow's [`WorkflowInfo::held_set`](crate::protocol::WorkflowInfo::held_set) read when
    /// the question was shown. The model may write more BAI/0.2 lines while the user reads it,
    /// and a message that held some may change: unless the held actions are still exactly those,
    /// nothing is approved ([`EngineError::HeldActionsChanged`]) and the host asks again.
    pub fn approve_shown(
        &mut self,
        workflow_id: &str,
        nonce: &str,
        held_set: &str,
    ) -> Result<Vec<Decision>, EngineError> {
        self.approve_held(workflow_id, nonce, Some(held_set))
    }

    fn approve_held(
        &mut self,
        workflow_id: &str,
        nonce: &str,
        shown: Option<&str>,
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
        if shown.is_some_and(|shown| shown != workflow.held_set()) {
            return Err(EngineError::HeldActionsChanged {
                workflow_id: workflow_id.to_owned(),
                held_actions: workflow.held.len() as u64,
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
}
