//! `text`: elements whose visible text (normalized, including open shadow roots) matches; the
//! innermost matching element wins. Button-like inputs match on their value; script, style and
//! hidden elements never match; a secret field's text (a textarea's, an editor's) counts as
//! nothing.

use web_sys::{Element, HtmlSlotElement, Node};

use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::matching::TextMatcher;
use crate::dom::secret::SecretScan;
use crate::dom::tree::{as_element, as_tag, assigned_or_fallback, children, iframe_document};
use crate::dom::visibility::{is_rendered, is_visible};
use crate::protocol::Selector;

/// The text engine.
#[derive(Debug, Clone, Copy)]
pub struct TextEngine;

impl SelectorEngine for TextEngine {
    fn query_all(
        &self,
        root: &QueryRoot,
        selector: &Selector,
    ) -> Result<Vec<Element>, SelectorError> {
        let mut walk = Walk {
            root,
            scan: SecretScan::of(root),
            matcher: TextMatcher::new(&selector.value, selector.exact),
            out: Vec::new(),
        };
        if let Some(body) = root.document.body() {
            walk.element_text(&body);
        }
        Ok(walk.out)
    }
}

struct Walk<'a> {
    root: &'a QueryRoot,
    /// Secret fields contribute no text and never match.
    scan: SecretScan,
    matcher: TextMatcher,
    out: Vec<Element>,
}

impl Walk<'_> {
    /// The element's text; pushes it to `out` when it matches and no descendant did.
    fn element_text(&mut self, element: &Element) -> String {
        let tag = element.local_name();
        if matches!(
            tag.as_str(),
            "script" | "style" | "noscript" | "template" | "head"
        ) {
            return String::new();
        }
        if !is_rendered(element) || self.scan.owner_of(element).is_some() {
            return String::new();
        }
        let before = self.out.len();
        let text = if tag == "input" {
            let input_type = element
                .get_attribute("type")
                .unwrap_or_default()
                .to_ascii_lowercase();
            if matches!(input_type.as_str(), "button" | "submit" | "reset") {
                element
                    .get_attribute("value")
                    .unwrap_or_else(|| match input_type.as_str() {
                        "submit" => "Submit".to_owned(),
                        "reset" => "Reset".to_owned(),
                        _ => String::new(),
                    })
            } else {
                String::new()
            }
        } else {
            if let Some(document) = iframe_document(element) {
                if let Some(body) = document.body() {
                    self.element_text(&body);
                }
            }
            let mut text = String::new();
            for child in children(element.as_ref()) {
                text.push_str(&self.node_text(&child));
            }
            if let Some(shadow) = self.root.shadow.shadow_root(element) {
                for child in children(shadow.as_ref()) {
                    text.push_str(&self.node_text(&child));
                }
            }
            text
        };
        let descendant_matched = self.out.len() > before;
        if !descendant_matched && self.matcher.matches(&text) && is_visible(element) {
            self.out.push(element.clone());
        }
        text
    }

    fn node_text(&mut self, node: &Node) -> String {
        if node.node_type() == Node::TEXT_NODE {
            return node.text_content().unwrap_or_default();
        }
        let Some(element) = as_element(node) else {
            return String::new();
        };
        if let Some(slot) = as_tag::<HtmlSlotElement>(element, "slot") {
            // Assigned nodes are light-DOM children, counted with their host; only fallback
            // content belongs to the slot.
            let options = web_sys::AssignedNodesOptions::new();
            if slot.assigned_nodes_with_options(&options).length() > 0 {
                return String::new();
            }
            let mut text = String::new();
            for child in assigned_or_fallback(slot) {
                text.push_str(&self.node_text(&child));
            }
            return text;
        }
        self.element_text(element)
    }
}
