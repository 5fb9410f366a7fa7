//! What a picture of the page must hide and may number: the boxes a `screenshot` paints opaque
//! before the image leaves the browser (secret fields, text the secret scan would redact, every
//! frame) and the boxes it draws around listed elements with their ref numbers.
//!
//! Rectangles are in CSS pixels of the top viewport (what `getBoundingClientRect` gives),
//! clipped to it. The glue scales them to the captured image. Frames are masked whole, same
//! origin or not: a cross-origin frame cannot be scanned at all (a payment form), and a
//! same-origin one has its own viewport, whose fields the top-level rectangles do not place.

use serde::Serialize;
use web_sys::Element;

use super::js;
use super::redact::redact_secrets;
use super::secret::SecretScan;
use super::tree::QueryRoot;
use crate::protocol::json_write::{self, SortedObject};

// The rectangle and viewport types are the picture check's (`crate::pictures`), so what the
// page reports and what the check reads are one type.
pub use crate::pictures::{Rect, Viewport};

/// Why a box is masked (for the result's counts and the tests; never what it hid).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MaskKind {
    /// A password or other secret field (see [`crate::dom::secret`]).
    SecretField,
    /// A field or an element whose text the secret scan would redact: its own text, or the
    /// text of the smallest element a secret split over several children lies in.
    SecretText,
    /// A frame, embed or object: its content cannot be scanned from here.
    Frame,
}

/// One opaque box.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Mask {
    /// What is hidden.
    pub kind: MaskKind,
    /// Where.
    #[serde(flatten)]
    pub rect: Rect,
}

/// One numbered box: the element with ref `@e{number}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Mark {
    /// The ref's number.
    pub number: u32,
    /// Where.
    #[serde(flatten)]
    pub rect: Rect,
}

/// What a picture of the page hides, and the viewport it was computed in.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Masks {
    /// The viewport.
    pub viewport: Viewport,
    /// The boxes to paint opaque.
    pub masks: Vec<Mask>,
}

impl MaskKind {
    /// The kind's name, as serialized.
    pub fn name(self) -> &'static str {
        match self {
            Self::SecretField => "secret_field",
            Self::SecretText => "secret_text",
            Self::Frame => "frame",
        }
    }
}

// What `screen_masks` answers and `screenshot` reports, written by hand instead of with the
// derived `Serialize` (which the tests keep, to check these against: `browser_json_out`), so
// the executor's wasm carries no serde serializer for them.

/// The fields of `rect` (`x, y, width, height`) into `object`, as serde_json writes an `f64`.
fn rect_fields(object: &mut SortedObject, rect: &Rect) {
    object.json("x", json_write::float_json(rect.x));
    object.json("y", json_write::float_json(rect.y));
    object.json("width", json_write::float_json(rect.width));
    object.json("height", json_write::float_json(rect.height));
}

/// `viewport` as JSON text: what `serde_json::to_value` of the derived `Serialize` gives (keys
/// sorted when written).
pub fn viewport_json(viewport: &Viewport) -> String {
    let mut object = SortedObject::new();
    for (key, value) in [
        ("width", viewport.width),
        ("height", viewport.height),
        ("device_pixel_ratio", viewport.device_pixel_ratio),
        ("scroll_x", viewport.scroll_x),
        ("scroll_y", viewport.scroll_y),
        ("visual_scale", viewport.visual_scale),
        ("visual_offset_x", viewport.visual_offset_x),
        ("visual_offset_y", viewport.visual_offset_y),
    ] {
        object.json(key, json_write::float_json(value));
    }
    object.into_json()
}

impl Mask {
    /// The mask as JSON text: what `serde_json::to_value` of the derived `Serialize` gives
    /// (keys sorted when written).
    pub fn to_json(&self) -> String {
        let mut object = SortedObject::new();
        object.string("kind", self.kind.name());
        rect_fields(&mut object, &self.rect);
        object.into_json()
    }
}

impl Mark {
    /// The mark as JSON text: what `serde_json::to_value` of the derived `Serialize` gives
    /// (keys sorted when written).
    pub fn to_json(&self) -> String {
        let mut object = SortedObject::new();
        object.number("number", u64::from(self.number));
        rect_fields(&mut object, &self.rect);
        object.into_json()
    }
}

impl Masks {
    /// The masks as JSON text, byte for byte what `serde_json::to_string` of the derived
    /// `Serialize` writes (fields in declaration order, a rectangle's fields after its kind).
    pub fn to_json_string(&self) -> String {
        use crate::protocol::json_write::{Object, list};
        let mut out = String::new();
        let mut object = Object::new(&mut out);
        let viewport = &self.viewport;
        let mut view = Object::new(object.key("viewport"));
        for (key, value) in [
            ("width", viewport.width),
            ("height", viewport.height),
            ("device_pixel_ratio", viewport.device_pixel_ratio),
            ("scroll_x", viewport.scroll_x),
            ("scroll_y", viewport.scroll_y),
            ("visual_scale", viewport.visual_scale),
            ("visual_offset_x", viewport.visual_offset_x),
            ("visual_offset_y", viewport.visual_offset_y),
        ] {
            json_write::float(view.key(key), value);
        }
        view.end();
        list(object.key("masks"), &self.masks, |out, mask| {
            let mut fields = Object::new(out);
            fields.string("kind", mask.kind.name());
            let rect = &mask.rect;
            for (key, value) in [
                ("x", rect.x),
                ("y", rect.y),
                ("width", rect.width),
                ("height", rect.height),
            ] {
                json_write::float(fields.key(key), value);
            }
            fields.end();
        });
        object.end();
        out
    }
}

/// Why masks could not be computed: the picture must not be taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MasksUnavailable(pub &'static str);

fn viewport() -> Result<Viewport, MasksUnavailable> {
    let window = web_sys::window().ok_or(MasksUnavailable("no window"))?;
    let number = |value: Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue>| {
        value.ok().and_then(|v| v.as_f64())
    };
    let width = number(window.inner_width()).ok_or(MasksUnavailable("no viewport width"))?;
    let height = number(window.inner_height()).ok_or(MasksUnavailable("no viewport height"))?;
    // Read by name: an engine without `visualViewport` fails closed (no picture) rather than
    // being assumed unzoomed.
    let visual = js_sys::Reflect::get(&window, &"visualViewport".into())
        .ok()
        .filter(|v| v.is_object())
        .ok_or(MasksUnavailable("no visual viewport"))?;
    let field = |name: &str| {
        js_sys::Reflect::get(&visual, &name.into())
            .ok()
            .and_then(|v| v.as_f64())
            .ok_or(MasksUnavailable("no visual viewport"))
    };
    Ok(Viewport {
        width,
        height,
        device_pixel_ratio: window.device_pixel_ratio(),
        scroll_x: window.scroll_x().unwrap_or(0.0),
        scroll_y: window.scroll_y().unwrap_or(0.0),
        visual_scale: field("scale")?,
        visual_offset_x: field("offsetLeft")?,
        visual_offset_y: field("offsetTop")?,
    })
}

/// The elements whose content is another document or a plugin: masked whole, and hidden by the
/// capture's user stylesheet.
fn is_frame(element: &Element) -> bool {
    matches!(
        element.local_name().as_str(),
        "iframe" | "frame" | "embed" | "object" | "portal" | "fencedframe"
    )
}

/// Whether every frame of the top document (shadow trees included) is computed
/// `visibility: hidden` and `opacity: 0` now: the capture's user stylesheet took effect, so
/// nothing of another origin's document can be painted, wherever a filter, reflection or
/// `element()` would move its pixels. `false` (no picture) when the page cannot be read.
pub fn frames_hidden() -> bool {
    let Some(root) = QueryRoot::current() else {
        return false;
    };
    let walked = root.walk();
    walked
        .elements
        .iter()
        .filter(|element| element.owner_document().as_ref() == Some(&root.document))
        .filter(|element| is_frame(element))
        .all(|element| {
            super::visibility::computed_style(element).is_some_and(|style| {
                style.get_property_value("visibility").ok().as_deref() == Some("hidden")
                    && style.get_property_value("opacity").ok().as_deref() == Some("0")
            })
        })
}

/// `element`'s box clipped to the viewport; `None` when nothing of it is in view or it has no
/// area.
pub fn visible_rect(element: &Element, viewport: &Viewport) -> Option<Rect> {
    let r = element.get_bounding_client_rect();
    clip(r.left(), r.top(), r.right(), r.bottom(), viewport)
}

/// A field's current value, when it is a text field (never logged or returned: only tested).
fn field_value(element: &Element) -> Option<String> {
    // By tag, not `instanceof`: the field may be in a frame (another realm).
    match element.local_name().as_str() {
        "input" | "textarea" => js::get_string(element, "value"),
        _ => None,
    }
}

/// Whether `text` holds something the secret scan redacts.
fn is_secret_text(text: &str) -> bool {
    text.trim().chars().count() >= 4 && redact_secrets(text) != text
}

/// Whether `element`'s own text (its text-node children, joined: a key may come in several
/// nodes, as React renders adjacent strings) holds something the secret scan redacts.
fn own_text_is_secret(element: &Element) -> bool {
    let children = element.child_nodes();
    let own: String = (0..children.length())
        .filter_map(|i| children.item(i))
        .filter(|node| node.node_type() == web_sys::Node::TEXT_NODE)
        .filter_map(|node| node.text_content())
        .collect();
    is_secret_text(&own)
}

/// Whether `element` is the smallest element holding a secret split over its children (a
/// card number in one span per group): its whole text redacts, no child element's does.
fn joined_text_is_secret(element: &Element) -> bool {
    if !element
        .text_content()
        .is_some_and(|text| is_secret_text(&text))
    {
        return false;
    }
    let children = element.children();
    !(0..children.length())
        .filter_map(|i| children.item(i))
        .any(|child| {
            child
                .text_content()
                .is_some_and(|text| is_secret_text(&text))
        })
}

/// Where `element` and its text are painted, clipped to the viewport: its box united with the
/// box of a `Range` over its contents, which also holds text overflowing the box and the text
/// of a `display: contents` element (no box of its own).
fn text_rect(element: &Element, viewport: &Viewport) -> Option<Rect> {
    let own = element.get_bounding_client_rect();
    let mut rects = vec![(own.left(), own.top(), own.right(), own.bottom())];
    if let Some(range) = element
        .owner_document()
        .and_then(|document| document.create_range().ok())
    {
        if range.select_node_contents(element).is_ok() {
            let text = range.get_bounding_client_rect();
            rects.push((text.left(), text.top(), text.right(), text.bottom()));
        }
    }
    // A box without area (display: contents gives all zeros) is no place.
    let (left, top, right, bottom) = rects
        .into_iter()
        .filter(|(l, t, r, b)| r > l || b > t)
        .reduce(|a, b| (a.0.min(b.0), a.1.min(b.1), a.2.max(b.2), a.3.max(b.3)))?;
    clip(left, top, right, bottom, viewport)
}

/// The rectangle from `left` to `right` and `top` to `bottom` clipped to the viewport; `None`
/// when nothing of it is in view.
fn clip(left: f64, top: f64, right: f64, bottom: f64, viewport: &Viewport) -> Option<Rect> {
    let left = left.max(0.0);
    let top = top.max(0.0);
    let right = right.min(viewport.width);
    let bottom = bottom.min(viewport.height);
    (right > left && bottom > top).then_some(Rect {
        x: left,
        y: top,
        width: right - left,
        height: bottom - top,
    })
}

/// The boxes a picture of the page must hide, now. Fails (and so does the picture) when the
/// page cannot be read.
pub fn masks() -> Result<Masks, MasksUnavailable> {
    let root = QueryRoot::current().ok_or(MasksUnavailable("no document"))?;
    let viewport = viewport()?;
    let walked = root.walk();
    let scan = SecretScan::of_walked(&walked);
    let choice_covers = scan.choice_covers();
    let mut masks = Vec::new();
    for element in &walked.elements {
        // Elements of a frame's document live in the frame's viewport; the frame is masked
        // whole below.
        if element.owner_document().as_ref() != Some(&root.document) {
            continue;
        }
        let kind = match element {
            _ if is_frame(element) => Some(MaskKind::Frame),
            _ if scan.is_secret_field(element) || choice_covers.contains(element) => {
                Some(MaskKind::SecretField)
            }
            _ if field_value(element).is_some_and(|v| redact_secrets(&v) != v) => {
                Some(MaskKind::SecretText)
            }
            _ => None,
        };
        if let Some(kind) = kind {
            if let Some(rect) = visible_rect(element, &viewport) {
                masks.push(Mask { kind, rect });
            }
        } else if own_text_is_secret(element) || joined_text_is_secret(element) {
            // Text, where it is painted (see text_rect).
            if let Some(rect) = text_rect(element, &viewport) {
                masks.push(Mask {
                    kind: MaskKind::SecretText,
                    rect,
                });
            }
        }
    }
    Ok(Masks { viewport, masks })
}

/// The numbered boxes of `items` (ref number and element) that are in view in the top
/// document.
pub fn marks(items: &[(u32, Element)], viewport: &Viewport) -> Vec<Mark> {
    let top = web_sys::window().and_then(|w| w.document());
    items
        .iter()
        .filter(|(_, element)| element.owner_document() == top)
        .filter_map(|(number, element)| {
            visible_rect(element, viewport).map(|rect| Mark {
                number: *number,
                rect,
            })
        })
        .collect()
}
