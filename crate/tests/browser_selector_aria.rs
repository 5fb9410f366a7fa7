#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The aria engine: `{"type":"aria","value":"Email"}` finds an input however it is labelled.

use bai::dom::fixture::Fixture;
use bai::dom::selector::{QueryRoot, query_all, resolve};
use bai::protocol::{Selector, SelectorKind};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn aria(value: &str, exact: bool) -> Vec<String> {
    let root = QueryRoot::current().unwrap();
    let mut selector = Selector::new(SelectorKind::Aria, value);
    selector.exact = exact;
    query_all(&root, &selector)
        .unwrap()
        .iter()
        .map(|e| e.id())
        .collect()
}

#[wasm_bindgen_test]
fn label_for() {
    let _f =
        Fixture::mount(r#"<label for="e">Email</label><input id="e"><input id="other">"#).unwrap();
    assert_eq!(aria("Email", false), ["e"]);
}

#[wasm_bindgen_test]
fn wrapping_label() {
    let _f = Fixture::mount(r#"<label>Email <input id="e"></label>"#).unwrap();
    assert_eq!(aria("Email", false), ["e"]);
}

#[wasm_bindgen_test]
fn aria_label() {
    let _f = Fixture::mount(r#"<input id="e" aria-label="Email">"#).unwrap();
    assert_eq!(aria("email", false), ["e"]);
}

#[wasm_bindgen_test]
fn aria_labelledby() {
    let _f = Fixture::mount(r#"<span id="l">Your  email</span><input id="e" aria-labelledby="l">"#)
        .unwrap();
    assert_eq!(aria("Your email", false), ["e"]);
}

#[wasm_bindgen_test]
fn placeholder() {
    let _f = Fixture::mount(r#"<input id="e" placeholder="Email address">"#).unwrap();
    assert_eq!(aria("Email", false), ["e"]);
}

#[wasm_bindgen_test]
fn exact_is_case_sensitive_equality() {
    let _f = Fixture::mount(
        r#"<input id="a" aria-label="Email"><input id="b" aria-label="Email address">"#,
    )
    .unwrap();
    assert_eq!(aria("Email", true), ["a"]);
    assert!(aria("email", true).is_empty());
    assert_eq!(aria("email", false), ["a", "b"]);
}

#[wasm_bindgen_test]
fn hidden_elements_never_match() {
    let _f = Fixture::mount(
        r#"<input id="a" aria-label="Email" style="display:none"><div aria-hidden="true"><input id="b" aria-label="Email"></div><input id="c" aria-label="Email">"#,
    )
    .unwrap();
    assert_eq!(aria("Email", false), ["c"]);
}

#[wasm_bindgen_test]
fn buttons_and_links_by_content() {
    let _f = Fixture::mount(r#"<button id="b">Save <b>draft</b></button><a id="l" href="/x">Save all</a><div id="d">Save</div>"#).unwrap();
    assert_eq!(aria("save", false), ["b", "l"]);
}

#[wasm_bindgen_test]
fn ambiguity_lists_candidates() {
    let _f = Fixture::mount(r#"<input id="a" aria-label="Email"><input id="b" aria-label="Email"><input id="c" aria-label="Email">"#).unwrap();
    let root = QueryRoot::current().unwrap();
    let err = resolve(&root, &Selector::new(SelectorKind::Aria, "Email")).unwrap_err();
    assert_eq!(err.code(), "ambiguous");
    let message = err.message();
    assert!(
        message.starts_with("aria 'Email' matched 3 elements: input#a"),
        "{message}"
    );
    assert!(message.contains("add more words"), "{message}");
}

/// Forty buttons and one more: enough names for the engine to read the style sheets first.
fn many_buttons(extra: &str) -> String {
    let mut html: String = (0..40)
        .map(|i| format!(r#"<button id="b{i}">Save {i}</button>"#))
        .collect();
    html.push_str(extra);
    html
}

#[wasm_bindgen_test]
fn many_names_without_generated_content() {
    let _f = Fixture::mount(&many_buttons(r#"<button id="x">Send now</button>"#)).unwrap();
    assert_eq!(aria("Send now", false), ["x"]);
    assert_eq!(aria("Save 39", false), ["b39"]);
}

#[wasm_bindgen_test]
fn many_names_with_generated_content() {
    let _f = Fixture::mount(&many_buttons(
        r#"<style>#x::before { content: "Send " } #y::after { content: "ok" / "Confirm" }</style><button id="x">now</button><button id="y">go</button>"#,
    ))
    .unwrap();
    assert_eq!(aria("Send now", false), ["x"]);
    assert_eq!(aria("go Confirm", false), ["y"]);
}

#[wasm_bindgen_test]
fn many_names_with_generated_content_in_a_shadow_root() {
    let f = Fixture::mount(&many_buttons(r#"<div id="host"></div>"#)).unwrap();
    let host = f.find("#host").unwrap();
    let shadow = host
        .attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open))
        .unwrap();
    shadow.set_inner_html(
        r#"<style>button::before { content: "Send " }</style><button id="x">now</button>"#,
    );
    assert_eq!(aria("Send now", false), ["x"]);
}

#[wasm_bindgen_test]
fn every_tag_with_a_role_that_can_be_named_is_a_candidate() {
    // The candidate selector leaves out a few frequent tags; none may be the implicit tag of
    // a role whose name can come from something other than a naming attribute.
    const NAMED_ONLY_BY_ATTRIBUTES: &[&str] = &[
        "generic",
        "none",
        "presentation",
        "paragraph",
        "code",
        "strong",
        "emphasis",
        "subscript",
        "superscript",
        "deletion",
        "insertion",
        "time",
        "caption",
    ];
    let document = bai::dom::fixture::document().unwrap();
    let css = bai::dom::selector::name_candidates_css();
    let roles = bai::dom::roles::KNOWN_ROLES
        .iter()
        .chain(&["graphics-document"]);
    let mut checked = 0;
    for role in roles {
        for tag in bai::dom::roles::implicit_tags(role) {
            let element = document.create_element(tag).unwrap();
            if !NAMED_ONLY_BY_ATTRIBUTES.contains(role) {
                assert!(element.matches(&css).unwrap(), "{tag} ({role})");
                checked += 1;
            }
        }
    }
    assert!(checked > 40, "{checked}");
    // And the tags left out are left out (else the selector is no faster).
    for tag in ["div", "span", "p", "label"] {
        let element = document.create_element(tag).unwrap();
        assert!(!element.matches(&css).unwrap(), "{tag}");
    }
}
