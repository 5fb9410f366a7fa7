//! `screenshot`: what a picture of the page needs from the page itself. The browser takes the
//! picture (the glue asks it); this lists the page like `observe` (the same refs), and says
//! where each listed element is (its numbered mark) and what the picture must hide (the
//! masks, see [`crate::dom::vision`]). Without masks there is no picture: fails closed.

use crate::dom::error::ActionError;
use crate::dom::observe::observe_listed;
use crate::dom::report::{ActionReport, Effect};
use crate::dom::vision::{marks, masks};

pub(super) fn run(max_elements: Option<u32>) -> Result<ActionReport, ActionError> {
    let (observation, listed) = observe_listed(max_elements.unwrap_or(0));
    let hidden = masks().map_err(|why| ActionError::ScreenshotMasksUnavailable {
        detail: why.0.to_owned(),
    })?;
    let marks = marks(&listed, &hidden.viewport);
    let mut data = serde_json::to_value(&observation).map_err(|e| ActionError::Script {
        detail: e.to_string(),
    })?;
    let vision = serde_json::json!({
        "viewport": hidden.viewport,
        "masks": hidden.masks,
        "marks": marks,
    });
    if let Some(object) = data.as_object_mut() {
        object.insert("vision".into(), vision);
    }
    Ok(ActionReport {
        action: "screenshot",
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
