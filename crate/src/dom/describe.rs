//! Short element descriptions for reports and error messages: `input#email[name=email]`,
//! `button.primary "Sign in"`. Never includes a field's value, nor a secret field's text, nor
//! the text of an element the user cannot see.

use web_sys::Element;

use super::matching::normalize_whitespace;
use super::secret::{is_secret_choice, text_content_without_secrets};
use super::visibility::is_visible;

const MAX_TEXT: usize = 30;

/// Describes `element` in one short line.
pub fn describe(element: &Element) -> String {
    let tag = element.local_name();
    let mut out = tag.clone();
    let id = element.id();
    if !id.is_empty() {
        out.push('#');
        out.push_str(&id);
    } else if !is_secret_choice(element) {
        // (A secret group's radio button: its classes may say whether it is the checked one.)
        let class_name = element.get_attribute("class").unwrap_or_default();
        for class in class_name.split_whitespace().take(2) {
            out.push('.');
            out.push_str(class);
        }
    }
    for attr in [
        "type",
        "name",
        "role",
        "data-testid",
        "aria-label",
        "placeholder",
    ] {
        if attr == "type" && tag != "input" {
            continue;
        }
        if let Some(value) = element.get_attribute(attr) {
            if !value.is_empty() {
                out.push_str(&format!("[{attr}={}]", truncate(&value)));
            }
        }
    }
    // Text only of an element the user can see: a page may keep an invisible copy of what was
    // typed (an autosizing input's measuring box), and a description must not carry it out.
    if !matches!(
        tag.as_str(),
        "input" | "textarea" | "select" | "html" | "body"
    ) && is_visible(element)
    {
        let text = normalize_whitespace(&text_content_without_secrets(element));
        if !text.is_empty() {
            out.push_str(&format!(" \"{}\"", truncate(&text)));
        }
    }
    out
}

fn truncate(text: &str) -> String {
    if text.chars().count() <= MAX_TEXT {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(MAX_TEXT - 1).collect();
    short.push('…');
    short
}
