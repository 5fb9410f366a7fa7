#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! `select_option` and `check` / `uncheck`: native controls, ARIA widgets, and a React 19
//! controlled form (tests/fixtures/dom/react-login.jsx, `__mountPrefs`) whose own state must
//! follow.

use bai::dom::fixture::{Fixture, run_script, until};
use bai::dom::{ActionReport, ExecOptions, execute};
use bai::protocol::{Action, Selector, SelectorKind};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const BUNDLE: &str = include_str!("../../tests/fixtures/build/react-login.js");

fn opts(timeout_ms: u32) -> ExecOptions {
    ExecOptions { timeout_ms }
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(obj, &key.into()).unwrap()
}

fn kinds(report: &ActionReport) -> Vec<String> {
    report
        .effects
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

async fn select(
    selector: Selector,
    option: &str,
    timeout_ms: u32,
) -> Result<ActionReport, bai::dom::ActionError> {
    execute(
        &Action::SelectOption {
            selector,
            option: option.to_owned(),
        },
        &opts(timeout_ms),
    )
    .await
}

async fn check(selector: Selector, on: bool) -> Result<ActionReport, bai::dom::ActionError> {
    let action = if on {
        Action::Check { selector }
    } else {
        Action::Uncheck { selector }
    };
    execute(&action, &opts(500)).await
}

#[wasm_bindgen_test]
async fn native_select_by_value_label_and_case_insensitive_label() {
    let f = Fixture::mount(
        r#"<select id="s"><option value="fr">France</option><option value="de"> Germany </option><option value="it" disabled>Italy</option></select>"#,
    )
    .unwrap();
    let events: js_sys::Array = js_sys::Array::new();
    let log = events.clone();
    let listener = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
        log.push(&JsValue::from_str(&e.type_()));
    });
    let select_el = f.find("#s").unwrap();
    for name in ["input", "change"] {
        f.container()
            .add_event_listener_with_callback(name, listener.as_ref().unchecked_ref())
            .unwrap();
    }
    let value = || get(&select_el, "value").as_string().unwrap();
    let report = select(Selector::css("#s"), "de", 1000).await.unwrap();
    assert_eq!(value(), "de");
    assert_eq!(
        serde_json::to_value(&report).unwrap()["effects"][0]["value"],
        "de"
    );
    // Input and change bubbled to the container.
    assert_eq!(events.join(",").as_string().unwrap(), "input,change");
    select(Selector::css("#s"), "France", 1000).await.unwrap();
    assert_eq!(value(), "fr");
    select(Selector::css("#s"), "germany", 1000).await.unwrap();
    assert_eq!(value(), "de");

    let err = select(Selector::css("#s"), "Spain", 1000)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "option_not_found");
    assert!(
        err.message().contains("France, Germany, Italy"),
        "{}",
        err.message()
    );
    let err = select(Selector::css("#s"), "Italy", 1000)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "disabled");
    let err = select(Selector::css("#missing"), "x", 100)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "not_found");
}

#[wasm_bindgen_test]
async fn aria_combobox_opens_and_clicks_the_option() {
    let f = Fixture::mount(
        r#"<div role="combobox" id="cb" aria-expanded="false" aria-controls="lb" tabindex="0" style="width:100px;height:20px">Pick</div>
        <ul role="listbox" id="lb" hidden>
          <li role="option" id="o1" style="height:20px">Apple</li>
          <li role="option" id="o2" style="height:20px">Banana</li>
        </ul>"#,
    )
    .unwrap();
    run_script(
        "(() => { const cb = document.getElementById('cb'); const lb = document.getElementById('lb');
          cb.addEventListener('click', () => { lb.hidden = false; cb.setAttribute('aria-expanded', 'true'); });
          lb.addEventListener('click', (e) => { cb.textContent = e.target.textContent; lb.hidden = true; cb.setAttribute('aria-expanded', 'false'); }); })()",
    )
    .unwrap();
    let report = select(Selector::css("#cb"), "banana", 2000).await.unwrap();
    assert_eq!(kinds(&report), vec!["option_selected"]);
    assert_eq!(f.find("#cb").unwrap().text_content().unwrap(), "Banana");
    let err = select(Selector::css("#cb"), "Cherry", 500)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "option_not_found");
    assert!(err.message().contains("Apple, Banana"), "{}", err.message());
    let err = select(Selector::css("#o1"), "Apple", 500)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "unsupported_element");
}

#[wasm_bindgen_test]
async fn check_and_uncheck_native_and_aria() {
    let f = Fixture::mount(
        r#"<label><input type="checkbox" id="c"> Terms</label>
        <input type="radio" name="r" id="r1"><input type="radio" name="r" id="r2">
        <div role="switch" id="sw" aria-checked="false" tabindex="0" style="width:40px;height:20px"></div>
        <button id="b">Not a box</button>
        <input type="checkbox" id="stuck" onclick="return false">"#,
    )
    .unwrap();
    run_script(
        "document.getElementById('sw').addEventListener('click', (e) => e.currentTarget.setAttribute('aria-checked', String(e.currentTarget.getAttribute('aria-checked') !== 'true')))",
    )
    .unwrap();
    let checked = |css: &str| get(&f.find(css).unwrap(), "checked").as_bool().unwrap();

    let report = check(Selector::css("#c"), true).await.unwrap();
    assert!(
        kinds(&report).contains(&"checked_changed".to_owned()),
        "{:?}",
        kinds(&report)
    );
    assert!(checked("#c"));
    let report = check(Selector::new(SelectorKind::Label, "Terms"), true)
        .await
        .unwrap();
    assert_eq!(kinds(&report), vec!["already_in_state"]);
    check(Selector::css("#c"), false).await.unwrap();
    assert!(!checked("#c"));

    check(Selector::css("#r2"), true).await.unwrap();
    assert!(checked("#r2"));
    let err = check(Selector::css("#r2"), false).await.unwrap_err();
    assert_eq!(err.code(), "not_checkable");
    assert!(
        err.message().contains("another option"),
        "{}",
        err.message()
    );

    check(Selector::css("#sw"), true).await.unwrap();
    assert_eq!(
        f.find("#sw")
            .unwrap()
            .get_attribute("aria-checked")
            .as_deref(),
        Some("true")
    );

    let err = check(Selector::css("#b"), true).await.unwrap_err();
    assert_eq!(err.code(), "not_checkable");
    let err = check(Selector::css("#stuck"), true).await.unwrap_err();
    assert_eq!(err.code(), "state_not_changed");
    assert!(
        err.message().contains("still unchecked"),
        "{}",
        err.message()
    );
}

#[wasm_bindgen_test]
async fn hidden_native_checkbox_is_checked_through_its_label() {
    let f = Fixture::mount(
        r#"<input type="checkbox" id="fancy" style="position:absolute;opacity:0;width:0;height:0"><label for="fancy">Remember me</label>"#,
    )
    .unwrap();
    check(Selector::new(SelectorKind::Label, "Remember me"), true)
        .await
        .unwrap();
    assert!(
        get(&f.find("#fancy").unwrap(), "checked")
            .as_bool()
            .unwrap()
    );
}

#[wasm_bindgen_test]
async fn react_controlled_select_and_checkbox_follow_react_state() {
    let f = Fixture::mount(r#"<div id="react-root"></div>"#).unwrap();
    run_script(BUNDLE).unwrap();
    let mount: js_sys::Function = get(&js_sys::global(), "__mountPrefs").dyn_into().unwrap();
    let unmount: js_sys::Function = mount
        .call1(&JsValue::NULL, &f.find("#react-root").unwrap())
        .unwrap()
        .dyn_into()
        .unwrap();
    let state = |key: &str| {
        let published = get(&js_sys::global(), "__prefsState");
        if published.is_object() {
            get(&published, key)
        } else {
            JsValue::UNDEFINED
        }
    };
    until(|| state("size") == JsValue::from_str("m"))
        .await
        .unwrap();

    select(Selector::new(SelectorKind::Label, "Size"), "Large", 2000)
        .await
        .unwrap();
    until(|| state("size") == JsValue::from_str("l"))
        .await
        .unwrap();
    let err = select(
        Selector::new(SelectorKind::Label, "Size"),
        "Extra large",
        300,
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "disabled");
    assert_eq!(state("size"), JsValue::from_str("l"));

    check(Selector::new(SelectorKind::Label, "Newsletter"), true)
        .await
        .unwrap();
    until(|| state("newsletter") == JsValue::TRUE)
        .await
        .unwrap();
    // React re-rendered with its own state: the DOM agrees.
    let status = f.find("[role=status]").unwrap().text_content().unwrap();
    assert_eq!(status, "size=l newsletter=true");
    check(Selector::new(SelectorKind::Label, "Newsletter"), false)
        .await
        .unwrap();
    until(|| state("newsletter") == JsValue::FALSE)
        .await
        .unwrap();
    unmount.call0(&JsValue::NULL).unwrap();
}
