//! `select_option`: choose an option of a `<select>`, or of a custom select widget, the way a
//! user would.
//!
//! Native `<select>` (a `<label>` stands for its control): the option whose value equals the
//! text, else whose trimmed label equals it, else whose label equals it ignoring case. It is
//! selected through the DOM (`selected = true`; a multiple select keeps only it), then `input`
//! and `change` are dispatched, bubbling, as a user's choice does (React and Vue listen to
//! those), and the selection is read back.
//!
//! Custom widgets: the target (or the control its `<label>` stands for) is a `role=listbox`
//! (options chosen in place), or an opener: a `role=combobox`, a button with `aria-haspopup` /
//! `aria-expanded`, or a custom element whose open shadow root holds one of those (Shoelace's
//! `sl-select`). A collapsed opener is clicked through the click path. The list is then the one
//! the opener (or its host) names by `aria-controls` / `aria-owns` (waited for while hidden),
//! else the one holding its
//! `aria-activedescendant`, else the only listbox that became visible since the click (a portal
//! at the end of `<body>`), else the first visible one. Options are `role=option` elements in
//! the list's composed tree (open shadow roots, slotted elements) and those it `aria-owns`,
//! matched by `data-value` / `value`, then accessible name (exact, then ignoring case); the
//! option is clicked through the click path. Then the choice is confirmed: the option reads
//! `aria-selected=true`, or the widget's `value` property equals the option's value, or the
//! opener (or the widget around it) shows the option's name with the list closed (a list chosen
//! in place that marks no option selected is taken at its word). Unconfirmed is
//! `option_not_chosen`.
//!
//! On failure after opening, the page is left as found: Escape is sent to the focused element
//! and, if the list is still open, the opener is clicked again.
//! An autocomplete (a combobox that is an editable `<input>`) whose open list lacks the option
//! gets the option's text typed into it, as a user does when the list shows only some matches;
//! the filtered list is waited for (bounded), and on failure the field gets its text back.
//!
//! A missing option is `option_not_found` (listing up to 10 labels); a disabled one `disabled`.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Element, HtmlOptionElement, HtmlSelectElement, KeyboardEvent, KeyboardEventInit};

use super::Target as ActionTarget;
use super::click::{Interior, click_found};
use super::{
    check_actionable, dispatch_input, dispatch_plain, find, focus, retry, scroll_into_view,
    set_native_value,
};
use crate::dom::accname::{accessible_name_in_runs, accessible_name_with};
use crate::dom::describe::describe;
use crate::dom::error::ActionError;
use crate::dom::js;
use crate::dom::matching::normalize_whitespace;
use crate::dom::report::{ActionReport, Effect, ExecOptions};
use crate::dom::roles::role_of;
use crate::dom::secret::drawn_text_skipping_secret_fields;
use crate::dom::selector::QueryRoot;
use crate::dom::tree::{as_element, as_tag, assigned_or_fallback, element_by_id_near};
use crate::dom::visibility::{is_disabled, is_visible};
use crate::protocol::quote::Quoted;

enum Target {
    Native(HtmlSelectElement),
    Listbox(Element),
    /// A widget opened by `opener` (the same element, or a control in its shadow root).
    Popup {
        widget: Element,
        opener: Element,
    },
}

/// An option found in a list, with its accessible name and value.
struct Chosen {
    option: Element,
    name: String,
    value: Option<String>,
}

pub(super) async fn run(
    target: ActionTarget<'_>,
    option: &str,
    options: &ExecOptions,
) -> Result<ActionReport, ActionError> {
    let reviewed = target.pinned.map(|pinned| pinned.reviewed);
    let ((root, element, target), mut attempts) =
        retry(options, |attempt| async move { prepare(target, attempt) }).await?;
    let description = describe(&element);
    let effect = match target {
        Target::Native(select) => choose_native(&select, option)?,
        Target::Listbox(listbox) => {
            let (chosen, more) = click_option(&root, &listbox, option, options, reviewed).await?;
            attempts += more;
            let (effect, more) =
                confirm(&listbox, &listbox, Some(&listbox), &chosen, options).await?;
            attempts += more;
            effect
        }
        Target::Popup { widget, opener } => {
            let before = visible_listboxes(&root);
            let opened = if is_expanded(&opener) {
                false
            } else {
                let opener_root = root.clone();
                let target = opener.clone();
                let (_, _, more) = click_found(options, Interior::Plain, &move || {
                    Ok((opener_root.clone(), target.clone()))
                })
                .await?;
                attempts += more;
                true
            };
            match choose_in_popup(&root, &widget, &opener, &before, option, options, reviewed).await
            {
                Ok((effect, more)) => {
                    attempts += more;
                    effect
                }
                Err(error) => {
                    if opened {
                        close_popup(&root, &opener, &before).await;
                    }
                    return Err(error);
                }
            }
        }
    };
    Ok(ActionReport {
        action: "select_option",
        element: Some(description),
        effects: vec![effect],
        attempts,
        elapsed_ms: 0,
        data: None,
    })
}

/// With the popup open: finds its list, clicks the option, confirms the choice.
async fn choose_in_popup(
    root: &QueryRoot,
    widget: &Element,
    opener: &Element,
    before: &[Element],
    wanted: &str,
    options: &ExecOptions,
    reviewed: Option<&dyn super::Reviewed>,
) -> Result<(Effect, u32), ActionError> {
    let (listbox, mut attempts) = retry(options, |_| async move {
        listbox_of(root, widget, opener, before)
    })
    .await?;
    let listbox = match (listbox_option(root, &listbox, wanted), filter_field(opener)) {
        (Err(missing @ ActionError::OptionNotFound { .. }), Some(field)) => {
            let (listbox, more) =
                type_to_filter(root, widget, &field, before, wanted, missing).await?;
            attempts += more;
            listbox
        }
        _ => listbox,
    };
    let (chosen, more) = click_option(root, &listbox, wanted, options, reviewed).await?;
    attempts += more;
    let (effect, more) = confirm(widget, opener, Some(&listbox), &chosen, options).await?;
    Ok((effect, attempts + more))
}

/// How long a list may take to show the matches of typed text (a filter that runs on the
/// server answers within this or is taken as having no such option).
const FILTER_WAIT_MS: u32 = 1500;

/// The text field of an autocomplete: a combobox that is an editable `<input>`, whose list
/// shows only the options matching its text.
fn filter_field(opener: &Element) -> Option<Element> {
    let input = as_tag::<web_sys::HtmlInputElement>(opener, "input")?;
    let text_like = matches!(input.type_().as_str(), "text" | "search" | "");
    (text_like && !input.read_only() && !input.disabled()).then(|| opener.clone())
}

/// Types the wanted option's text into an autocomplete's field, as a user does when the list
/// shows only some matches, and waits (bounded) for a list that holds the option. On failure
/// the field gets its text back (the caller then closes the list) and the error is `missing`,
/// the `option_not_found` of the list as it opened (its options help the model more than an
/// empty filtered list).
async fn type_to_filter(
    root: &QueryRoot,
    widget: &Element,
    field: &Element,
    before: &[Element],
    wanted: &str,
    missing: ActionError,
) -> Result<(Element, u32), ActionError> {
    let original = js::get_string(field, "value").unwrap_or_default();
    let text = normalize_whitespace(wanted);
    focus(field);
    set_native_value(field, &text)?;
    dispatch_input(field, &text)?;
    let quick = ExecOptions {
        timeout_ms: FILTER_WAIT_MS,
    };
    let found = retry(&quick, |_| {
        let found = listbox_of(root, widget, field, before)
            .and_then(|listbox| listbox_option(root, &listbox, wanted).map(|_| listbox));
        let result = match found {
            // Retriable while the list may still be filtering.
            Err(ActionError::OptionNotFound { .. }) => Err(ActionError::NotVisible {
                element: format!("the option {} in {}", Quoted(&text), describe(widget)),
            }),
            other => other,
        };
        async move { result }
    })
    .await;
    match found {
        Ok(found) => Ok(found),
        Err(error) => {
            let _ = set_native_value(field, &original);
            let _ = dispatch_input(field, &original);
            Err(match error {
                ActionError::NotVisible { .. } => missing,
                other => other,
            })
        }
    }
}

fn prepare(
    target: ActionTarget<'_>,
    attempt: u32,
) -> Result<(QueryRoot, Element, Target), ActionError> {
    let (root, found) = find(target)?;
    let element = super::label_control_or_self(found);
    let target = if element.local_name() == "select" {
        Target::Native(element.clone().unchecked_into())
    } else if role_of(&element).as_deref() == Some("listbox") {
        Target::Listbox(element.clone())
    } else if is_opener(&element) {
        Target::Popup {
            widget: element.clone(),
            opener: element.clone(),
        }
    } else if let Some(opener) = inner_opener(&root, &element) {
        Target::Popup {
            widget: element.clone(),
            opener,
        }
    } else {
        return Err(ActionError::UnsupportedElement {
            element: describe(&element),
            hint: "select_option works on a <select>, a role=listbox, a role=combobox or a button that opens a list; click the option instead, or target the drop-down itself".to_owned(),
        });
    };
    check_actionable(&element)?;
    scroll_into_view(&element, attempt);
    Ok((root, element, target))
}

/// A combobox, or a button that says it opens a popup.
fn is_opener(element: &Element) -> bool {
    match role_of(element).as_deref() {
        Some("combobox") => true,
        Some("button") => {
            element
                .get_attribute("aria-haspopup")
                .is_some_and(|v| v != "false")
                || element.has_attribute("aria-expanded")
        }
        _ => false,
    }
}

/// The opener inside a custom element's shadow root (a web-component select).
fn inner_opener(root: &QueryRoot, host: &Element) -> Option<Element> {
    let shadow = root.shadow.shadow_root(host)?;
    let found = shadow
        .query_selector_all("[role=combobox], [aria-haspopup], [aria-expanded]")
        .ok()?;
    (0..found.length())
        .filter_map(|i| found.item(i))
        .filter_map(|node| as_element(&node).cloned())
        .find(|e| is_opener(e) || role_of(e).as_deref() == Some("combobox"))
}

fn is_expanded(opener: &Element) -> bool {
    opener.get_attribute("aria-expanded").as_deref() == Some("true")
}

/// Chooses an option of a native `<select>` by value, exact label or label ignoring case (also
/// used by `input_text` on a `<select>`).
pub(super) fn choose_native(
    select: &HtmlSelectElement,
    wanted: &str,
) -> Result<Effect, ActionError> {
    let element: &Element = select.as_ref();
    let (option, all) = native_option(select, wanted)?;
    let option = &option;
    if is_disabled(option.as_ref()) {
        return Err(ActionError::Disabled {
            element: describe(option.as_ref()),
        });
    }
    focus(element);
    if select.multiple() {
        for other in &all {
            if other != option {
                other.set_selected(false);
            }
        }
    }
    option.set_selected(true);
    dispatch_plain(element, "input")?;
    dispatch_plain(element, "change")?;
    if !option.selected() {
        // A secret select's value (a card's expiry month) is never reported.
        let shown = crate::dom::secret::classify(element).is_none();
        return Err(ActionError::ValueMismatch {
            element: describe(element),
            expected: shown.then(|| option.value()),
            actual: shown.then(|| select.value()),
        });
    }
    Ok(Effect::OptionSelected {
        value: option.value(),
    })
}

/// The option of a native `<select>` that `wanted` names (by value, exact label, label ignoring
/// case), and all its options; the safety review looks at the same one.
fn native_option(
    select: &HtmlSelectElement,
    wanted: &str,
) -> Result<(HtmlOptionElement, Vec<HtmlOptionElement>), ActionError> {
    let collection = select.options();
    let all: Vec<HtmlOptionElement> = (0..collection.length())
        .filter_map(|i| collection.item(i))
        .filter(|o| o.local_name() == "option")
        .map(JsCast::unchecked_into)
        .collect();
    let trimmed = normalize_whitespace(wanted);
    let lower = trimmed.to_lowercase();
    let label = |o: &HtmlOptionElement| normalize_whitespace(&o.label());
    let chosen = all
        .iter()
        .find(|o| o.value() == wanted)
        .or_else(|| all.iter().find(|o| label(o) == trimmed))
        .or_else(|| all.iter().find(|o| label(o).to_lowercase() == lower))
        .cloned();
    match chosen {
        Some(option) => Ok((option, all)),
        None => Err(ActionError::OptionNotFound {
            element: describe(select.as_ref()),
            option: wanted.to_owned(),
            available: all
                .iter()
                .take(ActionError::MAX_LISTED_OPTIONS)
                .map(label)
                .collect(),
            total: all.len(),
        }),
    }
}

/// What `select_option` on `found` (what its selector found) would choose, as the page shows
/// it now, for the safety review: the names of that option (a native option's label, its text
/// and its `label` attribute; a custom option's accessible name), or `None` when the page does
/// not show it yet (a custom list that renders its options only once opened), or when the
/// element takes no `select_option` (the action then fails by itself). Fails as the action
/// would when a native `<select>` or a list shown in place has no such option.
pub fn option_preview(found: &Element, wanted: &str) -> Result<Option<Vec<String>>, ActionError> {
    let root = super::query_root()?;
    let element = super::label_control_or_self(found.clone());
    let mut names = Vec::new();
    let mut push = |name: String| {
        let name = normalize_whitespace(&name);
        if !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
    };
    // Each option's name read in runs too (`accessible_name_in_runs`): markup that glues a
    // risky word to another ("keep" + a "delete" shown apart) does not hide it from the review;
    // and its text as drawn (`dom::drawn_text`: reversed, reordered or unseen letters).
    if element.local_name() == "select" {
        let (option, _) = native_option(element.unchecked_ref(), wanted)?;
        push(option.label());
        push(option.text());
        push(option.get_attribute("label").unwrap_or_default());
        if option.child_element_count() > 0 {
            push(crate::dom::secret::text_runs_without_secrets(&option, 4096));
        }
        return Ok(Some(names));
    }
    if role_of(&element).as_deref() == Some("listbox") {
        let (option, name) = listbox_option(&root, &element, wanted)?;
        push(name);
        push(accessible_name_in_runs(&option));
        push(drawn_text_skipping_secret_fields(&option).text);
        return Ok(Some(names));
    }
    let opener = if is_opener(&element) {
        Some(element.clone())
    } else {
        inner_opener(&root, &element)
    };
    let Some(opener) = opener else {
        return Ok(None);
    };
    // The list the opener names, rendered but hidden until it opens: its options can be read.
    // A list that is not in the page yet cannot tell what will be chosen.
    for holder in [&opener, &element] {
        for attr in ["aria-controls", "aria-owns"] {
            for id in holder
                .get_attribute(attr)
                .unwrap_or_default()
                .split_whitespace()
            {
                let Some(listbox) = element_by_id_near(holder, id) else {
                    continue;
                };
                if let Ok((option, name)) = listbox_option(&root, &listbox, wanted) {
                    push(name);
                    push(accessible_name_in_runs(&option));
                    push(drawn_text_skipping_secret_fields(&option).text);
                    return Ok(Some(names));
                }
            }
        }
    }
    Ok(None)
}

/// The option of `listbox` that `wanted` names (by `data-value` / `value`, then accessible
/// name, exact, then ignoring case), with its name; `click_option` and the review use it.
fn listbox_option(
    root: &QueryRoot,
    listbox: &Element,
    wanted: &str,
) -> Result<(Element, String), ActionError> {
    let all = options_in(root, listbox);
    let names: Vec<String> = all
        .iter()
        .map(|o| accessible_name_with(&root.shadow, o))
        .collect();
    let trimmed = normalize_whitespace(wanted);
    let lower = trimmed.to_lowercase();
    let position = all
        .iter()
        .position(|o| value_of(o).as_deref() == Some(wanted))
        .or_else(|| names.iter().position(|n| *n == trimmed))
        .or_else(|| names.iter().position(|n| n.to_lowercase() == lower));
    match position.and_then(|p| Some((all.get(p)?.clone(), names.get(p)?.clone()))) {
        Some(found) => Ok(found),
        None => Err(ActionError::OptionNotFound {
            element: describe(listbox),
            option: wanted.to_owned(),
            available: names
                .iter()
                .take(ActionError::MAX_LISTED_OPTIONS)
                .cloned()
                .collect(),
            total: names.len(),
        }),
    }
}

/// The visible listboxes on the page, shadow roots included.
fn visible_listboxes(root: &QueryRoot) -> Vec<Element> {
    root.all_elements()
        .into_iter()
        .filter(|e| e.get_attribute("role").as_deref() == Some("listbox") && is_visible(e))
        .collect()
}

/// The visible list the opened widget shows (see the module comment for the order).
fn listbox_of(
    root: &QueryRoot,
    widget: &Element,
    opener: &Element,
    before: &[Element],
) -> Result<Element, ActionError> {
    // A list the widget names is its list: while it is hidden, another visible list on the page
    // (one still closing, of another widget) is not taken for it.
    let mut named = false;
    for element in [opener, widget] {
        for attr in ["aria-controls", "aria-owns"] {
            for id in element
                .get_attribute(attr)
                .unwrap_or_default()
                .split_whitespace()
            {
                if let Some(listbox) = element_by_id_near(element, id) {
                    named |= role_of(&listbox).as_deref() == Some("listbox");
                    if is_visible(&listbox) && has_options(root, &listbox) {
                        return Ok(listbox);
                    }
                }
            }
        }
        if let Some(active) = element
            .get_attribute("aria-activedescendant")
            .filter(|id| !id.is_empty())
            .and_then(|id| element_by_id_near(element, &id))
        {
            if let Ok(Some(listbox)) = active.closest("[role=listbox]") {
                if is_visible(&listbox) {
                    return Ok(listbox);
                }
            }
        }
    }
    if named {
        return Err(ActionError::NotVisible {
            element: format!("the list of options of {}", describe(widget)),
        });
    }
    let now = visible_listboxes(root);
    let new: Vec<&Element> = now.iter().filter(|l| !before.contains(l)).collect();
    if let [only] = new.as_slice() {
        return Ok((*only).clone());
    }
    if let Some(first) = new.first().copied().or(now.first()) {
        return Ok(first.clone());
    }
    Err(ActionError::NotVisible {
        element: format!("the list of options of {}", describe(widget)),
    })
}

fn has_options(root: &QueryRoot, listbox: &Element) -> bool {
    !options_in(root, listbox).is_empty()
}

/// The `role=option` elements of a list, through open shadow roots and slots, plus those it
/// `aria-owns`.
fn options_in(root: &QueryRoot, listbox: &Element) -> Vec<Element> {
    let mut found = Vec::new();
    let mut stack: Vec<web_sys::Node> = root.rendered_children(listbox);
    stack.reverse();
    while let Some(node) = stack.pop() {
        let Some(element) = as_element(&node).cloned() else {
            continue;
        };
        let mut next = if let Some(slot) = as_tag::<web_sys::HtmlSlotElement>(&element, "slot") {
            assigned_or_fallback(slot)
        } else {
            root.rendered_children(&element)
        };
        if role_of(&element).as_deref() == Some("option") {
            found.push(element);
            continue;
        }
        next.reverse();
        stack.extend(next);
    }
    for id in listbox
        .get_attribute("aria-owns")
        .unwrap_or_default()
        .split_whitespace()
    {
        if let Some(owned) = element_by_id_near(listbox, id) {
            if role_of(&owned).as_deref() == Some("option") {
                found.push(owned);
            }
        }
    }
    found
}

fn value_of(option: &Element) -> Option<String> {
    option
        .get_attribute("data-value")
        .or_else(|| option.get_attribute("value"))
}

/// Finds the option in `listbox` and clicks it.
async fn click_option(
    root: &QueryRoot,
    listbox: &Element,
    wanted: &str,
    options: &ExecOptions,
    reviewed: Option<&dyn super::Reviewed>,
) -> Result<(Chosen, u32), ActionError> {
    let (option, name) = listbox_option(root, listbox, wanted)?;
    // The option a custom list shows once opened is checked against the review before it is
    // clicked: an option the review could not see (or saw under another name) runs only if it
    // needs no question of its own.
    if let Some(reviewed) = reviewed {
        reviewed.recheck_option(&name)?;
        // Read in runs too, as the review read it (`option_preview`).
        let runs = normalize_whitespace(&accessible_name_in_runs(&option));
        if !runs.is_empty() && runs != name {
            reviewed.recheck_option(&runs)?;
        }
        let drawn = drawn_text_skipping_secret_fields(&option).text;
        if !drawn.is_empty() && drawn != name && drawn != runs {
            reviewed.recheck_option(&drawn)?;
        }
    }
    if is_disabled(&option) || option.get_attribute("aria-disabled").as_deref() == Some("true") {
        return Err(ActionError::Disabled {
            element: describe(&option),
        });
    }
    let click_root = root.clone();
    let target = option.clone();
    let (_, _, attempts) = click_found(options, Interior::Plain, &move || {
        Ok((click_root.clone(), target.clone()))
    })
    .await?;
    Ok((
        Chosen {
            value: value_of(&option),
            option,
            name,
        },
        attempts,
    ))
}

/// Waits (bounded by the timeout) until the widget shows the chosen option.
async fn confirm(
    widget: &Element,
    opener: &Element,
    listbox: Option<&Element>,
    chosen: &Chosen,
    options: &ExecOptions,
) -> Result<(Effect, u32), ActionError> {
    let result = retry(options, |_| async move {
        if is_confirmed(widget, opener, listbox, chosen) {
            Ok(())
        } else {
            // Retriable: a framework may re-render on the next frame.
            Err(ActionError::NotVisible {
                element: format!(
                    "the choice {} in {}",
                    Quoted(&chosen.name),
                    describe(widget)
                ),
            })
        }
    })
    .await;
    match result {
        Ok(((), attempts)) => Ok((
            Effect::OptionSelected {
                value: chosen.value.clone().unwrap_or_else(|| chosen.name.clone()),
            },
            attempts,
        )),
        Err(_) => Err(ActionError::OptionNotChosen {
            element: describe(widget),
            option: chosen.name.clone(),
            shown: shown_text(widget, opener),
        }),
    }
}

fn is_confirmed(
    widget: &Element,
    opener: &Element,
    listbox: Option<&Element>,
    chosen: &Chosen,
) -> bool {
    if chosen.option.is_connected()
        && chosen.option.get_attribute("aria-selected").as_deref() == Some("true")
    {
        return true;
    }
    if let (Some(value), Some(current)) = (&chosen.value, js::get_string(widget, "value")) {
        if widget.local_name().contains('-') {
            return current == *value;
        }
    }
    if listbox == Some(widget) {
        // A list chosen in place that marks no option selected cannot confirm anything more.
        return widget
            .query_selector("[role=option][aria-selected=true], [role=option][aria-checked=true]")
            .ok()
            .flatten()
            .is_none();
    }
    let list_open = listbox.is_some_and(|l| l.is_connected() && is_visible(l));
    if list_open || chosen.name.is_empty() {
        return false;
    }
    shown_text(widget, opener).contains(&chosen.name)
}

/// What the widget displays as its value: its text (or its field's value), and when that is
/// empty, the text of the nearest ancestors around the opener (react-select shows the choice
/// in a sibling of its input).
fn shown_text(widget: &Element, opener: &Element) -> String {
    let own = |e: &Element| {
        let text = normalize_whitespace(&js::get_string(e, "innerText").unwrap_or_default());
        let value = if e.local_name() == "input" {
            js::get_string(e, "value").unwrap_or_default()
        } else {
            String::new()
        };
        normalize_whitespace(&format!("{text} {value}"))
    };
    for element in [opener, widget] {
        let text = own(element);
        if !text.is_empty() {
            return text;
        }
    }
    let mut current = opener.parent_element();
    for _ in 0..4 {
        let Some(ancestor) = current else { break };
        let text = own(&ancestor);
        if !text.is_empty() {
            return text;
        }
        current = ancestor.parent_element();
    }
    String::new()
}

/// Leaves the page as found after a failure: Escape to the focused element (or the opener),
/// then, if a list the click opened is still open, the opener clicked again.
async fn close_popup(root: &QueryRoot, opener: &Element, before: &[Element]) {
    let still_open =
        || is_expanded(opener) || visible_listboxes(root).iter().any(|l| !before.contains(l));
    if !still_open() {
        return;
    }
    let target = focused_in(root).unwrap_or_else(|| opener.clone());
    press_escape(&target);
    for _ in 0..3 {
        js::next_frame().await;
    }
    if !still_open() {
        return;
    }
    let click_root = root.clone();
    let target = opener.clone();
    let quick = ExecOptions { timeout_ms: 500 };
    let _ = click_found(&quick, Interior::Plain, &move || {
        Ok((click_root.clone(), target.clone()))
    })
    .await;
}

/// The deepest focused element, through open shadow roots.
fn focused_in(root: &QueryRoot) -> Option<Element> {
    let mut active = root.document.active_element()?;
    while let Some(inner) = root
        .shadow
        .shadow_root(&active)
        .and_then(|s| s.active_element())
    {
        active = inner;
    }
    Some(active)
}

/// keydown and keyup of Escape, bubbling and composed, as the page's key handlers expect.
fn press_escape(target: &Element) {
    for kind in ["keydown", "keyup"] {
        let init = KeyboardEventInit::new();
        js::put(&init, "key", &"Escape".into());
        js::put(&init, "code", &"Escape".into());
        for field in ["bubbles", "cancelable", "composed"] {
            js::put(&init, field, &JsValue::TRUE);
        }
        let _ = js_sys::Reflect::set(&init, &"keyCode".into(), &JsValue::from(27));
        let _ = js_sys::Reflect::set(&init, &"which".into(), &JsValue::from(27));
        if let Ok(event) = KeyboardEvent::new_with_keyboard_event_init_dict(kind, &init) {
            if js::get(&event, "keyCode").as_f64() != Some(27.0) {
                let descriptor = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&descriptor, &"value".into(), &JsValue::from(27));
                let _ = js_sys::Object::define_property(&event, &"keyCode".into(), &descriptor);
            }
            let _ = target.dispatch_event(&event);
        }
    }
}
