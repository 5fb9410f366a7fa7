#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! Shoelace 2 web components (shadow DOM, bundled from npm by scripts/build-fixtures): selectors
//! reach into shadow roots, clicks and typing work on the components' internals.

use bai::dom::fixture::{Fixture, add_style, run_script};
use bai::dom::selector::{QueryRoot, query_all};
use bai::dom::{ExecOptions, execute};
use bai::protocol::{Action, Selector, SelectorKind};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const BUNDLE: &str = include_str!("../../tests/fixtures/build/shoelace.js");
const THEME: &str = include_str!("../../tests/fixtures/build/shoelace-light.css");

const PAGE: &str = r#"
<sl-button id="save" variant="primary" onclick="window.__slSaved = (window.__slSaved || 0) + 1">Save draft</sl-button>
<sl-input id="email" label="Email" type="email"></sl-input>
<sl-input id="pass" label="Password" type="password"></sl-input>
<sl-checkbox id="remember">Remember me</sl-checkbox>
<sl-switch id="dark">Dark mode</sl-switch>
<sl-button id="off" disabled>Unavailable</sl-button>
"#;

fn get(obj: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(obj, &key.into()).unwrap()
}

fn role(value: &str, name: &str) -> Selector {
    let mut selector = Selector::new(SelectorKind::Role, value);
    selector.name = Some(name.to_owned());
    selector
}

async fn setup() -> (Fixture, web_sys::Element) {
    let style = add_style(THEME).unwrap();
    if get(&js_sys::global(), "__shoelaceReady").is_undefined() {
        run_script(BUNDLE).unwrap();
    }
    let ready: js_sys::Promise = get(&js_sys::global(), "__shoelaceReady").into();
    JsFuture::from(ready).await.unwrap();
    let f = Fixture::mount(PAGE).unwrap();
    // Let Lit render the shadow roots.
    gloo_timers::future::TimeoutFuture::new(100).await;
    (f, style)
}

#[wasm_bindgen_test]
async fn selectors_reach_into_shadow_roots() {
    let (_f, style) = setup().await;
    let root = QueryRoot::current().unwrap();
    let count = |selector: Selector| query_all(&root, &selector).unwrap().len();
    // The native controls live in the components' shadow roots.
    assert_eq!(
        count(Selector::css("sl-input input.input__control")),
        0,
        "combinators do not cross shadow roots"
    );
    assert_eq!(count(Selector::css("input.input__control")), 2);
    assert_eq!(count(role("button", "Save draft")), 1);
    assert_eq!(count(role("checkbox", "Remember me")), 1);
    assert_eq!(count(role("switch", "Dark mode")), 1);
    assert_eq!(count(Selector::new(SelectorKind::Aria, "Email")), 1);
    assert_eq!(count(Selector::new(SelectorKind::Text, "Save draft")), 1);
    style.remove();
}

#[wasm_bindgen_test]
async fn clicks_buttons_checkboxes_and_switches() {
    let (f, style) = setup().await;
    let options = ExecOptions::default();
    execute(
        &Action::Click {
            selector: Selector::new(SelectorKind::Text, "Save draft"),
        },
        &options,
    )
    .await
    .unwrap();
    assert_eq!(get(&js_sys::global(), "__slSaved"), JsValue::from(1));
    execute(
        &Action::Click {
            selector: role("button", "Save draft"),
        },
        &options,
    )
    .await
    .unwrap();
    assert_eq!(get(&js_sys::global(), "__slSaved"), JsValue::from(2));

    let report = execute(
        &Action::Click {
            selector: role("checkbox", "Remember me"),
        },
        &options,
    )
    .await
    .unwrap();
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        json["effects"][0],
        serde_json::json!({"kind": "checked_changed", "checked": true}),
        "{json}"
    );
    assert_eq!(get(&f.find("#remember").unwrap(), "checked"), JsValue::TRUE);
    // Clicking the host element toggles it back.
    execute(
        &Action::Click {
            selector: Selector::css("#remember"),
        },
        &options,
    )
    .await
    .unwrap();
    assert_eq!(
        get(&f.find("#remember").unwrap(), "checked"),
        JsValue::FALSE
    );

    execute(
        &Action::Click {
            selector: Selector::css("sl-switch"),
        },
        &options,
    )
    .await
    .unwrap();
    assert_eq!(get(&f.find("#dark").unwrap(), "checked"), JsValue::TRUE);

    let err = execute(
        &Action::Click {
            selector: Selector::css("#off"),
        },
        &ExecOptions { timeout_ms: 300 },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "disabled");
    style.remove();
}

#[wasm_bindgen_test]
async fn types_into_sl_input() {
    let (f, style) = setup().await;
    let options = ExecOptions::default();
    execute(
        &Action::InputText {
            selector: Selector::new(SelectorKind::Aria, "Email"),
            text: "grace@example.com".to_owned(),
        },
        &options,
    )
    .await
    .unwrap();
    assert_eq!(
        get(&f.find("#email").unwrap(), "value"),
        JsValue::from_str("grace@example.com")
    );
    // The host element stands for its inner field.
    execute(
        &Action::InputText {
            selector: Selector::css("#email"),
            text: "x@y.z".to_owned(),
        },
        &options,
    )
    .await
    .unwrap();
    assert_eq!(
        get(&f.find("#email").unwrap(), "value"),
        JsValue::from_str("x@y.z")
    );
    execute(
        &Action::InputText {
            selector: Selector::new(SelectorKind::Aria, "Password"),
            text: "pw".to_owned(),
        },
        &options,
    )
    .await
    .unwrap();
    assert_eq!(
        get(&f.find("#pass").unwrap(), "value"),
        JsValue::from_str("pw")
    );
    style.remove();
}
