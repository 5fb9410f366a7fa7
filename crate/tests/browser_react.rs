#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! A real React 19 app (production build, tests/fixtures/dom/react-login.jsx): typed text must
//! reach React's own state and enable the submit button; clicking it must submit.
//! Needs `scripts/build-fixtures` (scripts/test-wasm runs it).

use bai::dom::fixture::{Fixture, run_script};
use bai::dom::{ExecOptions, execute};
use bai::protocol::{Action, Selector, SelectorKind};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const BUNDLE: &str = include_str!("../../tests/fixtures/build/react-login.js");

fn get(obj: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(obj, &key.into()).unwrap()
}

/// React's own state, published by the component in an effect.
fn login_state() -> JsValue {
    get(&js_sys::global(), "__loginState")
}

async fn settle() {
    gloo_timers::future::TimeoutFuture::new(50).await;
}

fn role(value: &str, name: &str) -> Selector {
    let mut selector = Selector::new(SelectorKind::Role, value);
    selector.name = Some(name.to_owned());
    selector
}

#[wasm_bindgen_test]
async fn typing_reaches_react_state_and_submits() {
    let f = Fixture::mount(r#"<div id="react-root"></div>"#).unwrap();
    run_script(BUNDLE).unwrap();
    let mount: js_sys::Function = get(&js_sys::global(), "__mountLogin").dyn_into().unwrap();
    let unmount: js_sys::Function = mount
        .call1(&JsValue::NULL, &f.find("#react-root").unwrap())
        .unwrap()
        .dyn_into()
        .unwrap();
    let options = ExecOptions::default();

    // The button starts disabled (React renders it so): clicking it fails with `disabled`.
    let err = execute(
        &Action::Click {
            selector: role("button", "Sign in"),
        },
        &ExecOptions { timeout_ms: 300 },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "disabled");
    settle().await;
    assert_eq!(get(&login_state(), "email"), JsValue::from_str(""));

    execute(
        &Action::InputText {
            selector: Selector::new(SelectorKind::Aria, "Email"),
            text: "ada@example.com".to_owned(),
        },
        &options,
    )
    .await
    .unwrap();
    settle().await;
    assert_eq!(
        get(&login_state(), "email"),
        JsValue::from_str("ada@example.com")
    );

    execute(
        &Action::InputText {
            selector: Selector::new(SelectorKind::Label, "Password"),
            text: "correct horse".to_owned(),
        },
        &options,
    )
    .await
    .unwrap();
    settle().await;
    assert_eq!(
        get(&login_state(), "password"),
        JsValue::from_str("correct horse")
    );
    assert_eq!(get(&login_state(), "submitted"), JsValue::FALSE);

    let report = execute(
        &Action::Click {
            selector: role("button", "Sign in"),
        },
        &options,
    )
    .await
    .unwrap();
    let json = serde_json::to_value(&report).unwrap();
    let kinds: Vec<&str> = json["effects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"form_submitted"), "{kinds:?}");
    settle().await;
    assert_eq!(get(&login_state(), "submitted"), JsValue::TRUE);
    let welcome = execute(
        &Action::Click {
            selector: Selector::new(SelectorKind::Text, "Welcome, ada@example.com"),
        },
        &options,
    )
    .await;
    assert!(welcome.is_ok(), "{welcome:?}");
    unmount.call0(&JsValue::NULL).unwrap();
}
