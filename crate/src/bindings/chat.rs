//! Entry points of the chat role: the content script on a chat page (what the page is, posting
//! a line). Built with the `role-chat` feature; [`super::chat_session`] holds the session itself.

use wasm_bindgen::prelude::*;

use super::error_object;

/// What the content script needs to know about the page it runs in, as JSON
/// ([`crate::chat::ChatPageStatus`]). `user_chat_site`: the user added this page's site as a
/// chat site (Settings › Sites); elsewhere outside the built-in hosts the page is never a chat
/// page, whatever its markup (see [`crate::sites::may_run_chat`]).
#[wasm_bindgen]
pub fn chat_page_status(user_chat_site: Option<bool>) -> Result<String, JsError> {
    let window = web_sys::window().ok_or_else(|| JsError::new("no window"))?;
    let document = window
        .document()
        .ok_or_else(|| JsError::new("no document"))?;
    let hostname = window.location().hostname().unwrap_or_default();
    let user_chat_site = user_chat_site.unwrap_or(false);
    let status = if crate::sites::may_run_chat(&hostname, user_chat_site) {
        crate::chat::page_status(&document, &hostname, user_chat_site)
    } else {
        crate::chat::ChatPageStatus::not_a_chat()
    };
    Ok(status.json())
}

/// Whether the chat page at `path` is a new chat with no address of its own yet (see
/// [`crate::sites::is_new_chat_path`]): its saved state is never resumed there.
#[wasm_bindgen]
pub fn is_new_chat_address(path: &str) -> bool {
    crate::sites::is_new_chat_path(path)
}

/// Writes `line` into the chat's composer and sends it (unless `insert_only`), then confirms it
/// appeared as a user message. `site`: the layout profile the chat session reads the page with
/// ([`ChatSession::site`]); without it, the profile that best matches the page. Resolves to
/// `"sent_and_confirmed"` or `"inserted"`; rejects with an object `{code, message}` (see
/// [`crate::chat::composer::ComposerError`]).
#[wasm_bindgen]
pub async fn post_line(
    line: String,
    insert_only: bool,
    site: Option<String>,
) -> Result<JsValue, JsValue> {
    post(line, insert_only, site, None).await
}

/// What [`post_line`] and [`post_line_with_image`] do, in one function: each exported `async fn`
/// gets its own copy of the future it awaits, so the composer's whole posting future is
/// compiled once here instead of once per export (about 5 KB of the chat module's code).
/// `image`: the PNG's bytes and file name; without it, a missing `site` falls back to the
/// profile that best matches the page.
async fn post(
    line: String,
    insert_only: bool,
    site: Option<String>,
    image: Option<(Vec<u8>, String)>,
) -> Result<JsValue, JsValue> {
    use crate::chat::composer::{self, ComposerError, SendMode};
    let document = web_sys::window()
        .and_then(|window| window.document())
        .ok_or_else(|| JsValue::from_str("no document"))?;
    let named = site.and_then(|site| {
        crate::chat::SITES
            .iter()
            .find(|profile| profile.name == site)
    });
    let profile = match (named, &image) {
        (Some(profile), _) => Some(profile),
        // A picture goes only where the session named the layout that reads the page.
        (None, Some(_)) => None,
        (None, None) => {
            let hostname = web_sys::window().map(|w| w.location().hostname().unwrap_or_default());
            crate::chat::choose_profile(&document, hostname.as_deref().unwrap_or_default())
                .map(|found| found.profile)
        }
    }
    .ok_or_else(|| error_object("composer_not_found", "this is not a chat page"))?;
    let mode = if insert_only {
        SendMode::InsertOnly
    } else {
        SendMode::Send
    };
    let attach = image.as_ref().map(|(bytes, name)| {
        || {
            crate::chat::image::attach_image(&document, profile, bytes, "image/png", name).map_err(
                |error| ComposerError::ImageNotAttached {
                    image_code: error.code(),
                    message: error.to_string(),
                },
            )
        }
    });
    match composer::post_line_with(&document, profile, &line, mode, attach).await {
        Ok(outcome) => Ok(JsValue::from_str(match outcome {
            composer::PostOutcome::SentAndConfirmed => "sent_and_confirmed",
            composer::PostOutcome::Inserted => "inserted",
        })),
        Err(error) => Err(error_object(error.code(), &error.to_string())),
    }
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
    post(line, insert_only, site, Some((bytes, name))).await
}
