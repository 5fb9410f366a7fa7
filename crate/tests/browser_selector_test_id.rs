#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The test_id engine: exact data-testid, including inside shadow roots.

use bai::dom::fixture::Fixture;
use bai::dom::selector::{QueryRoot, query_all};
use bai::protocol::{Selector, SelectorKind};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn exact_test_id() {
    let f = Fixture::mount(r#"<button id="a" data-testid="submit">Go</button><button id="b" data-testid="submit-2">Go</button><div id="host"></div>"#).unwrap();
    let host = f.find("#host").unwrap();
    let root = host
        .attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open))
        .unwrap();
    root.set_inner_html(r#"<span id="c" data-testid="inner">x</span>"#);
    let query = QueryRoot::current().unwrap();
    let ids = |value: &str| -> Vec<String> {
        query_all(&query, &Selector::new(SelectorKind::TestId, value))
            .unwrap()
            .iter()
            .map(|e| e.id())
            .collect()
    };
    assert_eq!(ids("submit"), ["a"]);
    assert_eq!(ids("inner"), ["c"]);
    assert!(ids("Submit").is_empty());
}
