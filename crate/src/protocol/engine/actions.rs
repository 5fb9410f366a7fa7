//! Action records: the workflow they name, its ledger (id sequence, reuse, limits), the BAI/0.3
//! kind and nonce, the payload, and execution (exactly once).

use serde_json::{Map, Value};

use super::{Decision, Engine, Flow, MAX_ACTIONS_PER_WORKFLOW, MAX_HELD_ACTIONS, Message, Site};
use crate::protocol::action::{Action, ActionOptions};
use crate::protocol::continuation::check_token;
use crate::protocol::error::excerpt;
use crate::protocol::fingerprint::Fingerprint;
use crate::protocol::outcome::{InFlight, MAX_QUEUED};
use crate::protocol::record::{
    Capability, ProtocolVersion, action_id_field, object_fingerprint, protocol_field, str_field,
    workflow_field,
};
use crate::protocol::refusal::Refusal;
use crate::protocol::validate::{action_from_wire, options_from_wire, tab_from_wire};
use crate::protocol::workflow::{HeldAction, Workflow, WorkflowState};

impl Engine {
    pub(super) fn handle_action(
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
        // A line's place is judged by its message index, which moves when the page drops or
        // loads older messages. A BAI/0.3 line that echoes the ACK's nonce was written after the
        // ACK wherever it now sits (the nonce did not exist before): it is not refused for its
        // place, or a page that drops its oldest messages would refuse every further action.
        let echoes_nonce = protocol == ProtocolVersion::V0_3
            && workflow.ack_nonce.is_some()
            && str_field(&map, "ack_nonce") == workflow.ack_nonce.as_deref();
        // A BAI/0.2 line has only its place: while the handshake's message is not in the
        // transcript (another branch of the conversation is shown), no line can be placed after
        // the ACK, and a line of that branch, however numbered, is refused as before the ACK.
        let unplaced = protocol == ProtocolVersion::V0_2 && workflow.handshake_lost;
        let before_ack = state == WorkflowState::AwaitingExtensionAck
            || (index <= workflow.handshake_message && !echoes_nonce)
            || unplaced;
        // BAI/0.2 lets the model write actions before the ACK: they are held and run once the
        // user approves. A held line goes through exactly the checks of a live one, and a refused
        // one fails the workflow exactly as a live one does: there is one rejection path. Only
        // lines from the handshake's message on are held: a line in an earlier message was
        // written before the workflow existed (refused as `unknown_workflow` when first read),
        // and a re-render of that message while the user decides must not queue it to run.
        let held = before_ack
            && protocol == ProtocolVersion::V0_2
            && state == WorkflowState::AwaitingExtensionAck
            && index >= workflow.handshake_message
            && !unplaced;
        if before_ack && !held {
            self.refuse(site, Refusal::BeforeAck, Some(&workflow_id), known_id, out);
            return Flow::Continue;
        }
        // The workflow the line counts for (active after its ACK, or holding BAI/0.2 lines):
        // any problem fails it.
        let action_id = match action_id {
            Ok(id) => id,
            Err(refusal) => {
                self.fail(position, site, &refusal, None, out);
                return Flow::Continue;
            }
        };
        if held && workflow.held_identical(action_id, fingerprint) {
            // The same held line again (a re-render, or its message moved when the page dropped
            // older ones): already held, now from here, so that a change of the message at its
            // old place does not drop it.
            if let Some(line) = self.workflows.get_mut(position).and_then(|w| {
                w.held
                    .iter_mut()
                    .find(|h| h.action_id == action_id && h.fingerprint == fingerprint)
            }) {
                line.message_index = index;
            }
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
                    if matches!(action, Action::More { .. }) {
                        // The token is taken now: a second `more` naming it is refused even
                        // before this one's result is written.
                        if let Some(continuation) = workflow.continuation.as_mut() {
                            continuation.claimed_by = Some(action_id);
                        }
                    }
                    Self::execute(workflow, action_id, fingerprint, action, options, out);
                }
            }
            Err(refusal) => self.fail(position, site, &refusal, Some(action_id), out),
        }
        Flow::Continue
    }

    /// A record whose workflow cannot be read: it fails the active workflow if it comes after that
    /// workflow's ACK, and any BAI/0.2 workflow holding lines, and is only reported otherwise.
    pub(super) fn refuse_unattributed(
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
                WorkflowState::Active => {
                    site.message_index > w.handshake_message
                        && !(w.protocol == ProtocolVersion::V0_2 && w.handshake_lost)
                }
                WorkflowState::AwaitingExtensionAck => {
                    w.protocol == ProtocolVersion::V0_2
                        && site.message_index >= w.handshake_message
                        && !w.handshake_lost
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
            self.fail(position, site, &refusal, action_id, out);
        }
    }

    /// Checks an action record of a workflow it counts for: live (active, after the ACK) or held
    /// (BAI/0.2, before the ACK, numbered after the lines already held). The action to run.
    pub(super) fn check_record(
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
        let (action, options) =
            action_of(map, action_id, workflow.protocol, &workflow.capabilities)?;
        if let Action::More { token } = &action {
            check_token(
                workflow.continuation.as_ref(),
                &workflow.spent_tokens,
                token,
            )
            .map_err(|problem| Refusal::Continuation { action_id, problem })?;
        }
        Ok((action, options))
    }

    pub(super) fn execute(
        workflow: &mut Workflow,
        action_id: u64,
        fingerprint: Fingerprint,
        action: Action,
        options: ActionOptions,
        out: &mut Vec<Decision>,
    ) {
        workflow.executed.push(fingerprint);
        if workflow.run.queued.len() < MAX_QUEUED {
            let flight = InFlight::new(action_id, &action, options.on_error);
            workflow.run.queued.push(flight);
        }
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
    let mut options = options_from_wire(map, capabilities).map_err(with_id)?;
    options.tab = tab_from_wire(map, capabilities, &action).map_err(with_id)?;
    Ok((action, options))
}
