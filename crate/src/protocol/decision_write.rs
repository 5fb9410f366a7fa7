//! The engine's decisions (and the actions and refused records in them) written as JSON by
//! hand, byte for byte what their derived `Serialize` impls write with `serde_json::to_string`
//! (`crate/tests/decisions_json.rs` holds that output): the chat module hands these to JS on
//! every poll, and serde's derived writers for them were most of its serde code. The derives
//! stay for native tests and tools; the wasm build links only what it calls.

use super::action::{Action, ActionOptions, ElementState, Expectation, OnError, WaitCondition};
use super::engine::{Decision, RejectedAction};
use super::error::Rejection;
use super::json_write::{self, Object};
use super::selector::Selector;

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
