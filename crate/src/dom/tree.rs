//! Walking the page the way a user sees it: the document, open shadow roots (and closed ones
//! when the extension may open them), and same-origin iframes.

use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlIFrameElement, Node, ShadowRoot};

use super::js;

/// How to reach an element's shadow root, detected once per query.
#[derive(Debug, Clone)]
pub enum ShadowAccess {
    /// Chrome extensions: `chrome.dom.openOrClosedShadowRoot(element)`.
    ChromeDom(js_sys::Function),
    /// Firefox content scripts: `element.openOrClosedShadowRoot` (checked per element).
    FirefoxOrOpen,
}

impl ShadowAccess {
    /// Feature-detects the best way to open shadow roots in this context.
    pub fn detect() -> Self {
        let global = js_sys::global();
        let chrome = js::get(&global, "chrome");
        if !chrome.is_undefined() && !chrome.is_null() {
            let dom = js::get(&chrome, "dom");
            if !dom.is_undefined() && !dom.is_null() {
                if let Ok(function) = js::get(&dom, "openOrClosedShadowRoot").dyn_into() {
                    return Self::ChromeDom(function);
                }
            }
        }
        Self::FirefoxOrOpen
    }

    /// The shadow root of `element`, open or (when allowed) closed.
    pub fn shadow_root(&self, element: &Element) -> Option<ShadowRoot> {
        if !can_host_shadow(&element.local_name()) {
            return None;
        }
        self.open(element)
    }

    /// [`Self::shadow_root`] without the element-name check.
    fn open(&self, element: &Element) -> Option<ShadowRoot> {
        match self {
            Self::ChromeDom(function) => {
                let chrome_dom = js::get(&js::get(&js_sys::global(), "chrome"), "dom");
                let value = function.call1(&chrome_dom, element).ok()?;
                as_node(&value).and_then(as_shadow_root).cloned()
            }
            Self::FirefoxOrOpen => {
                let firefox = js::get(element, "openOrClosedShadowRoot");
                if let Some(root) = as_node(&firefox).and_then(as_shadow_root) {
                    return Some(root.clone());
                }
                element.shadow_root()
            }
        }
    }
}

/// Only custom elements and these HTML elements accept `attachShadow` (DOM standard); checking
/// the name first saves a reflective call per element on large pages.
fn can_host_shadow(local_name: &str) -> bool {
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
        self.walk().0
    }

    /// Every scope CSS can be run in: the document, each shadow root and each same-origin iframe
    /// document, in tree order.
    pub fn scopes(&self) -> Vec<Node> {
        self.walk().1
    }

    /// One pass over the composed tree: the elements and the scopes (document, shadow roots,
    /// frame documents). Each element costs a handful of calls into JS; large pages have
    /// thousands of elements, so this avoids any call it can.
    fn walk(&self) -> (Vec<Element>, Vec<Node>) {
        let mut elements = Vec::new();
        let mut scopes: Vec<Node> = vec![self.document.clone().into()];
        let mut stack: Vec<Node> = Vec::new();
        push_children_reversed(&mut stack, self.document.as_ref());
        while let Some(node) = stack.pop() {
            // Only element nodes are pushed.
            let element: Element = node.unchecked_into();
            let name = element.local_name();
            // Children first reversed, then shadow root and iframe on top, so they come next.
            push_children_reversed(&mut stack, element.as_ref());
            if name == "iframe" {
                if let Some(frame_document) = element
                    .unchecked_ref::<HtmlIFrameElement>()
                    .content_document()
                {
                    push_children_reversed(&mut stack, frame_document.as_ref());
                    scopes.push(frame_document.into());
                }
            }
            if can_host_shadow(&name) {
                if let Some(root) = self.shadow.open(&element) {
                    push_children_reversed(&mut stack, root.as_ref());
                    scopes.push(root.into());
                }
            }
            elements.push(element);
        }
        (elements, scopes)
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
    options.set_flatten(true);
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

fn push_children_reversed(stack: &mut Vec<Node>, node: &Node) {
    let mut child = node.last_child();
    while let Some(current) = child {
        child = current.previous_sibling();
        if current.node_type() == Node::ELEMENT_NODE {
            stack.push(current);
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
