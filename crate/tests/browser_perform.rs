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

/// A click's first look before the press reuses the review's facts (found in the same task);
/// its look after the stability frame must read the element again: here the page renames the
/// button on the scroll the click's own scrolling causes, which it sees only at that frame.
#[wasm_bindgen_test]
async fn a_click_whose_element_changes_during_its_stability_frame_presses_nothing() {
    record_presses();
    let f = Fixture::mount(
        r#"<div style="height: 4000px"></div><button type="button" id="far" data-press="far">Save</button>"#,
    )
    .unwrap();
    run_script(
        "window.scrollTo(0, 0); window.__renamed = false; \
         window.addEventListener('scroll', () => { document.getElementById('far').textContent = 'Delete all'; window.__renamed = true; }, { once: true, capture: true });",
    )
    .unwrap();
    let error = perform(&click("#far"), None, 1000).await.unwrap_err();
    let renamed = js_sys::Reflect::get(&js_sys::global(), &"__renamed".into()).unwrap();
    assert_eq!(renamed.as_bool(), Some(true), "the page saw the scroll");
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

/// The code of the first reason `action` is asked about; `None` when it ran.
async fn question_code(action: &Action) -> Option<String> {
    let answer = perform(action, None, 500).await.unwrap();
    let code = answer["needs_approval"]["reasons"][0]["code"]
        .as_str()
        .map(str::to_owned);
    cancel_actions();
    code
}

fn global(name: &str) -> Value {
    let value = js_sys::Reflect::get(&js_sys::global(), &name.into()).unwrap();
    serde_wasm_bindgen::from_value(value).unwrap_or(Value::Null)
}

/// The red team's WordPress Trash view (session 11): `input_text` "delete" on the bulk-action
/// `<select>` chose "Delete permanently" with no question, and ArrowDown on a `<select
/// onchange>` chose "Close account", on a radio "Delete my data". Each is judged by the option
/// or button it will choose, as `select_option` and a click are.
#[wasm_bindgen_test]
async fn input_text_and_arrow_keys_that_choose_are_reviewed_by_what_they_choose() {
    let f = Fixture::mount(
        r#"<form id="posts-filter" method="get" action="/wp-admin/edit.php">
  <input type="hidden" name="post_status" value="trash">
  <label for="bulk-action-selector-top">Select bulk action</label>
  <select name="action" id="bulk-action-selector-top">
    <option value="-1">Bulk actions</option>
    <option value="untrash">Restore</option>
    <option value="delete">Delete permanently</option>
  </select>
  <input type="submit" id="doaction" value="Apply">
</form>
<select id="auto" aria-label="Account status" onchange="window.__changed = this.value">
  <option value="active">Active</option><option value="close">Close account</option></select>
<fieldset><legend>Data</legend>
<label><input type=radio name=data value=keep id=keep checked onchange="window.__data=this.value"> Keep my data</label>
<label><input type=radio name=data value=wipe id=wipe onchange="window.__data=this.value"> Delete my data</label></fieldset>
<ul role="listbox" id="lb" tabindex="0" aria-label="Status"><li role="option" aria-selected="true">Open</li><li role="option">Delete</li></ul>"#,
    )
    .unwrap();
    run_script("window.__changed = null; window.__data = null;").unwrap();
    let typed = |text: &str| Action::InputText {
        selector: Selector::css("#bulk-action-selector-top"),
        text: text.into(),
    };
    assert_eq!(
        question_code(&typed("delete")).await.as_deref(),
        Some("risky_click")
    );
    let bulk = f.find("#bulk-action-selector-top").unwrap();
    assert_eq!(js_sys::Reflect::get(&bulk, &"value".into()).unwrap(), "-1");
    // A harmless option still runs without a question.
    assert_eq!(question_code(&typed("untrash")).await, None);
    assert_eq!(
        js_sys::Reflect::get(&bulk, &"value".into()).unwrap(),
        "untrash"
    );

    let press = |css: &str, key: bai::protocol::action::Key| Action::PressKey {
        key,
        selector: Some(Selector::css(css)),
    };
    use bai::protocol::action::Key;
    assert_eq!(
        question_code(&press("#auto", Key::ArrowDown))
            .await
            .as_deref(),
        Some("risky_click")
    );
    assert_eq!(global("__changed"), Value::Null);
    // ArrowUp from the first option moves nothing, and runs.
    assert_eq!(question_code(&press("#auto", Key::ArrowUp)).await, None);
    // A key BAI gives no meaning on a <select>: which option the page chooses is unknown.
    assert_eq!(
        question_code(&press("#auto", Key::End)).await.as_deref(),
        Some("unknown_choice")
    );
    for key in [Key::ArrowDown, Key::ArrowRight] {
        assert_eq!(
            question_code(&press("#keep", key)).await.as_deref(),
            Some("risky_click"),
            "{key:?}"
        );
    }
    assert_eq!(global("__data"), Value::Null);
    // A custom list moves its choice in its own handlers: BAI cannot tell which, so it asks.
    assert_eq!(
        question_code(&press("#lb", Key::ArrowDown))
            .await
            .as_deref(),
        Some("unknown_choice")
    );
    drop(f);
}

/// The red team's chat page: Enter in a `contenteditable role=textbox` and in a `<textarea>`
/// whose keydown handler sends the message ran with no question, while the "Send" button asked.
#[wasm_bindgen_test]
async fn enter_in_a_message_box_asks() {
    let f = Fixture::mount(
        r#"<div role="log" id="msgs"></div>
<div id="composer" contenteditable="true" role="textbox" aria-label="Message #general" aria-multiline="true"></div>
<textarea id="ta" aria-label="Write a reply"></textarea>
<input id="loose" aria-label="Chat">
<form onsubmit="event.preventDefault()"><input id="q" aria-label="Query"><button id="go">Search</button></form>
<button id="save" type="button">Save</button>"#,
    )
    .unwrap();
    run_script(
        "window.__sent = []; for (const id of ['composer', 'ta', 'loose']) document.getElementById(id).addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); window.__sent.push(id); } });",
    )
    .unwrap();
    use bai::protocol::action::Key;
    let typed = Action::InputText {
        selector: Selector::css("#composer"),
        text: "Hi all, here is the export".into(),
    };
    assert_eq!(question_code(&typed).await, None);
    for css in ["#composer", "#ta", "#loose"] {
        let enter = Action::PressKey {
            key: Key::Enter,
            selector: Some(Selector::css(css)),
        };
        let answer = perform(&enter, None, 500).await.unwrap();
        let reason = &answer["needs_approval"]["reasons"][0];
        assert_eq!(reason["code"], "enter_may_send", "{css}: {answer}");
        assert!(
            reason["message"].as_str().unwrap().contains(
                "may send or submit what it holds; BAI cannot tell what the page does with it"
            ),
            "{reason}"
        );
        cancel_actions();
    }
    assert_eq!(global("__sent"), serde_json::json!([]));
    // Enter in a single-line field of a form (its default button "Search" is judged) and on a
    // button run as before.
    for css in ["#q", "#save"] {
        let enter = Action::PressKey {
            key: Key::Enter,
            selector: Some(Selector::css(css)),
        };
        assert_eq!(question_code(&enter).await, None, "{css}");
    }
    drop(f);
}

/// The red team's strength meter: Backspace on a password field whose page reacts to input
/// reported `dom_changed`, a longer `elapsed_ms` and page changes only while the field held
/// something (pressed again and again, it counted the length). The answer is now the same
/// whether the field is empty or not; so is an arrow key on a secret `<select>` whichever
/// option is chosen.
#[wasm_bindgen_test]
async fn a_key_on_a_secret_field_reports_the_same_whatever_it_holds() {
    use bai::protocol::action::Key;
    let f = Fixture::mount(
        r#"<form><label for=pw>Password</label><input id=pw name=password type=password autocomplete=current-password>
<div id=meter></div>
<label for=exp>Expiry month</label><select id=exp autocomplete=cc-exp-month onchange="document.getElementById('meter').textContent = 'month ' + this.value"><option>01</option><option>02</option><option>12</option></select></form>"#,
    )
    .unwrap();
    run_script(
        "document.getElementById('pw').addEventListener('input', (e) => { e.target.setAttribute('value', e.target.value); document.getElementById('meter').textContent = e.target.value.length > 2 ? 'strong' : 'weak ' + e.target.value.length; }); document.getElementById('pw').addEventListener('keydown', (e) => { if (e.key === 'Backspace' && e.target.value === '') e.preventDefault(); });",
    )
    .unwrap();
    let backspace = Action::PressKey {
        key: Key::Backspace,
        selector: Some(Selector::css("#pw")),
    };
    let pw = f.find("#pw").unwrap();
    let mut answers = Vec::new();
    for value in ["", "abcd"] {
        js_sys::Reflect::set(&pw, &"value".into(), &value.into()).unwrap();
        let _ = bai::dom::observe(0);
        // A key that edits a secret field asks, filled or empty (red team red7, session 20),
        // and after Allow reports alike.
        let asked = perform(&backspace, None, 500).await.unwrap();
        assert_eq!(
            asked["needs_approval"]["reasons"][0]["code"], "password_field",
            "{asked}"
        );
        let hold = asked["needs_approval"]["hold"].as_str().unwrap().to_owned();
        let mut answer = perform(&backspace, Some(&hold), 500).await.unwrap();
        answer.as_object_mut().unwrap().remove("next_ref");
        let changes = bai::dom::observe_changes(0);
        assert_eq!(changes, bai::dom::ObservationDiff::default(), "{value:?}");
        answers.push(answer);
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(
        answers[1]["result"]["effects"],
        serde_json::json!([{"kind": "key_pressed", "key": "Backspace", "default_prevented": false}])
    );
    assert_eq!(answers[1]["result"]["elapsed_ms"], 0);
    // The key did delete (the page saw it).
    assert_eq!(js_sys::Reflect::get(&pw, &"value".into()).unwrap(), "abc");
    // An arrow key on a secret <select>: asked whatever is chosen (the option it moves to
    // depends on the choice), and reported alike after Allow.
    let exp = f.find("#exp").unwrap();
    let arrow = Action::PressKey {
        key: Key::ArrowDown,
        selector: Some(Selector::css("#exp")),
    };
    let mut results = Vec::new();
    for index in [0, 2] {
        js_sys::Reflect::set(&exp, &"selectedIndex".into(), &index.into()).unwrap();
        let answer = perform(&arrow, None, 500).await.unwrap();
        assert_eq!(
            answer["needs_approval"]["reasons"][0]["code"], "unknown_choice",
            "{answer}"
        );
        let hold = answer["needs_approval"]["hold"]
            .as_str()
            .unwrap()
            .to_owned();
        let mut done = perform(&arrow, Some(&hold), 500).await.unwrap();
        done.as_object_mut().unwrap().remove("next_ref");
        results.push(done);
    }
    assert_eq!(results[0], results[1]);
    drop(f);
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

/// The secret field names of pages met before (the chat tab passes them) redact this page's
/// address too: after a login form sent by GET, the next page has no field named like the
/// password's, and `url_contains` must not test the password a letter at a time. The answer
/// names this page's own secret fields (`secret_names`), for the chat tab to keep.
#[wasm_bindgen_test]
async fn known_secret_names_redact_the_address_and_the_answer_names_the_page_s_own() {
    let _f = Fixture::mount(r#"<input type="password" name="pw9"><p>Welcome</p>"#).unwrap();
    run_script("history.replaceState(null, '', location.pathname + '?xq7=hunter2&q=1')").unwrap();
    let wait = serde_json::json!({"type": "wait_for", "payload": {"url_contains": "xq7=h"}});
    let run = |known: Option<&str>| {
        perform_action(
            wait.to_string(),
            "{}".into(),
            Some(100),
            None,
            None,
            known.map(str::to_owned),
        )
    };
    // Not known: `xq7` is no word the rule knows, and the condition holds.
    let plain: Value = serde_json::from_str(&run(None).await.unwrap()).unwrap();
    assert!(plain["result"].is_object(), "{plain}");
    let answer = run(Some(r#"["xq7"]"#)).await.unwrap();
    let known: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(known["error"]["code"], "timeout", "{known}");
    assert!(!answer.contains("hunter2"), "{answer}");
    assert_eq!(known["secret_names"], serde_json::json!(["pw9"]), "{known}");
    run_script("history.replaceState(null, '', location.pathname)").unwrap();
}

/// The fourth red team (session 12): keys on ARIA widgets ran the page's active option with no
/// question (a combobox in a form whose `aria-activedescendant` is "Delete account": ArrowDown,
/// then Enter, judged only the form's harmless "Find"), as did the arrows of a menu, a tree and
/// a menu whose active item lies past the text the review reads. Each key is judged by what it
/// may choose; a search box suggesting "Shoes" and "Shirts" runs, and Escape runs.
#[wasm_bindgen_test]
async fn keys_on_custom_widgets_are_judged_by_the_options_they_may_choose() {
    use bai::protocol::action::Key;
    // Harmless items whose text fills more than the 200 characters read of the menu itself.
    let filler: String = (1..=30)
        .map(|i| format!(r#"<div role="menuitem" tabindex="-1">Move to folder {i}</div>"#))
        .collect();
    // A long list: past the options judged one by one, the rest are read together.
    let countries: String = (1..=300)
        .map(|i| format!(r#"<div role="option" id="c-{i}">Country {i}</div>"#))
        .collect();
    let mut with_delete = countries.replace("Country 250<", "Delete account<");
    with_delete = with_delete.replace(r#"id="c-"#, r#"id="d-"#);
    let f = Fixture::mount(&format!(
        r#"<div role="listbox" id="countries" tabindex="0" aria-label="Country">{countries}</div>
<div role="listbox" id="long" tabindex="0" aria-label="Actions">{with_delete}</div>
<form onsubmit="event.preventDefault(); window.__submitted = (window.__submitted || 0) + 1">
  <input id="combo" role="combobox" aria-label="Account action" aria-expanded="true" aria-controls="combo-list" aria-activedescendant="combo-2">
  <button>Find</button>
</form>
<ul role="listbox" id="combo-list"><li role="option" id="combo-1">Rename account</li><li role="option" id="combo-2">Delete account</li></ul>
<form onsubmit="event.preventDefault()">
  <input id="shop" role="combobox" aria-label="Search the shop" aria-expanded="true" aria-owns="shop-list" aria-activedescendant="shop-1">
  <button>Search</button>
</form>
<ul role="listbox" id="shop-list"><li role="option" id="shop-1">Shoes</li><li role="option" id="shop-2">Shirts</li></ul>
<div role="menu" id="menu" tabindex="0" aria-label="Actions" aria-activedescendant="menu-last">{filler}<div role="menuitem" id="menu-last" tabindex="-1">Delete account</div></div>
<div role="menu" aria-label="More"><div role="menuitem" id="roving" tabindex="0">Rename</div><div role="menuitem" tabindex="-1">Delete account</div></div>
<ul role="tree" aria-label="Files"><li role="treeitem" id="tree-1" tabindex="0">Documents</li><li role="treeitem" tabindex="-1">Delete folder</li></ul>
<table role="grid" aria-label="Invoices"><tr><td id="cell" tabindex="0">Invoice 42</td><td tabindex="-1"><button type="button">Delete</button></td></tr></table>
<table role="grid" aria-label="Prices"><tr><td id="price" tabindex="0">Shoes</td><td tabindex="-1">12 EUR</td></tr></table>"#
    ))
    .unwrap();
    run_script("window.__submitted = 0;").unwrap();
    let press = |css: &str, key: Key| Action::PressKey {
        key,
        selector: Some(Selector::css(css)),
    };
    // Enter chooses the active option: judged as a click on it, not only the form's button.
    assert_eq!(
        question_code(&press("#combo", Key::Enter)).await.as_deref(),
        Some("risky_click")
    );
    assert_eq!(global("__submitted"), 0);
    assert_eq!(
        question_code(&press("#menu", Key::Enter)).await.as_deref(),
        Some("risky_click")
    );
    // Keys that move the active option: any option may come next.
    for (css, key) in [
        ("#combo", Key::ArrowDown),
        ("#combo", Key::ArrowUp),
        ("#roving", Key::ArrowDown),
        ("#roving", Key::Home),
        ("#roving", Key::End),
        ("#roving", Key::PageDown),
        ("#tree-1", Key::ArrowDown),
        ("#long", Key::End),
        ("#cell", Key::ArrowRight),
    ] {
        assert_eq!(
            question_code(&press(css, key)).await.as_deref(),
            Some("unknown_choice"),
            "{css} {key:?}"
        );
    }
    // Escape closes and cancels: it runs.
    assert_eq!(question_code(&press("#roving", Key::Escape)).await, None);
    // Harmless suggestions: no question for the arrows, Home, End, or Enter on "Shoes".
    for key in [Key::ArrowDown, Key::ArrowUp, Key::End, Key::PageDown] {
        assert_eq!(question_code(&press("#shop", key)).await, None, "{key:?}");
    }
    assert_eq!(question_code(&press("#shop", Key::Enter)).await, None);
    assert_eq!(question_code(&press("#countries", Key::End)).await, None);
    assert_eq!(question_code(&press("#price", Key::ArrowRight)).await, None);
    drop(f);
}

/// On a secret list (a PIN picked option by option) which option is active is the secret: a key
/// there asks whatever is active, so whether it asks tells nothing.
#[wasm_bindgen_test]
async fn a_key_on_a_secret_list_asks_whatever_is_active() {
    use bai::protocol::action::Key;
    let f = Fixture::mount(
        r#"<div role="listbox" id="pin" tabindex="0" aria-label="PIN" aria-activedescendant="pin-7"><div role="option" id="pin-7">7</div><div role="option" id="pin-1">1</div></div>"#,
    )
    .unwrap();
    for key in [Key::Enter, Key::Space, Key::ArrowDown, Key::End] {
        let action = Action::PressKey {
            key,
            selector: Some(Selector::css("#pin")),
        };
        let answer = perform(&action, None, 500).await.unwrap();
        cancel_actions();
        let codes: Vec<&str> = answer["needs_approval"]["reasons"]
            .as_array()
            .map(|reasons| reasons.iter().filter_map(|r| r["code"].as_str()).collect())
            .unwrap_or_default();
        assert!(codes.contains(&"unknown_choice"), "{key:?}: {answer}");
    }
    drop(f);
}

/// The fourth red team: a link with `download` saved a file with no question, also when the
/// press landed on a web component's button inside it. Downloading is an effect the user sees
/// first (`downloads_file`).
#[wasm_bindgen_test]
async fn a_press_that_follows_a_download_link_asks() {
    use bai::protocol::action::Key;
    run_script(
        "if (!customElements.get('x-open')) customElements.define('x-open', class extends HTMLElement { constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<button type=button>Open</button>'; } }); \
         if (!customElements.get('x-get')) customElements.define('x-get', class extends HTMLElement { constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<a href=/files/x.csv download>Get the file</a>'; } });",
    )
    .unwrap();
    let f = Fixture::mount(
        r#"<a id="dl" href="/files/report.csv" download>Report</a>
<a id="dl-wrap" href="/files/summary.csv" download="summary.csv"><x-open id="open"></x-open></a>
<x-get id="get"></x-get>"#,
    )
    .unwrap();
    let enter = Action::PressKey {
        key: Key::Enter,
        selector: Some(Selector::css("#dl")),
    };
    // A link in a web component's shadow root, pressed through its host.
    for action in [click("#dl"), enter, click("#open"), click("#get")] {
        let answer = perform(&action, None, 500).await.unwrap();
        let reason = &answer["needs_approval"]["reasons"][0];
        assert_eq!(reason["code"], "downloads_file", "{answer}");
        assert!(
            reason["message"]
                .as_str()
                .unwrap()
                .contains("which saves a file on your computer"),
            "{reason}"
        );
        cancel_actions();
    }
    drop(f);
}
