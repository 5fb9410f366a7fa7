#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! `wait_for`, `extract` (with redaction) and `assert`.

use bai::dom::fixture::{Fixture, run_script};
use bai::dom::{ExecOptions, execute};
use bai::protocol::action::{ElementState, Expectation, WaitCondition};
use bai::protocol::{Action, Selector};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn opts(timeout_ms: u32) -> ExecOptions {
    ExecOptions { timeout_ms }
}

async fn wait_for(
    until: WaitCondition,
    timeout_ms: u32,
) -> Result<bai::dom::ActionReport, bai::dom::ActionError> {
    execute(&Action::WaitFor { until }, &opts(timeout_ms)).await
}

fn element(css: &str, state: ElementState) -> WaitCondition {
    WaitCondition::Element {
        selector: Selector::css(css),
        state,
    }
}

#[wasm_bindgen_test]
async fn waits_for_an_element_to_appear_and_disappear() {
    let _f = Fixture::mount(r#"<div id="box"></div><p id="spin">Loading</p>"#).unwrap();
    run_script("setTimeout(() => { document.getElementById('box').innerHTML = '<b id=late>Ready</b>'; document.getElementById('spin').remove(); }, 50)").unwrap();
    let report = wait_for(element("#late", ElementState::Visible), 3000)
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&report).unwrap()["effects"][0]["kind"],
        "condition_met"
    );
    wait_for(element("#spin", ElementState::Detached), 3000)
        .await
        .unwrap();
    wait_for(element("#late", ElementState::Attached), 100)
        .await
        .unwrap();
}

#[wasm_bindgen_test]
async fn waits_for_enabled_and_hidden() {
    let _f = Fixture::mount(r#"<button id="b" disabled>Save</button><div id="toast">Saved</div>"#)
        .unwrap();
    run_script("setTimeout(() => { document.getElementById('b').disabled = false; document.getElementById('toast').style.display = 'none'; }, 50)").unwrap();
    wait_for(element("#b", ElementState::Enabled), 3000)
        .await
        .unwrap();
    wait_for(element("#toast", ElementState::Hidden), 3000)
        .await
        .unwrap();
}

#[wasm_bindgen_test]
async fn waits_for_text_and_url() {
    let _f = Fixture::mount(r#"<div id="out"></div>"#).unwrap();
    run_script("setTimeout(() => { document.getElementById('out').textContent = 'Order   confirmed'; history.replaceState(null, '', location.pathname + '?step=done'); }, 50)").unwrap();
    wait_for(
        WaitCondition::Text {
            text: "Order confirmed".to_owned(),
        },
        3000,
    )
    .await
    .unwrap();
    wait_for(
        WaitCondition::Url {
            contains: "step=done".to_owned(),
        },
        3000,
    )
    .await
    .unwrap();
    run_script("history.replaceState(null, '', location.pathname)").unwrap();
}

#[wasm_bindgen_test]
async fn timeouts_say_what_was_last_seen() {
    let _f = Fixture::mount(r#"<p id="h" style="display:none">Hidden</p>"#).unwrap();
    let err = wait_for(element("#h", ElementState::Visible), 150)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "timeout");
    assert!(err.message().contains("still hidden"), "{}", err.message());
    let err = wait_for(
        WaitCondition::Url {
            contains: "never-there".to_owned(),
        },
        100,
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "timeout");
    assert!(
        err.message().contains("the URL is http"),
        "{}",
        err.message()
    );
    let err = wait_for(
        WaitCondition::Text {
            text: "Nope".to_owned(),
        },
        100,
    )
    .await
    .unwrap_err();
    assert!(
        err.message().contains("does not contain"),
        "{}",
        err.message()
    );
}

async fn extract(
    selector: Selector,
    attribute: Option<&str>,
) -> Result<bai::dom::ActionReport, bai::dom::ActionError> {
    let action = Action::Extract {
        selector,
        attribute: attribute.map(str::to_owned),
        max_chars: None,
    };
    execute(&action, &opts(500)).await
}

async fn check(
    css: &str,
    expect: Expectation,
    timeout_ms: u32,
) -> Result<bai::dom::ActionReport, bai::dom::ActionError> {
    let action = Action::Assert {
        selector: Selector::css(css),
        expect,
    };
    execute(&action, &opts(timeout_ms)).await
}

#[wasm_bindgen_test]
async fn extract_reads_texts_and_attributes_with_redaction() {
    let _f = Fixture::mount(
        r#"<ul><li class="i">  Blue
           mug </li><li class="i">Card 4111 1111 1111 1111 on file</li><li class="i">key sk-live4f9Q2xZ7pL0aB3cD8eF1gH2 here</li></ul>
        <a class="l" href="/a">A</a><a class="l" href="/b">B</a>
        <input type="password" id="pw" value="hunter2"><input id="em" value="ann@x.io">"#,
    )
    .unwrap();
    let report = extract(Selector::css("li.i"), None).await.unwrap();
    let json = serde_json::to_value(&report).unwrap();
    // The hand-written text is what serde_json wrote of the `Value` it once was.
    assert_eq!(report.to_json_string(), json.to_string());
    assert_eq!(
        json["data"],
        serde_json::json!([
            "Blue mug",
            "Card [redacted card number] on file",
            "key [redacted token] here"
        ])
    );
    assert_eq!(json["effects"][0]["count"], 3);
    let report = extract(Selector::css("a.l"), Some("href")).await.unwrap();
    assert_eq!(
        serde_json::to_value(&report).unwrap()["data"],
        serde_json::json!(["/a", "/b"])
    );
    for attribute in [None, Some("value")] {
        let report = extract(Selector::css("#pw"), attribute).await.unwrap();
        assert_eq!(
            serde_json::to_value(&report).unwrap()["data"],
            serde_json::json!(["[redacted password]"])
        );
    }
    let report = extract(Selector::css("#em"), None).await.unwrap();
    assert_eq!(
        serde_json::to_value(&report).unwrap()["data"],
        serde_json::json!(["ann@x.io"])
    );
    let err = extract(Selector::css(".none"), None).await.unwrap_err();
    assert_eq!(err.code(), "not_found");
}

#[wasm_bindgen_test]
async fn extract_with_max_chars_reads_long_text_and_many_elements() {
    // `chunked_results`: up to max_chars characters from up to 1000 elements, whole.
    let long = "é".repeat(30_000);
    let items: String = (0..40).map(|i| format!("<li>item {i}</li>")).collect();
    let _f = Fixture::mount(&format!(
        r#"<p class="t">{long}</p><ul>{items}</ul><p id="short">{}</p>"#,
        "y".repeat(50)
    ))
    .unwrap();
    let read = |css: &'static str, max_chars: u32| async move {
        let report = execute(
            &Action::Extract {
                selector: Selector::css(css),
                attribute: None,
                max_chars: Some(max_chars),
            },
            &opts(500),
        )
        .await
        .unwrap();
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(report.to_json_string(), json.to_string());
        json
    };
    let json = read("p.t", 100_000).await;
    assert_eq!(json["data"], serde_json::json!([long]));
    assert_eq!(json["effects"][0]["truncated"], false);
    let json = read("li", 100_000).await;
    assert_eq!(json["data"].as_array().unwrap().len(), 40);
    assert_eq!(json["data"][39], "item 39");
    // The limit still holds, in characters.
    let json = read("#short", 20).await;
    assert_eq!(json["data"][0], format!("{}…[truncated]", "y".repeat(20)));
    assert_eq!(json["effects"][0]["truncated"], true);
}

#[wasm_bindgen_test]
async fn extract_caps_the_total_size() {
    let long = "x".repeat(1500);
    let _f = Fixture::mount(&format!(
        r#"<p class="t">{long}</p><p class="t">{long}</p><p class="t">tail</p>"#
    ))
    .unwrap();
    let report = execute(
        &Action::Extract {
            selector: Selector::css("p.t"),
            attribute: None,
            max_chars: None,
        },
        &opts(500),
    )
    .await
    .unwrap();
    let json = serde_json::to_value(&report).unwrap();
    let data = json["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    assert!(data[1].as_str().unwrap().ends_with("…[truncated]"));
    assert_eq!(json["effects"][0]["truncated"], true);
    assert_eq!(json["effects"][0]["matched"], 3);
}

#[wasm_bindgen_test]
async fn assert_holds_or_says_expected_and_actual() {
    let _f = Fixture::mount(
        r#"<h1 id="t">Your   cart</h1><input type="checkbox" id="c" checked>
        <input type="password" id="pw" value="hunter2"><input id="q" value="mugs">"#,
    )
    .unwrap();
    check(
        "#t",
        Expectation::TextEquals {
            value: "Your cart".to_owned(),
        },
        500,
    )
    .await
    .unwrap();
    check(
        "#t",
        Expectation::TextContains {
            value: "cart".to_owned(),
        },
        500,
    )
    .await
    .unwrap();
    check("#c", Expectation::Checked, 500).await.unwrap();
    check(
        "#q",
        Expectation::ValueEquals {
            value: "mugs".to_owned(),
        },
        500,
    )
    .await
    .unwrap();
    check("#nothing", Expectation::Absent, 500).await.unwrap();
    check("#t", Expectation::Exists, 500).await.unwrap();

    let err = check(
        "#t",
        Expectation::TextEquals {
            value: "Checkout".to_owned(),
        },
        100,
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "assertion_failed");
    assert!(err.message().contains("\"Checkout\""), "{}", err.message());
    assert!(err.message().contains("\"Your cart\""), "{}", err.message());
    let err = check("#c", Expectation::Unchecked, 100).await.unwrap_err();
    assert!(
        err.message().contains("but found checked"),
        "{}",
        err.message()
    );
    let err = check(
        "#pw",
        Expectation::ValueEquals {
            value: "guess".to_owned(),
        },
        100,
    )
    .await
    .unwrap_err();
    // A password's value is never compared: a right guess would tell (see browser_secrets).
    assert_eq!(err.code(), "secret_field");
    assert!(
        !err.message().contains("hunter2") && !err.message().contains("guess"),
        "{}",
        err.message()
    );
    let err = check("#t", Expectation::Absent, 100).await.unwrap_err();
    assert!(err.message().contains("h1#t"), "{}", err.message());
    // The actual text is cut to 200 characters.
    run_script("document.getElementById('t').textContent = 'y'.repeat(500)").unwrap();
    let err = check(
        "#t",
        Expectation::TextEquals {
            value: "z".to_owned(),
        },
        100,
    )
    .await
    .unwrap_err();
    assert!(err.message().len() < 400, "{}", err.message());
    // Waiting: the assertion holds once the page catches up.
    run_script("setTimeout(() => { document.getElementById('q').value = 'cups'; document.body.append(document.createElement('i')); }, 50)").unwrap();
    check(
        "#q",
        Expectation::ValueEquals {
            value: "cups".to_owned(),
        },
        3000,
    )
    .await
    .unwrap();
}

/// After a GET form put a password into the address, `url_contains` cannot test it a letter at
/// a time: it matches the address as the model may read it (`password=[redacted]`), and a
/// timeout's message shows that address too.
#[wasm_bindgen_test]
async fn url_conditions_never_test_a_secret_in_the_address() {
    let _f = Fixture::mount(r#"<p>Signed in</p>"#).unwrap();
    run_script("history.replaceState(null, '', location.pathname + '?email=ann&password=hunter2')")
        .unwrap();
    let err = wait_for(
        WaitCondition::Url {
            contains: "password=h".to_owned(),
        },
        100,
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "timeout");
    assert!(!err.message().contains("hunter2"), "{}", err.message());
    wait_for(
        WaitCondition::Url {
            contains: "email=ann&password=[redacted]".to_owned(),
        },
        100,
    )
    .await
    .unwrap();
    run_script("history.replaceState(null, '', location.pathname)").unwrap();
}
