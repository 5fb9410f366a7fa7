//! Keys in custom lists, menus, trees and grids (ARIA widgets), for the safety review. Their
//! own key handlers move and choose the active option, so a key there is judged by what it may
//! choose:
//! - Enter or Space chooses the active option (the `aria-activedescendant` target, else the
//!   focused option itself): judged as a click on it, with what is around it.
//! - Arrows, Home, End, PageUp and PageDown move the active option somewhere BAI cannot
//!   predict: every option of the list (and of the lists a combobox controls or owns) is a
//!   candidate, and the policy asks (`unknown_choice`) when any of them reads as risky. A search
//!   box suggesting "Shoes" and "Shirts" runs; one offering "Delete account" asks.
//! - Tab leaves the widget, and many choose the active option as it does (react-select's
//!   `tabSelectsValue`, Downshift's selection on blur): judged as Enter when an option other
//!   than the focused element is active; with none active it chooses nothing.
//! - Escape closes a list or menu and so cancels its choice: not judged here.
//!
//! On a secret list (a PIN picked option by option) which option is active is the secret:
//! such a key always asks, whatever is active.

use wasm_bindgen::JsCast;
use web_sys::Element;

use super::{MAX_REST_CHARS, around, facts_of, is_link, link_address};
use crate::dom::accname::{accessible_name, accessible_name_in_runs};
use crate::dom::js;
use crate::dom::roles::role_of;
use crate::dom::secret::{is_secret_choice, is_secret_or_inside};
use crate::dom::tree::{
    ShadowAccess, as_element, children, composed_contains, composed_parent, element_by_id_near,
};
use crate::policy::TargetFacts;
use crate::protocol::action::Key;

/// Most options judged one by one; the rest are read together ([`MAX_REST_CHARS`]).
const MAX_OPTIONS: usize = 200;
/// Most elements looked at inside the lists; a larger one asks.
const MAX_VISITED: usize = 10_000;
/// Most ancestors walked up from the key's target.
const MAX_DEPTH: usize = 64;

/// Roles of widgets whose key handlers move an active option.
const WIDGET_ROLES: &[&str] = &[
    "combobox",
    "listbox",
    "menu",
    "menubar",
    "tree",
    "treegrid",
    "grid",
    "radiogroup",
];

/// Roles of the options such a widget chooses among.
const OPTION_ROLES: &[&str] = &[
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "treeitem",
    "gridcell",
    "radio",
];

/// Adds to `facts` what `key` on `target` may choose in a custom widget. A native `<select>` or
/// radio button is left to `key_choice`, which computes the option exactly.
pub(super) fn widget_key_facts(key: Key, target: &Element, facts: &mut TargetFacts) {
    let moves = key.moves_in_a_list();
    let native = target.local_name() == "select"
        || (target.local_name() == "input"
            && js::attribute(target, "type").is_some_and(|t| t.eq_ignore_ascii_case("radio")));
    if native || !(moves || matches!(key, Key::Enter | Key::Space | Key::Tab)) {
        return;
    }
    let Some((widget, focused_option)) = widget_of(target) else {
        return;
    };
    let options = options_of(target, &widget);
    let secret = is_secret_or_inside(target)
        || is_secret_or_inside(&widget)
        || options
            .as_ref()
            .is_some_and(|options| options.iter().any(is_secret_choice));
    if secret {
        facts.chooses = true;
        facts.option_unknown = true;
        return;
    }
    if !moves {
        match active_option(target, &widget) {
            Some(active) if active != *target => {
                facts.also_activates.push(facts_of(&active));
                match around(&active, &active) {
                    Some(also) => facts.also_activates.extend(also),
                    // Fail closed, as for what a press activates.
                    None => facts.option_unknown = true,
                }
                // Tab is no press of the target itself (the policy judges what it activates
                // only for a press): it is judged as the choice it makes.
                facts.chooses |= facts.option_unknown || key == Key::Tab;
                return;
            }
            // The focused option itself: judged as what the key presses.
            Some(_) => return,
            None if focused_option.is_some() => return,
            // Tab with no active option moves the focus and chooses nothing.
            None if key == Key::Tab => return,
            None => {}
        }
    }
    facts.chooses = true;
    let Some(options) = options else {
        facts.option_unknown = true;
        return;
    };
    let (own, rest) = options.split_at(options.len().min(MAX_OPTIONS));
    facts.may_choose = own.iter().map(option_facts).collect();
    if !rest.is_empty() {
        // A long list (250 countries): the rest are read together, so none of their words goes
        // unjudged; past what is read, the key asks.
        // The list is not secret (checked above), and this text is only judged, never shown.
        let texts: Vec<String> = rest.iter().filter_map(|o| o.text_content()).collect();
        let text = crate::protocol::join::join(
            &crate::protocol::join::join(&texts, " ")
                .split_whitespace()
                .collect::<Vec<_>>(),
            " ",
        );
        facts.option_unknown |= text.chars().count() > MAX_REST_CHARS;
        facts.may_choose.push(TargetFacts {
            description: format!("{} more options", rest.len()),
            text,
            ..TargetFacts::default()
        });
    }
}

/// What a click on `option`, an option of a list that is not secret, is judged by: its name,
/// text, role and where it goes. [`facts_of`] less the description (never shown for these) and
/// the secret checks (done for the whole list), which cost too much for hundreds of options.
fn option_facts(option: &Element) -> TargetFacts {
    let text = option.text_content().unwrap_or_default();
    let words: Vec<&str> = text.split_whitespace().collect();
    let link = is_link(option);
    let name = accessible_name(option);
    // Its name read in runs too (the words markup glues: "keep" + a "delete" shown apart).
    let mut runs: Vec<String> =
        crate::policy::runs::glued_runs(&accessible_name_in_runs(option), &name)
            .into_iter()
            .collect();
    // And as drawn (`dom::drawn_text`: reversed, reordered or unseen letters), whole.
    let drawn = crate::dom::secret::drawn_text_skipping_secret_fields(option).text;
    if !drawn.trim().is_empty() && !drawn.split_whitespace().eq(name.split_whitespace()) {
        runs.push(drawn);
    }
    TargetFacts {
        name,
        runs,
        text: crate::protocol::join::join(&words, " ")
            .chars()
            .take(200)
            .collect(),
        role: role_of(option).unwrap_or_default(),
        destination: if link { link_address(option) } else { None },
        downloads: link && option.has_attribute("download"),
        ..TargetFacts::default()
    }
}

/// The widget around `target` (itself included) and the option the walk passed on the way,
/// if any. An option outside any widget role counts its parent as its list.
fn widget_of(target: &Element) -> Option<(Element, Option<Element>)> {
    let mut option: Option<Element> = None;
    let mut current = Some(target.clone());
    for _ in 0..MAX_DEPTH {
        let Some(element) = current else {
            break;
        };
        let role = role_of(&element).unwrap_or_default();
        if crate::words!(WIDGET_ROLES).contains(&role) {
            return Some((element, option));
        }
        if option.is_none() && crate::words!(OPTION_ROLES).contains(&role) {
            option = Some(element.clone());
        }
        current = composed_parent(&element);
    }
    let list = composed_parent(option.as_ref()?)?;
    Some((list, option))
}

/// The option `aria-activedescendant` (attribute or element reflection) names on `target` or
/// an element between it and `widget`.
fn active_option(target: &Element, widget: &Element) -> Option<Element> {
    let mut current = Some(target.clone());
    for _ in 0..MAX_DEPTH {
        let element = current?;
        if let Some(active) = referenced(
            &element,
            "aria-activedescendant",
            "ariaActiveDescendantElement",
        )
        .into_iter()
        .next()
        {
            return Some(active);
        }
        if element == *widget {
            return None;
        }
        current = composed_parent(&element);
    }
    None
}

/// The elements `attribute` names by id, and those its element reflection `property` holds (a
/// script can set them without the attribute).
fn referenced(element: &Element, attribute: &'static str, property: &str) -> Vec<Element> {
    let mut found: Vec<Element> = js::attribute(element, attribute)
        .unwrap_or_default()
        .split_ascii_whitespace()
        .take(16)
        .filter_map(|id| element_by_id_near(element, id))
        .collect();
    let value = js::get(element, property);
    if let Some(one) = as_element(&value) {
        found.push(one.clone());
    } else if value.is_object() {
        let length = js::get(&value, "length").as_f64().unwrap_or(0.0) as u32;
        found.extend(
            (0..length.min(16))
                .filter_map(|i| as_element(&js::get(&value, &i.to_string())).cloned()),
        );
    }
    found
}

/// The options of `widget` and of the lists it or `target` controls or owns, in tree order, shadow
/// roots included; `None` when there are too many to judge.
fn options_of(target: &Element, widget: &Element) -> Option<Vec<Element>> {
    let mut roots = vec![widget.clone()];
    for holder in [target, widget] {
        roots.extend(referenced(holder, "aria-controls", "ariaControlsElements"));
        roots.extend(referenced(holder, "aria-owns", "ariaOwnsElements"));
    }
    let shadow = ShadowAccess::detect();
    let mut options: Vec<Element> = Vec::new();
    let mut visited = 0;
    let mut walked: Vec<Element> = Vec::new();
    for root in roots {
        // A list both controlled and owned, or inside the widget, is walked once.
        if walked.iter().any(|done| composed_contains(done, &root)) {
            continue;
        }
        walked.push(root.clone());
        let mut stack: Vec<web_sys::Node> = vec![root.into()];
        while let Some(node) = stack.pop() {
            visited += 1;
            if visited > MAX_VISITED {
                return None;
            }
            let Some(element) = node.dyn_ref::<Element>() else {
                continue;
            };
            let role = role_of(element).unwrap_or_default();
            if crate::words!(OPTION_ROLES).contains(&role) {
                options.push(element.clone());
            }
            if let Some(root) = shadow.shadow_root(element) {
                stack.extend(children(root.as_ref()).into_iter().rev());
            }
            stack.extend(children(element.as_ref()).into_iter().rev());
        }
    }
    Some(options)
}
