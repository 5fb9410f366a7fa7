#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The role engine: explicit and implicit roles, optional accessible name.

use bai::dom::fixture::Fixture;
use bai::dom::selector::{QueryRoot, query_all, validate};
use bai::protocol::{Selector, SelectorKind};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn role(value: &str, name: Option<&str>) -> Vec<String> {
    let root = QueryRoot::current().unwrap();
    let mut selector = Selector::new(SelectorKind::Role, value);
    selector.name = name.map(str::to_owned);
    query_all(&root, &selector)
        .unwrap()
        .iter()
        .map(|e| e.id())
        .collect()
}

const PAGE: &str = r##"
<nav id="nav"><a id="home" href="/">Home</a><a id="anchor">No href</a></nav>
<main id="main">
  <h2 id="h">Sign in</h2>
  <form id="form-anon"></form>
  <form id="form-named" aria-label="Login"></form>
  <input id="t" type="text" aria-label="Email">
  <input id="em" type="email" aria-label="Work email">
  <input id="s" type="search" aria-label="Find">
  <input id="c" type="checkbox" aria-label="Remember me">
  <input id="r" type="range" aria-label="Volume">
  <input id="n" type="number" aria-label="Count">
  <input id="sub" type="submit" value="Go">
  <button id="b">Save</button>
  <div id="fake" role="button">Fake save</div>
  <button id="tab" role="tab">Overview</button>
  <select id="sel" aria-label="Country"><option id="o">France</option></select>
  <select id="multi" multiple aria-label="Tags"></select>
  <textarea id="ta" aria-label="Notes"></textarea>
  <img id="img" src="data:," alt="Logo"><img id="deco" src="data:," alt="">
  <ul id="ul"><li id="li">x</li></ul>
  <dialog id="dlg" open>Hi</dialog>
  <button id="hidden-b" style="display:none">Save hidden</button>
</main>"##;

#[wasm_bindgen_test]
fn implicit_roles() {
    let _f = Fixture::mount(PAGE).unwrap();
    assert_eq!(role("link", None), ["home"]);
    assert_eq!(role("navigation", None), ["nav"]);
    assert_eq!(role("heading", None), ["h"]);
    // A form is a form, named or not (html-aam, and both browsers' trees).
    assert_eq!(role("form", None), ["form-anon", "form-named"]);
    assert_eq!(role("textbox", None), ["t", "em", "ta"]);
    assert_eq!(role("searchbox", None), ["s"]);
    assert_eq!(role("checkbox", None), ["c"]);
    assert_eq!(role("slider", None), ["r"]);
    assert_eq!(role("spinbutton", None), ["n"]);
    assert_eq!(role("combobox", None), ["sel"]);
    assert_eq!(role("listbox", None), ["multi"]);
    assert_eq!(role("option", None), ["o"]);
    assert_eq!(role("img", None), ["img"]);
    assert_eq!(role("presentation", None), ["deco"]);
    assert_eq!(role("list", None), ["ul"]);
    assert_eq!(role("listitem", None), ["li"]);
    assert_eq!(role("dialog", None), ["dlg"]);
}

#[wasm_bindgen_test]
fn explicit_role_wins_and_hidden_is_excluded() {
    let _f = Fixture::mount(PAGE).unwrap();
    assert_eq!(role("button", None), ["sub", "b", "fake"]);
    assert_eq!(role("tab", None), ["tab"]);
}

#[wasm_bindgen_test]
fn role_with_name() {
    let _f = Fixture::mount(PAGE).unwrap();
    assert_eq!(role("button", Some("save")), ["b", "fake"]);
    assert_eq!(role("button", Some("go")), ["sub"]);
    assert_eq!(role("textbox", Some("email")), ["t", "em"]);
    assert_eq!(role("heading", Some("Sign in")), ["h"]);
}

#[wasm_bindgen_test]
fn unknown_roles_are_rejected_without_a_dom() {
    let err = validate(&Selector::new(SelectorKind::Role, "buton")).unwrap_err();
    assert!(err.reason.contains("not an ARIA role"), "{}", err.reason);
    assert!(validate(&Selector::new(SelectorKind::Role, "Button")).is_ok());
}
