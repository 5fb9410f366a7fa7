//! `text`: elements whose visible text (normalized, including open shadow roots) matches; the
//! innermost matching element wins. Button-like inputs match on their value; script, style and
//! hidden elements never match; a secret field's text (a textarea's, an editor's) counts as
//! nothing.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlSlotElement, Node};

use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::matching::TextMatcher;
use crate::dom::secret::{SecretScan, classify};
use crate::dom::tree::{assigned_or_fallback, can_host_shadow, children, iframe_document};
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
        // One walk: the secret fields of each scope (document, shadow root, frame) are found
        // as the walk enters it, before any of its elements is asked about.
        // Inputs are classified one by one, and only when their text would count (see
        // `element_text`).
        let mut scan = SecretScan::default();
        scan.add_scope_without_inputs(root.document.as_ref());
        let mut walk = Walk {
            root,
            scan,
            matcher: TextMatcher::new(&selector.value, selector.exact),
            out: Vec::new(),
        };
        if let Some(body) = root.document.body() {
            walk.element_text(&body, &body.local_name());
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
    /// The element's text; pushes it to `out` when it matches and no descendant did. `tag` is
    /// its local name, read once by the caller: every element of the page passes here, so each
    /// call into the page counts.
    fn element_text(&mut self, element: &Element, tag: &str) -> String {
        if matches!(tag, "script" | "style" | "noscript" | "template" | "head") {
            return String::new();
        }
        // The walk starts at the top and never enters a secret field, so the field itself is
        // the only thing to recognise (an input is recognised in `input_text`).
        if self.scan.is_secret_field(element) {
            return String::new();
        }
        if tag == "input" {
            return self.input_text(element);
        }
        if !is_rendered(element) {
            return String::new();
        }
        let before = self.out.len();
        if tag == "iframe" {
            if let Some(document) = iframe_document(element) {
                self.scan.add_scope_without_inputs(document.as_ref());
                if let Some(body) = document.body() {
                    self.element_text(&body, &body.local_name());
                }
            }
        }
        let mut text = String::new();
        let mut child = element.first_child();
        while let Some(current) = child {
            child = current.next_sibling();
            text.push_str(&self.node_text(&current));
        }
        let shadow = can_host_shadow(tag)
            .then(|| self.root.shadow.open(element))
            .flatten();
        if let Some(shadow) = shadow {
            self.scan.add_scope_without_inputs(shadow.as_ref());
            for child in children(shadow.as_ref()) {
                text.push_str(&self.node_text(&child));
            }
        }
        let descendant_matched = self.out.len() > before;
        if !descendant_matched && self.matcher.matches(&text) && is_visible(element) {
            self.out.push(element.clone());
        }
        text
    }

    /// An input's text: its value for the button types, else nothing. Most inputs are not
    /// buttons, and an empty text that cannot match adds nothing whether the input is rendered
    /// or secret, so neither is asked about it.
    fn input_text(&mut self, element: &Element) -> String {
        let input_type = element
            .get_attribute("type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let text = if matches!(input_type.as_str(), "button" | "submit" | "reset") {
            element
                .get_attribute("value")
                .unwrap_or_else(|| match input_type.as_str() {
                    "submit" => "Submit".to_owned(),
                    "reset" => "Reset".to_owned(),
                    _ => String::new(),
                })
        } else {
            String::new()
        };
        let matches = self.matcher.matches(&text);
        if text.is_empty() && !matches {
            return text;
        }
        // The scan left inputs out: one whose text counts is classified here, and a secret
        // one counts as nothing, as every secret field does.
        if !is_rendered(element) || classify(element).is_some() {
            return String::new();
        }
        if matches && is_visible(element) {
            self.out.push(element.clone());
        }
        text
    }

    fn node_text(&mut self, node: &Node) -> String {
        match node.node_type() {
            Node::TEXT_NODE => return node.text_content().unwrap_or_default(),
            Node::ELEMENT_NODE => {}
            _ => return String::new(),
        }
        // An element of any realm (a same-origin frame's nodes fail `instanceof`).
        let element: &Element = node.unchecked_ref();
        let tag = element.local_name();
        if tag == "slot" {
            let slot: &HtmlSlotElement = element.unchecked_ref();
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
        self.element_text(element, &tag)
    }
}
