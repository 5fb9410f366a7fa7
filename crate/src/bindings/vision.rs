//! The page's side of a `screenshot` (executor role): what the picture must hide, and whether
//! every frame is hidden while it is taken. The background checks the looks
//! ([`super::background`]) and the chat attaches the image ([`super::chat`]).

use wasm_bindgen::prelude::*;

use super::error_object;

/// What a picture of this page must hide, now (JSON `{"viewport", "masks"}`, see
/// [`crate::dom::vision::Masks`]); rejects with `{code, message}`
/// (`screenshot_masks_unavailable`) when the page cannot be read: no picture then.
#[wasm_bindgen]
pub fn screen_masks() -> Result<String, JsValue> {
    let masks = crate::dom::vision::masks().map_err(|why| {
        error_object(
            "screenshot_masks_unavailable",
            &format!(
                "BAI could not tell what to hide on this page ({}), so it took no picture",
                why.0
            ),
        )
    })?;
    Ok(masks.to_json_string())
}

/// Whether every frame of this page is hidden now by the capture's user stylesheet (see
/// [`crate::dom::vision::frames_hidden`]); no picture is taken otherwise.
#[wasm_bindgen]
pub fn screen_frames_hidden() -> bool {
    crate::dom::vision::frames_hidden()
}
