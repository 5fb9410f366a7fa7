//! The page's side of a `screenshot` after the picture was taken, and the chat's side of
//! posting it: the masks looked at again (the page may have moved), and the image handed to
//! the composer.

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
    serde_json::to_string(&masks)
        .map_err(|error| error_object("screenshot_masks_unavailable", &error.to_string()))
}

/// Whether every frame of this page is hidden now by the capture's user stylesheet (see
/// [`crate::dom::vision::frames_hidden`]); no picture is taken otherwise.
#[wasm_bindgen]
pub fn screen_frames_hidden() -> bool {
    crate::dom::vision::frames_hidden()
}

/// Whether the picture taken between the looks `first` and `second` (JSON, see
/// [`crate::pictures::Look`]), `width`×`height` image pixels, may be masked and sent for the
/// target `origin`: answers the scale per axis (JSON `{x, y}`), or rejects with the failure
/// `{code, message}` (see [`crate::pictures::check_looks`]). A look that does not parse is no
/// picture (`screenshot_masks_unavailable`).
#[wasm_bindgen]
pub fn picture_check(
    first: &str,
    second: &str,
    origin: &str,
    width: f64,
    height: f64,
) -> Result<String, JsValue> {
    use crate::pictures::{Look, PictureError, check_looks};
    let fail = |error: PictureError| error_object(error.code(), &error.to_string());
    let parse = |text: &str| {
        serde_json::from_str::<Look>(text).map_err(|_| fail(PictureError::MasksUnavailable))
    };
    let scale =
        check_looks(&parse(first)?, &parse(second)?, origin, width, height).map_err(fail)?;
    serde_json::to_string(&scale).map_err(|_| fail(PictureError::MasksUnavailable))
}

/// Whether this chat site's profile knows how to attach a picture: rejects with `{code,
/// message}` (`vision_unsupported_site`) where it does not, before any picture is taken.
#[wasm_bindgen]
pub fn check_image_input(site: Option<String>) -> Result<(), JsValue> {
    let supported = site.as_deref().and_then(|site| {
        crate::chat::SITES
            .iter()
            .find(|profile| profile.name == site)
    });
    match supported {
        Some(profile) if profile.image_input != crate::chat::sites::ImageInput::None => Ok(()),
        _ => {
            let error = crate::chat::image::ImageError::VisionUnsupportedSite;
            Err(error_object(error.code(), &error.to_string()))
        }
    }
}

/// Posts `line` like [`super::post_line`], with the picture `bytes` (a PNG) attached to the
/// message as the site takes a chosen file, just before the send (see
/// [`crate::chat::composer::post_line_with`]). Rejects with `{code, message}` as `post_line` does, with the
/// image's code (`vision_unsupported_site`, ...), or with `image_left_in_composer`.
#[wasm_bindgen]
pub async fn post_line_with_image(
    line: String,
    insert_only: bool,
    site: Option<String>,
    bytes: Vec<u8>,
    name: String,
) -> Result<JsValue, JsValue> {
    use crate::chat::composer::{self, ComposerError, SendMode};
    let document = web_sys::window()
        .and_then(|window| window.document())
        .ok_or_else(|| JsValue::from_str("no document"))?;
    let profile = site
        .and_then(|site| {
            crate::chat::SITES
                .iter()
                .find(|profile| profile.name == site)
        })
        .ok_or_else(|| error_object("composer_not_found", "this is not a chat page"))?;
    let mode = if insert_only {
        SendMode::InsertOnly
    } else {
        SendMode::Send
    };
    let attach = || {
        crate::chat::image::attach_image(&document, profile, &bytes, "image/png", &name).map_err(
            |error| ComposerError::ImageNotAttached {
                image_code: error.code(),
                message: error.to_string(),
            },
        )
    };
    match composer::post_line_with(&document, profile, &line, mode, Some(attach)).await {
        Ok(outcome) => Ok(JsValue::from_str(match outcome {
            composer::PostOutcome::SentAndConfirmed => "sent_and_confirmed",
            composer::PostOutcome::Inserted => "inserted",
        })),
        Err(error) => Err(error_object(error.code(), &error.to_string())),
    }
}

/// The failure `{code, message}` of a picture not taken or not sent (see
/// [`crate::pictures::PictureError`]): the glue knows what happened, the core says it.
#[wasm_bindgen]
pub fn picture_failure(code: &str, origin: &str, detail: &str) -> String {
    let error = crate::pictures::PictureError::from_code(code, origin, detail);
    serde_json::json!({ "code": error.code(), "message": error.to_string() }).to_string()
}
