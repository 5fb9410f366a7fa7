//! ARIA roles: the explicit `role` attribute wins, else the implicit role of the HTML element
//! (HTML-AAM, the subset in `dom-actions.md`), plus which roles take their name from content.

use web_sys::Element;

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

/// Roles whose accessible name is computed from their content.
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
    "caption",
    "code",
    "deletion",
    "emphasis",
    "insertion",
    "strong",
    "subscript",
    "superscript",
    "term",
    "time",
    "sectionhead",
];

/// The element's role: the first known token of `role`, else its implicit role.
pub fn role_of(element: &Element) -> Option<String> {
    if let Some(explicit) = element.get_attribute("role") {
        for token in explicit.split_whitespace() {
            let token = token.to_ascii_lowercase();
            if KNOWN_ROLES.contains(&token.as_str()) {
                return Some(token);
            }
        }
    }
    implicit_role(element).map(str::to_owned)
}

/// Whether `role` takes its accessible name from the element's content.
pub fn allows_name_from_content(role: &str) -> bool {
    NAME_FROM_CONTENT.contains(&role)
}

/// The implicit ARIA role of an HTML element.
pub fn implicit_role(element: &Element) -> Option<&'static str> {
    let tag = element.local_name();
    let has = |attr: &str| element.has_attribute(attr);
    let named = || has("aria-label") || has("aria-labelledby") || has("title");
    Some(match tag.as_str() {
        "a" | "area" if has("href") => "link",
        "article" => "article",
        "aside" => "complementary",
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
        "footer" if !in_sectioning(element) => "contentinfo",
        "form" if named() => "form",
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "heading",
        "header" if !in_sectioning(element) => "banner",
        "hr" => "separator",
        "img" => {
            if element.get_attribute("alt").is_some_and(|a| a.is_empty()) && !named() {
                "presentation"
            } else {
                "img"
            }
        }
        "input" => return input_role(element),
        "ins" => "insertion",
        "li" => "listitem",
        "main" => "main",
        "math" => "math",
        "menu" | "ol" | "ul" => "list",
        "meter" => "meter",
        "nav" => "navigation",
        "option" => "option",
        "output" => "status",
        "p" => "paragraph",
        "progress" => "progressbar",
        "search" => "search",
        "section" if named() => "region",
        "select" => {
            let size = element
                .get_attribute("size")
                .and_then(|s| s.parse::<u32>().ok());
            if has("multiple") || size.is_some_and(|s| s > 1) {
                "listbox"
            } else {
                "combobox"
            }
        }
        "strong" => "strong",
        "sub" => "subscript",
        "sup" => "superscript",
        "summary" => "button",
        "table" => "table",
        "tbody" | "thead" | "tfoot" => "rowgroup",
        "td" => "cell",
        "textarea" => "textbox",
        "th" => {
            if element.get_attribute("scope").as_deref() == Some("row") {
                "rowheader"
            } else {
                "columnheader"
            }
        }
        "time" => "time",
        "tr" => "row",
        "svg" => "graphics-document",
        _ => return None,
    })
}

fn input_role(element: &Element) -> Option<&'static str> {
    let input_type = element
        .get_attribute("type")
        .unwrap_or_default()
        .to_ascii_lowercase();
    let has_list = element.has_attribute("list");
    Some(match input_type.as_str() {
        "button" | "submit" | "reset" | "image" => "button",
        "checkbox" => "checkbox",
        "radio" => "radio",
        "range" => "slider",
        "number" => "spinbutton",
        "search" if !has_list => "searchbox",
        "hidden" | "file" | "color" | "date" | "datetime-local" | "month" | "time" | "week" => {
            return None;
        }
        // Password fields have no ARIA role; we call them textboxes so a tester's
        // `role=textbox name=Password` finds them (Playwright does the same).
        _ if has_list => "combobox",
        _ => "textbox",
    })
}

fn in_sectioning(element: &Element) -> bool {
    let mut current = element.parent_element();
    while let Some(ancestor) = current {
        if matches!(
            ancestor.local_name().as_str(),
            "article" | "aside" | "main" | "nav" | "section"
        ) {
            return true;
        }
        current = ancestor.parent_element();
    }
    false
}

/// Whether the element is a text field a user types into.
pub fn is_text_control(element: &Element) -> bool {
    if element.local_name() == "textarea" {
        return true;
    }
    element.local_name() == "input"
        && matches!(
            element
                .get_attribute("type")
                .unwrap_or_default()
                .to_ascii_lowercase()
                .as_str(),
            "" | "text" | "email" | "tel" | "url" | "search" | "password" | "number"
        )
}
