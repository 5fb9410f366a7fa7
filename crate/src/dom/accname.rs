//! The W3C accessible name computation (accname 1.2), in the order `dom-actions.md` gives:
//! hidden, aria-labelledby, embedded control, aria-label, host language label (labels, alt,
//! legend, caption, title then placeholder for fields), name from content (with CSS generated
//! content and shadow DOM slots), tooltip (`title`). The result is whitespace-normalized.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlSlotElement, Node};

use super::js;
use super::matching::normalize_whitespace;
use super::roles::{allows_name_from_content, role_of};
use super::tree::{
    ShadowAccess, as_element, as_tag, assigned_or_fallback, children, element_by_id_near,
};
use super::visibility::is_hidden_for_accessibility;

/// The accessible name of `element`.
pub fn accessible_name(element: &Element) -> String {
    accessible_name_with(&ShadowAccess::detect(), element)
}

/// The accessible name of `element`, opening shadow roots with `shadow`.
pub fn accessible_name_with(shadow: &ShadowAccess, element: &Element) -> String {
    let window = element.owner_document().and_then(|d| d.default_view());
    let mut computation = Computation {
        shadow,
        window,
        root: element.clone(),
        visited: Vec::new(),
    };
    let flags = Flags {
        in_labelledby: false,
        in_content: false,
        hidden_ok: false,
    };
    normalize_whitespace(&computation.element_name(element, flags))
}

#[derive(Debug, Clone, Copy)]
struct Flags {
    /// Computing a node referenced by aria-labelledby (do not follow aria-labelledby again).
    in_labelledby: bool,
    /// Computing a descendant for a name from content.
    in_content: bool,
    /// The traversal started at a hidden referenced node: hidden nodes count.
    hidden_ok: bool,
}

struct Computation<'a> {
    shadow: &'a ShadowAccess,
    /// The root's window, looked up once: styles are read for every descendant.
    window: Option<web_sys::Window>,
    root: Element,
    visited: Vec<Element>,
}

impl Computation<'_> {
    fn node_name(&mut self, node: &Node, flags: Flags) -> String {
        match node.node_type() {
            Node::TEXT_NODE => node.text_content().unwrap_or_default(),
            Node::ELEMENT_NODE => match as_element(node) {
                Some(element) => self.element_name(element, flags),
                None => String::new(),
            },
            _ => String::new(),
        }
    }

    fn element_name(&mut self, element: &Element, flags: Flags) -> String {
        if self.visited.contains(element) {
            return String::new();
        }
        self.visited.push(element.clone());
        let is_root = element == &self.root;

        // 2A: hidden nodes have no name unless reached from a hidden referenced node.
        // The root is named even when hidden (callers decide whether hidden elements count).
        if !is_root && !flags.hidden_ok && is_hidden_for_accessibility(element) {
            // `visibility: hidden` hides the element's own text, but a descendant may be
            // `visibility: visible` again; aria-hidden and display:none hide everything.
            if flags.in_content && is_only_visibility_hidden(element) {
                return self.visible_descendants_name(element, flags);
            }
            return String::new();
        }

        // A <slot> is not in the accessibility tree: only what it renders counts, not its
        // own aria-label.
        if element.local_name() == "slot" {
            return self.content_name(element, flags);
        }

        // 2B: aria-labelledby (not followed twice).
        if !flags.in_labelledby {
            // Browsers also honour the common misspelling `aria-labeledby`.
            let ids = element
                .get_attribute("aria-labelledby")
                .or_else(|| element.get_attribute("aria-labeledby"));
            if let Some(ids) = ids {
                let mut parts = Vec::new();
                for id in ids.split_whitespace() {
                    let Some(target) = element_by_id_near(element, id) else {
                        continue;
                    };
                    // A node may be referenced more than once (or be the root itself).
                    self.visited.retain(|v| v != &target);
                    let hidden = is_hidden_for_accessibility(&target);
                    let sub = Flags {
                        in_labelledby: true,
                        in_content: false,
                        hidden_ok: hidden,
                    };
                    let part = self.element_name_referenced(&target, sub);
                    let part = normalize_whitespace(&part);
                    if !part.is_empty() {
                        parts.push(part);
                    }
                }
                if !parts.is_empty() {
                    return parts.join(" ");
                }
            }
        }

        let role = role_of(element);

        // 2C: a control embedded in another element's label contributes its value.
        if !is_root && (flags.in_labelledby || flags.in_content) {
            if let Some(value) = embedded_control_value(element, role.as_deref()) {
                return value;
            }
        }

        // 2D: aria-label.
        if let Some(label) = element.get_attribute("aria-label") {
            if !label.trim().is_empty() {
                return label;
            }
        }

        // 2E: host language label.
        if let Some(native) = self.native_name(element, flags) {
            return native;
        }

        // 2F: name from content.
        let tag = element.local_name();
        let native_text_alternative = matches!(
            tag.as_str(),
            "label" | "legend" | "caption" | "figcaption" | "summary" | "option" | "optgroup"
        );
        let from_content = flags.in_labelledby
            || flags.in_content
            || native_text_alternative
            || role.as_deref().is_some_and(allows_name_from_content)
            || (role.is_none() && !is_root);
        if from_content && role.as_deref() != Some("textbox") {
            let content = self.content_name(element, flags);
            if !content.trim().is_empty() {
                return content;
            }
        }

        // 2I: tooltip.
        if let Some(title) = element.get_attribute("title") {
            if !title.trim().is_empty() {
                return title;
            }
        }
        String::new()
    }

    /// A node referenced by aria-labelledby is computed from step 2A with name-from-content
    /// allowed whatever its role.
    fn element_name_referenced(&mut self, element: &Element, flags: Flags) -> String {
        self.element_name(element, flags)
    }

    fn native_name(&mut self, element: &Element, flags: Flags) -> Option<String> {
        let tag = element.local_name();
        let content_flags = Flags {
            in_content: true,
            ..flags
        };
        match tag.as_str() {
            "input" => {
                let input_type = element
                    .get_attribute("type")
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                match input_type.as_str() {
                    "button" | "submit" | "reset" => {
                        if let Some(labels) = self.labels_name(element, content_flags) {
                            return Some(labels);
                        }
                        if let Some(value) = element.get_attribute("value") {
                            return Some(value);
                        }
                        return match input_type.as_str() {
                            "submit" => Some("Submit".to_owned()),
                            "reset" => Some("Reset".to_owned()),
                            _ => element.get_attribute("title"),
                        };
                    }
                    "image" => {
                        for attr in ["alt", "value", "title"] {
                            if let Some(v) = element.get_attribute(attr) {
                                if !v.trim().is_empty() {
                                    return Some(v);
                                }
                            }
                        }
                        return Some("Submit".to_owned());
                    }
                    "hidden" => return Some(String::new()),
                    _ => {}
                }
                if let Some(labels) = self.labels_name(element, content_flags) {
                    return Some(labels);
                }
                field_fallback(element)
            }
            "textarea" | "select" => {
                if let Some(labels) = self.labels_name(element, content_flags) {
                    return Some(labels);
                }
                field_fallback(element)
            }
            "button" | "meter" | "output" | "progress" => self.labels_name(element, content_flags),
            "fieldset" => self.first_child_name(element, "legend", content_flags),
            "figure" => self.first_child_name(element, "figcaption", content_flags),
            "table" => self
                .first_child_name(element, "caption", content_flags)
                .or_else(|| non_empty_attr(element, "summary")),
            "img" | "area" => match element.get_attribute("alt") {
                Some(alt) if !alt.trim().is_empty() => Some(alt),
                Some(_) => Some(element.get_attribute("title").unwrap_or_default()),
                None => None,
            },
            "optgroup" => non_empty_attr(element, "label"),
            "option" => non_empty_attr(element, "label"),
            // SVG <title> is never rendered; its text is the name.
            "svg" => first_child(element, "title")
                .and_then(|title| title.text_content())
                .filter(|t| !t.trim().is_empty()),
            _ => None,
        }
    }

    fn labels_name(&mut self, element: &Element, flags: Flags) -> Option<String> {
        let labels = js::get(element, "labels");
        let labels = labels.dyn_ref::<web_sys::NodeList>()?;
        let mut parts = Vec::new();
        for i in 0..labels.length() {
            let Some(label) = labels.item(i) else {
                continue;
            };
            let Some(label) = as_element(&label) else {
                continue;
            };
            // A hidden label still names its control.
            let label_flags = Flags {
                hidden_ok: flags.hidden_ok || is_hidden_for_accessibility(label),
                ..flags
            };
            let part = normalize_whitespace(&self.element_name(label, label_flags));
            if !part.is_empty() {
                parts.push(part);
            }
        }
        if parts.is_empty() {
            None
        } else {
            Some(parts.join(" "))
        }
    }

    fn first_child_name(&mut self, element: &Element, tag: &str, flags: Flags) -> Option<String> {
        let mut child = element.first_element_child();
        while let Some(current) = child {
            if current.local_name() == tag {
                let name = self.element_name(&current, flags);
                return if name.trim().is_empty() {
                    None
                } else {
                    Some(name)
                };
            }
            child = current.next_element_sibling();
        }
        None
    }

    /// The names of the descendants of a `visibility: hidden` element that are visible again.
    fn visible_descendants_name(&mut self, element: &Element, flags: Flags) -> String {
        let mut out = String::new();
        for node in children(element.as_ref()) {
            if let Some(child) = as_element(&node) {
                out.push(' ');
                out.push_str(&self.element_name(
                    child,
                    Flags {
                        in_content: true,
                        ..flags
                    },
                ));
            }
        }
        out
    }

    fn content_name(&mut self, element: &Element, flags: Flags) -> String {
        let child_flags = Flags {
            in_content: true,
            ..flags
        };
        let mut out = self.pseudo_content(element, "::before");
        let nodes = match as_tag::<HtmlSlotElement>(element, "slot") {
            Some(slot) => assigned_or_fallback(slot),
            None => match self.shadow.shadow_root(element) {
                Some(root) => children(root.as_ref()),
                None => children(element.as_ref()),
            },
        };
        let mut previous_was_text = false;
        for node in nodes {
            // Browsers separate text nodes that are split by a comment (or by script).
            let is_text = node.node_type() == Node::TEXT_NODE;
            if is_text && previous_was_text {
                out.push(' ');
            }
            if node.node_type() != Node::COMMENT_NODE {
                previous_was_text = is_text;
            }
            let text = self.node_name(&node, child_flags);
            let block = as_element(&node).is_some_and(|e| self.is_block(e));
            if block {
                out.push(' ');
            }
            out.push_str(&text);
            if block {
                out.push(' ');
            }
        }
        out.push_str(&self.pseudo_content(element, "::after"));
        out
    }

    fn is_block(&self, element: &Element) -> bool {
        let Some(window) = &self.window else {
            return false;
        };
        let display = window
            .get_computed_style(element)
            .ok()
            .flatten()
            .and_then(|s| s.get_property_value("display").ok())
            .unwrap_or_default();
        !(display.is_empty() || display.starts_with("inline") || display == "contents")
    }

    /// The text of CSS generated content (`content: "..."`) on a pseudo element.
    fn pseudo_content(&self, element: &Element, pseudo: &str) -> String {
        let Some(window) = &self.window else {
            return String::new();
        };
        let Ok(Some(style)) = window.get_computed_style_with_pseudo_elt(element, pseudo) else {
            return String::new();
        };
        let content = style.get_property_value("content").unwrap_or_default();
        let text = parse_css_content(&content);
        if text.is_empty() {
            return text;
        }
        // Generated content is its own text run: browsers separate it from the element's text.
        format!(" {text} ")
    }
}

/// Hidden only by `visibility` (not aria-hidden, not display:none).
fn is_only_visibility_hidden(element: &Element) -> bool {
    super::visibility::is_rendered(element) && !super::visibility::is_aria_hidden(element)
}

fn first_child(element: &Element, tag: &str) -> Option<Element> {
    let mut child = element.first_element_child();
    while let Some(current) = child {
        if current.local_name() == tag {
            return Some(current);
        }
        child = current.next_element_sibling();
    }
    None
}

fn non_empty_attr(element: &Element, attr: &str) -> Option<String> {
    element.get_attribute(attr).filter(|v| !v.trim().is_empty())
}

/// After labels, a field is named by `title`, then `placeholder` (or `aria-placeholder`).
fn field_fallback(element: &Element) -> Option<String> {
    non_empty_attr(element, "title")
        .or_else(|| non_empty_attr(element, "placeholder"))
        .or_else(|| non_empty_attr(element, "aria-placeholder"))
}

/// The value a control embedded in a label contributes (accname step 2C).
fn embedded_control_value(element: &Element, role: Option<&str>) -> Option<String> {
    match role? {
        "textbox" | "searchbox" => {
            if matches!(element.local_name().as_str(), "input" | "textarea") {
                return js::get_string(element, "value");
            }
            Some(element.text_content().unwrap_or_default())
        }
        "combobox" | "listbox" => {
            if let Some(select) = as_tag::<web_sys::HtmlSelectElement>(element, "select") {
                let options = select.selected_options();
                let mut parts = Vec::new();
                for i in 0..options.length() {
                    if let Some(option) = options.item(i) {
                        parts.push(normalize_whitespace(
                            &option.text_content().unwrap_or_default(),
                        ));
                    }
                }
                return Some(parts.join(" "));
            }
            if element.local_name() == "input" {
                return js::get_string(element, "value");
            }
            let selected = element
                .query_selector("[aria-selected=\"true\"]")
                .ok()
                .flatten();
            Some(selected.and_then(|s| s.text_content()).unwrap_or_default())
        }
        "slider" | "spinbutton" | "progressbar" | "scrollbar" | "meter" => {
            if let Some(text) = non_empty_attr(element, "aria-valuetext") {
                return Some(text);
            }
            if let Some(now) = non_empty_attr(element, "aria-valuenow") {
                return Some(now);
            }
            if element.local_name() == "input" {
                js::get_string(element, "value")
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The concatenated strings of a computed `content` value; the alternative text after `/`
/// replaces them when present.
fn parse_css_content(content: &str) -> String {
    let mut strings = Vec::new();
    let mut alt_from = None;
    let mut chars = content.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                let quote = c;
                let mut s = String::new();
                while let Some(inner) = chars.next() {
                    if inner == '\\' {
                        if let Some(escaped) = chars.next() {
                            s.push(escaped);
                        }
                    } else if inner == quote {
                        break;
                    } else {
                        s.push(inner);
                    }
                }
                strings.push(s);
            }
            '/' => alt_from = Some(strings.len()),
            _ => {}
        }
    }
    match alt_from {
        Some(split) => strings
            .get(split..)
            .map(|alt| alt.concat())
            .unwrap_or_default(),
        None => strings.concat(),
    }
}
