//! Where a control's text is drawn on the screen: the pieces [`crate::policy::drawn`] reads as
//! the user sees them (letters drawn right to left, pieces placed in another order, letters
//! that take room unseen, lines the text does not break).
//!
//! Cost: one box list per text node; a box per character only for a node that can be drawn
//! out of its order or over several lines (right-to-left letters or bidirectional controls in
//! it, its last letter drawn left of its first, more than one box). Bounded by
//! [`MAX_MEASURES`] boxes per control: past it the rest of the text is not read this way (it
//! is still judged as the name and the text read it).

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DomRect, Element, Node, Range};

use super::js;
use super::tree::{ShadowAccess, as_element, children};
use crate::policy::drawn::{Piece, is_invisible_format, read_drawn};

/// Boxes measured per control at most: a short label's letters take a few, a text node on one
/// line 1 to 4, a paragraph over many lines about 2 log2 n per line (its line ends searched).
pub const MAX_MEASURES: usize = 8192;

/// A control's text as drawn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drawn {
    /// The reading ([`read_drawn`]).
    pub text: String,
    /// Whether some of the text was not read: past [`MAX_MEASURES`] boxes or deeper than the
    /// walk goes. The review then asks (`text_too_long`) rather than judging part of it.
    pub cut: bool,
}

/// `element`'s text as it is drawn, read by [`read_drawn`]; its elements that `skip` says (secret
/// fields) and what is inside them are left out, `<script>` and `<style>` too, and text drawn
/// far outside the element's box (moved off the screen: not seen).
pub fn drawn_text_skipping(element: &Element, skip: &dyn Fn(&Element) -> bool) -> Drawn {
    if element.local_name() == "input" {
        return Drawn {
            text: drawn_button_value(element).unwrap_or_default(),
            cut: false,
        };
    }
    let Some(document) = element.owner_document() else {
        return Drawn::default();
    };
    let Ok(range) = document.create_range() else {
        return Drawn::default();
    };
    let options = js_sys::Object::new();
    js::put(&options, "opacityProperty", &JsValue::TRUE);
    js::put(&options, "visibilityProperty", &JsValue::TRUE);
    let mut walk = Walk {
        root: element.clone(),
        skip,
        range,
        options: options.into(),
        shadow: ShadowAccess::detect(),
        pieces: Vec::new(),
        nodes: 0,
        measures: 0,
        cut: false,
        seen: None,
        generated: Vec::new(),
        blends: None,
        holes: Vec::new(),
        blended: Vec::new(),
        styles: js_sys::Map::new(),
        read: Vec::new(),
    };
    walk.collect(element.as_ref(), 0);
    // Around the element's box, as far again as its height (a badge drawn beside it counts).
    let rect = element.get_bounding_client_rect();
    let margin = rect.height().max(32.0);
    let near = |piece: &Piece| {
        let (x, y) = (
            (piece.left + piece.right) / 2.0,
            (piece.top + piece.bottom) / 2.0,
        );
        x >= rect.left() - margin
            && x <= rect.right() + margin
            && y >= rect.top() - margin
            && y <= rect.bottom() + margin
    };
    // Letters under 4 pixels high as drawn (a transform or zoom counted) cannot be read.
    // (The larger side: a narrow letter written down a column is short.)
    let readable = |piece: &Piece| (piece.bottom - piece.top).max(piece.right - piece.left) >= 4.0;
    let pieces: Vec<Piece> = walk
        .pieces
        .into_iter()
        .filter(|piece| near(piece) && readable(piece))
        .collect();
    let right_to_left = super::visibility::computed_style(element)
        .and_then(|style| style.get_property_value("direction").ok())
        .is_some_and(|direction| direction == "rtl");
    let mut text = read_drawn(&pieces, right_to_left);
    // Read again with the room unseen text takes: a decoy letter drawn invisible inside
    // "de·lete" leaves a gap the user reads across (red team red5, session 18).
    if !walk.holes.is_empty() {
        let blended = walk.blended;
        let mut with_holes: Vec<Piece> = pieces
            .into_iter()
            .filter(|piece| !blended.contains(&piece.node))
            .collect();
        with_holes.extend(walk.holes.into_iter().filter(|hole| near(hole)));
        let closed = read_drawn(&with_holes, right_to_left);
        if closed != text {
            text = format!("{text} | {closed}");
        }
    }
    let mut cut = walk.cut;
    if !walk.generated.is_empty() {
        // Past the words glued to, unknown: asks (red team red6: 70 small words first).
        let words = text
            .split(" | ")
            .next()
            .unwrap_or_default()
            .split_whitespace();
        cut |= walk.generated.len() > MAX_GENERATED || words.count() > MAX_GLUED_WORDS;
        text = with_generated_glued(text, &walk.generated);
    }
    Drawn { text, cut }
}

/// Generated texts with letters per control read at most (more: the review asks,
/// `text_too_long`).
const MAX_GENERATED: usize = 4;

/// Words of the reading at most that generated text is glued to ([`with_generated_glued`]).
const MAX_GLUED_WORDS: usize = 64;

/// `reading` followed, after " | ", by each generated text glued to every word of it: before
/// the word, after it, and between two words. No range measures a `::before` or `::after` box,
/// so where its text is drawn is not known: a box moved out of its flow (`position:
/// absolute`, a float, a flex `order`) can put "de" before a "lete" the page order reads
/// after it, and a name read in page order then holds no "delete" (red team red5, session
/// 18). Each is read in its order and reversed (drawn right to left), and glued every way
/// the words it sits among could show it.
fn with_generated_glued(reading: String, generated: &[String]) -> String {
    let words: Vec<&str> = reading
        .split(" | ")
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .take(MAX_GLUED_WORDS)
        .collect();
    let mut glued: Vec<String> = Vec::new();
    for text in generated.iter().take(MAX_GENERATED) {
        let text: String = text.split_whitespace().collect();
        let reversed: String = text.chars().rev().collect();
        for shown in [&text, &reversed] {
            glued.push(shown.clone());
            for (at, word) in words.iter().enumerate() {
                glued.push(format!("{shown}{word}"));
                glued.push(format!("{word}{shown}"));
                if let Some(next) = words.get(at + 1) {
                    glued.push(format!("{word}{shown}{next}"));
                }
            }
        }
    }
    let mut out = reading;
    for one in glued {
        out.push_str(" | ");
        out.push_str(&one);
    }
    out
}

/// The value an `<input type=button|submit|reset>` draws, in the order it is drawn: spans
/// forced right to left by U+202E reversed, and the whole reversed when the input's letters are
/// forced right to left (`unicode-bidi: bidi-override` or `isolate-override` with `direction:
/// rtl`): no text node shows it to be measured (red teams red4 and red5, session 18).
fn drawn_button_value(input: &Element) -> Option<String> {
    let kind = input
        .get_attribute("type")
        .unwrap_or_default()
        .to_ascii_lowercase();
    if !matches!(kind.as_str(), "button" | "submit" | "reset") {
        return None;
    }
    let value = js::get_string(input, "value")?;
    Some(in_drawn_order(input, &value))
}

/// What a form field inside a control draws, in the order it is drawn (see
/// [`drawn_button_value`]): a text field's value (or its placeholder while empty), a text
/// area's, the chosen options of a `<select>` (all of them in a list box), an input button's
/// label. No text node holds it (red team red5, session 18: a word in a read-only field inside
/// a button, or in a `<select>` there, was not read). A password field never: its value is a
/// secret ([`crate::dom::secret`] skips secret fields before this is asked).
fn drawn_field_text(field: &Element) -> Option<String> {
    match field.local_name().as_str() {
        "input" => {
            // The property: an unknown `type` attribute reads "text", as the field is drawn
            // (red team red6: `type=foo` drew its value unread).
            let kind = js::get_string(field, "type")
                .unwrap_or_default()
                .to_ascii_lowercase();
            match kind.as_str() {
                "button" | "submit" | "reset" => drawn_button_value(field),
                "" | "text" | "search" | "email" | "url" | "tel" | "number" => {
                    shown_value_or_placeholder(field)
                }
                _ => None,
            }
        }
        "textarea" => shown_value_or_placeholder(field),
        // A broken image draws its alternative text (red team red6).
        "img" => {
            let broken = js::get(field, "naturalWidth").as_f64().unwrap_or(0.0) == 0.0;
            let alt = field.get_attribute("alt").unwrap_or_default();
            broken.then(|| in_drawn_order(field, &alt))
        }
        "select" => {
            let list_box = js::get_bool(field, "multiple").unwrap_or(false)
                || js::get(field, "size").as_f64().unwrap_or(0.0) > 1.0;
            let options = js::get(
                field,
                if list_box {
                    "options"
                } else {
                    "selectedOptions"
                },
            );
            let count = js::get(&options, "length").as_f64().unwrap_or(0.0) as u32;
            let labels: Vec<String> = (0..count.min(64))
                .filter_map(|at| js::get_string(&js::get(&options, &at.to_string()), "label"))
                .collect();
            Some(in_drawn_order(field, &labels.join("\n")))
        }
        _ => None,
    }
}

/// A text field's value as drawn, or its placeholder while it is empty.
fn shown_value_or_placeholder(field: &Element) -> Option<String> {
    let value = js::get_string(field, "value").unwrap_or_default();
    let shown = if value.is_empty() {
        field.get_attribute("placeholder").unwrap_or_default()
    } else {
        value
    };
    Some(in_drawn_order(field, &shown))
}

/// `text`, drawn by `element` without a text node, in the order it is drawn: its U+202E
/// spans reversed, and all of it reversed when `element` forces its letters right to left.
fn in_drawn_order(element: &Element, text: &str) -> String {
    let drawn = with_overrides_applied(text);
    let forced_right_to_left = super::visibility::computed_style(element).is_some_and(|style| {
        let bidi = style.get_property_value("unicode-bidi").unwrap_or_default();
        let direction = style.get_property_value("direction").unwrap_or_default();
        bidi.contains("override") && direction == "rtl"
    });
    if forced_right_to_left {
        drawn.chars().rev().collect()
    } else {
        drawn
    }
}

/// `text` with its explicit direction overrides applied: what U+202E (right-to-left override)
/// starts is reversed up to its U+202C (or the end), what U+202D starts keeps its order; the
/// other direction controls are dropped.
pub(crate) fn with_overrides_applied(text: &str) -> String {
    // Open spans: whether each reverses, and what it holds so far.
    let mut frames: Vec<(bool, String)> = vec![(false, String::new())];
    let close = |frames: &mut Vec<(bool, String)>| {
        if frames.len() > 1 {
            if let Some((reversed, held)) = frames.pop() {
                let held: String = if reversed {
                    held.chars().rev().collect()
                } else {
                    held
                };
                if let Some((_, outer)) = frames.last_mut() {
                    outer.push_str(&held);
                }
            }
        }
    };
    for c in text.chars() {
        match c {
            '\u{202E}' => frames.push((true, String::new())),
            '\u{202D}' => frames.push((false, String::new())),
            '\u{202C}' => close(&mut frames),
            c if is_invisible_format(c) => {}
            c => {
                if let Some((_, held)) = frames.last_mut() {
                    held.push(c);
                }
            }
        }
    }
    while frames.len() > 1 {
        close(&mut frames);
    }
    frames.pop().map(|(_, text)| text).unwrap_or_default()
}

struct Walk<'a> {
    root: Element,
    skip: &'a dyn Fn(&Element) -> bool,
    range: Range,
    /// `{opacityProperty: true, visibilityProperty: true}`.
    options: JsValue,
    shadow: ShadowAccess,
    pieces: Vec<Piece>,
    /// Text nodes numbered so far.
    nodes: u32,
    measures: usize,
    cut: bool,
    /// The last parent element asked whether its text is seen, and the answer (text nodes
    /// side by side share their parent).
    seen: Option<(Element, Option<Vec<ClipBox>>)>,
    /// Text of `::before` and `::after` boxes with letters, seen ([`Self::generated_text`]).
    generated: Vec<String>,
    /// The last parent element asked whether its text blends into its background, and the
    /// answer.
    blends: Option<(Element, bool)>,
    /// The boxes of text not seen that takes room, as pieces without text ([`read_drawn`]).
    holes: Vec<Piece>,
    /// Text nodes (by number) drawn in their background's color: in the reading, and left
    /// out of the reading with holes.
    blended: Vec<u32>,
    /// What [`Self::judge_seen`] read of each element's style so far, by element (a
    /// `Map` from the element to its index in `read`): text nodes under different parents
    /// share ancestors, whose style was read again for each (up to ten properties per
    /// ancestor per parent: figure 7). The page cannot change between the reads of one
    /// reading (nothing is awaited in it and no page code runs).
    styles: js_sys::Map,
    read: Vec<AncestorStyle>,
}

/// What [`Walk::judge_seen`] reads of one element on the way up from a text node's parent.
#[derive(Debug, Clone, Copy)]
struct AncestorStyle {
    /// What its `opacity` multiplies the opacity by.
    opacity: f64,
    /// What its `filter` multiplies it by (apart, so the product is taken in the same order
    /// as ever).
    filter: f64,
    /// Whether it hides what it holds whatever the opacity: painted under the control's
    /// background (a negative `z-index`), clipped away, or masked.
    hides: bool,
    /// Its box, when it clips its overflow.
    clip: Option<ClipBox>,
}

impl Walk<'_> {
    fn collect(&mut self, node: &Node, depth: u32) {
        if depth > 256 || self.measures >= MAX_MEASURES {
            self.cut = true;
            return;
        }
        if node.node_type() == Node::TEXT_NODE {
            self.text(node);
            return;
        }
        if let Some(element) = as_element(node) {
            if (self.skip)(element) || matches!(element.local_name().as_str(), "script" | "style") {
                return;
            }
            self.generated_text(element);
            // A form field draws its text without a text node; what it holds (options) is not
            // drawn where its nodes are.
            if depth > 0
                && matches!(
                    element.local_name().as_str(),
                    "input" | "textarea" | "select" | "img"
                )
            {
                self.field(element);
                return;
            }
            // A shadow tree draws the element's content (its slots place the children, whose
            // boxes say where); closed ones too where the browser lets an extension open them.
            if let Some(shadow) = self.shadow.shadow_root(element) {
                for child in children(shadow.as_ref()) {
                    self.collect(&child, depth + 1);
                }
            }
        }
        for child in children(node) {
            self.collect(&child, depth + 1);
        }
    }

    /// The pieces of one text node: the node whole when it is drawn on one line in its own
    /// order, else its characters one by one.
    fn text(&mut self, node: &Node) {
        let text = node.text_content().unwrap_or_default();
        let index = self.nodes;
        self.nodes += 1;
        if text.trim().is_empty() {
            return;
        }
        let Some(parent) = node.parent_element() else {
            return;
        };
        let Some(clips) = self.seen_through(&parent) else {
            self.hole(node, index);
            return;
        };
        // Text drawn in its background's color is read both ways: that color check can be
        // wrong (an inset shadow, a cover drawn over the background, a dark canvas: red team
        // red6), so it never takes text out of the reading, only adds one without it.
        if self.blends_in(&parent) {
            self.hole(node, index);
            self.blended.push(index);
        }
        let before = self.pieces.len();
        self.text_pieces(node, text, index);
        // Drawn outside a box that clips its overflow (a zero-width box holding a decoy
        // letter, a negation scrolled out of a small box): not seen (red team red5).
        if !clips.is_empty() {
            let mut at = 0;
            self.pieces.retain(|piece| {
                at += 1;
                at <= before || clips.iter().all(|clip| clip.holds(piece))
            });
        }
    }

    /// Notes the room a text node not seen takes, as a piece without text (one box).
    fn hole(&mut self, node: &Node, index: u32) {
        if self.measures >= MAX_MEASURES || self.range.select_node_contents(node).is_err() {
            return;
        }
        self.measures += 1;
        let rect = self.range.get_bounding_client_rect();
        if rect.width() > 0.0 && rect.height() > 0.0 {
            self.holes.push(piece(String::new(), index, 0, &rect));
        }
    }

    /// Whether text directly in `parent` is drawn in the color of its background (white on
    /// white: not seen, [`super::text_color::blends_into_background`]).
    fn blends_in(&mut self, parent: &Element) -> bool {
        if let Some((last, blends)) = &self.blends {
            if last == parent {
                return *blends;
            }
        }
        let blends = super::text_color::blends_into_background(parent);
        self.blends = Some((parent.clone(), blends));
        blends
    }

    /// Notes the text `element`'s `::before` and `::after` boxes draw, when it has letters and
    /// is seen: shown (not `display: none`, not hidden, not transparent) on an element whose
    /// text is seen ([`Self::seen_through`]). Its place is not measured
    /// ([`with_generated_glued`]).
    fn generated_text(&mut self, element: &Element) {
        if super::accname::generated_content_absent()
            || matches!(
                element.local_name().as_str(),
                "img" | "br" | "wbr" | "hr" | "input" | "textarea" | "select" | "video" | "iframe"
            )
        {
            return;
        }
        let Some(window) = element.owner_document().and_then(|d| d.default_view()) else {
            return;
        };
        // (Two style reads per element, not counted against `MAX_MEASURES`: the walk visits
        // every element anyway, and a long card of spans would run out of boxes for its text.)
        for pseudo in ["::before", "::after"] {
            let Ok(Some(style)) = window.get_computed_style_with_pseudo_elt(element, pseudo) else {
                continue;
            };
            let property = |name: &str| style.get_property_value(name).unwrap_or_default();
            let content = property("content");
            if matches!(content.as_str(), "" | "none" | "normal")
                || property("display") == "none"
                || property("visibility") != "visible"
                || js::css_number(&property("opacity")).is_some_and(|opacity| opacity < 0.1)
            {
                continue;
            }
            let text =
                super::accname::drawn_css_content(&content, |name| element.get_attribute(name));
            let text = with_overrides_applied(&text);
            if !text.chars().any(char::is_alphabetic) {
                continue;
            }
            if self.seen_through(element).is_none() {
                return;
            }
            self.generated.push(text);
        }
    }

    /// The piece a form field inside the control draws ([`drawn_field_text`]), over the
    /// field's box, if the field is seen.
    fn field(&mut self, field: &Element) {
        let Some(text) = drawn_field_text(field) else {
            return;
        };
        let index = self.nodes;
        self.nodes += 1;
        if text.trim().is_empty() {
            return;
        }
        let Some(clips) = self.seen_through(field) else {
            return;
        };
        self.measures += 1;
        let rect = field.get_bounding_client_rect();
        if rect.width() <= 0.0 && rect.height() <= 0.0 {
            return;
        }
        // A word apart from what is drawn beside it: no text node holds it to be judged in
        // runs, as glued words of two elements are ("deletephotos" when a right-aligned
        // value touches the label).
        let drawn = piece(format!(" {text} "), index, 0, &rect);
        if clips.iter().all(|clip| clip.holds(&drawn)) {
            self.pieces.push(drawn);
        }
    }

    /// The pieces of a seen text node (see [`Self::text`]).
    fn text_pieces(&mut self, node: &Node, text: String, index: u32) {
        if self.range.select_node_contents(node).is_err() {
            return;
        }
        let Ok(Some(rects)) = js::call(self.range.as_ref(), "getClientRects", &[]) else {
            return;
        };
        self.measures += 1;
        let boxes = js::get(&rects, "length").as_f64().unwrap_or(0.0);
        if boxes < 1.0 {
            return;
        }
        let may_reorder = text.chars().any(|c| {
            is_invisible_format(c) || (!c.is_ascii() && crate::policy::drawn::is_right_to_left(c))
        });
        let one_line = boxes == 1.0;
        if !may_reorder && !self.drawn_out_of_order(node, &text) {
            if one_line {
                let rect = js::get(&rects, "0").unchecked_into::<DomRect>();
                self.pieces.push(piece(text, index, 0, &rect));
            } else {
                self.lines_of(node, &text, index);
            }
            return;
        }
        let mut offset = 0u32;
        for (at, c) in text.chars().enumerate() {
            let length = c.len_utf16() as u32;
            let start = offset;
            offset += length;
            if c.is_whitespace() || is_invisible_format(c) {
                continue;
            }
            if self.measures >= MAX_MEASURES {
                self.cut = true;
                return;
            }
            let Some(rect) = self.measure(node, start, start + length) else {
                continue;
            };
            self.pieces
                .push(piece(c.to_string(), index, at as u32, &rect));
        }
    }

    /// A node drawn in its order over several lines, one piece per line: where each line
    /// ends is found by a binary search over its letters' tops (about 2 log2 n boxes a line
    /// instead of one per letter: a long paragraph stays well inside [`MAX_MEASURES`]).
    fn lines_of(&mut self, node: &Node, text: &str, index: u32) {
        let chars: Vec<char> = text.chars().collect();
        // Each letter's character index and UTF-16 range.
        let mut letters: Vec<(usize, u32, u32)> = Vec::new();
        let mut offset = 0u32;
        for (at, c) in chars.iter().enumerate() {
            let length = c.len_utf16() as u32;
            if !c.is_whitespace() {
                letters.push((at, offset, offset + length));
            }
            offset += length;
        }
        let mut start = 0usize;
        while let Some(&(first_at, first_from, first_to)) = letters.get(start) {
            if self.measures >= MAX_MEASURES {
                self.cut = true;
                return;
            }
            let Some(first) = self.measure(node, first_from, first_to) else {
                start += 1;
                continue;
            };
            let below = first.top() + first.height() / 2.0;
            let on_line = |walk: &mut Self, k: usize| {
                letters.get(k).is_some_and(|&(_, from, to)| {
                    walk.measure(node, from, to)
                        .is_none_or(|rect| rect.top() < below)
                })
            };
            // The last letter on this line: `low` is on it, `high` is not (or past the end).
            let (mut low, mut high, mut step) = (start, letters.len(), 1usize);
            while start + step < letters.len() {
                if on_line(self, start + step) {
                    low = start + step;
                    step *= 2;
                } else {
                    high = start + step;
                    break;
                }
            }
            while high - low > 1 {
                let middle = low + (high - low) / 2;
                if on_line(self, middle) {
                    low = middle;
                } else {
                    high = middle;
                }
            }
            let Some(&(last_at, _, last_to)) = letters.get(low) else {
                return;
            };
            if let Some(rect) = self.measure(node, first_from, last_to) {
                let line: String = chars
                    .get(first_at..=last_at)
                    .unwrap_or_default()
                    .iter()
                    .collect();
                self.pieces.push(piece(line, index, first_at as u32, &rect));
            }
            start = low + 1;
        }
    }

    /// Whether a node is drawn otherwise than as one run of letters in its order, told by its
    /// first two letters (two boxes: a card of 2,000 small spans stays inside the budget): the
    /// second above or below the first (vertical writing), left of it (`<bdo dir=rtl>`, a
    /// `unicode-bidi: bidi-override` ancestor), or set apart from it (a `::first-letter`
    /// margin, which Firefox draws inside the node's one box).
    fn drawn_out_of_order(&mut self, node: &Node, text: &str) -> bool {
        let mut letters = Vec::new();
        let mut offset = 0u32;
        for c in text.chars() {
            let length = c.len_utf16() as u32;
            if !c.is_whitespace() {
                letters.push((offset, offset + length));
            }
            offset += length;
        }
        let (Some(&first), Some(&second)) = (letters.first(), letters.get(1)) else {
            return false;
        };
        let (Some(first), Some(second)) = (
            self.measure(node, first.0, first.1),
            self.measure(node, second.0, second.1),
        ) else {
            return false;
        };
        // Letters one above the other (`writing-mode: vertical-*`, one letter per line): read
        // letter by letter, each its own line (red team red4, session 18).
        let stacked =
            (second.top() - first.top()).abs() > first.height().min(second.height()) / 2.0;
        // A forced right-to-left order draws the second letter left of the first; one letter
        // set apart from the next shows two words.
        stacked
            || second.left() < first.left()
            || crate::policy::drawn::gap_breaks(
                second.left() - first.right(),
                first.height().min(second.height()),
            )
    }

    /// The box of `node`'s UTF-16 units `start..end`, if it is drawn with a size.
    fn measure(&mut self, node: &Node, start: u32, end: u32) -> Option<DomRect> {
        self.measures += 1;
        self.range.set_start(node, start).ok()?;
        self.range.set_end(node, end).ok()?;
        let rect = self.range.get_bounding_client_rect();
        (rect.width() > 0.0 || rect.height() > 0.0).then_some(rect)
    }

    /// Whether text directly in `parent` is seen: shown (not `visibility: hidden`, not
    /// `opacity: 0`), at a size one can read, with an opacity up to the control, a color and a
    /// filter that leave it visible (or outlined, shadowed, or painting a background through
    /// it), and not clipped away as screen-reader-only text is (a zero `clip` rectangle, a
    /// `clip-path` inset by half or more, a zero circle) on it or an element up to the control.
    /// Nearly invisible counts as unseen (red team red4, session 18: `opacity: 0.001`, an alpha
    /// of 0.004, `filter: opacity(0)`), and so does masked text and text a negative `z-index`
    /// paints under the control's background. `None` when unseen, else the
    /// boxes up to the control that clip their overflow, outside which a piece is not seen.
    fn seen_through(&mut self, parent: &Element) -> Option<Vec<ClipBox>> {
        if let Some((last, seen)) = &self.seen {
            if last == parent {
                return seen.clone();
            }
        }
        let seen = self.judge_seen(parent);
        self.seen = Some((parent.clone(), seen.clone()));
        seen
    }

    fn judge_seen(&mut self, parent: &Element) -> Option<Vec<ClipBox>> {
        let shown =
            super::visibility::check_visibility(parent, Some(&self.options)).unwrap_or(true);
        if !shown {
            return None;
        }
        let Some(style) = super::visibility::computed_style(parent) else {
            return Some(Vec::new());
        };
        let property = |name: &str| style.get_property_value(name).unwrap_or_default();
        if is_faint(&property("-webkit-text-fill-color"))
            && css_length_is_zero(&property("-webkit-text-stroke-width"))
            && matches!(property("text-shadow").as_str(), "none" | "")
            && !paints_through_text(parent)
        {
            return None;
        }
        let mut opacity = 1.0;
        let mut clips = Vec::new();
        let mut current = Some(parent.clone());
        while let Some(element) = current {
            if let Some(read) = self.ancestor_style(&element) {
                opacity *= read.opacity;
                opacity *= read.filter;
                if opacity < 0.1 || read.hides {
                    return None;
                }
                clips.extend(read.clip);
            }
            if element == self.root {
                break;
            }
            current = element.parent_element();
        }
        Some(clips)
    }

    /// What `element`'s style says of the text inside it ([`AncestorStyle`]), read once per
    /// reading; `None` without a computed style.
    fn ancestor_style(&mut self, element: &Element) -> Option<AncestorStyle> {
        let known = self.styles.get(element.as_ref());
        if let Some(index) = known.as_f64() {
            // Indexes are written below from `read`'s length only.
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "a small non-negative index this walk wrote"
            )]
            return self.read.get(index as usize).copied();
        }
        if known.is_null() {
            return None;
        }
        let Some(style) = super::visibility::computed_style(element) else {
            // Remembered as having none (`null`), so it is not asked again.
            self.styles.set(element.as_ref(), &JsValue::NULL);
            return None;
        };
        let property = |name: &str| style.get_property_value(name).unwrap_or_default();
        let opacity = js::css_number(&property("opacity")).unwrap_or(1.0);
        let filter = filter_opacity(&property("filter"));
        // A negative `z-index` paints the text under the control's background (red
        // team red5: a "never" hidden so before a reversed "delete").
        let under =
            property("position") != "static" && property("z-index").trim_start().starts_with('-');
        let hides = under
            || clips_away(&property("clip"), &property("clip-path"))
            || !matches!(property("mask-image").as_str(), "none" | "")
            || !matches!(property("-webkit-mask-image").as_str(), "none" | "");
        let clip = (!matches!(property("overflow-x").as_str(), "visible" | "")
            || !matches!(property("overflow-y").as_str(), "visible" | ""))
        .then(|| {
            let rect = element.get_bounding_client_rect();
            ClipBox {
                left: rect.left(),
                right: rect.right(),
                top: rect.top(),
                bottom: rect.bottom(),
            }
        });
        let read = AncestorStyle {
            opacity,
            filter,
            hides,
            clip,
        };
        #[allow(
            clippy::cast_precision_loss,
            reason = "a count of elements, far below 2^53"
        )]
        let index = self.read.len() as f64;
        self.styles.set(element.as_ref(), &JsValue::from_f64(index));
        self.read.push(read);
        Some(read)
    }
}

/// The box of an element that clips what overflows it (`overflow` other than `visible`).
#[derive(Debug, Clone, Copy)]
struct ClipBox {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl ClipBox {
    /// Whether the middle of `piece` is inside the box (a pixel of slack for rounding).
    fn holds(&self, piece: &Piece) -> bool {
        let x = (piece.left + piece.right) / 2.0;
        let y = (piece.top + piece.bottom) / 2.0;
        x >= self.left - 1.0
            && x <= self.right + 1.0
            && y >= self.top - 1.0
            && y <= self.bottom + 1.0
    }
}

/// The opacity a computed `filter` leaves: the product of its `opacity(…)` functions (a number
/// or a percentage).
fn filter_opacity(filter: &str) -> f64 {
    let mut opacity = 1.0;
    let mut rest = filter;
    while let Some(at) = rest.find("opacity(") {
        rest = rest.get(at + "opacity(".len()..).unwrap_or_default();
        let argument = rest.split(')').next().unwrap_or_default().trim();
        let value = match argument.strip_suffix('%') {
            Some(percent) => js::css_number(percent).map(|p| p / 100.0),
            None => js::css_number(argument),
        };
        opacity *= value.unwrap_or(1.0);
    }
    opacity
}

/// Whether a computed `clip` or `clip-path` hides what it clips, as screen-reader-only text is
/// hidden: a `rect()` one pixel or less across, an `inset()` whose opposite sides meet, a
/// circle or ellipse of no size. Other clips leave text seen (a shape drawn around a button).
fn clips_away(clip: &str, clip_path: &str) -> bool {
    if let Some(inner) = clip.trim().strip_prefix("rect(") {
        let values: Vec<f64> = inner
            .trim_end_matches(')')
            .split([',', ' '])
            .filter(|value| !value.is_empty())
            .map(|value| js::css_pixels(value).unwrap_or(0.0))
            .collect();
        if let [top, right, bottom, left] = values[..] {
            if right - left <= 1.0 || bottom - top <= 1.0 {
                return true;
            }
        }
    }
    let path = clip_path.trim();
    if let Some(inner) = path.strip_prefix("inset(") {
        // `inset(top right bottom left)` as CSS shortens it; only percentages are judged (a
        // length cannot be compared with the box here). Hidden when the insets meet.
        let values: Vec<Option<f64>> = inner
            .split(" round")
            .next()
            .unwrap_or_default()
            .trim_end_matches(')')
            .split_whitespace()
            .map(|value| value.strip_suffix('%').and_then(js::css_number))
            .collect();
        let side = |index: usize| -> Option<f64> {
            let at = match (values.len(), index) {
                (1, _) => 0,
                (2, 0 | 2) | (3, 0) => 0,
                (2 | 3, 1 | 3) => 1,
                (3, 2) => 2,
                (_, index) => index,
            };
            values.get(at).copied().flatten()
        };
        let meets = |a: usize, b: usize| match (side(a), side(b)) {
            (Some(a), Some(b)) => a + b >= 100.0,
            _ => false,
        };
        return meets(0, 2) || meets(1, 3);
    }
    ["circle(0", "ellipse(0"].iter().any(|zero| {
        path.strip_prefix(zero)
            .is_some_and(|rest| rest.starts_with(['p', '%', ' ', ')']))
    })
}

/// Whether a computed color is (nearly) transparent: `transparent`, or an alpha under 0.1
/// (`rgba(r, g, b, a)`, `color(… / a)`).
fn is_faint(color: &str) -> bool {
    let color = color.trim();
    if color == "transparent" {
        return true;
    }
    let Some(inner) = color.strip_suffix(')') else {
        return false;
    };
    let alpha = if let Some((_, alpha)) = inner.rsplit_once('/') {
        alpha
    } else if inner.starts_with("rgba(") && inner.matches(',').count() == 3 {
        inner.rsplit_once(',').map_or("", |(_, alpha)| alpha)
    } else {
        return false;
    };
    let alpha = alpha.trim();
    let value = match alpha.strip_suffix('%') {
        Some(percent) => js::css_number(percent).map(|p| p / 100.0),
        None => js::css_number(alpha),
    };
    value.is_some_and(|value| value < 0.1)
}

fn css_length_is_zero(value: &str) -> bool {
    matches!(value.trim(), "" | "0" | "0px")
}

/// Whether `element` or an ancestor clips its background to its text (`background-clip:
/// text`, gradient headings drawn with transparent letters).
fn paints_through_text(element: &Element) -> bool {
    let mut current = Some(element.clone());
    while let Some(element) = current {
        if let Some(style) = super::visibility::computed_style(&element) {
            let clip = |name: &str| style.get_property_value(name).unwrap_or_default();
            if clip("background-clip").contains("text")
                || clip("-webkit-background-clip").contains("text")
            {
                return true;
            }
        }
        current = element.parent_element();
    }
    false
}

fn piece(text: String, node: u32, at: u32, rect: &DomRect) -> Piece {
    Piece {
        text,
        node,
        at,
        left: rect.left(),
        right: rect.right(),
        top: rect.top(),
        bottom: rect.bottom(),
    }
}
