#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The label engine: label[for], wrapping labels, aria-label, aria-labelledby.

use bai::dom::fixture::Fixture;
use bai::dom::selector::{QueryRoot, query_all};
use bai::protocol::{Selector, SelectorKind};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn label(value: &str) -> Vec<String> {
    let root = QueryRoot::current().unwrap();
    query_all(&root, &Selector::new(SelectorKind::Label, value))
        .unwrap()
        .iter()
        .map(|e| e.id())
        .collect()
}

#[wasm_bindgen_test]
fn every_kind_of_label() {
    let _f = Fixture::mount(
        r#"<label for="a">First name</label><input id="a">
           <label>Last name <input id="b"></label>
           <input id="c" aria-label="Middle name">
           <span id="lbl">Nick name</span><input id="d" aria-labelledby="lbl">
           <input id="e" placeholder="Some name">"#,
    )
    .unwrap();
    assert_eq!(label("first name"), ["a"]);
    assert_eq!(label("Last"), ["b"]);
    assert_eq!(label("middle"), ["c"]);
    assert_eq!(label("nick"), ["d"]);
    assert_eq!(label("name"), ["a", "b", "c", "d"]);
}
