//! `xpath`: `document.evaluate` on the top document. Text and attribute results resolve to
//! their element.

use web_sys::{Element, Node, XPathResult};

use crate::dom::tree::as_element;

use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::js;
use crate::protocol::Selector;

/// The XPath engine.
#[derive(Debug, Clone, Copy)]
pub struct XpathEngine;

impl SelectorEngine for XpathEngine {
    fn query_all(
        &self,
        root: &QueryRoot,
        selector: &Selector,
    ) -> Result<Vec<Element>, SelectorError> {
        let result = root
            .document
            .evaluate_with_opt_callback_and_type(
                &selector.value,
                root.document.as_ref(),
                None,
                XPathResult::ORDERED_NODE_SNAPSHOT_TYPE,
            )
            .map_err(|e| {
                SelectorError::new(format!("the browser rejected it: {}", js::error_text(&e)))
            })?;
        let length = result
            .snapshot_length()
            .map_err(|e| SelectorError::new(format!("not a node set: {}", js::error_text(&e))))?;
        let mut out: Vec<Element> = Vec::new();
        for i in 0..length {
            let Ok(Some(node)) = result.snapshot_item(i) else {
                continue;
            };
            if let Some(element) = to_element(node) {
                if !out.contains(&element) {
                    out.push(element);
                }
            }
        }
        Ok(out)
    }
}

fn to_element(node: Node) -> Option<Element> {
    if node.node_type() == Node::ATTRIBUTE_NODE {
        return as_element(&crate::dom::js::get(&node, "ownerElement")).cloned();
    }
    match as_element(&node) {
        Some(element) => Some(element.clone()),
        None => node.parent_element(),
    }
}
