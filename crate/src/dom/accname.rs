//! The W3C accessible name computation (accname 1.2), in the order `dom-actions.md` gives:
//! hidden, aria-labelledby, embedded control, aria-label, host language label (labels, alt,
//! legend, caption, title then placeholder for fields), name from content (with CSS generated
//! content, `aria-owns` and shadow DOM slots), tooltip (`title`). The result is
//! whitespace-normalized.
//!
//! Cost: a name is computed for every candidate of an aria or role selector and every element
//! `observe` lists, so the walk over a subtree avoids every call into the page it can. Below a
//! node already known to be shown, a child is hidden only by its own `aria-hidden`, `display`,
//! `visibility` or rendering (one style read, also used for word breaks), never by an ancestor
//! walk; loops through references (labels, aria-labelledby, aria-owns) are checked only where a
//! reference is followed.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Element, HtmlSlotElement, Node};

use super::js;
use super::matching::normalize_whitespace;
use super::roles::{allows_name_from_content, implicit_role_for, role_of};
use super::secret_field::classify;
use super::tree::{
    ShadowAccess, as_element, as_shadow_root, as_tag, assigned_or_fallback, composed_parent,
    element_by_id_near,
};
use super::visibility::is_hidden_for_accessibility;
use crate::protocol::join::join;

#[wasm_bindgen]
extern "C" {
    /// An element whose attributes are read by a name already in JS.
    type AttributeRead;
    #[wasm_bindgen(method, js_name = getAttribute)]
    fn attribute(this: &AttributeRead, name: &JsValue) -> Option<String>;

    /// A computed style read by a property name already in JS.
    type StyleRead;
    #[wasm_bindgen(method, js_name = getPropertyValue)]
    fn property(this: &StyleRead, name: &JsValue) -> String;

    /// A window asked for computed styles.
    type StyleSource;
    #[wasm_bindgen(method, catch, js_name = getComputedStyle)]
    fn computed_style(this: &StyleSource, element: &Element) -> Result<StyleRead, JsValue>;
    #[wasm_bindgen(method, catch, js_name = getComputedStyle)]
    fn computed_pseudo_style(
        this: &StyleSource,
        element: &Element,
        pseudo: &JsValue,
    ) -> Result<StyleRead, JsValue>;
}

/// `element.getAttribute(name)`.
fn attr(element: &Element, name: &JsValue) -> Option<String> {
    element.unchecked_ref::<AttributeRead>().attribute(name)
}

/// `checkVisibility()` of `element`, `None` where the browser has no such method.
fn has_box(element: &Element) -> Option<bool> {
    super::visibility::check_visibility(element, None)
}

/// `checkVisibility({visibilityProperty: true})`: a box and `visibility: visible`.
fn is_seen(element: &Element, options: &JsValue) -> Option<bool> {
    super::visibility::check_visibility(element, Some(options))
}

/// The accessible name of `element`.
pub fn accessible_name(element: &Element) -> String {
    accessible_name_with(&ShadowAccess::detect(), element)
}

/// The attribute, property and pseudo-element names a computation passes to the page, made
/// into JS strings once per thread instead of being decoded again on each of the thousands of
/// calls a page's names take.
struct JsNames {
    aria_hidden: JsValue,
    aria_labelledby: JsValue,
    aria_labeledby: JsValue,
    aria_label: JsValue,
    aria_owns: JsValue,
    role: JsValue,
    labels: JsValue,
    title: JsValue,
    content: JsValue,
    display: JsValue,
    visibility: JsValue,
    text_transform: JsValue,
    content_visibility: JsValue,
    before: JsValue,
    after: JsValue,
    /// What draws a gap at an inline box's start edge, and at its end edge ([`inline_gap`]):
    /// margin, padding and border width on that side, in the element's own writing direction.
    start_edge: [JsValue; 3],
    end_edge: [JsValue; 3],
    position: JsValue,
    /// `top`, `right`, `bottom`, `left`: how far a relatively positioned box is moved.
    offsets: [JsValue; 4],
    vertical_align: JsValue,
    letter_spacing: JsValue,
    /// `{visibilityProperty: true}` for `checkVisibility`.
    visibility_options: JsValue,
}

impl JsNames {
    fn new() -> Self {
        let options = js_sys::Object::new();
        let _ = js_sys::Reflect::set(
            &options,
            &JsValue::from_str("visibilityProperty"),
            &JsValue::TRUE,
        );
        Self {
            aria_hidden: JsValue::from_str("aria-hidden"),
            aria_labelledby: JsValue::from_str("aria-labelledby"),
            aria_labeledby: JsValue::from_str("aria-labeledby"),
            aria_label: JsValue::from_str("aria-label"),
            aria_owns: JsValue::from_str("aria-owns"),
            role: JsValue::from_str("role"),
            labels: JsValue::from_str("labels"),
            title: JsValue::from_str("title"),
            content: JsValue::from_str("content"),
            display: JsValue::from_str("display"),
            visibility: JsValue::from_str("visibility"),
            text_transform: JsValue::from_str("text-transform"),
            content_visibility: JsValue::from_str("content-visibility"),
            before: JsValue::from_str("::before"),
            after: JsValue::from_str("::after"),
            start_edge: [
                JsValue::from_str("margin-inline-start"),
                JsValue::from_str("padding-inline-start"),
                JsValue::from_str("border-inline-start-width"),
            ],
            end_edge: [
                JsValue::from_str("margin-inline-end"),
                JsValue::from_str("padding-inline-end"),
                JsValue::from_str("border-inline-end-width"),
            ],
            position: JsValue::from_str("position"),
            offsets: [
                JsValue::from_str("top"),
                JsValue::from_str("right"),
                JsValue::from_str("bottom"),
                JsValue::from_str("left"),
            ],
            vertical_align: JsValue::from_str("vertical-align"),
            letter_spacing: JsValue::from_str("letter-spacing"),
            visibility_options: options.into(),
        }
    }
}

thread_local! {
    static JS_NAMES: JsNames = JsNames::new();
    /// Set while a query runs on a page none of whose style sheets can give a `::before` or
    /// `::after` any `content` (see [`with_generated_content_scan`]): the two pseudo-element
    /// style reads per named element, most of a name's cost on large pages, are skipped.
    static NO_GENERATED_CONTENT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Set while a query runs on a page where no style sheet and no inline style mentions
    /// `text-transform` or `content-visibility` (see [`with_generated_content_scan`]): text is
    /// named as written, without a style read per element holding text.
    static NO_TEXT_STYLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Set while [`accessible_name_in_runs`] computes: a break wherever pieces of a name from
    /// content are drawn apart.
    static RUN_BREAKS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The accessible name of `element` with a break wherever its pieces are drawn apart but named
/// joined: not the name (browsers join inline pieces as they are laid out, so a checkbox
/// owning a "delete" placed after its "keep" is named "keepdelete"), but what a judgement of
/// its words must read as well, so that a page's markup cannot glue a risky word to another
/// (`dom::review`). A break goes around each owned element and each generated content, and at
/// the edge of an inline element that draws a gap there ([`inline_gap`]: margin, padding or
/// border on that side, a shifted or spaced-out box); never between adjacent text nodes
/// (React's `Order<!-- -->s` is one word, as shown) nor at an edge drawn flush (an
/// autocomplete's `<b>Pay</b>roll` is one word, as shown): what the user sees as one word is
/// one word (red team, session 16). Boxes of their own (blocks, inline blocks, replaced
/// elements) are apart in the name already. A word the page splits over elements
/// ("De<b>lete</b>") is in the name itself; a judgement reads both.
pub fn accessible_name_in_runs(element: &Element) -> String {
    let before = RUN_BREAKS.with(|flag| flag.replace(true));
    let name = accessible_name(element);
    RUN_BREAKS.with(|flag| flag.set(before));
    name
}

/// Whether the running computation breaks between pieces ([`accessible_name_in_runs`]).
fn run_breaks() -> bool {
    RUN_BREAKS.with(std::cell::Cell::get)
}

/// Style rules read at most per query before giving up on proving that no generated content
/// exists (the scan would then cost more than the reads it saves).
const MAX_SCANNED_RULES: u32 = 4000;

/// Runs `query` (which computes names with [`accessible_name_with`]) knowing, when it can be
/// proved, that no style sheet of `scopes` (documents and shadow roots, each with its own and
/// adopted sheets) styles a `::before` or `::after`: then no element has generated content and
/// its reads are skipped. Any sheet that cannot be read (cross-origin, `@import`) counts as
/// possibly styling them. The proof holds for a synchronous query (no script runs meanwhile).
/// The user-agent sheet's only generated content is the quotes of `<q>`, named without a style
/// read then (see [`quote`]).
///
/// The same scan proves, when it can, that no text is transformed and no element's content is
/// skipped (`text-transform` and `content-visibility` in no rule and in no element's inline
/// style, no `hidden="until-found"`, which the user-agent sheet gives `content-visibility:
/// hidden`): then text nodes are named without reading their style.
pub(crate) fn with_generated_content_scan<R>(scopes: &[Node], query: impl FnOnce() -> R) -> R {
    let mut scan = SheetScan::default();
    scan_sheets(scopes, &mut scan);
    let no_transform = !scan.text_transform && !inline_text_transform(scopes);
    let before = NO_GENERATED_CONTENT.with(|flag| flag.replace(!scan.generated_content));
    let transform_before = NO_TEXT_STYLE.with(|flag| flag.replace(no_transform));
    let out = query();
    NO_GENERATED_CONTENT.with(|flag| flag.set(before));
    NO_TEXT_STYLE.with(|flag| flag.set(transform_before));
    out
}

/// Whether the running query proved that no element has CSS generated content (inside
/// [`with_generated_content_scan`], when the proof held): names then skip the `::before` and
/// `::after` reads, and a selector may rely on a name being made of the DOM's text alone.
pub(crate) fn generated_content_absent() -> bool {
    NO_GENERATED_CONTENT.with(std::cell::Cell::get)
}

/// What the style sheets of a query's scopes may do to names.
#[derive(Default)]
struct SheetScan {
    /// Some rule may give a `::before` or `::after` content (or could not be read).
    generated_content: bool,
    /// Some rule may transform text or skip an element's content (`content-visibility`), or
    /// could not be read.
    text_transform: bool,
}

/// Whether an element of `scopes` has `text-transform` or `content-visibility` in its inline
/// style, or is `hidden="until-found"` (one selector query per scope: cheaper than a style read
/// per element holding text).
fn inline_text_transform(scopes: &[Node]) -> bool {
    scopes.iter().any(|scope| {
        let found = js::call(
            scope,
            "querySelector",
            &[JsValue::from_str(
                "[style*=\"text-transform\" i], [style*=\"content-visibility\" i], \
                 [hidden=\"until-found\" i]",
            )],
        );
        // A scope that cannot be queried counts as possibly transforming.
        !matches!(found, Ok(Some(found)) if found.is_null())
    })
}

fn scan_sheets(scopes: &[Node], scan: &mut SheetScan) {
    let mut budget = MAX_SCANNED_RULES;
    for scope in scopes {
        for list in ["styleSheets", "adoptedStyleSheets"] {
            let sheets = js::get(scope, list);
            if sheets.is_undefined() || sheets.is_null() {
                continue;
            }
            let count = js::get(&sheets, "length").as_f64().unwrap_or(0.0) as u32;
            for i in 0..count {
                let sheet = js::get(&sheets, &i.to_string());
                scan_sheet(&sheet, &mut budget, scan);
                if scan.generated_content && scan.text_transform {
                    return;
                }
            }
        }
    }
}

/// Notes what `sheet` may do: give a pseudo-element content (some rule mentions `before` or
/// `after`; a grouping or nesting rule's text includes its inner rules), transform text (some
/// rule mentions `text-transform`), or anything (a rule cannot be read).
fn scan_sheet(sheet: &JsValue, budget: &mut u32, scan: &mut SheetScan) {
    let unknown = |scan: &mut SheetScan| {
        scan.generated_content = true;
        scan.text_transform = true;
    };
    // Reading `cssRules` of a cross-origin sheet throws: `get` answers undefined.
    let rules = js::get(sheet, "cssRules");
    if rules.is_undefined() || rules.is_null() {
        return unknown(scan);
    }
    let count = js::get(&rules, "length").as_f64().unwrap_or(0.0) as u32;
    if count > *budget {
        return unknown(scan);
    }
    *budget -= count;
    for i in 0..count {
        let rule = js::get(&rules, &i.to_string());
        let Some(text) = js::get_string(&rule, "cssText") else {
            return unknown(scan);
        };
        let text = text.to_ascii_lowercase();
        if text.starts_with("@import") {
            return unknown(scan);
        }
        scan.generated_content |= text.contains("before") || text.contains("after");
        scan.text_transform |=
            text.contains("text-transform") || text.contains("content-visibility");
        if scan.generated_content && scan.text_transform {
            return;
        }
    }
}

/// The accessible name of `element`, opening shadow roots with `shadow`.
pub fn accessible_name_with(shadow: &ShadowAccess, element: &Element) -> String {
    normalize_whitespace(&accessible_name_unnormalized(shadow, element))
}

/// [`accessible_name_with`] before whitespace is normalized: for a caller that normalizes it
/// anyway (a `TextMatcher` does), so each name is scanned once, not twice.
pub(crate) fn accessible_name_unnormalized(shadow: &ShadowAccess, element: &Element) -> String {
    JS_NAMES.with(|names| name_with(names, shadow, element))
}

fn name_with(names: &JsNames, shadow: &ShadowAccess, element: &Element) -> String {
    let mut computation = Computation {
        names,
        shadow,
        window: std::cell::OnceCell::new(),
        root: element.clone(),
        visited: vec![element.clone()],
        claimed: Vec::new(),
        page_owned_ids: None,
        reached_secret: false,
        text_tail: None,
        labelled: Vec::new(),
    };
    let flags = Flags {
        in_labelledby: false,
        in_content: false,
        hidden_ok: false,
        may_reach_root: false,
    };
    let name = computation.element_name_at(element, flags, true);
    // A name that would carry a secret field's value (reached by any path the computation
    // takes: an embedded control, a slot, `aria-owns`, a label, a reference, an editor's text)
    // is no name at all. Whether it is withheld depends on the page's structure only (which
    // fields are secret, `secret_field::classify`), never on the value, so matching a selector
    // against names tells the model nothing about a secret, not even whether it is empty.
    if computation.reached_secret {
        String::new()
    } else {
        name
    }
}

#[derive(Debug, Clone, Copy)]
struct Flags {
    /// Computing a node referenced by aria-labelledby (do not follow aria-labelledby again).
    in_labelledby: bool,
    /// Computing a descendant for a name from content.
    in_content: bool,
    /// The traversal started at a hidden referenced node: hidden nodes count.
    hidden_ok: bool,
    /// The subtree being walked contains the root (a label around its control): the root
    /// itself contributes nothing there.
    may_reach_root: bool,
}

struct Computation<'a> {
    names: &'a JsNames,
    shadow: &'a ShadowAccess,
    /// The root's window, looked up once, when the first style is read (most names need
    /// none: an `aria-label`, or one text node): styles are read for every descendant.
    window: std::cell::OnceCell<Option<StyleSource>>,
    root: Element,
    /// The root and every node reached through a reference, so a loop of references ends.
    visited: Vec<Element>,
    /// Elements an `aria-owns` of this computation moved under their owner: counted there, in
    /// the owner's order, and not where they sit in the DOM.
    claimed: Vec<Element>,
    /// The ids any `aria-owns` in the page names, read once, when a child with an id is met.
    page_owned_ids: Option<Vec<String>>,
    /// The computation reached a secret field's value or text (an embedded secret field, a
    /// secret editor, or text inside one): the whole name is withheld (see [`name_with`]).
    reached_secret: bool,
    /// The last character of text named so far, across the elements of a name from content
    /// (`text-transform: capitalize` capitalizes a word split over elements once); a space at
    /// a word break.
    text_tail: Option<char>,
    /// The controls whose labels are being named: a label around its control does not name it
    /// with the control's own value (the root is kept out by `may_reach_root`).
    labelled: Vec<Element>,
}

/// What one computed-style read tells about a descendant.
struct Look {
    /// Hidden with everything under it (aria-hidden, display:none, not rendered).
    gone: bool,
    /// `visibility: hidden` or `collapse`: its own text is hidden, a child may show again.
    invisible: bool,
    /// Laid out as its own box (block, inline-block, flex, table cell...): a word break
    /// around it.
    breaks_words: bool,
    /// The computed style read, for an inline box (neither a box of its own nor without one:
    /// `display: contents`): what [`inline_gap`] reads in runs.
    inline_style: Option<StyleRead>,
}

impl Computation<'_> {
    fn window(&self) -> Option<&StyleSource> {
        self.window
            .get_or_init(|| {
                self.root
                    .owner_document()
                    .and_then(|d| d.default_view())
                    .map(|w| w.unchecked_into::<StyleSource>())
            })
            .as_ref()
    }

    fn style(&self, element: &Element) -> Option<StyleRead> {
        self.window()?.computed_style(element).ok()
    }

    /// The state of an element whose parent is shown (`has_attributes`: whether it has any
    /// attribute at all, so a bare `<b>` or `<span>` costs no attribute lookups).
    fn look(&self, element: &Element, tag: &str, has_attributes: bool) -> Look {
        let gone = Look {
            gone: true,
            invisible: false,
            breaks_words: false,
            inline_style: None,
        };
        if has_attributes && attr(element, &self.names.aria_hidden).as_deref() == Some("true") {
            return gone;
        }
        if matches!(tag, "option" | "optgroup") {
            // Options of a closed drop-down have no boxes; they are as visible as their select.
            return Look {
                gone: is_hidden_for_accessibility(element),
                invisible: false,
                breaks_words: true,
                inline_style: None,
            };
        }
        let Some(style) = self.style(element) else {
            return Look {
                gone: false,
                invisible: false,
                breaks_words: false,
                inline_style: None,
            };
        };
        let display = style.property(&self.names.display);
        if display == "none" {
            return gone;
        }
        if display == "contents" {
            // No box of its own, but its children render; `visibility` still applies to them.
            let visibility = style.property(&self.names.visibility);
            return Look {
                gone: false,
                invisible: visibility == "hidden" || visibility == "collapse",
                breaks_words: false,
                inline_style: None,
            };
        }
        let breaks_words = !(display.is_empty() || display == "inline");
        // One call answers the usual case (rendered and visible); the rare rest is told apart
        // by a second one.
        let invisible = match is_seen(element, &self.names.visibility_options) {
            Some(true) => false,
            Some(false) => {
                if has_box(element) == Some(false) {
                    return gone;
                }
                true
            }
            None => {
                let visibility = style.property(&self.names.visibility);
                visibility == "hidden" || visibility == "collapse"
            }
        };
        Look {
            gone: false,
            invisible,
            breaks_words,
            inline_style: (!breaks_words).then_some(style),
        }
    }

    /// The name of an element reached other than as a shown parent's child (the root, a
    /// referenced node, a label, an owned node): its whole ancestry decides whether it is hidden.
    fn element_name(&mut self, element: &Element, flags: Flags) -> String {
        let is_root = element == &self.root;
        self.element_name_at(element, flags, is_root)
    }

    /// [`Self::element_name`] when the caller knows whether `element` is the root (the first
    /// call: one comparison, a call into the page, saved per name).
    fn element_name_at(&mut self, element: &Element, flags: Flags, is_root: bool) -> String {
        let tag = element.local_name();
        // 2A: hidden nodes have no name unless reached from a hidden referenced node.
        // The root is named even when hidden (callers decide whether hidden elements count).
        if !is_root && !flags.hidden_ok && is_hidden_for_accessibility(element) {
            // `visibility: hidden` hides the element's own text, but a descendant may be
            // `visibility: visible` again; aria-hidden and display:none hide everything.
            if flags.in_content && is_only_visibility_hidden(element) {
                return self.visible_descendants_name(element, flags);
            }
            return String::new();
        }
        if is_root && flags.in_content {
            // A label around its own control: the control is not part of its own name.
            return String::new();
        }
        self.named(element, &tag, flags, is_root, true)
    }

    /// A child element's contribution, with the word breaks its layout implies. Its parent is
    /// shown, so only its own state can hide it (one style read).
    fn child_name(&mut self, child: &Element, flags: Flags) -> String {
        self.child_name_with(child, flags, child.has_attributes())
    }

    fn child_name_with(&mut self, child: &Element, flags: Flags, has_attributes: bool) -> String {
        let tag = child.local_name();
        if tag == "br" {
            return " ".to_owned();
        }
        if flags.may_reach_root && child == &self.root {
            return String::new();
        }
        if !self.labelled.is_empty() && self.labelled.contains(child) {
            return String::new();
        }
        let look = self.look(child, &tag, has_attributes);
        if !flags.hidden_ok {
            if look.gone {
                return String::new();
            }
            if look.invisible {
                let shown = self.visible_descendants_name(child, flags);
                // In runs, hidden text that takes room is a gap the user sees (red team red3,
                // session 17: "keep<span style=visibility:hidden>xx</span>delete").
                if run_breaks()
                    && child
                        .text_content()
                        .is_some_and(|text| !text.trim().is_empty())
                {
                    self.text_tail = Some(' ');
                    return format!(" {shown} ");
                }
                return shown;
            }
        }
        // A replaced element (an image, a field) is its own run of text in browsers' trees,
        // even when displayed inline: "Go<img alt=to>page" reads "Go to page".
        // So is what a `<slot>` renders (Chromium; Firefox for most content).
        let breaks = look.breaks_words || is_replaced(&tag) || tag == "slot";
        if breaks {
            self.text_tail = Some(' ');
        }
        let text = self.named(child, &tag, flags, false, has_attributes);
        if breaks {
            self.text_tail = Some(' ');
            return format!(" {text} ");
        }
        // In runs, an inline box breaks only at an edge where it draws a gap (read only here:
        // a name's usual computation reads no more than before).
        let Some(style) = look.inline_style.filter(|_| run_breaks()) else {
            return text;
        };
        let parent = || child.parent_element();
        let start = inline_gap(self.names, &style, true, parent);
        let end = inline_gap(self.names, &style, false, parent);
        if !start && !end {
            return text;
        }
        let mut spaced = String::with_capacity(text.len() + 2);
        if start {
            spaced.push(' ');
        }
        spaced.push_str(&text);
        if end {
            spaced.push(' ');
            self.text_tail = Some(' ');
        }
        spaced
    }

    /// Steps 2B to 2I for an element already known to count (`has_attributes` false: it has
    /// no attribute, so none is looked up).
    fn named(
        &mut self,
        element: &Element,
        tag: &str,
        flags: Flags,
        is_root: bool,
        has_attributes: bool,
    ) -> String {
        // A <slot> is not in the accessibility tree: only what it renders counts, not its
        // own aria-label.
        if tag == "slot" {
            return self.content_name(element, tag, flags, has_attributes);
        }

        // 2B: aria-labelledby (not followed twice).
        if has_attributes && !flags.in_labelledby {
            // Browsers also honour the common misspelling `aria-labeledby`.
            let ids = attr(element, &self.names.aria_labelledby)
                .or_else(|| attr(element, &self.names.aria_labeledby));
            if let Some(ids) = ids {
                let mut parts = Vec::new();
                for id in ids.split_whitespace() {
                    let Some(target) = element_by_id_near(element, id) else {
                        continue;
                    };
                    // An image map's `<area>` names nothing through a reference, not even by
                    // its `aria-label` (both browsers).
                    if target.local_name() == "area" && target != self.root {
                        continue;
                    }
                    // A node may be referenced more than once (or be the root itself).
                    let hidden = is_hidden_for_accessibility(&target);
                    let sub = Flags {
                        in_labelledby: true,
                        in_content: false,
                        hidden_ok: hidden,
                        may_reach_root: target.contains(Some(self.root.as_ref())),
                    };
                    // While it is named, a referenced node is visited: a label inside it does
                    // not name its own control (the button in a referenced `<label>`) with it
                    // again. It may be referenced again after (both browsers repeat it).
                    let fresh = !self.visited.contains(&target);
                    if fresh {
                        self.visited.push(target.clone());
                    }
                    let part = normalize_whitespace(&self.element_name(&target, sub));
                    if fresh {
                        self.visited.retain(|v| v != &target);
                    }
                    if !part.is_empty() {
                        parts.push(part);
                    }
                }
                if !parts.is_empty() {
                    return spaced(join(&parts, " "), flags, is_root);
                }
            }
        }

        // Inside content the role only matters for embedded controls: a bare element that
        // is not a form control has none worth computing.
        let role_now = || {
            if has_attributes && attr(element, &self.names.role).is_some() {
                role_of(element)
            } else if !has_attributes
                && flags.in_content
                && !is_control_tag(tag)
                && !is_container_tag(tag)
            {
                None
            } else {
                implicit_role_for(element, tag).map(str::to_owned)
            }
        };

        // 2C: a control embedded in another element's label contributes its value.
        // Elsewhere (the root, most often) the role is first needed after 2D and 2E, and is
        // read only then: an `aria-label` ends most names before.
        let mut early_role = None;
        // A `<select>` with nothing chosen: named by its own label, never by its options (in
        // both browsers; an ARIA combobox's text still counts).
        let mut valueless_control = false;
        // A text field referencing itself: its value, kept for when it has no label of its own.
        let mut own_value = None;
        // The root too when it references itself ("Flash the screen <its value> times").
        if flags.in_labelledby || (!is_root && flags.in_content) {
            let role = role_now();
            if is_embedded_control_role(role.as_deref()) && classify(element).is_some() {
                // Checked before the value is read: a secret field's value is never read here.
                self.reached_secret = true;
                return String::new();
            }
            // Referencing itself, a list or range control gives its own `aria-label`, label
            // or `title`, never its value or options (both browsers); a text field its value
            // when it has no label of its own (below).
            if is_root
                && is_embedded_control_role(role.as_deref())
                && !matches!(role.as_deref(), Some("textbox" | "searchbox"))
            {
                valueless_control = true;
            } else if let Some(value) = embedded_control_value(element, tag, role.as_deref()) {
                // An empty value (a blank field, a list with nothing chosen) names the control
                // by its own label instead, `aria-label` to `title`, as in both browsers.
                if !value.trim().is_empty() {
                    // Referencing itself, a text field gives its own `aria-label`, `<label>`,
                    // `title` or placeholder before its value (Chromium; Firefox too but for
                    // a `<label>`, which it leaves out).
                    if !is_root {
                        return value;
                    }
                    own_value = Some(value);
                }
                valueless_control = tag == "select";
            }
            early_role = Some(role);
        }
        // 2D: aria-label.
        if has_attributes {
            if let Some(label) = attr(element, &self.names.aria_label) {
                if !label.trim().is_empty() {
                    return spaced(label, flags, is_root);
                }
            }
        }

        // A presentational element (its `none` role honoured) has no name of its own: not its
        // `alt`, caption or `title` (Chromium and Firefox); its content still counts.
        let has_role_attribute = has_attributes && attr(element, &self.names.role).is_some();
        let presentational = has_role_attribute
            && match &early_role {
                Some(role) => matches!(role.as_deref(), Some("none" | "presentation")),
                None => matches!(role_of(element).as_deref(), Some("none" | "presentation")),
            };

        // 2E: host language label.
        if !presentational {
            if let Some(native) = self.native_name(element, tag, flags) {
                return native;
            }
        }
        let role = early_role.unwrap_or_else(role_now);
        // Met inside another element's name from content (not a reference's subtree), a
        // container widget, landmark or value control gives its own name only, not its text:
        // a button holding a menu is named by its own words (Chromium's tree; Firefox but for
        // a few roles, see [`is_name_from_content_barrier`]).
        let barrier = flags.in_content
            && !is_root
            && ((!flags.in_labelledby
                && (has_role_attribute || is_container_tag(tag))
                && role.as_deref().is_some_and(is_name_from_content_barrier))
                || is_range_role(role.as_deref()));

        // 2F: name from content.
        // Only as another element's label: a <label> or <legend> on its own has no name.
        let native_text_alternative = !is_root
            && matches!(
                tag,
                "label" | "legend" | "caption" | "figcaption" | "summary" | "option" | "optgroup"
            );
        // A table's `<tr>` is a row named by nothing in its cells in both browsers' trees
        // (a grid's is named by them).
        let own_row = tag == "tr" && !has_role_attribute && !super::roles::in_grid(element);
        let from_content = flags.in_labelledby
            || flags.in_content
            || native_text_alternative
            || (role.as_deref().is_some_and(allows_name_from_content) && !own_row)
            || (role.is_none() && !is_root);
        if from_content && !barrier && !valueless_control && role.as_deref() != Some("textbox") {
            // An editor's text is its value: a secret editor (met as a descendant, an owned
            // node or the root) or, for the root or a referenced node, one around it.
            let secret_editor = if flags.in_content {
                has_attributes && is_secret_editor(element)
            } else {
                inside_secret_editor(element)
            };
            if secret_editor || is_secret_form_field(element, tag) {
                self.reached_secret = true;
                return String::new();
            }
            let content = self.content_name(element, tag, flags, has_attributes);
            if !content.trim().is_empty() {
                return content;
            }
        }

        // 2I: tooltip.
        if !has_attributes || presentational {
            return String::new();
        }
        // An ARIA text field's placeholder names it when nothing above did (before `title`,
        // as in Chromium's tree; native fields had theirs in 2E).
        if matches!(role.as_deref(), Some("textbox" | "searchbox"))
            && !matches!(tag, "input" | "textarea")
        {
            if let Some(placeholder) = non_empty_attr(element, "aria-placeholder") {
                return placeholder;
            }
        }
        if let Some(title) = attr(element, &self.names.title) {
            if !title.trim().is_empty() {
                return spaced(title, flags, is_root);
            }
        }
        own_value.unwrap_or_default()
    }

    fn native_name(&mut self, element: &Element, tag: &str, flags: Flags) -> Option<String> {
        match tag {
            "input" => {
                let input_type = element
                    .get_attribute("type")
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                match input_type.as_str() {
                    "button" | "submit" | "reset" => {
                        if let Some(labels) = self.labels_name(element, flags) {
                            return Some(labels);
                        }
                        if let Some(value) = element.get_attribute("value") {
                            return Some(value);
                        }
                        return match input_type.as_str() {
                            "submit" => Some("Submit".to_owned()),
                            "reset" => Some("Reset".to_owned()),
                            _ => element.get_attribute("title"),
                        };
                    }
                    "image" => {
                        // A <label for> names an image button before its alt text.
                        if let Some(labels) = self.labels_name(element, flags) {
                            return Some(labels);
                        }
                        for attr in ["alt", "value", "title"] {
                            if let Some(v) = non_empty_attr(element, attr) {
                                return Some(v);
                            }
                        }
                        // An author's blank `value` replaces the default label (both browsers).
                        if element.has_attribute("value") {
                            return Some(String::new());
                        }
                        return Some("Submit".to_owned());
                    }
                    "hidden" => return Some(String::new()),
                    _ => {}
                }
                if let Some(labels) = self.labels_name(element, flags) {
                    return Some(labels);
                }
                // A placeholder names a field a user types text into only: not a check box,
                // slider, date, colour or file picker (both browsers ignore it there).
                field_fallback(
                    element,
                    !NOT_TEXT_INPUT_TYPES.contains(&input_type.as_str()),
                )
            }
            "textarea" | "select" => {
                if let Some(labels) = self.labels_name(element, flags) {
                    return Some(labels);
                }
                field_fallback(element, tag == "textarea")
            }
            "button" | "meter" | "output" | "progress" => self.labels_name(element, flags),
            "fieldset" => self.first_child_name(element, "legend", flags),
            // A caption holding a `<details>` names no figure: neither browser takes its text
            // (Firefox still does when text sits beside the details; Chromium never).
            "figure" => match first_child(element, "figcaption") {
                Some(caption) if matches!(caption.query_selector("details"), Ok(Some(_))) => None,
                Some(_) => self.first_child_name(element, "figcaption", flags),
                None => None,
            },
            "table" => self
                .first_child_name(element, "caption", flags)
                .or_else(|| non_empty_attr(element, "summary")),
            // `alt=""` marks a decorative image: no name, not even from `title`.
            "img" | "area" => element.get_attribute("alt"),
            "optgroup" => non_empty_attr(element, "label"),
            "option" => non_empty_attr(element, "label"),
            // SVG <title> is never rendered; its text is the name.
            "svg" => svg_title(element),
            // So for a shape, group or link inside an SVG (svg-aam).
            "a" | "g" | "circle" | "rect" | "ellipse" | "line" | "path" | "polygon"
            | "polyline" | "use" | "image" | "text" | "foreignObject"
                if element.namespace_uri().as_deref() == Some(SVG_NAMESPACE) =>
            {
                svg_title(element)
            }
            _ => None,
        }
    }

    fn labels_name(&mut self, element: &Element, flags: Flags) -> Option<String> {
        let labels = js_sys::Reflect::get(element, &self.names.labels).ok()?;
        if labels.is_undefined() || labels.is_null() {
            return None;
        }
        let labels: &web_sys::NodeList = labels.unchecked_ref();
        if labels.length() == 0 {
            return None;
        }
        let labelled = element != &self.root;
        if labelled {
            self.labelled.push(element.clone());
        }
        let mut parts = Vec::new();
        for i in 0..labels.length() {
            let Some(label) = labels.item(i) else {
                continue;
            };
            // `labels` holds only <label> elements.
            let label: &Element = label.unchecked_ref();
            if self.visited.contains(label) {
                continue;
            }
            self.visited.push(label.clone());
            // A hidden label (display:none, visibility:hidden, aria-hidden, or inside such)
            // names nothing, as in Chromium and Firefox: its text is hidden like any other.
            // Unless the control is hidden too (a hidden label wrapping its field, a hidden
            // form): then the browsers have no name to compare, and the label's hidden text
            // names it, so that a selector can still find a field that is not shown yet.
            // Only for the root: a hidden control reached through a hidden reference is not
            // named by its hidden label in either browser.
            let label_hidden = is_hidden_for_accessibility(label);
            if label_hidden && (element != &self.root || !is_hidden_for_accessibility(&self.root)) {
                continue;
            }
            let label_flags = Flags {
                in_content: true,
                may_reach_root: label.contains(Some(self.root.as_ref())),
                hidden_ok: flags.hidden_ok || label_hidden,
                ..flags
            };
            let part = normalize_whitespace(&self.named(label, "label", label_flags, false, true));
            if !part.is_empty() {
                parts.push(part);
            }
        }
        if labelled {
            self.labelled.pop();
        }
        if parts.is_empty() {
            None
        } else {
            Some(join(&parts, " "))
        }
    }

    fn first_child_name(&mut self, element: &Element, tag: &str, flags: Flags) -> Option<String> {
        let child = first_child(element, tag)?;
        let name = self.child_name(
            &child,
            Flags {
                in_content: true,
                ..flags
            },
        );
        (!name.trim().is_empty()).then_some(name)
    }

    /// The names of the descendants of a `visibility: hidden` element that are visible again.
    fn visible_descendants_name(&mut self, element: &Element, flags: Flags) -> String {
        let mut out = String::new();
        let mut child = element.first_element_child();
        while let Some(current) = child {
            out.push(' ');
            out.push_str(&self.child_name(
                &current,
                Flags {
                    in_content: true,
                    ..flags
                },
            ));
            child = current.next_element_sibling();
        }
        out
    }

    /// Whether some `aria-owns` in the page names `id` (the page is read once per computation).
    fn owned_elsewhere(&mut self, element: &Element, id: &str) -> bool {
        let ids = self.page_owned_ids.get_or_insert_with(|| {
            let mut ids = Vec::new();
            let root = element.get_root_node();
            let found = js::call(
                &root,
                "querySelectorAll",
                &[JsValue::from_str("[aria-owns]")],
            );
            if let Ok(Some(list)) = found {
                if list.is_object() {
                    let list = list.unchecked_ref::<web_sys::NodeList>();
                    for i in 0..list.length() {
                        if let Some(owner) = list.item(i).as_ref().and_then(|n| as_element(n)) {
                            let value = owner.get_attribute("aria-owns").unwrap_or_default();
                            ids.extend(value.split_whitespace().map(str::to_owned));
                        }
                    }
                }
            }
            ids
        });
        ids.iter().any(|owned| owned == id)
    }

    /// The elements `element`'s `aria-owns` moves under it, in order, each once.
    fn owned_by(&mut self, element: &Element) -> Vec<Element> {
        let Some(ids) = attr(element, &self.names.aria_owns) else {
            return Vec::new();
        };
        let mut owned = Vec::new();
        for id in ids.split_whitespace() {
            let Some(target) = element_by_id_near(element, id) else {
                continue;
            };
            // An ancestor cannot be owned (that would be a loop); nor can a node twice.
            if target.contains(Some(element.as_ref()))
                || self.visited.contains(&target)
                || self.claimed.contains(&target)
            {
                continue;
            }
            self.visited.push(target.clone());
            self.claimed.push(target.clone());
            owned.push(target);
        }
        owned
    }

    fn content_name(
        &mut self,
        element: &Element,
        tag: &str,
        flags: Flags,
        has_attributes: bool,
    ) -> String {
        let child_flags = Flags {
            in_content: true,
            ..flags
        };
        let owned = if has_attributes {
            self.owned_by(element)
        } else {
            Vec::new()
        };
        let mut out = self.pseudo_content(element, tag, false, flags.hidden_ok, self.text_tail);
        // In runs, generated content is a piece of its own (text the DOM does not hold, placed
        // by the page's style).
        if run_breaks() && !out.is_empty() {
            out.insert(0, ' ');
            out.push(' ');
        }
        // The element's text style (`text-transform`, and whether `content-visibility: hidden`
        // skips its content), read once, when it first holds text.
        let mut text_style: Option<TextStyle> = None;
        // A closed `<details>` shows its summary only: its other text is not rendered (its
        // other elements are not either, and are found hidden one by one).
        let closed_details = tag == "details" && !element.has_attribute("open");
        let nodes = match (tag == "slot").then(|| element.unchecked_ref::<HtmlSlotElement>()) {
            Some(slot) => assigned_or_fallback(slot),
            None => match self.shadow.shadow_root(element) {
                Some(root) => super::tree::children(root.as_ref()),
                None => super::tree::children(element.as_ref()),
            },
        };
        for node in nodes {
            let node_type = node.node_type();
            if node_type == Node::TEXT_NODE {
                // Adjacent text nodes (split by a comment, or made by script) join as rendered:
                // `one<!-- -->two` is "onetwo" in Chromium and Firefox alike.
                let text = node.text_content().unwrap_or_default();
                if closed_details {
                    continue;
                }
                if !text.trim().is_empty() && !NO_TEXT_STYLE.with(std::cell::Cell::get) {
                    // Named as shown: both browsers apply `text-transform` (an uppercase
                    // button style gives "SAVE"), and leave out the text of an element whose
                    // content `content-visibility: hidden` skips. Text in a slot is styled by
                    // its own parent.
                    let style = match (&text_style, tag == "slot") {
                        (Some(known), false) => known.clone(),
                        _ => {
                            let parent = node.parent_element();
                            let parent = parent.as_ref().unwrap_or(element);
                            // Text of a subtree with no boxes (reached through a hidden
                            // reference) is named as written: with no layout, neither
                            // browser transforms it.
                            let read = if flags.hidden_ok && has_box(parent) == Some(false) {
                                TextStyle::default()
                            } else {
                                self.text_style(parent)
                            };
                            if tag != "slot" {
                                text_style = Some(read.clone());
                            }
                            read
                        }
                    };
                    if style.content_skipped {
                        continue;
                    }
                    let previous = out.chars().last().or(self.text_tail);
                    transform_text(&style.transform, &text, previous, &mut out);
                } else {
                    out.push_str(&text);
                }
                self.text_tail = out.chars().last().or(self.text_tail);
                continue;
            }
            if node_type != Node::ELEMENT_NODE {
                continue;
            }
            let child: &Element = node.unchecked_ref();
            if !self.claimed.is_empty() && self.claimed.contains(child) {
                continue;
            }
            let has_attributes = child.has_attributes();
            let id = if has_attributes {
                child.id()
            } else {
                String::new()
            };
            if !id.is_empty() && self.owned_elsewhere(child, &id) {
                // Moved under its owner by aria-owns: counted there (if at all), not here.
                let owned_here = owned.iter().any(|o| o == child);
                if !owned_here {
                    continue;
                }
            }
            out.push_str(&self.child_name_with(child, child_flags, has_attributes));
        }
        for target in &owned {
            // An owned node sits elsewhere in the page: its whole ancestry decides, also
            // whether it is inside a secret editor.
            if inside_secret_editor(target) {
                self.reached_secret = true;
                return String::new();
            }
            let name = self.element_name(target, child_flags);
            if name.is_empty() {
                continue;
            }
            // Joined as the browsers lay it out: a run of its own when its box is (Firefox;
            // Chromium breaks before it only), else after a break when it is shown in another
            // block than its owner ("<div aria-owns=o>Hello</div><span id=o>world</span>" is
            // "Hello world") and straight after the owner's text when on its line ("<a><span
            // aria-owns=o>x</span>y</a><span id=o>O</span>" is "xOy"), in both browsers.
            let tag = target.local_name();
            let look = self.look(target, &tag, target.has_attributes());
            if look.breaks_words || is_replaced(&tag) {
                out.push(' ');
                out.push_str(&name);
                out.push(' ');
            } else {
                if run_breaks() || self.block_of(element) != self.block_of(target) {
                    out.push(' ');
                }
                out.push_str(&name);
                // In runs, apart from what follows its owner too (drawn elsewhere).
                if run_breaks() {
                    out.push(' ');
                }
            }
        }
        let previous = out.chars().last().or(self.text_tail);
        let after = self.pseudo_content(element, tag, true, flags.hidden_ok, previous);
        if run_breaks() && !after.is_empty() {
            out.push(' ');
            out.push_str(&after);
            out.push(' ');
        } else {
            out.push_str(&after);
        }
        out
    }

    /// The nearest element around `element` (itself included) whose box is not inline: the
    /// block its text is laid out in (`None` past its tree's root).
    fn block_of(&self, element: &Element) -> Option<Element> {
        let mut current = Some(element.clone());
        while let Some(el) = current {
            let display = self
                .style(&el)
                .map(|style| style.property(&self.names.display))
                .unwrap_or_default();
            if !matches!(display.as_str(), "inline" | "contents" | "") {
                return Some(el);
            }
            current = el.parent_element();
        }
        None
    }

    /// How `element` styles its own text (nothing changed when its style cannot be read).
    fn text_style(&self, element: &Element) -> TextStyle {
        let Some(style) = self.style(element) else {
            return TextStyle::default();
        };
        let transform = style.property(&self.names.text_transform);
        // `content-visibility` does not apply to an inline box (a `<span>`, also one that is
        // `hidden=until-found`): its text shows, in both browsers' names too.
        let content_skipped = style.property(&self.names.content_visibility) == "hidden"
            && !matches!(
                style.property(&self.names.display).as_str(),
                "inline" | "contents"
            );
        TextStyle {
            transform,
            content_skipped,
        }
    }

    /// The text of CSS generated content (`content: "..."`, or the alternative text after `/`)
    /// on a pseudo element that is displayed. `previous`: the character named before it.
    fn pseudo_content(
        &self,
        element: &Element,
        tag: &str,
        after: bool,
        hidden: bool,
        previous: Option<char>,
    ) -> String {
        // A hidden subtree (a hidden node named through a reference) generates no boxes.
        if hidden || is_void(tag) {
            // Replaced and void elements have no ::before / ::after boxes.
            return String::new();
        }
        if tag == "q" && NO_GENERATED_CONTENT.with(std::cell::Cell::get) {
            // The user-agent sheet's quotes, which no page rule changes here.
            return quote(element, after).to_owned();
        }
        if NO_GENERATED_CONTENT.with(std::cell::Cell::get) {
            return String::new();
        }
        let Some(window) = self.window() else {
            return String::new();
        };
        let pseudo = if after {
            &self.names.after
        } else {
            &self.names.before
        };
        let Ok(style) = window.computed_pseudo_style(element, pseudo) else {
            return String::new();
        };
        let content = style.property(&self.names.content);
        if content.is_empty() || content == "none" || content == "normal" {
            return String::new();
        }
        if style.property(&self.names.display) == "none" {
            return String::new();
        }
        let visibility = style.property(&self.names.visibility);
        if visibility == "hidden" || visibility == "collapse" {
            // Not shown, but its box takes its room: in runs, a gap between the texts around.
            return if run_breaks() {
                " ".to_owned()
            } else {
                String::new()
            };
        }
        if content == "open-quote" || content == "close-quote" {
            return quote(element, content == "close-quote").to_owned();
        }
        let (mut text, alternative) =
            parse_css_content(&content, |name| element.get_attribute(name));
        if text.is_empty() {
            // An empty box (`content: ""`) still draws a gap when it is a box of its own or has
            // a margin, padding or border (an icon's room): in runs, a break there.
            let box_drawn = || {
                style.property(&self.names.display) != "inline"
                    || inline_gap(self.names, &style, true, || Some(element.clone()))
                    || inline_gap(self.names, &style, false, || Some(element.clone()))
            };
            if run_breaks() && box_drawn() {
                text.push(' ');
            }
            return text;
        }
        // Generated text is shown with its `text-transform` (inherited: an uppercase button's
        // `::before` reads "PRE" in both browsers); an alternative text is not shown.
        if !alternative && !NO_TEXT_STYLE.with(std::cell::Cell::get) {
            let transform = style.property(&self.names.text_transform);
            if transform != "none" {
                let mut shown = String::with_capacity(text.len());
                transform_text(&transform, &text, previous, &mut shown);
                text = shown;
            }
        }
        // Inline generated content joins the element's text as rendered ("before" + "label" is
        // "beforelabel" in Chromium and Firefox); a box of its own (block, inline-block, or
        // blockified in a flex or grid container) is a separate run. An alternative text is
        // set apart from its element's own text but joins what is around the element
        // ("a<span class=alt>c</span>" is "aalt c" in Chromium; Firefox joins both).
        if style.property(&self.names.display) != "inline" {
            format!(" {text} ")
        } else if alternative && after {
            format!(" {text}")
        } else if alternative {
            format!("{text} ")
        } else {
            text
        }
    }
}

/// A name from an author's attribute (`aria-label`, `aria-labelledby`, `title`) of an element met in
/// another's name from content: a run of its own, even inline ("a<span aria-label=X>y</span>b"
/// is "a X b" in both browsers).
fn spaced(name: String, flags: Flags, is_root: bool) -> String {
    if flags.in_content && !is_root {
        format!(" {name} ")
    } else {
        name
    }
}

/// The quotation mark an `open-quote` (`close`: a `close-quote`) on `element` shows, as both
/// browsers name it in English: double marks, single ones inside another `<q>`. Other
/// languages' marks (`«»`) are not known here.
fn quote(element: &Element, close: bool) -> &'static str {
    let mut depth = 0;
    let mut current = element.parent_element();
    while let Some(ancestor) = current {
        if ancestor.local_name() == "q" {
            depth += 1;
        }
        current = ancestor.parent_element();
    }
    match (depth % 2 == 1, close) {
        (false, false) => "\u{201C}",
        (false, true) => "\u{201D}",
        (true, false) => "\u{2018}",
        (true, true) => "\u{2019}",
    }
}

/// What an element's computed style does to its own text nodes.
#[derive(Clone, Default)]
struct TextStyle {
    /// The computed `text-transform` ("" when unknown: the text as written).
    transform: String,
    /// `content-visibility: hidden`: the element's box shows, its content does not.
    content_skipped: bool,
}

/// Appends `text` to `out` as `text-transform: transform` shows it (`uppercase`, `lowercase`,
/// `capitalize`; other values, such as `full-width`, leave the letters as they are).
/// `previous`: the character before it in the name, so a word split over elements is
/// capitalized once.
fn transform_text(transform: &str, text: &str, previous: Option<char>, out: &mut String) {
    if transform.contains("uppercase") {
        out.extend(text.chars().flat_map(char::to_uppercase));
    } else if transform.contains("lowercase") {
        out.extend(text.chars().flat_map(char::to_lowercase));
    } else if transform.contains("capitalize") {
        // The first letter of each word: after anything but a letter, a digit or an apostrophe
        // ("wide-world" shows "Wide-World", "don't" shows "Don't").
        let mut in_word = previous.is_some_and(is_word_char);
        for c in text.chars() {
            if !in_word && c.is_alphabetic() {
                out.extend(c.to_uppercase());
            } else {
                out.push(c);
            }
            in_word = is_word_char(c);
        }
    } else {
        out.push_str(text);
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '\'' || c == '\u{2019}'
}

/// Elements whose implicit role makes them an embedded control (accname step 2C).
fn is_control_tag(tag: &str) -> bool {
    matches!(
        tag,
        "input" | "textarea" | "select" | "meter" | "progress" | "datalist"
    )
}

const SVG_NAMESPACE: &str = "http://www.w3.org/2000/svg";

/// The text of an SVG element's `<title>` child.
fn svg_title(element: &Element) -> Option<String> {
    first_child(element, "title")
        .and_then(|title| title.text_content())
        .filter(|t| !t.trim().is_empty())
}

/// Replaced elements and fields: each is a separate run of text in a name from content.
fn is_replaced(tag: &str) -> bool {
    matches!(
        tag,
        "img"
            | "input"
            | "svg"
            | "select"
            | "textarea"
            | "meter"
            | "progress"
            | "video"
            | "audio"
            | "canvas"
            | "iframe"
            | "embed"
            | "object"
    )
}

/// Whether an inline box with computed `style` draws a gap at its start edge (`start`) or its
/// end edge, which the name does not show (it joins inline pieces): margin, padding and border
/// on that side adding up to more than nothing; a box moved from its place (`position:
/// relative` with an offset, `sticky`) or raised or lowered (`vertical-align`, a `<sup>`); letters spaced apart
/// otherwise than its parent's (`letter-spacing` adds space after its last letter). `parent`
/// gives the element's parent, read only for a letter spacing.
fn inline_gap(
    names: &JsNames,
    style: &StyleRead,
    start: bool,
    parent: impl Fn() -> Option<Element>,
) -> bool {
    let edge = if start {
        &names.start_edge
    } else {
        &names.end_edge
    };
    let width: f64 = edge
        .iter()
        .map(|property| super::js::css_pixels(&style.property(property)).unwrap_or(0.0))
        .sum();
    if width > 0.0 {
        return true;
    }
    match style.property(&names.position).as_str() {
        "static" | "" => {}
        // Moved only when an offset is set (a `relative` box left in place, as utility
        // classes often leave it, is drawn where it stands).
        "relative" => {
            if names
                .offsets
                .iter()
                .any(|offset| super::js::css_pixels(&style.property(offset)).unwrap_or(0.0) != 0.0)
            {
                return true;
            }
        }
        _ => return true,
    }
    if !matches!(
        style.property(&names.vertical_align).as_str(),
        "baseline" | ""
    ) {
        return true;
    }
    let spacing = style.property(&names.letter_spacing);
    if matches!(spacing.as_str(), "normal" | "0px" | "") {
        return false;
    }
    // Spaced like its parent (a letter-spaced heading holding a `<b>`): no gap of its own.
    let parent_spacing = parent()
        .and_then(|parent| {
            let window = parent.owner_document()?.default_view()?;
            let source = window.unchecked_into::<StyleSource>();
            source.computed_style(&parent).ok()
        })
        .map(|parent| parent.property(&names.letter_spacing));
    parent_spacing.as_deref() != Some(spacing.as_str())
}

/// Whether `element`, met inside a text read in runs (`dom::secret::text_runs_without_secrets`),
/// draws a gap at its start edge (`start`) or end edge, so that the text before that edge and
/// the text after it are shown apart: a box of its own (not `display: inline` or `contents`;
/// an element without a box counts, its text shown nowhere), a replaced element or a `<br>`,
/// an inline box with a gap at that edge ([`inline_gap`]), or generated content there (its
/// `::before` at the start edge, `::after` at the end: text the text does not hold, or an
/// empty box drawing room). An element whose style cannot be read counts as drawing one.
pub(crate) fn draws_gap_at_edge(element: &Element, start: bool) -> bool {
    let tag = element.local_name();
    if tag == "br" || is_replaced(&tag) {
        return true;
    }
    if tag == "wbr" {
        return false;
    }
    let source = element
        .owner_document()
        .and_then(|document| document.default_view())
        .map(|window| window.unchecked_into::<StyleSource>());
    let Some(style) = source
        .as_ref()
        .and_then(|source| source.computed_style(element).ok())
    else {
        return true;
    };
    JS_NAMES.with(|names| {
        match style.property(&names.display).as_str() {
            "inline" => {}
            "contents" => return false,
            _ => return true,
        }
        if inline_gap(names, &style, start, || element.parent_element()) {
            return true;
        }
        // Hidden text still takes its room: "keep<span hidden-by-visibility>xx</span>delete"
        // shows two words apart (red team red3, session 17).
        if matches!(
            style.property(&names.visibility).as_str(),
            "hidden" | "collapse"
        ) && element
            .text_content()
            .is_some_and(|text| !text.trim().is_empty())
        {
            return true;
        }
        // Generated content at that edge (`::before` at the start): text the text does not
        // hold, or an empty box drawing room (an icon's).
        let pseudo = if start { &names.before } else { &names.after };
        let Some(generated) = source
            .as_ref()
            .and_then(|source| source.computed_pseudo_style(element, pseudo).ok())
        else {
            return false;
        };
        let content = generated.property(&names.content);
        if matches!(content.as_str(), "" | "none" | "normal")
            || generated.property(&names.display) == "none"
        {
            return false;
        }
        let empty = matches!(content.as_str(), "\"\"" | "''");
        !empty
            || generated.property(&names.display) != "inline"
            || inline_gap(names, &generated, true, || Some(element.clone()))
            || inline_gap(names, &generated, false, || Some(element.clone()))
    })
}

/// Elements that render no ::before / ::after.
fn is_void(tag: &str) -> bool {
    matches!(
        tag,
        "input"
            | "img"
            | "br"
            | "wbr"
            | "hr"
            | "textarea"
            | "select"
            | "iframe"
            | "video"
            | "audio"
            | "canvas"
            | "embed"
            | "object"
    )
}

/// Hidden only by `visibility` (not aria-hidden, not display:none).
fn is_only_visibility_hidden(element: &Element) -> bool {
    super::visibility::is_rendered(element) && !super::visibility::is_aria_hidden(element)
}

fn first_child(element: &Element, tag: &str) -> Option<Element> {
    let mut child = element.first_element_child();
    while let Some(current) = child {
        if current.local_name() == tag {
            return Some(current);
        }
        child = current.next_element_sibling();
    }
    None
}

fn non_empty_attr(element: &Element, attr: &str) -> Option<String> {
    element.get_attribute(attr).filter(|v| !v.trim().is_empty())
}

/// After labels, a field is named by `title`, then (`typed`: a text field) `placeholder` or
/// `aria-placeholder`.
fn field_fallback(element: &Element, typed: bool) -> Option<String> {
    non_empty_attr(element, "title").or_else(|| {
        typed
            .then(|| {
                non_empty_attr(element, "placeholder")
                    .or_else(|| non_empty_attr(element, "aria-placeholder"))
            })
            .flatten()
    })
}

/// The `<input>` types that are not text fields (an unknown type is a text field).
const NOT_TEXT_INPUT_TYPES: &[&str] = &[
    "checkbox",
    "radio",
    "range",
    "color",
    "file",
    "date",
    "datetime-local",
    "month",
    "time",
    "week",
    "hidden",
    "button",
    "submit",
    "reset",
    "image",
];

/// Elements whose implicit role may make them a barrier to a name from content
/// ([`is_name_from_content_barrier`]): their role is read even when they have no attribute.
/// Other elements are barriers by an explicit role only: a `<table>` (Chromium counts a
/// layout table's text), its rows, a `<details>` (its open content counts), `<address>`, and
/// a `<footer>` (Chromium counts its text inside a link, unlike a `<header>`'s).
fn is_container_tag(tag: &str) -> bool {
    matches!(
        tag,
        "nav"
            | "main"
            | "aside"
            | "dialog"
            | "output"
            | "article"
            | "blockquote"
            | "search"
            | "header"
            | "fieldset"
            | "figure"
            | "hgroup"
    )
}

/// Roles that do not lend their text to an ancestor's name from content (they still give
/// their own name: a `<fieldset>`'s legend, an `aria-label`). Chromium's tree, measured with
/// bench/browser/accname-target.mjs; Firefox agrees but for `grid`, `table`, `row`,
/// `rowgroup`, `group`, `alert`, `log`, `timer`, `feed` and `note`, where it counts the text.
/// Inside a reference's subtree (`aria-labelledby`) Chromium counts all text, so this applies
/// to names from content only.
fn is_name_from_content_barrier(role: &str) -> bool {
    matches!(
        role,
        "menu"
            | "menubar"
            | "tree"
            | "grid"
            | "treegrid"
            | "table"
            | "tablist"
            | "toolbar"
            | "radiogroup"
            | "dialog"
            | "alertdialog"
            | "alert"
            | "log"
            | "status"
            | "timer"
            | "marquee"
            | "navigation"
            | "main"
            | "banner"
            | "contentinfo"
            | "complementary"
            | "search"
            | "article"
            | "document"
            | "application"
            | "feed"
            | "group"
            | "tabpanel"
            | "note"
            | "figure"
            | "img"
            | "separator"
            | "row"
            | "rowgroup"
            | "blockquote"
            | "listbox"
            | "combobox"
    )
}

/// Range widgets: named in a label by their value only, never by their text.
fn is_range_role(role: Option<&str>) -> bool {
    matches!(
        role,
        Some("slider" | "spinbutton" | "progressbar" | "scrollbar" | "meter")
    )
}

/// The roles whose value an embedded control contributes (accname step 2C,
/// [`embedded_control_value`]).
fn is_embedded_control_role(role: Option<&str>) -> bool {
    matches!(
        role,
        Some(
            "textbox"
                | "searchbox"
                | "combobox"
                | "listbox"
                | "slider"
                | "spinbutton"
                | "progressbar"
                | "scrollbar"
                | "meter"
        )
    )
}

/// Whether `element` is an editing host that is a secret field (its text is the secret).
fn is_secret_editor(element: &Element) -> bool {
    js::has_attribute(element, "contenteditable") && classify(element).is_some()
}

/// Whether `element` is a secret editor or inside one, across shadow boundaries (a shadow tree
/// inside an editor, or an editor that is a shadow host and slots its own text) and
/// `contenteditable="false"` islands, where `isContentEditable` says false. Two calls when it is
/// in no editor at all, the usual case: `closest` up to its tree's root, then the root node.
fn inside_secret_editor(element: &Element) -> bool {
    let mut current = Some(element.clone());
    let mut hops = 0;
    while let Some(start) = current {
        hops += 1;
        if hops > 64 {
            // More nested editors and shadow trees than any real page: treated as secret
            // rather than walked further.
            return true;
        }
        current = match start.closest("[contenteditable]") {
            Ok(Some(editor)) => {
                // An island or a nested editable element is no field of its own (`classify`
                // answers for the editing host only): keep going up.
                if classify(&editor).is_some() {
                    return true;
                }
                composed_parent(&editor)
            }
            _ => as_shadow_root(&start.get_root_node()).map(web_sys::ShadowRoot::host),
        };
    }
    false
}

/// Whether `element` is a form field (not an editor) that is a secret field: its text or value
/// never names anything, whatever role the page gave it.
fn is_secret_form_field(element: &Element, tag: &str) -> bool {
    matches!(tag, "input" | "textarea" | "select") && classify(element).is_some()
}

/// The value a control embedded in a label contributes (accname step 2C).
fn embedded_control_value(element: &Element, tag: &str, role: Option<&str>) -> Option<String> {
    match role? {
        "textbox" | "searchbox" => {
            if matches!(tag, "input" | "textarea") {
                return js::get_string(element, "value");
            }
            Some(element.text_content().unwrap_or_default())
        }
        "combobox" | "listbox" => {
            if let Some(select) = as_tag::<web_sys::HtmlSelectElement>(element, "select") {
                let options = select.selected_options();
                let mut parts = Vec::new();
                for i in 0..options.length() {
                    if let Some(option) = options.item(i) {
                        // What the drop-down shows: a non-blank `label`, else the text.
                        let text = non_empty_attr(&option, "label")
                            .or_else(|| option.text_content())
                            .unwrap_or_default();
                        parts.push(normalize_whitespace(&text));
                    }
                }
                return Some(join(&parts, " "));
            }
            if tag == "input" {
                return js::get_string(element, "value");
            }
            let selected = element
                .query_selector("[aria-selected=\"true\"]")
                .ok()
                .flatten();
            Some(selected.and_then(|s| s.text_content()).unwrap_or_default())
        }
        "slider" | "spinbutton" | "progressbar" | "scrollbar" | "meter" => {
            if let Some(text) = non_empty_attr(element, "aria-valuetext") {
                return Some(text);
            }
            if let Some(now) = non_empty_attr(element, "aria-valuenow") {
                return Some(now);
            }
            if tag == "input" {
                return js::get_string(element, "value");
            }
            if tag == "meter" || (tag == "progress" && element.has_attribute("value")) {
                // The element's value as a number, as Chromium writes it ("0.5"; Firefox
                // writes a progress bar's as a percentage); an indeterminate progress bar
                // has none.
                return js::get(element, "value").as_f64().map(js::number_text);
            }
            // Without a value, ARIA's defaults as Chromium's tree gives them: the middle of
            // the range for a slider or scroll bar, 0 for a meter or spin button, none for a
            // progress bar (Firefox: the middle for all but the spin button).
            // Numbers read and written by JavaScript: Rust's float parser and formatter would
            // add ~24 KB to the executor for these lines. Only a number's characters, as
            // Rust's parse would want them ("10px" is no number).
            let bound = |attr: &str, default: f64| {
                non_empty_attr(element, attr)
                    .map(|v| v.trim().to_owned())
                    .filter(|v| {
                        !v.is_empty()
                            && v.bytes()
                                .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
                    })
                    .map(|v| js_sys::parse_float(&v))
                    .filter(|v| v.is_finite())
                    .unwrap_or(default)
            };
            match role? {
                "slider" | "scrollbar" => {
                    let middle =
                        (bound("aria-valuemin", 0.0) + bound("aria-valuemax", 100.0)) / 2.0;
                    Some(js::number_text(middle))
                }
                "meter" | "spinbutton" => Some("0".to_owned()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The text a computed `content` value contributes: its strings and `attr(…)` values (read
/// with `attribute`), or, when it has an alternative text after `/`, that text. Images
/// (`url(…)`, gradients, `image-set(…)`) and other functions (`counter(…)`) contribute
/// nothing, and neither do quote keywords. Also says whether the text is the alternative text.
fn parse_css_content(content: &str, attribute: impl Fn(&str) -> Option<String>) -> (String, bool) {
    let (strings, alt_from) = css_content_strings(content, attribute);
    match alt_from {
        Some(split) => (
            strings
                .get(split..)
                .map(|alt| join(alt, ""))
                .unwrap_or_default(),
            true,
        ),
        None => (join(&strings, ""), false),
    }
}

/// The text a computed `content` value draws: its strings and `attr(…)` values before any
/// alternative text (which is not drawn), as [`parse_css_content`] reads them.
pub(crate) fn drawn_css_content(
    content: &str,
    attribute: impl Fn(&str) -> Option<String>,
) -> String {
    let (strings, alt_from) = css_content_strings(content, attribute);
    join(
        strings
            .get(..alt_from.unwrap_or(strings.len()))
            .unwrap_or_default(),
        "",
    )
}

/// The strings of a computed `content` value, and where its alternative text starts.
fn css_content_strings(
    content: &str,
    attribute: impl Fn(&str) -> Option<String>,
) -> (Vec<String>, Option<usize>) {
    let mut strings = Vec::new();
    let mut alt_from = None;
    let mut chars = content.chars().peekable();
    let mut depth = 0usize;
    let mut word = String::new();
    // An image between two strings splits the text into two runs, which browsers join with a
    // space.
    let mut image_between = false;
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                let quote = c;
                let mut s = String::new();
                while let Some(inner) = chars.next() {
                    if inner == '\\' {
                        // A CSS escape: up to six hex digits and one optional space (the
                        // computed value writes a newline `"\A"` as `"\a "`), else the next
                        // character as itself.
                        let mut hex = String::new();
                        while hex.len() < 6 && chars.peek().is_some_and(char::is_ascii_hexdigit) {
                            hex.extend(chars.next());
                        }
                        if hex.is_empty() {
                            s.extend(chars.next());
                            continue;
                        }
                        if chars.peek().is_some_and(|c| c.is_ascii_whitespace()) {
                            chars.next();
                        }
                        let code = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
                        s.push(match char::from_u32(code) {
                            Some('\0') | None => '\u{FFFD}',
                            Some(c) => c,
                        });
                    } else if inner == quote {
                        break;
                    } else {
                        s.push(inner);
                    }
                }
                // A string inside a function (`url("…")`) is not text.
                if depth == 0 {
                    if image_between && !strings.is_empty() {
                        s.insert(0, ' ');
                    }
                    image_between = false;
                    strings.push(s);
                }
            }
            '(' => {
                if depth == 0 && word.eq_ignore_ascii_case("attr") {
                    // `attr(name)`: the attribute's value is the text.
                    let mut name = String::new();
                    for inner in chars.by_ref() {
                        if inner == ')' {
                            break;
                        }
                        name.push(inner);
                    }
                    let name = name.split([',', ' ']).next().unwrap_or_default();
                    strings.push(attribute(name.trim()).unwrap_or_default());
                } else {
                    if depth == 0 && !word.to_ascii_lowercase().starts_with("counter") {
                        image_between = true;
                    }
                    depth += 1;
                }
                word.clear();
            }
            ')' => depth = depth.saturating_sub(1),
            '/' if depth == 0 => alt_from = Some(strings.len()),
            c if c.is_alphanumeric() || c == '-' => word.push(c),
            _ => word.clear(),
        }
    }
    (strings, alt_from)
}
