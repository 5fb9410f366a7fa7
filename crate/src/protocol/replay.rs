//! Replays a transcript through the engine: the logic behind `bai replay` / `bai check`, shared
//! with the conformance suite so both take the same code path.
//!
//! Live mode (the default) observes the transcript's prefixes of length 1, 2, ..., n, as a page
//! where messages arrive one at a time; snapshot mode observes the whole transcript at once, as
//! when an old conversation is opened. Every handshake found is approved right after the
//! observation that found it, with the next nonce given, or a fresh one from the caller.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::engine::{Decision, Engine, Message};
use super::error::EngineError;
use super::record::is_valid_nonce;

/// A transcript file: `{"messages": [{"role": "user"|"assistant", "text": "...", "complete": true}]}`.
/// `complete` defaults to true; unknown keys are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transcript {
    /// The messages, oldest first.
    pub messages: Vec<Message>,
}

/// How to replay.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayOptions {
    /// Nonces for the ACKs, used in order.
    #[serde(default)]
    pub nonces: Vec<String>,
    /// Observe the whole transcript at once instead of message by message.
    #[serde(default)]
    pub snapshot: bool,
}

/// One line of `bai replay` output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A workflow was acknowledged: `line` is posted into the chat.
    Ack {
        /// The workflow.
        workflow_id: String,
        /// Its protocol (`"BAI/0.3"`).
        protocol: String,
        /// The nonce.
        ack_nonce: String,
        /// The ACK line.
        line: String,
    },
    /// An action executed.
    Execute {
        /// The workflow.
        workflow_id: String,
        /// The action's id.
        action_id: u64,
        /// The action type (`"click"`, ...).
        #[serde(rename = "type")]
        action_type: String,
        /// The validated payload (a bare-string selector is written in object form).
        payload: Value,
    },
    /// A record was refused.
    Reject {
        /// The stable code.
        code: String,
        /// The specific reason.
        reason: String,
        /// The message's index.
        message_index: usize,
        /// The offending text (truncated).
        excerpt: String,
        /// The workflow, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        workflow_id: Option<String>,
        /// The action id, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        action_id: Option<u64>,
    },
    /// A workflow changed state.
    State {
        /// The workflow.
        workflow_id: String,
        /// The new state.
        state: String,
    },
}

impl Event {
    /// The event for a decision (`None` for a found handshake, which replay approves).
    pub fn from_decision(decision: &Decision) -> Option<Self> {
        Some(match decision {
            Decision::HandshakeFound { .. } => return None,
            Decision::Ack {
                workflow_id,
                protocol,
                ack_nonce,
                line,
            } => Event::Ack {
                workflow_id: workflow_id.clone(),
                protocol: protocol.as_str().to_owned(),
                ack_nonce: ack_nonce.clone(),
                line: line.clone(),
            },
            Decision::Execute {
                workflow_id,
                action_id,
                action,
                ..
            } => {
                let payload = serde_json::to_value(action)
                    .ok()
                    .and_then(|mut v| v.get_mut("payload").map(Value::take))
                    .unwrap_or(Value::Null);
                Event::Execute {
                    workflow_id: workflow_id.clone(),
                    action_id: *action_id,
                    action_type: action.type_name().to_owned(),
                    payload,
                }
            }
            Decision::Reject(r) => Event::Reject {
                code: r.code.code().to_owned(),
                reason: r.reason.clone(),
                message_index: r.message_index,
                excerpt: r.excerpt.clone(),
                workflow_id: r.workflow_id.clone(),
                action_id: r.action_id,
            },
            Decision::StateChanged { workflow_id, state } => Event::State {
                workflow_id: workflow_id.clone(),
                state: state.as_str().to_owned(),
            },
        })
    }

    /// One human-readable line, for `bai check`.
    pub fn describe(&self) -> String {
        match self {
            Event::Ack {
                workflow_id,
                protocol,
                ack_nonce,
                ..
            } => {
                format!(
                    "ACK      workflow {workflow_id} ({protocol}) acknowledged with nonce {ack_nonce}"
                )
            }
            Event::Execute {
                workflow_id,
                action_id,
                action_type,
                payload,
            } => {
                format!(
                    "EXECUTE  workflow {workflow_id} action {action_id}: {action_type} {payload}"
                )
            }
            Event::Reject {
                code,
                reason,
                message_index,
                excerpt,
                ..
            } => {
                format!("REJECT   message {message_index}: {code}: {reason}\n         > {excerpt}")
            }
            Event::State { workflow_id, state } => {
                format!("STATE    workflow {workflow_id} is now {state}")
            }
        }
    }
}

/// Why a replay could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// A `--nonce` value is malformed.
    #[error("invalid nonce {0:?}: expected n_ followed by 16 to 64 lowercase hex digits")]
    InvalidNonce(String),
    /// The engine refused an approval.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// Replay `transcript` into `engine`, returning the events in order. `fresh_nonce` is called when
/// the given nonces run out.
pub fn replay(
    engine: &mut Engine,
    transcript: &Transcript,
    options: &ReplayOptions,
    fresh_nonce: &mut dyn FnMut() -> String,
) -> Result<Vec<Event>, ReplayError> {
    if let Some(bad) = options.nonces.iter().find(|n| !is_valid_nonce(n)) {
        return Err(ReplayError::InvalidNonce(bad.clone()));
    }
    let mut nonces = options.nonces.iter().cloned();
    let mut events = Vec::new();
    let messages = &transcript.messages;
    let observations: Vec<&[Message]> = if options.snapshot {
        vec![messages.as_slice()]
    } else {
        (1..=messages.len())
            .filter_map(|k| messages.get(..k))
            .collect()
    };
    // A snapshot fed to an engine with no state is a conversation opened, not resumed: nothing in
    // it is offered for acknowledgement (see `Engine::observe_opened`).
    let opened_fresh = options.snapshot && *engine == Engine::new();
    for view in observations {
        let decisions = if opened_fresh {
            engine.observe_opened(view)
        } else {
            engine.observe(view)
        };
        events.extend(decisions.iter().filter_map(Event::from_decision));
        for decision in &decisions {
            if let Decision::HandshakeFound { workflow_id, .. } = decision {
                let nonce = nonces.next().unwrap_or_else(&mut *fresh_nonce);
                let approved = engine.approve(workflow_id, &nonce)?;
                events.extend(approved.iter().filter_map(Event::from_decision));
            }
        }
    }
    Ok(events)
}
