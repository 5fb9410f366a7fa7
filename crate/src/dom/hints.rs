//! Failure hints: after a selector did not find (exactly) the right element, up to three
//! observation lines of the elements closest to what it asked for, with refs registered so the
//! model can act on one by ref next.
//!
//! Closeness: the selector's words (its value, and the `name` of a role selector; for CSS the
//! identifiers in it; for a stale ref the name it was issued for) are compared with each listed
//! element's accessible name, `id`, `name`, `placeholder`, `data-testid` and text, lower-cased and
//! reduced to letters and digits: equal scores 1, containment 0.7 to 1, otherwise one minus the
//! edit distance over the longer length. The best field counts; elements under 0.5 are dropped.
//! When the action or selector implies a role (a role selector, `check` → checkbox / radio /
//! switch, `select_option` → combobox / listbox, `input_text` → text fields), elements with that
//! role come first; for `not_checkable`, `unsupported_element` and `option_not_found` only those
//! roles are suggested. For `ambiguous`, the matches themselves are listed (first three). Ties
//! keep document order. Lines never carry a secret field's value (see [`super::secret`]).

use web_sys::Element;

use super::error::ActionError;
use super::matching::normalize_whitespace;
use super::observe::{Item, snapshot};
use super::refs::{parse_ref, recorded};
use super::secret::visible_text_without_secrets;
use super::selector::query_all_checked;
use super::tree::QueryRoot;
use crate::protocol::{Action, Selector, SelectorKind};

/// Most hints returned.
const MAX_HINTS: usize = 3;
/// Least similarity for a hint.
const MIN_SCORE: f64 = 0.5;

/// Up to three observation lines that may be what the failed `action` meant (empty for errors
/// a different element would not cure).
pub fn hints_for_failure(action: &Action, error: &ActionError) -> Vec<String> {
    let code = error.code();
    if !matches!(
        code,
        "not_found"
            | "ambiguous"
            | "stale_ref"
            | "option_not_found"
            | "not_checkable"
            | "unsupported_element"
    ) {
        return Vec::new();
    }
    let Some(selector) = action.selector() else {
        return Vec::new();
    };
    let Some(root) = QueryRoot::current() else {
        return Vec::new();
    };
    let items = snapshot(&root);

    if code == "ambiguous" {
        if let Ok(matches) = query_all_checked(&root, selector) {
            let lines: Vec<String> = matches
                .iter()
                .filter_map(|m| items.iter().find(|i| &i.element == m))
                .take(MAX_HINTS)
                .map(Item::line)
                .collect();
            if !lines.is_empty() {
                return lines;
            }
        }
    }

    let (queries, selector_role) = queries_of(selector);
    let mut roles: Vec<String> = selector_role.into_iter().collect();
    roles.extend(action_roles(action).iter().map(|r| (*r).to_owned()));
    let strict = matches!(
        code,
        "not_checkable" | "unsupported_element" | "option_not_found"
    ) && !roles.is_empty();

    // Role matches first, then the higher score, then page order, as one key of plain
    // integers: the same key type as Tab's order (`press_key`), so the wasm holds one copy of
    // the sort for both. A score is at least MIN_SCORE, so positive, and a positive f64's bits
    // order as its value does.
    let mut scored: Vec<(u64, u64, usize)> = items
        .iter()
        .enumerate()
        .filter_map(|(position, item)| {
            let role_match = roles.contains(&item.role);
            if strict && !role_match {
                return None;
            }
            let score = best_score(&queries, item);
            (score >= MIN_SCORE).then_some((
                u64::from(!role_match),
                u64::MAX - score.to_bits(),
                position,
            ))
        })
        .collect();
    // Each entry ends in its position, so all differ: the small heap sort gives `sort`'s order.
    crate::protocol::small_sort::heap_sort(&mut scored);
    scored
        .into_iter()
        .take(MAX_HINTS)
        .filter_map(|(_, _, position)| items.get(position).map(Item::line))
        .collect()
}

/// The words to look for, and the role the selector names (if any).
fn queries_of(selector: &Selector) -> (Vec<String>, Option<String>) {
    let mut queries = Vec::new();
    let mut role = None;
    match selector.kind {
        SelectorKind::Role => {
            role = Some(selector.value.trim().to_ascii_lowercase());
            if let Some(name) = &selector.name {
                queries.push(name.clone());
            }
        }
        SelectorKind::Ref => {
            if let Some(was) = parse_ref(&selector.value).and_then(recorded) {
                queries.push(was.name);
                if !was.role.is_empty() {
                    role = Some(was.role);
                }
            }
        }
        SelectorKind::Css | SelectorKind::Xpath => {
            // `#submitt-btn`, `input[name=emial]`: the identifiers, whole and split.
            for word in selector
                .value
                .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
                .filter(|w| w.chars().count() >= 3 && !is_css_noise(w))
            {
                queries.push(word.to_owned());
            }
            if let Some(name) = &selector.name {
                queries.push(name.clone());
            }
        }
        _ => {
            queries.push(selector.value.clone());
            if let Some(name) = &selector.name {
                queries.push(name.clone());
            }
        }
    }
    (queries, role)
}

/// Tag and attribute names that say nothing about which element was meant.
fn is_css_noise(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "input"
            | "button"
            | "div"
            | "span"
            | "form"
            | "select"
            | "textarea"
            | "label"
            | "type"
            | "name"
            | "class"
            | "data-testid"
            | "aria-label"
            | "placeholder"
            | "role"
            | "text"
            | "contains"
            | "normalize-space"
            | "not"
            | "nth-child"
            | "first-child"
            | "last-child"
    )
}

/// Roles the action implies.
fn action_roles(action: &Action) -> &'static [&'static str] {
    match action {
        Action::Check { .. } | Action::Uncheck { .. } => &[
            "checkbox",
            "radio",
            "switch",
            "menuitemcheckbox",
            "menuitemradio",
        ],
        Action::SelectOption { .. } => &["combobox", "listbox"],
        Action::InputText { .. } => &["textbox", "searchbox", "combobox", "spinbutton"],
        _ => &[],
    }
}

fn best_score(queries: &[String], item: &Item) -> f64 {
    let fields = fields_of(&item.element, &item.name);
    let mut best: f64 = 0.0;
    for query in queries {
        let query = simplify(query);
        if query.is_empty() {
            continue;
        }
        for field in &fields {
            best = best.max(similarity(&query, field));
        }
    }
    best
}

/// The element's identifying strings, simplified (never a field's value).
fn fields_of(element: &Element, name: &str) -> Vec<String> {
    let mut fields = vec![simplify(name)];
    for attr in ["id", "name", "placeholder", "data-testid"] {
        if let Some(value) = element.get_attribute(attr) {
            fields.push(simplify(&value));
        }
    }
    if !matches!(
        element.local_name().as_str(),
        "input" | "textarea" | "select"
    ) {
        let text = visible_text_without_secrets(element);
        let text: String = normalize_whitespace(&text).chars().take(100).collect();
        fields.push(simplify(&text));
    }
    fields.retain(|f| !f.is_empty());
    fields
}

/// Lower case, letters and digits only, words separated by one space.
fn simplify(text: &str) -> String {
    let mapped: String = text
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_lowercase().next().unwrap_or(c)
            } else {
                ' '
            }
        })
        .collect();
    normalize_whitespace(&mapped)
}

/// 0 to 1: how alike two simplified strings are.
fn similarity(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    let (la, lb) = (a.chars().count(), b.chars().count());
    let (short, long) = if la <= lb { (la, lb) } else { (lb, la) };
    if long == 0 {
        return 0.0;
    }
    let contained = short >= 3 && (a.contains(b) || b.contains(a));
    let containment = if contained {
        0.7 + 0.3 * short as f64 / long as f64
    } else {
        0.0
    };
    let edit = 1.0 - levenshtein(a, b) as f64 / long as f64;
    containment.max(edit)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        if let Some(first) = current.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            let deletion = previous.get(j + 1).map_or(usize::MAX, |v| v + 1);
            let insertion = current.get(j).map_or(usize::MAX, |v| v + 1);
            let substitution = previous.get(j).map_or(usize::MAX, |v| v + cost);
            if let Some(cell) = current.get_mut(j + 1) {
                *cell = deletion.min(insertion).min(substitution);
            }
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous.last().copied().unwrap_or(0)
}
