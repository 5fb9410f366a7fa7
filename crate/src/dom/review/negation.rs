//! Whether the negation that opens a control's text ("Don't delete", "Never delete") is seen
//! as the words after it are. A page can hide a "never" in many ways (a span drawn white on a
//! cover, clipped, indented out of the box, a line of its own under `::first-line`, a cover
//! laid over it, a field's scrolled value) while its name and text still open with it (red
//! team red6, session 19). Rather than chase each way, a negation counts only for the plainest
//! control: one text node, on one line, inside its box, nothing styling part of it apart, and
//! the control itself at the negation's place on the screen. Anywhere else the review reads
//! the text without the negation too ([`crate::policy::without_opening_negation`]), and
//! asks as for the bare verb.
//!
//! Not covered: a cover that lets the pointer through (`pointer-events: none`) is not found by
//! the hit test, and a web font can draw any letter as nothing.

use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

use super::super::js;
use super::super::tree::ShadowAccess;
use super::super::visibility::computed_style;

/// Ancestors whose clip or mask could hide part of the text, looked at most.
const MAX_ANCESTORS: usize = 64;

/// Whether `element`'s opening negation is seen as its words after it are (see the module).
/// `drawn_as_text`: the drawn reading has the text's words in its order.
pub(super) fn negation_shown(element: &Element, drawn_as_text: bool) -> bool {
    if !drawn_as_text {
        return false;
    }
    let shadow = ShadowAccess::detect();
    if shadow.shadow_root(element).is_some() {
        return false;
    }
    let nodes = element.child_nodes();
    let Some(text) = nodes.item(0) else {
        return false;
    };
    if nodes.length() != 1 || text.node_type() != Node::TEXT_NODE {
        return false;
    }
    let Some(style) = computed_style(element) else {
        return false;
    };
    let property = |name: &str| style.get_property_value(name).unwrap_or_default();
    let plain = |value: String| matches!(value.as_str(), "none" | "" | "normal");
    let whole_styled = css_zero(&property("text-indent"))
        && plain(property("clip-path"))
        && plain(property("mask-image"))
        && plain(property("-webkit-mask-image"))
        && plain(property("filter"))
        && !property("background-clip").contains("text")
        && !property("-webkit-background-clip").contains("text");
    if !whole_styled || !pseudo_boxes_plain(element, &style) || !ancestors_plain(element) {
        return false;
    }
    let Some(document) = element.owner_document() else {
        return false;
    };
    let Ok(range) = document.create_range() else {
        return false;
    };
    if range.select_node_contents(&text).is_err() {
        return false;
    }
    // One line, inside the control's box.
    let lines = js::call(range.as_ref(), "getClientRects", &[])
        .ok()
        .flatten()
        .map_or(0.0, |rects| {
            js::get(&rects, "length").as_f64().unwrap_or(0.0)
        });
    let drawn = range.get_bounding_client_rect();
    let own = element.get_bounding_client_rect();
    let inside = drawn.left() >= own.left() - 1.0
        && drawn.right() <= own.right() + 1.0
        && drawn.top() >= own.top() - 1.0
        && drawn.bottom() <= own.bottom() + 1.0;
    if lines != 1.0 || !inside {
        return false;
    }
    // The control itself where its first word is drawn: nothing laid over the negation.
    let content = text.text_content().unwrap_or_default();
    let leading = content.len() - content.trim_start().len();
    let first_end = content
        .get(leading..)
        .and_then(|rest| rest.find(char::is_whitespace))
        .map_or(content.len(), |end| leading + end);
    let utf16 = |bytes: usize| {
        content
            .get(..bytes)
            .map_or(0, |head| head.encode_utf16().count() as u32)
    };
    if range.set_start(&text, utf16(leading)).is_err()
        || range.set_end(&text, utf16(first_end)).is_err()
    {
        return false;
    }
    let word = range.get_bounding_client_rect();
    let (x, y) = (
        ((word.left() + word.right()) / 2.0) as f32,
        ((word.top() + word.bottom()) / 2.0) as f32,
    );
    top_element_at(&shadow, &document, x, y)
        .is_some_and(|hit| hit == *element || element.contains(Some(hit.as_ref())))
}

/// The topmost element at `(x, y)`, inside shadow trees.
fn top_element_at(
    shadow: &ShadowAccess,
    document: &web_sys::Document,
    x: f32,
    y: f32,
) -> Option<Element> {
    let mut hit = document.element_from_point(x, y)?;
    for _ in 0..32 {
        let Some(root) = shadow.shadow_root(&hit) else {
            break;
        };
        let inner = js::call(root.as_ref(), "elementFromPoint", &[x.into(), y.into()])
            .ok()
            .flatten();
        match inner.and_then(|inner| inner.dyn_into::<Element>().ok()) {
            Some(inner) if inner != hit => hit = inner,
            _ => break,
        }
    }
    Some(hit)
}

/// Whether `::first-letter` and `::first-line` draw like the element, and no `::before` or
/// `::after` adds text.
fn pseudo_boxes_plain(element: &Element, style: &web_sys::CssStyleDeclaration) -> bool {
    let Some(window) = element.owner_document().and_then(|d| d.default_view()) else {
        return false;
    };
    let drawing = ["color", "opacity", "visibility", "font-size", "text-shadow"];
    let own: Vec<String> = drawing
        .iter()
        .map(|name| style.get_property_value(name).unwrap_or_default())
        .collect();
    for pseudo in ["::first-letter", "::first-line"] {
        let Ok(Some(part)) = window.get_computed_style_with_pseudo_elt(element, pseudo) else {
            return false;
        };
        let same = drawing
            .iter()
            .zip(&own)
            .all(|(name, value)| part.get_property_value(name).unwrap_or_default() == *value);
        if !same {
            return false;
        }
    }
    ["::before", "::after"].iter().all(|pseudo| {
        window
            .get_computed_style_with_pseudo_elt(element, pseudo)
            .ok()
            .flatten()
            .is_some_and(|part| {
                matches!(
                    part.get_property_value("content")
                        .unwrap_or_default()
                        .as_str(),
                    "none" | "normal" | "\"\"" | ""
                )
            })
    })
}

/// Whether no ancestor clips or masks part of what it holds (a `clip-path`, a mask).
fn ancestors_plain(element: &Element) -> bool {
    let mut current = element.parent_element();
    for _ in 0..MAX_ANCESTORS {
        let Some(ancestor) = current else {
            return true;
        };
        let Some(style) = computed_style(&ancestor) else {
            return false;
        };
        let property = |name: &str| style.get_property_value(name).unwrap_or_default();
        if !matches!(property("clip-path").as_str(), "none" | "")
            || !matches!(property("mask-image").as_str(), "none" | "")
            || !matches!(property("-webkit-mask-image").as_str(), "none" | "")
        {
            return false;
        }
        current = ancestor.parent_element();
    }
    false
}

fn css_zero(value: &str) -> bool {
    matches!(value.trim(), "" | "0" | "0px")
}
