//! `css`: `querySelectorAll` in the document, in every shadow root (open, or closed where the
//! extension may open it) and in every same-origin iframe. Combinators do not cross shadow
//! boundaries: `sl-input input` does not match, `input` does.

use wasm_bindgen::JsCast;
use web_sys::{DocumentFragment, Element, Node, NodeList};

use crate::dom::tree::{as_document, as_element};

use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::js;
use crate::protocol::Selector;

/// The CSS engine.
#[derive(Debug, Clone, Copy)]
pub struct CssEngine;

impl SelectorEngine for CssEngine {
    fn query_all(
        &self,
        root: &QueryRoot,
        selector: &Selector,
    ) -> Result<Vec<Element>, SelectorError> {
        let mut out = Vec::new();
        for scope in root.scopes() {
            let list = query_scope(&scope, &selector.value).map_err(|e| {
                SelectorError::new(format!("the browser rejected it: {}", js::error_text(&e)))
            })?;
            for i in 0..list.length() {
                if let Some(node) = list.item(i) {
                    if let Some(element) = as_element(&node) {
                        out.push(element.clone());
                    }
                }
            }
        }
        Ok(out)
    }
}

fn query_scope(scope: &Node, css: &str) -> Result<NodeList, wasm_bindgen::JsValue> {
    if let Some(document) = as_document(scope) {
        return document.query_selector_all(css);
    }
    if scope.node_type() == Node::DOCUMENT_FRAGMENT_NODE {
        return scope
            .unchecked_ref::<DocumentFragment>()
            .query_selector_all(css);
    }
    Err(wasm_bindgen::JsValue::from_str("not a query scope"))
}
