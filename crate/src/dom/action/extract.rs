//! `extract`: read the text (or one attribute) of every element the selector matches, at most
//! [`EXTRACT_MAX_ELEMENTS`] of them and [`EXTRACT_MAX_CHARS`] characters in all, into the
//! report's `data` as an array of strings. With `max_chars` (a workflow that negotiated
//! `chunked_results`) up to that many characters from up to [`EXTRACT_LARGE_MAX_ELEMENTS`]
//! elements: the engine continues what does not fit one result line in the next ones.
//!
//! Text: the element's visible text (`innerText`), whitespace-collapsed; for form fields their
//! current value (a select's chosen labels). Attribute: its value (`value` on a form field reads
//! the current value). A secret field (see [`crate::dom::secret`]) always reads
//! `[redacted password]`, `[redacted card number]`…, whatever is asked, except attributes that
//! say what it is (`name`, `id`, `placeholder`…).
//! Secrets are redacted by the rule in [`crate::dom::redact`]. When the size limit is reached the
//! last string ends with `…[truncated]` and the rest are left out; the `extracted` effect says
//! how many elements matched and whether anything was cut. No match waits (like other actions)
//! until the timeout, then fails with `not_found`.

use web_sys::Element;

use super::{query_root, retry};
use crate::dom::error::ActionError;
use crate::dom::js;
use crate::dom::matching::normalize_whitespace;
use crate::dom::observe::selected_labels;
use crate::dom::redact::redact_secrets;
use crate::dom::report::{ActionReport, Effect, ExecOptions};
use crate::dom::secret::{
    SecretScan, is_radio_choice, is_structural_attribute, visible_text_without_secrets,
};
use crate::dom::selector::{describe_selector, query_all_checked};
use crate::protocol::Selector;
use crate::protocol::action::{
    EXTRACT_LARGE_MAX_ELEMENTS, EXTRACT_MAX_CHARS, EXTRACT_MAX_ELEMENTS,
};
use crate::protocol::join::join;

/// Marks text cut at the size limit.
const TRUNCATED: &str = "…[truncated]";

pub(super) async fn run(
    selector: &Selector,
    attribute: Option<&str>,
    max_chars: Option<u32>,
    options: &ExecOptions,
) -> Result<ActionReport, ActionError> {
    // The payload's range was checked by the engine (1 to EXTRACT_LARGE_MAX_CHARS).
    let (max_chars, max_elements) = match max_chars {
        Some(chars) => (chars as usize, EXTRACT_LARGE_MAX_ELEMENTS),
        None => (EXTRACT_MAX_CHARS, EXTRACT_MAX_ELEMENTS),
    };
    let (matches, attempts) = retry(options, |_| async move {
        let root = query_root()?;
        let matches = query_all_checked(&root, selector)?;
        if matches.is_empty() {
            return Err(ActionError::NotFound {
                selector: describe_selector(selector),
            });
        }
        Ok(matches)
    })
    .await?;
    let mut values = Vec::new();
    let mut used = 0;
    let mut truncated = false;
    let scan = SecretScan::of(&query_root()?);
    for element in matches.iter().take(max_elements) {
        let value = read(&scan, element, attribute);
        let length = value.chars().count();
        if used + length > max_chars {
            let room = max_chars.saturating_sub(used);
            let mut cut: String = value.chars().take(room).collect();
            cut.push_str(TRUNCATED);
            values.push(cut);
            truncated = true;
            break;
        }
        used += length;
        values.push(value);
    }
    Ok(ActionReport {
        action: "extract",
        element: None,
        effects: vec![Effect::Extracted {
            count: values.len(),
            matched: matches.len(),
            truncated,
        }],
        attempts,
        elapsed_ms: 0,
        data: Some({
            let mut json = String::new();
            crate::protocol::json_write::list(&mut json, &values, |out, value| {
                crate::protocol::json_write::string(out, value);
            });
            json
        }),
    })
}

/// What `extract` reads from one element: a secret field (or anything inside one) reads
/// `[redacted <kind>]` for its text, its value and any attribute that could mirror the value
/// (only attributes that say what the field is, like `name` or `placeholder`, are read).
fn read(scan: &SecretScan, element: &Element, attribute: Option<&str>) -> String {
    if let Some((owner, kind)) = scan.owner_of(element) {
        // A secret group's radio button: its class, style and tab stop (the checked one is the
        // group's tab stop) may say whether it is the checked one.
        let choice = is_radio_choice(&owner);
        let structural = attribute.is_some_and(|name| {
            !name.eq_ignore_ascii_case("value")
                && is_structural_attribute(name)
                && !(choice
                    && ["class", "style", "tabindex"]
                        .iter()
                        .any(|a| name.eq_ignore_ascii_case(a)))
        });
        if !structural {
            return kind.redacted().to_owned();
        }
    }
    let raw = match attribute {
        Some(name) if name.eq_ignore_ascii_case("value") && is_form_field(element) => {
            field_text(element)
        }
        Some(name) => element.get_attribute(name).unwrap_or_default(),
        None => text_of(element),
    };
    redact_secrets(&raw)
}

fn is_form_field(element: &Element) -> bool {
    matches!(
        element.local_name().as_str(),
        "input" | "textarea" | "select"
    )
}

fn field_text(element: &Element) -> String {
    if element.local_name() == "select" {
        join(&selected_labels(element), ", ")
    } else {
        js::get_string(element, "value").unwrap_or_default()
    }
}

/// The element's text as a user reads it: a field's value, else its visible text,
/// whitespace-collapsed (without the text of secret fields inside it). Never call it on a secret
/// field (callers ask [`SecretScan::owner_of`] first).
pub(super) fn text_of(element: &Element) -> String {
    if is_form_field(element) {
        return field_text(element);
    }
    normalize_whitespace(&visible_text_without_secrets(element))
}
