//! `test_id`: elements whose `data-testid` equals the value exactly.

use web_sys::Element;

use super::{QueryRoot, SelectorEngine, SelectorError};
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
        Ok(root
            .all_elements()
            .into_iter()
            .filter(|element| {
                element.get_attribute("data-testid").as_deref() == Some(selector.value.as_str())
            })
            .collect())
    }
}
