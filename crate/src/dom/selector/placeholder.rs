//! `placeholder`: inputs and textareas whose `placeholder` matches (case-insensitive substring
//! unless `exact`; also as the model is shown it: [`Shown::still_matches`]).

use web_sys::Element;

use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::address::Shown;
use crate::dom::matching::TextMatcher;
use crate::protocol::Selector;

/// The placeholder engine.
#[derive(Debug, Clone, Copy)]
pub struct PlaceholderEngine;

impl SelectorEngine for PlaceholderEngine {
    fn query_all(
        &self,
        root: &QueryRoot,
        selector: &Selector,
    ) -> Result<Vec<Element>, SelectorError> {
        let matcher = TextMatcher::new(&selector.value, selector.exact);
        let shown = Shown::new(&root.document);
        Ok(root
            .all_elements()
            .into_iter()
            .filter(|element| {
                element
                    .get_attribute("placeholder")
                    .is_some_and(|p| matcher.matches(&p) && shown.still_matches(&matcher, &p))
            })
            .collect())
    }
}
