//! ARIA roles: the explicit `role` attribute wins, else the implicit role of the HTML element
//! (HTML-AAM, the subset in `dom-actions.md`), plus which roles take their name from content.

use web_sys::Element;

use super::js;
use super::tree::as_shadow_root;

/// Every ARIA 1.2 role name the role engine accepts (plus the `none`/`presentation` synonyms).
pub const KNOWN_ROLES: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "code",
    "columnheader",
    "combobox",
    "complementary",
    "contentinfo",
    "definition",
    "deletion",
    "dialog",
    "directory",
    "document",
    "emphasis",
    "feed",
    "figure",
    "form",
    "generic",
    "grid",
    "gridcell",
    "group",
    "heading",
    "img",
    "insertion",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "mark",
    "marquee",
    "math",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "meter",
    "navigation",
    "none",
    "note",
    "option",
    "paragraph",
    "presentation",
    "progressbar",
    "radio",
    "radiogroup",
    "region",
    "row",
    "rowgroup",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "strong",
    "subscript",
    "superscript",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "term",
    "textbox",
    "time",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
];

/// Roles whose accessible name is computed from their content. Not caption, code, deletion,
/// emphasis, insertion, strong, subscript or superscript (ARIA 1.2 prohibits naming them) nor
/// time (named by its author only): Chromium gives them no name from content; their text still
/// counts inside another element's name.
const NAME_FROM_CONTENT: &[&str] = &[
    "button",
    "cell",
    "checkbox",
    "columnheader",
    "gridcell",
    "heading",
    "link",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "row",
    "rowheader",
    "switch",
    "tab",
    "tooltip",
    "treeitem",
    // Not in ARIA 1.2's list, but both browsers name a <dfn>/<dt> from its text.
    "term",
    "sectionhead",
];

/// The element's role: the first known token of `role`, else its implicit role. `none` and
/// `presentation` are ignored on an element a user can focus or that carries a global ARIA
/// attribute (ARIA's presentational-role conflict resolution): it keeps its implicit role.
pub fn role_of(element: &Element) -> Option<String> {
    if let Some(explicit) = js::attribute(element, "role") {
        for token in explicit.split_whitespace() {
            let token = token.to_ascii_lowercase();
            if KNOWN_ROLES.contains(&token.as_str()) {
                if matches!(token.as_str(), "none" | "presentation")
                    && presentation_conflicts(element)
                {
                    return implicit_role(element).map(str::to_owned);
                }
                // A region or form needs a name: without one both browsers skip the token (to
                // the next one, else the element's own role; Firefox keeps `region` over a
                // native role, Chromium does not). An author's name only: a form control named
                // by its `<label>` or text keeps its own role (Chromium; Firefox: region), so
                // `<select role=region>` is judged as the select it is (a field: its options
                // count, its name at the verb position), and named by `aria-label` as a region
                // (a command: its name anywhere), the more careful of the two.
                if matches!(token.as_str(), "region" | "form") && !has_author_name(element) {
                    continue;
                }
                return Some(token);
            }
        }
    }
    implicit_role(element).map(str::to_owned)
}

/// ARIA attributes allowed on every element: one of them makes `role=none` ineffective.
const GLOBAL_ARIA_ATTRIBUTES: &[&str] = &[
    "aria-atomic",
    "aria-busy",
    "aria-controls",
    "aria-current",
    "aria-describedby",
    "aria-details",
    "aria-dropeffect",
    "aria-flowto",
    "aria-grabbed",
    "aria-keyshortcuts",
    "aria-label",
    "aria-labelledby",
    "aria-live",
    "aria-owns",
    "aria-relevant",
    "aria-roledescription",
];

/// Whether a presentational role must be ignored: the element is focusable or has a global
/// ARIA attribute.
fn presentation_conflicts(element: &Element) -> bool {
    is_focusable(element)
        || GLOBAL_ARIA_ATTRIBUTES
            .iter()
            .any(|attr| js::has_attribute(element, attr))
}

/// Focusable by the user: natively (links, enabled form controls, `<summary>`, iframes,
/// editing hosts) or by `tabindex`.
fn is_focusable(element: &Element) -> bool {
    if js::attribute(element, "tabindex")
        .is_some_and(|t| crate::protocol::json::parse_i32(t.trim()).is_some())
    {
        return true;
    }
    let tag = element.local_name();
    match tag.as_str() {
        "a" | "area" => js::has_attribute(element, "href"),
        "button" | "select" | "textarea" => !js::has_attribute(element, "disabled"),
        "input" => {
            !js::has_attribute(element, "disabled")
                && !js::attribute(element, "type").is_some_and(|t| t.eq_ignore_ascii_case("hidden"))
        }
        "summary" | "iframe" => true,
        _ => js::attribute(element, "contenteditable")
            .is_some_and(|v| !v.eq_ignore_ascii_case("false")),
    }
}

/// Whether the element has an author-given name (a non-blank `aria-label` or `title`, or an
/// `aria-labelledby` naming an element with text): what makes a `<section>` a region or an
/// `<aside>` inside a section a landmark. Text content does not count.
fn has_author_name(element: &Element) -> bool {
    let non_blank =
        |attr: &'static str| js::attribute(element, attr).is_some_and(|v| !v.trim().is_empty());
    if non_blank("aria-label") || non_blank("title") {
        return true;
    }
    let Some(ids) = js::attribute(element, "aria-labelledby") else {
        return false;
    };
    let Some(document) = element.owner_document() else {
        return false;
    };
    let root = element.get_root_node();
    ids.split_whitespace().any(|id| {
        let target = match as_shadow_root(&root) {
            Some(shadow) => shadow.get_element_by_id(id),
            None => document.get_element_by_id(id),
        };
        target.is_some_and(|t| {
            t.text_content().is_some_and(|text| !text.trim().is_empty())
                || js::attribute(&t, "aria-label").is_some_and(|v| !v.trim().is_empty())
        })
    })
}

/// Whether `role` takes its accessible name from the element's content.
pub fn allows_name_from_content(role: &str) -> bool {
    NAME_FROM_CONTENT.contains(&role)
}

/// Every element name [`implicit_role_for`] may give `role` (a superset: the exact role still
/// depends on attributes and ancestors). Elements with none of these names and no `role`
/// attribute never have `role`, so an engine tests them with one selector match and nothing
/// else. Keep in step with [`implicit_role_for`] and [`input_role`].
pub fn implicit_tags(role: &str) -> &'static [&'static str] {
    match role {
        "link" => &["a", "area"],
        "group" => &["address", "hgroup", "details", "fieldset", "optgroup"],
        "article" => &["article"],
        "complementary" => &["aside"],
        "blockquote" => &["blockquote"],
        "button" => &["button", "input", "summary"],
        "caption" => &["caption"],
        "code" => &["code"],
        "listbox" => &["datalist", "select"],
        "deletion" => &["del", "s"],
        "dialog" => &["dialog"],
        "definition" => &["dd"],
        "term" => &["dfn", "dt"],
        "emphasis" => &["em"],
        "figure" => &["figure"],
        "contentinfo" => &["footer"],
        "form" => &["form"],
        "heading" => &["h1", "h2", "h3", "h4", "h5", "h6"],
        "banner" => &["header"],
        "separator" => &["hr"],
        "img" | "presentation" | "none" => &["img"],
        "checkbox" | "radio" | "slider" | "spinbutton" | "searchbox" => &["input"],
        "textbox" => &["input", "textarea"],
        "combobox" => &["input", "select"],
        "insertion" => &["ins"],
        "listitem" => &["li"],
        "main" => &["main"],
        "mark" => &["mark"],
        "math" => &["math"],
        "list" => &["menu", "ol", "ul"],
        "meter" => &["meter"],
        "navigation" => &["nav"],
        "option" => &["option"],
        "status" => &["output"],
        "paragraph" => &["p"],
        "progressbar" => &["progress"],
        "search" => &["search"],
        "region" => &["section"],
        "strong" => &["strong"],
        "subscript" => &["sub"],
        "superscript" => &["sup"],
        "table" => &["table"],
        "rowgroup" => &["tbody", "thead", "tfoot"],
        "cell" | "gridcell" => &["td"],
        "rowheader" | "columnheader" => &["th"],
        "time" => &["time"],
        "row" => &["tr"],
        "graphics-document" => &["svg"],
        _ => &[],
    }
}

/// A CSS selector for every element that may have `role`: a `role` attribute or one of
/// [`implicit_tags`].
pub fn role_candidates_css(role: &str) -> String {
    let mut css = "[role]".to_owned();
    for tag in implicit_tags(role) {
        css.push_str(", ");
        css.push_str(tag);
    }
    css
}

/// The implicit ARIA role of an HTML element.
pub fn implicit_role(element: &Element) -> Option<&'static str> {
    implicit_role_for(element, &element.local_name())
}

/// [`implicit_role`] of an element whose local name the caller already read.
pub fn implicit_role_for(element: &Element, tag: &str) -> Option<&'static str> {
    let has = |attr: &'static str| js::has_attribute(element, attr);
    Some(match tag {
        "a" | "area" if has("href") => "link",
        // An anchor without `href` that handles a click is a link in both browsers' trees
        // (they see any click listener; a handler attribute is what the markup shows).
        "a" if has("onclick") || has("onmousedown") || has("onmouseup") => "link",
        "address" | "hgroup" => "group",
        "article" => "article",
        // An <aside> inside a section or article is a landmark only when it is named.
        "aside" if !in_sectioning(element, &ASIDE_SCOPES) || has_author_name(element) => {
            "complementary"
        }
        "blockquote" => "blockquote",
        "button" => "button",
        "caption" => "caption",
        "code" => "code",
        "datalist" => "listbox",
        "del" | "s" => "deletion",
        "details" => "group",
        "dialog" => "dialog",
        "dd" => "definition",
        "dfn" | "dt" => "term",
        "em" => "emphasis",
        "fieldset" | "optgroup" => "group",
        "figure" => "figure",
        "footer" if !in_sectioning(element, &HEADER_SCOPES) => "contentinfo",
        // Every form is a `form`, named or not: html-aria#402, WPT html-aam/roles.html and both
        // browsers' own trees agree (only its landmark status needs a name). Playwright's
        // `getByRole('form')` still requires a name; we follow the browser.
        "form" => "form",
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "heading",
        "header" if !in_sectioning(element, &HEADER_SCOPES) => "banner",
        "hr" => "separator",
        "img" => {
            // `alt=""` marks a decorative image, unless it is named by ARIA, has a `title`
            // (even a blank one: both browsers' trees keep the image) or is focusable.
            let decorative = js::attribute(element, "alt").is_some_and(|a| a.is_empty())
                && js::attribute(element, "title").is_none_or(|v| v.is_empty())
                && js::attribute(element, "aria-label").is_none_or(|v| v.trim().is_empty())
                && !has("aria-labelledby")
                && !presentation_conflicts(element);
            if decorative { "presentation" } else { "img" }
        }
        "input" => return input_role(element),
        "ins" => "insertion",
        "li" if in_list(element) => "listitem",
        "main" => "main",
        "mark" => "mark",
        "math" => "math",
        "menu" | "ol" | "ul" => "list",
        "meter" => "meter",
        "nav" => "navigation",
        "option" => "option",
        "output" => "status",
        "p" => "paragraph",
        "progress" => "progressbar",
        "search" => "search",
        "section" if has_author_name(element) => "region",
        "select" => {
            let size = js::attribute(element, "size").and_then(|s| s.parse::<u32>().ok());
            if has("multiple") || size.is_some_and(|s| s > 1) {
                "listbox"
            } else {
                "combobox"
            }
        }
        "strong" => "strong",
        "sub" => "subscript",
        "sup" => "superscript",
        "summary" if is_details_summary(element) => "button",
        "table" => "table",
        // The rows and cells of a presentational table are presentational too (ARIA's
        // required-owned-elements inheritance; Chromium's tree agrees).
        "tbody" | "thead" | "tfoot" | "td" | "th" | "tr" if in_presentational_table(element) => {
            return None;
        }
        "tbody" | "thead" | "tfoot" => "rowgroup",
        "td" => {
            if in_grid(element) {
                "gridcell"
            } else {
                "cell"
            }
        }
        "textarea" => "textbox",
        "th" => header_role(element),
        "time" => "time",
        "tr" => "row",
        "svg" => "graphics-document",
        _ => return None,
    })
}

fn input_role(element: &Element) -> Option<&'static str> {
    let input_type = js::attribute(element, "type")
        .unwrap_or_default()
        .to_ascii_lowercase();
    // `list` makes a text field a combobox only when it names a <datalist> (the `list` IDL
    // attribute is null otherwise: html-aam, and Chromium's tree).
    let has_list = js::has_attribute(element, "list") && {
        let list = js::get(element, "list");
        !list.is_null() && !list.is_undefined()
    };
    Some(match input_type.as_str() {
        // A file picker is a button in both browsers' trees (and Playwright's roles).
        "button" | "submit" | "reset" | "image" | "file" => "button",
        "checkbox" => "checkbox",
        "radio" => "radio",
        "range" => "slider",
        "number" => "spinbutton",
        "search" if !has_list => "searchbox",
        // `list` does not apply to a password field (HTML): it stays a field.
        "password" => "textbox",
        "hidden" | "color" | "date" | "datetime-local" | "month" | "time" | "week" => {
            return None;
        }
        // Password fields have no ARIA role; we call them textboxes so a tester's
        // `role=textbox name=Password` finds them (Playwright does the same).
        _ if has_list => "combobox",
        _ => "textbox",
    })
}

/// A `<th>`'s role: its `scope`, else a header in `<thead>` or in a row of headers is a column
/// header, and one in a row that also has data cells is a row header (what browsers do for
/// the usual row-leading `<th>`).
fn header_role(element: &Element) -> &'static str {
    match js::attribute(element, "scope")
        .map(|s| s.to_ascii_lowercase())
        .as_deref()
    {
        Some("row" | "rowgroup") => return "rowheader",
        Some("col" | "colgroup") => return "columnheader",
        _ => {}
    }
    let Some(row) = element.parent_element() else {
        return "columnheader";
    };
    if row
        .parent_element()
        .is_some_and(|group| group.local_name() == "thead")
    {
        return "columnheader";
    }
    let mut cell = row.first_element_child();
    while let Some(current) = cell {
        if current.local_name() == "td"
            && current
                .text_content()
                .is_some_and(|text| !text.trim().is_empty())
        {
            return "rowheader";
        }
        cell = current.next_element_sibling();
    }
    "columnheader"
}

/// Whether a `<td>` belongs to a table with the `grid` or `treegrid` role.
pub(super) fn in_grid(element: &Element) -> bool {
    element
        .closest("table")
        .ok()
        .flatten()
        .and_then(|table| js::attribute(&table, "role"))
        .is_some_and(|role| {
            role.split_whitespace()
                .next()
                .is_some_and(|r| r == "grid" || r == "treegrid")
        })
}

/// Whether an `<li>` is in a list (`<ul>`, `<ol>`, `<menu>` or a `list` role); an orphan
/// `<li>` has no role.
fn in_list(element: &Element) -> bool {
    element.parent_element().is_some_and(|parent| {
        matches!(parent.local_name().as_str(), "ul" | "ol" | "menu")
            || js::attribute(&parent, "role")
                .is_some_and(|r| r.split_whitespace().next() == Some("list"))
    })
}

/// Whether a `<summary>` is the first `<summary>` child of a `<details>` (the one that opens
/// it): only that one is a button.
fn is_details_summary(element: &Element) -> bool {
    let Some(parent) = element.parent_element() else {
        return false;
    };
    if parent.local_name() != "details" {
        return false;
    }
    let mut child = parent.first_element_child();
    while let Some(current) = child {
        if current.local_name() == "summary" {
            return &current == element;
        }
        child = current.next_element_sibling();
    }
    false
}

/// What ends a `<header>`'s or `<footer>`'s landmark role (html-aam): sectioning elements,
/// `<main>`, and the roles they map to.
const HEADER_SCOPES: Scopes = Scopes {
    tags: &["article", "aside", "main", "nav", "section"],
    roles: &["article", "complementary", "main", "navigation", "region"],
};

/// What ends an `<aside>`'s landmark role when it has no name (html-aam): sectioning content
/// and the roles it maps to, but not `<main>` (an aside in main is complementary).
const ASIDE_SCOPES: Scopes = Scopes {
    tags: &["article", "aside", "nav", "section"],
    roles: &["article", "complementary", "navigation", "region"],
};

struct Scopes {
    tags: &'static [&'static str],
    roles: &'static [&'static str],
}

/// Whether an ancestor of `element` is one of `scopes`' elements, or has one of its roles as
/// an explicit `role`.
fn in_sectioning(element: &Element, scopes: &Scopes) -> bool {
    let mut current = element.parent_element();
    while let Some(ancestor) = current {
        if scopes.tags.contains(&ancestor.local_name().as_str()) {
            return true;
        }
        if js::attribute(&ancestor, "role").is_some_and(|role| {
            role.split_whitespace()
                .next()
                .is_some_and(|r| scopes.roles.contains(&r.to_ascii_lowercase().as_str()))
        }) {
            return true;
        }
        current = ancestor.parent_element();
    }
    false
}

/// Whether a table part belongs to a table whose role is `none` or `presentation` (and that
/// role holds: the table is not focusable and has no global ARIA attribute).
fn in_presentational_table(element: &Element) -> bool {
    element
        .closest("table")
        .ok()
        .flatten()
        .filter(|table| js::has_attribute(table, "role"))
        .and_then(|table| role_of(&table))
        .is_some_and(|role| role == "none" || role == "presentation")
}

/// Whether the element is a text field a user types into.
pub fn is_text_control(element: &Element) -> bool {
    if element.local_name() == "textarea" {
        return true;
    }
    element.local_name() == "input"
        && matches!(
            js::attribute(element, "type")
                .unwrap_or_default()
                .to_ascii_lowercase()
                .as_str(),
            "" | "text" | "email" | "tel" | "url" | "search" | "password" | "number"
        )
}
