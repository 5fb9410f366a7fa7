#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! What a `screenshot` hides and numbers: secret fields (a password, a card field by its
//! autocomplete), text the secret scan would redact (a card number in a paragraph, in a plain
//! field's value), every frame (another origin's and the page's own), and nothing else; marks
//! whose numbers are the refs of the same listing, in view only.

use bai::dom::fixture::Fixture;
use bai::dom::vision::{MaskKind, frames_hidden, marks, masks};
use bai::dom::{ExecOptions, execute};
use bai::protocol::Action;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const PAGE: &str = r##"
<h1>Pay</h1>
<label>Email <input id="email" type="email" value="ann@x.io"></label>
<label>Password <input id="password" type="password" value="hunter2hunter2"></label>
<label>Card <input id="card" autocomplete="cc-number"></label>
<label>Note <input id="note" value="card 4111 1111 1111 1111"></label>
<p id="on-file">Card on file: 4111 1111 1111 1111</p>
<p id="plain">Nothing secret here at all</p>
<iframe id="other" title="Payment" style="width:200px;height:60px" src="data:text/html,pay"></iframe>
<iframe id="own" title="Own" style="width:200px;height:60px" srcdoc="<input type=password>"></iframe>
<button id="help">Help</button>
"##;

fn rect_of(f: &Fixture, css: &str) -> (f64, f64) {
    let r = f.find(css).unwrap().get_bounding_client_rect();
    (r.left(), r.top())
}

#[wasm_bindgen_test]
fn masks_secret_fields_redactable_text_and_every_frame_and_nothing_else() {
    let f = Fixture::mount(PAGE).unwrap();
    let window = web_sys::window().unwrap();
    window.scroll_to_with_x_and_y(0.0, 0.0);
    let found = masks().unwrap();
    let at = |css: &str| {
        let (x, y) = rect_of(&f, css);
        found
            .masks
            .iter()
            .find(|m| (m.rect.x - x.max(0.0)).abs() < 0.5 && (m.rect.y - y.max(0.0)).abs() < 0.5)
            .map(|m| m.kind)
    };
    assert_eq!(at("#password"), Some(MaskKind::SecretField));
    assert_eq!(at("#card"), Some(MaskKind::SecretField));
    assert_eq!(at("#note"), Some(MaskKind::SecretText));
    assert_eq!(at("#on-file"), Some(MaskKind::SecretText));
    assert_eq!(at("#other"), Some(MaskKind::Frame));
    assert_eq!(at("#own"), Some(MaskKind::Frame));
    assert_eq!(at("#email"), None);
    assert_eq!(at("#plain"), None);
    assert_eq!(at("#help"), None);
    assert!(found.viewport.width > 0.0 && found.viewport.height > 0.0);
    assert!(found.viewport.device_pixel_ratio > 0.0);
    // Every box lies inside the viewport.
    for mask in &found.masks {
        assert!(mask.rect.x >= 0.0 && mask.rect.y >= 0.0);
        assert!(mask.rect.x + mask.rect.width <= found.viewport.width + 0.5);
        assert!(mask.rect.y + mask.rect.height <= found.viewport.height + 0.5);
    }
}

#[wasm_bindgen_test]
fn an_element_out_of_view_gets_no_box() {
    let f = Fixture::mount(
        r#"<div style="height:5000px"></div><input id="far" type="password" value="x">"#,
    )
    .unwrap();
    web_sys::window().unwrap().scroll_to_with_x_and_y(0.0, 0.0);
    let far = f.find("#far").unwrap();
    assert!(far.get_bounding_client_rect().top() > 1000.0);
    let found = masks().unwrap();
    assert!(found.masks.iter().all(|m| m.rect.y < 1000.0));
    let viewport = found.viewport;
    assert!(marks(&[(7, far)], &viewport).is_empty());
}

#[wasm_bindgen_test]
async fn a_screenshot_lists_like_observe_and_marks_the_listed_refs() {
    let f = Fixture::mount(PAGE).unwrap();
    web_sys::window().unwrap().scroll_to_with_x_and_y(0.0, 0.0);
    let report = execute(
        &Action::Screenshot { max_elements: None },
        &ExecOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(report.action, "screenshot");
    let text = report.data.unwrap();
    // Read back by the crate's reader (correctly rounded floats; serde_json's default reader
    // may read a long float one digit off).
    let data = bai::protocol::json::read_plain(&text).unwrap();
    // Written by hand as serde_json writes the `Value` it once was: keys sorted, compact.
    assert_eq!(text, data.to_string());
    let elements: Vec<String> = data["elements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_owned())
        .collect();
    let help = elements
        .iter()
        .find(|l| l.contains("button \"Help\""))
        .unwrap();
    let password = elements
        .iter()
        .find(|l| l.contains("textbox \"Password\""))
        .unwrap();
    assert!(password.contains("value=<hidden>"));
    assert!(!data.to_string().contains("hunter2"));
    let number = |line: &str| -> u64 {
        line.trim_start_matches("@e")
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let marks = data["vision"]["marks"].as_array().unwrap();
    let help_mark = marks
        .iter()
        .find(|m| m["number"].as_u64() == Some(number(help)))
        .unwrap();
    let r = f.find("#help").unwrap().get_bounding_client_rect();
    assert!((help_mark["x"].as_f64().unwrap() - r.left()).abs() < 0.5);
    assert!((help_mark["y"].as_f64().unwrap() - r.top()).abs() < 0.5);
    // Every mark is a listed ref.
    let listed: Vec<u64> = elements.iter().map(|l| number(l)).collect();
    for mark in marks {
        assert!(listed.contains(&mark["number"].as_u64().unwrap()));
    }
    assert!(data["vision"]["masks"].as_array().unwrap().len() >= 6);
}

#[wasm_bindgen_test]
fn frames_count_as_hidden_only_when_every_one_paints_nothing() {
    let f = Fixture::mount(
        r#"<style id="hide"></style>
        <iframe id="a" style="width:100px;height:40px" src="data:text/html,a"></iframe>
        <div id="host"></div>"#,
    )
    .unwrap();
    // One more frame inside a shadow root (open: a test page cannot open closed ones, the
    // extension can): it must be hidden too.
    let host = f.find("#host").unwrap();
    let init = web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open);
    let shadow = host.attach_shadow(&init).unwrap();
    shadow.set_inner_html(r#"<iframe id="b" style="width:100px;height:40px"></iframe>"#);
    assert!(!frames_hidden());
    let style = f.find("#hide").unwrap();
    // Opacity alone is not enough (a filter could still make it show), visibility alone neither.
    style.set_text_content(Some("iframe { opacity: 0 !important }"));
    assert!(!frames_hidden());
    style.set_text_content(Some("iframe { visibility: hidden !important }"));
    assert!(!frames_hidden());
    // The top document's rule does not reach into the shadow tree: not hidden.
    style.set_text_content(Some(
        "iframe { visibility: hidden !important; opacity: 0 !important }",
    ));
    assert!(!frames_hidden());
    shadow.set_inner_html(
        r#"<style>iframe { visibility: hidden; opacity: 0 }</style><iframe id="b"></iframe>"#,
    );
    assert!(frames_hidden());
}

#[wasm_bindgen_test]
fn the_viewport_says_whether_it_is_pinch_zoomed() {
    let _f = Fixture::mount("<p>Hi</p>").unwrap();
    let viewport = masks().unwrap().viewport;
    assert_eq!(viewport.visual_scale, 1.0);
    assert_eq!(viewport.visual_offset_x, 0.0);
    assert_eq!(viewport.visual_offset_y, 0.0);
}

/// The box of the text `element` holds (a `Range` over its contents), in the viewport.
fn text_box(element: &web_sys::Element) -> (f64, f64, f64, f64) {
    let range = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .create_range()
        .unwrap();
    range.select_node_contents(element).unwrap();
    let r = range.get_bounding_client_rect();
    (r.left(), r.top(), r.right(), r.bottom())
}

/// Whether one `SecretText` mask covers the whole text of `css` (within half a pixel).
fn text_is_masked(f: &Fixture, css: &str) -> bool {
    let (left, top, right, bottom) = text_box(&f.find(css).unwrap());
    assert!(right > left && bottom > top, "{css} has text on screen");
    masks().unwrap().masks.iter().any(|m| {
        m.kind == MaskKind::SecretText
            && m.rect.x <= left + 0.5
            && m.rect.y <= top + 0.5
            && m.rect.x + m.rect.width >= right - 0.5
            && m.rect.y + m.rect.height >= bottom - 0.5
    })
}

#[wasm_bindgen_test]
fn a_card_number_split_over_spans_is_masked_whole() {
    web_sys::window().unwrap().scroll_to_with_x_and_y(0.0, 0.0);
    // A card number in groups of four, each in its own span: no span's text is a secret.
    let f = Fixture::mount(
        r#"<p id="split">Card <span>4242</span> <span>4242</span> <span>4242</span> <span>4242</span></p>"#,
    )
    .unwrap();
    assert!(text_is_masked(&f, "#split"));
    // Plain text split the same way stays unmasked.
    let f = Fixture::mount(r#"<p id="plain"><span>Order</span> <span>42</span></p>"#).unwrap();
    assert!(!text_is_masked(&f, "#plain"));
}

#[wasm_bindgen_test]
fn a_key_split_over_text_nodes_is_masked() {
    web_sys::window().unwrap().scroll_to_with_x_and_y(0.0, 0.0);
    // A key in two text nodes of one element (as React renders adjacent strings).
    let f = Fixture::mount(r#"<p id="nodes"></p>"#).unwrap();
    let p = f.find("#nodes").unwrap();
    let document = web_sys::window().unwrap().document().unwrap();
    p.append_child(&document.create_text_node("sk_live_4eC39HqLyj"))
        .unwrap();
    p.append_child(&document.create_text_node("WDarjtT1zdp7dc"))
        .unwrap();
    assert!(text_is_masked(&f, "#nodes"));
}

#[wasm_bindgen_test]
fn a_key_overflowing_its_box_is_masked_where_it_is_painted() {
    web_sys::window().unwrap().scroll_to_with_x_and_y(0.0, 0.0);
    let f = Fixture::mount(
        r#"<div id="over" style="width:60px;font:16px monospace;white-space:nowrap">sk_live_4eC39HqLyjWDarjtT1zdp7dc</div>"#,
    )
    .unwrap();
    let over = f.find("#over").unwrap();
    assert!(text_box(&over).2 > over.get_bounding_client_rect().right() + 50.0);
    assert!(text_is_masked(&f, "#over"));
}

#[wasm_bindgen_test]
fn a_key_in_a_display_contents_element_is_masked() {
    web_sys::window().unwrap().scroll_to_with_x_and_y(0.0, 0.0);
    // No box of its own; its text has one.
    let f = Fixture::mount(
        r#"<div id="contents" style="display:contents">sk_live_4eC39HqLyjWDarjtT1zdp7dc</div>"#,
    )
    .unwrap();
    assert!(text_is_masked(&f, "#contents"));
}
