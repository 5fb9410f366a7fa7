#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! One call per action (`bindings::perform_action`): the element the review looked at is the
//! one acted on. An element held across the question is acted on after Allow only when it is
//! still on the page and unchanged (else `target_changed`); a hold is used once, for the same
//! action, and Stop drops it; an `index` past the end fails before anything runs; an allowed
//! click whose element is swapped or re-labelled while it waits presses nothing.

use bai::bindings::{cancel_actions, perform_action};
use bai::dom::fixture::{Fixture, run_script};
use bai::protocol::{Action, Selector};
use serde_json::Value;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Records every press of an element with `data-press` in `window.__pressed`.
fn record_presses() {
    run_script(
        "window.__pressed = []; if (!window.__recording) { window.__recording = true; \
         document.addEventListener('click', (e) => { const p = e.target.closest && e.target.closest('[data-press]'); \
         if (p) window.__pressed.push(p.dataset.press); }, true); }",
    )
    .unwrap();
}

fn pressed() -> Vec<String> {
    let value = js_sys::Reflect::get(&js_sys::global(), &"__pressed".into()).unwrap();
    serde_wasm_bindgen::from_value(value).unwrap()
}

/// Runs `perform_action` with the default settings; `Ok(answer)` or `Err(error)` as JSON.
async fn perform(action: &Action, hold: Option<&str>, timeout_ms: u32) -> Result<Value, Value> {
    let json = serde_json::to_string(action).unwrap();
    let answer: Value = serde_json::from_str(
        &perform_action(
            json,
            "{}".into(),
            Some(timeout_ms),
            hold.map(str::to_owned),
            None,
        )
        .await
        .unwrap(),
    )
    .unwrap();
    assert!(
        answer["needs_approval"].is_object() || answer["next_ref"].is_u64(),
        "{answer}"
    );
    match answer.get("error") {
        Some(error) => Err(error.clone()),
        None => Ok(answer),
    }
}

fn click(css: &str) -> Action {
    Action::Click {
        selector: Selector::css(css),
    }
}

/// Asks, and returns the hold id.
async fn asked(action: &Action) -> String {
    let answer = perform(action, None, 500).await.unwrap();
    let hold = answer["needs_approval"]["hold"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        hold.len() == 34 && hold.starts_with("h_"),
        "a 128-bit hold id: {hold}"
    );
    hold
}

#[wasm_bindgen_test]
async fn a_held_element_swapped_or_relabelled_after_the_question_is_not_acted_on() {
    record_presses();
    let f = Fixture::mount(
        r#"<div id="area"><button type="button" class="danger" data-press="draft">Delete draft</button></div>"#,
    )
    .unwrap();
    let hold = asked(&click(".danger")).await;
    f.find("#area").unwrap().set_inner_html(
        r#"<button type="button" class="danger" data-press="account">Delete account</button>"#,
    );
    let error = perform(&click(".danger"), Some(&hold), 500)
        .await
        .unwrap_err();
    assert_eq!(error["code"], "target_changed", "{error}");
    // Same node, other words.
    let hold = asked(&click(".danger")).await;
    f.find(".danger")
        .unwrap()
        .set_text_content(Some("Delete everything"));
    let error = perform(&click(".danger"), Some(&hold), 500)
        .await
        .unwrap_err();
    assert_eq!(error["code"], "target_changed", "{error}");
    assert_eq!(pressed(), Vec::<String>::new());
}

#[wasm_bindgen_test]
async fn a_hold_is_used_once_for_the_same_action_and_stop_drops_it() {
    record_presses();
    let _f = Fixture::mount(
        r#"<button type="button" id="keep" data-press="keep">Delete draft</button>
           <button type="button" id="other" data-press="other">Remove row</button>"#,
    )
    .unwrap();
    let hold = asked(&click("#keep")).await;
    // Another action cannot use it (and using it spends it).
    let error = perform(&click("#other"), Some(&hold), 500)
        .await
        .unwrap_err();
    assert_eq!(error["code"], "target_changed");
    let hold = asked(&click("#keep")).await;
    let answer = perform(&click("#keep"), Some(&hold), 500).await.unwrap();
    assert!(answer["result"].is_object(), "{answer}");
    assert_eq!(pressed(), ["keep"]);
    let error = perform(&click("#keep"), Some(&hold), 500)
        .await
        .unwrap_err();
    assert_eq!(error["code"], "target_changed", "used once");
    // Stop drops every hold.
    let hold = asked(&click("#keep")).await;
    cancel_actions();
    let error = perform(&click("#keep"), Some(&hold), 500)
        .await
        .unwrap_err();
    assert_eq!(error["code"], "target_changed");
    assert_eq!(pressed(), ["keep"]);
    // The table stays bounded.
    for _ in 0..40 {
        asked(&click("#keep")).await;
    }
    assert!(bai::dom::hold::count() <= bai::dom::hold::MAX_HOLDS);
    cancel_actions();
}

#[wasm_bindgen_test]
async fn an_index_past_the_end_fails_before_anything_runs() {
    record_presses();
    let f = Fixture::mount(
        r#"<ul id="list"><li><button type="button" class="rm" data-press="a">Open A</button></li></ul>"#,
    )
    .unwrap();
    let mut selector = Selector::css(".rm");
    selector.index = Some(2);
    let action = Action::Click { selector };
    let error = perform(&action, None, 300).await.unwrap_err();
    assert_eq!(error["code"], "index_out_of_range", "{error}");
    f.find("#list").unwrap().set_inner_html(
        r#"<li><button class="rm" data-press="a">Open A</button></li><li><button class="rm" data-press="b">Open B</button></li><li><button class="rm" data-press="c">Open C</button></li>"#,
    );
    assert_eq!(pressed(), Vec::<String>::new());
}

#[wasm_bindgen_test]
async fn an_allowed_click_whose_element_changes_while_it_waits_presses_nothing() {
    record_presses();
    let f = Fixture::mount(
        r#"<div id="a"><button type="button" id="slow" disabled data-press="save">Save</button></div>
           <div id="b"><button type="button" id="slow2" disabled data-press="save2">Save</button></div>"#,
    )
    .unwrap();
    run_script(
        "setTimeout(() => { document.getElementById('a').innerHTML = '<button type=button id=slow data-press=swapped>Delete all</button>'; }, 300);",
    )
    .unwrap();
    let error = perform(&click("#slow"), None, 3000).await.unwrap_err();
    assert_eq!(error["code"], "target_changed", "{error}");
    run_script(
        "setTimeout(() => { const b = document.getElementById('slow2'); b.textContent = 'Delete all'; b.disabled = false; }, 300);",
    )
    .unwrap();
    let error = perform(&click("#slow2"), None, 3000).await.unwrap_err();
    assert_eq!(error["code"], "target_changed", "{error}");
    assert_eq!(pressed(), Vec::<String>::new());
    drop(f);
}

#[wasm_bindgen_test]
async fn select_option_reviews_the_option_really_chosen() {
    let _f = Fixture::mount(
        r#"<select id="plan" aria-label="Plan"><option value="m">Monthly</option><option value="x1" label="Delete my account">Keep</option></select>
           <button type="button" id="size" role="combobox" aria-haspopup="listbox" aria-expanded="false" aria-controls="nowhere">Size</button>"#,
    )
    .unwrap();
    let choose = |css: &str, option: &str| Action::SelectOption {
        selector: Selector::css(css),
        option: option.into(),
    };
    let answer = perform(&choose("#plan", "x1"), None, 500).await.unwrap();
    assert_eq!(
        answer["needs_approval"]["reasons"][0]["code"], "risky_click",
        "{answer}"
    );
    // A list that shows no options: judged once it opens (here it never does: nothing chosen).
    let error = perform(&choose("#size", "anything"), None, 500)
        .await
        .unwrap_err();
    assert_ne!(error["code"], "target_changed", "{error}");
    assert!(error["code"].is_string(), "{error}");
    let error = perform(&choose("#plan", "nope"), None, 500)
        .await
        .unwrap_err();
    assert_eq!(error["code"], "option_not_found");
    let answer = perform(&choose("#plan", "m"), None, 500).await.unwrap();
    assert!(answer["result"].is_object(), "{answer}");
    cancel_actions();
}

const LABEL_LINK: &str = include_str!("fixtures/review/label_link.html");

/// Keeps the test page where it is: a press on a link with `data-press` is recorded (by
/// [`record_presses`]) and its navigation canceled.
fn cancel_link_navigation() {
    run_script(
        "if (!window.__noLinkNav) { window.__noLinkNav = true; \
         document.addEventListener('click', (e) => { const a = e.target.closest && e.target.closest('a[data-press]'); \
         if (a) e.preventDefault(); }); }",
    )
    .unwrap();
}

fn checked(f: &Fixture, css: &str) -> bool {
    let element = f.find(css).unwrap();
    if element.local_name() == "input" {
        js_sys::Reflect::get(&element, &"checked".into())
            .unwrap()
            .as_bool()
            .unwrap()
    } else {
        element.get_attribute("aria-checked").as_deref() == Some("true")
    }
}

#[wasm_bindgen_test]
async fn check_never_presses_a_link_in_the_label_it_clicks() {
    record_presses();
    cancel_link_navigation();
    let f = Fixture::mount(LABEL_LINK).unwrap();
    let check = |css: &str| Action::Check {
        selector: Selector::css(css),
    };
    // The red team's page: the label's middle is the link; its plain text is pressed instead.
    let answer = perform(&check("#keep"), None, 1000).await.unwrap();
    assert!(answer["result"].is_object(), "{answer}");
    assert!(checked(&f, "#keep"));
    // A custom checkbox with a link inside: its own text is pressed.
    let answer = perform(&check("#custom"), None, 1000).await.unwrap();
    assert!(answer["result"].is_object(), "{answer}");
    assert!(checked(&f, "#custom"));
    // A visible checkbox under its label's link, and a label that is all link: nowhere to
    // press but the link, so nothing is pressed.
    let error = perform(&check("#covered"), None, 300).await.unwrap_err();
    assert_eq!(error["code"], "covered", "{error}");
    assert!(!checked(&f, "#covered"));
    let error = perform(&check("#alllink"), None, 300).await.unwrap_err();
    assert_eq!(error["code"], "covered", "{error}");
    // `click` on the covered checkbox: the hit in its label is accepted only on plain text.
    let error = perform(&click("#covered"), None, 300).await.unwrap_err();
    assert_eq!(error["code"], "covered", "{error}");
    assert_eq!(pressed(), Vec::<String>::new());
    cancel_actions();
}
