//! Why an action failed, in words a user and a model can act on.
//!
//! Every variant has a stable snake_case [`ActionError::code`] (listed in `ERRORS.md`) and a
//! plain-language [`ActionError::message`] that says what to do next. The serialized form is
//! `{"code", "message", ...details}` so the extension can show it and send it back to the model.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::js::number_text;
use crate::protocol::join::join;
use crate::protocol::json_write::SortedObject;
use crate::protocol::quote::Quoted;

/// Why an action failed. New reasons may be added; match on [`ActionError::code`] for display.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ActionError {
    /// No element matched the selector (after waiting up to the timeout).
    NotFound {
        /// The selector, described (`aria 'Email'`).
        selector: String,
    },
    /// Several elements matched and the selector has no `index`.
    Ambiguous {
        /// The selector, described.
        selector: String,
        /// How many elements matched.
        count: usize,
        /// Descriptions of the first few matches.
        candidates: Vec<String>,
    },
    /// The selector's `index` is past the last match.
    IndexOutOfRange {
        /// The selector, described.
        selector: String,
        /// The requested index.
        index: u32,
        /// How many elements matched.
        count: usize,
    },
    /// The element exists but is not rendered (display:none, visibility:hidden, empty box).
    NotVisible {
        /// The element, described.
        element: String,
    },
    /// The element is disabled (natively, by a disabled fieldset or by aria-disabled).
    Disabled {
        /// The element, described.
        element: String,
    },
    /// The element is read-only and cannot take text.
    ReadOnly {
        /// The element, described.
        element: String,
    },
    /// The element kept moving (animation) and never held still from one frame to the next.
    NotStable {
        /// The element, described.
        element: String,
    },
    /// Another element sits on top of the point that would be clicked.
    Covered {
        /// The element, described.
        element: String,
        /// The element on top, described.
        by: String,
    },
    /// The element was removed from the page while the action ran.
    Detached {
        /// The element, described.
        element: String,
    },
    /// After typing, the field holds something else (a script rewrote or rejected it).
    ValueMismatch {
        /// The element, described.
        element: String,
        /// What was asked for; `None` for password fields, whose values are never reported.
        expected: Option<String>,
        /// What the field holds; `None` for password fields.
        actual: Option<String>,
    },
    /// The scroll position after scrolling is not the one asked for.
    ScrollMismatch {
        /// Requested position.
        wanted: (f64, f64),
        /// Position reached.
        reached: (f64, f64),
    },
    /// The action did not complete in time, for a reason not covered by another code.
    Timeout {
        /// Milliseconds waited.
        waited_ms: u32,
        /// What was being waited for.
        waiting_for: String,
    },
    /// The selector cannot be parsed or evaluated.
    InvalidSelector {
        /// The selector, described.
        selector: String,
        /// What is wrong.
        reason: String,
        /// Character offset of the syntax error in the selector value, when known.
        position: Option<usize>,
    },
    /// The action does not apply to this kind of element.
    UnsupportedElement {
        /// The element, described.
        element: String,
        /// What to do instead.
        hint: String,
    },
    /// The target is a password field but the selector did not name it explicitly.
    PasswordNotTargeted {
        /// The element, described.
        element: String,
    },
    /// A ref (`@e12`) does not identify the element it was issued for: never issued in this
    /// document, the element left the page, or it now has another role or name. Never retried:
    /// acting on whatever is there now could hit something else.
    StaleRef {
        /// The ref as written (`@e12`).
        reference: String,
        /// What changed, in plain words.
        reason: String,
    },
    /// A `<select>` (or listbox) has no option with the requested value or label.
    OptionNotFound {
        /// The element, described.
        element: String,
        /// What was asked for.
        option: String,
        /// The first few option labels (at most [`ActionError::MAX_LISTED_OPTIONS`]).
        available: Vec<String>,
        /// How many options there are in all.
        total: usize,
    },
    /// `select_option` clicked the option of a custom widget but the widget does not show it
    /// (the page refused or ignored the choice).
    OptionNotChosen {
        /// The widget, described.
        element: String,
        /// The option's accessible name.
        option: String,
        /// What the widget shows instead.
        shown: String,
    },
    /// `check` / `uncheck` / a checked-state assertion on something that is not a checkbox,
    /// radio button or switch (or `uncheck` on a radio button).
    NotCheckable {
        /// The element, described.
        element: String,
        /// What to do instead.
        hint: String,
    },
    /// `check` / `uncheck` clicked the element but its state did not change.
    StateNotChanged {
        /// The element, described.
        element: String,
        /// The state asked for.
        wanted: bool,
    },
    /// An `assert` did not hold (after waiting up to the timeout).
    AssertionFailed {
        /// What was expected, in words (`text of h1 to equal "Done"`).
        expected: String,
        /// What was found; `None` when it must not be shown (password values).
        actual: Option<String>,
    },
    /// The selector, assertion or wait could test the value of a secret field (a password, card
    /// code, one-time code...); refused before anything was evaluated, so no answer depends on
    /// the secret.
    SecretField {
        /// The selector or check, described.
        what: String,
        /// Why it could test a value (`it tests the attribute 'value'`).
        reason: String,
        /// The kind of secret field involved (`password`, `card security code`).
        kind: String,
    },
    /// A CSS or XPath selector compares an attribute, or reads text, that the model is shown
    /// with a part redacted (a token in an `href`, a card number in a paragraph): matched
    /// against the page, it would answer a guess at the hidden part. Refused before it was
    /// evaluated, whatever it compares with (`dom::secret::guard_redacted`).
    RedactedValue {
        /// The selector, described.
        what: String,
        /// What it reads that is redacted (`the attribute 'href'`, `the page's text`).
        reads: String,
    },
    /// The action type is not executed on the page (e.g. `done`).
    NotExecutable {
        /// The action's wire name.
        action: String,
    },
    /// The user pressed Stop while the action waited (for its element, a condition, a review):
    /// it ended before touching anything more.
    Stopped,
    /// The element the review looked at (and the user allowed, when asked) is no longer what it
    /// was: it left the page, was re-rendered, reads differently, focus moved away from it, or
    /// the approval no longer holds (used, expired, or Stop). Nothing was touched; never retried
    /// on whatever is there now.
    TargetChanged {
        /// The element as it was reviewed, described.
        element: String,
        /// What changed, in plain words.
        reason: String,
    },
    /// A `screenshot` could not work out what to hide (secret fields, frames), so no picture
    /// was taken: fail closed.
    ScreenshotMasksUnavailable {
        /// What could not be read.
        detail: String,
    },
    /// The browser threw an unexpected exception.
    Script {
        /// What threw, in BAI's words: the kind of a standard exception (`TypeError`) or what
        /// was missing (`no document`); never the exception's own text.
        detail: String,
    },
}

impl ActionError {
    /// How many options an `option_not_found` message lists.
    pub const MAX_LISTED_OPTIONS: usize = 10;
    /// Longest "actual" value an `assertion_failed` message quotes, in characters.
    pub const MAX_ACTUAL_CHARS: usize = 200;

    /// The stable snake_case code (see `ERRORS.md`).
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound { .. } => "not_found",
            Self::Ambiguous { .. } => "ambiguous",
            Self::IndexOutOfRange { .. } => "index_out_of_range",
            Self::NotVisible { .. } => "not_visible",
            Self::Disabled { .. } => "disabled",
            Self::ReadOnly { .. } => "read_only",
            Self::NotStable { .. } => "not_stable",
            Self::Covered { .. } => "covered",
            Self::Detached { .. } => "detached",
            Self::ValueMismatch { .. } => "value_mismatch",
            Self::ScrollMismatch { .. } => "scroll_mismatch",
            Self::Timeout { .. } => "timeout",
            Self::InvalidSelector { .. } => "invalid_selector",
            Self::UnsupportedElement { .. } => "unsupported_element",
            Self::PasswordNotTargeted { .. } => "password_not_targeted",
            Self::StaleRef { .. } => "stale_ref",
            Self::OptionNotFound { .. } => "option_not_found",
            Self::OptionNotChosen { .. } => "option_not_chosen",
            Self::NotCheckable { .. } => "not_checkable",
            Self::StateNotChanged { .. } => "state_not_changed",
            Self::AssertionFailed { .. } => "assertion_failed",
            Self::SecretField { .. } => "secret_field",
            Self::RedactedValue { .. } => "redacted_value",
            Self::NotExecutable { .. } => "not_executable",
            Self::Stopped => "stopped",
            Self::TargetChanged { .. } => "target_changed",
            Self::ScreenshotMasksUnavailable { .. } => "screenshot_masks_unavailable",
            Self::Script { .. } => "script_error",
        }
    }

    /// A plain-language sentence: what went wrong and what to try.
    pub fn message(&self) -> String {
        match self {
            Self::SecretField { what, reason, kind } => format!(
                "{what} could test the value of a secret field ({kind}): {reason}; BAI never lets the model learn a secret field's value. Use a ref from observe, or a role, label or placeholder selector; fill it with input_text (the user approves)"
            ),
            Self::RedactedValue { what, reads } => format!(
                "{what} tests {reads}, and part of it on this page is hidden from you as a secret ([redacted] in observe); select the element another way: a ref from observe, or a role, text or label selector"
            ),
            Self::NotFound { selector } => format!(
                "{selector} matched no element; check the page content and use a selector that exists (css, text or a shorter name)"
            ),
            Self::Ambiguous {
                selector,
                count,
                candidates,
            } => {
                let more = if *count > candidates.len() {
                    ", …"
                } else {
                    ""
                };
                format!(
                    "{selector} matched {count} elements: {}{more}; add more words, use css, or pick one with \"index\"",
                    join(candidates, ", ")
                )
            }
            Self::IndexOutOfRange {
                selector,
                index,
                count,
            } => format!(
                "{selector} matched {count} elements, so index {index} does not exist; use an index below {count}"
            ),
            Self::NotVisible { element } => format!(
                "{element} is not visible; open the menu or section that shows it, or pick a visible element"
            ),
            Self::Disabled { element } => format!(
                "{element} is disabled; fill in what the form requires first, or wait until it is enabled"
            ),
            Self::ReadOnly { element } => {
                format!("{element} is read-only; it cannot take text")
            }
            Self::NotStable { element } => format!(
                "{element} kept moving and never held still; wait for the animation to end and try again"
            ),
            Self::Covered { element, by } => format!(
                "{element} is covered by {by}; close the dialog or banner on top, or scroll, then try again"
            ),
            Self::Detached { element } => format!(
                "{element} was removed from the page while acting on it; the page changed, look again and retry"
            ),
            Self::ValueMismatch {
                element,
                expected,
                actual,
            } => match (expected, actual) {
                (Some(expected), Some(actual)) => format!(
                    "{element} holds {} instead of {} after typing; the page rewrote or rejected the text (check its format rules)",
                    Quoted(actual),
                    Quoted(expected)
                ),
                _ => format!(
                    "{element} does not hold the typed text after typing; the page rewrote or rejected it"
                ),
            },
            Self::ScrollMismatch { wanted, reached } => format!(
                "asked to scroll to ({}, {}) but the page stopped at ({}, {}); the page may be shorter than that",
                number_text(wanted.0),
                number_text(wanted.1),
                number_text(reached.0),
                number_text(reached.1)
            ),
            Self::Timeout {
                waited_ms,
                waiting_for,
            } => {
                format!("gave up after {waited_ms} ms waiting for {waiting_for}; try again later")
            }
            Self::InvalidSelector {
                selector,
                reason,
                position,
            } => match position {
                Some(position) => {
                    format!(
                        "{selector} is not a valid selector: {reason} (at character {position})"
                    )
                }
                None => format!("{selector} is not a valid selector: {reason}"),
            },
            Self::UnsupportedElement { element, hint } => {
                format!("{element} cannot take this action: {hint}")
            }
            Self::PasswordNotTargeted { element } => format!(
                "{element} is a password field, and the selector did not name it explicitly; target it with a selector that says \"password\" or names the field exactly (its id, name or test id)"
            ),
            Self::StaleRef { reference, reason } => format!(
                "{reference} no longer identifies the same element ({reason}); observe again and use the new refs"
            ),
            Self::OptionNotFound {
                element,
                option,
                available,
                total,
            } => {
                let more = if *total > available.len() {
                    ", …"
                } else {
                    ""
                };
                if available.is_empty() {
                    format!(
                        "{element} has no options, so it has no option {}",
                        Quoted(option)
                    )
                } else {
                    format!(
                        "{element} has no option {}; use one of its options' values or labels: {}{more}",
                        Quoted(option),
                        join(available, ", ")
                    )
                }
            }
            Self::OptionNotChosen {
                element,
                option,
                shown,
            } => format!(
                "the option {} of {element} was clicked but the widget shows {}; the page did not take the choice (it was closed again)",
                Quoted(option),
                Quoted(&truncate_chars(shown, ActionError::MAX_ACTUAL_CHARS))
            ),
            Self::NotCheckable { element, hint } => {
                format!("{element} cannot be checked or unchecked: {hint}")
            }
            Self::StateNotChanged { element, wanted } => format!(
                "{element} was clicked but is still {}; the page did not let it change (it may need something else first)",
                if *wanted { "unchecked" } else { "checked" }
            ),
            Self::AssertionFailed { expected, actual } => match actual {
                Some(actual) => format!(
                    "assertion failed: expected {expected}, but found {}",
                    truncate_chars(actual, ActionError::MAX_ACTUAL_CHARS)
                ),
                None => format!("assertion failed: expected {expected}, but it does not hold"),
            },
            Self::NotExecutable { action } => {
                let how = if action == "navigate" {
                    "; the extension performs it"
                } else {
                    ""
                };
                format!("the action \"{action}\" is not performed on the page{how}")
            }
            Self::Stopped => "the user pressed Stop; BAI did not act".to_owned(),
            Self::TargetChanged { element, reason } => format!(
                "{element} is not the element that was reviewed any more ({reason}); BAI did not act. Observe the page again and ask for the action again"
            ),
            Self::ScreenshotMasksUnavailable { detail } => format!(
                "BAI could not tell what to hide on this page ({detail}), so it took no picture"
            ),
            Self::Script { detail } => format!(
                "the page or the browser threw an unexpected error ({detail}) while BAI acted; BAI stopped the action. Check the page before going on"
            ),
        }
    }

    /// Whether waiting may cure this error (the executor retries these until the timeout).
    pub fn is_retriable(&self) -> bool {
        matches!(
            self,
            Self::NotFound { .. }
                | Self::IndexOutOfRange { .. }
                | Self::NotVisible { .. }
                | Self::Disabled { .. }
                | Self::ReadOnly { .. }
                | Self::NotStable { .. }
                | Self::Covered { .. }
                | Self::Detached { .. }
        )
    }

    /// The element this error is about, if any.
    pub fn element(&self) -> Option<&str> {
        match self {
            Self::NotVisible { element }
            | Self::Disabled { element }
            | Self::ReadOnly { element }
            | Self::NotStable { element }
            | Self::Covered { element, .. }
            | Self::Detached { element }
            | Self::ValueMismatch { element, .. }
            | Self::UnsupportedElement { element, .. }
            | Self::OptionNotFound { element, .. }
            | Self::OptionNotChosen { element, .. }
            | Self::NotCheckable { element, .. }
            | Self::StateNotChanged { element, .. }
            | Self::PasswordNotTargeted { element }
            | Self::TargetChanged { element, .. } => Some(element),
            _ => None,
        }
    }
}

/// `text` cut to `max` characters, with `…` when cut.
pub(crate) fn truncate_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

impl std::fmt::Display for ActionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl std::error::Error for ActionError {}

impl ActionError {
    /// The error as JSON text, what [`Serialize`] gives (`serde_json::to_value`, keys sorted
    /// when written), written by hand so the executor's wasm carries no serde serializer for it
    /// (`browser_json_out` checks both agree). `hints` are added when there are any; every
    /// string (the hints' too) is passed through `text` first (the executor's answer redacts
    /// what looks like a secret).
    pub fn to_json_string(&self, hints: &[String], text: &dyn Fn(&str) -> String) -> String {
        let mut object = SortedObject::new();
        let mut put = |key: &'static str, value: &str| object.string(key, &text(value));
        put("code", self.code());
        put("message", &self.message());
        if let Some(element) = self.element() {
            put("element", element);
        }
        match self {
            Self::NotFound { selector }
            | Self::Ambiguous { selector, .. }
            | Self::IndexOutOfRange { selector, .. }
            | Self::InvalidSelector { selector, .. } => put("selector", selector),
            Self::Covered { by, .. } => put("covered_by", by),
            Self::StaleRef { reference, .. } => put("ref", reference),
            Self::SecretField { kind, .. } => put("secret", kind),
            Self::RedactedValue { reads, .. } => put("reads", reads),
            Self::OptionNotFound { option, .. } => put("option", option),
            _ => {}
        }
        let count = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
        match self {
            Self::Ambiguous {
                count: found,
                candidates,
                ..
            } => {
                object.number("count", count(*found));
                object.strings("candidates", candidates, text);
            }
            Self::IndexOutOfRange {
                index,
                count: found,
                ..
            } => {
                object.number("index", u64::from(*index));
                object.number("count", count(*found));
            }
            Self::InvalidSelector {
                position: Some(position),
                ..
            } => object.number("position", count(*position)),
            Self::Timeout { waited_ms, .. } => object.number("waited_ms", u64::from(*waited_ms)),
            Self::OptionNotFound {
                available, total, ..
            } => {
                object.strings("available", available, text);
                object.number("total", count(*total));
            }
            _ => {}
        }
        if !hints.is_empty() {
            object.strings("hints", hints, text);
        }
        object.into_json()
    }
}

impl Serialize for ActionError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("code", self.code())?;
        map.serialize_entry("message", &self.message())?;
        if let Some(element) = self.element() {
            map.serialize_entry("element", element)?;
        }
        match self {
            Self::NotFound { selector } => map.serialize_entry("selector", selector)?,
            Self::Ambiguous {
                selector,
                count,
                candidates,
            } => {
                map.serialize_entry("selector", selector)?;
                map.serialize_entry("count", count)?;
                map.serialize_entry("candidates", candidates)?;
            }
            Self::IndexOutOfRange {
                selector,
                index,
                count,
            } => {
                map.serialize_entry("selector", selector)?;
                map.serialize_entry("index", index)?;
                map.serialize_entry("count", count)?;
            }
            Self::Covered { by, .. } => map.serialize_entry("covered_by", by)?,
            Self::InvalidSelector {
                selector, position, ..
            } => {
                map.serialize_entry("selector", selector)?;
                if let Some(position) = position {
                    map.serialize_entry("position", position)?;
                }
            }
            Self::Timeout { waited_ms, .. } => map.serialize_entry("waited_ms", waited_ms)?,
            Self::StaleRef { reference, .. } => map.serialize_entry("ref", reference)?,
            Self::SecretField { kind, .. } => map.serialize_entry("secret", kind)?,
            Self::RedactedValue { reads, .. } => map.serialize_entry("reads", reads)?,
            Self::OptionNotFound {
                option,
                available,
                total,
                ..
            } => {
                map.serialize_entry("option", option)?;
                map.serialize_entry("available", available)?;
                map.serialize_entry("total", total)?;
            }
            _ => {}
        }
        map.end()
    }
}
