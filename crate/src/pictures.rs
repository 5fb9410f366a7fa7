//! Why a `screenshot`'s picture was not taken or not sent, as the extension reports it: stable
//! codes and plain messages, one place for both browsers' glue (the background takes the
//! picture; the chat tab attaches it). Pure: no browser here.

use serde::{Deserialize, Serialize};

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
    /// The page scrolled, was resized, moved what the picture hides, or became another
    /// document or origin between the first look at its masks and the second (after the
    /// picture).
    #[error(
        "the page moved, changed or navigated while BAI took the picture, so it sent none. Ask again when the page is still"
    )]
    PageMoved,
    /// The user pinch-zoomed the page: the capture shows the zoomed part, and the masks would
    /// land off target.
    #[error(
        "the page is pinch-zoomed, so BAI cannot place what it must hide and sent no picture. Pinch back out to the normal size, then ask again"
    )]
    PageZoomed,
    /// The captured image is not the size of the viewport the masks were computed in.
    #[error(
        "the browser's picture is not the size of the page's visible area, so BAI cannot place what it must hide and sent no picture"
    )]
    SizeMismatch,
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
            Self::PageZoomed => "screenshot_page_zoomed",
            Self::SizeMismatch => "screenshot_size_mismatch",
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
            "screenshot_page_zoomed" => Self::PageZoomed,
            "screenshot_size_mismatch" => Self::SizeMismatch,
            "screenshot_masks_unavailable" => Self::MasksUnavailable,
            "screenshot_needs_target" => Self::NeedsTarget,
            _ => Self::CaptureFailed {
                detail: detail.to_owned(),
            },
        }
    }
}

/// A rectangle in CSS pixels of the top viewport: a mask or a mark as `dom::vision` reports it
/// (a mask's JSON also carries its kind, not needed here).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// The top viewport of a look, for scaling rectangles to the captured image (`dom::vision`
/// reads it from the page).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Viewport {
    /// `innerWidth` (CSS pixels).
    pub width: f64,
    /// `innerHeight` (CSS pixels).
    pub height: f64,
    /// `devicePixelRatio`.
    pub device_pixel_ratio: f64,
    /// `scrollX`, to tell whether the page moved between two looks.
    pub scroll_x: f64,
    /// `scrollY`.
    pub scroll_y: f64,
    /// `visualViewport.scale`: a pinch zoom (not the browser's zoom, which changes
    /// `devicePixelRatio`). The capture shows the zoomed visual viewport while the rectangles are
    /// in the layout viewport, so a picture is taken only at 1 (checked in [`check_looks`]).
    pub visual_scale: f64,
    /// `visualViewport.offsetLeft`: the visual viewport panned inside the layout viewport.
    pub visual_offset_x: f64,
    /// `visualViewport.offsetTop`.
    pub visual_offset_y: f64,
}

/// One look at the target page around the capture: the screenshot report's before it, the
/// `SCREEN_MASKS` answer after it. `document` is the executor's random id for the document
/// it runs in (a new document, or one restored from the back/forward cache, has another);
/// `origin` is its `location.origin`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Look {
    /// The viewport.
    pub viewport: Viewport,
    /// The boxes to paint opaque.
    pub masks: Vec<Rect>,
    /// The document's id.
    pub document: String,
    /// The document's origin.
    pub origin: String,
}

/// How CSS pixels of the viewport map to the captured image, per axis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PictureScale {
    /// Image pixels per CSS pixel, across.
    pub x: f64,
    /// Image pixels per CSS pixel, down.
    pub y: f64,
}

/// How far (CSS px) a mask may be off between the looks: layout rounding, never a move.
const MASK_TOLERANCE: f64 = 1.0;
/// How far (image px) the image may be off the viewport times the pixel ratio: rounding of a
/// fractional ratio.
const SIZE_TOLERANCE: f64 = 2.0;

/// Whether a picture of `width`×`height` image pixels, taken between `first` and `second`,
/// may have the masks painted and be sent: both looks of one document of `bound_origin`, the
/// page not pinch-zoomed, nothing moved (viewport, scroll, pixel ratio, every mask within
/// [`MASK_TOLERANCE`]), and the image the size of the viewport. The union of two looks covers
/// what appeared or disappeared meanwhile, never what moved and came back: so any change at all
/// sends nothing. Answers the scale per axis.
pub fn check_looks(
    first: &Look,
    second: &Look,
    bound_origin: &str,
    width: f64,
    height: f64,
) -> Result<PictureScale, PictureError> {
    // The same document, of the bound site: never a picture of a page that came back from the
    // back/forward cache, or of another site the tab went to.
    if first.document.is_empty()
        || first.document != second.document
        || first.origin != bound_origin
        || second.origin != bound_origin
    {
        return Err(PictureError::PageMoved);
    }
    let zoomed = |v: &Viewport| {
        (v.visual_scale - 1.0).abs() > 1e-6
            || v.visual_offset_x.abs() > 1e-6
            || v.visual_offset_y.abs() > 1e-6
    };
    if zoomed(&first.viewport) || zoomed(&second.viewport) {
        return Err(PictureError::PageZoomed);
    }
    let (a, b) = (&first.viewport, &second.viewport);
    if a.width != b.width
        || a.height != b.height
        || a.scroll_x != b.scroll_x
        || a.scroll_y != b.scroll_y
        || a.device_pixel_ratio != b.device_pixel_ratio
    {
        return Err(PictureError::PageMoved);
    }
    let near = |p: &Rect, q: &Rect| {
        (p.x - q.x).abs() <= MASK_TOLERANCE
            && (p.y - q.y).abs() <= MASK_TOLERANCE
            && (p.width - q.width).abs() <= MASK_TOLERANCE
            && (p.height - q.height).abs() <= MASK_TOLERANCE
    };
    if first.masks.len() != second.masks.len()
        || first
            .masks
            .iter()
            .zip(&second.masks)
            .any(|(p, q)| !near(p, q))
    {
        return Err(PictureError::PageMoved);
    }
    let ratio = a.device_pixel_ratio;
    let fits = |image: f64, css: f64| {
        image.is_finite()
            && css > 0.0
            && ratio > 0.0
            && (image - css * ratio).abs() <= SIZE_TOLERANCE
    };
    if !fits(width, a.width) || !fits(height, a.height) {
        return Err(PictureError::SizeMismatch);
    }
    Ok(PictureScale {
        x: width / a.width,
        y: height / a.height,
    })
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
            PictureError::PageZoomed,
            PictureError::SizeMismatch,
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

    fn look(masks: &[(f64, f64, f64, f64)]) -> Look {
        Look {
            viewport: Viewport {
                width: 800.0,
                height: 600.0,
                device_pixel_ratio: 2.0,
                scroll_x: 0.0,
                scroll_y: 120.0,
                visual_scale: 1.0,
                visual_offset_x: 0.0,
                visual_offset_y: 0.0,
            },
            masks: masks
                .iter()
                .map(|&(x, y, width, height)| Rect {
                    x,
                    y,
                    width,
                    height,
                })
                .collect(),
            document: "d1".into(),
            origin: "https://shop.example".into(),
        }
    }

    const SHOP: &str = "https://shop.example";

    fn code(first: &Look, second: &Look, width: f64, height: f64) -> &'static str {
        match check_looks(first, second, SHOP, width, height) {
            Ok(_) => "ok",
            Err(error) => error.code(),
        }
    }

    #[test]
    fn still_page_of_the_right_size_gets_its_scale_per_axis() {
        let a = look(&[(10.0, 20.0, 100.0, 30.0)]);
        let mut b = a.clone();
        // Layout rounding within a pixel is no move.
        b.masks[0].x = 10.6;
        assert_eq!(
            check_looks(&a, &b, SHOP, 1600.0, 1200.0),
            Ok(PictureScale { x: 2.0, y: 2.0 })
        );
        // Within 2 image pixels, each axis on its own.
        let scale = check_looks(&a, &b, SHOP, 1601.0, 1198.0).unwrap();
        assert!((scale.x - 1601.0 / 800.0).abs() < 1e-9);
        assert!((scale.y - 1198.0 / 600.0).abs() < 1e-9);
    }

    #[test]
    fn a_mask_that_moved_or_appeared_between_the_looks_sends_nothing() {
        let a = look(&[(10.0, 20.0, 100.0, 30.0), (0.0, 300.0, 200.0, 20.0)]);
        let mut moved = a.clone();
        moved.masks[1].y = 302.0;
        assert_eq!(code(&a, &moved, 1600.0, 1200.0), "screenshot_page_moved");
        let mut grown = a.clone();
        grown.masks[0].width = 140.0;
        assert_eq!(code(&a, &grown, 1600.0, 1200.0), "screenshot_page_moved");
        let mut more = a.clone();
        more.masks.push(Rect {
            x: 1.0,
            y: 1.0,
            width: 5.0,
            height: 5.0,
        });
        assert_eq!(code(&a, &more, 1600.0, 1200.0), "screenshot_page_moved");
        assert_eq!(code(&more, &a, 1600.0, 1200.0), "screenshot_page_moved");
        let mut scrolled = a.clone();
        scrolled.viewport.scroll_y = 121.0;
        assert_eq!(code(&a, &scrolled, 1600.0, 1200.0), "screenshot_page_moved");
        let mut ratio = a.clone();
        ratio.viewport.device_pixel_ratio = 1.0;
        assert_eq!(code(&a, &ratio, 1600.0, 1200.0), "screenshot_page_moved");
    }

    #[test]
    fn another_document_or_origin_sends_nothing() {
        let a = look(&[]);
        let mut other_document = a.clone();
        other_document.document = "d2".into();
        assert_eq!(
            code(&a, &other_document, 1600.0, 1200.0),
            "screenshot_page_moved"
        );
        let mut other_origin = a.clone();
        other_origin.origin = "https://chatgpt.com".into();
        assert_eq!(
            code(&a, &other_origin, 1600.0, 1200.0),
            "screenshot_page_moved"
        );
        assert_eq!(
            code(&other_origin, &other_origin, 1600.0, 1200.0),
            "screenshot_page_moved"
        );
        let mut unnamed = a.clone();
        unnamed.document = String::new();
        assert_eq!(
            code(&unnamed, &unnamed, 1600.0, 1200.0),
            "screenshot_page_moved"
        );
    }

    #[test]
    fn a_pinch_zoom_sends_nothing() {
        let a = look(&[]);
        for change in [
            |v: &mut Viewport| v.visual_scale = 1.5,
            |v: &mut Viewport| v.visual_offset_x = 40.0,
            |v: &mut Viewport| v.visual_offset_y = 0.5,
        ] {
            let mut zoomed = a.clone();
            change(&mut zoomed.viewport);
            assert_eq!(
                code(&zoomed, &zoomed, 1600.0, 1200.0),
                "screenshot_page_zoomed"
            );
            assert_eq!(code(&a, &zoomed, 1600.0, 1200.0), "screenshot_page_zoomed");
        }
    }

    #[test]
    fn an_image_not_the_size_of_the_viewport_sends_nothing() {
        let a = look(&[]);
        // A classic scrollbar left out of the capture (15 CSS px), a height cut, the image of
        // another pixel ratio.
        assert_eq!(code(&a, &a, 1570.0, 1200.0), "screenshot_size_mismatch");
        assert_eq!(code(&a, &a, 1600.0, 1190.0), "screenshot_size_mismatch");
        assert_eq!(code(&a, &a, 800.0, 600.0), "screenshot_size_mismatch");
        assert_eq!(code(&a, &a, f64::NAN, 1200.0), "screenshot_size_mismatch");
    }
}
