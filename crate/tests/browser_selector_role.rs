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

/// The role engine first keeps only elements with a `role` attribute or a name in
/// `implicit_tags(role)`: every element whose implicit role is R must have its name listed
/// for R, in every context that changes the role (attributes, parents).
#[wasm_bindgen_test]
fn implicit_tags_cover_every_implicit_role() {
    use bai::dom::roles::{implicit_tags, role_of};
    let _page = Fixture::mount(
        r##"<div id="host">
        <a href="#">a</a><area href="#"><address>x</address><hgroup>x</hgroup><article>x</article>
        <aside>x</aside><section aria-label="s"><aside aria-label="n">x</aside><header>x</header><footer>x</footer></section>
        <blockquote>x</blockquote><button>x</button><summary>x</summary>
        <details><summary>open</summary>x</details><table><caption>c</caption>
        <thead><tr><th>h</th></tr></thead><tbody><tr><th>r</th><td>d</td></tr></tbody><tfoot><tr><td>f</td></tr></tfoot></table>
        <table role="grid"><tr><td>g</td><th scope="row">r</th><th scope="col">c</th></tr></table>
        <code>x</code><datalist id="dl"><option>o</option></datalist><del>x</del><s>x</s><dialog>x</dialog>
        <dl><dt>t</dt><dd>d</dd></dl><dfn>x</dfn><em>x</em><fieldset><legend>l</legend></fieldset>
        <select><optgroup label="g"><option>o</option></optgroup></select><select multiple><option>o</option></select>
        <select size="3"><option>o</option></select><figure>x</figure><form>x</form>
        <h1>x</h1><h2>x</h2><h3>x</h3><h4>x</h4><h5>x</h5><h6>x</h6><header>x</header><footer>x</footer><hr>
        <img alt="i" src="data:,"><img alt="" src="data:,"><ins>x</ins><ul><li>x</li></ul><ol><li>x</li></ol>
        <menu><li>x</li></menu><main>x</main><mark>x</mark><math></math><meter value="1"></meter><nav>x</nav>
        <output>x</output><p>x</p><progress></progress><search>x</search><strong>x</strong><sub>x</sub>
        <sup>x</sup><textarea></textarea><time>x</time><svg></svg>
        <input type="button"><input type="submit"><input type="reset"><input type="image"><input type="checkbox">
        <input type="radio"><input type="range"><input type="number"><input type="search"><input type="text">
        <input type="email"><input list="dl"><input type="search" list="dl"><input type="password"><input>
        </div>"##,
    )
    .unwrap();
    let host = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .get_element_by_id("host")
        .unwrap();
    let all = host.query_selector_all("*").unwrap();
    let mut checked = 0;
    for i in 0..all.length() {
        let element: web_sys::Element = wasm_bindgen::JsCast::unchecked_into(all.item(i).unwrap());
        // An explicit role is found by the `[role]` part of the candidate selector.
        if element.has_attribute("role") {
            continue;
        }
        if let Some(role) = role_of(&element) {
            let tag = element.local_name();
            assert!(
                implicit_tags(&role).contains(&tag.as_str()),
                "<{tag}> has the implicit role {role}, which implicit_tags does not list it for"
            );
            checked += 1;
        }
    }
    assert!(checked > 60, "only {checked} elements had a role");
}

/// Candidates found per scope come out in the walk's order: a shadow root's right after its
/// host, before the host's light children, and nested shadow roots likewise.
#[wasm_bindgen_test]
fn shadow_contents_follow_their_host_in_order() {
    let _f = Fixture::mount(
        r#"<button id="o-1">one</button><div id="o-host"><button id="o-light">light</button></div><button id="o-3">three</button>"#,
    )
    .unwrap();
    let document = web_sys::window().unwrap().document().unwrap();
    let host = document.get_element_by_id("o-host").unwrap();
    let init = web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open);
    let shadow = host.attach_shadow(&init).unwrap();
    shadow.set_inner_html(
        r#"<button id="o-inner">inner</button><span id="o-nest"></span><slot></slot><button id="o-last">last</button>"#,
    );
    let nest = shadow.get_element_by_id("o-nest").unwrap();
    let deep = nest.attach_shadow(&init).unwrap();
    deep.set_inner_html(r#"<button id="o-deep">deep</button>"#);
    let ids: Vec<String> = role("button", None)
        .into_iter()
        .filter(|id| id.starts_with("o-"))
        .collect();
    assert_eq!(
        ids,
        ["o-1", "o-inner", "o-deep", "o-last", "o-light", "o-3"]
    );
}
