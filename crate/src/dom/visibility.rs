//! Visibility and enabledness as Playwright's actionability checks define them.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::Element;

use super::js;
use super::tree::composed_parent;

#[wasm_bindgen]
extern "C" {
    /// An element asked whether it has a box, in one call.
    type BoxCheck;
    /// `Element.checkVisibility()`; throws where the browser has no such method.
    #[wasm_bindgen(method, catch, js_name = checkVisibility)]
    fn check_visibility(this: &BoxCheck) -> Result<JsValue, JsValue>;
    /// `Element.checkVisibility(options)`.
    #[wasm_bindgen(method, catch, js_name = checkVisibility)]
    fn check_visibility_with(this: &BoxCheck, options: &JsValue) -> Result<JsValue, JsValue>;
}

/// `element.checkVisibility()` (false for an element without a box: `display: none` here or
/// above, a closed `<details>`' content, a `content-visibility: hidden` subtree), with
/// `options` where given; `None` where the browser has no such method.
pub(crate) fn check_visibility(element: &Element, options: Option<&JsValue>) -> Option<bool> {
    let element = element.unchecked_ref::<BoxCheck>();
    match options {
        Some(options) => element.check_visibility_with(options),
        None => element.check_visibility(),
    }
    .ok()
    .and_then(|value| value.as_bool())
}

/// The computed style of `element`, if it has a window.
pub fn computed_style(element: &Element) -> Option<web_sys::CssStyleDeclaration> {
    let window = element.owner_document()?.default_view()?;
    window.get_computed_style(element).ok().flatten()
}

/// Whether the element is rendered at all (no `display: none` on it or an ancestor, not in a
/// skipped `content-visibility` subtree). Uses `checkVisibility()` where available.
pub fn is_rendered(element: &Element) -> bool {
    // Called on every element a text query walks: one direct call, no method lookup.
    let boxed = match element.unchecked_ref::<BoxCheck>().check_visibility() {
        Ok(value) => value.as_bool().unwrap_or(true),
        Err(_) => {
            // Older engines: an element without a box is not rendered.
            let rect = element.get_bounding_client_rect();
            rect.width() > 0.0 || rect.height() > 0.0
        }
    };
    if boxed {
        return true;
    }
    // `display: contents` (every <slot>, some wrappers) has no box of its own but renders its
    // children: it is rendered when its parent is.
    let contents = computed_style(element)
        .and_then(|s| s.get_property_value("display").ok())
        .is_some_and(|d| d == "contents");
    contents && composed_parent(element).is_none_or(|parent| is_rendered(&parent))
}

/// Visible as Playwright means it: rendered, `visibility: visible`, and a non-empty box (or
/// `display: contents` with a visible child).
pub fn is_visible(element: &Element) -> bool {
    if !is_rendered(element) {
        return false;
    }
    let Some(style) = computed_style(element) else {
        return false;
    };
    if style.get_property_value("visibility").ok().as_deref() != Some("visible") {
        return false;
    }
    if style.get_property_value("display").ok().as_deref() == Some("contents") {
        let mut child = element.first_element_child();
        while let Some(current) = child {
            if is_visible(&current) {
                return true;
            }
            child = current.next_element_sibling();
        }
        return false;
    }
    let rect = element.get_bounding_client_rect();
    rect.width() > 0.0 && rect.height() > 0.0
}

/// Hidden from assistive technology: `aria-hidden="true"` on it or an ancestor, or not rendered,
/// or `visibility: hidden`.
pub fn is_hidden_for_accessibility(element: &Element) -> bool {
    if is_aria_hidden(element) {
        return true;
    }
    // Options of a closed drop-down have no boxes; they are as visible as their <select>.
    let rendered_as = match element.local_name().as_str() {
        "option" | "optgroup" => element
            .closest("select, datalist")
            .ok()
            .flatten()
            .unwrap_or_else(|| element.clone()),
        _ => element.clone(),
    };
    if rendered_as.local_name() == "datalist" {
        return false;
    }
    if !is_rendered(&rendered_as) {
        return true;
    }
    computed_style(&rendered_as)
        .and_then(|s| s.get_property_value("visibility").ok())
        .is_some_and(|v| v == "hidden" || v == "collapse")
}

/// `aria-hidden="true"` on the element or a composed ancestor.
pub fn is_aria_hidden(element: &Element) -> bool {
    let mut current = Some(element.clone());
    while let Some(el) = current {
        if el.get_attribute("aria-hidden").as_deref() == Some("true") {
            return true;
        }
        current = composed_parent(&el);
    }
    false
}

/// Disabled natively, by a disabled `<fieldset>` (outside its first legend), or by
/// `aria-disabled="true"` on it or an ancestor.
pub fn is_disabled(element: &Element) -> bool {
    if is_natively_disableable(element) && element.has_attribute("disabled") {
        return true;
    }
    if is_natively_disableable(element) && in_disabled_fieldset(element) {
        return true;
    }
    if element.local_name() == "option" {
        if let Some(group) = element.closest("optgroup").ok().flatten() {
            if group.has_attribute("disabled") {
                return true;
            }
        }
    }
    let mut current = Some(element.clone());
    while let Some(el) = current {
        match el.get_attribute("aria-disabled").as_deref() {
            Some("true") => return true,
            Some("false") => return false,
            _ => {}
        }
        current = composed_parent(&el);
    }
    // Custom elements (e.g. web components) often reflect `disabled` as a property.
    element.local_name().contains('-')
        && js::get_bool(&JsValue::from(element.clone()), "disabled").unwrap_or(false)
}

fn is_natively_disableable(element: &Element) -> bool {
    matches!(
        element.local_name().as_str(),
        "button" | "input" | "select" | "textarea" | "option" | "optgroup" | "fieldset"
    )
}

fn in_disabled_fieldset(element: &Element) -> bool {
    let mut current = element.parent_element();
    while let Some(ancestor) = current {
        if ancestor.local_name() == "fieldset" && ancestor.has_attribute("disabled") {
            // Controls inside the fieldset's first legend stay enabled.
            let first_legend = first_child_named(&ancestor, "legend");
            let in_legend = first_legend.is_some_and(|legend| legend.contains(Some(element)));
            if !in_legend {
                return true;
            }
        }
        current = ancestor.parent_element();
    }
    false
}

fn first_child_named(element: &Element, name: &str) -> Option<Element> {
    let mut child = element.first_element_child();
    while let Some(current) = child {
        if current.local_name() == name {
            return Some(current);
        }
        child = current.next_element_sibling();
    }
    None
}
