#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! Selectors as oracles on redacted content (red team, session 14): observe redacts a reset
//! token, a card number, a password sent by GET; a selector matched against the unredacted
//! page would answer one guess at them per try. Text-like engines match only what the model
//! is shown (`address::Shown::still_matches`), CSS / XPath that compare a redacted attribute
//! or read redacted text are refused with `redacted_value` (`secret::guard_redacted`). Each
//! oracle test tries the right and a wrong guess and asks for the same answer.

use bai::dom::ActionError;
use bai::dom::address::set_known_names;
use bai::dom::fixture::{Fixture, run_script};
use bai::dom::selector::{QueryRoot, query_all_checked, resolve};
use bai::protocol::{Selector, SelectorKind};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// What resolving `selector` on the current page answers: `found` or the error code.
fn answer(selector: &Selector) -> String {
    let root = QueryRoot::current().unwrap();
    match resolve(&root, selector) {
        Ok(_) => "found".to_owned(),
        Err(error) => error.code().to_owned(),
    }
}

fn text(value: &str) -> Selector {
    Selector::new(SelectorKind::Text, value)
}

const MAIL: &str = r#"<p id="mail">Reset your password: https://ex.test/reset?token=q7Zk2 or card 4111 1111 1111 1111</p>"#;

#[wasm_bindgen_test]
fn a_text_selector_cannot_guess_a_redacted_token_or_card_number() {
    let _f = Fixture::mount(MAIL).unwrap();
    for (right, wrong) in [
        ("token=q7Z", "token=q8"),
        ("4111 1111 1111 1111", "4111 1111 1111 1112"),
        ("q7Zk2 or card 4111", "q7Zk3 or card 4111"),
        // A letter of the hidden token against one of the marker (`[redacted]` has an `e`).
        ("k2", "e]"),
    ] {
        let (right_answer, wrong_answer) = (answer(&text(right)), answer(&text(wrong)));
        assert_eq!(right_answer, wrong_answer, "{right} / {wrong}");
        assert_eq!(right_answer, "not_found", "{right}");
    }
    // Exact: the whole text holds a redacted part, so no exact text equals it.
    let raw = "Reset your password: https://ex.test/reset?token=q7Zk2 or card 4111 1111 1111 1111";
    let mut exact = text(raw);
    exact.exact = true;
    assert_eq!(answer(&exact), "not_found");
    // What observe shows still finds the paragraph.
    for shown in ["Reset your password", "reset?token=", "or card"] {
        assert_eq!(answer(&text(shown)), "found", "{shown}");
    }
}

#[wasm_bindgen_test]
fn an_enclosing_element_does_not_answer_for_a_redacted_inner_one() {
    // The paragraph fails on the hidden part; its section, whose text holds the same part,
    // must not match in its place.
    let _f =
        Fixture::mount(r#"<section id="s"><p>card 4111 1111 1111 1111</p><p>second</p></section>"#)
            .unwrap();
    assert_eq!(answer(&text("4111 1111 1111 1111")), "not_found");
    assert_eq!(answer(&text("4111 1111 1111 1112")), "not_found");
    // A guess across the boundary: the section's text runs the number into a word, which
    // would show it if the section's text were redacted in one piece.
    assert_eq!(answer(&text("1111 1111second")), "not_found");
    assert_eq!(answer(&text("1111 1112second")), "not_found");
    assert_eq!(answer(&text("second")), "found");
}

#[wasm_bindgen_test]
fn a_card_number_split_by_a_line_break_is_redacted_as_the_text_engine_reads_it() {
    let _f = Fixture::mount("<p>card 4111\n1111 1111 1111</p>").unwrap();
    assert_eq!(answer(&text("4111 1111 1111 1111")), "not_found");
    assert_eq!(answer(&text("4111 1111 1111 1112")), "not_found");
    assert_eq!(answer(&text("card")), "found");
}

#[wasm_bindgen_test]
fn names_and_labels_cannot_guess_a_redacted_part() {
    let _f = Fixture::mount(
        r#"<button aria-label="Copy key sk_live_4eC39HqLyjWDarjtT1zdp7dc">Copy</button>
<a href="/x">Order 4111 1111 1111 1111</a>
<label for="f">Card 4111 1111 1111 1111</label><input id="f" placeholder="like 4111 1111 1111 1111">
<div data-testid="tok-4111111111111111">t</div>
<button>Save</button>"#,
    )
    .unwrap();
    let guesses = |kind: SelectorKind, right: &str, wrong: &str| {
        let (a, b) = (
            answer(&Selector::new(kind, right)),
            answer(&Selector::new(kind, wrong)),
        );
        assert_eq!(a, b, "{kind:?} {right} / {wrong}");
        assert_eq!(a, "not_found", "{kind:?} {right}");
    };
    guesses(SelectorKind::Aria, "sk_live_4eC", "sk_live_5eC");
    guesses(SelectorKind::Label, "4111 1111", "4112 1111");
    guesses(SelectorKind::Placeholder, "4111 1111", "4112 1111");
    guesses(
        SelectorKind::TestId,
        "tok-4111111111111111",
        "tok-4111111111111112",
    );
    let mut role = Selector::new(SelectorKind::Role, "link");
    role.name = Some("Order 4111 1111 1111 1111".to_owned());
    assert_eq!(answer(&role), "not_found");
    role.name = Some("Order 4111 1111 1111 1112".to_owned());
    assert_eq!(answer(&role), "not_found");
    // The parts observe shows still work.
    role.name = Some("Order".to_owned());
    assert_eq!(answer(&role), "found");
    assert_eq!(
        answer(&Selector::new(SelectorKind::Aria, "Copy key")),
        "found"
    );
    assert_eq!(answer(&Selector::new(SelectorKind::Label, "Card")), "found");
    assert_eq!(
        answer(&Selector::new(SelectorKind::Placeholder, "like")),
        "found"
    );
    let mut save = Selector::new(SelectorKind::Role, "button");
    save.name = Some("Save".to_owned());
    save.exact = true;
    assert_eq!(answer(&save), "found");
}

/// The red team's page after a login form sent by GET: `xq7` was the password field's name.
fn after_get_login() -> Fixture {
    let f = Fixture::mount(
        r#"<p>Welcome</p><a id="next" href="?xq7=hunter2&amp;page=2">Next page</a><a href="?pw=hunter2&amp;page=3">Page 3</a>"#,
    )
    .unwrap();
    set_known_names(r#"["xq7"]"#);
    f
}

#[wasm_bindgen_test]
fn a_css_attribute_test_on_a_redacted_href_is_refused_whatever_it_guesses() {
    let _f = after_get_login();
    for (right, wrong) in [
        (r#"a[href*="xq7=hunter2"]"#, r#"a[href*="xq7=zzz"]"#),
        (r#"a[href*="pw=hunter2"]"#, r#"a[href*="pw=zz"]"#),
        // Nested, and through an escape.
        (
            r#"p:not(:has(a[hr\65 f^="?xq7=h"]))"#,
            r#"p:not(:has(a[hr\65 f^="?xq7=z"]))"#,
        ),
    ] {
        let (a, b) = (answer(&Selector::css(right)), answer(&Selector::css(wrong)));
        assert_eq!(a, b, "{right} / {wrong}");
        assert_eq!(a, "redacted_value", "{right}");
    }
    // XPath too.
    let xpath = |value: &str| answer(&Selector::new(SelectorKind::Xpath, value));
    assert_eq!(
        xpath("//a[contains(@href, 'xq7=hunter2')]"),
        "redacted_value"
    );
    assert_eq!(xpath("//a[contains(@href, 'xq7=zzz')]"), "redacted_value");
    // The message names the attribute and says what to do.
    let root = QueryRoot::current().unwrap();
    let error = query_all_checked(&root, &Selector::css(r#"a[href*="xq7=zz"]"#)).unwrap_err();
    assert!(matches!(&error, ActionError::RedactedValue { reads, .. } if reads.contains("href")));
    assert!(
        error.message().contains("select the element another way"),
        "{}",
        error.message()
    );
    assert!(!error.is_retriable());
    // Selectors that compare no redacted attribute still work.
    assert_eq!(answer(&Selector::css("#next")), "found");
    assert_eq!(answer(&Selector::css("a[href]:first-of-type")), "found");
    set_known_names("[]");
}

#[wasm_bindgen_test]
fn a_css_attribute_test_works_where_nothing_of_it_is_redacted() {
    let _f = Fixture::mount(
        r#"<a href="?page=2">Next</a><a href="?page=3">Page 3</a><p title="4111 1111 1111 1111">t</p>"#,
    )
    .unwrap();
    assert_eq!(answer(&Selector::css(r#"a[href*="page=2"]"#)), "found");
    assert_eq!(
        answer(&Selector::new(SelectorKind::Xpath, "//a[@href='?page=3']")),
        "found"
    );
    // A redacted title refuses tests of titles, not of hrefs.
    assert_eq!(
        answer(&Selector::css(r#"p[title^="4111"]"#)),
        "redacted_value"
    );
    assert_eq!(
        answer(&Selector::css(r#"p[title^="4112"]"#)),
        "redacted_value"
    );
}

#[wasm_bindgen_test]
fn an_xpath_reading_redacted_text_is_refused_and_ordinary_text_is_not() {
    let f = Fixture::mount(MAIL).unwrap();
    let xpath = |value: &str| answer(&Selector::new(SelectorKind::Xpath, value));
    assert_eq!(xpath("//p[contains(., 'token=q7Z')]"), "redacted_value");
    assert_eq!(xpath("//p[contains(., 'token=q8')]"), "redacted_value");
    drop(f);
    let _f = Fixture::mount("<p>Order 12 shipped</p>").unwrap();
    // The test runner's own log (test names with hashes, which look like tokens) is set
    // aside while the page holds only the fixture: XPath reads the whole document.
    run_script(
        "window.__aside = [...document.body.childNodes].filter(n => !n.querySelector || !n.querySelector('p') || !n.textContent.includes('Order 12')); \
         for (const n of window.__aside) n.remove();",
    )
    .unwrap();
    let answer = xpath("//p[contains(., 'Order 12')]");
    run_script("for (const n of window.__aside) document.body.append(n); delete window.__aside;")
        .unwrap();
    assert_eq!(answer, "found");
}

#[wasm_bindgen_test]
fn a_redacted_attribute_in_a_shadow_root_refuses_a_css_test_of_it() {
    let f = Fixture::mount(r#"<div id="host"></div>"#).unwrap();
    let host = f.find("#host").unwrap();
    let shadow = host
        .attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open))
        .unwrap();
    shadow.set_inner_html(r#"<a href="?token=q7Zk2">Reset</a>"#);
    assert_eq!(
        answer(&Selector::css(r#"a[href*="token=q7"]"#)),
        "redacted_value"
    );
    assert_eq!(
        answer(&Selector::css(r#"a[href*="token=q8"]"#)),
        "redacted_value"
    );
}

/// The red team's probe end to end: `hover` (no question asked) through `perform_action`,
/// with the names known from the login page.
#[wasm_bindgen_test]
async fn hover_answers_the_same_for_right_and_wrong_guesses() {
    use bai::bindings::{cancel_actions, perform_action};
    let _f = after_get_login();
    run_script("history.replaceState(null, '', location.pathname + '?xq7=hunter2&page=1')")
        .unwrap();
    let hover = |selector: serde_json::Value| {
        serde_json::json!({"type": "hover", "payload": {"selector": selector}}).to_string()
    };
    let code = |answer: &str| {
        let value: serde_json::Value = serde_json::from_str(answer).unwrap();
        value["error"]["code"].as_str().unwrap_or("ok").to_owned()
    };
    let mut codes = Vec::new();
    for selector in [
        serde_json::json!({"type": "css", "value": r#"a[href*="xq7=hunter2"]"#}),
        serde_json::json!({"type": "css", "value": r#"a[href*="xq7=zzz"]"#}),
    ] {
        let answer = perform_action(
            hover(selector),
            "{}".into(),
            Some(200),
            None,
            None,
            Some(r#"["xq7"]"#.into()),
        )
        .await
        .unwrap();
        cancel_actions();
        codes.push(code(&answer));
    }
    run_script("history.replaceState(null, '', location.pathname)").unwrap();
    set_known_names("[]");
    assert_eq!(codes, ["redacted_value", "redacted_value"]);
}

/// `execute`'s answer: `ok` or the error code.
async fn outcome(action: bai::protocol::Action) -> String {
    match bai::dom::execute(&action, &bai::dom::ExecOptions { timeout_ms: 50 }).await {
        Ok(_) => "ok".to_owned(),
        Err(error) => error.code().to_owned(),
    }
}

#[wasm_bindgen_test]
async fn assert_and_wait_for_text_answer_no_guess_at_a_redacted_part() {
    use bai::protocol::Action;
    use bai::protocol::action::{Expectation, WaitCondition};
    let _f = Fixture::mount(MAIL).unwrap();
    let assert_contains = |value: &str| Action::Assert {
        selector: Selector::css("#mail"),
        expect: Expectation::TextContains {
            value: value.to_owned(),
        },
    };
    let wait_text = |text: &str| Action::WaitFor {
        until: WaitCondition::Text {
            text: text.to_owned(),
        },
    };
    for (right, wrong) in [
        ("token=q7Z", "token=q8"),
        ("4111 1111 1111 1111", "4111 1111 1111 1112"),
    ] {
        let (a, b) = (
            outcome(assert_contains(right)).await,
            outcome(assert_contains(wrong)).await,
        );
        assert_eq!(
            (a.as_str(), b.as_str()),
            ("assertion_failed", "assertion_failed"),
            "{right}"
        );
        let (a, b) = (
            outcome(wait_text(right)).await,
            outcome(wait_text(wrong)).await,
        );
        assert_eq!((a.as_str(), b.as_str()), ("timeout", "timeout"), "{right}");
    }
    assert_eq!(outcome(assert_contains("Reset your password")).await, "ok");
    assert_eq!(outcome(wait_text("or card")).await, "ok");
}

/// The fast check before a redaction says yes for every kind of secret the redaction hides
/// (a no there would let a match on the unredacted text stand).
#[wasm_bindgen_test]
fn the_fast_check_lets_every_redactable_text_through() {
    use bai::dom::address::may_redact;
    use bai::dom::redact::redact_secrets;
    for text in [
        "4111111111111",
        "4111 1111 1111 1111",
        "DE89370400440532013000",
        "DE89 3704 0044 0532 0130 00",
        "sk_live_abcdefghijklmnopqrstu1",
        "AbcdefghijklmnopqrstuvwX1",
        "a1b2c3d4e5f6g7h8i9j0k",
        "?pw=x",
        "http://ann:hunter2@host/",
    ] {
        assert_ne!(redact_secrets(text), text, "{text} is not redacted");
        assert!(may_redact(text), "{text}");
    }
    for text in ["Save 12", "Item 1500", "Quantity 13", "Reset your password"] {
        assert!(!may_redact(text), "{text}");
    }
}
