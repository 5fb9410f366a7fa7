//! Record lines by prefix and role: action lines go to [`super::actions`]; ACK and result lines
//! (which only the extension writes) are recognised as its own or reported as foreign.

use serde_json::{Map, Value};

use super::{Decision, Engine, Flow, Message, Role, Site};
use crate::protocol::record::{action_id_field, object_fingerprint, parse_ack, workflow_field};
use crate::protocol::refusal::{AckMismatch, Refusal};
use crate::protocol::scanner::RecordPrefix;

impl Engine {
    pub(super) fn handle_record(
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
    pub(super) fn refuse_extension_line(
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
    pub(super) fn handle_result(
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

    pub(super) fn handle_ack(
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
}
