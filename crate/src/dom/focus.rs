//! Focus as the page would see it, also in a background tab.
//!
//! In real use the user is in the chat tab while BAI acts on another tab: that document has no
//! system focus, so `element.focus()` moves `document.activeElement` but the browser fires no
//! `focus` / `focusin` on the new element and no `blur` / `focusout` on the old one (Chromium and
//! Firefox both hold them back until the tab is focused). Widgets that open on focus (searchable
//! selects) or commit, close or clear on blur would then behave unlike they do for a user.
//!
//! So while the document has no focus, BAI keeps track of the element the page was last told
//! has focus (none when the tab went to the background: the page saw a `blur` then) and, after
//! every focus change an action makes ([`move_focus`], [`release_focus`]) and after every event
//! it dispatches that a page handler may answer with its own `focus()` call ([`sync`], e.g.
//! react-select focusing its input on `mousedown`), tells the page what changed, in the browser's
//! order: `blur`, `focusout` on the old element, `focus`, `focusin` on the new one, with
//! `relatedTarget` set, composed so shadow roots see them retargeted. The real `focus()` is
//! always called, so `document.activeElement` is the browser's own. When the document has focus
//! the browser fires these events itself and nothing is added. The window is never focused and
//! the tab never raised: the user's focus stays in the chat. Limits: the events are untrusted
//! (`isTrusted` is false); `document.hasFocus()`, `:focus`, `:focus-visible` and `:focus-within`
//! stay false in a background tab (the browser computes them from system focus); a focus change
//! the page makes later on its own (a timer) is told only at BAI's next action; when the user
//! switches to the tab, the browser fires its own `focus` on the focused element.

use std::cell::RefCell;

use wasm_bindgen::{JsCast, JsValue};

use super::js;
use web_sys::{Document, Element, FocusEvent, FocusEventInit, HtmlElement};

use super::tree::ShadowAccess;

/// What BAI knows of a document without focus.
struct Known {
    document: Document,
    /// The element the page was last told has focus.
    told: Option<Element>,
    /// The focused element when BAI last looked.
    seen: Option<Element>,
}

thread_local! {
    static KNOWN: RefCell<Vec<Known>> = const { RefCell::new(Vec::new()) };
}

/// The deepest focused element of `document`, through open shadow roots; `None` when focus is
/// on the document itself (`<body>` or nothing).
pub(crate) fn focused_element(document: &Document) -> Option<Element> {
    let shadow = ShadowAccess::detect();
    let mut active = document.active_element()?;
    for _ in 0..32 {
        match shadow.shadow_root(&active).and_then(|r| r.active_element()) {
            Some(inner) if inner != active => active = inner,
            _ => break,
        }
    }
    let tag = active.local_name();
    (tag != "body" && tag != "html").then_some(active)
}

/// Moves focus to `element` (any element with a `focus` method, any realm) as a user's focus
/// change would, events included (also when it already had focus the page was not told of).
pub(crate) fn move_focus(element: &Element) {
    let Some(document) = element.owner_document() else {
        return;
    };
    baseline(&document);
    let _ = element.unchecked_ref::<HtmlElement>().focus();
    tell(&document, true);
}

/// Takes focus off the focused element (a click landed on something that cannot take focus,
/// which gives focus back to the document), as a user's click would, events included.
pub(crate) fn release_focus(document: &Document) {
    baseline(document);
    if let Some(old) = focused_element(document) {
        let _ = old.unchecked_ref::<HtmlElement>().blur();
    }
    tell(document, true);
}

/// Notes where focus is before BAI dispatches events, so a focus change the page's own handlers
/// make can be told after them ([`sync`]).
pub(crate) fn baseline(document: &Document) {
    let system = has_system_focus(document);
    with_known(document, system, |_| {});
}

/// After BAI dispatched events: tells the page about a focus change its handlers made, if its
/// document has no focus.
pub(crate) fn sync(document: &Document) {
    tell(document, false);
}

/// Whether the browser fires focus events in `document` itself (the tab is the user's).
fn has_system_focus(document: &Document) -> bool {
    document.has_focus().unwrap_or(false)
        || web_sys::window()
            .and_then(|w| w.document())
            .is_some_and(|d| d.has_focus().unwrap_or(false))
}

/// Runs `f` on the record of `document` (created with the current focus, told nothing), unless
/// the document has system focus (then its record is dropped: the browser tells the page).
fn with_known<T>(document: &Document, system: bool, f: impl FnOnce(&mut Known) -> T) -> Option<T> {
    KNOWN.with(|cell| {
        let mut all = cell.try_borrow_mut().ok()?;
        all.retain(|k| k.document.default_view().is_some() && !(system && k.document == *document));
        if system {
            return None;
        }
        let index = match all.iter().position(|k| k.document == *document) {
            Some(index) => index,
            None => {
                all.push(Known {
                    document: document.clone(),
                    told: None,
                    seen: focused_element(document),
                });
                all.len() - 1
            }
        };
        all.get_mut(index).map(f)
    })
}

/// Tells the page where focus is now when it moved since BAI last looked (or, `force`, whenever
/// the page was told otherwise).
fn tell(document: &Document, force: bool) {
    let system = has_system_focus(document);
    let now = focused_element(document);
    let change = with_known(document, system, |known| {
        let moved = known.seen != now;
        known.seen = now.clone();
        if (force || moved) && known.told != now {
            Some(std::mem::replace(&mut known.told, now.clone()))
        } else {
            None
        }
    })
    .flatten();
    let Some(told) = change else {
        return;
    };
    if let Some(old) = &told {
        if old.is_connected() {
            dispatch_pair(old, ["blur", "focusout"], now.as_ref());
        }
    }
    if let Some(new) = &now {
        dispatch_pair(new, ["focus", "focusin"], told.as_ref());
    }
}

/// `blur` + `focusout` or `focus` + `focusin` on `target`: the first does not bubble, the second
/// does; both are composed.
fn dispatch_pair(target: &Element, kinds: [&str; 2], related: Option<&Element>) {
    for (kind, bubbles) in [(kinds[0], false), (kinds[1], true)] {
        let init = FocusEventInit::new();
        js::put(&init, "bubbles", &bubbles.into());
        js::put(&init, "composed", &JsValue::TRUE);
        js::put(
            &init,
            "relatedTarget",
            related.map_or(&JsValue::UNDEFINED, AsRef::as_ref),
        );
        if let Some(view) = target.owner_document().and_then(|d| d.default_view()) {
            js::put(&init, "view", &view);
        }
        if let Ok(event) = FocusEvent::new_with_focus_event_init_dict(kind, &init) {
            let _ = target.dispatch_event(&event);
        }
    }
}
