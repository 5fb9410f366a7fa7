//! The engine's decisions (and the actions and refused records in them), and the other answers
//! the chat module hands to JS (action starts and outcomes, workflows, saved sessions and their
//! parts), written as JSON by hand, byte for byte what their derived `Serialize` impls write
//! with `serde_json::to_string` (`crate/tests/decisions_json.rs` holds that output and checks
//! the rest against the derives): serde's derived writers were most of the chat module's serde
//! code. The derives stay for native tests and tools; the wasm build links only what it calls.

use super::action::{Action, ActionOptions, ElementState, Expectation, OnError, WaitCondition};
use super::engine::{Decision, PartChanges, RejectedAction};
use super::error::Rejection;
use super::json_write::{self, Object};
use super::outcome::{ActionFailure, ActionStart, NextStep, OutcomeStep, SkipReason};
use super::selector::Selector;
use super::workflow::WorkflowInfo;
use crate::policy::RateLimiter;

/// `decisions` as a JSON list, as `serde_json::to_string(decisions)` writes it.
pub fn decisions_json(decisions: &[Decision]) -> String {
    let mut out = String::new();
    write_decisions(&mut out, decisions);
    out
}

/// What the chat session's poll returns to JS, `{pending, decisions, messages, reads, site,
/// handshake_recognitions: [{message_index, rule}]}`, as the derived `Serialize` of its
/// `PollResult` (in `bindings::chat_session`) wrote it. `recognitions`: message index and rule
/// name of each code block read as a handshake by its content.
pub fn poll_result_json(
    pending: bool,
    decisions: &[Decision],
    messages: usize,
    reads: u64,
    site: &str,
    recognitions: &[(usize, &str)],
) -> String {
    let mut out = String::new();
    let mut o = Object::new(&mut out);
    o.bool("pending", pending);
    write_decisions(o.key("decisions"), decisions);
    o.number("messages", messages as u64);
    o.number("reads", reads);
    o.string("site", site);
    o.list(
        "handshake_recognitions",
        recognitions,
        |out, (message_index, rule)| {
            let mut r = Object::new(out);
            r.number("message_index", *message_index as u64);
            r.string("rule", rule);
            r.end();
        },
    );
    o.end();
    out
}

/// Appends `decisions` as a JSON list.
pub fn write_decisions(out: &mut String, decisions: &[Decision]) {
    json_write::list(out, decisions, write_decision);
}

/// Appends one decision: an object tagged `"decision"` (the derive's `tag`, snake_case names).
pub fn write_decision(out: &mut String, decision: &Decision) {
    let mut o = Object::new(out);
    match decision {
        Decision::HandshakeFound {
            workflow_id,
            protocol,
            message_index,
        } => {
            o.string("decision", "handshake_found");
            o.string("workflow_id", workflow_id);
            o.string("protocol", protocol.as_str());
            o.number("message_index", *message_index as u64);
        }
        Decision::Ack {
            workflow_id,
            protocol,
            ack_nonce,
            line,
        } => {
            o.string("decision", "ack");
            o.string("workflow_id", workflow_id);
            o.string("protocol", protocol.as_str());
            o.string("ack_nonce", ack_nonce);
            o.string("line", line);
        }
        Decision::Execute {
            workflow_id,
            action_id,
            action,
            options,
        } => {
            o.string("decision", "execute");
            o.string("workflow_id", workflow_id);
            o.number("action_id", *action_id);
            write_action(o.key("action"), action);
            if !options.is_default() {
                write_options(o.key("options"), options);
            }
        }
        Decision::Reject(rejection) => {
            o.string("decision", "reject");
            rejection_fields(&mut o, rejection);
        }
        Decision::StateChanged { workflow_id, state } => {
            o.string("decision", "state_changed");
            o.string("workflow_id", workflow_id);
            o.string("state", state.as_str());
        }
        Decision::ResultDue {
            workflow_id,
            message_index,
            executed,
            rejected,
        } => {
            o.string("decision", "result_due");
            o.string("workflow_id", workflow_id);
            o.number("message_index", *message_index as u64);
            o.list("executed", executed, |out, id| {
                out.push_str(&id.to_string())
            });
            o.list("rejected", rejected, write_rejected_action);
        }
    }
    o.end();
}

/// A [`Rejection`]'s fields, in its declaration order (optional ones only when present).
fn rejection_fields(o: &mut Object<'_>, rejection: &Rejection) {
    o.string("code", rejection.code.code());
    o.string("reason", &rejection.reason);
    o.number("message_index", rejection.message_index as u64);
    o.string("excerpt", &rejection.excerpt);
    if let Some(workflow_id) = &rejection.workflow_id {
        o.string("workflow_id", workflow_id);
    }
    if let Some(action_id) = rejection.action_id {
        o.number("action_id", action_id);
    }
}

/// Appends a [`RejectedAction`] (`action_id` only when known).
pub fn write_rejected_action(out: &mut String, rejected: &RejectedAction) {
    let mut o = Object::new(out);
    if let Some(action_id) = rejected.action_id {
        o.number("action_id", action_id);
    }
    o.string("code", rejected.code.code());
    o.string("reason", &rejected.reason);
    o.end();
}

/// Appends [`ActionOptions`] (each field only when not its default).
fn write_options(out: &mut String, options: &ActionOptions) {
    let mut o = Object::new(out);
    if let Some(timeout_ms) = options.timeout_ms {
        o.number("timeout_ms", timeout_ms.into());
    }
    if options.on_error != OnError::Stop {
        let mut mode = Object::new(o.key("on_error"));
        match options.on_error {
            OnError::Skip => mode.string("mode", "skip"),
            OnError::Retry { count } => {
                mode.string("mode", "retry");
                mode.number("count", count.into());
            }
            OnError::Stop => mode.string("mode", "stop"),
        }
        mode.end();
    }
    if let Some(reason) = &options.reason {
        o.string("reason", reason);
    }
    if let Some(tab) = &options.tab {
        o.string("tab", tab);
    }
    o.end();
}

/// Appends a [`Selector`] in the wire's object form (`exact` only when true).
pub fn write_selector(out: &mut String, selector: &Selector) {
    let mut o = Object::new(out);
    o.string("type", selector.kind.as_str());
    o.string("value", &selector.value);
    if let Some(name) = &selector.name {
        o.string("name", name);
    }
    if selector.exact {
        o.bool("exact", true);
    }
    if let Some(index) = selector.index {
        o.number("index", index.into());
    }
    o.end();
}

/// Appends an [`Action`] as its wire record, `{"type": ..., "payload": {...}}`.
pub fn write_action(out: &mut String, action: &Action) {
    let mut record = Object::new(out);
    record.string("type", action.type_name());
    let mut o = Object::new(record.key("payload"));
    match action {
        Action::Click { selector }
        | Action::Check { selector }
        | Action::Uncheck { selector }
        | Action::Hover { selector } => write_selector(o.key("selector"), selector),
        Action::InputText { selector, text } => {
            write_selector(o.key("selector"), selector);
            o.string("text", text);
        }
        Action::Wait { ms } => o.number("ms", (*ms).into()),
        Action::Scroll { x, y } => {
            if let Some(x) = x {
                float(o.key("x"), *x);
            }
            float(o.key("y"), *y);
        }
        Action::Observe { max_elements } | Action::Screenshot { max_elements } => {
            if let Some(max_elements) = max_elements {
                o.number("max_elements", (*max_elements).into());
            }
        }
        Action::SelectOption { selector, option } => {
            write_selector(o.key("selector"), selector);
            o.string("option", option);
        }
        Action::PressKey { key, selector } => {
            o.string("key", key.as_str());
            if let Some(selector) = selector {
                write_selector(o.key("selector"), selector);
            }
        }
        Action::Navigate { url } | Action::OpenTab { url } => o.string("url", url),
        Action::Tabs {} => {}
        Action::WaitFor { until } => match until {
            WaitCondition::Element { selector, state } => {
                write_selector(o.key("selector"), selector);
                o.string("state", element_state(*state));
            }
            WaitCondition::Text { text } => o.string("text", text),
            WaitCondition::Url { contains } => o.string("url_contains", contains),
        },
        Action::Extract {
            selector,
            attribute,
            max_chars,
        } => {
            write_selector(o.key("selector"), selector);
            if let Some(attribute) = attribute {
                o.string("attribute", attribute);
            }
            if let Some(max_chars) = max_chars {
                o.number("max_chars", (*max_chars).into());
            }
        }
        Action::More { token } => o.string("token", token),
        Action::Assert { selector, expect } => {
            write_selector(o.key("selector"), selector);
            let (name, value) = match expect {
                Expectation::Exists => ("exists", None),
                Expectation::Absent => ("absent", None),
                Expectation::TextEquals { value } => ("text_equals", Some(value)),
                Expectation::TextContains { value } => ("text_contains", Some(value)),
                Expectation::ValueEquals { value } => ("value_equals", Some(value)),
                Expectation::Checked => ("checked", None),
                Expectation::Unchecked => ("unchecked", None),
            };
            o.string("expect", name);
            if let Some(value) = value {
                o.string("value", value);
            }
        }
        Action::Done { success, summary } => {
            o.bool("success", *success);
            if let Some(summary) = summary {
                o.string("summary", summary);
            }
        }
    }
    o.end();
    record.end();
}

/// An action as its wire record's JSON text.
pub fn action_json(action: &Action) -> String {
    let mut out = String::new();
    write_action(&mut out, action);
    out
}

fn element_state(state: ElementState) -> &'static str {
    match state {
        ElementState::Visible => "visible",
        ElementState::Hidden => "hidden",
        ElementState::Enabled => "enabled",
        ElementState::Attached => "attached",
        ElementState::Detached => "detached",
    }
}

/// Appends a float as serde_json writes an `f64`: its shortest form with `.0` for whole
/// numbers (serde_json's `Number` prints it the same way), `null` when not finite.
fn float(out: &mut String, value: f64) {
    match serde_json::Number::from_f64(value) {
        Some(number) => out.push_str(&number.to_string()),
        None => out.push_str("null"),
    }
}

/// Appends an [`ActionFailure`] (`hints` only when there are some).
pub fn write_failure(out: &mut String, failure: &ActionFailure) {
    let mut o = Object::new(out);
    o.string("code", &failure.code);
    o.string("message", &failure.message);
    if !failure.hints.is_empty() {
        o.list("hints", &failure.hints, |out, hint| {
            json_write::string(out, hint)
        });
    }
    o.end();
}

/// An [`ActionStart`]: `{"next":"run"}`, `{"next":"skip","why":...}` or `{"next":"finished"}`.
pub fn action_start_json(start: &ActionStart) -> String {
    let mut out = String::new();
    let mut o = Object::new(&mut out);
    match start {
        ActionStart::Run => o.string("next", "run"),
        ActionStart::Skip { why } => {
            o.string("next", "skip");
            o.string(
                "why",
                match why {
                    SkipReason::Stopped => "stopped",
                    SkipReason::EarlierFailure => "earlier_failure",
                    SkipReason::NotHandedOut => "not_handed_out",
                },
            );
        }
        ActionStart::Finished => o.string("next", "finished"),
    }
    o.end();
    out
}

/// The answer to a start the rate limits refused: `{"error": failure, "next": "refused"}`.
pub fn refused_json(failure: &ActionFailure) -> String {
    let mut out = String::new();
    let mut o = Object::new(&mut out);
    write_failure(o.key("error"), failure);
    o.string("next", "refused");
    o.end();
    out
}

/// An [`OutcomeStep`]: its `next` (with `attempt` for a retry), then `failure` when there is one.
pub fn outcome_step_json(step: &OutcomeStep) -> String {
    let mut out = String::new();
    let mut o = Object::new(&mut out);
    match step.next {
        NextStep::Retry { attempt } => {
            o.string("next", "retry");
            o.number("attempt", attempt.into());
        }
        NextStep::GoOn => o.string("next", "go_on"),
        NextStep::StopMessage => o.string("next", "stop_message"),
    }
    if let Some(failure) = &step.failure {
        write_failure(o.key("failure"), failure);
    }
    o.end();
    out
}

/// The workflows for the panel: each [`WorkflowInfo`] with `ack_nonce` and `success` as `null`
/// when unknown, and the capabilities and result counts only when not empty or zero.
pub fn workflows_json(workflows: &[WorkflowInfo]) -> String {
    let mut out = String::new();
    json_write::list(&mut out, workflows, |out, info| {
        let mut o = Object::new(out);
        o.string("workflow_id", &info.workflow_id);
        o.string("protocol", info.protocol.as_str());
        o.string("state", info.state.as_str());
        match &info.ack_nonce {
            Some(nonce) => o.string("ack_nonce", nonce),
            None => o.key("ack_nonce").push_str("null"),
        }
        o.bool("ack_seen", info.ack_seen);
        o.number("executed_actions", info.executed_actions);
        o.number("held_actions", info.held_actions);
        if !info.held_set.is_empty() {
            o.string("held_set", &info.held_set);
        }
        match info.success {
            Some(success) => o.bool("success", success),
            None => o.key("success").push_str("null"),
        }
        if !info.capabilities.is_empty() {
            o.list("capabilities", &info.capabilities, |out, name| {
                json_write::string(out, name);
            });
        }
        if info.results_issued != 0 {
            o.number("results_issued", info.results_issued);
        }
        if info.results_seen != 0 {
            o.number("results_seen", info.results_seen);
        }
        o.end();
    });
    out
}

/// A saved chat session, `{"engine": state, "limiter": {...}, "parts"?: [names],
/// "secret_names"?: [names]}`, as the derived `Serialize` of the chat bindings' `SavedSession`
/// wrote it (`secret_names` left out when empty); read by
/// [`SavedSession::read`](super::saved_session::SavedSession::read).
pub fn saved_session_json(
    engine: &str,
    limiter: &RateLimiter,
    parts: Option<&[String]>,
    secret_names: &[String],
) -> String {
    let mut out = String::new();
    let mut o = Object::new(&mut out);
    o.string("engine", engine);
    limiter.write_json(o.key("limiter"));
    if let Some(parts) = parts {
        o.list("parts", parts, |out, name| json_write::string(out, name));
    }
    if !secret_names.is_empty() {
        o.list("secret_names", secret_names, |out, name| {
            json_write::string(out, name);
        });
    }
    o.end();
    out
}

/// [`PartChanges`]: `{"set":[[name,json],...],"remove":[name,...]}`.
pub fn part_changes_json(changes: &PartChanges) -> String {
    let mut out = String::new();
    let mut o = Object::new(&mut out);
    o.list("set", &changes.set, |out, (name, json)| {
        out.push('[');
        json_write::string(out, name);
        out.push(',');
        json_write::string(out, json);
        out.push(']');
    });
    o.list("remove", &changes.remove, |out, name| {
        json_write::string(out, name);
    });
    o.end();
    out
}

/// A list of strings as JSON.
pub fn strings_json(strings: &[String]) -> String {
    let mut out = String::new();
    json_write::list(&mut out, strings, |out, text| json_write::string(out, text));
    out
}
