#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The text engine: innermost visible element, normalized, case-insensitive substring.

use bai::dom::fixture::Fixture;
use bai::dom::selector::{QueryRoot, query_all};
use bai::protocol::{Selector, SelectorKind};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn text(value: &str, exact: bool) -> Vec<String> {
    let root = QueryRoot::current().unwrap();
    let mut selector = Selector::new(SelectorKind::Text, value);
    selector.exact = exact;
    query_all(&root, &selector)
        .unwrap()
        .iter()
        .map(|e| e.id())
        .collect()
}

#[wasm_bindgen_test]
fn innermost_match_wins() {
    let _f =
        Fixture::mount(r#"<div id="outer"><p id="p">Hello <b id="b">brave</b> world</p></div>"#)
            .unwrap();
    assert_eq!(text("brave", false), ["b"]);
    assert_eq!(text("hello   BRAVE world", false), ["p"]);
}

#[wasm_bindgen_test]
fn exact_matches_the_whole_text() {
    let _f = Fixture::mount(r#"<span id="a">Log in</span><span id="b">Log in now</span>"#).unwrap();
    assert_eq!(text("Log in", true), ["a"]);
    assert_eq!(text("log in", false), ["a", "b"]);
}

#[wasm_bindgen_test]
fn button_like_inputs_match_their_value() {
    let _f = Fixture::mount(
        r#"<input id="s" type="submit" value="Send it"><input id="t" type="text" value="Send it">"#,
    )
    .unwrap();
    assert_eq!(text("send it", false), ["s"]);
}

#[wasm_bindgen_test]
fn script_style_and_hidden_never_match() {
    let _f = Fixture::mount(
        r#"<script>var zebra = 1;</script><style>.zebra{}</style><p id="h" style="display:none">zebra</p><p id="v" style="visibility:hidden">zebra</p><p id="ok">a zebra</p>"#,
    )
    .unwrap();
    assert_eq!(text("zebra", false), ["ok"]);
}

#[wasm_bindgen_test]
fn zero_width_and_soft_hyphens_are_ignored() {
    let _f = Fixture::mount(
        "<span id=\"w\">Check\u{200b}out</span><span id=\"s\">pay\u{00ad}ment</span>",
    )
    .unwrap();
    assert_eq!(text("checkout", false), ["w"]);
    assert_eq!(text("payment", false), ["s"]);
}

#[wasm_bindgen_test]
fn open_shadow_roots_are_searched() {
    let f = Fixture::mount(r#"<div id="host"></div>"#).unwrap();
    let host = f.find("#host").unwrap();
    let root = host
        .attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open))
        .unwrap();
    root.set_inner_html(r#"<span id="in-shadow">Shadow text</span>"#);
    assert_eq!(text("shadow text", false), ["in-shadow"]);
}

#[wasm_bindgen_test]
fn a_secret_field_in_a_shadow_root_has_no_text() {
    // The walk meets the shadow root's secret fields as it enters it.
    let f = Fixture::mount(r#"<div id="host"></div><p id="plain">ZXCV outside</p>"#).unwrap();
    let host = f.find("#host").unwrap();
    let root = host
        .attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open))
        .unwrap();
    root.set_inner_html(
        r#"<label>Recovery code <textarea id="rc">ZXCV-9876</textarea></label><span id="s">Shown</span>"#,
    );
    assert_eq!(text("ZXCV-9876", false), Vec::<String>::new());
    assert_eq!(text("ZXCV", false), ["plain"]);
    assert_eq!(text("Shown", false), ["s"]);
}

#[wasm_bindgen_test]
fn a_secret_input_never_matches_even_an_empty_text() {
    // The engine classifies an input only when its text would count; an empty text counts
    // when the wanted text is empty too (a zero-width space passes the selector's check and
    // normalizes to nothing), and a secret input must still count as nothing.
    let _f = Fixture::mount(
        r#"<input id="plain-in" name="email"><input id="pw" type="password">
        <input id="otp" name="otp"><input id="go" type="submit" value="Password">"#,
    )
    .unwrap();
    let empty = text("\u{200b}", true);
    assert!(empty.contains(&"plain-in".to_owned()), "{empty:?}");
    assert!(!empty.contains(&"pw".to_owned()), "{empty:?}");
    assert!(!empty.contains(&"otp".to_owned()), "{empty:?}");
    // A button-like input is no field: its value is its text.
    assert_eq!(text("Password", false), ["go"]);
}
