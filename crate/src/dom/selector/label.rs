//! `label`: form controls (and anything with aria-label / aria-labelledby) whose label text
//! matches: `aria-labelledby` targets, `aria-label`, `<label for>` and wrapping labels; also as
//! the model is shown it ([`Shown::still_matches`]).

use wasm_bindgen::JsCast;
use web_sys::{Element, NodeList};

use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::address::Shown;
use crate::dom::js;
use crate::dom::matching::TextMatcher;
use crate::dom::secret::{SecretScan, text_without_secrets};
use crate::dom::tree::{as_element, element_by_id_near};
use crate::protocol::Selector;
use crate::protocol::join::join;

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
        let scan = SecretScan::of(root);
        let shown = Shown::new(&root.document);
        Ok(root
            .all_elements()
            .into_iter()
            .filter(|element| {
                label_texts(&scan, element)
                    .iter()
                    .any(|text| matcher.matches(text) && shown.still_matches(&matcher, text))
            })
            .collect())
    }
}

/// Every label text of `element`, without the text of any secret field inside a label (a
/// wrapping label's text includes a textarea's text, which React keeps equal to its value).
pub(crate) fn label_texts(scan: &SecretScan, element: &Element) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(ids) = element.get_attribute("aria-labelledby") {
        let text: Vec<String> = ids
            .split_whitespace()
            .filter_map(|id| element_by_id_near(element, id))
            .map(|target| {
                if scan.owner_of(&target).is_some() {
                    String::new()
                } else {
                    text_without_secrets(scan, &target)
                }
            })
            .collect();
        out.push(join(&text, " "));
    }
    if let Some(label) = element.get_attribute("aria-label") {
        out.push(label);
    }
    let labels = js::get(element, "labels");
    if labels.is_object() {
        let labels = labels.unchecked_ref::<NodeList>();
        for i in 0..labels.length() {
            if let Some(label) = labels.item(i).and_then(|l| as_element(&l).cloned()) {
                out.push(text_without_secrets(scan, &label));
            }
        }
    }
    out
}
