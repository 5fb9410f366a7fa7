//! `wait`: pause for the given milliseconds on a timer.

use crate::dom::error::ActionError;
use crate::dom::js;
use crate::dom::report::{ActionReport, Effect};

pub(super) async fn run(ms: u32) -> Result<ActionReport, ActionError> {
    js::sleep(ms).await;
    Ok(ActionReport {
        action: "wait",
        element: None,
        effects: vec![Effect::Waited { ms }],
        attempts: 1,
        elapsed_ms: 0,
        data: None,
    })
}
