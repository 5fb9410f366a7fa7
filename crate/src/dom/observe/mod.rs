//! `observe`: the page as a short list the model can act on, one line per element, each with a
//! ref (`@e3`) the `ref` selector resolves.
//!
//! Listed: visible links, buttons, form fields, selects, elements with a widget role (button,
//! link, checkbox, radio, switch, tab, menuitem(checkbox|radio), option, combobox, listbox,
//! textbox, searchbox, slider, spinbutton, treeitem), contenteditable editors, `<summary>`, and
//! headings (for context; they get refs too, for `extract` and `assert`). Hidden and
//! `aria-hidden` elements, the options of native drop-downs (see `selected=`) and the
//! extension's own UI are left out. Custom widgets (see `widgets.rs`): an element with no
//! listed role that is clickable (`onclick`, `tabindex`, its own pointer cursor) and named by
//! `aria-label` / `aria-labelledby` or by the labelled cell, row or item around it is listed as
//! `clickable` (or under its role, e.g. `gridcell`); a native `<select>` hidden behind an
//! enhanced widget is not listed, the widget is, under the select's label, with the select's
//! choice; options of a list that is closed now (its popup says `aria-expanded="false"`, or the
//! list has no area or is transparent) are left out. The walk covers open shadow roots (closed ones where the
//! extension may open them) and same-origin iframes.
//!
//! Order: document order (shadow content right after its host, frame content right after its
//! iframe). The first `max_elements` are listed; `more` counts the rest. Every element found
//! gets a ref, listed or not, so numbering follows the page, not the budget.
//!
//! Line format: `@eN role "name" state… [in: "context"]`, e.g.
//! `@e3 button "Add to cart" [in: "Blue mug"]`, `@e4 textbox "Email" value="ann@x.io" required`,
//! `@e5 checkbox "I agree" checked=false`, `@e6 textbox "Password" value=<hidden>`,
//! `@e1 heading "Checkout" level=1`. States, in this order when present: `level=N`,
//! `value=<hidden>` / `selected=<hidden>` / `checked=<hidden>` (a secret field or a radio
//! button of a secret group, see [`crate::dom::secret`]: filled or
//! empty, never the value) followed by `secret="card security code"` (its kind; none for a
//! password), `type=password` (only a password input not held as secret, which should not
//! happen), `selected="…"` (a select's chosen option),
//! `value="…"` (text fields, ≤ 60 characters, content-pattern secrets redacted; for a custom
//! combobox or listbox, its chosen option(s) or the text it shows),
//! `checked=true|false|mixed`, `selected` (an ARIA option, tab or tree item), `expanded=…`,
//! `disabled`, `required`, `readonly`, `focused`. The context is given only when another found
//! element has the same role and name: the nearest preceding heading, else the nearest named
//! dialog, form, landmark or group around it.

mod snapshot;
mod widgets;

use serde::Serialize;

pub(crate) use snapshot::{Item, selected_labels, snapshot};

use super::refs::{Lines, format_ref, swap_last_lines};
use super::tree::QueryRoot;
use crate::protocol::action::{OBSERVE_DEFAULT_ELEMENTS, OBSERVE_MAX_ELEMENTS};

/// What `observe` reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Observation {
    /// The page's URL.
    pub url: String,
    /// The page's title.
    pub title: String,
    /// One line per listed element, in document order.
    pub elements: Vec<String>,
    /// Elements found. Not sent: it is always `elements.len() + more`.
    #[serde(skip)]
    pub total: usize,
    /// Elements found but not listed (over the budget); sent only when some were left out.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// What changed since the previous observation of this document.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct ObservationDiff {
    /// Lines of elements that were not there before, in document order.
    pub added: Vec<String>,
    /// Refs of elements that are gone (removed or hidden), in ref order.
    pub removed: Vec<String>,
    /// New lines of elements whose line changed (value, state, name...), in document order.
    pub changed: Vec<String>,
    /// Entries left out to stay within the budget; sent only when some were.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
}

impl Observation {
    /// The observation's fields as JSON, what `serde_json::to_value` of the derived `Serialize`
    /// gives (keys sorted when written), written by hand so the executor's wasm carries no serde
    /// serializer and builds no `Value` for it (`browser_json_out` checks both agree).
    pub fn json_fields(&self) -> crate::protocol::json_write::SortedObject {
        use crate::protocol::json_write;
        let mut object = json_write::SortedObject::new();
        object.string("url", &self.url);
        object.string("title", &self.title);
        let mut elements = String::new();
        json_write::list(&mut elements, &self.elements, |out, line| {
            json_write::string(out, line);
        });
        object.json("elements", elements);
        if self.more != 0 {
            object.number("more", self.more as u64);
        }
        object
    }

    /// The observation as JSON text (see [`Observation::json_fields`]).
    pub fn to_json_string(&self) -> String {
        self.json_fields().into_json()
    }
}

impl ObservationDiff {
    /// The diff as JSON text, byte for byte what `serde_json::to_string` of the derived
    /// `Serialize` writes (fields in declaration order), written by hand (`browser_json_out`
    /// checks both agree).
    pub fn to_json_string(&self) -> String {
        use crate::protocol::json_write;
        let strings = |out: &mut String, line: &String| json_write::string(out, line);
        let mut out = String::new();
        let mut object = json_write::Object::new(&mut out);
        object.list("added", &self.added, strings);
        object.list("removed", &self.removed, strings);
        object.list("changed", &self.changed, strings);
        if self.more != 0 {
            object.number("more", self.more as u64);
        }
        object.end();
        out
    }
}

/// The budget: `max_elements` clamped to 1..=[`OBSERVE_MAX_ELEMENTS`], 0 meaning the default.
fn budget(max_elements: u32) -> usize {
    let max = if max_elements == 0 {
        OBSERVE_DEFAULT_ELEMENTS
    } else {
        max_elements.min(OBSERVE_MAX_ELEMENTS)
    };
    max as usize
}

fn page_identity(root: &QueryRoot) -> (String, String) {
    let url = crate::dom::address::page_address(&root.document);
    (url, root.document.title())
}

/// Lists the page's interactive elements (at most `max_elements`; 0 means the default 60) and
/// makes this the baseline of the next [`observe_changes`].
pub fn observe(max_elements: u32) -> Observation {
    observe_listed(max_elements).0
}

/// [`observe`], with the listed elements and their ref numbers (a `screenshot` draws their
/// boxes, so the picture and the listing agree).
pub fn observe_listed(max_elements: u32) -> (Observation, Vec<(u32, web_sys::Element)>) {
    let Some(root) = QueryRoot::current() else {
        let empty = Observation {
            url: String::new(),
            title: String::new(),
            elements: Vec::new(),
            total: 0,
            more: 0,
        };
        return (empty, Vec::new());
    };
    let items = snapshot(&root);
    let lines: Vec<String> = items.iter().map(Item::line).collect();
    let mut by_number = Lines::default();
    for (item, line) in items.iter().zip(&lines) {
        by_number.insert(item.number, line.clone());
    }
    swap_last_lines(by_number);
    // The baseline is now the page after any key on a secret field: later changes are not
    // the page's reaction to it.
    CHANGES_WITHHELD.with(|w| w.set(false));
    let max = budget(max_elements);
    let total = lines.len();
    let (url, title) = page_identity(&root);
    let listed = items
        .into_iter()
        .take(max)
        .map(|item| (item.number, item.element))
        .collect();
    let observation = Observation {
        url,
        title,
        elements: lines.into_iter().take(max).collect(),
        total,
        more: total.saturating_sub(max),
    };
    (observation, listed)
}

thread_local! {
    /// Whether a key went to a secret field since the last observation: the page's reaction to
    /// it (a strength meter, a counter) can depend on what the field holds.
    static CHANGES_WITHHELD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The next [`observe_changes`] reports no change (it still makes the page as it is then the
/// new baseline): a key was pressed on a secret field, and what changed after it could tell
/// the secret's length or choice.
pub fn withhold_next_changes() {
    CHANGES_WITHHELD.with(|w| w.set(true));
}

/// Observes again and reports what changed since the previous observation of this document
/// (everything is `added` when there was none), then makes this the new baseline. At most
/// `max_elements` entries (0 means the default) across `added`, `changed` and `removed`, in that
/// order; `more` counts the rest.
pub fn observe_changes(max_elements: u32) -> ObservationDiff {
    let Some(root) = QueryRoot::current() else {
        return ObservationDiff::default();
    };
    let items = snapshot(&root);
    let now: Vec<(u32, String)> = items.iter().map(|i| (i.number, i.line())).collect();
    let mut lines = Lines::default();
    for (number, line) in &now {
        lines.insert(*number, line.clone());
    }
    let previous = swap_last_lines(lines.clone()).unwrap_or_default();
    if CHANGES_WITHHELD.with(|w| w.replace(false)) {
        return ObservationDiff::default();
    }
    diff(&previous, &now, &lines, budget(max_elements))
}

/// `present`: the lines of `now` by ref number.
fn diff(previous: &Lines, now: &[(u32, String)], present: &Lines, max: usize) -> ObservationDiff {
    let mut added = Vec::new();
    let mut changed = Vec::new();
    for (number, line) in now {
        match previous.get(*number) {
            None => added.push(line.clone()),
            Some(old) if old != line => changed.push(line.clone()),
            Some(_) => {}
        }
    }
    let removed: Vec<String> = previous
        .keys()
        .filter(|n| present.get(*n).is_none())
        .map(format_ref)
        .collect();
    let total = added.len() + changed.len() + removed.len();
    let mut left = max;
    let mut take = |list: Vec<String>| {
        let kept: Vec<String> = list.into_iter().take(left).collect();
        left -= kept.len();
        kept
    };
    let added = take(added);
    let changed = take(changed);
    let removed = take(removed);
    let listed = added.len() + changed.len() + removed.len();
    ObservationDiff {
        added,
        removed,
        changed,
        more: total - listed,
    }
}
