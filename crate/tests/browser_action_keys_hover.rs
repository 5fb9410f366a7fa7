#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! `press_key` (events and the default actions performed for untrusted keys) and `hover`.

use bai::dom::fixture::{Fixture, run_script};
use bai::dom::{ActionReport, ExecOptions, execute};
use bai::protocol::action::Key;
use bai::protocol::{Action, Selector};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn global(name: &str) -> JsValue {
    js_sys::Reflect::get(&js_sys::global(), &name.into()).unwrap()
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

async fn press(
    key: Key,
    selector: Option<Selector>,
) -> Result<ActionReport, bai::dom::ActionError> {
    execute(
        &Action::PressKey { key, selector },
        &ExecOptions { timeout_ms: 1000 },
    )
    .await
}

fn active_id() -> String {
    web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element()
        .map(|e| e.id())
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn enter_in_a_field_submits_its_form_through_the_default_button() {
    let _f = Fixture::mount(
        r#"<form id="f" onsubmit="event.preventDefault(); window.__submitter = event.submitter && event.submitter.id">
          <input id="q" name="q"><input id="other"><button id="go">Search</button></form>"#,
    )
    .unwrap();
    run_script("window.__submitter = null; window.__keys = []; document.getElementById('q').addEventListener('keydown', e => window.__keys.push(e.key + ':' + e.code + ':' + e.keyCode + ':' + e.which))").unwrap();
    let report = press(Key::Enter, Some(Selector::css("#q"))).await.unwrap();
    let kinds = kinds(&report);
    assert_eq!(kinds[0], "key_pressed");
    assert!(kinds.contains(&"form_submitted".to_owned()), "{kinds:?}");
    assert_eq!(global("__submitter"), JsValue::from_str("go"));
    let keys: js_sys::Array = global("__keys").dyn_into().unwrap();
    assert_eq!(keys.join(",").as_string().unwrap(), "Enter:Enter:13:13");
}

#[wasm_bindgen_test]
async fn enter_with_a_single_field_and_no_button_submits() {
    let _f = Fixture::mount(
        r#"<form onsubmit="event.preventDefault(); window.__submitted = true"><input id="only"></form>"#,
    )
    .unwrap();
    run_script("window.__submitted = false").unwrap();
    press(Key::Enter, Some(Selector::css("#only")))
        .await
        .unwrap();
    assert_eq!(global("__submitted"), JsValue::TRUE);
}

#[wasm_bindgen_test]
async fn a_prevented_keydown_skips_the_default_action() {
    let _f = Fixture::mount(
        r#"<form onsubmit="event.preventDefault(); window.__submitted = true"><input id="k" onkeydown="event.preventDefault()"></form>"#,
    )
    .unwrap();
    run_script("window.__submitted = false").unwrap();
    let report = press(Key::Enter, Some(Selector::css("#k"))).await.unwrap();
    assert_eq!(global("__submitted"), JsValue::FALSE);
    assert_eq!(
        serde_json::to_value(&report).unwrap()["effects"][0]["default_prevented"],
        true
    );
}

#[wasm_bindgen_test]
async fn enter_and_space_on_a_button_click_it() {
    let _f = Fixture::mount(r#"<button id="b" onclick="window.__clicks++">Go</button>"#).unwrap();
    run_script("window.__clicks = 0").unwrap();
    press(Key::Enter, Some(Selector::css("#b"))).await.unwrap();
    assert_eq!(global("__clicks"), JsValue::from(1));
    // Without a selector the key goes to the focused element (the button, focused above).
    press(Key::Space, None).await.unwrap();
    assert_eq!(global("__clicks"), JsValue::from(2));
}

#[wasm_bindgen_test]
async fn tab_moves_focus_to_the_next_tabbable_element() {
    let _f = Fixture::mount(
        r##"<input id="t1"><button id="t2" disabled>No</button><span id="t3" tabindex="-1">skip</span><a id="t4" href="#x">Link</a>"##,
    )
    .unwrap();
    let report = press(Key::Tab, Some(Selector::css("#t1"))).await.unwrap();
    assert_eq!(active_id(), "t4");
    assert!(
        kinds(&report).contains(&"focus_moved".to_owned()),
        "{:?}",
        kinds(&report)
    );
}

/// Positive tabindex first, smallest first and page order among equals, then the rest in page
/// order.
#[wasm_bindgen_test]
async fn tab_follows_positive_tabindex_first() {
    let _f = Fixture::mount(
        r#"<input id="z1"><input id="p3" tabindex="3"><input id="p1b" tabindex="1"><input id="p1a" tabindex="1"><input id="z2">"#,
    )
    .unwrap();
    // The two tabindex=1 fields keep page order: p1b, then p1a.
    press(Key::Tab, Some(Selector::css("#p1b"))).await.unwrap();
    assert_eq!(active_id(), "p1a");
    press(Key::Tab, Some(Selector::css("#p1a"))).await.unwrap();
    assert_eq!(active_id(), "p3");
    press(Key::Tab, Some(Selector::css("#p3"))).await.unwrap();
    assert_eq!(active_id(), "z1");
    press(Key::Tab, Some(Selector::css("#z1"))).await.unwrap();
    assert_eq!(active_id(), "z2");
}

#[wasm_bindgen_test]
async fn backspace_and_delete_edit_the_value_so_listeners_see_it() {
    let f = Fixture::mount(r#"<input id="e" value="hello">"#).unwrap();
    run_script("window.__inputs = []; document.getElementById('e').addEventListener('input', e => window.__inputs.push(e.inputType + ':' + e.target.value))").unwrap();
    let input: web_sys::HtmlInputElement = f.find("#e").unwrap().dyn_into().unwrap();
    input.focus().unwrap();
    input.set_selection_range(5, 5).unwrap();
    let report = press(Key::Backspace, None).await.unwrap();
    assert!(kinds(&report).contains(&"text_deleted".to_owned()));
    assert_eq!(input.value(), "hell");
    input.set_selection_range(0, 0).unwrap();
    press(Key::Delete, None).await.unwrap();
    assert_eq!(input.value(), "ell");
    let inputs: js_sys::Array = global("__inputs").dyn_into().unwrap();
    assert_eq!(
        inputs.join(",").as_string().unwrap(),
        "deleteContentBackward:hell,deleteContentForward:ell"
    );
}

#[wasm_bindgen_test]
async fn arrow_down_on_a_select_picks_the_next_option() {
    let f = Fixture::mount(
        r#"<select id="s"><option>A</option><option disabled>B</option><option>C</option></select>"#,
    )
    .unwrap();
    press(Key::ArrowDown, Some(Selector::css("#s")))
        .await
        .unwrap();
    let select: web_sys::HtmlSelectElement = f.find("#s").unwrap().dyn_into().unwrap();
    assert_eq!(select.value(), "C");
}

#[wasm_bindgen_test]
async fn hover_opens_a_mouseenter_menu() {
    let f = Fixture::mount(
        r##"<nav><div id="menu" style="display:inline-block;padding:4px"><span id="label">Products</span>
          <ul id="sub" hidden><li><a href="#a">Mugs</a></li></ul></div></nav>"##,
    )
    .unwrap();
    run_script(
        "(() => { const m = document.getElementById('menu'); m.addEventListener('mouseenter', () => { document.getElementById('sub').hidden = false; }); })()",
    )
    .unwrap();
    let report = execute(
        &Action::Hover {
            selector: Selector::css("#label"),
        },
        &ExecOptions { timeout_ms: 1000 },
    )
    .await
    .unwrap();
    assert!(!f.find("#sub").unwrap().has_attribute("hidden"));
    let kinds = kinds(&report);
    assert_eq!(kinds[0], "hovered");
    assert!(kinds.contains(&"dom_changed".to_owned()), "{kinds:?}");
    // The revealed link is now clickable by text.
    let report = execute(
        &Action::Click {
            selector: bai::protocol::Selector::new(bai::protocol::SelectorKind::Text, "Mugs"),
        },
        &ExecOptions { timeout_ms: 1000 },
    )
    .await;
    assert!(report.is_ok(), "{report:?}");
    let err = execute(
        &Action::Hover {
            selector: Selector::css("#nothing"),
        },
        &ExecOptions { timeout_ms: 100 },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "not_found");
}
