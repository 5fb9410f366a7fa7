#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! What the executor answers is written by hand (`to_json`, `to_json_string`, `reason_json`)
//! instead of with serde's derived `Serialize`, so its wasm carries no serde serializers: each
//! must give exactly what the derive gives, the same value or the same bytes (`Value::to_string`,
//! keys sorted, for the answers once built as values), variant by variant.

use bai::bindings::perform::reason_json;
use bai::bindings::perform_action;
use bai::dom::ActionError;
use bai::dom::fixture::Fixture;
use bai::dom::observe::{Observation, ObservationDiff};
use bai::dom::report::{ActionReport, Effect};
use bai::dom::vision::{Mark, Mask, MaskKind, Masks, Rect, Viewport, viewport_json};
use bai::policy::AskReason;
use bai::protocol::{Action, Selector};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Texts a writer must escape as serde_json does: quotes, backslashes, every control character,
/// and non-ASCII (written as it is).
fn texts() -> Vec<String> {
    let controls: String = (0u32..0x20).filter_map(char::from_u32).collect();
    vec![
        String::new(),
        "plain".to_owned(),
        "q\"b\\s/ \u{7f}".to_owned(),
        "é \u{2028} \u{1f600} “quoted”".to_owned(),
        controls,
    ]
}

fn effects() -> Vec<Effect> {
    vec![
        Effect::NavigationStarted { url: None },
        Effect::NavigationStarted {
            url: Some("https://example.com/a?b=\"c\"".to_owned()),
        },
        Effect::FormSubmitted {
            handled_by_script: true,
        },
        Effect::FormSubmitted {
            handled_by_script: false,
        },
        Effect::ElementDetached,
        Effect::CheckedChanged { checked: true },
        Effect::ExpandedChanged { expanded: false },
        Effect::Focused,
        Effect::DomChanged { mutations: 7 },
        Effect::ValueSet { chars: 12 },
        Effect::OptionSelected {
            value: "red\n".to_owned(),
        },
        Effect::Scrolled { x: 0.0, y: 1500.5 },
        Effect::Scrolled {
            x: -0.0,
            y: f64::NAN,
        },
        Effect::Scrolled { x: 1e21, y: 1.0e-7 },
        Effect::Waited { ms: 250 },
        Effect::AlreadyInState { checked: false },
        Effect::KeyPressed {
            key: "Enter".to_owned(),
            default_prevented: true,
        },
        Effect::FocusMoved {
            to: "input#email".to_owned(),
        },
        Effect::TextDeleted { chars: 3 },
        Effect::Hovered,
        Effect::ConditionMet { waited_ms: 40 },
        Effect::Extracted {
            count: 2,
            matched: 5,
            truncated: true,
        },
        Effect::AssertionHeld,
        Effect::Observed {
            listed: 60,
            total: 75,
        },
        Effect::NothingObservable,
        Effect::NotSettled { waited_ms: 1000 },
    ]
}

#[wasm_bindgen_test]
fn effects_are_the_derived_json() {
    for effect in effects() {
        let derived = serde_json::to_value(&effect).unwrap();
        assert_eq!(effect.to_json_string(), derived.to_string(), "{effect:?}");
        assert_eq!(Some(effect.kind()), derived["kind"].as_str(), "{effect:?}");
    }
}

#[wasm_bindgen_test]
fn reports_are_the_derived_json() {
    let data = [
        None,
        Some(serde_json::json!(["a", "b\u{0}"]).to_string()),
        Some(serde_json::json!({"url": "u", "elements": [], "more": 3}).to_string()),
    ];
    for element in [None, Some("button \"Save\"".to_owned())] {
        for data in &data {
            let report = ActionReport {
                action: "click",
                element: element.clone(),
                effects: effects(),
                attempts: 3,
                elapsed_ms: 42,
                data: data.clone(),
            };
            assert_eq!(
                report.to_json_string(),
                serde_json::to_value(&report).unwrap().to_string(),
                "{report:?}"
            );
        }
    }
    let empty = ActionReport {
        action: "wait",
        element: None,
        effects: Vec::new(),
        attempts: 1,
        elapsed_ms: 0,
        data: None,
    };
    assert_eq!(
        empty.to_json_string(),
        serde_json::to_value(&empty).unwrap().to_string()
    );
}

fn errors() -> Vec<ActionError> {
    let s = |text: &str| text.to_owned();
    let many: Vec<String> = (0..14).map(|i| format!("option {i}")).collect();
    vec![
        ActionError::NotFound {
            selector: s("aria 'Email'"),
        },
        ActionError::Ambiguous {
            selector: s("css 'button'"),
            count: 4,
            candidates: vec![s("button \"A\""), s("button \"B\"")],
        },
        ActionError::Ambiguous {
            selector: s("text 'x'"),
            count: 0,
            candidates: Vec::new(),
        },
        ActionError::IndexOutOfRange {
            selector: s("role 'link'"),
            index: 9,
            count: 2,
        },
        ActionError::NotVisible {
            element: s("div#menu"),
        },
        ActionError::Disabled {
            element: s("button"),
        },
        ActionError::ReadOnly {
            element: s("input"),
        },
        ActionError::NotStable { element: s("a") },
        ActionError::Covered {
            element: s("button"),
            by: s("div.overlay"),
        },
        ActionError::Detached { element: s("li") },
        ActionError::ValueMismatch {
            element: s("input#q"),
            expected: Some(s("abc")),
            actual: Some(s("ab")),
        },
        ActionError::ValueMismatch {
            element: s("input[type=password]"),
            expected: None,
            actual: None,
        },
        ActionError::ScrollMismatch {
            wanted: (0.0, 500.0),
            reached: (0.0, 120.5),
        },
        ActionError::Timeout {
            waited_ms: 5000,
            waiting_for: s("the text \"Done\""),
        },
        ActionError::InvalidSelector {
            selector: s("css 'a['"),
            reason: s("unclosed bracket"),
            position: Some(2),
        },
        ActionError::InvalidSelector {
            selector: s("xpath '//'"),
            reason: s("not a node set"),
            position: None,
        },
        ActionError::UnsupportedElement {
            element: s("div"),
            hint: s("use click"),
        },
        ActionError::PasswordNotTargeted {
            element: s("input"),
        },
        ActionError::StaleRef {
            reference: s("@e12"),
            reason: s("it left the page"),
        },
        ActionError::OptionNotFound {
            element: s("select#size"),
            option: s("XXL"),
            available: vec![s("S"), s("M")],
            total: 2,
        },
        ActionError::OptionNotFound {
            element: s("select#n"),
            option: s("99"),
            available: many,
            total: 14,
        },
        ActionError::OptionNotChosen {
            element: s("div[role=combobox]"),
            option: s("Red"),
            shown: s("Blue"),
        },
        ActionError::NotCheckable {
            element: s("div"),
            hint: s("click it"),
        },
        ActionError::StateNotChanged {
            element: s("input[type=checkbox]"),
            wanted: true,
        },
        ActionError::AssertionFailed {
            expected: s("text of h1 to equal \"Done\""),
            actual: Some(s("Loading\n")),
        },
        ActionError::AssertionFailed {
            expected: s("value of input"),
            actual: None,
        },
        ActionError::SecretField {
            what: s("css 'input[value=x]'"),
            reason: s("it tests the attribute 'value'"),
            kind: s("password"),
        },
        ActionError::RedactedValue {
            what: s("css 'a[href*=\"pw=x\"]'"),
            reads: s("the attribute 'href'"),
        },
        ActionError::NotExecutable { action: s("done") },
        ActionError::Stopped,
        ActionError::TargetChanged {
            element: s("button \"Pay\""),
            reason: s("it changed"),
        },
        ActionError::ScreenshotMasksUnavailable {
            detail: s("no viewport width"),
        },
        ActionError::Script {
            detail: s("TypeError"),
        },
    ]
}

#[wasm_bindgen_test]
fn errors_are_the_serialized_json() {
    let shout = |text: &str| text.to_uppercase();
    let hints = vec!["@e1 button \"Buy\"".to_owned(), "\u{e9}".to_owned()];
    for error in errors() {
        let derived = serde_json::to_value(&error).unwrap();
        assert_eq!(
            error.to_json_string(&[], &str::to_owned),
            derived.to_string(),
            "{error:?}"
        );
        // With hints and a text filter: what the answer once did to the value (hints added,
        // then every string edited).
        let mut edited = derived;
        edited
            .as_object_mut()
            .unwrap()
            .insert("hints".into(), hints.clone().into());
        bai::protocol::result::edit_json_strings(&mut edited, &mut |text| *text = shout(text));
        assert_eq!(
            error.to_json_string(&hints, &shout),
            edited.to_string(),
            "{error:?}"
        );
    }
}

#[wasm_bindgen_test]
fn observations_are_the_derived_json() {
    for more in [0, 4] {
        for text in texts() {
            let observation = Observation {
                url: format!("https://example.com/{text}"),
                title: text.clone(),
                elements: vec![text.clone(), "@e1 button \"Save\"".to_owned()],
                total: 2 + more,
                more,
            };
            assert_eq!(
                observation.to_json_string(),
                serde_json::to_value(&observation).unwrap().to_string(),
                "{observation:?}"
            );
        }
    }
}

#[wasm_bindgen_test]
fn observation_diffs_are_the_derived_text() {
    let mut diffs = vec![ObservationDiff::default()];
    for text in texts() {
        for more in [0, 1, 30] {
            diffs.push(ObservationDiff {
                added: vec![text.clone(), "@e3 link \"Next\"".to_owned()],
                removed: vec!["@e1".to_owned()],
                changed: vec![text.clone()],
                more,
            });
        }
    }
    for diff in diffs {
        assert_eq!(
            diff.to_json_string(),
            serde_json::to_string(&diff).unwrap(),
            "{diff:?}"
        );
    }
}

/// Numbers a rectangle or a viewport may hold, including the ones serde_json writes with an
/// exponent or as `null`.
const FLOATS: [f64; 12] = [
    0.0,
    -0.0,
    1.0,
    1.5,
    -12.25,
    1280.0,
    0.1,
    1.0e-7,
    123_456_789.123_456_78,
    1e21,
    f64::NAN,
    f64::INFINITY,
];

fn viewports() -> Vec<Viewport> {
    FLOATS
        .iter()
        .map(|&f| Viewport {
            width: 1280.0,
            height: f,
            device_pixel_ratio: 2.0,
            scroll_x: f,
            scroll_y: 0.5,
            visual_scale: 1.0,
            visual_offset_x: -f,
            visual_offset_y: 0.0,
        })
        .collect()
}

fn rects() -> Vec<Rect> {
    FLOATS
        .iter()
        .map(|&f| Rect {
            x: f,
            y: 10.0,
            width: f * 3.0,
            height: 0.333,
        })
        .collect()
}

#[wasm_bindgen_test]
fn masks_are_the_derived_text_and_json() {
    let kinds = [MaskKind::SecretField, MaskKind::SecretText, MaskKind::Frame];
    for (at, viewport) in viewports().into_iter().enumerate() {
        let masks: Vec<Mask> = rects()
            .into_iter()
            .take(at)
            .enumerate()
            .map(|(i, rect)| Mask {
                kind: kinds[i % 3],
                rect,
            })
            .collect();
        for mask in &masks {
            assert_eq!(
                mask.to_json(),
                serde_json::to_value(mask).unwrap().to_string()
            );
        }
        let all = Masks { viewport, masks };
        assert_eq!(
            all.to_json_string(),
            serde_json::to_string(&all).unwrap(),
            "{all:?}"
        );
        assert_eq!(
            viewport_json(&viewport),
            serde_json::to_value(viewport).unwrap().to_string()
        );
    }
    for (number, rect) in rects().into_iter().enumerate() {
        let mark = Mark {
            number: number as u32,
            rect,
        };
        assert_eq!(
            mark.to_json(),
            serde_json::to_value(mark).unwrap().to_string()
        );
    }
}

#[wasm_bindgen_test]
fn reasons_are_the_derived_json_and_their_message() {
    let s = |text: &str| text.to_owned();
    let reasons = [
        AskReason::EachActionMode,
        AskReason::RiskyClick {
            word: s("delete"),
            name: s("Delete \"all\""),
        },
        AskReason::RiskyNavigation {
            word: s("checkout"),
            url: s("https://shop.example/checkout"),
        },
        AskReason::PasswordField,
        AskReason::SecretInAddress,
        AskReason::SecretChecked,
        AskReason::TargetUnchecked,
        AskReason::RiskyDestination {
            word: s("pay"),
            url: s("/pay"),
        },
        AskReason::UnknownActivation { element: s("div") },
        AskReason::Rule {
            rule: s("ask before click on example.com"),
        },
        AskReason::PageBoundKey {
            key: s("Delete"),
            element: s("li"),
        },
        AskReason::Picture {
            origin: s("https://example.com"),
        },
        AskReason::EnterMaySend {
            element: s("div#composer"),
        },
        AskReason::UnknownChoice {
            key: s("End"),
            element: s("ul#list"),
        },
        AskReason::DownloadsFile { name: s("Report") },
        AskReason::TextTooLong { name: s("Close") },
    ];
    for reason in reasons {
        let mut derived = serde_json::to_value(&reason).unwrap();
        derived
            .as_object_mut()
            .unwrap()
            .insert("message".into(), reason.message().into());
        assert_eq!(reason_json(&reason), derived.to_string(), "{reason:?}");
    }
}

/// `perform_action`'s answer text for `action` under `settings`.
async fn answer_text(action: &Action, settings: &str) -> String {
    perform_action(
        serde_json::to_string(action).unwrap(),
        settings.to_owned(),
        Some(300),
        None,
        None,
        None,
    )
    .await
    .unwrap()
}

/// Each kind of answer is the text `serde_json::json!` wrote before it was built by hand: the
/// same keys (sorted), the same values, byte for byte.
#[wasm_bindgen_test]
async fn answers_are_the_text_json_wrote() {
    let _f = Fixture::mount(r#"<button type="button" id="go">Go on</button>"#).unwrap();
    let click = Action::Click {
        selector: Selector::css("#go"),
    };
    let site = "https://x.example";
    let rule = |verdict: &str| {
        format!(
            r#"{{"approval_mode":"each_action","site":"{site}","rules":[{{"site":"{site}","actions":["click"],"verdict":"{verdict}"}}]}}"#
        )
    };

    // Done, let through by an allow rule that waived "each action".
    let text = answer_text(&click, &rule("allow")).await;
    let answer: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut report = ActionReport {
        action: "click",
        element: answer["result"]["element"].as_str().map(str::to_owned),
        effects: Vec::new(),
        attempts: 1,
        elapsed_ms: 0,
        data: None,
    };
    let mut result = serde_json::to_value(&report).unwrap();
    // The effects and the timing are the page's; the rest is what json! wrote.
    for key in ["effects", "attempts", "elapsed_ms"] {
        result[key] = answer["result"][key].clone();
    }
    let described = format!("allow click on {site}");
    result.as_object_mut().unwrap().insert(
        "allowed_by_rule".into(),
        serde_json::json!({
            "rule": described,
            "waived": [AskReason::EachActionMode.message()],
        }),
    );
    let next_ref = bai::dom::next_ref_number();
    let expected = serde_json::json!({ "result": result, "next_ref": next_ref });
    assert_eq!(text, expected.to_string());
    report.effects = vec![Effect::Focused];
    assert!(report.has("focused") && !report.has("hovered"));

    // Denied by a rule.
    let text = answer_text(&click, &rule("deny")).await;
    let expected = serde_json::json!({
        "error": {
            "code": "denied_by_rule",
            "message": format!("Your rule “deny click on {site}” does not allow this action; BAI did not act."),
            "rule": format!("deny click on {site}"),
        },
        "next_ref": bai::dom::next_ref_number(),
    });
    assert_eq!(text, expected.to_string());

    // Asked: the element is held (its id is random).
    let text = answer_text(&click, r#"{"approval_mode":"each_action"}"#).await;
    let answer: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut reason = serde_json::to_value(AskReason::EachActionMode).unwrap();
    reason
        .as_object_mut()
        .unwrap()
        .insert("message".into(), AskReason::EachActionMode.message().into());
    let expected = serde_json::json!({
        "needs_approval": {
            "reasons": [reason],
            "target": answer["needs_approval"]["target"].as_str().unwrap(),
            "targetName": "Go on",
            "hold": answer["needs_approval"]["hold"].as_str().unwrap(),
        },
    });
    assert_eq!(text, expected.to_string());

    // Failed (nothing to click), with the serialized error (here without hints).
    let missing = Action::Click {
        selector: Selector::css("#nowhere"),
    };
    let text = answer_text(&missing, r#"{"approval_mode":"auto"}"#).await;
    let answer: serde_json::Value = serde_json::from_str(&text).unwrap();
    let error = ActionError::NotFound {
        selector: answer["error"]["selector"].as_str().unwrap().to_owned(),
    };
    // The number is read before the hints are looked for (which may number elements).
    let expected = serde_json::json!({
        "error": serde_json::to_value(&error).unwrap(),
        "next_ref": answer["next_ref"].as_u64().unwrap(),
    });
    assert_eq!(text, expected.to_string());

    // Navigation goes to the glue.
    let navigate = Action::Navigate {
        url: "https://x.example/next".to_owned(),
    };
    let text = answer_text(&navigate, r#"{"approval_mode":"auto"}"#).await;
    let expected = serde_json::json!({
        "navigate": "allowed",
        "allowed_by_rule": null,
        "next_ref": bai::dom::next_ref_number(),
    });
    assert_eq!(text, expected.to_string());
}

/// Numbers as the crate's JSON writer writes them in the wasm (integers through the standard
/// library, floats through JavaScript's shortest digits, `dom::js::serde_float_text`): byte for
/// byte serde_json's own writing, over edge cases, random bit patterns and random short
/// decimals at every scale.
#[wasm_bindgen_test]
fn numbers_are_serde_json_numbers() {
    use bai::protocol::json_write::value_json;
    let mut floats: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.1,
        0.3,
        2.5,
        100.0,
        1234.5678,
        1e15,
        9.999e15,
        1e16,
        1.5e16,
        123_456_789_012_345_680.0,
        9_007_199_254_740_992.0,
        1e21,
        1e22,
        1e100,
        1e-4,
        1e-5,
        1.234e-5,
        1e-6,
        1.5e-6,
        1e-7,
        5e-324,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        -1e-300,
        0.000_012_34,
        1_234_567_890_123_456.7,
    ];
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..20_000 {
        let x = f64::from_bits(next());
        if x.is_finite() {
            floats.push(x);
        }
    }
    for _ in 0..20_000 {
        let bits = next();
        let mantissa = (bits % 1_000_000) as f64;
        let exponent = ((bits >> 32) % 60) as i32 - 30;
        let sign = if bits >> 63 == 1 { -1.0 } else { 1.0 };
        floats.push(sign * mantissa * 10f64.powi(exponent));
        floats.push(sign * mantissa / 10f64.powi(exponent.abs()));
    }
    for x in floats {
        let value = serde_json::Value::from(x);
        assert_eq!(
            value_json(&value),
            serde_json::to_string(&value).unwrap(),
            "{x:e}"
        );
    }
    let integers = [
        serde_json::Value::from(0u64),
        serde_json::Value::from(7u64),
        serde_json::Value::from(u64::MAX),
        serde_json::Value::from(1u64 << 53),
        serde_json::Value::from(-1i64),
        serde_json::Value::from(i64::MIN),
        serde_json::Value::from(-9_007_199_254_740_993i64),
    ];
    for value in integers {
        assert_eq!(value_json(&value), serde_json::to_string(&value).unwrap());
    }
}
