//! Replays a transcript through the engine: the logic behind `bai replay` / `bai check`, shared
//! with the conformance suite so both take the same code path.
//!
//! Live mode (the default) observes the transcript's prefixes of length 1, 2, ..., n, as a page
//! where messages arrive one at a time (feeding each step only the new message and any earlier
//! one whose scan waits, which decides exactly what observing the whole prefix would, in linear
//! time); snapshot mode observes the whole transcript at once, as
//! when an old conversation is opened. Every handshake found is approved right after the
//! observation that found it, with the next nonce given, or a fresh one from the caller.
//!
//! A transcript message may be a *result step* instead of literal text: `{"role": "user",
//! "result": {"workflow_id": "...", "report": {...}}}`. When replay reaches it, it asks the engine
//! for the `BAI_RESULT` line ([`Engine::result_line`]), as the extension does after running the
//! actions, prints a `result` event and uses the line as the message's text (after the message's
//! own `text`, if any). Without `report`, the report says every action of the workflow's latest
//! `result_due` went `ok` and every refused one was `rejected` with its code. In snapshot mode the
//! lines are built before the single observation, so the workflow must already be known (from
//! `--state`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::action::ActionOptions;
use super::engine::{Decision, Engine, Message, RejectedAction, Role};
use super::error::EngineError;
use super::record::is_valid_nonce;
use super::result::{ActionResult, ResultReport, ResultStatus};
use super::workflow::WorkflowState;

/// A transcript file: `{"messages": [{"role": "user"|"assistant", "text": "...", "complete": true}]}`.
/// `complete` defaults to true; unknown keys are ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    /// The messages, oldest first.
    pub messages: Vec<TranscriptMessage>,
}

fn default_true() -> bool {
    true
}

/// One message of a transcript file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptMessage {
    /// Who wrote it.
    pub role: Role,
    /// Its text (for a result step: text before the result line, usually empty).
    #[serde(default)]
    pub text: String,
    /// False while the assistant is still streaming it.
    #[serde(default = "default_true")]
    pub complete: bool,
    /// Make the engine issue a `BAI_RESULT` line and post it as (the end of) this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ResultStep>,
}

impl From<Message> for TranscriptMessage {
    fn from(message: Message) -> Self {
        Self {
            role: message.role,
            text: message.text,
            complete: message.complete,
            result: None,
        }
    }
}

/// A result the replay asks the engine for, as the extension would after running actions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultStep {
    /// The workflow.
    pub workflow_id: String,
    /// What the actions did; derived from the workflow's latest `result_due` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<ResultReport>,
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
        /// Per-action `timeout_ms`, `on_error`, `reason` (only when not all default).
        #[serde(default, skip_serializing_if = "ActionOptions::is_default")]
        options: ActionOptions,
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
    /// A complete assistant message's actions call for a `BAI_RESULT`.
    ResultDue {
        /// The workflow.
        workflow_id: String,
        /// The assistant message.
        message_index: usize,
        /// Actions handed out to execute.
        executed: Vec<u64>,
        /// Action records refused.
        rejected: Vec<RejectedAction>,
    },
    /// The replay had the engine issue a result line (a transcript result step).
    Result {
        /// The workflow.
        workflow_id: String,
        /// The line, posted as the user.
        line: String,
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
                options,
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
                    options: options.clone(),
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
            Decision::ResultDue {
                workflow_id,
                message_index,
                executed,
                rejected,
            } => Event::ResultDue {
                workflow_id: workflow_id.clone(),
                message_index: *message_index,
                executed: executed.clone(),
                rejected: rejected.clone(),
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
                options,
            } => {
                let options = if options.is_default() {
                    String::new()
                } else {
                    format!(" {}", serde_json::to_string(options).unwrap_or_default())
                };
                format!(
                    "EXECUTE  workflow {workflow_id} action {action_id}: {action_type} {payload}{options}"
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
            Event::ResultDue {
                workflow_id,
                message_index,
                executed,
                rejected,
            } => {
                let refused: Vec<String> = rejected
                    .iter()
                    .map(|r| match r.action_id {
                        Some(id) => format!("{id} ({})", r.code),
                        None => format!("? ({})", r.code),
                    })
                    .collect();
                format!(
                    "RESULT?  workflow {workflow_id} owes a result for message {message_index}: executed {executed:?}, refused [{}]",
                    refused.join(", ")
                )
            }
            Event::Result { workflow_id, line } => {
                format!("RESULT   workflow {workflow_id}: {line}")
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
    // A snapshot fed to an engine with no state is a conversation opened, not resumed: nothing in
    // it is offered for acknowledgement (see `Engine::observe_opened`).
    let opened_fresh = options.snapshot && *engine == Engine::new();
    let mut messages: Vec<Message> = Vec::with_capacity(transcript.messages.len());
    let observe_at: Vec<usize> = if options.snapshot {
        vec![transcript.messages.len()]
    } else {
        (1..=transcript.messages.len()).collect()
    };
    for count in observe_at {
        while messages.len() < count {
            let Some(message) = transcript.messages.get(messages.len()) else {
                break;
            };
            messages.push(materialize(engine, message, &mut events)?);
        }
        let decisions = if opened_fresh {
            engine.observe_opened(messages.get(..count).unwrap_or_default())
        } else if options.snapshot {
            engine.observe(messages.get(..count).unwrap_or_default())
        } else {
            // Live: only the new message, and any earlier one whose scan waits, can decide
            // anything; the others would cost a fingerprint each, every step (quadratic).
            let mut changed = engine.waiting_messages(count - 1);
            changed.push(count - 1);
            engine.update_messages(
                count,
                changed
                    .into_iter()
                    .filter_map(|index| messages.get(index).map(|m| (index, m))),
            )
        };
        events.extend(decisions.iter().filter_map(Event::from_decision));
        for decision in &decisions {
            if let Decision::HandshakeFound { workflow_id, .. } = decision {
                // A workflow that failed in the same observation (a refused BAI/0.2 line held
                // in its handshake message) is no longer asked about, as in the extension.
                let awaiting = engine
                    .workflow(workflow_id)
                    .is_some_and(|w| w.state == WorkflowState::AwaitingExtensionAck);
                if !awaiting {
                    continue;
                }
                let nonce = nonces.next().unwrap_or_else(&mut *fresh_nonce);
                let approved = engine.approve(workflow_id, &nonce)?;
                events.extend(approved.iter().filter_map(Event::from_decision));
            }
        }
    }
    Ok(events)
}

/// The message as the page would show it: a result step becomes the engine's result line.
fn materialize(
    engine: &mut Engine,
    message: &TranscriptMessage,
    events: &mut Vec<Event>,
) -> Result<Message, ReplayError> {
    let mut text = message.text.clone();
    if let Some(step) = &message.result {
        let report = match &step.report {
            Some(report) => report.clone(),
            None => report_from_events(&step.workflow_id, events),
        };
        let line = engine.result_line(&step.workflow_id, &report)?;
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&line);
        events.push(Event::Result {
            workflow_id: step.workflow_id.clone(),
            line,
        });
    }
    Ok(Message {
        role: message.role,
        text,
        complete: message.complete,
    })
}

/// The report an extension would send for the workflow's latest `result_due`, had every action
/// gone well.
fn report_from_events(workflow_id: &str, events: &[Event]) -> ResultReport {
    let due = events.iter().rev().find_map(|e| match e {
        Event::ResultDue {
            workflow_id: w,
            executed,
            rejected,
            ..
        } if w == workflow_id => Some((executed, rejected)),
        _ => None,
    });
    let type_of = |id: u64| {
        events.iter().rev().find_map(|e| match e {
            Event::Execute {
                workflow_id: w,
                action_id,
                action_type,
                ..
            } if w == workflow_id && *action_id == id => Some(action_type.clone()),
            _ => None,
        })
    };
    let mut actions = Vec::new();
    if let Some((executed, rejected)) = due {
        for id in executed {
            actions.push(ActionResult {
                action_id: *id,
                action_type: type_of(*id),
                status: ResultStatus::Ok,
                code: None,
                reason: None,
                hints: Vec::new(),
                effects: Vec::new(),
                data: None,
            });
        }
        for r in rejected {
            actions.push(ActionResult {
                action_id: r.action_id.unwrap_or_default(),
                action_type: None,
                status: ResultStatus::Rejected,
                code: Some(r.code.code().to_owned()),
                reason: Some(r.reason.clone()),
                hints: Vec::new(),
                effects: Vec::new(),
                data: None,
            });
        }
    }
    ResultReport {
        actions,
        page: None,
        observation: None,
        changes: None,
    }
}
