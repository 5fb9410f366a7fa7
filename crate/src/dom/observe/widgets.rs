//! What observe needs to know about custom widgets that their roles alone do not say: the
//! current value of a custom combobox or listbox, clickable elements with a name but no role
//! (calendar days), native selects hidden behind an enhanced widget, and the options of a list
//! that is closed.

use web_sys::Element;

use crate::dom::accname::accessible_name_with;
use crate::dom::js;
use crate::dom::matching::normalize_whitespace;
use crate::dom::roles::role_of;
use crate::dom::tree::{QueryRoot, element_by_id_near};
use crate::dom::visibility::{computed_style, is_visible};
use crate::protocol::join::join;

/// Roles of a container whose name is what a clickable element inside it stands for (a
/// calendar's `gridcell "12 March"` around a bare `<div onclick>12</div>`).
const NAMING_CONTAINER_ROLES: &[&str] = &["gridcell", "cell", "row", "listitem", "treeitem"];

/// Per observation: the lists that are closed now and the enhanced selects, found once.
pub(crate) struct Widgets {
    /// Listboxes (and menus) a combobox or popup button says are collapsed
    /// (`aria-expanded="false"` with `aria-controls` / `aria-owns`).
    closed_lists: Vec<Element>,
    /// Native selects hidden behind the custom widget that stands for them.
    enhanced: Vec<Enhanced>,
}

/// A native `<select>` a script hid and replaced by a custom widget next to it.
struct Enhanced {
    select: Element,
    widget: Element,
    /// The select's own name (its `<label>`), what the widget is listed under.
    name: String,
}

impl Widgets {
    /// Finds the closed lists and the enhanced selects of the page.
    pub(crate) fn of(root: &QueryRoot, elements: &[Element]) -> Self {
        let mut closed_lists = Vec::new();
        let mut enhanced = Vec::new();
        for element in elements {
            let tag = element.local_name();
            if tag == "select" {
                if let Some(found) = enhanced_select(root, element) {
                    enhanced.push(found);
                }
                continue;
            }
            if !element.has_attributes()
                || element.get_attribute("aria-expanded").as_deref() != Some("false")
            {
                continue;
            }
            for attr in ["aria-controls", "aria-owns"] {
                let Some(ids) = element.get_attribute(attr) else {
                    continue;
                };
                for id in ids.split_whitespace() {
                    if let Some(list) = element_by_id_near(element, id) {
                        closed_lists.push(list);
                    }
                }
            }
        }
        Self {
            closed_lists,
            enhanced,
        }
    }

    /// Whether `element` (an option, or anything in a list) belongs to a list that is closed:
    /// its popup says so, or the list has no area or is fully transparent.
    pub(crate) fn in_closed_list(&self, element: &Element) -> bool {
        let Some(list) = element
            .closest("[role=listbox], [role=menu], [role=tree], [role=grid], datalist")
            .ok()
            .flatten()
        else {
            return false;
        };
        if self.closed_lists.iter().any(|closed| closed == &list) {
            return true;
        }
        let rect = list.get_bounding_client_rect();
        if rect.width() <= 0.0 || rect.height() <= 0.0 {
            // An option can keep a box of its own inside a list collapsed to nothing.
            let overflow = computed_style(&list)
                .and_then(|s| s.get_property_value("overflow").ok())
                .unwrap_or_default();
            if overflow.contains("hidden") || overflow.contains("clip") {
                return true;
            }
        }
        computed_style(&list)
            .and_then(|s| s.get_property_value("opacity").ok())
            .is_some_and(|o| o == "0")
    }

    /// Whether `element` is a native select hidden behind an enhanced widget (listed through
    /// the widget instead).
    pub(crate) fn is_replaced_select(&self, element: &Element) -> bool {
        self.enhanced.iter().any(|e| &e.select == element)
    }

    /// For the widget of an enhanced select: the select's name, and its chosen options.
    pub(crate) fn stands_for(&self, element: &Element) -> Option<(String, Element)> {
        self.enhanced
            .iter()
            .find(|e| &e.widget == element)
            .map(|e| (e.name.clone(), e.select.clone()))
    }
}

/// A select is "enhanced" when it is hidden from the user (display:none, aria-hidden, or
/// visually: transparent, a box of a pixel or less, clipped away) and a visible combobox or
/// popup button sits beside it in the same wrapper (Select2, Chosen, bootstrap-select, MUI
/// and the like put the two side by side).
fn enhanced_select(root: &QueryRoot, select: &Element) -> Option<Enhanced> {
    if !is_hidden_from_user(select) {
        return None;
    }
    let name = accessible_name_with(&root.shadow, select);
    let mut scope = select.parent_element();
    // The select's parent, then one level up: some libraries wrap the widget in its own div.
    for _ in 0..2 {
        let container = scope?;
        let widgets = container
            .query_selector_all(
                "[role=combobox], [aria-haspopup=listbox], [aria-haspopup=true], button[aria-expanded]",
            )
            .ok()?;
        for i in 0..widgets.length() {
            let Some(node) = widgets.item(i) else {
                continue;
            };
            let Some(widget) = crate::dom::tree::as_element(&node) else {
                continue;
            };
            if widget != select && widget.local_name() != "select" && is_visible(widget) {
                return Some(Enhanced {
                    select: select.clone(),
                    widget: widget.clone(),
                    name,
                });
            }
        }
        scope = container.parent_element();
    }
    None
}

/// Hidden from the user though perhaps still rendered: not visible, aria-hidden, transparent,
/// a box of a pixel or less, or clipped to nothing.
fn is_hidden_from_user(element: &Element) -> bool {
    if !is_visible(element) || crate::dom::visibility::is_aria_hidden(element) {
        return true;
    }
    let rect = element.get_bounding_client_rect();
    if rect.width() <= 1.0 || rect.height() <= 1.0 {
        return true;
    }
    let Some(style) = computed_style(element) else {
        return false;
    };
    let property = |name: &str| style.get_property_value(name).unwrap_or_default();
    property("opacity") == "0"
        || property("clip").starts_with("rect(0")
        || property("clip-path").starts_with("inset(50%")
}

/// Roles a clickable element may have and still be listed through [`clickable_role`]: none,
/// or a cell, row or item role a widget library put on its clickable parts.
const CLICKABLE_ROLES: &[&str] = &["gridcell", "cell", "row", "listitem", "treeitem", "generic"];

/// The role under which a clickable element without a listed role is listed (`role`: its
/// role, already computed): a button or link whose role a library changed (MUI's calendar
/// days are `<button role="gridcell">`), or an element clickable by its markup that is named
/// by `aria-label` / `aria-labelledby` (a calendar day `<div aria-label="12 March" onclick>`)
/// or sits in a labelled cell, row or item. Listed under its role (`gridcell`), else as
/// `clickable`.
pub(crate) fn clickable_role(element: &Element, tag: &str, role: Option<&str>) -> Option<String> {
    if role.is_some_and(|r| !CLICKABLE_ROLES.contains(&r)) || !element.has_attributes() {
        return None;
    }
    let listed = || Some(role.unwrap_or("clickable").to_owned());
    if tag == "button" || (tag == "a" && element.has_attribute("href")) {
        return listed();
    }
    let named = ["aria-label", "aria-labelledby"].iter().any(|attr| {
        element
            .get_attribute(attr)
            .is_some_and(|v| !v.trim().is_empty())
    });
    let scripted = element.has_attribute("onclick") || element.has_attribute("tabindex");
    if named && (scripted || has_own_pointer_cursor(element)) {
        return listed();
    }
    if scripted && named_container(element).is_some() {
        return listed();
    }
    None
}

/// The pointer cursor a page sets on what it makes clickable (on the element itself: the
/// cursor is inherited, so a parent that sets it does not count).
fn has_own_pointer_cursor(element: &Element) -> bool {
    let cursor = |e: &Element| {
        computed_style(e)
            .and_then(|s| s.get_property_value("cursor").ok())
            .is_some_and(|c| c == "pointer")
    };
    cursor(element)
        && !element
            .parent_element()
            .is_some_and(|parent| cursor(&parent))
}

/// The nearest cell, row or item around `element` that has an `aria-label`: its label names
/// the element (a bare clickable inside a labelled grid cell).
pub(crate) fn named_container(element: &Element) -> Option<String> {
    let mut current = element.parent_element();
    for _ in 0..3 {
        let container = current?;
        if role_of(&container).is_some_and(|r| NAMING_CONTAINER_ROLES.contains(&r.as_str())) {
            return container
                .get_attribute("aria-label")
                .map(|l| normalize_whitespace(&l))
                .filter(|l| !l.is_empty());
        }
        current = container.parent_element();
    }
    None
}

/// The current value of a custom combobox or listbox (not a native `<select>` or `<input>`,
/// whose values observe reads directly), as Playwright's snapshot shows it: the selected
/// options of the list it controls, else the text it displays, else its active descendant.
/// Raw text: the caller formats (and redacts) it like every other value.
pub(crate) fn custom_value(root: &QueryRoot, element: &Element, name: &str) -> Option<String> {
    let tag = element.local_name();
    if matches!(tag.as_str(), "select" | "input" | "textarea") {
        return None;
    }
    let role = role_of(element);
    if role.as_deref() == Some("listbox") {
        let selected = selected_option_names(root, element);
        return (!selected.is_empty()).then(|| join(&selected, ", "));
    }
    for attr in ["aria-controls", "aria-owns"] {
        let Some(ids) = element.get_attribute(attr) else {
            continue;
        };
        for id in ids.split_whitespace() {
            if let Some(list) = element_by_id_near(element, id) {
                let selected = selected_option_names(root, &list);
                if !selected.is_empty() {
                    return Some(join(&selected, ", "));
                }
            }
        }
    }
    // The text the widget shows (a closed select's button shows the chosen option), unless
    // that text is all of its name (then it is a label, not a value). A widget named by its
    // label and its own text (`aria-labelledby="label self"`) keeps the text as its value.
    let shown = normalize_whitespace(&js::get_string(element, "innerText").unwrap_or_default());
    if !shown.is_empty() {
        return (shown != name).then_some(shown);
    }
    let active = element.get_attribute("aria-activedescendant")?;
    let active = element_by_id_near(element, &active)?;
    let text = accessible_name_with(&root.shadow, &active);
    (!text.is_empty()).then_some(text)
}

/// The names of the options marked `aria-selected="true"` (or `aria-checked`) in a list.
fn selected_option_names(root: &QueryRoot, list: &Element) -> Vec<String> {
    let Ok(options) = list
        .query_selector_all("[role=option][aria-selected=true], [role=option][aria-checked=true]")
    else {
        return Vec::new();
    };
    (0..options.length())
        .filter_map(|i| options.item(i))
        .filter_map(|node| crate::dom::tree::as_element(&node).cloned())
        .map(|option| accessible_name_with(&root.shadow, &option))
        .filter(|name| !name.is_empty())
        .collect()
}
