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

/// The `scroll_mismatch` sentence writes positions as Rust's `{}` does, without Rust's float
/// formatter in the module (the digits come from JavaScript, moved out of exponent form).
#[wasm_bindgen_test]
fn scroll_mismatch_writes_positions_as_rust_does() {
    let values = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        1200.0,
        100.5,
        0.1,
        0.3,
        2.5e-7,
        1e-7,
        0.000001,
        1.5e21,
        1e21,
        -1.25e22,
        123456789012345680000.0,
        1e300,
        5e-324,
        33.333333333333336,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    for pair in values.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let error = bai::dom::ActionError::ScrollMismatch {
            wanted: (a, b),
            reached: (b, a),
        };
        assert_eq!(
            error.message(),
            format!(
                "asked to scroll to ({a}, {b}) but the page stopped at ({b}, {a}); the page may be shorter than that"
            )
        );
    }
}
