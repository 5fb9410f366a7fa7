//! One pass over the page: the interactive, visible elements (and headings), each with its role,
//! accessible name, state and, when its role and name are not unique, a context.

use web_sys::Element;

use crate::dom::error::truncate_chars;
use crate::dom::js;
use crate::dom::matching::normalize_whitespace;
use crate::dom::redact::redact_secrets;
use crate::dom::refs::{Fingerprint, format_ref, ref_for};
use crate::dom::roles::role_of;
use crate::dom::secret::{SecretKind, SecretScan, ShownValue, is_radio_choice, shown_value};
use crate::dom::tree::{QueryRoot, composed_parent};
use crate::dom::visibility::{is_aria_hidden, is_disabled, is_visible};

use super::widgets::{Widgets, clickable_role, custom_value, named_container};
use crate::protocol::join::join;

/// Roles an element is listed for (the widget roles a model acts on, plus `heading` and a named
/// `grid` for context: a date picker's day grid is named by the month it shows, "June 2026",
/// which the model needs before it picks a day).
const LISTED_ROLES: &[&str] = &[
    "button",
    "link",
    "checkbox",
    "radio",
    "switch",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "combobox",
    "listbox",
    "textbox",
    "searchbox",
    "slider",
    "spinbutton",
    "treeitem",
    "heading",
    "grid",
];

/// Roles whose named ancestor tells two same-named elements apart.
const CONTAINER_ROLES: &[&str] = &[
    "dialog",
    "alertdialog",
    "form",
    "region",
    "navigation",
    "complementary",
    "search",
    "group",
    "radiogroup",
    "menu",
    "listbox",
    "tablist",
    "article",
];

/// Longest accessible name in a line, in characters.
const MAX_NAME_CHARS: usize = 80;
/// Longest value in a line, in characters.
const MAX_VALUE_CHARS: usize = 60;
/// Elements looked at, at most: an upper bound on the work on huge pages.
const MAX_SCANNED: usize = 5000;

/// One listed element.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    pub element: Element,
    pub number: u32,
    pub role: String,
    pub name: String,
    /// `value="…" required`..., already formatted (never a password value).
    pub states: Vec<String>,
    /// ` [in: "…"]` material, when the role and name are not unique.
    pub context: Option<String>,
}

impl Item {
    /// `@e3 button "Add to cart" [in: "Blue mug"]`.
    pub(crate) fn line(&self) -> String {
        // Pushed, not `format!`ed (here, in `state` and in `quote`): smaller wasm.
        let mut out = format_ref(self.number);
        out.push(' ');
        out.push_str(&self.role);
        if !self.name.is_empty() {
            out.push(' ');
            out.push_str(&quote(&truncate_chars(&self.name, MAX_NAME_CHARS)));
        }
        for state in &self.states {
            out.push(' ');
            out.push_str(state);
        }
        if let Some(context) = &self.context {
            out.push_str(" [in: ");
            out.push_str(&quote(&truncate_chars(context, MAX_NAME_CHARS)));
            out.push(']');
        }
        out
    }
}

/// `name=value`, one state of a line (pushed, not `format!`ed: smaller wasm).
fn state(name: &str, value: &str) -> String {
    let mut out = String::with_capacity(name.len() + 1 + value.len());
    out.push_str(name);
    out.push('=');
    out.push_str(value);
    out
}

/// `"text"` with `\` and `"` escaped.
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if matches!(c, '\\' | '"') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

struct Candidate {
    element: Element,
    role: String,
    name: String,
    heading: Option<String>,
    /// The native select an enhanced widget stands for.
    stands_for: Option<Element>,
}

/// Every listed element of the page, in document order, each registered with a ref.
pub(crate) fn snapshot(root: &QueryRoot) -> Vec<Item> {
    let active = deepest_active(root);
    let scan = SecretScan::of(root);
    let mut candidates = Vec::new();
    let mut last_heading: Option<String> = None;
    let elements: Vec<Element> = root.all_elements().into_iter().take(MAX_SCANNED).collect();
    let widgets = Widgets::of(root, &elements);
    for element in elements {
        let Some(role) = listed_role(&element) else {
            continue;
        };
        if !is_visible(&element) || is_aria_hidden(&element) || in_own_ui(&element) {
            continue;
        }
        if widgets.is_replaced_select(&element)
            || (matches!(role.as_str(), "option" | "treeitem" | "menuitem")
                && widgets.in_closed_list(&element))
        {
            continue;
        }
        let stands_for = widgets.stands_for(&element);
        // Withheld (empty) when the name may carry a secret field's value.
        let mut name = scan.safe_name(&root.shadow, &element).unwrap_or_default();
        if let Some((label, _)) = &stands_for {
            // Listed once, under the label of the select it replaces.
            if !label.is_empty() {
                name = label.clone();
            }
        }
        if role == "grid" {
            // Listed only for its name (context); an unnamed grid says nothing.
            if name.is_empty() {
                continue;
            }
        } else if name.is_empty() && role != "heading" && !scan.name_may_include_secret(&element) {
            name = named_container(&element).unwrap_or_default();
        }
        let heading = if role == "heading" {
            last_heading = (!name.is_empty()).then(|| name.clone());
            None
        } else {
            last_heading.clone()
        };
        candidates.push(Candidate {
            element,
            role,
            name,
            heading,
            stands_for: stands_for.map(|(_, select)| select),
        });
    }

    // Role and name pairs seen more than once: the candidates sorted by their pair (each entry
    // ends in its position, so all differ and the small heap sort does), then every run of two
    // or more equal pairs marked. No map: the executor's wasm then carries no BTreeMap (nor hash
    // table) instantiation for it.
    let mut pairs: Vec<(&str, &str, usize)> = candidates
        .iter()
        .enumerate()
        .map(|(position, c)| (c.role.as_str(), c.name.as_str(), position))
        .collect();
    crate::protocol::small_sort::heap_sort(&mut pairs);
    let mut duplicated = vec![false; candidates.len()];
    for two in pairs.windows(2) {
        if let [(role, name, first), (next_role, next_name, second)] = two {
            if role == next_role && name == next_name {
                for position in [first, second] {
                    if let Some(mark) = duplicated.get_mut(*position) {
                        *mark = true;
                    }
                }
            }
        }
    }
    drop(pairs);
    candidates
        .into_iter()
        .zip(duplicated)
        .map(|(c, duplicated)| {
            let context = if duplicated && c.role != "heading" {
                c.heading
                    .clone()
                    .or_else(|| container_name(root, &scan, &c.element))
            } else {
                None
            };
            let states = states_of(
                root,
                &scan,
                &c.element,
                &c.role,
                &c.name,
                c.stands_for.as_ref(),
                active.as_ref(),
            );
            let fingerprint = Fingerprint {
                tag: c.element.local_name(),
                role: role_of(&c.element).unwrap_or_default(),
                name: c.name.clone(),
                attributes: format!(
                    "{}/{}",
                    c.element.get_attribute("type").unwrap_or_default(),
                    c.element.get_attribute("name").unwrap_or_default()
                ),
            };
            let number = ref_for(&c.element, fingerprint);
            Item {
                element: c.element,
                number,
                role: c.role,
                name: c.name,
                states,
                context,
            }
        })
        .collect()
}

/// The role an element is listed under, or `None` when it is not listed.
fn listed_role(element: &Element) -> Option<String> {
    let tag = element.local_name();
    if tag == "option" && element.closest("select, datalist").ok().flatten().is_some() {
        // A native drop-down's options are summarized by the select's `selected=`.
        return None;
    }
    let role = role_of(element);
    if let Some(role) = &role {
        if LISTED_ROLES.contains(&role.as_str()) {
            return Some(role.clone());
        }
    }
    if tag == "input" {
        // Inputs without an ARIA role (date, color, file...) are listed by their type.
        let input_type = element
            .get_attribute("type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        if input_type != "hidden" && !input_type.is_empty() {
            return Some(input_type);
        }
    }
    if is_editing_host(element) {
        return Some("textbox".to_owned());
    }
    clickable_role(element, &tag, role.as_deref())
}

/// A contenteditable element whose parent is not editable (the editor, not each paragraph).
fn is_editing_host(element: &Element) -> bool {
    if !js::get_bool(element, "isContentEditable").unwrap_or(false) {
        return false;
    }
    !composed_parent(element)
        .is_some_and(|p| js::get_bool(&p, "isContentEditable").unwrap_or(false))
}

/// Whether the element belongs to the extension's own in-page UI (`<bai-banner>`...).
fn in_own_ui(element: &Element) -> bool {
    let mut current = Some(element.clone());
    while let Some(el) = current {
        if el.local_name().starts_with("bai-") {
            return true;
        }
        current = composed_parent(&el);
    }
    false
}

/// The nearest named dialog, form, landmark or group around `element`.
fn container_name(root: &QueryRoot, scan: &SecretScan, element: &Element) -> Option<String> {
    let mut current = composed_parent(element);
    while let Some(el) = current {
        let is_container = role_of(&el).is_some_and(|r| CONTAINER_ROLES.contains(&r.as_str()))
            || el.local_name() == "form";
        if is_container {
            let name = scan.safe_name(&root.shadow, &el).unwrap_or_default();
            if !name.is_empty() {
                return Some(name);
            }
        }
        current = composed_parent(&el);
    }
    None
}

/// The focused element, through shadow roots.
fn deepest_active(root: &QueryRoot) -> Option<Element> {
    let mut active = root.document.active_element()?;
    for _ in 0..32 {
        match root
            .shadow
            .shadow_root(&active)
            .and_then(|r| r.active_element())
        {
            Some(inner) if inner != active => active = inner,
            _ => break,
        }
    }
    Some(active)
}

/// Whether the element is an `<input type=password>`.
pub(crate) fn is_password(element: &Element) -> bool {
    element.local_name() == "input"
        && element
            .get_attribute("type")
            .is_some_and(|t| t.eq_ignore_ascii_case("password"))
}

/// The checked state: native `checked` (mixed when indeterminate) or `aria-checked`.
fn checked_of(element: &Element) -> Option<&'static str> {
    let tag = element.local_name();
    if tag == "input" {
        let input_type = element
            .get_attribute("type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        if input_type == "checkbox" || input_type == "radio" {
            if js::get_bool(element, "indeterminate").unwrap_or(false) {
                return Some("mixed");
            }
            return Some(if js::get_bool(element, "checked").unwrap_or(false) {
                "true"
            } else {
                "false"
            });
        }
    }
    match element.get_attribute("aria-checked").as_deref() {
        Some("true") => Some("true"),
        Some("mixed") => Some("mixed"),
        Some(_) => Some("false"),
        None => None,
    }
}

/// The labels of a `<select>`'s selected options.
pub(crate) fn selected_labels(element: &Element) -> Vec<String> {
    let options = js::get(element, "selectedOptions");
    let length = js::get(&options, "length").as_f64().unwrap_or(0.0) as u32;
    (0..length)
        .map(|i| {
            let option = js::get(&options, &i.to_string());
            normalize_whitespace(&js::get_string(&option, "label").unwrap_or_default())
        })
        .collect()
}

fn is_value_field(element: &Element, role: &str) -> bool {
    match element.local_name().as_str() {
        "textarea" => true,
        "input" => !matches!(
            element
                .get_attribute("type")
                .unwrap_or_default()
                .to_ascii_lowercase()
                .as_str(),
            "checkbox" | "radio" | "button" | "submit" | "reset" | "image" | "file" | "hidden"
        ),
        _ => matches!(role, "textbox" | "searchbox") && is_editing_host(element),
    }
}

/// The states of a listed element. `stands_for`: the native select an enhanced widget
/// replaces (its choice is the widget's value).
fn states_of(
    root: &QueryRoot,
    scan: &SecretScan,
    element: &Element,
    role: &str,
    name: &str,
    stands_for: Option<&Element>,
    active: Option<&Element>,
) -> Vec<String> {
    let mut states = Vec::new();
    let tag = element.local_name();
    if role == "heading" {
        let level = element
            .get_attribute("aria-level")
            .or_else(|| tag.strip_prefix('h').map(str::to_owned))
            .filter(|l| l.parse::<u8>().is_ok());
        if let Some(level) = level {
            states.push(state("level", &level));
        }
        return states;
    }
    let secret = scan.owner_of(element);
    // A secret field already says `value=<hidden>` (no `secret=` kind means a password), so
    // `type=password` is only written for a password input the scan does not hold as secret.
    if secret.is_none() && is_password(element) {
        states.push("type=password".to_owned());
    }
    let secret_choice = secret.is_some() && is_radio_choice(element);
    if let Some((_, kind)) = secret {
        // Filled or empty alike: whether a secret field is empty is a bit of the secret. A
        // secret group's radio button hides whether it is the one checked.
        let what = if tag == "select" {
            "selected"
        } else if secret_choice {
            "checked"
        } else {
            "value"
        };
        states.push(state(what, "<hidden>"));
        if kind != SecretKind::Password {
            states.push(state("secret", &quote(kind.label())));
        }
    } else if tag == "select" {
        let labels = selected_labels(element);
        if !labels.is_empty() {
            states.push(state(
                "selected",
                &quote(&truncate_chars(
                    &redact_secrets(&join(&labels, ", ")),
                    MAX_VALUE_CHARS,
                )),
            ));
        }
    } else if is_value_field(element, role) {
        let shown = shown_value(scan, element, || {
            if tag == "input" || tag == "textarea" {
                js::get_string(element, "value").unwrap_or_default()
            } else {
                normalize_whitespace(&js::get_string(element, "innerText").unwrap_or_default())
            }
        });
        if let ShownValue::Text(value) = shown {
            if !value.is_empty() {
                states.push(state(
                    "value",
                    &quote(&truncate_chars(&value, MAX_VALUE_CHARS)),
                ));
            }
        }
    } else if let Some((_, kind)) = stands_for.and_then(|select| scan.owner_of(select)) {
        // A widget standing for a secret select shows no more than the select would.
        states.push("value=<hidden>".to_owned());
        states.push(state("secret", &quote(kind.label())));
    } else if let Some(select) = stands_for {
        let labels = selected_labels(select);
        if !labels.is_empty() {
            states.push(state(
                "value",
                &quote(&truncate_chars(
                    &redact_secrets(&join(&labels, ", ")),
                    MAX_VALUE_CHARS,
                )),
            ));
        }
    } else if matches!(role, "combobox" | "listbox") {
        if let Some(value) = custom_value(root, element, name) {
            states.push(state(
                "value",
                &quote(&truncate_chars(&redact_secrets(&value), MAX_VALUE_CHARS)),
            ));
        }
    } else if matches!(role, "slider" | "spinbutton") {
        let value = element
            .get_attribute("aria-valuetext")
            .or_else(|| element.get_attribute("aria-valuenow"));
        if let Some(value) = value {
            states.push(state(
                "value",
                &quote(&truncate_chars(&value, MAX_VALUE_CHARS)),
            ));
        }
    }
    if !secret_choice
        && matches!(
            role,
            "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio"
        )
    {
        if let Some(checked) = checked_of(element) {
            states.push(state("checked", checked));
        }
    }
    // Which option of a secret list is chosen is the secret (the list shows `value=<hidden>`).
    if matches!(role, "option" | "tab" | "treeitem")
        && element.get_attribute("aria-selected").as_deref() == Some("true")
        && scan.owner_of(element).is_none()
    {
        states.push("selected".to_owned());
    }
    let expanded = if tag == "summary" {
        element
            .parent_element()
            .filter(|p| p.local_name() == "details")
            .map(|p| {
                if p.has_attribute("open") {
                    "true"
                } else {
                    "false"
                }
            })
    } else {
        match element.get_attribute("aria-expanded").as_deref() {
            Some("true") => Some("true"),
            Some(_) => Some("false"),
            None => None,
        }
    };
    if let Some(expanded) = expanded {
        states.push(state("expanded", expanded));
    }
    if is_disabled(element) {
        states.push("disabled".to_owned());
    }
    let required = (matches!(tag.as_str(), "input" | "select" | "textarea")
        && element.has_attribute("required"))
        || element.get_attribute("aria-required").as_deref() == Some("true");
    if required {
        states.push("required".to_owned());
    }
    if matches!(tag.as_str(), "input" | "textarea") && element.has_attribute("readonly") {
        states.push("readonly".to_owned());
    }
    // (A secret group's buttons: focus lands on the checked one when tabbing in.)
    if active == Some(element) && !secret_choice {
        states.push("focused".to_owned());
    }
    states
}
