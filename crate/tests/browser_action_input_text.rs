#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The input_text action: native setter + input/change, contenteditable, select, checkboxes,
//! password rules, read-back verification.

use std::cell::RefCell;
use std::rc::Rc;

use bai::dom::fixture::{Fixture, run_script};
use bai::dom::{ActionError, ActionReport, ExecOptions, execute};
use bai::protocol::{Action, Selector, SelectorKind};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

async fn type_into(
    selector: Selector,
    text: &str,
    timeout_ms: u32,
) -> Result<ActionReport, ActionError> {
    execute(
        &Action::InputText {
            selector,
            text: text.to_owned(),
        },
        &ExecOptions { timeout_ms },
    )
    .await
}

fn value_of(f: &Fixture, css: &str) -> String {
    js_sys::Reflect::get(&f.find(css).unwrap(), &"value".into())
        .unwrap()
        .as_string()
        .unwrap()
}

#[wasm_bindgen_test]
async fn sets_an_input_and_fires_input_and_change() {
    let f = Fixture::mount(r#"<label for="e">Email</label><input id="e" value="old">"#).unwrap();
    let input = f.find("#e").unwrap();
    let log: Rc<RefCell<Vec<String>>> = Rc::default();
    let mut keep = Vec::new();
    for name in ["input", "change"] {
        let log = log.clone();
        let listener = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
            let mut entry = event.type_();
            if let Some(input) = event.dyn_ref::<web_sys::InputEvent>() {
                entry.push_str(&format!(
                    " {} {:?} bubbles:{}",
                    input.input_type(),
                    input.data(),
                    event.bubbles()
                ));
            }
            log.borrow_mut().push(entry);
        });
        input
            .add_event_listener_with_callback(name, listener.as_ref().unchecked_ref())
            .unwrap();
        keep.push(listener);
    }
    let report = type_into(
        Selector::new(SelectorKind::Aria, "Email"),
        "ada@example.com",
        2000,
    )
    .await
    .unwrap();
    assert_eq!(value_of(&f, "#e"), "ada@example.com");
    assert_eq!(
        *log.borrow(),
        [
            "input insertText Some(\"ada@example.com\") bubbles:true",
            "change"
        ]
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        json["effects"][0],
        serde_json::json!({"kind": "value_set", "chars": 15})
    );
    assert_eq!(json["element"], "input#e");
}

#[wasm_bindgen_test]
async fn textarea_label_target_and_empty_text() {
    let f = Fixture::mount(r#"<label for="t">Notes</label><textarea id="t">x</textarea>"#).unwrap();
    type_into(Selector::css("label[for=t]"), "line 1\nline 2", 2000)
        .await
        .unwrap();
    assert_eq!(value_of(&f, "#t"), "line 1\nline 2");
    type_into(Selector::css("#t"), "", 2000).await.unwrap();
    assert_eq!(value_of(&f, "#t"), "");
}

#[wasm_bindgen_test]
async fn contenteditable_uses_insert_text() {
    let f = Fixture::mount(
        r#"<div id="ed" contenteditable="true" aria-label="Message"><p>old text</p></div>"#,
    )
    .unwrap();
    let report = type_into(
        Selector::new(SelectorKind::Aria, "Message"),
        "Hello editor",
        2000,
    )
    .await
    .unwrap();
    assert_eq!(report.effects.len(), 1);
    let text = f.find("#ed").unwrap().text_content().unwrap();
    assert_eq!(text, "Hello editor");
}

#[wasm_bindgen_test]
async fn select_picks_by_label_or_value() {
    let f = Fixture::mount(
        r#"<select id="s" aria-label="Country"><option value="fr">France</option><option value="de">Germany</option><option value="xx" disabled>Nowhere</option></select>"#,
    )
    .unwrap();
    let report = type_into(Selector::css("#s"), "germany", 2000)
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&report).unwrap()["effects"][0]["value"],
        "de"
    );
    assert_eq!(value_of(&f, "#s"), "de");
    type_into(Selector::css("#s"), "fr", 2000).await.unwrap();
    assert_eq!(value_of(&f, "#s"), "fr");
    let err = type_into(Selector::css("#s"), "Spain", 2000)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "option_not_found");
    assert!(
        err.message().contains("France, Germany"),
        "{}",
        err.message()
    );
    let err = type_into(Selector::css("#s"), "Nowhere", 300)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "disabled");
}

#[wasm_bindgen_test]
async fn checkboxes_and_buttons_point_to_click() {
    let _f =
        Fixture::mount(r#"<input type="checkbox" id="c"><input type="submit" id="s">"#).unwrap();
    let err = type_into(Selector::css("#c"), "yes", 2000)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "unsupported_element");
    assert!(err.message().contains("use click"), "{}", err.message());
    let err = type_into(Selector::css("#s"), "yes", 2000)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "unsupported_element");
}

#[wasm_bindgen_test]
async fn password_fields_need_an_explicit_selector() {
    let f = Fixture::mount(
        r#"<input id="user" aria-label="Secret user">
           <input id="pw" type="password" aria-label="Secret code" name="pw" placeholder="Secret code">"#,
    )
    .unwrap();
    // A fuzzy name that happens to hit the password field is refused.
    let mut fuzzy = Selector::new(SelectorKind::Placeholder, "secret");
    let err = type_into(fuzzy.clone(), "s3cr3t-value", 2000)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "password_not_targeted");
    let json = serde_json::to_string(&err).unwrap();
    assert!(!json.contains("s3cr3t-value"));
    assert_eq!(value_of(&f, "#pw"), "");
    // Exact name, id in css, or a selector that says "password" are explicit.
    fuzzy.exact = true;
    fuzzy.value = "Secret code".to_owned();
    type_into(fuzzy, "one", 2000).await.unwrap();
    assert_eq!(value_of(&f, "#pw"), "one");
    let report = type_into(Selector::css("#pw"), "two", 2000).await.unwrap();
    assert!(!serde_json::to_string(&report).unwrap().contains("two"));
    assert_eq!(value_of(&f, "#pw"), "two");
    type_into(Selector::css("input[type=password]"), "three", 2000)
        .await
        .unwrap();
    assert_eq!(value_of(&f, "#pw"), "three");
}

#[wasm_bindgen_test]
async fn a_rewritten_value_is_a_mismatch() {
    let _f = Fixture::mount(r#"<input id="up"><input id="pwm" type="password">"#).unwrap();
    run_script(
        "for (const id of ['up', 'pwm']) document.getElementById(id).addEventListener('input', (e) => { e.target.value = e.target.value.toUpperCase(); });",
    )
    .unwrap();
    let err = type_into(Selector::css("#up"), "abc", 2000)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "value_mismatch");
    assert!(
        err.message().contains("\"ABC\" instead of \"abc\""),
        "{}",
        err.message()
    );
    let err = type_into(Selector::css("#pwm"), "hunter", 2000)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "value_mismatch");
    let json = serde_json::to_string(&err).unwrap();
    assert!(!json.to_lowercase().contains("hunter"), "{json}");
}

#[wasm_bindgen_test]
async fn waits_for_enabled_and_rejects_read_only() {
    let f = Fixture::mount(r#"<input id="later" disabled><input id="ro" readonly value="fixed">"#)
        .unwrap();
    run_script("setTimeout(() => document.getElementById('later').disabled = false, 250)").unwrap();
    let report = type_into(Selector::css("#later"), "now", 3000)
        .await
        .unwrap();
    assert!(report.attempts > 1);
    assert_eq!(value_of(&f, "#later"), "now");
    let err = type_into(Selector::css("#ro"), "x", 200).await.unwrap_err();
    assert_eq!(err.code(), "read_only");
    assert_eq!(value_of(&f, "#ro"), "fixed");
}

#[wasm_bindgen_test]
async fn a_framework_value_override_is_bypassed() {
    // Like React's value tracker: an instance-level `value` property that swallows writes.
    let f = Fixture::mount(r#"<input id="tracked">"#).unwrap();
    run_script(
        "const el = document.getElementById('tracked'); const proto = Object.getPrototypeOf(el); const desc = Object.getOwnPropertyDescriptor(proto, 'value'); window.__trackedSeen = []; Object.defineProperty(el, 'value', { configurable: true, get() { return desc.get.call(this); }, set(v) { window.__trackedSeen.push('instance'); desc.set.call(this, v); } }); el.addEventListener('input', () => window.__trackedSeen.push('input:' + desc.get.call(el)));",
    )
    .unwrap();
    type_into(Selector::css("#tracked"), "typed", 2000)
        .await
        .unwrap();
    assert_eq!(value_of(&f, "#tracked"), "typed");
    let seen = js_sys::Reflect::get(&js_sys::global(), &"__trackedSeen".into()).unwrap();
    let seen: Vec<String> = js_sys::Array::from(&seen)
        .iter()
        .map(|v| v.as_string().unwrap())
        .collect();
    assert_eq!(seen, ["input:typed"]);
}

/// A sectioned field built by hand (no library): two contenteditable spinbuttons in a group that
/// read the key typed into them, select their text on focus and move focus on when full; next to
/// it, outside the group, a lone contenteditable spinbutton.
const SECTIONED: &str = r#"<div id="seg" role="group" aria-label="Time"><span role="spinbutton" contenteditable="true" aria-label="Hours">--</span>:<span role="spinbutton" contenteditable="true" aria-label="Minutes">--</span></div><div id="lone" role="spinbutton" contenteditable="true" aria-label="Lone">5</div>"#;

const SECTIONED_SCRIPT: &str = r#"
window.__segLog = [];
window.__segCancel = false;
const parts = [...document.querySelectorAll('#seg [role=spinbutton]')];
const typed = parts.map(() => '');
const show = (part, i) => { part.textContent = typed[i].padStart(2, '-'); };
parts.forEach((part, i) => {
  for (const kind of ['keydown', 'keypress', 'beforeinput', 'input', 'keyup']) {
    part.addEventListener(kind, (e) => window.__segLog.push(`${kind}:${i}:${e.key ?? e.data}`));
  }
  part.addEventListener('focus', () => getSelection().selectAllChildren(part));
  part.addEventListener('beforeinput', (e) => { if (window.__segCancel) e.preventDefault(); });
  part.addEventListener('input', () => {
    const key = part.textContent;
    if (/^[0-9]$/.test(key)) typed[i] = (typed[i] + key).slice(-2);
    show(part, i);
    getSelection().selectAllChildren(part);
    if (/^[0-9]$/.test(key) && typed[i].length === 2 && parts[i + 1]) parts[i + 1].focus();
  });
});
"#;

#[wasm_bindgen_test]
async fn a_sectioned_field_is_typed_key_by_key_and_checked_whole() {
    let f = Fixture::mount(SECTIONED).unwrap();
    run_script(SECTIONED_SCRIPT).unwrap();
    let log = || -> Vec<String> {
        let value = js_sys::Reflect::get(&js_sys::global(), &"__segLog".into()).unwrap();
        js_sys::Array::from(&value)
            .iter()
            .map(|v| v.as_string().unwrap())
            .collect()
    };
    // A lone contenteditable spinbutton is an ordinary editor: its text is replaced at once.
    type_into(Selector::new(SelectorKind::Aria, "Lone"), "7", 2000)
        .await
        .unwrap();
    assert_eq!(f.find("#lone").unwrap().text_content().unwrap(), "7");

    let report = type_into(Selector::new(SelectorKind::Aria, "Hours"), "12:34", 2000)
        .await
        .unwrap();
    assert_eq!(report.effects.len(), 1);
    assert_eq!(f.find("#seg").unwrap().text_content().unwrap(), "12:34");
    let log = log();
    // Each key as a keyboard delivers it; the second digit's handler moved focus, so its keyup
    // goes to the Minutes part, where the rest is typed (the `:` is ignored there).
    assert_eq!(
        log[..10],
        [
            "keydown:0:1",
            "keypress:0:1",
            "beforeinput:0:1",
            "input:0:1",
            "keyup:0:1",
            "keydown:0:2",
            "keypress:0:2",
            "beforeinput:0:2",
            "input:0:2",
            "keyup:1:2",
        ]
    );
    assert_eq!(log[10], "keydown:1::");
    assert_eq!(log.len(), 25, "{log:?}");

    // A field that refuses the keys: nothing is put back or forced, and the error says what the
    // whole field shows.
    js_sys::Reflect::set(&js_sys::global(), &"__segCancel".into(), &JsValue::TRUE).unwrap();
    let err = type_into(Selector::new(SelectorKind::Aria, "Hours"), "56:78", 2000)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "value_mismatch");
    assert!(err.message().contains("\"12:34\""), "{}", err.message());
    assert_eq!(f.find("#seg").unwrap().text_content().unwrap(), "12:34");
}
