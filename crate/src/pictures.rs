//! Why a `screenshot`'s picture was not taken or not sent, as the extension reports it: stable
//! codes and plain messages, one place for both browsers' glue (the background takes the
//! picture; the chat tab attaches it). Pure: no browser here.

use serde::Serialize;

/// Why no picture was sent. Codes are stable; messages are for the user and the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
#[non_exhaustive]
pub enum PictureError {
    /// The browser's capture needs the `<all_urls>` permission (optional; the panel's
    /// "Pictures of pages" asks for it), and BAI does not hold it.
    #[error(
        "BAI may not take pictures of pages yet. Turn on “Pictures of pages” in the BAI panel (Settings); the browser asks you once. BAI took no picture"
    )]
    PermissionMissing,
    /// Chromium pictures only the visible tab of a window, and the target is not it (or its
    /// window is minimized, or the user switched tabs while the picture was taken).
    #[error(
        "the target page ({origin}) is not the visible tab of its window, and Chromium can take a picture only of that tab. Move the target page into a window of its own (drag its tab out of the window) and keep it open, then ask again. BAI did not switch your tabs"
    )]
    TargetHidden {
        /// The target's origin.
        origin: String,
    },
    /// The page scrolled or was resized between the picture and the second look at its masks.
    #[error(
        "the page scrolled or changed size while BAI took the picture, so it sent none. Ask again when the page is still"
    )]
    PageMoved,
    /// What to hide could not be worked out (before or after the picture): fail closed.
    #[error("BAI could not tell what to hide on the page, so it sent no picture")]
    MasksUnavailable,
    /// The browser's capture or the image drawing failed.
    #[error("the browser did not take or prepare the picture: {detail}")]
    CaptureFailed {
        /// The browser's words.
        detail: String,
    },
    /// A screenshot is of the bound target, never of the chat tab itself.
    #[error(
        "a screenshot is of the page you bound with “Copy protocol prompt”, never of the chat itself; bind a target page first"
    )]
    NeedsTarget,
}

impl PictureError {
    /// The stable snake_case code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::PermissionMissing => "screenshot_permission_missing",
            Self::TargetHidden { .. } => "screenshot_target_hidden",
            Self::PageMoved => "screenshot_page_moved",
            Self::MasksUnavailable => "screenshot_masks_unavailable",
            Self::CaptureFailed { .. } => "screenshot_failed",
            Self::NeedsTarget => "screenshot_needs_target",
        }
    }

    /// The error of `code`, for the glue (which knows what happened, not how to say it);
    /// `origin` and `detail` fill the messages that name them. An unknown code is a capture
    /// failure: the picture is never sent on a code nobody knows.
    pub fn from_code(code: &str, origin: &str, detail: &str) -> Self {
        match code {
            "screenshot_permission_missing" => Self::PermissionMissing,
            "screenshot_target_hidden" => Self::TargetHidden {
                origin: origin.to_owned(),
            },
            "screenshot_page_moved" => Self::PageMoved,
            "screenshot_masks_unavailable" => Self::MasksUnavailable,
            "screenshot_needs_target" => Self::NeedsTarget,
            _ => Self::CaptureFailed {
                detail: detail.to_owned(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_reads_back_as_itself_and_says_what_to_do() {
        let all = [
            PictureError::PermissionMissing,
            PictureError::TargetHidden {
                origin: "https://shop.example".into(),
            },
            PictureError::PageMoved,
            PictureError::MasksUnavailable,
            PictureError::CaptureFailed {
                detail: "boom".into(),
            },
            PictureError::NeedsTarget,
        ];
        for error in &all {
            let again = PictureError::from_code(error.code(), "https://shop.example", "boom");
            assert_eq!(&again, error);
            assert!(!error.to_string().is_empty());
        }
        assert!(
            PictureError::TargetHidden {
                origin: "https://shop.example".into()
            }
            .to_string()
            .contains("https://shop.example")
        );
        assert!(
            PictureError::PermissionMissing
                .to_string()
                .contains("Pictures of pages")
        );
        assert_eq!(
            PictureError::from_code("nonsense", "", "x").code(),
            "screenshot_failed"
        );
    }
}
