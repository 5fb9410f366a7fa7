//! Test support: mount inline HTML into the page and remove it afterwards. Used by the
//! `tests/browser_*.rs` wasm tests (and usable by the bindings' tests); not part of the engine.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlElement};

/// A `<div>` of test HTML appended to `<body>`, removed (and the page scrolled back to the top)
/// when dropped.
#[derive(Debug)]
pub struct Fixture {
    container: HtmlElement,
}

impl Fixture {
    /// Appends `html` to the body inside a fresh container.
    pub fn mount(html: &str) -> Result<Self, JsValue> {
        let document = document()?;
        // A failed test does not run destructors: clear what it left behind.
        let stale = document.query_selector_all("[data-fixture]")?;
        for i in 0..stale.length() {
            if let Some(node) = stale.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                node.remove();
            }
        }
        let container: HtmlElement = document.create_element("div")?.dyn_into()?;
        container.set_attribute("data-fixture", "")?;
        container.set_inner_html(html);
        document.body().ok_or("no body")?.append_child(&container)?;
        Ok(Self { container })
    }

    /// The container element.
    pub fn container(&self) -> &HtmlElement {
        &self.container
    }

    /// The first element matching `css` in the fixture.
    pub fn find(&self, css: &str) -> Option<Element> {
        self.container.query_selector(css).ok().flatten()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.container.remove();
        if let Some(window) = web_sys::window() {
            window.scroll_to_with_x_and_y(0.0, 0.0);
        }
    }
}

/// The current document.
pub fn document() -> Result<Document, JsValue> {
    web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| JsValue::from_str("no document"))
}

/// Runs `source` as a classic inline script (synchronously, in the page's world).
pub fn run_script(source: &str) -> Result<(), JsValue> {
    let document = document()?;
    let script = document.create_element("script")?;
    script.set_text_content(Some(source));
    let parent = document
        .head()
        .map(Element::from)
        .or_else(|| document.document_element())
        .ok_or("no root")?;
    parent.append_child(&script)?;
    script.remove();
    Ok(())
}

/// Adds a `<style>` element to the head; returns it so the caller can remove it.
pub fn add_style(css: &str) -> Result<Element, JsValue> {
    let document = document()?;
    let style = document.create_element("style")?;
    style.set_text_content(Some(css));
    document.head().ok_or("no head")?.append_child(&style)?;
    Ok(style)
}

/// Resolves at the page's next animation frame.
pub async fn next_frame() -> Result<(), JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let mut scheduled = Ok(0);
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        scheduled = window.request_animation_frame(&resolve);
    });
    scheduled?;
    wasm_bindgen_futures::JsFuture::from(promise).await?;
    Ok(())
}

/// Waits `n` animation frames.
pub async fn frames(n: u32) -> Result<(), JsValue> {
    for _ in 0..n {
        next_frame().await?;
    }
    Ok(())
}

/// Waits, one animation frame at a time, until `condition` holds; an error after 120 frames
/// (about two seconds on an idle machine, longer under load, since frames slow down with it).
pub async fn until(mut condition: impl FnMut() -> bool) -> Result<(), JsValue> {
    for _ in 0..120 {
        if condition() {
            return Ok(());
        }
        next_frame().await?;
    }
    if condition() {
        return Ok(());
    }
    Err(JsValue::from_str(
        "condition never held within 120 animation frames",
    ))
}
