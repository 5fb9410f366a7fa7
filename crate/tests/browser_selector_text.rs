#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The text engine: innermost visible element, normalized, case-insensitive substring.

use bai::dom::fixture::{Fixture, run_script};
use bai::dom::matching::TextMatcher;
use bai::dom::selector::{QueryRoot, query_all};
use bai::dom::visibility::{is_rendered, is_visible};
use bai::protocol::{Selector, SelectorKind};
use wasm_bindgen::JsCast;
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

// The walk reads every element's text as if all of it were rendered and asks about rendering
// only for candidates (see `selector::text`): the answers below are those of a walk that stops
// at every hidden element.

#[wasm_bindgen_test]
fn hidden_pieces_are_left_out_of_the_text_around_them() {
    let _f = Fixture::mount(
        r#"<p id="p">Item <span style="display:none">9</span>1500</p>
        <div id="d">Shown <span style="display:none">only hidden</span></div>
        <p id="e">Log<span style="display:none">out</span>in</p>"#,
    )
    .unwrap();
    assert_eq!(text("Item 1500", false), ["p"]);
    // Its text as written holds the words; its rendered text does not.
    assert_eq!(text("only hidden", false), Vec::<String>::new());
    assert_eq!(text("shown only", false), Vec::<String>::new());
    assert_eq!(text("Login", true), ["e"]);
    assert_eq!(text("Logoutin", true), Vec::<String>::new());
}

#[wasm_bindgen_test]
fn a_match_inside_a_hidden_element_neither_counts_nor_hides_its_ancestor() {
    let _f = Fixture::mount(
        r#"<div id="outer">zebra <span style="display:none"><b id="in">zebra</b></span></div>
        <section style="display:none"><div><i id="deep">okapi</i></div></section>
        <p id="ok">okapi</p>"#,
    )
    .unwrap();
    assert_eq!(text("zebra", false), ["outer"]);
    assert_eq!(text("okapi", false), ["ok"]);
}

#[wasm_bindgen_test]
fn display_contents_and_visibility_hidden_keep_their_text() {
    // `display: contents` has no box but renders its children; `visibility: hidden` is
    // rendered (its text counts for its ancestors) but is not visible itself.
    let _f = Fixture::mount(
        r#"<div id="c">tap<span style="display:contents">ir</span></div>
        <div id="v">gi<span style="visibility:hidden">raffe</span></div>"#,
    )
    .unwrap();
    assert_eq!(text("tapir", true), ["c"]);
    assert_eq!(text("giraffe", true), ["v"]);
    assert_eq!(text("raffe", true), Vec::<String>::new());
}

#[wasm_bindgen_test]
fn leaves_skip_comments_and_cdata_sections() {
    // A leaf's text is read in one call (`textContent`) unless its scope holds a CDATA
    // section, which `textContent` counts and the engine does not.
    let f = Fixture::mount(r#"<span id="c">ze<!-- x -->bra</span><span id="x">ab</span>"#).unwrap();
    assert_eq!(text("zebra", true), ["c"]);
    run_script(
        "const xml = new DOMParser().parseFromString('<x/>', 'application/xml'); \
         document.getElementById('x').append(xml.createCDATASection('cd'));",
    )
    .unwrap();
    assert_eq!(f.find("#x").unwrap().text_content().unwrap(), "abcd");
    assert_eq!(text("abcd", false), Vec::<String>::new());
    assert_eq!(text("ab", true), ["x"]);
}

#[wasm_bindgen_test]
fn same_origin_frames_are_searched_unless_hidden() {
    let f = Fixture::mount(
        r#"<iframe id="shown"></iframe><iframe id="hidden" style="display:none"></iframe>
        <p id="after">pangolin after</p>"#,
    )
    .unwrap();
    for (id, html) in [
        ("#shown", r#"<p id="in-frame">pangolin inside</p>"#),
        ("#hidden", r#"<p id="in-hidden">pangolin hidden</p>"#),
    ] {
        let frame = f.find(id).unwrap();
        let frame: &web_sys::HtmlIFrameElement = frame.unchecked_ref();
        frame
            .content_document()
            .unwrap()
            .body()
            .unwrap()
            .set_inner_html(html);
    }
    assert_eq!(text("pangolin inside", false), ["in-frame"]);
    assert_eq!(text("pangolin hidden", false), Vec::<String>::new());
    // The frame's text is not the iframe's, nor its ancestors'.
    assert_eq!(text("pangolin", false), ["in-frame", "after"]);
}

/// The answer of a walk that asks every element whether it is rendered and stops at hidden
/// ones (the engine before it asked only candidates), for pages without fields, shadow roots,
/// slots or frames.
fn eager_reference(value: &str, exact: bool) -> Vec<String> {
    fn walk(element: &web_sys::Element, matcher: &TextMatcher, out: &mut Vec<String>) -> String {
        let tag = element.local_name();
        if matches!(
            tag.as_str(),
            "script" | "style" | "noscript" | "template" | "head"
        ) || !is_rendered(element)
        {
            return String::new();
        }
        let before = out.len();
        let mut text = String::new();
        let mut child = element.first_child();
        while let Some(node) = child {
            child = node.next_sibling();
            match node.node_type() {
                web_sys::Node::TEXT_NODE => text.push_str(&node.text_content().unwrap_or_default()),
                web_sys::Node::ELEMENT_NODE => {
                    text.push_str(&walk(node.unchecked_ref(), matcher, out));
                }
                _ => {}
            }
        }
        if out.len() == before && matcher.matches(&text) && is_visible(element) {
            out.push(element.id());
        }
        text
    }
    let body = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .body()
        .unwrap();
    let mut out = Vec::new();
    walk(&body, &TextMatcher::new(value, exact), &mut out);
    out
}

#[wasm_bindgen_test]
fn the_answers_are_those_of_a_walk_that_asks_every_element() {
    // Random nestings of hidden, `display: contents` and `visibility: hidden` elements around
    // short pieces of text (and comments), asked for values their pieces can form across
    // hidden elements.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: u64| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    fn element(next: &mut dyn FnMut(u64) -> u64, depth: u32, id: &mut u32, out: &mut String) {
        const TAGS: [&str; 5] = ["div", "span", "p", "b", "section"];
        const STYLES: [&str; 6] = [
            "",
            "display:none",
            "display:none",
            "display:contents",
            "visibility:hidden",
            "display:block",
        ];
        const PIECES: [&str; 8] = ["a", "b", "c", " ", "a", "b", "<!--ab-->", "A\u{00ad}"];
        let tag = TAGS[next(5) as usize];
        *id += 1;
        out.push_str(&format!(
            r#"<{tag} id="n{id}" style="{}">"#,
            STYLES[next(6) as usize]
        ));
        for _ in 0..next(6) {
            if depth < 3 && next(2) == 0 {
                element(next, depth + 1, id, out);
            } else {
                out.push_str(PIECES[next(8) as usize]);
            }
        }
        out.push_str(&format!("</{tag}>"));
    }
    let values = ["ab", "a b", "ba", "abc", "b c", "aa", "cab", "c", "bab"];
    let mut compared = 0;
    for _ in 0..80 {
        let mut html = String::new();
        let mut id = 0;
        for _ in 0..3 {
            element(&mut next, 0, &mut id, &mut html);
        }
        let _f = Fixture::mount(&html).unwrap();
        for value in values {
            for exact in [false, true] {
                assert_eq!(
                    text(value, exact),
                    eager_reference(value, exact),
                    "{value:?} exact {exact} in {html}"
                );
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 80 * values.len() * 2);
}
