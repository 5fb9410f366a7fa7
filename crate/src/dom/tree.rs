//! Walking the page the way a user sees it: the document, open shadow roots (and closed ones
//! when the extension may open them), and same-origin iframes.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlIFrameElement, Node, ShadowRoot};

use super::js;

#[wasm_bindgen]
extern "C" {
    /// An element asked for its shadow root through a getter of the page's DOM (one call).
    type ShadowHost;
    /// `element.openOrClosedShadowRoot` (Firefox content scripts only; `undefined` elsewhere).
    #[wasm_bindgen(method, getter, js_name = openOrClosedShadowRoot)]
    fn open_or_closed_shadow_root(this: &ShadowHost) -> Option<ShadowRoot>;
    /// `element.shadowRoot`: the open shadow root.
    #[wasm_bindgen(method, getter, js_name = shadowRoot)]
    fn open_shadow_root(this: &ShadowHost) -> Option<ShadowRoot>;

    /// `chrome.dom`, the Chrome extension API that opens closed shadow roots.
    type ChromeDom;
    /// Throws for an element that is not an `HTMLElement` (an SVG or MathML element): caught,
    /// since an exception through wasm would end the whole action with no answer.
    #[wasm_bindgen(method, catch, js_name = openOrClosedShadowRoot)]
    fn open_or_closed(this: &ChromeDom, element: &Element) -> Result<Option<ShadowRoot>, JsValue>;

    /// A document that creates tree walkers (any realm).
    type WalkerSource;
    #[wasm_bindgen(method, js_name = createTreeWalker)]
    fn create_tree_walker(this: &WalkerSource, root: &Node, what_to_show: u32) -> ElementWalker;

    /// A `TreeWalker` over elements only.
    type ElementWalker;
    #[wasm_bindgen(method, js_name = nextNode)]
    fn next_node(this: &ElementWalker) -> Option<Element>;

    /// A document or shadow root asked for its iframes.
    type FrameScope;
    #[wasm_bindgen(method, js_name = querySelectorAll)]
    fn query_all(this: &FrameScope, selector: &JsValue) -> web_sys::NodeList;
}

/// `NodeFilter.SHOW_ELEMENT`.
const SHOW_ELEMENT: u32 = 0x1;

/// How to reach an element's shadow root, detected once per query.
#[derive(Debug, Clone)]
pub enum ShadowAccess {
    /// Chrome extensions: `chrome.dom.openOrClosedShadowRoot(element)`.
    ChromeDom(js_sys::Object),
    /// Firefox content scripts: `element.openOrClosedShadowRoot`.
    Firefox,
    /// Elsewhere (a page, a test): open shadow roots only.
    OpenOnly,
}

impl ShadowAccess {
    /// Feature-detects the best way to open shadow roots in this context.
    pub fn detect() -> Self {
        let global = js_sys::global();
        let chrome = js::get(&global, "chrome");
        if !chrome.is_undefined() && !chrome.is_null() {
            let dom = js::get(&chrome, "dom");
            if !dom.is_undefined()
                && !dom.is_null()
                && js::get(&dom, "openOrClosedShadowRoot").is_function()
            {
                return Self::ChromeDom(dom.unchecked_into());
            }
        }
        // Where the getter exists it answers `null` for the root element (which cannot host a
        // shadow root); elsewhere it is `undefined`.
        let firefox = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
            .is_some_and(|html| js::get(&html, "openOrClosedShadowRoot").is_null());
        if firefox {
            Self::Firefox
        } else {
            Self::OpenOnly
        }
    }

    /// The shadow root of `element`, open or (when allowed) closed.
    pub fn shadow_root(&self, element: &Element) -> Option<ShadowRoot> {
        if !can_host_shadow(&element.local_name()) {
            return None;
        }
        self.open(element)
    }

    /// [`Self::shadow_root`] without the element-name check: one call into the page.
    pub(crate) fn open(&self, element: &Element) -> Option<ShadowRoot> {
        match self {
            Self::ChromeDom(dom) => dom
                .unchecked_ref::<ChromeDom>()
                .open_or_closed(element)
                .ok()
                .flatten(),
            Self::Firefox => element
                .unchecked_ref::<ShadowHost>()
                .open_or_closed_shadow_root(),
            Self::OpenOnly => element.unchecked_ref::<ShadowHost>().open_shadow_root(),
        }
    }
}

/// Only custom elements and these HTML elements accept `attachShadow` (DOM standard); checking
/// the name first saves a reflective call per element on large pages.
pub(crate) fn can_host_shadow(local_name: &str) -> bool {
    local_name.contains('-')
        || matches!(
            local_name,
            "article"
                | "aside"
                | "blockquote"
                | "body"
                | "div"
                | "footer"
                | "h1"
                | "h2"
                | "h3"
                | "h4"
                | "h5"
                | "h6"
                | "header"
                | "main"
                | "nav"
                | "p"
                | "section"
                | "span"
        )
}

/// The starting point of a query: a document plus the way to open shadow roots.
#[derive(Debug, Clone)]
pub struct QueryRoot {
    /// The top document.
    pub document: Document,
    /// How shadow roots are opened.
    pub shadow: ShadowAccess,
}

impl QueryRoot {
    /// The current window's document.
    pub fn current() -> Option<Self> {
        let document = web_sys::window()?.document()?;
        Some(Self {
            document,
            shadow: ShadowAccess::detect(),
        })
    }

    /// Every element in tree order, descending into shadow roots (right after their host) and
    /// same-origin iframe documents (right after the iframe).
    pub fn all_elements(&self) -> Vec<Element> {
        self.walk().elements
    }

    /// Every scope CSS can be run in: the document, each shadow root and each same-origin iframe
    /// document, in tree order.
    pub fn scopes(&self) -> Vec<Node> {
        self.walk().scopes
    }

    /// One pass over the composed tree: the elements and the scopes (document, shadow roots,
    /// frame documents). Large pages have thousands of elements, so each costs two calls into
    /// the page and no string: the tree walker's next element and its shadow root (asking every
    /// element is cheaper than reading its name to skip the ones that cannot host one). Iframes
    /// are listed per scope once and compared only while some are still ahead.
    pub fn walk(&self) -> Walked {
        let mut walked = Walked {
            elements: Vec::new(),
            scopes: Vec::new(),
            nested: Vec::new(),
        };
        let iframe = JsValue::from_str("iframe");
        self.walk_scope(self.document.as_ref(), &self.document, &iframe, &mut walked);
        walked
    }

    /// Walks `scope` (a document or shadow root, whose elements `document` owns), descending
    /// into shadow roots right after their host and frame documents right after the iframe.
    fn walk_scope(&self, scope: &Node, document: &Document, iframe: &JsValue, walked: &mut Walked) {
        let index = walked.scopes.len();
        walked.scopes.push(scope.clone());
        walked.nested.push(Vec::new());
        let frames = scope.unchecked_ref::<FrameScope>().query_all(iframe);
        let mut next_frame = 0;
        let mut pending_frame = frames.item(next_frame);
        let walker = document
            .unchecked_ref::<WalkerSource>()
            .create_tree_walker(scope, SHOW_ELEMENT);
        while let Some(element) = walker.next_node() {
            // Kept by index, not cloned: a clone is a call into the page, once per element.
            let at = walked.elements.len();
            walked.elements.push(element);
            let Some(element) = walked.elements.get(at) else {
                continue;
            };
            // The name is read only for hosts: user-agent shadow roots (of inputs, media) stay
            // closed, whatever the opening API would answer.
            let shadow = self
                .shadow
                .open(element)
                .filter(|_| can_host_shadow(&element.local_name()));
            let is_pending_frame = pending_frame.as_ref().is_some_and(|frame| {
                AsRef::<JsValue>::as_ref(frame) == AsRef::<JsValue>::as_ref(element)
            });
            if shadow.is_none() && !is_pending_frame {
                continue;
            }
            let element = element.clone();
            if let Some(root) = shadow {
                walked.enter(index, &element);
                self.walk_scope(root.as_ref(), document, iframe, walked);
            }
            if is_pending_frame {
                next_frame += 1;
                pending_frame = frames.item(next_frame);
                if let Some(frame_document) = element
                    .unchecked_ref::<HtmlIFrameElement>()
                    .content_document()
                {
                    walked.enter(index, &element);
                    self.walk_scope(frame_document.as_ref(), &frame_document, iframe, walked);
                }
            }
        }
    }

    /// The child nodes of `element` as rendered: its shadow root's children when it is a host,
    /// else its own children. Slots are resolved by [`assigned_or_fallback`].
    pub fn rendered_children(&self, element: &Element) -> Vec<Node> {
        match self.shadow.shadow_root(element) {
            Some(root) => children(root.as_ref()),
            None => children(element.as_ref()),
        }
    }
}

/// The nodes a `<slot>` renders: its assigned nodes (flattened), else its fallback children.
pub fn assigned_or_fallback(slot: &web_sys::HtmlSlotElement) -> Vec<Node> {
    let options = web_sys::AssignedNodesOptions::new();
    js::put(&options, "flatten", &JsValue::TRUE);
    let assigned: Vec<Node> = slot
        .assigned_nodes_with_options(&options)
        .iter()
        .filter_map(|n| as_node(&n).cloned())
        .collect();
    if assigned.is_empty() {
        children(slot.as_ref())
    } else {
        assigned
    }
}

/// The child nodes of `node`.
pub fn children(node: &Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut child = node.first_child();
    while let Some(current) = child {
        child = current.next_sibling();
        out.push(current);
    }
    out
}

/// What one walk over the composed tree finds.
#[derive(Debug, Clone)]
pub struct Walked {
    /// Every element in tree order (shadow contents right after their host, a frame's
    /// document right after its iframe).
    pub elements: Vec<Element>,
    /// The document, then each shadow root and same-origin frame document, in tree order.
    pub scopes: Vec<Node>,
    /// Per scope, the scopes entered from it: the host (or iframe) and the entered scope's
    /// index, in tree order.
    nested: Vec<Vec<(Element, usize)>>,
}

impl Walked {
    /// Notes that the scope walked next is entered from `host` (a shadow host or an iframe) in
    /// scope `parent`.
    fn enter(&mut self, parent: usize, host: &Element) {
        let child = self.scopes.len();
        if let Some(nested) = self.nested.get_mut(parent) {
            nested.push((host.clone(), child));
        }
    }

    /// The elements `filter` matches, in the walk's order, with one `querySelectorAll` per
    /// scope instead of a test per element: each scope's matches are in its own tree order,
    /// and a nested scope's go right after those at or before its host (one position
    /// comparison per match, against the next host only).
    pub fn matching(&self, filter: &CssFilter) -> Vec<Element> {
        let mut out = Vec::new();
        self.matching_in(0, filter, &mut out);
        out
    }

    /// The scopes (shadow roots, frame documents) entered from `element` or from a host inside
    /// it in the composed tree ([`composed_contains`]), nested ones included.
    pub fn scopes_inside(&self, element: &Element) -> Vec<Node> {
        let mut out = Vec::new();
        for (host, index) in self.nested.iter().flatten() {
            if composed_contains(element, host) {
                out.extend(self.scopes.get(*index).cloned());
            }
        }
        out
    }

    fn matching_in(&self, index: usize, filter: &CssFilter, out: &mut Vec<Element>) {
        let Some(scope) = self.scopes.get(index) else {
            return;
        };
        let list = scope.unchecked_ref::<FrameScope>().query_all(&filter.0);
        let count = list.length();
        let mut next = 0;
        for (host, child) in self.nested.get(index).into_iter().flatten() {
            while next < count {
                let Some(node) = list.item(next) else {
                    next += 1;
                    continue;
                };
                // The host itself (0) or a node before it comes before the host's shadow
                // contents; its light children and what follows come after them.
                let position = host.compare_document_position(&node);
                if position != 0 && position & Node::DOCUMENT_POSITION_PRECEDING == 0 {
                    break;
                }
                out.push(node.unchecked_into());
                next += 1;
            }
            self.matching_in(*child, filter, out);
        }
        while next < count {
            if let Some(node) = list.item(next) {
                out.push(node.unchecked_into());
            }
            next += 1;
        }
    }
}

/// The document of a same-origin iframe (`None` for other elements and cross-origin frames).
pub fn iframe_document(element: &Element) -> Option<Document> {
    as_tag::<HtmlIFrameElement>(element, "iframe")?.content_document()
}

/// The parent in the composed tree: the parent element, or the shadow host when at the top of a
/// shadow root, or the iframe element when at the top of a frame document.
pub fn composed_parent(element: &Element) -> Option<Element> {
    if let Some(parent) = element.parent_element() {
        return Some(parent);
    }
    let parent = element.parent_node()?;
    if let Some(root) = as_shadow_root(&parent) {
        return Some(root.host());
    }
    if let Some(document) = as_document(&parent) {
        return document
            .default_view()
            .and_then(|w| w.frame_element().ok().flatten());
    }
    None
}

/// The parent an event passes through on its way up (the flat tree): the `<slot>` an element is
/// assigned to, else [`composed_parent`]. A click on a light-DOM child of a shadow host goes
/// through the link, button or form the shadow tree wraps around its slot: the review and the
/// click's hit test must see those, which the parent element (the host) skips.
pub fn event_parent(element: &Element) -> Option<Element> {
    // `as_element`, not `dyn_into`: the slot may belong to another realm (a frame, or the page
    // seen from Firefox's content-script sandbox), where `instanceof` is false.
    if let Some(slot) = as_element(&js::get(element, "assignedSlot")) {
        return Some(slot.clone());
    }
    // `assignedSlot` is null for a slot in a closed shadow root: BAI opens the host's root as it
    // can (the extension's APIs) and finds the slot that holds the element itself.
    if let Some(host) = element.parent_element() {
        if can_host_shadow(&host.local_name()) && js::get(&host, "shadowRoot").is_null() {
            if let Some(slot) = closed_slot_of(&host, element) {
                return Some(slot);
            }
        }
    }
    composed_parent(element)
}

thread_local! {
    /// How this context opens closed shadow roots (it does not change while the module lives).
    static SHADOW_ACCESS: ShadowAccess = ShadowAccess::detect();
}

/// The `<slot>` of `host`'s closed shadow root that `child` is assigned to, if BAI can open it.
fn closed_slot_of(host: &Element, child: &Element) -> Option<Element> {
    let root = SHADOW_ACCESS.with(|access| access.open(host))?;
    let slots = root.query_selector_all("slot").ok()?;
    (0..slots.length().min(1_000))
        .filter_map(|i| slots.item(i))
        .filter_map(|node| as_element(&node).cloned())
        .find(|slot| {
            js::call(slot, "assignedNodes", &[])
                .ok()
                .flatten()
                .filter(JsValue::is_object)
                .is_some_and(|nodes| nodes.unchecked_into::<js_sys::Array>().includes(child, 0))
        })
}

/// Whether `element` submits its form when pressed: a `<button>` or an `<input>` whose `type`
/// the browser reads as submit (`image` for an input). The `type` property, not the
/// attribute: the browser takes a button of any type it does not know (`type="go"`,
/// `"submit "`) for a submit button, and an input of any type it does not know for a text field
/// (red team red9, session 20: a `type="bogus"` button submitted its form unreviewed).
pub(crate) fn is_submit_button(element: &Element) -> bool {
    let kind = super::js::get_string(element, "type").unwrap_or_default();
    match element.local_name().as_str() {
        "button" => kind == "submit",
        "input" => matches!(kind.as_str(), "submit" | "image"),
        _ => false,
    }
}

/// A form's controls in tree order (`form.elements`, buttons outside it that name it with
/// `form=` included), read through the prototype's getter ([`js::form_elements`]): `None` when
/// it cannot be read, and callers fail closed.
pub fn form_controls(form: &Element) -> Option<Vec<Element>> {
    let elements = js::form_elements(form)?;
    let length = js::get(&elements, "length").as_f64().unwrap_or(0.0) as u32;
    Some(
        (0..length.min(10_000))
            .filter_map(|i| as_element(&js::get(&elements, &i.to_string())).cloned())
            .collect(),
    )
}

/// Whether `ancestor` is `node` or contains it on the way an event goes up ([`event_parent`]).
pub fn event_contains(ancestor: &Element, node: &Element) -> bool {
    let mut current = Some(node.clone());
    let mut steps = 0;
    while let Some(element) = current {
        if &element == ancestor {
            return true;
        }
        steps += 1;
        // A page cannot build a deeper tree that a click should be allowed through.
        if steps > 20_000 {
            return false;
        }
        current = event_parent(&element);
    }
    false
}

/// Whether `ancestor` is `node` or contains it in the composed tree (across shadow roots and
/// frames).
pub fn composed_contains(ancestor: &Element, node: &Element) -> bool {
    let mut current = Some(node.clone());
    while let Some(element) = current {
        if &element == ancestor {
            return true;
        }
        current = composed_parent(&element);
    }
    false
}

/// `getElementById` in the tree (document or shadow root) that holds `element`.
pub fn element_by_id_near(element: &Element, id: &str) -> Option<Element> {
    let root = element.get_root_node();
    if let Some(shadow) = as_shadow_root(&root) {
        return shadow.get_element_by_id(id);
    }
    if let Some(document) = as_document(&root) {
        return document.get_element_by_id(id);
    }
    element.owner_document()?.get_element_by_id(id)
}

// Realm-independent casts. Nodes inside an iframe belong to another JS realm, where
// `instanceof Element` (what `dyn_ref` checks) is false; these check `nodeType` instead.

/// `value` as a DOM node of any realm.
pub fn as_node(value: &wasm_bindgen::JsValue) -> Option<&Node> {
    if !value.is_object() {
        return None;
    }
    js::get(value, "nodeType")
        .as_f64()
        .map(|_| value.unchecked_ref::<Node>())
}

/// The first `most` labels of a labelable control (its `labels`; none for anything else).
pub(crate) fn labels_of(element: &Element, most: u32) -> Vec<Element> {
    let labels = super::js::get(element, "labels");
    let length = super::js::get(&labels, "length").as_f64().unwrap_or(0.0) as u32;
    (0..length.min(most))
        .filter_map(|i| as_element(&super::js::get(&labels, &i.to_string())).cloned())
        .collect()
}

/// `value` as an element of any realm.
pub fn as_element(value: &wasm_bindgen::JsValue) -> Option<&Element> {
    let node = as_node(value)?;
    (node.node_type() == Node::ELEMENT_NODE).then(|| value.unchecked_ref::<Element>())
}

/// `node` as a document of any realm.
pub fn as_document(node: &Node) -> Option<&Document> {
    (node.node_type() == Node::DOCUMENT_NODE).then(|| node.unchecked_ref::<Document>())
}

/// `node` as a shadow root of any realm.
pub fn as_shadow_root(node: &Node) -> Option<&ShadowRoot> {
    if node.node_type() != Node::DOCUMENT_FRAGMENT_NODE {
        return None;
    }
    as_element(&js::get(node, "host")).map(|_| node.unchecked_ref::<ShadowRoot>())
}

/// `element` as `T` when its local name is `tag` (any realm).
pub fn as_tag<'a, T: JsCast>(element: &'a Element, tag: &str) -> Option<&'a T> {
    (element.local_name() == tag).then(|| element.unchecked_ref::<T>())
}

#[wasm_bindgen]
extern "C" {
    /// An element tested against a selector already in JS.
    type MatchTarget;
    #[wasm_bindgen(method, catch, js_name = matches)]
    fn matches_selector(this: &MatchTarget, selector: &JsValue) -> Result<bool, JsValue>;
}

/// A CSS selector made into a JS string once and tested on many elements, one call each: the
/// cheap first filter of an engine whose exact test reads several attributes per element.
#[derive(Debug, Clone)]
pub struct CssFilter(JsValue);

impl CssFilter {
    /// A filter for `selector` (a valid selector; an invalid one matches nothing).
    pub fn new(selector: &str) -> Self {
        Self(JsValue::from_str(selector))
    }

    /// `element.matches(selector)`.
    pub fn matches(&self, element: &Element) -> bool {
        element
            .unchecked_ref::<MatchTarget>()
            .matches_selector(&self.0)
            .unwrap_or(false)
    }
}
