//! `scroll`: `window.scrollTo(x, y)` (instant, whatever the page's `scroll-behavior`), then
//! verify the position. Stopping at the end of the page is success (the report says where);
//! stopping anywhere else (scrolling blocked) is `scroll_mismatch`.

use crate::dom::error::ActionError;
use crate::dom::js;
use crate::dom::report::{ActionReport, Effect};

/// Positions within this many pixels count as reached (fractional device pixels).
const TOLERANCE: f64 = 1.5;

pub(super) async fn run(x: Option<f64>, y: f64) -> Result<ActionReport, ActionError> {
    let window = web_sys::window().ok_or_else(|| ActionError::Script {
        detail: "no window".to_owned(),
    })?;
    let x = x.unwrap_or_else(|| window.scroll_x().unwrap_or(0.0));
    let options = web_sys::ScrollToOptions::new();
    js::put(&options, "left", &x.into());
    js::put(&options, "top", &y.into());
    js::put(&options, "behavior", &"instant".into());
    window.scroll_to_with_scroll_to_options(&options);
    js::next_frame().await;
    let reached = (
        window.scroll_x().unwrap_or(0.0),
        window.scroll_y().unwrap_or(0.0),
    );
    let (max_x, max_y) = max_scroll(&window);
    let axis_ok = |wanted: f64, got: f64, max: f64| {
        (wanted - got).abs() <= TOLERANCE
            || (wanted > got && got >= max - TOLERANCE)
            || (wanted < 0.0 && got.abs() <= TOLERANCE)
    };
    if !axis_ok(x, reached.0, max_x) || !axis_ok(y, reached.1, max_y) {
        return Err(ActionError::ScrollMismatch {
            wanted: (x, y),
            reached,
        });
    }
    Ok(ActionReport {
        action: "scroll",
        element: None,
        effects: vec![Effect::Scrolled {
            x: reached.0,
            y: reached.1,
        }],
        attempts: 1,
        elapsed_ms: 0,
        data: None,
    })
}

fn max_scroll(window: &web_sys::Window) -> (f64, f64) {
    let Some(root) = window.document().and_then(|d| d.document_element()) else {
        return (0.0, 0.0);
    };
    // clientWidth/Height exclude scrollbars, unlike innerWidth/Height.
    (
        f64::from(root.scroll_width() - root.client_width()).max(0.0),
        f64::from(root.scroll_height() - root.client_height()).max(0.0),
    )
}
