//! Whether text is drawn in the color of what is behind it: letters white on white take room
//! and are in every reading of the DOM, but the user does not see them (red team red5,
//! session 18: a decoy letter inside "de·lete" that Firefox and Chromium draw invisible).

use web_sys::Element;

use super::visibility::computed_style;
use crate::policy::drawn::{blends, rgba};

/// Ancestors looked at for the background behind text at most (past them: not known).
const MAX_BACKGROUND_DEPTH: usize = 64;

/// Whether the text directly in `element` is drawn in (nearly) the color of the first
/// background behind it: the nearest ancestor (itself included) with an opaque background
/// color, or the page's white canvas. Not known (so seen) when an image or gradient is
/// behind it, the text is outlined or shadowed, a color is written in a form other than
/// `rgb()`, or the page asks for a dark canvas.
pub(crate) fn blends_into_background(element: &Element) -> bool {
    let Some(style) = computed_style(element) else {
        return false;
    };
    let property = |name: &str| style.get_property_value(name).unwrap_or_default();
    if !matches!(property("text-shadow").as_str(), "none" | "")
        || !matches!(
            property("-webkit-text-stroke-width").trim(),
            "" | "0" | "0px"
        )
    {
        return false;
    }
    let Some(text) = rgba(&property("-webkit-text-fill-color"), super::js::css_number) else {
        return false;
    };
    let mut current = Some(element.clone());
    for _ in 0..MAX_BACKGROUND_DEPTH {
        let Some(element) = current else {
            // The canvas: white unless the page asks for a dark one.
            let dark = element_color_scheme_dark(&style);
            return !dark && blends(text, [255.0, 255.0, 255.0]);
        };
        let Some(style) = computed_style(&element) else {
            return false;
        };
        let property = |name: &str| style.get_property_value(name).unwrap_or_default();
        if !matches!(property("background-image").as_str(), "none" | "") {
            return false;
        }
        let Some(background) = rgba(&property("background-color"), super::js::css_number) else {
            return false;
        };
        let [red, green, blue, alpha] = background;
        match alpha {
            alpha if alpha >= 0.95 => return blends(text, [red, green, blue]),
            // A see-through background mixes with what is behind it: not known.
            alpha if alpha > 0.05 => return false,
            _ => {}
        }
        current = super::tree::composed_parent(&element);
    }
    false
}

fn element_color_scheme_dark(style: &web_sys::CssStyleDeclaration) -> bool {
    style
        .get_property_value("color-scheme")
        .unwrap_or_default()
        .contains("dark")
}
