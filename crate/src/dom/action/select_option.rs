//! `select_option`: choose an option of a `<select>`, or of an ARIA listbox / combobox.
//!
//! Native `<select>` (a `<label>` stands for its control): the option whose value equals the
//! text, else whose trimmed label equals it, else whose label equals it ignoring case. It is
//! selected through the DOM (`selected = true`; a multiple select keeps only it), then `input`
//! and `change` are dispatched, bubbling, as a user's choice does (React and Vue listen to
//! those), and the selection is read back.
//!
//! ARIA (`role=listbox`, or `role=combobox` that controls a listbox): a collapsed combobox
//! (`aria-expanded` not `true`) is clicked open first; the listbox is the one named by
//! `aria-controls` / `aria-owns`, else the first visible `role=listbox` on the page. Its
//! `role=option` descendants are matched by `data-value` / `value` attribute, then accessible
//! name (exact, then ignoring case), and the option is clicked through the click path.
//! Typing to filter a combobox is not done: use `input_text` first when the list only shows
//! matches.
//!
//! A missing option is `option_not_found` (listing up to 10 labels); a disabled one `disabled`.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlOptionElement, HtmlSelectElement};

use super::click::click_found;
use super::input_text::dispatch_plain;
use super::{check_actionable, find, focus, retry, scroll_into_view};
use crate::dom::accname::accessible_name_with;
use crate::dom::describe::describe;
use crate::dom::error::ActionError;
use crate::dom::matching::normalize_whitespace;
use crate::dom::report::{ActionReport, Effect, ExecOptions};
use crate::dom::roles::role_of;
use crate::dom::selector::QueryRoot;
use crate::dom::tree::{as_element, element_by_id_near};
use crate::dom::visibility::{is_disabled, is_visible};
use crate::protocol::Selector;

enum Target {
    Native(HtmlSelectElement),
    Listbox(Element),
    Combobox(Element),
}

pub(super) async fn run(
    selector: &Selector,
    option: &str,
    options: &ExecOptions,
) -> Result<ActionReport, ActionError> {
    let ((root, element, target), mut attempts) =
        retry(options, |attempt| async move { prepare(selector, attempt) }).await?;
    let description = describe(&element);
    let mut effects = Vec::new();
    match target {
        Target::Native(select) => effects.push(choose_native(&select, option)?),
        Target::Listbox(listbox) => {
            let (effect, more) = click_option(&root, &listbox, option, options).await?;
            attempts += more;
            effects.push(effect);
        }
        Target::Combobox(combobox) => {
            if combobox.get_attribute("aria-expanded").as_deref() != Some("true") {
                let opener = combobox.clone();
                let opener_root = root.clone();
                let (_, _, more) =
                    click_found(options, move || Ok((opener_root.clone(), opener.clone()))).await?;
                attempts += more;
            }
            let (listbox, more) = retry(options, |_| {
                let combobox = combobox.clone();
                async move { listbox_of(&combobox) }
            })
            .await?;
            attempts += more;
            let (effect, more) = click_option(&root, &listbox, option, options).await?;
            attempts += more;
            effects.push(effect);
        }
    }
    Ok(ActionReport {
        action: "select_option",
        element: Some(description),
        effects,
        attempts,
        elapsed_ms: 0,
        data: None,
    })
}

fn prepare(selector: &Selector, attempt: u32) -> Result<(QueryRoot, Element, Target), ActionError> {
    let (root, found) = find(selector)?;
    let element = super::label_control_or_self(found);
    let target = if element.local_name() == "select" {
        Target::Native(element.clone().unchecked_into())
    } else {
        match role_of(&element).as_deref() {
            Some("listbox") => Target::Listbox(element.clone()),
            Some("combobox") => Target::Combobox(element.clone()),
            _ => {
                return Err(ActionError::UnsupportedElement {
                    element: describe(&element),
                    hint: "select_option works on a <select>, a role=listbox or a role=combobox; click the option instead, or target the drop-down itself".to_owned(),
                });
            }
        }
    };
    check_actionable(&element)?;
    scroll_into_view(&element, attempt);
    Ok((root, element, target))
}

/// Chooses an option of a native `<select>` by value, exact label or label ignoring case (also
/// used by `input_text` on a `<select>`).
pub(super) fn choose_native(
    select: &HtmlSelectElement,
    wanted: &str,
) -> Result<Effect, ActionError> {
    let element: &Element = select.as_ref();
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
        .or_else(|| all.iter().find(|o| label(o).to_lowercase() == lower));
    let Some(option) = chosen else {
        return Err(ActionError::OptionNotFound {
            element: describe(element),
            option: wanted.to_owned(),
            available: all
                .iter()
                .take(ActionError::MAX_LISTED_OPTIONS)
                .map(label)
                .collect(),
            total: all.len(),
        });
    };
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

/// The visible listbox a combobox controls.
fn listbox_of(combobox: &Element) -> Result<Element, ActionError> {
    for attr in ["aria-controls", "aria-owns"] {
        for id in combobox
            .get_attribute(attr)
            .unwrap_or_default()
            .split_whitespace()
        {
            if let Some(listbox) = element_by_id_near(combobox, id) {
                if is_visible(&listbox) {
                    return Ok(listbox);
                }
            }
        }
    }
    let document = combobox
        .owner_document()
        .ok_or_else(|| ActionError::Detached {
            element: describe(combobox),
        })?;
    if let Ok(list) = document.query_selector_all("[role=listbox]") {
        for i in 0..list.length() {
            if let Some(listbox) = list.item(i).as_ref().and_then(|n| as_element(n)) {
                if is_visible(listbox) {
                    return Ok(listbox.clone());
                }
            }
        }
    }
    Err(ActionError::NotVisible {
        element: format!("the list of options of {}", describe(combobox)),
    })
}

/// Finds the option in `listbox` and clicks it.
async fn click_option(
    root: &QueryRoot,
    listbox: &Element,
    wanted: &str,
    options: &ExecOptions,
) -> Result<(Effect, u32), ActionError> {
    let mut all: Vec<Element> = Vec::new();
    if let Ok(list) = listbox.query_selector_all("[role=option]") {
        for i in 0..list.length() {
            if let Some(option) = list.item(i).as_ref().and_then(|n| as_element(n)) {
                all.push(option.clone());
            }
        }
    }
    for id in listbox
        .get_attribute("aria-owns")
        .unwrap_or_default()
        .split_whitespace()
    {
        if let Some(owned) = element_by_id_near(listbox, id) {
            if role_of(&owned).as_deref() == Some("option") {
                all.push(owned);
            }
        }
    }
    let names: Vec<String> = all
        .iter()
        .map(|o| accessible_name_with(&root.shadow, o))
        .collect();
    let trimmed = normalize_whitespace(wanted);
    let lower = trimmed.to_lowercase();
    let value_of = |o: &Element| {
        o.get_attribute("data-value")
            .or_else(|| o.get_attribute("value"))
    };
    let position = all
        .iter()
        .position(|o| value_of(o).as_deref() == Some(wanted))
        .or_else(|| names.iter().position(|n| *n == trimmed))
        .or_else(|| names.iter().position(|n| n.to_lowercase() == lower));
    let Some(option) = position.and_then(|p| all.get(p)).cloned() else {
        return Err(ActionError::OptionNotFound {
            element: describe(listbox),
            option: wanted.to_owned(),
            available: names
                .iter()
                .take(ActionError::MAX_LISTED_OPTIONS)
                .cloned()
                .collect(),
            total: names.len(),
        });
    };
    if is_disabled(&option) {
        return Err(ActionError::Disabled {
            element: describe(&option),
        });
    }
    let label = position
        .and_then(|p| names.get(p))
        .cloned()
        .unwrap_or_default();
    let root = root.clone();
    let target = option.clone();
    let (_, _, attempts) = click_found(options, move || Ok((root.clone(), target.clone()))).await?;
    Ok((
        Effect::OptionSelected {
            value: value_of(&option).unwrap_or(label),
        },
        attempts,
    ))
}
