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

/// Attaches an image (`bytes`, of type `mime`) to the composer of this chat page as the site
/// takes a pasted picture, for the message BAI posts next. `site`: the layout's name, as
/// [`super::post_line`] takes it. Rejects with `{code, message}`
/// ([`crate::chat::image::ImageError`]): `vision_unsupported_site` where the site's profile
/// knows no way.
#[wasm_bindgen]
pub fn attach_image(
    bytes: Vec<u8>,
    mime: String,
    name: String,
    site: Option<String>,
) -> Result<(), JsValue> {
    let document = web_sys::window()
        .and_then(|window| window.document())
        .ok_or_else(|| JsValue::from_str("no document"))?;
    let hostname = web_sys::window()
        .and_then(|w| w.location().hostname().ok())
        .unwrap_or_default();
    let named = site.and_then(|site| {
        crate::chat::SITES
            .iter()
            .find(|profile| profile.name == site)
    });
    let profile = named
        .or_else(|| crate::chat::choose_profile(&document, &hostname).map(|found| found.profile))
        .ok_or_else(|| error_object("composer_not_found", "this is not a chat page"))?;
    crate::chat::image::attach_image(&document, profile, &bytes, &mime, &name)
        .map_err(|error| error_object(error.code(), &error.to_string()))
}
