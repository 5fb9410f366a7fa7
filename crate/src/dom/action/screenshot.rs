//! `screenshot`: what a picture of the page needs from the page itself. The browser takes the
//! picture (the glue asks it); this lists the page like `observe` (the same refs), and says
//! where each listed element is (its numbered mark) and what the picture must hide (the
//! masks, see [`crate::dom::vision`]). Without masks there is no picture: fails closed.

use crate::dom::error::ActionError;
use crate::dom::observe::observe_listed;
use crate::dom::report::{ActionReport, Effect};
use crate::dom::vision::{marks, masks, viewport_json};
use crate::protocol::json_write::{self, SortedObject};

pub(super) fn run(max_elements: Option<u32>) -> Result<ActionReport, ActionError> {
    let (observation, listed) = observe_listed(max_elements.unwrap_or(0));
    let hidden = masks().map_err(|why| ActionError::ScreenshotMasksUnavailable {
        detail: why.0.to_owned(),
    })?;
    let marks = marks(&listed, &hidden.viewport);
    let mut data = observation.json_fields();
    let mut vision = SortedObject::new();
    vision.json("viewport", viewport_json(&hidden.viewport));
    let mut masks = String::new();
    json_write::list(&mut masks, &hidden.masks, |out, mask| {
        out.push_str(&mask.to_json());
    });
    vision.json("masks", masks);
    let mut marks_json = String::new();
    json_write::list(&mut marks_json, &marks, |out, mark| {
        out.push_str(&mark.to_json());
    });
    vision.json("marks", marks_json);
    data.json("vision", vision.into_json());
    Ok(ActionReport {
        action: "screenshot",
        element: None,
        effects: vec![Effect::Observed {
            listed: observation.elements.len(),
            total: observation.total,
        }],
        attempts: 1,
        elapsed_ms: 0,
        data: Some(data.into_json()),
    })
}
