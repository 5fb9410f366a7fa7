//! Attaches a picture (a `screenshot`'s masked image) to the message BAI is about to post, the
//! way the site takes one from the user: through its attachment file input, or as a pasted
//! file (see [`super::sites::ImageInput`]).

use serde::Serialize;
use wasm_bindgen::JsCast;
use web_sys::{
    ClipboardEvent, ClipboardEventInit, DataTransfer, Document, Element, Event, EventInit, File,
    FilePropertyBag, HtmlElement, HtmlInputElement,
};

use super::sites::{ImageInput, SiteProfile};

/// Why a picture could not be attached. Codes are stable; messages are for the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ImageError {
    /// The site's profile knows no way to attach an image, or its file input is not on the
    /// page.
    #[error("BAI does not know how to attach a picture on this chat site, so it sent none")]
    VisionUnsupportedSite,
    /// No composer matched the site table.
    #[error("the chat's message box was not found; the page may have changed")]
    ComposerNotFound,
    /// The browser refused to build the file or the event.
    #[error("the browser could not attach the picture: {0}")]
    Browser(String),
}

impl ImageError {
    /// The stable snake_case code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::VisionUnsupportedSite => "vision_unsupported_site",
            Self::ComposerNotFound => "composer_not_found",
            Self::Browser(_) => "image_not_attached",
        }
    }
}

fn browser_error(error: wasm_bindgen::JsValue) -> ImageError {
    ImageError::Browser(
        error
            .as_string()
            .or_else(|| {
                js_sys::Reflect::get(&error, &"message".into())
                    .ok()
                    .and_then(|m| m.as_string())
            })
            .unwrap_or_else(|| "unknown error".to_owned()),
    )
}

/// Hands `bytes` (a `mime` image named `name`) to the chat of `profile` as the user attaching a
/// file would.
pub fn attach_image(
    document: &Document,
    profile: &SiteProfile,
    bytes: &[u8],
    mime: &str,
    name: &str,
) -> Result<(), ImageError> {
    if profile.image_input == ImageInput::None {
        return Err(ImageError::VisionUnsupportedSite);
    }
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = FilePropertyBag::new();
    options.set_type(mime);
    let file = File::new_with_u8_array_sequence_and_options(&parts, name, &options)
        .map_err(browser_error)?;
    let transfer = DataTransfer::new().map_err(browser_error)?;
    transfer
        .items()
        .add_with_file(&file)
        .map_err(browser_error)?;
    match profile.image_input {
        ImageInput::None => Err(ImageError::VisionUnsupportedSite),
        ImageInput::FileInput { inputs, .. } => {
            let input = file_input(document, inputs).ok_or(ImageError::VisionUnsupportedSite)?;
            input.set_files(transfer.files().as_ref());
            for name in ["input", "change"] {
                let init = EventInit::new();
                init.set_bubbles(true);
                let event = Event::new_with_event_init_dict(name, &init).map_err(browser_error)?;
                input.dispatch_event(&event).map_err(browser_error)?;
            }
            Ok(())
        }
        ImageInput::Paste => paste(document, profile, &transfer),
    }
}

fn file_input(document: &Document, inputs: &[&str]) -> Option<HtmlInputElement> {
    inputs
        .iter()
        .find_map(|selector| document.query_selector(selector).ok().flatten())
        .and_then(|found| found.dyn_into::<HtmlInputElement>().ok())
}

/// The remove controls of the attachments the composer shows now (see
/// [`ImageInput::FileInput`]); none where the profile names no such control.
pub fn attachment_controls(document: &Document, profile: &SiteProfile) -> Vec<Element> {
    let ImageInput::FileInput { remove, .. } = profile.image_input else {
        return Vec::new();
    };
    let mut found: Vec<Element> = Vec::new();
    for selector in remove {
        let Ok(list) = document.query_selector_all(selector) else {
            continue;
        };
        for element in (0..list.length())
            .filter_map(|index| list.item(index))
            .filter_map(|node| node.dyn_into::<Element>().ok())
        {
            if !found.contains(&element) {
                found.push(element);
            }
        }
    }
    found
}

/// One step of taking BAI's picture back out of the composer: empties the site's file input
/// (a site that reads it only when the message goes), and presses the remove control of every
/// attachment that is not in `before` (the ones shown before BAI attached, the user's own).
/// Answers how many attachments not in `before` it found.
pub fn remove_attachments_since(
    document: &Document,
    profile: &SiteProfile,
    before: &[Element],
) -> usize {
    let ImageInput::FileInput { inputs, .. } = profile.image_input else {
        return 0;
    };
    if let Some(input) = file_input(document, inputs) {
        if input.files().is_some_and(|files| files.length() > 0) {
            input.set_value("");
        }
    }
    let added: Vec<Element> = attachment_controls(document, profile)
        .into_iter()
        .filter(|control| !before.contains(control))
        .collect();
    for control in &added {
        if let Some(button) = control.dyn_ref::<HtmlElement>() {
            button.click();
        }
    }
    added.len()
}

/// Whether the site's file input still holds files (a site that reads it only on send).
pub fn file_input_holds_files(document: &Document, profile: &SiteProfile) -> bool {
    let ImageInput::FileInput { inputs, .. } = profile.image_input else {
        return false;
    };
    file_input(document, inputs)
        .and_then(|input| input.files())
        .is_some_and(|files| files.length() > 0)
}

/// A `paste` of `transfer` on the composer.
fn paste(
    document: &Document,
    profile: &SiteProfile,
    transfer: &DataTransfer,
) -> Result<(), ImageError> {
    let composer = profile
        .find_composer(document)
        .ok_or(ImageError::ComposerNotFound)?;
    let init = ClipboardEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_clipboard_data(Some(transfer));
    let event = ClipboardEvent::new_with_event_init_dict("paste", &init).map_err(browser_error)?;
    composer
        .unchecked_ref::<web_sys::EventTarget>()
        .dispatch_event(&event)
        .map_err(browser_error)?;
    Ok(())
}
