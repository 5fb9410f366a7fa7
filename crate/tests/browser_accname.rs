#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! Accessible-name conformance: cases modelled on the W3C web-platform-tests `accname/` suite,
//! and the html-aam role tests, kept as data in tests/fixtures/dom/accname/cases.json
//! (regenerate with make_cases.py): each case checks the name (`expected`) and/or the role
//! (`role`, "" for none) of `#t`. Prints the pass count and every failure; asserts a floor.

use bai::dom::accname::accessible_name;
use bai::dom::fixture::Fixture;
use bai::dom::roles::role_of;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const CASES: &str = include_str!("../../tests/fixtures/dom/accname/cases.json");

/// The share of cases that must pass: all of them (every case passes in both browsers).
const FLOOR: f64 = 1.0;

#[wasm_bindgen_test]
fn accname_conformance() {
    let cases: Vec<serde_json::Value> = serde_json::from_str(CASES).unwrap();
    let mut failures = Vec::new();
    for case in &cases {
        let html = case["html"].as_str().unwrap();
        let fixture = Fixture::mount(html).unwrap();
        // `data-shadow` holds the markup of an open shadow root for its element; the target is
        // `#t` in the document, else in that shadow root.
        let mut shadow_root = None;
        if let Some(host) = fixture.find("[data-shadow]") {
            let markup = host.get_attribute("data-shadow").unwrap();
            let init = web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open);
            let root = host.attach_shadow(&init).unwrap();
            root.set_inner_html(&markup);
            shadow_root = Some(root);
        }
        let target = fixture
            .find("#t")
            .or_else(|| shadow_root.and_then(|r| r.get_element_by_id("t")));
        let target = target.unwrap_or_else(|| panic!("case {:?} has no #t", case["name"]));
        let mut wrong = Vec::new();
        if let Some(expected) = case["expected"].as_str() {
            let actual = accessible_name(&target);
            if actual != expected {
                wrong.push(format!("name {expected:?}, got {actual:?}"));
            }
        }
        if let Some(expected) = case["role"].as_str() {
            let actual = role_of(&target).unwrap_or_default();
            if actual != expected {
                wrong.push(format!("role {expected:?}, got {actual:?}"));
            }
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "  {} / {}: expected {}",
                case["source"].as_str().unwrap(),
                case["name"].as_str().unwrap(),
                wrong.join("; ")
            ));
        }
    }
    let passed = cases.len() - failures.len();
    console_log!("accname conformance: {passed}/{} cases pass", cases.len());
    for failure in &failures {
        console_log!("{failure}");
    }
    assert!(
        passed as f64 >= FLOOR * cases.len() as f64,
        "accname: only {passed}/{} pass:\n{}",
        cases.len(),
        failures.join("\n")
    );
}
