//! `aria`: elements whose accessible name (W3C accname) matches; case-insensitive substring
//! unless `exact`. Only elements that can carry a name are considered (a role other than
//! generic/none, or a naming attribute), and hidden ones never match; nor does an element whose
//! name may carry a secret field's value.

use web_sys::Element;

use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::matching::TextMatcher;
use crate::dom::roles::role_of;
use crate::dom::secret::SecretScan;
use crate::dom::visibility::is_hidden_for_accessibility;
use crate::protocol::Selector;

/// The accessible-name engine.
#[derive(Debug, Clone, Copy)]
pub struct AriaEngine;

impl SelectorEngine for AriaEngine {
    fn query_all(
        &self,
        root: &QueryRoot,
        selector: &Selector,
    ) -> Result<Vec<Element>, SelectorError> {
        let matcher = TextMatcher::new(&selector.value, selector.exact);
        // A name that may carry a secret field's value never matches (see `secret`).
        let scan = SecretScan::of(root);
        Ok(root
            .all_elements()
            .into_iter()
            .filter(can_have_name)
            // The name first: few elements match, and the hidden check walks all ancestors.
            .filter(|element| {
                scan.safe_name(&root.shadow, element)
                    .is_some_and(|name| matcher.matches(&name))
            })
            .filter(|element| !is_hidden_for_accessibility(element))
            .collect())
    }
}

/// Elements whose name is prohibited or always empty are skipped (and never computed).
pub(crate) fn can_have_name(element: &Element) -> bool {
    if element.has_attribute("aria-label") || element.has_attribute("aria-labelledby") {
        return true;
    }
    match role_of(element).as_deref() {
        None
        | Some(
            "generic" | "none" | "presentation" | "paragraph" | "code" | "strong" | "emphasis"
            | "subscript" | "superscript" | "deletion" | "insertion" | "time" | "caption",
        ) => element.has_attribute("title"),
        Some(_) => true,
    }
}
