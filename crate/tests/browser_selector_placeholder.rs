#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The placeholder engine.

use bai::dom::fixture::Fixture;
use bai::dom::selector::{QueryRoot, query_all};
use bai::protocol::{Selector, SelectorKind};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn substring_and_exact() {
    let _f = Fixture::mount(r#"<input id="a" placeholder="Search the docs"><textarea id="b" placeholder="Search"></textarea><input id="c">"#).unwrap();
    let root = QueryRoot::current().unwrap();
    let ids = |value: &str, exact: bool| -> Vec<String> {
        let mut selector = Selector::new(SelectorKind::Placeholder, value);
        selector.exact = exact;
        query_all(&root, &selector)
            .unwrap()
            .iter()
            .map(|e| e.id())
            .collect()
    };
    assert_eq!(ids("search", false), ["a", "b"]);
    assert_eq!(ids("Search", true), ["b"]);
    assert!(ids("nothing", false).is_empty());
}
