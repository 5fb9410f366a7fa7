#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The xpath engine: document.evaluate; text nodes resolve to their element.

use bai::dom::fixture::Fixture;
use bai::dom::selector::{QueryRoot, query_all, resolve, validate};
use bai::protocol::{Selector, SelectorKind};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn evaluates_paths() {
    let _f = Fixture::mount(r#"<ul><li id="a">One</li><li id="b">Two</li></ul>"#).unwrap();
    let root = QueryRoot::current().unwrap();
    let ids = |value: &str| -> Vec<String> {
        query_all(&root, &Selector::new(SelectorKind::Xpath, value))
            .unwrap()
            .iter()
            .map(|e| e.id())
            .collect()
    };
    assert_eq!(ids("//li[text()='Two']"), ["b"]);
    assert_eq!(ids("//li/text()"), ["a", "b"]);
    assert_eq!(ids("//li[@id='a']/@id"), ["a"]);
}

#[wasm_bindgen_test]
fn errors() {
    let root = QueryRoot::current().unwrap();
    let err = resolve(&root, &Selector::new(SelectorKind::Xpath, "//li[@@id]")).unwrap_err();
    assert_eq!(err.code(), "invalid_selector");
    let err = validate(&Selector::new(SelectorKind::Xpath, "//li[@id='a'")).unwrap_err();
    assert_eq!(err.position, Some(4));
}
