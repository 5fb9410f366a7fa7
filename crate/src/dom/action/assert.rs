//! `assert`: check a fact about the page; `assertion_failed` (expected vs actual) when it does
//! not hold.
//!
//! Like Playwright's `expect`, the check is repeated until it holds or the timeout passes (each
//! DOM change re-checks at once), so an assertion right after an action does not race the
//! page's re-render. `exists` / `absent` count matches (a ref whose element left the page is
//! absent); the others need exactly one element (`not_found` / `ambiguous` otherwise). Text is
//! the element's visible text (a field's value), whitespace-collapsed; `text_contains` is
//! case-sensitive. The actual value is quoted in the message, at most 200 characters, secrets
//! redacted. The text or value of a secret field (see [`crate::dom::secret`]) is never asserted:
//! `secret_field`, before the value is read.

use web_sys::Element;

use super::check::current_state;
use super::extract::text_of;
use super::{find, query_root};
use crate::dom::describe::describe;
use crate::dom::error::ActionError;
use crate::dom::js;
use crate::dom::matching::normalize_whitespace;
use crate::dom::redact::redact_secrets;
use crate::dom::report::{ActionReport, Effect, ExecOptions};
use crate::dom::secret::SecretScan;
use crate::dom::selector::{QueryRoot, describe_selector, query_all_checked};
use crate::protocol::Selector;
use crate::protocol::action::Expectation;
use crate::protocol::quote::Quoted;

pub(super) async fn run(
    selector: &Selector,
    expect: &Expectation,
    options: &ExecOptions,
) -> Result<ActionReport, ActionError> {
    let deadline = js::now_ms() + f64::from(options.timeout_ms);
    let stop = crate::dom::cancel::Started::now();
    let mut attempts = 0;
    loop {
        if stop.is_cancelled() {
            return Err(ActionError::Stopped);
        }
        attempts += 1;
        let error = match check(selector, expect) {
            Ok(element) => {
                return Ok(ActionReport {
                    action: "assert",
                    element,
                    effects: vec![Effect::AssertionHeld],
                    attempts,
                    elapsed_ms: 0,
                    data: None,
                });
            }
            Err(error) => error,
        };
        let curable = error.is_retriable() || matches!(error, ActionError::AssertionFailed { .. });
        let remaining = deadline - js::now_ms();
        if !curable || remaining <= 0.0 {
            return Err(error);
        }
        js::dom_change_or_timeout((remaining as u32).clamp(1, 100)).await;
    }
}

/// `Ok` with the element described (when there is one) if the expectation holds.
fn check(selector: &Selector, expect: &Expectation) -> Result<Option<String>, ActionError> {
    let described = describe_selector(selector);
    #[allow(
        unreachable_patterns,
        reason = "the protocol layer may add expectations before they are implemented here"
    )]
    match expect {
        Expectation::Exists | Expectation::Absent => {
            let root = query_root()?;
            let matches = query_all_checked(&root, selector)?;
            let exists = matches!(expect, Expectation::Exists);
            if matches.is_empty() != exists {
                return Ok(matches.first().map(describe));
            }
            Err(if exists {
                ActionError::AssertionFailed {
                    expected: format!("{described} to match an element"),
                    actual: Some("no element matches".to_owned()),
                }
            } else {
                ActionError::AssertionFailed {
                    expected: format!("{described} to match nothing"),
                    actual: Some(format!(
                        "{} element(s) match, the first is {}",
                        matches.len(),
                        matches.first().map(describe).unwrap_or_default()
                    )),
                }
            })
        }
        Expectation::TextEquals { value } | Expectation::TextContains { value } => {
            let (root, element) = find_not_secret(selector, "text")?;
            let text = text_of(&element);
            let wanted = normalize_whitespace(value);
            let equals = matches!(expect, Expectation::TextEquals { .. });
            // On the text as the model is shown it: a text holding a reset token or a card
            // number would otherwise tell a right guess at it from a wrong one.
            let holds =
                crate::dom::address::Shown::new(&root.document).holds_text(&text, &wanted, equals);
            let verb = if equals { "equal" } else { "contain" };
            holds_or(
                holds,
                &element,
                format!(
                    "the text of {} to {verb} {}",
                    describe(&element),
                    Quoted(&wanted)
                ),
                &text,
            )
        }
        Expectation::ValueEquals { value } => {
            let (_, element) = find_not_secret(selector, "value")?;
            let actual = value_of(&element);
            let expected = format!(
                "the value of {} to equal {}",
                describe(&element),
                Quoted(value)
            );
            holds_or(actual == *value, &element, expected, &actual)
        }
        Expectation::Checked | Expectation::Unchecked => {
            // Which radio button of a secret group is checked is the secret.
            let (_, element) = find_not_secret(selector, "checked state")?;
            let wanted = matches!(expect, Expectation::Checked);
            let Some(state) = current_state(&element) else {
                return Err(ActionError::NotCheckable {
                    element: describe(&element),
                    hint: "it is not a checkbox, radio button or switch, so it is neither checked nor unchecked".to_owned(),
                });
            };
            if state == wanted {
                return Ok(Some(describe(&element)));
            }
            Err(ActionError::AssertionFailed {
                expected: format!(
                    "{} to be {}",
                    describe(&element),
                    if wanted { "checked" } else { "unchecked" }
                ),
                actual: Some(if state { "checked" } else { "unchecked" }.to_owned()),
            })
        }
        _ => Err(ActionError::NotExecutable {
            action: "assert".to_owned(),
        }),
    }
}

fn holds_or(
    holds: bool,
    element: &Element,
    expected: String,
    actual: &str,
) -> Result<Option<String>, ActionError> {
    if holds {
        return Ok(Some(describe(element)));
    }
    Err(ActionError::AssertionFailed {
        expected,
        actual: Some(Quoted(&redact_secrets(actual)).to_string()),
    })
}

/// The one element `selector` names, unless it is (or is inside) a secret field: asserting its
/// text or value would tell whether a guess is right, so it is refused with `secret_field`
/// before the value is read.
fn find_not_secret(selector: &Selector, what: &str) -> Result<(QueryRoot, Element), ActionError> {
    let (root, element) = find(super::Target::selector(selector))?;
    if let Some((_, kind)) = SecretScan::of(&root).owner_of(&element) {
        return Err(ActionError::SecretField {
            what: format!("asserting the {what} of {}", describe(&element)),
            reason: "the answer would depend on what the field holds".to_owned(),
            kind: kind.label().to_owned(),
        });
    }
    Ok((root, element))
}

/// A form field's current value; an editor's text; else the visible text.
fn value_of(element: &Element) -> String {
    match element.local_name().as_str() {
        "input" | "textarea" | "select" => js::get_string(element, "value").unwrap_or_default(),
        _ => text_of(element),
    }
}
