//! `observe`: the page's interactive elements as lines with refs, in the report's `data` (an
//! [`crate::dom::Observation`]); see [`crate::dom::observe`] for what is listed and the format.

use crate::dom::error::ActionError;
use crate::dom::observe::observe;
use crate::dom::report::{ActionReport, Effect};

pub(super) fn run(max_elements: Option<u32>) -> Result<ActionReport, ActionError> {
    let observation = observe(max_elements.unwrap_or(0));
    let data = observation.to_json_string();
    Ok(ActionReport {
        action: "observe",
        element: None,
        effects: vec![Effect::Observed {
            listed: observation.elements.len(),
            total: observation.total,
        }],
        attempts: 1,
        elapsed_ms: 0,
        data: Some(data),
    })
}
