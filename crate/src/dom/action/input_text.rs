//! `input_text`: replace a field's value so that React / Vue / Angular notice (the prototype's
//! native value setter, then `input` and `change`), or type into a contenteditable with
//! `insertText`; then read the value back and fail with `value_mismatch` if it differs.
//!
//! A sectioned field (a date field made of contenteditable spinbuttons, one per part, such as
//! Material UI X's) takes no value: each part reads the keys pressed in it and moves focus to
//! the next part itself. There the text is typed one character at a time, as a keyboard would
//! deliver it, and the whole field's text is checked (see [`type_into_sections`]).
//!
//! `<select>` picks the option whose value or label equals the text; checkboxes, radios, files
//! and buttons get an `unsupported_element` error naming the right action. Password fields are
//! written only when the selector targets them explicitly (see [`targets_password_explicitly`]),
//! and their values (like those of every secret field, see [`crate::dom::secret`]) never appear
//! in reports or errors.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlSelectElement, InputEvent, InputEventInit};

use super::{
    KeyStroke, Target, check_actionable, dispatch_input, dispatch_keyboard, dispatch_plain, find,
    focus, retry, script_error, scroll_into_view, set_native_value,
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
    /// A contenteditable spinbutton, one part of a sectioned field (the element holding all the
    /// parts): typed key by key.
    Sections(Element),
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
            verify_value(&element, text, password, &|el| {
                js::get_string(el, "value").unwrap_or_default()
            })?
        }
        Editable::Editor => {
            focus(&element);
            insert_text(&element, text)?;
            js::next_frame().await;
            verify_value(&element, text, password, &|el| {
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
        Editable::Sections(field) => {
            type_into_sections(&element, &field, text).await?;
            let actual = field_text(&field);
            if same_field_text(&actual, text) {
                Effect::ValueSet {
                    chars: text.chars().count(),
                }
            } else {
                // Nothing is put back: what the widget took stays, and the message says exactly
                // what the whole field shows now.
                return Err(ActionError::ValueMismatch {
                    element: describe(&field),
                    expected: (!password).then(|| text.to_owned()),
                    actual: (!password).then_some(actual),
                });
            }
        }
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
        _ if is_content_editable(element) => Ok(match sectioned_field(element) {
            Some(field) => Editable::Sections(field),
            None => Editable::Editor,
        }),
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
        crate::words!(PASSWORD_WORDS).iter().any(|w| {
            if w == "pin" {
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
    // `dyn`: one copy of this function for both readers.
    read: &dyn Fn(&Element) -> String,
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

/// How many ancestors up the group of a sectioned field is looked for: a part sits in a wrapper
/// or two inside the group (Material UI X: content, section, section list, group).
const SECTION_DEPTH: usize = 5;

/// The sectioned field `element` is a part of, when it is a contenteditable spinbutton in a
/// `role=group` (within [`SECTION_DEPTH`]) holding another contenteditable spinbutton: the
/// lowest ancestor of `element` that holds all of the group's parts (its text is the field's,
/// without the group's buttons or labels). Structural, not by class name: date and time fields of
/// other libraries follow the same ARIA pattern. The group is required because spinbuttons that
/// merely share a container (two separate editors on one page) are not one field; a lone
/// contenteditable spinbutton is an ordinary editor.
fn sectioned_field(element: &Element) -> Option<Element> {
    if !is_editable_spinbutton(element) {
        return None;
    }
    let mut ancestor = element.parent_element();
    let mut group = None;
    for _ in 0..SECTION_DEPTH {
        let current = ancestor?;
        if current
            .get_attribute("role")
            .is_some_and(|r| r.trim().eq_ignore_ascii_case("group"))
        {
            group = Some(current);
            break;
        }
        ancestor = current.parent_element();
    }
    let group = group?;
    let list = group.query_selector_all("[role=spinbutton]").ok()?;
    let parts: Vec<Element> = (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| as_element(&n).cloned())
        .filter(is_editable_spinbutton)
        .collect();
    if parts.len() < 2 {
        return None;
    }
    let mut holder = element.parent_element();
    while let Some(current) = holder {
        if parts.iter().all(|part| current.contains(Some(part))) {
            return Some(current);
        }
        if current == group {
            return None;
        }
        holder = current.parent_element();
    }
    None
}

fn is_editable_spinbutton(element: &Element) -> bool {
    element
        .get_attribute("role")
        .is_some_and(|r| r.trim().eq_ignore_ascii_case("spinbutton"))
        && is_content_editable(element)
}

/// Types `text` into a sectioned field, starting in `first`, as a user's keyboard would: for each
/// character `keydown`, `keypress`, `beforeinput`, the edit the browser makes to a
/// contenteditable (the selection, or the whole part, replaced by the character), `input`, then
/// `keyup`; each step is skipped when a listener canceled an earlier one, as the browser does.
/// After each character the page gets a task to render, and the next character goes where focus
/// is then: the widget moves between its parts itself (and ignores separators such as `/`), so
/// BAI does not split the text. Typing stops early when focus leaves the field's parts; the
/// caller then reports what the field shows.
async fn type_into_sections(
    first: &Element,
    field: &Element,
    text: &str,
) -> Result<(), ActionError> {
    let document = first
        .owner_document()
        .ok_or_else(|| ActionError::Detached {
            element: describe(first),
        })?;
    focus(first);
    // The widget answers focus by choosing and selecting the part (after its render).
    js::next_frame().await;
    crate::dom::focus::sync(&document);
    let mut target = first.clone();
    for ch in text.chars() {
        type_char(&document, &target, ch)?;
        js::next_frame().await;
        // A part that moved focus in its render (after the events) is told now.
        crate::dom::focus::sync(&document);
        match crate::dom::focus::focused_element(&document) {
            Some(now) if field.contains(Some(&now)) && is_content_editable(&now) => target = now,
            _ => break,
        }
    }
    // One more task for the last part's render before the field is read.
    js::next_frame().await;
    Ok(())
}

/// One character typed into the focused part `target`.
fn type_char(document: &Document, target: &Element, ch: char) -> Result<(), ActionError> {
    let mut buffer = [0u8; 4];
    let typed: &str = ch.encode_utf8(&mut buffer);
    let (code, key_code, shift) = key_of(ch);
    let stroke = KeyStroke {
        key: typed,
        code: &code,
        key_code,
        char_code: u32::from(ch),
        shift,
    };
    crate::dom::focus::baseline(document);
    let allowed = dispatch_keyboard(target, "keydown", &stroke)?
        && dispatch_keyboard(target, "keypress", &stroke)?
        && dispatch_before_input(target, typed)?;
    if allowed {
        replace_selection(document, target, typed);
        dispatch_input(target, typed)?;
    }
    crate::dom::focus::sync(document);
    let released = crate::dom::focus::focused_element(document).unwrap_or_else(|| target.clone());
    dispatch_keyboard(&released, "keyup", &stroke)?;
    Ok(())
}

/// `code`, `keyCode` and Shift of the key that types `ch` on a US layout; `""` and 0 for a
/// character no single key types (pages that read `key` still get it).
fn key_of(ch: char) -> (String, u32, bool) {
    match ch {
        '0'..='9' => (format!("Digit{ch}"), u32::from(ch), false),
        'a'..='z' => (
            format!("Key{}", ch.to_ascii_uppercase()),
            u32::from(ch.to_ascii_uppercase()),
            false,
        ),
        'A'..='Z' => (format!("Key{ch}"), u32::from(ch), true),
        ' ' => ("Space".to_owned(), 32, false),
        '/' => ("Slash".to_owned(), 191, false),
        '-' => ("Minus".to_owned(), 189, false),
        '.' => ("Period".to_owned(), 190, false),
        ',' => ("Comma".to_owned(), 188, false),
        ':' => ("Semicolon".to_owned(), 186, true),
        _ => (String::new(), 0, false),
    }
}

/// A cancelable `beforeinput` (`insertText`), as the browser fires before it edits; false when a
/// listener canceled it (widgets that handle typing themselves do, and then nothing is edited).
fn dispatch_before_input(target: &Element, text: &str) -> Result<bool, ActionError> {
    let init = InputEventInit::new();
    for field in ["bubbles", "cancelable", "composed"] {
        js::put(&init, field, &JsValue::TRUE);
    }
    js::put(&init, "inputType", &"insertText".into());
    js::put(&init, "data", &text.into());
    let event =
        InputEvent::new_with_event_init_dict("beforeinput", &init).map_err(|e| script_error(&e))?;
    target.dispatch_event(&event).map_err(|e| script_error(&e))
}

/// The edit a key makes in a contenteditable: the selection, when it is inside `target`, is
/// replaced by the text and the caret put after it; with no selection there, the whole content
/// is (a part of a sectioned field shows its value selected while focused, so a key replaces
/// it). Untrusted key events make no edit of their own, so this is done here.
fn replace_selection(document: &Document, target: &Element, text: &str) {
    let selection = document.get_selection().ok().flatten();
    let inside = selection
        .as_ref()
        .filter(|s| s.range_count() > 0)
        .and_then(|s| s.get_range_at(0).ok())
        .filter(|r| {
            r.common_ancestor_container()
                .is_ok_and(|node| target.contains(Some(&node)))
        });
    let range = match inside {
        Some(range) => range,
        None => match document.create_range() {
            Ok(range) if range.select_node_contents(target).is_ok() => range,
            _ => {
                target.set_text_content(Some(text));
                return;
            }
        },
    };
    let node = document.create_text_node(text);
    if range.delete_contents().is_err() || range.insert_node(&node).is_err() {
        target.set_text_content(Some(text));
        return;
    }
    if let Some(selection) = selection {
        if range.set_start_after(&node).is_ok() {
            range.collapse_with_to_start(true);
            let _ = selection.remove_all_ranges();
            let _ = selection.add_range(&range);
        }
    }
}

/// What a sectioned field shows: its text without the invisible direction marks some widgets put
/// around the parts, whitespace collapsed.
fn field_text(field: &Element) -> String {
    let text: String = field
        .text_content()
        .unwrap_or_default()
        .chars()
        .filter(|c| !matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
        .collect();
    normalize_whitespace(&text)
}

/// Whether a sectioned field showing `shown` took `typed`: the same text, or the same parts
/// (runs of letters or digits) in the same order where a number may be written with or without
/// leading zeros, since the widget pads a part the user typed short ("7/4/2026" shows
/// "07/04/2026").
fn same_field_text(shown: &str, typed: &str) -> bool {
    let typed = normalize_whitespace(typed);
    if shown == typed {
        return true;
    }
    let parts = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|p| !p.is_empty())
            .map(|p| {
                if p.chars().all(|c| c.is_ascii_digit()) {
                    let trimmed = p.trim_start_matches('0');
                    if trimmed.is_empty() { "0" } else { trimmed }.to_owned()
                } else {
                    p.to_lowercase()
                }
            })
            .collect()
    };
    let shown_parts = parts(shown);
    !shown_parts.is_empty() && shown_parts == parts(&typed)
}
