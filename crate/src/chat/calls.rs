//! The DOM calls the transcript reader makes on every poll, with their selector and attribute
//! arguments made JS strings once per page instead of once per call.
//!
//! web-sys passes a `&str` argument by decoding it from wasm memory into a new JS string on
//! every call (`TextDecoder.decode`). The reader passes the same few profile selectors on every
//! poll, and the poll that reads one appended message costs roughly one cold page call per
//! distinct kind of call (bench/results.md, Notes 3): with the strings kept, a quiet poll makes
//! no decode at all.

use std::cell::RefCell;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::Element;

use crate::protocol::join::join;

#[wasm_bindgen]
extern "C" {
    /// An element asked with a selector or attribute name that is already a JS string.
    type Scope;
    #[wasm_bindgen(method, catch, js_name = matches)]
    fn matches_js(this: &Scope, selector: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, catch, js_name = querySelector)]
    fn query_selector_js(this: &Scope, selector: &JsValue) -> Result<Option<Element>, JsValue>;
    #[wasm_bindgen(method, catch, js_name = closest)]
    fn closest_js(this: &Scope, selector: &JsValue) -> Result<Option<Element>, JsValue>;
    #[wasm_bindgen(method, js_name = getAttribute)]
    fn get_attribute_js(this: &Scope, name: &JsValue) -> Option<String>;
}

/// What a cached string is made from: one `&'static str`, or a list joined with `", "` (a
/// selector list matched in one call). Compared by address: a literal or a table is one place
/// in the binary, so no bytes are compared on this path.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Str(usize, usize),
    List(usize, usize),
}

thread_local! {
    /// The JS strings made so far (a few dozen at most: the profiles' selectors and names).
    static STRINGS: RefCell<Vec<(Key, JsValue)>> = const { RefCell::new(Vec::new()) };
}

fn with_js<T>(key: Key, make: impl FnOnce() -> String, read: impl FnOnce(&JsValue) -> T) -> T {
    STRINGS.with(|strings| {
        let mut strings = strings.borrow_mut();
        if let Some((_, value)) = strings.iter().find(|(known, _)| *known == key) {
            return read(value);
        }
        let value = JsValue::from_str(&make());
        let result = read(&value);
        strings.push((key, value));
        result
    })
}

fn str_key(text: &'static str) -> Key {
    Key::Str(text.as_ptr() as usize, text.len())
}

/// `element.matches(selector)`; a selector the browser rejects matches nothing.
pub fn matches(element: &Element, selector: &'static str) -> bool {
    with_js(
        str_key(selector),
        || selector.to_owned(),
        |js| {
            element
                .unchecked_ref::<Scope>()
                .matches_js(js)
                .unwrap_or(false)
        },
    )
}

/// `scope.querySelector(selector)`; `None` also when the browser rejects the selector.
pub fn query_selector(scope: &Element, selector: &'static str) -> Option<Element> {
    with_js(
        str_key(selector),
        || selector.to_owned(),
        |js| {
            scope
                .unchecked_ref::<Scope>()
                .query_selector_js(js)
                .ok()
                .flatten()
        },
    )
}

/// `element.closest(selector)`; `None` also when the browser rejects the selector.
pub fn closest(element: &Element, selector: &'static str) -> Option<Element> {
    with_js(
        str_key(selector),
        || selector.to_owned(),
        |js| {
            element
                .unchecked_ref::<Scope>()
                .closest_js(js)
                .ok()
                .flatten()
        },
    )
}

/// `element.getAttribute(name)`.
pub fn attribute(element: &Element, name: &'static str) -> Option<String> {
    with_js(
        str_key(name),
        || name.to_owned(),
        |js| element.unchecked_ref::<Scope>().get_attribute_js(js),
    )
}

/// A selector list made one selector (`", "`-joined), as a JS string made once: `Err` when the
/// browser rejects the joined list (the caller then tries each entry alone, so one entry a
/// browser does not know cannot hide what the others match).
pub fn list_matches(element: &Element, list: &'static [&'static str]) -> Result<bool, JsValue> {
    with_js(
        Key::List(list.as_ptr() as usize, list.len()),
        || join(list, ", "),
        |js| element.unchecked_ref::<Scope>().matches_js(js),
    )
}

/// `scope.querySelector` of a whole list at once (see [`list_matches`]).
pub fn list_query(
    scope: &Element,
    list: &'static [&'static str],
) -> Result<Option<Element>, JsValue> {
    with_js(
        Key::List(list.as_ptr() as usize, list.len()),
        || join(list, ", "),
        |js| scope.unchecked_ref::<Scope>().query_selector_js(js),
    )
}
