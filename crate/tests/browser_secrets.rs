#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! Secret fields (`dom::secret`): the classifier's signals, the refusal of every selector,
//! assertion and wait that could test a secret field's value (`secret_field`), what observe,
//! extract, hints and errors show instead, the content patterns, the log's structural
//! redaction, and a real React controlled password field.

use bai::dom::address::{page_address, redact_address};
use bai::dom::fixture::{Fixture, run_script};
use bai::dom::redact::{is_iban, redact_secrets};
use bai::dom::secret::{
    SIGNALS, SecretKind, autocomplete_kind, classify, packed_signals, words_kind,
};
use bai::dom::{Effect, ExecOptions, execute, observe};
use bai::protocol::action::{ElementState, Expectation, WaitCondition};
use bai::protocol::{Action, Selector, SelectorKind};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The `<input>` inside the open shadow root of the element `host` finds.
fn input_in_shadow_of(f: &Fixture, host: &str) -> web_sys::Element {
    f.find(host)
        .unwrap()
        .shadow_root()
        .unwrap()
        .query_selector("input")
        .unwrap()
        .unwrap()
}

fn opts() -> ExecOptions {
    ExecOptions { timeout_ms: 50 }
}

fn sel(kind: SelectorKind, value: &str) -> Selector {
    Selector::new(kind, value)
}

async fn code_of(action: Action) -> String {
    match execute(&action, &opts()).await {
        Ok(_) => "ok".to_owned(),
        Err(error) => error.code().to_owned(),
    }
}

fn assert_action(selector: Selector, expect: Expectation) -> Action {
    Action::Assert { selector, expect }
}

// ---- The classifier ------------------------------------------------------------------------

#[wasm_bindgen_test]
fn words_and_autocomplete_tokens_name_the_kind() {
    assert_eq!(words_kind("cardCvc"), Some(SecretKind::SecurityCode));
    assert_eq!(words_kind("Security code"), Some(SecretKind::SecurityCode));
    assert_eq!(words_kind("otp-input"), Some(SecretKind::OneTimeCode));
    assert_eq!(words_kind("Enter your PIN"), Some(SecretKind::Pin));
    assert_eq!(words_kind("Recovery code"), Some(SecretKind::RecoveryCode));
    assert_eq!(words_kind("backup_code_1"), Some(SecretKind::RecoveryCode));
    assert_eq!(words_kind("IBAN"), Some(SecretKind::Iban));
    assert_eq!(words_kind("API key"), Some(SecretKind::Token));
    assert_eq!(words_kind("ssn"), Some(SecretKind::NationalId));
    assert_eq!(words_kind("Mot de passe"), Some(SecretKind::Password));
    assert_eq!(
        words_kind("Kartenprüfnummer"),
        Some(SecretKind::SecurityCode)
    );
    // Whole words only: "spinner", "opinion", "pinned" are not PINs.
    assert_eq!(words_kind("spinner opinion pinned"), None);
    assert_eq!(words_kind("Email"), None);
    assert_eq!(words_kind("Full name"), None);
    assert_eq!(
        autocomplete_kind("section-pay billing cc-csc"),
        Some(SecretKind::SecurityCode)
    );
    assert_eq!(
        autocomplete_kind("one-time-code"),
        Some(SecretKind::OneTimeCode)
    );
    assert_eq!(
        autocomplete_kind("CC-EXP-MONTH"),
        Some(SecretKind::CardExpiry)
    );
    assert_eq!(autocomplete_kind("email"), None);
}

#[wasm_bindgen_test]
fn fields_are_classified_by_structure() {
    let f = Fixture::mount(
        r#"<input id="a" type="password">
        <input id="b" autocomplete="cc-number">
        <input id="c" name="cvc">
        <label for="d">Recovery code</label><input id="d">
        <label>Security code <input id="e"></label>
        <span id="lbl">One-time code</span><input id="g" aria-labelledby="lbl">
        <input id="h" type="hidden" value="x">
        <div id="i" contenteditable="true" aria-label="PIN"></div>
        <select id="j" autocomplete="cc-exp-month"><option>01</option></select>
        <textarea id="k" placeholder="Your API key"></textarea>
        <input id="n" name="email"><label>Notes <textarea id="m">my pin is 1234</textarea></label>
        <input id="o" type="checkbox" name="pin">"#,
    )
    .unwrap();
    let kind = |id: &str| classify(&f.find(&format!("#{id}")).unwrap());
    assert_eq!(kind("a"), Some(SecretKind::Password));
    assert_eq!(kind("b"), Some(SecretKind::CardNumber));
    assert_eq!(kind("c"), Some(SecretKind::SecurityCode));
    assert_eq!(kind("d"), Some(SecretKind::RecoveryCode));
    assert_eq!(kind("e"), Some(SecretKind::SecurityCode));
    assert_eq!(kind("g"), Some(SecretKind::OneTimeCode));
    assert_eq!(kind("h"), Some(SecretKind::HiddenValue));
    assert_eq!(kind("i"), Some(SecretKind::Pin));
    assert_eq!(kind("j"), Some(SecretKind::CardExpiry));
    assert_eq!(kind("k"), Some(SecretKind::Token));
    assert_eq!(kind("n"), None);
    // The field's own text never classifies it (its label's text leaves the field out).
    assert_eq!(kind("m"), None);
    assert_eq!(kind("o"), None);
}

// ---- Content patterns ------------------------------------------------------------------------

#[wasm_bindgen_test]
fn content_patterns_redact_cards_ibans_and_tokens_in_any_case() {
    assert_eq!(
        redact_secrets("card 4111-1111-1111-1111 ok"),
        "card [redacted card number] ok"
    );
    assert!(is_iban("DE89370400440532013000"));
    assert!(!is_iban("DE89370400440532013001"));
    assert_eq!(
        redact_secrets("pay to DE89 3704 0044 0532 0130 00 today"),
        "pay to [redacted iban] today"
    );
    assert_eq!(redact_secrets("GB82WEST12345698765432"), "[redacted iban]");
    assert_eq!(
        redact_secrets("code 9f86d081884c7d659a2feaa0c55ad015 used"),
        "code [redacted token] used"
    );
    assert_eq!(
        redact_secrets("RECOVERY 7K2M-9QX4-3HV8-PL5N-W2R6-T8Y3"),
        "RECOVERY [redacted token]"
    );
    assert_eq!(
        redact_secrets("see /reset/8f14e45fceea167a5a36dedd4bea2543?x=1"),
        "see /reset/[redacted token]?x=1"
    );
    // Ordinary words, short numbers, addresses and slugs stay.
    for kept in [
        "Order 12345 shipped",
        "http://127.0.0.1:8080/shop/checkout.html",
        "transaction-2024-summary-report",
        "Blue mug, 2 items",
    ] {
        assert_eq!(redact_secrets(kept), kept);
    }
}

// ---- No oracle ---------------------------------------------------------------------------

const LOGIN: &str = r#"<form id="f" aria-label="Sign in">
  <label for="pw">Password</label><input id="pw" type="password" name="pw">
  <label for="cvc">CVC</label><input id="cvc" name="cvc" autocomplete="cc-csc" data-value="">
  <label for="rc">Recovery code</label><textarea id="rc"></textarea>
  <label for="em">Email</label><input id="em" name="email" value="ann@x.io">
  <button type="button" id="go">Sign in</button>
</form>"#;

/// Fills the secret fields as React would: property and mirrored attributes, textarea text.
fn fill_secrets(pw: &str, cvc: &str, rc: &str) {
    run_script(&format!(
        "(() => {{ const pw = document.getElementById('pw'); pw.value = {pw:?}; pw.setAttribute('value', {pw:?});
          const cvc = document.getElementById('cvc'); cvc.value = {cvc:?}; cvc.setAttribute('value', {cvc:?}); cvc.dataset.value = {cvc:?};
          const rc = document.getElementById('rc'); rc.textContent = {rc:?}; rc.value = {rc:?}; }})()"
    ))
    .unwrap();
}

/// The selector guard reads a CSS selector once as written and asks the browser's parser only
/// when that reading tests no value (session 12): refused, passed, unparsable and XPath
/// selectors in turn each get their own answer, twice over.
#[wasm_bindgen_test]
fn the_selector_guard_reads_each_selector_on_its_own() {
    let _f = Fixture::mount(LOGIN).unwrap();
    let root = bai::dom::selector::QueryRoot::current().unwrap();
    let guard = |selector: Selector| {
        bai::dom::secret::guard_selector(&root, &selector).map_err(|error| error.code())
    };
    for _ in 0..2 {
        assert_eq!(
            guard(Selector::css("#pw:placeholder-shown")),
            Err("secret_field")
        );
        assert_eq!(guard(Selector::css("#pw")), Ok(()));
        assert_eq!(guard(Selector::css("#f  >  #pw")), Ok(()));
        // Unparsable: no value test as written, nothing read back; it fails when evaluated.
        assert_eq!(guard(Selector::css("#pw[[")), Ok(()));
        assert_eq!(guard(Selector::css("#pw:is(:checked")), Err("secret_field"));
        assert_eq!(
            guard(Selector::css(r#"input[value^="h"]"#)),
            Err("secret_field")
        );
        assert_eq!(guard(Selector::css("form button")), Ok(()));
        let xpath = |value: &str| Selector {
            kind: SelectorKind::Xpath,
            ..Selector::css(value)
        };
        assert_eq!(guard(xpath("//input[@value='h']")), Err("secret_field"));
        assert_eq!(guard(xpath("//input[@name='pw']")), Ok(()));
    }
}

#[wasm_bindgen_test]
async fn selectors_that_could_test_a_secret_value_are_refused() {
    let _f = Fixture::mount(LOGIN).unwrap();
    fill_secrets("hunter2", "123", "ABCD-EFGH");
    for css in [
        r#"input[value^="h"]"#,
        r#"form:has(input[value^="h"])"#,
        r#"#f:not(:has([v\61lue^="x"]))"#,
        r#"input[data-value="123"]"#,
        "#pw:placeholder-shown",
        "textarea:empty",
        "input[value]",
        // Ways past a scanner that is not the browser's tokenizer (red team, session 11): a
        // comment where the browser sees nothing, an escaped quote that opens no string,
        // a pseudo-class nobody listed.
        "#pw:/**/placeholder-shown",
        r#"#pw:not(.\"):placeholder-shown:not(.\")"#,
        r#"#pw:not(.\")[value^="h"]:not(.\")"#,
        "#pw:dir(ltr)",
        "#pw:-webkit-autofill",
        "#pw:is(url(/*), *):placeholder-shown",
        "#pw:not([title=\"\\\r\n\"]):placeholder-shown:not([title=\"a\"])",
    ] {
        let click = Action::Click {
            selector: Selector::css(css),
        };
        assert_eq!(code_of(click).await, "secret_field", "{css}");
        let exists = assert_action(Selector::css(css), Expectation::Exists);
        assert_eq!(code_of(exists).await, "secret_field", "{css}");
        let wait = Action::WaitFor {
            until: WaitCondition::Element {
                selector: Selector::css(css),
                state: ElementState::Attached,
            },
        };
        assert_eq!(code_of(wait).await, "secret_field", "{css}");
        let extract = Action::Extract {
            selector: Selector::css(css),
            attribute: None,
            max_chars: None,
        };
        assert_eq!(code_of(extract).await, "secret_field", "{css}");
    }
    for xpath in [
        "//input[starts-with(@value,'h')]",
        "//textarea[contains(.,'AB')]",
        "//*[text()='ABCD-EFGH']",
        "//input[@*='123']",
        "//textarea['ABCD-EFGH'=.]",
        "//textarea[(.)='ABCD-EFGH']",
        "//textarea[contains('ABCD-EFGH', .)]",
        "//textarea[string-length(.) > 3]",
        "//form[id(.)]",
        "//textarea[string-length() > 3]",
        "//textarea[starts-with(normalize-space(), 'AB')]",
    ] {
        let exists = assert_action(sel(SelectorKind::Xpath, xpath), Expectation::Exists);
        assert_eq!(code_of(exists).await, "secret_field", "{xpath}");
    }
    // Structural selectors still work.
    let ok = assert_action(Selector::css(r#"input[name="email"]"#), Expectation::Exists);
    assert_eq!(code_of(ok).await, "ok");
    let ok = assert_action(
        sel(SelectorKind::Xpath, "//input[@name='cvc']"),
        Expectation::Exists,
    );
    assert_eq!(code_of(ok).await, "ok");
    let ok = assert_action(
        Selector::css("#em"),
        Expectation::ValueEquals {
            value: "ann@x.io".to_owned(),
        },
    );
    assert_eq!(code_of(ok).await, "ok");
}

#[wasm_bindgen_test]
async fn text_aria_and_label_selectors_never_match_a_secret_value() {
    let _f = Fixture::mount(
        r#"<label>Recovery code <textarea id="rc">ZXCV-9876</textarea></label>
        <label id="wrap">Security code <input id="cvc" autocomplete="cc-csc" value="321"></label>
        <div role="button" aria-labelledby="cvc" id="echo">x</div>"#,
    )
    .unwrap();
    for (kind, value) in [
        (SelectorKind::Text, "ZXCV"),
        (SelectorKind::Aria, "ZXCV"),
        (SelectorKind::Label, "ZXCV"),
        (SelectorKind::Aria, "321"),
        (SelectorKind::Label, "Recovery code ZXCV"),
    ] {
        let action = assert_action(sel(kind, value), Expectation::Exists);
        assert_eq!(
            code_of(action).await,
            "assertion_failed",
            "{kind:?} {value}"
        );
    }
    // The fields are still found by their labels.
    let found = assert_action(
        sel(SelectorKind::Label, "Recovery code"),
        Expectation::Exists,
    );
    assert_eq!(code_of(found).await, "ok");
}

#[wasm_bindgen_test]
async fn assertions_and_waits_on_secret_values_are_refused() {
    let _f = Fixture::mount(LOGIN).unwrap();
    fill_secrets("hunter2", "123", "ABCD-EFGH");
    for (css, expect) in [
        (
            "#pw",
            Expectation::ValueEquals {
                value: "hunter2".to_owned(),
            },
        ),
        (
            "#cvc",
            Expectation::ValueEquals {
                value: "1".to_owned(),
            },
        ),
        (
            "#cvc",
            Expectation::TextContains {
                value: "1".to_owned(),
            },
        ),
        (
            "#rc",
            Expectation::TextEquals {
                value: "ABCD-EFGH".to_owned(),
            },
        ),
    ] {
        let err = execute(&assert_action(Selector::css(css), expect), &opts())
            .await
            .unwrap_err();
        assert_eq!(err.code(), "secret_field", "{css}");
        assert!(!err.message().contains("hunter2") && !err.message().contains("ABCD"));
    }
    // The page's text includes the secret textarea's: a text wait is refused.
    let wait = Action::WaitFor {
        until: WaitCondition::Text {
            text: "ABCD".to_owned(),
        },
    };
    assert_eq!(code_of(wait).await, "secret_field");
}

#[wasm_bindgen_test]
async fn observe_extract_and_errors_show_no_secret() {
    let _f = Fixture::mount(LOGIN).unwrap();
    fill_secrets("hunter2", "123", "ABCD-EFGH");
    let observation = observe(60);
    let lines = observation.elements.join("\n");
    assert!(!lines.contains("hunter2") && !lines.contains("ABCD") && !lines.contains("\"123\""));
    assert!(
        lines.contains(r#"textbox "Password" value=<hidden>"#),
        "{lines}"
    );
    assert!(
        lines.contains(r#"textbox "CVC" value=<hidden> secret="card security code""#),
        "{lines}"
    );
    assert!(
        lines.contains(r#"textbox "Recovery code" value=<hidden> secret="recovery code""#),
        "{lines}"
    );
    assert!(lines.contains(r#"value="ann@x.io""#));
    // Empty or filled: the same line.
    fill_secrets("", "", "");
    assert_eq!(observe(60).elements.join("\n"), lines);
    fill_secrets("hunter2", "123", "ABCD-EFGH");

    for (css, attribute, shown) in [
        ("#pw", None, "[redacted password]"),
        ("#cvc", Some("value"), "[redacted security code]"),
        ("#cvc", Some("data-value"), "[redacted security code]"),
        ("#rc", None, "[redacted recovery code]"),
        ("#cvc", Some("name"), "cvc"),
    ] {
        let report = execute(
            &Action::Extract {
                selector: Selector::css(css),
                attribute: attribute.map(str::to_owned),
                max_chars: None,
            },
            &opts(),
        )
        .await
        .unwrap();
        assert_eq!(
            serde_json::to_value(&report).unwrap()["data"],
            serde_json::json!([shown]),
            "{css} {attribute:?}"
        );
    }
    // The form's own text leaves the textarea out.
    let report = execute(
        &Action::Extract {
            selector: Selector::css("#f"),
            attribute: None,
            max_chars: None,
        },
        &opts(),
    )
    .await
    .unwrap();
    let text = serde_json::to_string(&report).unwrap();
    assert!(!text.contains("ABCD"), "{text}");
    // An ambiguous match lists candidates without secret text.
    let err = execute(
        &Action::Click {
            selector: Selector::css("form, textarea"),
        },
        &opts(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "ambiguous");
    assert!(!err.message().contains("ABCD"), "{}", err.message());
}

/// A same-origin frame is another realm: its elements fail `instanceof` against the module's
/// constructors, so every check that cast with `dyn_ref` missed them (a field masked by CSS, a
/// code box whose sibling says one-time code, the page's list of fields).
#[wasm_bindgen_test]
async fn fields_in_a_same_origin_frame_are_found_secret() {
    // Ids of their own: a field found secret is remembered by its id for the whole page.
    let _f = Fixture::mount(
        r#"<iframe id="fr" srcdoc="<form id='frame-f'><label>Backup <input id='frame-m' style='-webkit-text-security: disc' value='hunter2'></label><div><input id='frame-o1' maxlength='1' autocomplete='one-time-code' value='4'><input id='frame-o2' maxlength='1' value='8'></div></form>"></iframe>"#,
    )
    .unwrap();
    // The frame loads on its own: an extract waits for its last field to be there.
    let loaded = Action::Extract {
        selector: Selector::css("#frame-o2"),
        attribute: Some("id".to_owned()),
        max_chars: None,
    };
    execute(&loaded, &ExecOptions { timeout_ms: 3000 })
        .await
        .unwrap();
    let lines = observe(60).elements.join("\n");
    assert!(!lines.contains("hunter2"), "{lines}");
    assert!(!lines.contains("\"8\""), "{lines}");
    for css in ["#frame-m", "#frame-o2"] {
        let report = execute(
            &Action::Extract {
                selector: Selector::css(css),
                attribute: Some("value".to_owned()),
                max_chars: None,
            },
            &opts(),
        )
        .await
        .unwrap();
        let text = serde_json::to_string(&report).unwrap();
        assert!(
            !text.contains("hunter2") && !text.contains("\"8\""),
            "{css}: {text}"
        );
    }
    for css in [
        "#frame-m[value^='h']",
        "#frame-o2[value='8']",
        "#frame-f:has(#frame-m[value^='h'])",
    ] {
        let exists = assert_action(Selector::css(css), Expectation::Exists);
        assert_eq!(code_of(exists).await, "secret_field", "{css}");
    }
}

#[wasm_bindgen_test]
fn the_log_redacts_by_structure() {
    let event = r#"{"kind":"rejected","excerpt":"BAI_ACTION {\"type\":\"input_text\",\"payload\":{\"t\\u0065xt\":\"hunter2\"}}","payload":{"nested":[{"t\u0065xt":"hunter3"}]},"note":"card 4111 1111 1111 1111"}"#;
    let logged = bai::bindings::redact_log_event(event);
    assert!(!logged.contains("hunter2"), "{logged}");
    assert!(!logged.contains("hunter3"), "{logged}");
    assert!(!logged.contains("4111"), "{logged}");
    assert!(logged.contains("rejected"));
    // BAI's own identifiers (UUID workflow ids) are kept.
    let ids = bai::bindings::redact_log_event(
        r#"{"kind":"approved","workflow_id":"762916a2-42bb-4a17-9874-987844bcf28d","by":"user"}"#,
    );
    assert!(
        ids.contains("762916a2-42bb-4a17-9874-987844bcf28d"),
        "{ids}"
    );
}

// ---- A real React controlled password field --------------------------------------------

const REACT_BUNDLE: &str = include_str!("../../tests/fixtures/build/react-login.js");

#[wasm_bindgen_test]
async fn a_react_controlled_password_is_never_an_oracle() {
    let f = Fixture::mount(r#"<div id="react-root"></div>"#).unwrap();
    run_script(REACT_BUNDLE).unwrap();
    let mount: js_sys::Function = js_sys::Reflect::get(&js_sys::global(), &"__mountLogin".into())
        .unwrap()
        .dyn_into()
        .unwrap();
    let unmount: js_sys::Function = mount
        .call1(&JsValue::NULL, &f.find("#react-root").unwrap())
        .unwrap()
        .dyn_into()
        .unwrap();
    // Typing into the password field (explicitly named) still works.
    execute(
        &Action::InputText {
            selector: Selector::css("input[type=password]"),
            text: "s3cretPass".to_owned(),
        },
        &ExecOptions::default(),
    )
    .await
    .unwrap();
    gloo_timers::future::TimeoutFuture::new(30).await;
    let field = f.find("input[type=password]").unwrap();
    assert_eq!(
        js_sys::Reflect::get(&field, &"value".into()).unwrap(),
        JsValue::from_str("s3cretPass")
    );
    for css in [
        r#"input[value^="s"]"#,
        r#"form:has(input[value^="s3"])"#,
        r#"input[type=password]:not([value=""])"#,
    ] {
        let exists = assert_action(Selector::css(css), Expectation::Exists);
        assert_eq!(code_of(exists).await, "secret_field", "{css}");
    }
    let value = assert_action(
        Selector::css("input[type=password]"),
        Expectation::ValueEquals {
            value: "s3cretPass".to_owned(),
        },
    );
    assert_eq!(code_of(value).await, "secret_field");
    let lines = observe(60).elements.join("\n");
    assert!(!lines.contains("s3cret"), "{lines}");
    assert!(lines.contains("value=<hidden>"), "{lines}");
    unmount.call0(&JsValue::NULL).unwrap();
}

// ---- Held actions' typed text stays off the disk ---------------------------------------------

#[wasm_bindgen_test]
fn held_typed_text_is_split_off_the_saved_state_and_put_back() {
    use bai::bindings::held_text::{put_back_held_actions, split_held_texts};
    use bai::protocol::{Decision, Engine, Message, Role};
    let handshake = r#"BAI_HANDSHAKE {"protocol":"BAI/0.2","workflow_id":"wf-held","state":"awaiting_extension_ack"}"#;
    // (The engine refuses keys written with escapes; the split works on the parsed state.)
    let typed = r##"BAI_ACTION {"protocol":"BAI/0.2","workflow_id":"wf-held","action_id":1,"type":"input_text","payload":{"selector":"#pw","text":"hunter2-held"}}"##;
    let mut engine = Engine::new();
    engine.observe(&[Message::new(
        Role::Assistant,
        format!("{handshake}\n{typed}"),
    )]);
    let state = engine.save().unwrap();
    assert!(state.contains("hunter2-held"), "the engine holds it");
    let (on_disk, texts) = split_held_texts(&state).unwrap();
    assert!(!on_disk.contains("hunter2-held"), "{on_disk}");
    assert!(
        serde_json::to_string(&texts)
            .unwrap()
            .contains("hunter2-held")
    );

    // Restored with the texts: the held action runs with its text after Allow.
    let mut restored: serde_json::Value = serde_json::from_str(&on_disk).unwrap();
    put_back_held_actions(&mut restored, &texts);
    let mut engine = Engine::restore(&restored.to_string()).unwrap();
    let decisions = engine
        .approve("wf-held", "n_0123456789abcdef0123456789abcdef")
        .unwrap();
    let typed_back = decisions.iter().any(|d| {
        matches!(d, Decision::Execute { action: bai::protocol::Action::InputText { text, .. }, .. } if text == "hunter2-held")
    });
    assert!(typed_back, "{decisions:?}");

    // Without them (the browser restarted): the held action is dropped, never run empty.
    let mut restored: serde_json::Value = serde_json::from_str(&on_disk).unwrap();
    put_back_held_actions(&mut restored, &serde_json::Map::new());
    let mut engine = Engine::restore(&restored.to_string()).unwrap();
    let decisions = engine
        .approve("wf-held", "n_0123456789abcdef0123456789abcdef")
        .unwrap();
    assert!(
        !decisions
            .iter()
            .any(|d| matches!(d, Decision::Execute { .. })),
        "{decisions:?}"
    );
}

/// The per-element check the `aria` engine makes on the names that matched
/// (`SecretScan::for_name_of`) answers as the whole page's scan, for every element: fields
/// inside the element (light DOM, a shadow root below it, nested shadow roots), and
/// `aria-labelledby` / `aria-describedby` targets that are, contain, or sit inside a secret
/// field.
#[wasm_bindgen_test]
fn per_element_secret_check_answers_as_the_page_scan() {
    let f = Fixture::mount(
        r#"<button id="light">Pay <input type="password" value="hunter2"></button>
        <div role="button" id="host-wrap"><span id="host"></span></div>
        <div role="button" id="nested-wrap"><span id="outer"></span></div>
        <div contenteditable="true" aria-label="PIN" id="editor"><p id="para">1234</p></div>
        <div role="button" aria-labelledby="para" id="by-para">x</div>
        <div id="box"><textarea placeholder="API key">k</textarea></div>
        <div role="button" aria-describedby="nothing box" id="by-box">y</div>
        <input id="cvc" autocomplete="cc-csc" value="321">
        <div role="button" aria-labelledby="cvc" id="by-field">z</div>
        <div role="button" aria-labelledby="plain" id="by-plain">w</div><span id="plain">Plain</span>
        <button id="harmless">Save <input name="email" value="a@b.c"></button>"#,
    )
    .unwrap();
    let open = web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open);
    let host = f.find("#host").unwrap();
    host.attach_shadow(&open)
        .unwrap()
        .set_inner_html(r#"Card <input autocomplete="cc-number" value="4111">"#);
    let outer = f.find("#outer").unwrap();
    let outer_root = outer.attach_shadow(&open).unwrap();
    outer_root.set_inner_html(r#"<section><span id="inner"></span></section>"#);
    let inner = outer_root.get_element_by_id("inner").unwrap();
    inner
        .attach_shadow(&open)
        .unwrap()
        .set_inner_html(r#"<input name="otp" value="998877">"#);

    let root = bai::dom::selector::QueryRoot::current().unwrap();
    let walked = root.walk();
    let page = bai::dom::secret::SecretScan::of_walked(&walked);
    let mut may_include = Vec::new();
    for element in &walked.elements {
        let whole = page.name_may_include_secret(element);
        let own = bai::dom::secret::SecretScan::for_name_of(&walked, element)
            .name_may_include_secret(element);
        assert_eq!(own, whole, "{}", element.outer_html());
        if whole && !element.id().is_empty() {
            may_include.push(element.id());
        }
    }
    // The page has cases on both sides (else the comparison above proves little).
    for id in [
        "light",
        "host-wrap",
        "host",
        "nested-wrap",
        "outer",
        "inner",
        "by-para",
        "box",
        "by-box",
        "by-field",
    ] {
        assert!(
            may_include.contains(&id.to_owned()),
            "{id}: {may_include:?}"
        );
    }
    // A field's own name never counts it (`contains_secret` is about fields inside).
    for id in ["by-plain", "plain", "harmless", "para", "cvc", "editor"] {
        assert!(!may_include.contains(&id.to_owned()), "{id}");
    }
}

/// The `aria` and `role` engines check secret fields only for the names that matched: a name
/// made of a secret field's value inside a shadow root (two levels down) still never matches.
#[wasm_bindgen_test]
fn aria_and_role_never_match_a_name_carrying_a_secret_in_a_shadow_root() {
    let f =
        Fixture::mount(r#"<div role="button" id="wrap"><span id="outer"></span></div>"#).unwrap();
    let open = web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open);
    let outer = f.find("#outer").unwrap();
    let outer_root = outer.attach_shadow(&open).unwrap();
    outer_root.set_inner_html(r#"Code <span id="inner"></span>"#);
    let inner = outer_root.get_element_by_id("inner").unwrap();
    inner
        .attach_shadow(&open)
        .unwrap()
        .set_inner_html(r#"<input name="otp" value="998877">"#);
    let found = |value: &str| {
        let root = bai::dom::selector::QueryRoot::current().unwrap();
        let aria = bai::dom::selector::query_all(&root, &sel(SelectorKind::Aria, value))
            .unwrap()
            .len();
        let mut role = sel(SelectorKind::Role, "button");
        role.name = Some(value.to_owned());
        let role = bai::dom::selector::query_all(&root, &role).unwrap().len();
        assert_eq!(aria, role, "{value}");
        aria
    };
    assert_eq!(found("998877"), 0);
    assert_eq!(found("Code"), 0);
    // The same structure without a secret field matches.
    inner
        .shadow_root()
        .unwrap()
        .set_inner_html(r#"<input name="email" value="998877">"#);
    assert_eq!(found("Code 998877"), 1);
}

/// A name can reach a secret field by more paths than "contains it" and `aria-labelledby`:
/// a slot rendering a light-DOM field, `aria-owns` (also from an `aria-labelledby` target),
/// the `aria-labeledby` misspelling accname honours, a `<label for>` with an embedded field
/// (step 2C), an element inside a secret editor, and a secret editor named from its own
/// content. None may match `aria` / `role` by the secret's value, nor show it in `observe`:
/// the accessible-name computation itself withholds any name that reaches a secret.
#[wasm_bindgen_test]
fn names_that_reach_a_secret_by_any_accname_path_never_match() {
    let otp = r#"autocomplete="one-time-code" value="998877""#;
    let cases = [
        format!(r#"<span id="h"><input {otp}></span>"#),
        format!(r#"<div role="button" aria-owns="o">Code</div><input id="o" {otp}>"#),
        format!(
            r#"<div role="button" aria-labelledby="l">x</div><span id="l" aria-owns="o">Code</span><input id="o" {otp}>"#
        ),
        format!(r#"<div role="button" aria-labeledby="o">x</div><input id="o" {otp}>"#),
        format!(r#"<label for="b">Code <input {otp}></label><button id="b"></button>"#),
        r#"<div contenteditable="true" aria-label="PIN"><button>998877</button></div>"#.to_owned(),
        r#"<div contenteditable="true" id="otp" role="button">998877</div>"#.to_owned(),
        r#"<button>Code <span contenteditable="true" id="cvv">998877</span></button>"#.to_owned(),
        r#"<div role="button">Code <textarea autocomplete="one-time-code">998877</textarea></div>"#
            .to_owned(),
    ];
    for html in cases {
        let f = Fixture::mount(&html).unwrap();
        if let Some(host) = f.find("#h") {
            host.attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open))
                .unwrap()
                .set_inner_html("<button>Code <slot></slot></button>");
        }
        let root = bai::dom::selector::QueryRoot::current().unwrap();
        let aria = bai::dom::selector::query_all(&root, &sel(SelectorKind::Aria, "998877"))
            .unwrap()
            .len();
        let mut role = sel(SelectorKind::Role, "button");
        role.name = Some("998877".to_owned());
        let role = bai::dom::selector::query_all(&root, &role).unwrap().len();
        assert_eq!((aria, role), (0, 0), "{html}");
        let lines = observe(60).elements.join("\n");
        assert!(!lines.contains("998877"), "{html}\n{lines}");
    }
}

/// The same paths with a field that is not secret still name as browsers do: only secrets are
/// withheld.
#[wasm_bindgen_test]
fn names_through_the_same_paths_keep_a_plain_fields_value() {
    let plain = r#"name="city" value="Lyon""#;
    let cases = [
        format!(r#"<div role="button" aria-owns="o">Code</div><input id="o" {plain}>"#),
        format!(r#"<label for="b">Code <input {plain}></label><button id="b"></button>"#),
        r#"<div contenteditable="true" aria-label="Notes"><button>Lyon</button></div>"#.to_owned(),
    ];
    for html in cases {
        let _f = Fixture::mount(&html).unwrap();
        let root = bai::dom::selector::QueryRoot::current().unwrap();
        let aria = bai::dom::selector::query_all(&root, &sel(SelectorKind::Aria, "Lyon"))
            .unwrap()
            .len();
        assert_eq!(aria, 1, "{html}");
    }
}

/// Paths into a secret editor or a re-roled secret field: `aria-owns` (direct, or from an
/// `aria-labelledby` target) of a node inside a secret editor, also a `contenteditable=false`
/// island; a shadow-tree element whose `<slot>` renders a secret editor's light DOM (the shadow
/// tree inside the editor, or the editor as the shadow host: `isContentEditable` is false
/// there); a secret `<textarea>` whose explicit role is not textbox (named from its text).
#[wasm_bindgen_test]
fn names_that_reach_into_a_secret_editor_or_a_re_roled_textarea_never_match() {
    let cases = [
        r#"<div role="button" aria-owns="x">Code</div><div contenteditable="true" id="otp"><span id="x">998877</span></div>"#,
        r#"<div role="button" aria-owns="x">Code</div><div contenteditable="true" id="otp"><span contenteditable="false" id="x">998877</span></div>"#,
        r#"<div role="button" aria-labelledby="l">x</div><span id="l" aria-owns="x">Code</span><div contenteditable="true" id="cvv"><b id="x">998877</b></div>"#,
        r#"<div contenteditable="true" id="otp"><span id="h">998877</span></div>"#,
        r#"<div contenteditable="true" id="otp" class="host"><span>998877</span></div>"#,
        r#"<textarea role="heading" autocomplete="one-time-code">998877</textarea>"#,
        r#"<textarea role="link" autocomplete="one-time-code">998877</textarea>"#,
        r#"<div role="button" aria-labelledby="t">x</div><textarea id="t" role="heading" name="cvv">998877</textarea>"#,
    ];
    for html in cases {
        let f = Fixture::mount(html).unwrap();
        let open = web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open);
        if let Some(host) = f.find("#h") {
            host.attach_shadow(&open)
                .unwrap()
                .set_inner_html("<button>Code <slot></slot></button>");
        }
        if let Some(host) = f.find(".host") {
            host.attach_shadow(&open)
                .unwrap()
                .set_inner_html(r#"<div role="button">Code <slot></slot></div>"#);
        }
        let root = bai::dom::selector::QueryRoot::current().unwrap();
        let aria = bai::dom::selector::query_all(&root, &sel(SelectorKind::Aria, "998877"))
            .unwrap()
            .len();
        let mut role = sel(SelectorKind::Role, "button");
        role.name = Some("998877".to_owned());
        let role = bai::dom::selector::query_all(&root, &role).unwrap().len();
        let lines = observe(60).elements.join("\n");
        assert!(
            (aria, role) == (0, 0) && !lines.contains("998877"),
            "aria={aria} role={role} {html}\n{lines}"
        );
    }
}

/// A one-time code split into boxes: the signal is on the group (its name, a fieldset's legend)
/// or on one box only. Every box of the group is part of the secret.
#[wasm_bindgen_test]
async fn boxes_of_a_split_one_time_code_are_all_secret() {
    let cases = [
        r#"<div role="group" aria-label="Verification code"><input autocomplete="one-time-code" maxlength="1" aria-label="Digit 1" value="9"><input maxlength="1" aria-label="Digit 2" value="8"><input maxlength="1" aria-label="Digit 3" value="7"></div>"#,
        r#"<fieldset><legend>Security code</legend><input maxlength="1" value="8"><input maxlength="1" value="7"></fieldset>"#,
        r#"<div><div><input autocomplete="one-time-code" maxlength="1" value="9"></div><div><input maxlength="1" value="8"></div><div><input maxlength="1" value="7"></div></div>"#,
    ];
    for html in cases {
        let _f = Fixture::mount(html).unwrap();
        let lines = observe(60).elements.join("\n");
        let extract = Action::Extract {
            selector: Selector::css("input"),
            attribute: None,
            max_chars: None,
        };
        let data = match execute(&extract, &opts()).await {
            Ok(report) => report.data.unwrap_or_default(),
            Err(error) => format!("{error:?}"),
        };
        assert!(
            !lines.contains("\"8\"") && !lines.contains("\"7\"") && !data.contains("\"8\""),
            "{html}\n{lines}\n{data}"
        );
    }
}

/// Short fields that are no code (a two-letter state next to a two-digit age) stay plain.
#[wasm_bindgen_test]
fn short_fields_without_any_secret_signal_stay_plain() {
    let _f = Fixture::mount(
        r#"<div><input maxlength="2" aria-label="State" value="CA"><input maxlength="2" aria-label="Age" value="42"></div>"#,
    )
    .unwrap();
    let lines = observe(60).elements.join("\n");
    assert!(
        lines.contains("value=\"CA\"") && lines.contains("value=\"42\""),
        "{lines}"
    );
}

/// A password field stays secret when the page's "show password" button turns it into a text
/// field (its only signal was `type=password`), and a text field masked by CSS
/// (`-webkit-text-security`) is a password field.
#[wasm_bindgen_test]
async fn a_revealed_or_css_masked_password_stays_secret() {
    let f = Fixture::mount(
        r#"<label for="k">Haslx</label><input type="password" id="k" value="hunter22"><button onclick="document.getElementById('k').type='text'">Pokaz</button><label for="m">Heslx</label><input id="m" style="-webkit-text-security: disc" value="swordfish9">"#,
    )
    .unwrap();
    let before = observe(60).elements.join("\n");
    assert!(
        before.contains("textbox \"Haslx\" value=<hidden>"),
        "{before}"
    );
    f.find("button")
        .unwrap()
        .dyn_into::<web_sys::HtmlElement>()
        .unwrap()
        .click();
    let lines = observe(60).elements.join("\n");
    let extract = Action::Extract {
        selector: Selector::css("input"),
        attribute: None,
        max_chars: None,
    };
    let data = match execute(&extract, &opts()).await {
        Ok(report) => report.data.unwrap_or_default(),
        Err(error) => format!("{error:?}"),
    };
    assert!(
        !lines.contains("hunter22") && !data.contains("hunter22"),
        "{lines}\n{data}"
    );
    // Where the browser knows `-webkit-text-security` (Chromium; Firefox since 131), a field
    // masked with it is a password.
    let css = js_sys::Reflect::get(&js_sys::global(), &"CSS".into()).unwrap();
    let supports: js_sys::Function = js_sys::Reflect::get(&css, &"supports".into())
        .unwrap()
        .into();
    let known = supports
        .call2(&css, &"-webkit-text-security".into(), &"disc".into())
        .unwrap()
        .as_bool()
        .unwrap_or(false);
    if known {
        assert!(
            !lines.contains("swordfish9") && !data.contains("swordfish9"),
            "{lines}\n{data}"
        );
    }
}

/// ARIA value widgets named as a secret (a PIN pad's spinbuttons that show `•` but carry the
/// digit in `aria-valuenow`, a custom CVV combobox, a PIN listbox) show no value or selection;
/// a range input named as a PIN shows no value.
#[wasm_bindgen_test]
fn aria_widgets_named_as_a_secret_show_no_value() {
    let cases = [
        r#"<div role="spinbutton" aria-label="PIN digit 1" aria-valuenow="7" tabindex="0" style="width:40px;height:20px">•</div>"#,
        r#"<div role="slider" aria-label="Security code" aria-valuenow="7" tabindex="0" style="width:40px;height:20px">•</div>"#,
        r#"<div role="combobox" aria-label="CVV" aria-expanded="false" tabindex="0">777</div>"#,
        r#"<div role="listbox" aria-label="PIN"><div role="option" aria-selected="true">7</div><div role="option">1</div></div>"#,
        r#"<input type="range" name="pin" min="0" max="9" value="7">"#,
    ];
    for html in cases {
        let _f = Fixture::mount(html).unwrap();
        let lines = observe(60).elements.join("\n");
        assert!(
            !lines.contains("value=\"7")
                && !lines.contains("value=\"777")
                && !lines.contains(" selected"),
            "{html}\n{lines}"
        );
    }
}

fn kind_of(f: &Fixture, css: &str) -> String {
    format!("{:?}", classify(&f.find(css).unwrap()))
}

/// A "show password" button that replaces the field with a new text input of the same id and
/// name (a keyed re-render) leaves it secret.
#[wasm_bindgen_test]
async fn show_button_replacing_the_input_keeps_it_secret() {
    let f = Fixture::mount(
        r#"<form><input type="password" id="pw" name="pass"><button type="button" id="show">Show</button></form>"#,
    )
    .unwrap();
    run_script(
        r#"document.getElementById('pw').value = 'hunter22';
        document.getElementById('show').addEventListener('click', () => {
          const old = document.getElementById('pw'); const t = document.createElement('input');
          t.type = 'text'; t.id = 'pw'; t.name = 'pass'; t.value = old.value; old.replaceWith(t); });"#,
    )
    .unwrap();
    assert!(!observe(60).elements.join("\n").contains("hunter22"));
    execute(
        &Action::Click {
            selector: Selector::css("#show"),
        },
        &opts(),
    )
    .await
    .unwrap();
    let lines = observe(60).elements.join("\n");
    let extract = Action::Extract {
        selector: Selector::css("#pw"),
        attribute: None,
        max_chars: None,
    };
    let data = match execute(&extract, &opts()).await {
        Ok(report) => report.data.unwrap_or_default(),
        Err(error) => format!("{error:?}"),
    };
    drop(f);
    assert!(
        !lines.contains("hunter22") && !data.contains("hunter22"),
        "{lines}\n{data}"
    );
}

/// Whether a field counts as masked never follows a value: a stylesheet rule on `:valid` of a
/// password (which depends on the password) does not make another field secret.
#[wasm_bindgen_test]
fn css_mask_does_not_depend_on_a_secret_value() {
    let mut seen = Vec::new();
    for value in ["hunter22", "zebra"] {
        let f = Fixture::mount(
            r#"<style>#pw2:valid ~ #probe { -webkit-text-security: disc }</style><input type="password" id="pw2" pattern="h.*"><input id="probe" name="nickname">"#,
        )
        .unwrap();
        run_script(&format!(
            "document.getElementById('pw2').value = '{value}';"
        ))
        .unwrap();
        seen.push(kind_of(&f, "#probe"));
    }
    assert_eq!(seen[0], seen[1], "the probe's class follows the password");
    // Inherited masking (a wrapper's style) does not make a search box a password either.
    let f = Fixture::mount(
        r#"<div style="-webkit-text-security: disc"><input id="search" type="search"></div>"#,
    )
    .unwrap();
    assert_eq!(kind_of(&f, "#search"), "None");
}

/// Digit boxes each in their own shadow root (one component per box) are all secret when one is.
#[wasm_bindgen_test]
fn shadow_dom_digit_boxes_are_secret() {
    let f = Fixture::mount(r#"<div id="otp"><span id="b1"></span><span id="b2"></span></div>"#)
        .unwrap();
    run_script(
        r#"['b1','b2'].forEach((id, i) => { const r = document.getElementById(id).attachShadow({mode:'open'});
        r.innerHTML = i == 0 ? '<input maxlength="1" autocomplete="one-time-code">' : '<input maxlength="1">';
        r.querySelector('input').value = i == 0 ? '4' : '7'; });"#,
    )
    .unwrap();
    let second = input_in_shadow_of(&f, "#b2");
    let lines = observe(60).elements.join("\n");
    assert!(
        classify(&second).is_some() && !lines.contains("value=\"7"),
        "{lines}"
    );
}

/// A group's name reaches a field in a nested unnamed group and one in a shadow root.
#[wasm_bindgen_test]
fn an_outer_legend_reaches_nested_and_shadow_fields() {
    let f = Fixture::mount(
        r#"<fieldset><legend>Card security code</legend><div role="group" class="row"><input id="c1" maxlength="4"></div></fieldset>"#,
    )
    .unwrap();
    assert_ne!(kind_of(&f, "#c1"), "None");
    drop(f);
    let f = Fixture::mount(
        r#"<fieldset><legend>Card security code</legend><span id="host2"></span></fieldset>"#,
    )
    .unwrap();
    run_script(
        r#"const r = document.getElementById('host2').attachShadow({mode:'open'});
        r.innerHTML = '<input id="box" maxlength="4">'; r.querySelector('input').value = '987';"#,
    )
    .unwrap();
    let inner = input_in_shadow_of(&f, "#host2");
    let lines = observe(60).elements.join("\n");
    assert!(
        classify(&inner).is_some() && !lines.contains("987"),
        "{lines}"
    );
}

/// A group's name does not make a field with its own label secret ("Name on card" under "Pay
/// by credit card"), and a short field far from a card's expiry box stays plain.
#[wasm_bindgen_test]
fn group_names_and_short_boxes_leave_ordinary_fields_plain() {
    let f = Fixture::mount(
        r#"<fieldset><legend>Pay by credit card</legend><label>Name on card <input id="holder" name="holder"></label><label>Billing postcode <input id="zip" name="zip"></label></fieldset>
        <fieldset><legend>Two-factor authentication (2FA)</legend><label>Mobile phone <input id="phone" type="tel"></label></fieldset>
        <fieldset><legend>Email and password</legend><label>Email <input id="email" type="email"></label></fieldset>
        <form><div><input maxlength="2" autocomplete="cc-exp-month"></div><div><label>Quantity <input id="qty" maxlength="2"></label></div></form>"#,
    )
    .unwrap();
    assert_eq!(
        ["#holder", "#zip", "#phone", "#email", "#qty"].map(|c| kind_of(&f, c)),
        ["None"; 5].map(String::from)
    );
}

/// A customizable select (`appearance: base-select`, Chromium) copies the chosen option into its
/// `<selectedcontent>` as text: for a secret select that text is the secret (second red team,
/// session 11). Neither an XPath on it nor the names observe shows may carry it. (Firefox
/// drops the `<button>` inside a select: there the page is an ordinary select.)
#[wasm_bindgen_test]
async fn a_customizable_secret_select_shows_its_choice_nowhere() {
    let _f = Fixture::mount(
        r#"<style>select, ::picker(select) { appearance: base-select }</style>
        <label for="m">Expiry month</label>
        <select id="m" name="cc-exp-month" autocomplete="cc-exp-month">
          <button><selectedcontent></selectedcontent></button>
          <option>01</option><option>02</option><option>03</option>
        </select>"#,
    )
    .unwrap();
    run_script("const s = document.getElementById('m'); s.value = '03'; s.dispatchEvent(new Event('change'));").unwrap();
    for xpath in [
        "//selectedcontent[.='03']",
        "//select//*[.='03'][not(self::option)]",
    ] {
        let exists = assert_action(sel(SelectorKind::Xpath, xpath), Expectation::Exists);
        assert_eq!(code_of(exists).await, "secret_field", "{xpath}");
    }
    let lines = observe(60).elements.join("\n");
    assert!(!lines.contains("\"03\""), "{lines}");
    assert!(lines.contains("combobox selected=<hidden>"), "{lines}");
}

/// An autosizing input's measuring box keeps an invisible copy of what was typed (as
/// react-input-autosize does): a description of that box in a report or an error must not
/// carry its text (second red team, session 11).
#[wasm_bindgen_test]
async fn an_invisible_copy_of_a_secret_is_not_described() {
    let _f = Fixture::mount(
        r#"<label for="pw">PIN</label>
        <div style="display:inline-block;position:relative"><input id="pw" name="pin" type="password">
        <div id="sizer" style="position:absolute;top:0;left:0;visibility:hidden;height:0;overflow:scroll;white-space:pre"></div></div>"#,
    )
    .unwrap();
    run_script("document.getElementById('pw').value = '4821'; document.getElementById('sizer').textContent = '4821';").unwrap();
    let report = execute(
        &assert_action(Selector::css("#pw + div"), Expectation::Exists),
        &opts(),
    )
    .await
    .unwrap();
    let text = serde_json::to_string(&report).unwrap();
    assert!(!text.contains("4821"), "{text}");
    assert!(text.contains("div#sizer"), "{text}");
}

// ---- The page's own secret field names in its address --------------------------------------

/// A password field named `xq7` (no word the pure rule knows) sent by GET puts `?xq7=hunter2`
/// in the address: every address read from the page (its `url`, `wait_for url_contains`, a
/// navigation's effect) loses that value, and a one-time code's; a hidden input's name and the
/// ordinary parameters stay readable.
#[wasm_bindgen_test]
async fn addresses_lose_the_values_of_the_page_s_own_secret_fields() {
    let document = web_sys::window().unwrap().document().unwrap();
    run_script(
        "history.replaceState(null, '', location.pathname + '?u=ann&xq7=hunter2&c8=424242&page=2&q=shoes')",
    )
    .unwrap();
    // No such field on the page: the names are no known words, and stay readable.
    let plain = "?u=ann&xq7=hunter2&c8=424242&page=2&q=shoes";
    assert!(page_address(&document).ends_with(plain));
    let f = Fixture::mount(
        r#"<form method="get"><input name="u"><input type="password" name="xq7">
           <input name="c8" autocomplete="one-time-code"><input type="hidden" name="page" value="2">
           <button>Go</button></form>"#,
    )
    .unwrap();
    let redacted = "?u=ann&xq7=[redacted]&c8=[redacted]&page=2&q=shoes";
    assert!(
        page_address(&document).ends_with(redacted),
        "{}",
        page_address(&document)
    );
    assert!(observe(0).url.ends_with(redacted), "{}", observe(0).url);
    let err = execute(
        &Action::WaitFor {
            until: WaitCondition::Url {
                contains: "xq7=h".to_owned(),
            },
        },
        &opts(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "timeout");
    assert!(!err.message().contains("hunter2"), "{}", err.message());
    let href = document.location().unwrap().href().unwrap();
    let effect = Effect::NavigationStarted { url: Some(href) }.to_json_string();
    assert!(effect.contains(redacted), "{effect}");
    // The field's name in any case, as a form would send it.
    assert!(redact_address("/x?XQ7=hunter2", &document).ends_with("XQ7=[redacted]"));
    drop(f);
    run_script("history.replaceState(null, '', location.pathname)").unwrap();
}

/// The same in every scope: a password field in a shadow root (its form there, sent by GET),
/// the host of a form-associated custom element holding one through a nested component (the
/// host's name is what the form sends), and a field in a same-origin frame. Without the scopes, `zz1`, `zz2` and `zz3` are
/// names no rule knows.
#[wasm_bindgen_test]
async fn addresses_lose_the_values_of_secret_fields_in_shadow_roots_and_frames() {
    let document = web_sys::window().unwrap().document().unwrap();
    let f = Fixture::mount(
        r#"<div id="scoped-host"></div><x-pin id="scoped-pin" name="zz2"></x-pin>
           <iframe id="scoped-fr" srcdoc="<form method='get'><input id='scoped-in-frame' type='password' name='zz3'></form>"></iframe>"#,
    )
    .unwrap();
    run_script(
        "document.getElementById('scoped-host').attachShadow({mode: 'open'}).innerHTML = \
           '<form method=get><input type=password name=zz1></form>'; \
         document.getElementById('scoped-pin').attachShadow({mode: 'open'}).innerHTML = \
           '<x-inner></x-inner>'; \
         document.getElementById('scoped-pin').shadowRoot.querySelector('x-inner') \
           .attachShadow({mode: 'open'}).innerHTML = '<input type=password>';",
    )
    .unwrap();
    // The frame loads on its own: an extract waits for its field.
    let loaded = Action::Extract {
        selector: Selector::css("#scoped-in-frame"),
        attribute: Some("id".to_owned()),
        max_chars: None,
    };
    execute(&loaded, &ExecOptions { timeout_ms: 3000 })
        .await
        .unwrap();
    let address = redact_address("/x?zz1=hunter2&zz2=4821&zz3=swordfish&q=shoes", &document);
    assert_eq!(
        address,
        "/x?zz1=[redacted]&zz2=[redacted]&zz3=[redacted]&q=shoes"
    );
    drop(f);
}

/// The classifier reads its signals packed (`words!`, one string and one byte per kind): the
/// same words and kinds, in the same order, as the table they are written in.
#[wasm_bindgen_test]
fn packed_signals_are_the_signal_table() {
    assert_eq!(packed_signals().collect::<Vec<_>>(), SIGNALS.to_vec());
}

/// A page in `windows-1251` sends its password field `пароль` as `%EF%E0%F0%EE%EB%FC` (red
/// team, session 14): the name as the browser itself encodes it there (a link resolved in that
/// document, as its form's address would be; the document is a same-origin frame loaded from
/// a blob of that charset) is no UTF-8 spelling of
/// `пароль`, yet its value is redacted, and so is that of a form whose `accept-charset` names
/// a legacy encoding. ASCII names keep their values; a UTF-8 page's non-ASCII names too.
#[wasm_bindgen_test]
async fn legacy_encoded_secret_field_names_lose_their_values() {
    let document = web_sys::window().unwrap().document().unwrap();
    let f = Fixture::mount(r#"<iframe id="legacy-fr"></iframe>"#).unwrap();
    run_script(
        "const html = '<meta charset=windows-1251><form method=get><input id=legacy-pw \
           type=password name=&#1087;&#1072;&#1088;&#1086;&#1083;&#1100;></form><a id=legacy-a></a>'; \
         document.getElementById('legacy-fr').src = URL.createObjectURL( \
           new Blob([html], {type: 'text/html;charset=windows-1251'}));",
    )
    .unwrap();
    let loaded = Action::Extract {
        selector: Selector::css("#legacy-pw"),
        attribute: Some("id".to_owned()),
        max_chars: None,
    };
    execute(&loaded, &ExecOptions { timeout_ms: 5000 })
        .await
        .unwrap();
    run_script(
        "const d = document.getElementById('legacy-fr').contentDocument; \
         const a = d.getElementById('legacy-a'); \
         a.setAttribute('href', 'http://example.test/x?' + d.getElementById('legacy-pw').name \
           + '=hunter2&q=shoes'); \
         document.body.dataset.legacyHref = a.href; \
         document.body.dataset.legacyCharset = d.characterSet;",
    )
    .unwrap();
    let body = document.body().unwrap();
    assert_eq!(
        body.get_attribute("data-legacy-charset").as_deref(),
        Some("windows-1251")
    );
    let href = body.get_attribute("data-legacy-href").unwrap();
    body.remove_attribute("data-legacy-href").unwrap();
    body.remove_attribute("data-legacy-charset").unwrap();
    assert_eq!(
        href,
        "http://example.test/x?%EF%E0%F0%EE%EB%FC=hunter2&q=shoes"
    );
    assert_eq!(
        redact_address(&href, &document),
        href.replace("=hunter2", "=[redacted]")
    );
    drop(f);

    // A form sending windows-1251 from a UTF-8 page.
    let f = Fixture::mount(
        r#"<form method="get" accept-charset="windows-1251"><input type="password" name="пароль"></form>"#,
    )
    .unwrap();
    assert_eq!(
        redact_address("/x?%EF%E0%F0%EE%EB%FC=hunter2&q=shoes", &document),
        "/x?%EF%E0%F0%EE%EB%FC=[redacted]&q=shoes"
    );
    drop(f);

    // A UTF-8 form: its names are compared as they are sent, nothing else goes.
    let f = Fixture::mount(
        r#"<form method="get"><input type="password" name="пароль"><input name="поиск"></form>"#,
    )
    .unwrap();
    assert_eq!(
        redact_address(
            "/x?%D0%BF%D0%B0%D1%80%D0%BE%D0%BB%D1%8C=hunter2&%D0%BF%D0%BE%D0%B8%D1%81%D0%BA=shoes",
            &document
        ),
        "/x?%D0%BF%D0%B0%D1%80%D0%BE%D0%BB%D1%8C=[redacted]&%D0%BF%D0%BE%D0%B8%D1%81%D0%BA=shoes"
    );
    drop(f);
}

/// What a real form sends: `body` (a `<form method=get>` with its fields, names written as
/// character references) in a same-origin frame whose document is in `charset`, submitted
/// into a frame of its own whose `data:` document posts its address up. The form stays.
async fn submitted_address(charset: &str, body: &str) -> String {
    run_script(&format!(
        "window.__baiSubmitted = new Promise((resolve) => {{ \
           const listen = (event) => {{ \
             if (typeof event.data === 'string' && event.data.startsWith('bai-sent:')) {{ \
               window.removeEventListener('message', listen); \
               resolve(event.data.slice(9)); \
             }} \
           }}; \
           window.addEventListener('message', listen); \
           const fr = document.getElementById('legacy-sub'); \
           fr.onload = () => {{ \
             const form = fr.contentDocument.forms[0]; \
             form.action = 'data:text/html,<script>top.postMessage(\"bai-sent:\" + location.href, \"*\")</script>'; \
             form.target = 'legacy-sink'; \
             form.submit(); \
           }}; \
           const html = '<meta charset={charset}>{body}<iframe name=legacy-sink></iframe>'; \
           fr.src = URL.createObjectURL(new Blob([html], {{type: 'text/html;charset={charset}'}})); \
         }});"
    ))
    .unwrap();
    let sent = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("__baiSubmitted"))
        .unwrap()
        .dyn_into::<js_sys::Promise>()
        .unwrap();
    let href = wasm_bindgen_futures::JsFuture::from(sent)
        .await
        .unwrap()
        .as_string()
        .unwrap();
    // The query the form wrote, without the `data:` document's own text.
    href.split_once('?').unwrap().1.to_owned()
}

/// Legacy encodings that write a name in ASCII bytes (red team, session 15): a `windows-1252`
/// page (any single-byte one) sends `пароль` as character references, `&#1087;…` percent-encoded
/// (`%26%231087%3B…`); an `ISO-2022-JP` page sends 7-bit bytes between escapes (`%1B%24B…%1B%28B`),
/// and so does a UTF-8 page's form whose `accept-charset` names either. What the browser sends
/// is read from a real submission; every such name loses its value, ASCII names keep theirs.
#[wasm_bindgen_test]
async fn secret_field_names_sent_as_ascii_by_a_legacy_encoding_lose_their_values() {
    let document = web_sys::window().unwrap().document().unwrap();
    let cyrillic = "&#1087;&#1072;&#1088;&#1086;&#1083;&#1100;";
    let katakana = "&#12497;&#12473;&#12527;&#12540;&#12489;";
    let references =
        "%26%231087%3B%26%231072%3B%26%231088%3B%26%231086%3B%26%231083%3B%26%231100%3B";
    let jis_katakana = "%1B%24B%25Q%259%25o%21%3C%25I%1B%28B";
    let field = |name: &str| format!("<input type=password name={name} value=hunter2>");
    // A form-associated custom element holding the field in its shadow root: the form sends
    // its value under the host's name, and the host has no `form` property of its own.
    let custom = format!(
        "<x-legacy-pin name={cyrillic}></x-legacy-pin><script>customElements.define(\"x-legacy-pin\", \
         class extends HTMLElement {{ static formAssociated = true; constructor() {{ super(); \
         this.attachInternals().setFormValue(\"hunter2\"); this.attachShadow({{mode: \"open\"}}) \
         .innerHTML = \"<input type=password>\"; }} }})</script>"
    );
    for (charset, accept, fields, sent_name) in [
        ("windows-1252", "", field(cyrillic), references),
        ("iso-2022-jp", "", field(katakana), jis_katakana),
        (
            "iso-2022-jp",
            "",
            field(cyrillic),
            "%1B%24B%27a%27Q%27b%27%60%27%5D%27n%1B%28B",
        ),
        (
            "utf-8",
            " accept-charset=windows-1252",
            field(cyrillic),
            references,
        ),
        (
            "utf-8",
            " accept-charset=iso-2022-jp",
            field(katakana),
            jis_katakana,
        ),
        ("utf-8", " accept-charset=windows-1252", custom, references),
    ] {
        let f = Fixture::mount(r#"<iframe id="legacy-sub"></iframe>"#).unwrap();
        let body = format!("<form method=get{accept}>{fields}<input name=q value=shoes></form>");
        let sent = submitted_address(charset, &body).await;
        assert_eq!(
            sent,
            format!("{sent_name}=hunter2&q=shoes"),
            "{charset}{accept}"
        );
        let address = format!("/x?{sent}");
        assert_eq!(
            redact_address(&address, &document),
            format!("/x?{sent_name}=[redacted]&q=shoes"),
            "{charset}{accept}: {fields}"
        );
        drop(f);
    }
}
