//! `text`: elements whose visible text (normalized, including open shadow roots) matches; the
//! innermost matching element wins. Button-like inputs match on their value; script, style and
//! hidden elements never match; a secret field's text (a textarea's, an editor's) counts as
//! nothing.
//!
//! Asking whether an element is rendered is the dearest call of the walk (`checkVisibility`
//! looks at the element's ancestors; a third of the query on a large page when every element
//! was asked). So the walk first reads every element's text as if everything were rendered,
//! and asks only where the answer can change the result: an element is a candidate only when
//! the wanted text, folded, is a subsequence of its folded text so read (a sound filter: its
//! rendered text is the same text with the pieces of its hidden descendants taken out); a
//! candidate's own and its ancestors' rendering is then asked, and its rendered text read by
//! asking its descendants that hold text. The answer is the one a walk that asks every
//! element and stops at hidden ones gives: an element matches when it and the elements the
//! walk entered it through are rendered, it is visible, its rendered text matches and no
//! element inside it matched. Only iframes are asked as they are met (a hidden frame is not
//! entered), and button-like inputs with a value (their value counts only when they are
//! rendered and no secret field).
//!
//! An element matches only when its text as the model is shown it matches too
//! ([`Shown::still_matches`]): a guess at a reset token or a card number in a paragraph
//! answers `not_found` whether right or wrong, and the walk goes on to the element's
//! ancestors as if it had not matched (whose shown text hides the same part). Only elements
//! whose text matched are redacted, so an ordinary query pays one short redaction.

use std::borrow::Cow;

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlSlotElement, Node};

use super::aria::has_cdata_section;
use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::address::Shown;
use crate::dom::js;
use crate::dom::matching::{TextMatcher, fold_for_containment, fold_has_subsequence};
use crate::dom::secret::{SecretScan, classify};
use crate::dom::tree::{assigned_or_fallback, can_host_shadow, children, iframe_document};
use crate::dom::visibility::{is_rendered, is_visible};
use crate::protocol::Selector;

/// The text engine.
#[derive(Debug, Clone, Copy)]
pub struct TextEngine;

impl SelectorEngine for TextEngine {
    fn query_all(
        &self,
        root: &QueryRoot,
        selector: &Selector,
    ) -> Result<Vec<Element>, SelectorError> {
        // One walk: the secret fields of each scope (document, shadow root, frame) are found
        // as the walk enters it, before any of its elements is asked about.
        // Inputs are classified one by one, and only when their text would count (see
        // `input_text`).
        let mut scan = SecretScan::default();
        scan.add_scope_without_inputs(root.document.as_ref());
        let cdata = has_cdata_section(root.document.as_ref());
        let mut walk = Walk {
            root,
            scan,
            matcher: TextMatcher::new(&selector.value, selector.exact),
            folded: fold_for_containment(&selector.value),
            out: Vec::new(),
            text: String::new(),
            entered: Vec::new(),
            parent: None,
            cdata,
            shown: Shown::new(&root.document),
        };
        if let Some(body) = root.document.body() {
            walk.element_text(&body, &body.local_name());
        }
        Ok(walk.out)
    }
}

/// An element the walk entered, with the text it holds if everything in it is rendered.
struct Entered {
    element: Element,
    /// The element the walk entered it through (`None` for the top document's body).
    parent: Option<usize>,
    /// Its text: `Walk::text[start..end]`.
    start: usize,
    end: usize,
    /// One past the last element entered inside it (they follow it in `Walk::entered`).
    last: usize,
    /// Whether it is rendered, once asked.
    rendered: Option<bool>,
}

struct Walk<'a> {
    root: &'a QueryRoot,
    /// Secret fields contribute no text and never match.
    scan: SecretScan,
    matcher: TextMatcher,
    /// The wanted text folded ([`fold_for_containment`]), for the candidate filter.
    folded: String,
    out: Vec<Element>,
    /// The text of every text node walked, in order: each entered element's text is one range.
    text: String,
    /// The elements walked, in the order they were entered.
    entered: Vec<Entered>,
    /// The element being walked, whose children are walked next.
    parent: Option<usize>,
    /// Whether the scope being walked (document, shadow root) holds a CDATA section.
    cdata: bool,
    /// The redaction the model's texts go through: a match must hold on the text as shown.
    shown: Shown<'a>,
}

impl Walk<'_> {
    /// Walks the element: appends its text to `self.text` as if everything in it were
    /// rendered, and decides whether it matches once everything inside it has been decided.
    /// `tag` is its local name, read once by the caller: every element of the page passes
    /// here, so each call into the page counts.
    fn element_text(&mut self, element: &Element, tag: &str) {
        if matches!(tag, "script" | "style" | "noscript" | "template" | "head") {
            return;
        }
        // The walk starts at the top and never enters a secret field, so the field itself is
        // the only thing to recognise (an input is recognised in `input_text`).
        if self.scan.is_secret_field(element) {
            return;
        }
        if tag == "input" {
            return self.input_text(element);
        }
        // A hidden frame is not entered (its document may still lay itself out).
        let frame = tag == "iframe";
        if frame && !is_rendered(element) {
            return;
        }
        let before = self.out.len();
        let index = self.enter(element, frame.then_some(true));
        let parent = self.parent.replace(index);
        if frame {
            if let Some(document) = iframe_document(element) {
                self.scan.add_scope_without_inputs(document.as_ref());
                if let Some(body) = document.body() {
                    // The frame's text is not the iframe's: its elements are decided here and
                    // then forgotten.
                    let (text, entered) = (self.text.len(), self.entered.len());
                    let cdata =
                        std::mem::replace(&mut self.cdata, has_cdata_section(document.as_ref()));
                    self.element_text(&body, &body.local_name());
                    self.cdata = cdata;
                    self.text.truncate(text);
                    self.entered.truncate(entered);
                }
            }
        }
        if !self.cdata && element.child_element_count() == 0 {
            // A leaf (most elements with text): its text nodes are the only nodes in it that
            // hold text (comments and processing instructions hold none, and the scope has no
            // CDATA section, which `textContent` would count), so `textContent` is their text,
            // read in one call instead of one per child.
            if let Some(text) = element.text_content() {
                self.text.push_str(&text);
            }
        } else {
            let mut child = element.first_child();
            while let Some(current) = child {
                child = current.next_sibling();
                self.node_text(&current);
            }
        }
        let shadow = can_host_shadow(tag)
            .then(|| self.root.shadow.open(element))
            .flatten();
        if let Some(shadow) = shadow {
            self.scan.add_scope_without_inputs(shadow.as_ref());
            let cdata = std::mem::replace(&mut self.cdata, has_cdata_section(shadow.as_ref()));
            for child in children(shadow.as_ref()) {
                self.node_text(&child);
            }
            self.cdata = cdata;
        }
        self.parent = parent;
        self.leave(index, self.out.len() > before);
    }

    /// An input's text: its value for the button types, else nothing. Most inputs are not
    /// buttons, and an empty text that cannot match adds nothing whether the input is rendered
    /// or secret, so neither is asked about it.
    fn input_text(&mut self, element: &Element) {
        // The names made JS strings once (`js::attribute`): every input of the page is asked.
        let input_type = js::attribute(element, "type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let text = if matches!(input_type.as_str(), "button" | "submit" | "reset") {
            js::attribute(element, "value").unwrap_or_else(|| match input_type.as_str() {
                "submit" => "Submit".to_owned(),
                "reset" => "Reset".to_owned(),
                _ => String::new(),
            })
        } else {
            String::new()
        };
        if text.is_empty() && !self.matcher.matches(&text) {
            return;
        }
        // The scan left inputs out: one whose text counts is classified here, and a secret
        // one counts as nothing and never matches, as every secret field.
        if !is_rendered(element) || classify(element).is_some() {
            return;
        }
        let index = self.enter(element, Some(true));
        self.text.push_str(&text);
        self.leave(index, false);
    }

    fn node_text(&mut self, node: &Node) {
        match node.node_type() {
            Node::TEXT_NODE => {
                if let Some(text) = node.text_content() {
                    self.text.push_str(&text);
                }
                return;
            }
            Node::ELEMENT_NODE => {}
            _ => return,
        }
        // An element of any realm (a same-origin frame's nodes fail `instanceof`).
        let element: &Element = node.unchecked_ref();
        let tag = element.local_name();
        if tag == "slot" {
            let slot: &HtmlSlotElement = element.unchecked_ref();
            // Assigned nodes are light-DOM children, counted with their host; only fallback
            // content belongs to the slot (walked as the parent's own children: the slot
            // itself is never asked about).
            let options = web_sys::AssignedNodesOptions::new();
            if slot.assigned_nodes_with_options(&options).length() > 0 {
                return;
            }
            for child in assigned_or_fallback(slot) {
                self.node_text(&child);
            }
            return;
        }
        self.element_text(element, &tag);
    }

    /// Notes that the walk enters `element` (its text starts here).
    fn enter(&mut self, element: &Element, rendered: Option<bool>) -> usize {
        let index = self.entered.len();
        self.entered.push(Entered {
            element: element.clone(),
            parent: self.parent,
            start: self.text.len(),
            end: self.text.len(),
            last: index + 1,
            rendered,
        });
        index
    }

    /// Closes the element entered at `index` and decides whether it matches: not when an
    /// element inside it matched, nor when its text cannot hold the wanted text whatever is
    /// hidden; else when it and the elements the walk entered it through are rendered, its
    /// rendered text matches and it is visible.
    fn leave(&mut self, index: usize, inner_matched: bool) {
        let (end, last) = (self.text.len(), self.entered.len());
        let Some(entry) = self.entered.get_mut(index) else {
            return;
        };
        entry.end = end;
        entry.last = last;
        let start = entry.start;
        if inner_matched
            || !fold_has_subsequence(self.text.get(start..end).unwrap_or(""), &self.folded)
        {
            return;
        }
        let mut up = Some(index);
        while let Some(at) = up {
            if !self.rendered(at) {
                return;
            }
            up = self.entered.get(at).and_then(|e| e.parent);
        }
        let hidden = self.hidden_ranges(index);
        if !self
            .matcher
            .matches(&without(&self.text, start, end, &hidden))
        {
            return;
        }
        let parts = self.parts(index, &hidden);
        if !self.shown.still_matches_parts(&self.matcher, &parts) {
            return;
        }
        if let Some(entry) = self.entered.get(index) {
            if is_visible(&entry.element) {
                self.out.push(entry.element.clone());
            }
        }
    }

    /// The rendered text of the element entered at `index` (its range without the `hidden`
    /// ranges), cut wherever the text of an element inside it starts or ends: for
    /// [`Shown::still_matches_parts`], so that what redaction hides in a descendant's own text
    /// stays hidden in this one's. Asked only of an element whose text matched.
    fn parts(&self, index: usize, hidden: &[(usize, usize)]) -> Vec<&str> {
        let Some(&Entered {
            start, end, last, ..
        }) = self.entered.get(index)
        else {
            return Vec::new();
        };
        let mut cuts = vec![start, end];
        for inner in self.entered.get(index + 1..last).unwrap_or_default() {
            cuts.extend([inner.start, inner.end]);
        }
        cuts.sort_unstable();
        cuts.dedup();
        cuts.windows(2)
            .filter_map(|pair| match *pair {
                [from, to] if start <= from && to <= end => Some((from, to)),
                _ => None,
            })
            // A hidden range is a descendant's whole range, so its stretches lie inside it.
            .filter(|&(from, to)| {
                !hidden
                    .iter()
                    .any(|&(h_start, h_end)| h_start <= from && to <= h_end)
            })
            .filter_map(|(from, to)| self.text.get(from..to))
            .collect()
    }

    /// Whether the element entered at `index` is rendered, asked once.
    fn rendered(&mut self, index: usize) -> bool {
        let Some(entry) = self.entered.get_mut(index) else {
            return false;
        };
        *entry
            .rendered
            .get_or_insert_with(|| is_rendered(&entry.element))
    }

    /// The ranges of `self.text` that the element entered at `index` holds but that are not
    /// rendered, in order: each descendant that holds text is asked, and a hidden one's range
    /// (everything inside it) is left out.
    fn hidden_ranges(&mut self, index: usize) -> Vec<(usize, usize)> {
        let mut hidden = Vec::new();
        let Some(&Entered { last, .. }) = self.entered.get(index) else {
            return hidden;
        };
        let mut at = index + 1;
        while let Some(&Entered {
            start,
            end,
            last: inner_last,
            ..
        }) = self.entered.get(at).filter(|_| at < last)
        {
            // Without text nothing inside it holds text either.
            if start == end {
                at = inner_last;
            } else if self.rendered(at) {
                at += 1;
            } else {
                hidden.push((start, end));
                at = inner_last;
            }
        }
        hidden
    }
}

/// `text[start..end]` without the `hidden` ranges (in order, inside it).
fn without<'a>(text: &'a str, start: usize, end: usize, hidden: &[(usize, usize)]) -> Cow<'a, str> {
    if hidden.is_empty() {
        return Cow::Borrowed(text.get(start..end).unwrap_or(""));
    }
    let mut out = String::with_capacity(end - start);
    let mut from = start;
    for &(hidden_start, hidden_end) in hidden {
        out.push_str(text.get(from..hidden_start).unwrap_or(""));
        from = hidden_end;
    }
    out.push_str(text.get(from..end).unwrap_or(""));
    Cow::Owned(out)
}
