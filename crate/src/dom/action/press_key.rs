//! `press_key`: press one key on the element `selector` names (made actionable and focused
//! first) or on the focused element.
//!
//! Events: `keydown`, then `keypress` for Enter and Space only (as browsers do; other keys in
//! the list produce no character), then `keyup` (to the element focused by then), each with
//! `key`, `code`, `keyCode`, `which` and `charCode` as a real key sets them, bubbling and
//! composed. Untrusted key events have no default action, so the ones models rely on are
//! performed here, unless a listener canceled `keydown` (or `keypress`):
//! - Enter on a link, a button (`<button>`, `input` submit/button/reset/image) or `<summary>`:
//!   activates it (`click()`).
//! - Enter in a single-line field of a form: implicit submission (HTML): clicks the form's
//!   default button when it has one (nothing when that button is disabled), else submits with
//!   `requestSubmit()` when the field is the only one that blocks implicit submission.
//! - Space on a button, checkbox, radio or `<summary>`: activates it (after `keyup`).
//! - Tab: focus moves to the next tabbable element (positive `tabindex` first, then document
//!   order, wrapping; across open shadow roots and same-origin frames). There is no Shift-Tab.
//! - Backspace / Delete in a text field: delete the selection, or the character before / after
//!   the caret, through the native value setter and an `input` event (`deleteContentBackward` /
//!   `deleteContentForward`) so frameworks notice; in an editor, `execCommand('delete' /
//!   'forwardDelete')`. In a secret field no `text_deleted` count is reported (pressed again
//!   and again, it would tell the secret's length).
//! - ArrowUp / ArrowDown on a `<select>`: previous / next enabled option, then `input` and
//!   `change`. Arrows on a radio button: check the next / previous radio of its group.
//! - Escape, Home, End, PageUp, PageDown and arrows elsewhere: events only (pages that handle
//!   them listen to `keydown`). Enter in a textarea does not insert a line break.

use js_sys::Reflect;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, InputEvent, InputEventInit};

use super::click::{Watch, is_focusable};
use super::dispatch_plain;
use super::set_native_value;
use super::{
    KeyStroke, Target, check_actionable, dispatch_keyboard, find, focus, retry, script_error,
    scroll_into_view,
};
use crate::dom::describe::describe;
use crate::dom::error::ActionError;
use crate::dom::js;
use crate::dom::report::{ActionReport, Effect, ExecOptions};
use crate::dom::selector::QueryRoot;
use crate::dom::tree::{as_element, form_controls, iframe_document};
use crate::dom::visibility::{is_disabled, is_visible};
use crate::protocol::action::Key;

/// `key`, `code` and `keyCode` of a key.
fn key_info(key: Key) -> (&'static str, &'static str, u32) {
    match key {
        Key::Enter => ("Enter", "Enter", 13),
        Key::Tab => ("Tab", "Tab", 9),
        Key::Escape => ("Escape", "Escape", 27),
        Key::Backspace => ("Backspace", "Backspace", 8),
        Key::Delete => ("Delete", "Delete", 46),
        Key::Space => (" ", "Space", 32),
        Key::ArrowUp => ("ArrowUp", "ArrowUp", 38),
        Key::ArrowDown => ("ArrowDown", "ArrowDown", 40),
        Key::ArrowLeft => ("ArrowLeft", "ArrowLeft", 37),
        Key::ArrowRight => ("ArrowRight", "ArrowRight", 39),
        Key::Home => ("Home", "Home", 36),
        Key::End => ("End", "End", 35),
        Key::PageUp => ("PageUp", "PageUp", 33),
        Key::PageDown => ("PageDown", "PageDown", 34),
    }
}

pub(super) async fn run(
    key: Key,
    selector: Option<Target<'_>>,
    options: &ExecOptions,
) -> Result<ActionReport, ActionError> {
    let root = super::query_root()?;
    let (target, attempts) = match selector {
        Some(selector) => {
            let (element, attempts) = retry(options, |attempt| async move {
                let (_, element) = find(selector)?;
                check_actionable(&element)?;
                scroll_into_view(&element, attempt);
                Ok(element)
            })
            .await?;
            focus(&element);
            (element, attempts)
        }
        None => (
            active_element(&root).ok_or_else(|| ActionError::Script {
                detail: "the page has no body to send the key to".to_owned(),
            })?,
            1,
        ),
    };
    let description = describe(&target);
    let window = web_sys::window().ok_or_else(|| ActionError::Script {
        detail: "no window".to_owned(),
    })?;
    let focused_before = active_element(&root);
    let href_before = window.location().href().unwrap_or_default();
    let watch = Watch::start(&window, &root.document);
    // A background tab fires no focus events: focus moved by the page's key handlers (or by the
    // key's default action) is told after the events (see crate::dom::focus).
    crate::dom::focus::baseline(&root.document);

    let (name, _, _) = key_info(key);
    // A key on a secret field (or in one, or on a secret group's button): how the page reacts
    // (a strength meter, a mirrored value attribute), how long it takes to settle and what
    // changes would tell the secret's length or choice, one press at a time. The report keeps
    // only that the key was pressed (see `execute_on`), and the next page changes are withheld.
    if crate::dom::secret::note_pressed(&target) || crate::dom::secret::is_secret_or_inside(&target)
    {
        KEY_ON_SECRET.with(|k| k.set(true));
        crate::dom::observe::withhold_next_changes();
    }
    let mut effects = Vec::new();
    let mut allowed = dispatch_key(&target, "keydown", key)?;
    if allowed && matches!(key, Key::Enter | Key::Space) {
        allowed = dispatch_key(&target, "keypress", key)?;
    }
    if allowed && key != Key::Space {
        default_action(&root, key, &target, &mut effects)?;
    }
    crate::dom::focus::sync(&root.document);
    let keyup_target = active_element(&root).unwrap_or_else(|| target.clone());
    dispatch_key(&keyup_target, "keyup", key)?;
    if allowed && key == Key::Space {
        default_action(&root, key, &target, &mut effects)?;
    }
    crate::dom::focus::sync(&root.document);
    js::next_frame().await;

    let observed = watch.stop();
    effects.insert(
        0,
        Effect::KeyPressed {
            key: name.to_owned(),
            default_prevented: !allowed,
        },
    );
    let href_after = window.location().href().unwrap_or_default();
    if observed.unloading || href_after != href_before {
        effects.push(Effect::NavigationStarted {
            url: Some(href_after),
        });
    }
    if let Some(handled_by_script) = observed.submitted {
        effects.push(Effect::FormSubmitted { handled_by_script });
    }
    let focused_after = active_element(&root);
    if let Some(now) = &focused_after {
        // Tab lands on a secret group's checked button: where focus went is the choice.
        crate::dom::secret::note_pressed(now);
    }
    if focused_after != focused_before {
        if let Some(now) = &focused_after {
            effects.push(Effect::FocusMoved { to: describe(now) });
        }
    }
    if observed.mutations > 0 {
        effects.push(Effect::DomChanged {
            mutations: observed.mutations,
        });
    }
    Ok(ActionReport {
        action: "press_key",
        element: Some(description),
        effects,
        attempts,
        elapsed_ms: 0,
        data: None,
    })
}

thread_local! {
    /// Whether the running `press_key` went to a secret field or a secret group's button.
    static KEY_ON_SECRET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the action that just ran pressed a key on a secret field or choice; clears the note
/// for the next action.
pub(super) fn take_key_on_secret() -> bool {
    KEY_ON_SECRET.with(|k| k.replace(false))
}

/// What a key on an element chooses, for the safety review.
#[derive(Debug)]
pub enum KeyChoice {
    /// It chooses nothing (not a choosing key, not a list or group, or nothing to move to).
    Nothing,
    /// It chooses this option or radio button (its names, as the page shows them).
    Chooses(Vec<String>),
    /// It may choose another option, and BAI cannot tell which one: the page's own key handlers
    /// move the choice (a custom list or group), or a key BAI gives no meaning on a `<select>`.
    Unknown,
}

/// What `key` on `target` chooses, computed as [`default_action`] will: ArrowUp / ArrowDown on a
/// `<select>` the next enabled option ([`next_select_option`]), an arrow on a radio button the
/// next radio of its group ([`next_radio`]). Other moving keys there move a choice only through
/// the page's handlers: unknown. Space on a radio button checks that very button and is
/// reviewed as its click. Custom widgets are judged by the review itself.
pub fn key_choice(key: Key, target: &Element) -> KeyChoice {
    // Space too: it checks a focused radio button (or opens a select).
    let moves = key.moves_in_a_list() || key == Key::Space;
    if !moves {
        return KeyChoice::Nothing;
    }
    let tag = target.local_name();
    let forward = matches!(key, Key::ArrowDown | Key::ArrowRight);
    if tag == "select" {
        // On a secret `<select>` the option an arrow moves to depends on the one chosen now:
        // asking or not would tell it. Such a key always asks.
        if !matches!(key, Key::ArrowUp | Key::ArrowDown)
            || crate::dom::secret::classify(target).is_some()
        {
            return KeyChoice::Unknown;
        }
        return match next_select_option(target, forward) {
            Some((_, option)) => KeyChoice::Chooses(option_names(&option)),
            None => KeyChoice::Nothing,
        };
    }
    if tag == "input" && input_type(target) == "radio" {
        return match key {
            Key::Space => KeyChoice::Nothing,
            Key::ArrowUp | Key::ArrowDown | Key::ArrowLeft | Key::ArrowRight => {
                match next_radio(target, forward) {
                    Some(next) => KeyChoice::Chooses(radio_names(&next)),
                    None => KeyChoice::Nothing,
                }
            }
            _ => KeyChoice::Unknown,
        };
    }
    // A custom list, menu, tree, grid or group: its own handlers move the choice; the review
    // judges the options it may move to (`dom::review`'s widget keys).
    KeyChoice::Nothing
}

/// A native option's names as the page shows them: its label, its text, its `label` attribute,
/// and its text read in runs (as `select_option` judges the option it chooses: markup that glues
/// a risky word to another, "keep" + a "delete" shown apart, does not hide it from the review;
/// red team, session 16).
fn option_names(option: &Element) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let runs = if option.child_element_count() > 0 {
        crate::dom::secret::text_runs_without_secrets(option, 4096)
    } else {
        String::new()
    };
    let texts = [
        js::get_string(option, "label").unwrap_or_default(),
        option.text_content().unwrap_or_default(),
        option.get_attribute("label").unwrap_or_default(),
        runs,
    ];
    for text in texts {
        push_name(&mut names, &text);
    }
    names
}

/// A radio button's names: its accessible name and that name read in runs
/// (`accessible_name_in_runs`), as a click on it is judged (red team, session 16: an arrow key
/// read only the joined name, "keepdelete").
fn radio_names(radio: &Element) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    push_name(&mut names, &crate::dom::accname::accessible_name(radio));
    push_name(
        &mut names,
        &crate::dom::accname::accessible_name_in_runs(radio),
    );
    // Its labels' text as drawn (`dom::drawn_text`: reversed, reordered or unseen letters).
    for label in crate::dom::tree::labels_of(radio, 8) {
        push_name(
            &mut names,
            &crate::dom::secret::drawn_text_without_secrets(&label).text,
        );
    }
    names
}

/// Appends `text` to `names`, whitespace normalized, unless it is empty or there already.
fn push_name(names: &mut Vec<String>, text: &str) {
    let text = crate::dom::matching::normalize_whitespace(text);
    if !text.is_empty() && !names.contains(&text) {
        names.push(text);
    }
}

/// Whether Enter on `target` is left to the page: it is not a button, link or `<summary>`
/// (which Enter activates), not a single-line field of a form (whose default button is judged),
/// and not a control whose role says Enter activates it (a custom button, link, menu item, tab,
/// option…, judged as a click on it). A message box, an editor, a textarea, a field outside a
/// form, any other element: only the page's key handlers decide what Enter does there.
pub fn enter_left_to_page(target: &Element) -> bool {
    if activation_target(Key::Enter, target).is_some() {
        return false;
    }
    let activated_by_role = crate::dom::roles::role_of(target).is_some_and(|role| {
        matches!(
            role.as_str(),
            "button"
                | "link"
                | "menuitem"
                | "menuitemcheckbox"
                | "menuitemradio"
                | "tab"
                | "option"
                | "treeitem"
                | "checkbox"
                | "radio"
                | "switch"
        )
    });
    !activated_by_role
}

/// The focused element, through shadow roots and same-origin frames; `<body>` when nothing is.
pub(super) fn active_element(root: &QueryRoot) -> Option<Element> {
    let mut document: Document = root.document.clone();
    let mut active = document.active_element();
    for _ in 0..32 {
        let Some(current) = active.clone() else {
            break;
        };
        if let Some(frame) = iframe_document(&current) {
            document = frame;
            active = document.active_element();
            continue;
        }
        match root
            .shadow
            .shadow_root(&current)
            .and_then(|r| r.active_element())
        {
            Some(inner) if inner != current => active = Some(inner),
            _ => break,
        }
    }
    active.or_else(|| document.body().map(Element::from))
}

/// Dispatches one keyboard event; false when a listener canceled it.
fn dispatch_key(target: &Element, kind: &str, key: Key) -> Result<bool, ActionError> {
    let (name, code, key_code) = key_info(key);
    let stroke = KeyStroke {
        key: name,
        code,
        key_code,
        // Enter and Space are the only keys of the list that produce a character.
        char_code: key_code,
        shift: false,
    };
    dispatch_keyboard(target, kind, &stroke)
}

/// An input's type as the browser reads it (the `type` property: `"text "` and unknown types
/// are `text`), a button's as `submit`, `reset` or `button`.
fn input_type(element: &Element) -> String {
    js::get_string(element, "type").unwrap_or_default()
}

fn is_button(element: &Element) -> bool {
    match element.local_name().as_str() {
        "button" => true,
        "input" => matches!(
            input_type(element).as_str(),
            "submit" | "button" | "reset" | "image"
        ),
        _ => false,
    }
}

/// Fields whose Enter submits the form (HTML "fields that block implicit submission").
fn is_single_line_field(element: &Element) -> bool {
    element.local_name() == "input"
        && matches!(
            input_type(element).as_str(),
            "" | "text"
                | "search"
                | "url"
                | "tel"
                | "email"
                | "password"
                | "date"
                | "month"
                | "week"
                | "time"
                | "datetime-local"
                | "number"
        )
}

fn is_text_field(element: &Element) -> bool {
    element.local_name() == "textarea" || is_single_line_field(element)
}

/// `element.click()`: the activation behaviour (follow the link, submit, toggle).
fn activate(element: &Element) -> Result<(), ActionError> {
    js::call(element, "click", &[]).map_err(|e| script_error(&e))?;
    Ok(())
}

fn default_action(
    root: &QueryRoot,
    key: Key,
    target: &Element,
    effects: &mut Vec<Effect>,
) -> Result<(), ActionError> {
    let tag = target.local_name();
    match key {
        Key::Enter => {
            if is_disabled(target) {
                return Ok(());
            }
            if is_button(target) || (tag == "a" && target.has_attribute("href")) || tag == "summary"
            {
                activate(target)?;
            } else if is_single_line_field(target) {
                implicit_submission(target)?;
            }
        }
        Key::Space => {
            let toggles =
                tag == "input" && matches!(input_type(target).as_str(), "checkbox" | "radio");
            if !is_disabled(target) && (is_button(target) || toggles || tag == "summary") {
                activate(target)?;
            }
        }
        Key::Tab => {
            if let Some(next) = next_tabbable(root, target) {
                focus(&next);
            }
        }
        Key::Backspace | Key::Delete => {
            let forward = key == Key::Delete;
            if is_text_field(target) && !target.has_attribute("readonly") && !is_disabled(target) {
                let deleted = delete_in_field(target, forward)?;
                // In a secret field, whether (and how much) a key deleted would tell its length,
                // one press at a time: no effect is reported there.
                if let Some(chars) =
                    deleted.filter(|_| crate::dom::secret::classify(target).is_none())
                {
                    effects.push(Effect::TextDeleted { chars });
                }
            } else if js::get_bool(target, "isContentEditable").unwrap_or(false) {
                if let Some(document) = target.owner_document() {
                    let command = if forward { "forwardDelete" } else { "delete" };
                    js::call(
                        &document,
                        "execCommand",
                        &[JsValue::from_str(command), JsValue::FALSE, JsValue::NULL],
                    )
                    .map_err(|e| script_error(&e))?;
                }
            }
        }
        Key::ArrowUp | Key::ArrowDown | Key::ArrowLeft | Key::ArrowRight => {
            let forward = matches!(key, Key::ArrowDown | Key::ArrowRight);
            if tag == "select" && matches!(key, Key::ArrowUp | Key::ArrowDown) {
                step_select(target, forward)?;
            } else if tag == "input" && input_type(target) == "radio" {
                if let Some(next) = next_radio(target, forward) {
                    focus(&next);
                    activate(&next)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// The element `key` pressed on `target` would activate, for the safety review: Enter on a
/// button, link or summary (and Space on a button, checkbox, radio or summary) activates it;
/// Enter in a single-line field of a form submits through the form's first submit button (or,
/// without one, the form itself). `None` when the key activates nothing.
pub fn activation_target(key: Key, target: &Element) -> Option<Element> {
    let tag = target.local_name();
    match key {
        Key::Enter
            if is_button(target)
                || (tag == "a" && target.has_attribute("href"))
                || tag == "summary" =>
        {
            Some(target.clone())
        }
        Key::Enter if is_single_line_field(target) => {
            // The default button is the first submit button the form owns in tree order
            // (`form.elements`: buttons outside it that name it with `form=` included), the
            // one implicit submission clicks; without one, the form itself.
            let form = as_element(&js::get(target, "form"))?.clone();
            let button = form_controls(&form)
                .unwrap_or_default()
                .into_iter()
                .find(crate::dom::tree::is_submit_button);
            Some(button.unwrap_or(form))
        }
        Key::Space => {
            let toggles =
                tag == "input" && matches!(input_type(target).as_str(), "checkbox" | "radio");
            (is_button(target) || toggles || tag == "summary").then(|| target.clone())
        }
        _ => None,
    }
}

/// HTML implicit submission from a single-line field.
fn implicit_submission(field: &Element) -> Result<(), ActionError> {
    let form = js::get(field, "form");
    let Some(form) = as_element(&form) else {
        return Ok(());
    };
    // Unreadable controls: no implicit submission (the key does only what it does itself).
    let controls = form_controls(form).unwrap_or_default();
    let mut blocking = 0;
    for element in controls {
        if crate::dom::tree::is_submit_button(&element) {
            // The default button decides: a disabled one means no submission.
            if !is_disabled(&element) {
                activate(&element)?;
            }
            return Ok(());
        }
        if is_single_line_field(&element) {
            blocking += 1;
        }
    }
    if blocking == 1 {
        js::call(form, "requestSubmit", &[]).map_err(|e| script_error(&e))?;
    }
    Ok(())
}

/// Deletes the selection or one character in an input or textarea; the number of characters
/// removed, or `None` when there was nothing to delete.
fn delete_in_field(field: &Element, forward: bool) -> Result<Option<usize>, ActionError> {
    let value: Vec<u16> = js::get_string(field, "value")
        .unwrap_or_default()
        .encode_utf16()
        .collect();
    let len = value.len();
    // Some input types (email, number) have no selection API: act at the end.
    let start = js::get(field, "selectionStart")
        .as_f64()
        .map_or(len, |v| (v as usize).min(len));
    let end = js::get(field, "selectionEnd")
        .as_f64()
        .map_or(len, |v| (v as usize).min(len))
        .max(start);
    let is_high = |u: u16| (0xD800..0xDC00).contains(&u);
    let is_low = |u: u16| (0xDC00..0xE000).contains(&u);
    let (from, to) = if start != end {
        (start, end)
    } else if forward {
        if start >= len {
            return Ok(None);
        }
        let width = if value.get(start).copied().is_some_and(is_high)
            && value.get(start + 1).copied().is_some_and(is_low)
        {
            2
        } else {
            1
        };
        (start, start + width)
    } else {
        if start == 0 {
            return Ok(None);
        }
        let width = if start >= 2
            && value.get(start - 1).copied().is_some_and(is_low)
            && value.get(start - 2).copied().is_some_and(is_high)
        {
            2
        } else {
            1
        };
        (start - width, start)
    };
    let removed = String::from_utf16_lossy(value.get(from..to).unwrap_or_default());
    let mut next = value.get(..from).unwrap_or_default().to_vec();
    next.extend_from_slice(value.get(to..).unwrap_or_default());
    let text = String::from_utf16_lossy(&next);
    set_native_value(field, &text)?;
    let _ = js::call(
        field,
        "setSelectionRange",
        &[JsValue::from(from as u32), JsValue::from(from as u32)],
    );
    let init = InputEventInit::new();
    js::put(&init, "bubbles", &JsValue::TRUE);
    js::put(&init, "composed", &JsValue::TRUE);
    let kind = if forward {
        "deleteContentForward"
    } else {
        "deleteContentBackward"
    };
    js::put(&init, "inputType", &kind.into());
    js::put(&init, "data", &JsValue::UNDEFINED);
    let event =
        InputEvent::new_with_event_init_dict("input", &init).map_err(|e| script_error(&e))?;
    field.dispatch_event(&event).map_err(|e| script_error(&e))?;
    Ok(Some(removed.chars().count()))
}

/// The next (or previous) enabled option of a `<select>`, then `input` and `change`.
fn step_select(select: &Element, forward: bool) -> Result<(), ActionError> {
    if let Some((index, _)) = next_select_option(select, forward) {
        let _ = Reflect::set(
            select,
            &"selectedIndex".into(),
            &JsValue::from(index as f64),
        );
        dispatch_plain(select, "input")?;
        dispatch_plain(select, "change")?;
    }
    Ok(())
}

/// The next (or previous) enabled option of a `<select>` after its selected one, with its
/// index: the one [`step_select`] chooses and the review judges.
fn next_select_option(select: &Element, forward: bool) -> Option<(i64, Element)> {
    let options = js::get(select, "options");
    let length = js::get(&options, "length").as_f64().unwrap_or(0.0) as i64;
    let current = js::get(select, "selectedIndex").as_f64().unwrap_or(-1.0) as i64;
    let step = if forward { 1 } else { -1 };
    let mut index = current + step;
    while (0..length).contains(&index) {
        if let Some(option) = as_element(&js::get(&options, &index.to_string())) {
            if !is_disabled(option) {
                return Some((index, option.clone()));
            }
        }
        index += step;
    }
    None
}

/// The next (or previous) enabled radio of the same group, wrapping.
fn next_radio(radio: &Element, forward: bool) -> Option<Element> {
    let name = radio.get_attribute("name").filter(|n| !n.is_empty())?;
    let scope: JsValue = match as_element(&js::get(radio, "form")) {
        Some(form) => form.clone().into(),
        None => radio.get_root_node().into(),
    };
    let list = js::call(
        &scope,
        "querySelectorAll",
        &[JsValue::from_str("input[type=radio]")],
    )
    .ok()
    .flatten()?;
    let length = js::get(&list, "length").as_f64().unwrap_or(0.0) as usize;
    let group: Vec<Element> = (0..length)
        .filter_map(|i| as_element(&js::get(&list, &i.to_string())).cloned())
        .filter(|r| r.get_attribute("name").as_deref() == Some(name.as_str()))
        .filter(|r| r == radio || (!is_disabled(r) && is_visible(r)))
        .collect();
    let position = group.iter().position(|r| r == radio)?;
    let count = group.len();
    if count < 2 {
        return None;
    }
    let next = if forward {
        (position + 1) % count
    } else {
        (position + count - 1) % count
    };
    group.get(next).cloned()
}

/// The element Tab moves focus to from `current`.
fn next_tabbable(root: &QueryRoot, current: &Element) -> Option<Element> {
    let all = root.all_elements();
    let current_position = all.iter().position(|e| e == current);
    // (tabindex, 0, position): the key type the failure hints sort too, so the wasm holds one
    // copy of the sort.
    let mut positive: Vec<(u64, u64, usize)> = Vec::new();
    let mut zero: Vec<usize> = Vec::new();
    for (position, element) in all.iter().enumerate() {
        let Some(index) = tab_index(element) else {
            continue;
        };
        if index > 0 {
            positive.push((u64::from(index.unsigned_abs()), 0, position));
        } else if index == 0 {
            zero.push(position);
        }
    }
    // Each entry ends in its position, so all differ: the small heap sort gives `sort`'s order.
    crate::protocol::small_sort::heap_sort(&mut positive);
    let sequence: Vec<usize> = positive
        .into_iter()
        .map(|(_, _, p)| p)
        .chain(zero.iter().copied())
        .collect();
    let next = match current_position.and_then(|c| sequence.iter().position(|p| *p == c)) {
        Some(i) => sequence.get(i + 1).or_else(|| sequence.first()),
        // Not tabbable itself (e.g. the body): the first zero-index element after it.
        None => current_position
            .and_then(|c| zero.iter().find(|p| **p > c))
            .or_else(|| sequence.first()),
    };
    next.and_then(|p| all.get(*p)).cloned()
}

/// The element's tab index when it is focusable, visible and enabled; `None` otherwise.
fn tab_index(element: &Element) -> Option<i32> {
    if !is_focusable(element) {
        return None;
    }
    let explicit = element
        .get_attribute("tabindex")
        .and_then(|t| crate::protocol::json::parse_i32(t.trim()));
    let index = explicit.unwrap_or(0);
    if index < 0 || is_disabled(element) || !is_visible(element) {
        return None;
    }
    // `display: contents` and inert subtrees are not tabbable; `inert` is checked directly.
    if element.closest("[inert]").ok().flatten().is_some() {
        return None;
    }
    Some(index)
}
