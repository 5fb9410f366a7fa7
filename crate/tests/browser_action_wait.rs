#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The wait action and the action-level plumbing (done is not executable).

use bai::dom::{ExecOptions, execute};
use bai::protocol::Action;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn waits_on_a_timer() {
    let started = js_sys::Date::now();
    let report = execute(&Action::Wait { ms: 150 }, &ExecOptions::default())
        .await
        .unwrap();
    assert!(js_sys::Date::now() - started >= 145.0);
    assert!(report.elapsed_ms >= 145);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        json["effects"][0],
        serde_json::json!({"kind": "waited", "ms": 150})
    );
}

#[wasm_bindgen_test]
async fn done_is_not_executed_on_the_page() {
    let err = execute(
        &Action::Done {
            success: true,
            summary: None,
        },
        &ExecOptions::default(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "not_executable");
}
