//! `test_id`: elements whose `data-testid` equals the value exactly, and which redaction leaves
//! as it is (an exact test of a value with a redacted part would answer a guess at it).

use web_sys::Element;

use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::address::Shown;
use crate::protocol::Selector;

/// The test id engine.
#[derive(Debug, Clone, Copy)]
pub struct TestIdEngine;

impl SelectorEngine for TestIdEngine {
    fn query_all(
        &self,
        root: &QueryRoot,
        selector: &Selector,
    ) -> Result<Vec<Element>, SelectorError> {
        let shown = Shown::new(&root.document);
        Ok(root
            .all_elements()
            .into_iter()
            .filter(|element| {
                element.get_attribute("data-testid").as_deref() == Some(selector.value.as_str())
                    && shown.text(&selector.value) == selector.value
            })
            .collect())
    }
}
