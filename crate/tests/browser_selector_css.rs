#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The css engine: light DOM, open shadow roots, same-origin iframes, syntax errors.

use bai::dom::fixture::{Fixture, document};
use bai::dom::selector::{QueryRoot, query_all, resolve, validate};
use bai::protocol::{Selector, SelectorKind};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn ids(value: &str) -> Vec<String> {
    let root = QueryRoot::current().unwrap();
    query_all(&root, &Selector::css(value))
        .unwrap()
        .iter()
        .map(|e| e.id())
        .collect()
}

#[wasm_bindgen_test]
fn finds_light_dom_elements_in_order() {
    let _f =
        Fixture::mount(r#"<div><input id="a" class="f"><p><input id="b" class="f"></p></div>"#)
            .unwrap();
    assert_eq!(ids("input.f"), ["a", "b"]);
}

#[wasm_bindgen_test]
fn descends_into_open_shadow_roots() {
    let f = Fixture::mount(r#"<div id="host"></div>"#).unwrap();
    let host = f.find("#host").unwrap();
    let init = web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open);
    let root = host.attach_shadow(&init).unwrap();
    root.set_inner_html(r#"<button id="inner">Go</button><div id="nested"></div>"#);
    let nested = root.get_element_by_id("nested").unwrap();
    let inner_root = nested.attach_shadow(&init).unwrap();
    inner_root.set_inner_html(r#"<button id="deep">Deep</button>"#);
    assert_eq!(ids("button"), ["inner", "deep"]);
}

#[wasm_bindgen_test]
fn closed_shadow_roots_stay_closed_without_extension_access() {
    // In a plain page (no chrome.dom, no Firefox xray), a closed root cannot be opened.
    let f = Fixture::mount(r#"<div id="host"></div>"#).unwrap();
    let host = f.find("#host").unwrap();
    let root = host
        .attach_shadow(&web_sys::ShadowRootInit::new(
            web_sys::ShadowRootMode::Closed,
        ))
        .unwrap();
    root.set_inner_html(r#"<button id="secret">Go</button>"#);
    assert!(ids("#secret").is_empty());
}

#[wasm_bindgen_test]
fn descends_into_same_origin_iframes() {
    let f = Fixture::mount(r#"<iframe id="frame"></iframe>"#).unwrap();
    let frame: web_sys::HtmlIFrameElement = f.find("#frame").unwrap().dyn_into().unwrap();
    let inner = frame.content_document().unwrap();
    inner
        .body()
        .unwrap()
        .set_inner_html(r#"<a id="in-frame" href="/x">Link</a>"#);
    assert_eq!(ids("a#in-frame"), ["in-frame"]);
}

#[wasm_bindgen_test]
fn browser_syntax_errors_are_invalid_selector() {
    let _f = Fixture::mount("<p>x</p>").unwrap();
    let root = QueryRoot::current().unwrap();
    let err = resolve(&root, &Selector::css("p >> ! q")).unwrap_err();
    assert_eq!(err.code(), "invalid_selector");
}

#[wasm_bindgen_test]
fn unbalanced_brackets_report_a_position() {
    let err = validate(&Selector::css("input[name=email")).unwrap_err();
    assert_eq!(err.position, Some(5));
    let err = validate(&Selector::css("a:not(.x))")).unwrap_err();
    assert_eq!(err.position, Some(9));
    let err = validate(&Selector::css("a[title='x]")).unwrap_err();
    assert_eq!(err.position, Some(8));
    assert!(validate(&Selector::css("a[title='(']")).is_ok());
    let err = validate(&Selector::new(SelectorKind::Css, "  ")).unwrap_err();
    assert_eq!(err.position, Some(0));
}

#[wasm_bindgen_test]
fn zero_and_many_matches_are_errors_unless_indexed() {
    let _f = Fixture::mount(
        r#"<input id="a" class="g"><input id="b" class="g"><input id="c" class="g">"#,
    )
    .unwrap();
    let root = QueryRoot::current().unwrap();
    let err = resolve(&root, &Selector::css(".nothing-here")).unwrap_err();
    assert_eq!(err.code(), "not_found");
    let err = resolve(&root, &Selector::css("input.g")).unwrap_err();
    assert_eq!(err.code(), "ambiguous");
    let message = err.message();
    assert!(message.contains("matched 3 elements"), "{message}");
    assert!(message.contains("input#a"), "{message}");
    let mut indexed = Selector::css("input.g");
    indexed.index = Some(1);
    assert_eq!(resolve(&root, &indexed).unwrap().id(), "b");
    indexed.index = Some(7);
    assert_eq!(
        resolve(&root, &indexed).unwrap_err().code(),
        "index_out_of_range"
    );
    let _ = document();
}

/// Attaches a closed shadow root and remembers it in `window.__closedRoots` (a WeakMap), the way
/// the browser would hand it to an extension.
fn closed_host(f: &Fixture) -> web_sys::Element {
    let host = f.find("#host").unwrap();
    let root = host
        .attach_shadow(&web_sys::ShadowRootInit::new(
            web_sys::ShadowRootMode::Closed,
        ))
        .unwrap();
    root.set_inner_html(r#"<button id="secret">Go</button>"#);
    bai::dom::fixture::run_script("window.__closedRoots = new WeakMap();").unwrap();
    let map = js_sys::Reflect::get(&js_sys::global(), &"__closedRoots".into()).unwrap();
    let set: js_sys::Function = js_sys::Reflect::get(&map, &"set".into())
        .unwrap()
        .dyn_into()
        .unwrap();
    set.call2(&map, &host, &root).unwrap();
    host
}

#[wasm_bindgen_test]
fn closed_shadow_roots_open_through_chrome_dom() {
    let f = Fixture::mount(r#"<div id="host"></div>"#).unwrap();
    closed_host(&f);
    bai::dom::fixture::run_script(
        "window.__savedChrome = window.chrome; window.chrome = Object.assign({}, window.chrome, { dom: { openOrClosedShadowRoot: (el) => window.__closedRoots.get(el) || el.shadowRoot } });",
    )
    .unwrap();
    let found = ids("#secret");
    bai::dom::fixture::run_script("window.chrome = window.__savedChrome;").unwrap();
    assert_eq!(found, ["secret"]);
}

#[wasm_bindgen_test]
fn closed_shadow_roots_open_through_firefox_property() {
    let f = Fixture::mount(r#"<div id="host"></div>"#).unwrap();
    closed_host(&f);
    bai::dom::fixture::run_script(
        "Object.defineProperty(Element.prototype, 'openOrClosedShadowRoot', { configurable: true, get() { return window.__closedRoots.get(this) || this.shadowRoot; } });",
    )
    .unwrap();
    let found = ids("#secret");
    bai::dom::fixture::run_script("delete Element.prototype.openOrClosedShadowRoot;").unwrap();
    assert_eq!(found, ["secret"]);
}
