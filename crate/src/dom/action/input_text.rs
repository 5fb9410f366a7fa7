//! `input_text`: replace a field's value so that React / Vue / Angular notice (the prototype's
//! native value setter, then `input` and `change`), or type into a contenteditable with
//! `insertText`; then read the value back and fail with `value_mismatch` if it differs.
//!
//! `<select>` picks the option whose value or label equals the text; checkboxes, radios, files
//! and buttons get an `unsupported_element` error naming the right action. Password fields are
//! written only when the selector targets them explicitly (see [`targets_password_explicitly`]),
//! and their values (like those of every secret field, see [`crate::dom::secret`]) never appear
//! in reports or errors.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Element, HtmlSelectElement};

use super::{
    Target, check_actionable, dispatch_input, dispatch_plain, find, focus, retry, script_error,
    scroll_into_view, set_native_value,
};
use crate::dom::describe::describe;
use crate::dom::error::ActionError;
use crate::dom::js;
use crate::dom::matching::normalize_whitespace;
use crate::dom::report::{ActionReport, Effect, ExecOptions};
use crate::dom::tree::{ShadowAccess, as_element};
use crate::protocol::{Selector, SelectorKind};

/// Words that name a password field in a selector (a few languages).
const PASSWORD_WORDS: &[&str] = &[
    "password",
    "passwort",
    "mot de passe",
    "contraseña",
    "senha",
    "parola",
    "wachtwoord",
    "пароль",
    "passcode",
    "passphrase",
    "pin",
];

/// What kind of editing the element takes.
enum Editable {
    /// input / textarea: native value setter.
    Field,
    /// date, time, color, range...: value set directly, no typing semantics.
    ValueOnly,
    /// `<select>`: choose an option.
    Select(HtmlSelectElement),
    /// contenteditable: `insertText`.
    Editor,
}

pub(super) async fn run(
    target: Target<'_>,
    text: &str,
    options: &ExecOptions,
) -> Result<ActionReport, ActionError> {
    let ((element, editable), attempts) =
        retry(options, |attempt| prepare(target, attempt)).await?;
    let description = describe(&element);
    // A secret field's value never comes back, not even in a value_mismatch message.
    let password = is_password(&element) || crate::dom::secret::classify(&element).is_some();
    let effect = match editable {
        Editable::Field | Editable::ValueOnly => {
            focus(&element);
            set_native_value(&element, text)?;
            dispatch_input(&element, text)?;
            dispatch_plain(&element, "change")?;
            js::next_frame().await;
            verify_value(&element, text, password, |el| {
                js::get_string(el, "value").unwrap_or_default()
            })?
        }
        Editable::Editor => {
            focus(&element);
            insert_text(&element, text)?;
            js::next_frame().await;
            verify_value(&element, text, password, |el| {
                normalize_whitespace(&js::get_string(el, "innerText").unwrap_or_default())
            })
            .or_else(|e| {
                // innerText keeps line breaks; compare normalized text on both sides.
                let now = normalize_whitespace(
                    &js::get_string(&element, "innerText").unwrap_or_default(),
                );
                if now == normalize_whitespace(text) {
                    Ok(Effect::ValueSet {
                        chars: text.chars().count(),
                    })
                } else {
                    Err(e)
                }
            })?
        }
        Editable::Select(select) => super::select_option::choose_native(&select, text)?,
    };
    Ok(ActionReport {
        action: "input_text",
        element: Some(description),
        effects: vec![effect],
        attempts,
        elapsed_ms: 0,
        data: None,
    })
}

async fn prepare(target: Target<'_>, attempt: u32) -> Result<(Element, Editable), ActionError> {
    let (root, found) = find(target)?;
    let element = retarget(&root.shadow, found);
    let editable = classify(&element)?;
    if is_password(&element) && !targets_password_explicitly(target.selector, &element) {
        return Err(ActionError::PasswordNotTargeted {
            element: describe(&element),
        });
    }
    check_actionable(&element)?;
    if element.has_attribute("readonly")
        && matches!(editable, Editable::Field | Editable::ValueOnly)
    {
        return Err(ActionError::ReadOnly {
            element: describe(&element),
        });
    }
    scroll_into_view(&element, attempt);
    Ok((element, editable))
}

/// A `<label>` stands for its control; a web component stands for the first text field in its
/// shadow root.
/// The element `input_text` on `element` types into: a label's control, the first field inside
/// a web component's shadow root, or the element itself. The safety review looks at this one.
pub fn field_for(element: &Element) -> Element {
    retarget(&ShadowAccess::detect(), element.clone())
}

fn retarget(shadow: &ShadowAccess, element: Element) -> Element {
    if element.local_name() == "label" {
        return super::label_control_or_self(element);
    }
    if element.local_name().contains('-') && !is_content_editable(&element) {
        if let Some(inner) = first_field_in_shadow(shadow, &element, 0) {
            return inner;
        }
    }
    element
}

fn first_field_in_shadow(shadow: &ShadowAccess, host: &Element, depth: u32) -> Option<Element> {
    if depth > 8 {
        return None;
    }
    let root = shadow.shadow_root(host)?;
    if let Ok(Some(field)) = root.query_selector("input:not([type=hidden]), textarea, select, [contenteditable]:not([contenteditable=false])") {
        return Some(field);
    }
    let all = root.query_selector_all("*").ok()?;
    for i in 0..all.length() {
        if let Some(inner) = all.item(i) {
            if let Some(field) =
                as_element(&inner).and_then(|e| first_field_in_shadow(shadow, e, depth + 1))
            {
                return Some(field);
            }
        }
    }
    None
}

fn is_content_editable(element: &Element) -> bool {
    js::get_bool(element, "isContentEditable").unwrap_or(false)
}

fn is_password(element: &Element) -> bool {
    element.local_name() == "input"
        && element
            .get_attribute("type")
            .is_some_and(|t| t.eq_ignore_ascii_case("password"))
}

fn classify(element: &Element) -> Result<Editable, ActionError> {
    let unsupported = |hint: &str| ActionError::UnsupportedElement {
        element: describe(element),
        hint: hint.to_owned(),
    };
    match element.local_name().as_str() {
        "textarea" => Ok(Editable::Field),
        "select" => Ok(Editable::Select(
            element.clone().unchecked_into::<HtmlSelectElement>(),
        )),
        "input" => {
            let input_type = element
                .get_attribute("type")
                .unwrap_or_default()
                .to_ascii_lowercase();
            match input_type.as_str() {
                "checkbox" | "radio" => Err(unsupported(
                    "it is a checkbox or radio button; use click to check or uncheck it, or the check / uncheck actions",
                )),
                "file" => Err(unsupported(
                    "it is a file picker; uploading files is not supported",
                )),
                "button" | "submit" | "reset" | "image" => {
                    Err(unsupported("it is a button; use click"))
                }
                "hidden" => Err(unsupported("it is a hidden field that users cannot edit")),
                "date" | "datetime-local" | "month" | "time" | "week" | "color" | "range" => {
                    Ok(Editable::ValueOnly)
                }
                _ => Ok(Editable::Field),
            }
        }
        _ if is_content_editable(element) => Ok(Editable::Editor),
        _ => Err(unsupported(
            "it is not a text field; target the <input>, <textarea> or editable area itself",
        )),
    }
}

/// Whether the selector names this password field deliberately, rather than matching it by
/// accident: it mentions "password" (or a translation), or it names this very field exactly — a
/// css/xpath selector containing the field's id or name as a whole word, a test id, or an
/// `exact` name match.
pub fn targets_password_explicitly(selector: &Selector, element: &Element) -> bool {
    let mentions = |text: &str| {
        let lower = text.to_lowercase();
        PASSWORD_WORDS.iter().any(|w| {
            if *w == "pin" {
                lower
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|t| t == "pin")
            } else {
                lower.contains(w)
            }
        })
    };
    if mentions(&selector.value) || selector.name.as_deref().is_some_and(mentions) {
        return true;
    }
    #[allow(
        unreachable_patterns,
        reason = "the protocol layer may add kinds; unknown ones are not explicit"
    )]
    match selector.kind {
        SelectorKind::TestId => true,
        SelectorKind::Css | SelectorKind::Xpath => {
            let words: Vec<&str> = selector
                .value
                .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            ["id", "name", "data-testid"].iter().any(|attr| {
                element
                    .get_attribute(attr)
                    .is_some_and(|v| !v.is_empty() && words.contains(&v.as_str()))
            })
        }
        SelectorKind::Aria
        | SelectorKind::Label
        | SelectorKind::Placeholder
        | SelectorKind::Role => selector.exact,
        _ => false,
    }
}

/// Select the editable's contents and replace them with `insertText` (an undoable edit that
/// editors such as ProseMirror see as typing); falls back to setting the text.
pub(super) fn insert_text(element: &Element, text: &str) -> Result<(), ActionError> {
    let document = element
        .owner_document()
        .ok_or_else(|| ActionError::Detached {
            element: describe(element),
        })?;
    if let Ok(Some(selection)) = document.get_selection() {
        let _ = selection.select_all_children(element);
    }
    let command = if text.is_empty() {
        "delete"
    } else {
        "insertText"
    };
    let done = js::call(
        &document,
        "execCommand",
        &[
            JsValue::from_str(command),
            JsValue::FALSE,
            JsValue::from_str(text),
        ],
    )
    .map_err(|e| script_error(&e))?
    .and_then(|v| v.as_bool())
    .unwrap_or(false);
    if !done {
        element.set_text_content(Some(text));
        dispatch_input(element, text)?;
    }
    Ok(())
}

fn verify_value(
    element: &Element,
    text: &str,
    password: bool,
    read: impl Fn(&Element) -> String,
) -> Result<Effect, ActionError> {
    if !element.is_connected() {
        return Err(ActionError::Detached {
            element: describe(element),
        });
    }
    let actual = read(element);
    if actual == text {
        return Ok(Effect::ValueSet {
            chars: text.chars().count(),
        });
    }
    Err(ActionError::ValueMismatch {
        element: describe(element),
        expected: (!password).then(|| text.to_owned()),
        actual: (!password).then_some(actual),
    })
}
