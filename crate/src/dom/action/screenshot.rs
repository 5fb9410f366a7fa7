//! `screenshot`: what a picture of the page needs from the page itself. The browser takes the
//! picture (the glue asks it); this lists the page like `observe` (the same refs), and says
//! where each listed element is (its numbered mark) and what the picture must hide (the
//! masks, see [`crate::dom::vision`]). Without masks there is no picture: fails closed.

use crate::dom::error::ActionError;
use crate::dom::observe::observe_listed;
use crate::dom::report::{ActionReport, Effect};
use crate::dom::vision::{Mark, Mask, marks, masks, viewport_json};

pub(super) fn run(max_elements: Option<u32>) -> Result<ActionReport, ActionError> {
    let (observation, listed) = observe_listed(max_elements.unwrap_or(0));
    let hidden = masks().map_err(|why| ActionError::ScreenshotMasksUnavailable {
        detail: why.0.to_owned(),
    })?;
    let marks = marks(&listed, &hidden.viewport);
    let mut data = observation.to_json();
    let mut vision = serde_json::Map::new();
    vision.insert("viewport".into(), viewport_json(&hidden.viewport));
    let masks = hidden.masks.iter().map(Mask::to_json).collect();
    vision.insert("masks".into(), serde_json::Value::Array(masks));
    let marks = marks.iter().map(Mark::to_json).collect();
    vision.insert("marks".into(), serde_json::Value::Array(marks));
    let vision = serde_json::Value::Object(vision);
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
