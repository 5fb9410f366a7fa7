//! `wait_for`: wait until a condition holds, or fail with `timeout` saying what was last seen.
//!
//! Conditions: an element state (`visible`, `hidden`, `enabled`, `attached`, `detached`; a ref
//! whose element left the page counts as no match), the page's visible text containing a
//! string (case-sensitive, whitespace-collapsed on both sides; the document's `innerText`, plus
//! open shadow roots and same-origin frames), or the URL containing a string.
//!
//! Refused with `secret_field` (before anything is evaluated): an element selector that could
//! test a secret field's value (see [`crate::dom::secret::guard_selector`]), and a text wait on a
//! page with a secret textarea or editor (its text is part of the page's text).
//!
//! No polling loop: between checks it sleeps until the DOM changes (a MutationObserver) or
//! 100 ms pass (URL changes do not touch the DOM), whichever comes first.

use web_sys::Element;

use super::query_root;
use crate::dom::describe::describe;
use crate::dom::error::ActionError;
use crate::dom::js;
use crate::dom::matching::normalize_whitespace;
use crate::dom::report::{ActionReport, Effect, ExecOptions};
use crate::dom::secret::SecretScan;
use crate::dom::selector::{QueryRoot, describe_selector, query_all_checked};
use crate::dom::tree::as_document;
use crate::dom::visibility::{is_disabled, is_visible};
use crate::protocol::action::{ElementState, WaitCondition};
use crate::protocol::join::join;
use crate::protocol::quote::Quoted;

/// Longest pause between two checks when the DOM does not change.
const RECHECK_MS: u32 = 100;

pub(super) async fn run(
    until: &WaitCondition,
    options: &ExecOptions,
) -> Result<ActionReport, ActionError> {
    let started = js::now_ms();
    let deadline = started + f64::from(options.timeout_ms);
    let stop = crate::dom::cancel::Started::now();
    let mut attempts = 0;
    loop {
        if stop.is_cancelled() {
            return Err(ActionError::Stopped);
        }
        attempts += 1;
        let root = query_root()?;
        let last_seen = match check(&root, until)? {
            None => {
                let waited_ms = (js::now_ms() - started).max(0.0) as u32;
                return Ok(ActionReport {
                    action: "wait_for",
                    element: None,
                    effects: vec![Effect::ConditionMet { waited_ms }],
                    attempts,
                    elapsed_ms: 0,
                    data: None,
                });
            }
            Some(last_seen) => last_seen,
        };
        let remaining = deadline - js::now_ms();
        if remaining <= 0.0 {
            return Err(ActionError::Timeout {
                waited_ms: options.timeout_ms,
                waiting_for: format!("{} (last seen: {last_seen})", describe_condition(until)),
            });
        }
        js::dom_change_or_timeout((remaining as u32).clamp(1, RECHECK_MS)).await;
    }
}

/// `None` when the condition holds, else what was seen instead.
fn check(root: &QueryRoot, until: &WaitCondition) -> Result<Option<String>, ActionError> {
    #[allow(
        unreachable_patterns,
        reason = "the protocol layer may add conditions before they are implemented here"
    )]
    match until {
        WaitCondition::Element { selector, state } => {
            let matches = query_all_checked(root, selector)?;
            Ok(element_state(&matches, *state))
        }
        WaitCondition::Text { text } => {
            if let Some(kind) = SecretScan::of(root).first_text_bearing() {
                // The page's text would include the secret editor's or textarea's text.
                return Err(ActionError::SecretField {
                    what: format!("waiting for the text {}", Quoted(text)),
                    reason: "the page's text includes a secret text field's content".to_owned(),
                    kind: kind.label().to_owned(),
                });
            }
            let wanted = normalize_whitespace(text);
            // On the text as the model is shown it (a guess at a redacted token or card
            // number never holds).
            let shown = crate::dom::address::Shown::new(&root.document);
            if shown.holds_text(&page_text(root), &wanted, false) {
                Ok(None)
            } else {
                Ok(Some(
                    "the page's visible text does not contain it".to_owned(),
                ))
            }
        }
        WaitCondition::Url { contains } => {
            let href = root
                .document
                .location()
                .and_then(|l| l.href().ok())
                .unwrap_or_default();
            // Matched against the address as the model may read it: `url_contains` on an
            // address a GET form filled with a password would otherwise test it a letter at a
            // time (also under a name only the page's password field has).
            let href = crate::dom::address::redact_address(&href, &root.document);
            if href.contains(contains.as_str()) {
                Ok(None)
            } else {
                Ok(Some(format!("the URL is {href}")))
            }
        }
        _ => Err(ActionError::NotExecutable {
            action: "wait_for".to_owned(),
        }),
    }
}

fn element_state(matches: &[Element], state: ElementState) -> Option<String> {
    let first = matches.first();
    let visible = matches.iter().find(|e| is_visible(e));
    #[allow(
        unreachable_patterns,
        reason = "the protocol layer may add states before they are implemented here"
    )]
    match state {
        ElementState::Visible => match (first, visible) {
            (_, Some(_)) => None,
            (None, _) => Some("no element matches".to_owned()),
            (Some(e), None) => Some(format!("{} is still hidden", describe(e))),
        },
        ElementState::Hidden => visible.map(|e| format!("{} is still visible", describe(e))),
        ElementState::Enabled => match (first, visible) {
            (_, Some(e)) if !is_disabled(e) => None,
            (None, _) => Some("no element matches".to_owned()),
            (_, Some(e)) => Some(format!("{} is still disabled", describe(e))),
            (Some(e), None) => Some(format!("{} is hidden", describe(e))),
        },
        ElementState::Attached => first.is_none().then(|| "no element matches".to_owned()),
        ElementState::Detached => first.map(|e| format!("{} is still on the page", describe(e))),
        _ => Some("an unknown state".to_owned()),
    }
}

fn describe_condition(until: &WaitCondition) -> String {
    #[allow(unreachable_patterns, reason = "see check")]
    match until {
        WaitCondition::Element { selector, state } => {
            // The state's wire name, as serialized.
            let state = match state {
                ElementState::Visible => "visible",
                ElementState::Hidden => "hidden",
                ElementState::Enabled => "enabled",
                ElementState::Attached => "attached",
                ElementState::Detached => "detached",
            };
            format!("{} to be {state}", describe_selector(selector))
        }
        WaitCondition::Text { text } => format!("the page to show the text {}", Quoted(text)),
        WaitCondition::Url { contains } => format!("the URL to contain {}", Quoted(contains)),
        _ => "a condition".to_owned(),
    }
}

/// The page's visible text, whitespace-collapsed: the body's `innerText`, then each open shadow
/// root's and same-origin frame's (innerText does not enter them), separated by spaces.
pub(super) fn page_text(root: &QueryRoot) -> String {
    let mut parts = Vec::new();
    for scope in root.scopes() {
        if let Some(document) = as_document(&scope) {
            if let Some(body) = document.body() {
                parts.push(body.inner_text());
            }
        } else {
            let mut child = js::get(&scope, "firstElementChild");
            while let Some(element) = crate::dom::tree::as_element(&child).cloned() {
                if let Some(text) = js::get_string(&element, "innerText") {
                    parts.push(text);
                }
                child = js::get(&element, "nextElementSibling");
            }
        }
    }
    normalize_whitespace(&join(&parts, " "))
}
