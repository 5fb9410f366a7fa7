//! `label`: form controls (and anything with aria-label / aria-labelledby) whose label text
//! matches: `aria-labelledby` targets, `aria-label`, `<label for>` and wrapping labels.

use wasm_bindgen::JsCast;
use web_sys::{Element, NodeList};

use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::js;
use crate::dom::matching::TextMatcher;
use crate::dom::tree::element_by_id_near;
use crate::protocol::Selector;

/// The label engine.
#[derive(Debug, Clone, Copy)]
pub struct LabelEngine;

impl SelectorEngine for LabelEngine {
    fn query_all(
        &self,
        root: &QueryRoot,
        selector: &Selector,
    ) -> Result<Vec<Element>, SelectorError> {
        let matcher = TextMatcher::new(&selector.value, selector.exact);
        Ok(root
            .all_elements()
            .into_iter()
            .filter(|element| {
                label_texts(element)
                    .iter()
                    .any(|text| matcher.matches(text))
            })
            .collect())
    }
}

/// Every label text of `element`.
pub(crate) fn label_texts(element: &Element) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(ids) = element.get_attribute("aria-labelledby") {
        let text: Vec<String> = ids
            .split_whitespace()
            .filter_map(|id| element_by_id_near(element, id))
            .filter_map(|target| target.text_content())
            .collect();
        out.push(text.join(" "));
    }
    if let Some(label) = element.get_attribute("aria-label") {
        out.push(label);
    }
    let labels = js::get(element, "labels");
    if let Some(labels) = labels.dyn_ref::<NodeList>() {
        for i in 0..labels.length() {
            if let Some(text) = labels.item(i).and_then(|label| label.text_content()) {
                out.push(text);
            }
        }
    }
    out
}
