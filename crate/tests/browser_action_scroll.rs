#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The scroll action: instant scrollTo, verified position, clamping at the end of the page.

use bai::dom::fixture::{Fixture, add_style};
use bai::dom::{ExecOptions, execute};
use bai::protocol::Action;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn scrolls_and_verifies() {
    let style = add_style("html { scroll-behavior: smooth; }").unwrap();
    let _f = Fixture::mount(r#"<div style="height:4000px;width:3000px"></div>"#).unwrap();
    let window = web_sys::window().unwrap();
    let report = execute(
        &Action::Scroll { x: None, y: 1200.0 },
        &ExecOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(window.scroll_y().unwrap(), 1200.0);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["effects"][0]["kind"], "scrolled");
    assert_eq!(json["effects"][0]["y"], 1200.0);
    execute(
        &Action::Scroll {
            x: Some(100.0),
            y: 50.0,
        },
        &ExecOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(window.scroll_x().unwrap(), 100.0);
    assert_eq!(window.scroll_y().unwrap(), 50.0);
    // Past the end: stops at the bottom, which is success.
    let report = execute(
        &Action::Scroll {
            x: Some(0.0),
            y: 1.0e7,
        },
        &ExecOptions::default(),
    )
    .await
    .unwrap();
    let json = serde_json::to_value(&report).unwrap();
    assert!(json["effects"][0]["y"].as_f64().unwrap() > 3000.0);
    style.remove();
}
