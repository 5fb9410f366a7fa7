use super::payload::check_navigate_url;
use super::*;
use crate::protocol::action::{Action, ActionOptions, Expectation, Key, OnError, WaitCondition};
use crate::protocol::error::RejectCode;
use crate::protocol::negotiation::Capability;
use crate::protocol::refusal::Refusal;
use crate::protocol::selector::{Selector, SelectorKind};
use serde_json::Value;
use serde_json::json;

/// A refusal as its code and message, for assertions.
trait SplitErr {
    fn split_err(self) -> (RejectCode, String);
}

impl<T: std::fmt::Debug> SplitErr for Result<T, Refusal> {
    fn split_err(self) -> (RejectCode, String) {
        let refusal = self.unwrap_err();
        (refusal.code(), refusal.to_string())
    }
}

const ALL: &[Capability] = &[
    Capability::ResultLines,
    Capability::Observe,
    Capability::ExtendedActions,
];

fn plain(t: &str, p: Value) -> Result<Action, Refusal> {
    action_from_wire(t, &p, Some(&[]))
}

fn ext(t: &str, p: Value) -> Result<Action, Refusal> {
    action_from_wire(t, &p, Some(ALL))
}

#[test]
fn builds_each_type() {
    assert_eq!(
        plain("click", json!({"selector": "#a"})).unwrap(),
        Action::Click {
            selector: Selector::css("#a")
        }
    );
    assert_eq!(
        plain(
            "input_text",
            json!({"selector": {"type":"aria","value":"Email"}, "text": "x"})
        )
        .unwrap(),
        Action::InputText {
            selector: Selector::new(SelectorKind::Aria, "Email"),
            text: "x".into()
        }
    );
    assert_eq!(
        plain("wait", json!({"ms": 60000})).unwrap(),
        Action::Wait { ms: 60000 }
    );
    assert_eq!(
        plain("scroll", json!({"y": 10})).unwrap(),
        Action::Scroll { x: None, y: 10.0 }
    );
    assert_eq!(
        plain("done", json!({"success": false})).unwrap(),
        Action::Done {
            success: false,
            summary: None
        }
    );
}

#[test]
fn rejects_bad_payloads() {
    let code = |t: &str, p: Value| plain(t, p).unwrap_err().code();
    assert_eq!(
        code("wait", json!({"ms": 60001})),
        RejectCode::InvalidPayload
    );
    assert_eq!(code("wait", json!({"ms": -1})), RejectCode::InvalidPayload);
    assert_eq!(code("click", json!({})), RejectCode::InvalidPayload);
    assert_eq!(code("click", json!("#a")), RejectCode::InvalidPayload);
    assert_eq!(code("teleport", json!({})), RejectCode::UnknownActionType);
    assert_eq!(
        code("done", json!({"success": "yes"})),
        RejectCode::InvalidPayload
    );
    assert_eq!(
        code("input_text", json!({"selector": "#a"})),
        RejectCode::InvalidPayload
    );
}

#[test]
fn extensions_need_their_capability() {
    let (code, reason) = plain("hover", json!({"selector": "#a"})).split_err();
    assert_eq!(code, RejectCode::CapabilityNotNegotiated);
    assert!(reason.contains("\"extended_actions\""), "{reason}");
    let (code, reason) = plain("observe", json!({})).split_err();
    assert_eq!(code, RejectCode::CapabilityNotNegotiated);
    assert!(reason.contains("\"observe\""), "{reason}");
    let role = json!({"selector": {"type": "role", "value": "button"}});
    assert_eq!(
        plain("click", role.clone()).unwrap_err().code(),
        RejectCode::CapabilityNotNegotiated
    );
    assert!(ext("click", role).is_ok());
    let by_ref = json!({"selector": {"type": "ref", "value": "@e12"}});
    assert_eq!(
        action_from_wire("click", &by_ref, Some(&[Capability::ExtendedActions]))
            .unwrap_err()
            .code(),
        RejectCode::CapabilityNotNegotiated
    );
    assert!(action_from_wire("click", &by_ref, Some(&[Capability::Observe])).is_ok());
    // BAI/0.2 cannot negotiate: there the extensions are simply unknown, as before.
    assert_eq!(
        action_from_wire("hover", &json!({"selector": "#a"}), None)
            .unwrap_err()
            .code(),
        RejectCode::UnknownActionType
    );
    let (code, reason) = action_from_wire(
        "click",
        &json!({"selector": {"type": "role", "value": "button"}}),
        None,
    )
    .split_err();
    assert_eq!(code, RejectCode::InvalidPayload);
    assert!(
        reason.contains("is not known; use css, xpath, aria or text"),
        "{reason}"
    );
    // Selector options belong to extended_actions too, on every kind and in BAI/0.2.
    for field in [
        json!({"exact": true}),
        json!({"index": 0}),
        json!({"name": "x"}),
    ] {
        let mut selector = json!({"type": "aria", "value": "Email"});
        selector
            .as_object_mut()
            .unwrap()
            .extend(field.as_object().unwrap().clone());
        let payload = json!({ "selector": selector });
        for caps in [Some(&[][..]), Some(&[Capability::Observe][..]), None] {
            assert_eq!(
                action_from_wire("click", &payload, caps)
                    .unwrap_err()
                    .code(),
                RejectCode::CapabilityNotNegotiated,
                "{payload} {caps:?}"
            );
        }
        assert!(ext("click", payload).is_ok());
    }
    // The unknown-type message lists what this workflow may use.
    let (_, reason) = plain("teleport", json!({})).split_err();
    assert!(!reason.contains("hover"), "{reason}");
    let (_, reason) = ext("teleport", json!({})).split_err();
    assert!(
        reason.contains("hover") && reason.contains("observe"),
        "{reason}"
    );
}

#[test]
fn refs() {
    for good in ["@e1", "@e12", "@e999999999"] {
        assert!(is_element_ref(good), "{good}");
    }
    for bad in [
        "@e0",
        "@e01",
        "@e",
        "e12",
        "@E12",
        "@e1234567890",
        "@e1x",
        " @e1",
    ] {
        assert!(!is_element_ref(bad), "{bad}");
    }
    let with_index = json!({"selector": {"type": "ref", "value": "@e3", "index": 1}});
    assert_eq!(
        ext("click", with_index).unwrap_err().code(),
        RejectCode::InvalidPayload
    );
}

#[test]
fn extended_payloads() {
    let s = || json!({"type": "test_id", "value": "x"});
    assert_eq!(
        ext("observe", json!({"max_elements": 300})).unwrap(),
        Action::Observe {
            max_elements: Some(300)
        }
    );
    assert!(ext("observe", json!({"max_elements": 0})).is_err());
    assert!(ext("observe", json!({"max_elements": 301})).is_err());
    assert_eq!(
        ext("press_key", json!({"key": "Enter"})).unwrap(),
        Action::PressKey {
            key: Key::Enter,
            selector: None
        }
    );
    let (_, reason) = ext("press_key", json!({"key": "enter"})).split_err();
    assert!(reason.contains("ArrowDown"), "{reason}");
    assert!(ext("select_option", json!({"selector": s(), "option": "FR"})).is_ok());
    assert!(ext("select_option", json!({"selector": s()})).is_err());
    assert!(ext("wait_for", json!({"selector": s(), "state": "hidden"})).is_ok());
    assert!(ext("wait_for", json!({"selector": s(), "text": "x"})).is_err());
    assert!(ext("wait_for", json!({"text": "x", "state": "hidden"})).is_err());
    assert!(ext("wait_for", json!({})).is_err());
    assert!(ext("wait_for", json!({"selector": s(), "state": "gone"})).is_err());
    assert_eq!(
        ext("wait_for", json!({"url_contains": "/done"})).unwrap(),
        Action::WaitFor {
            until: WaitCondition::Url {
                contains: "/done".into()
            }
        }
    );
    assert!(
        ext(
            "extract",
            json!({"selector": s(), "attribute": "data-x:y.z"})
        )
        .is_ok()
    );
    assert!(ext("extract", json!({"selector": s(), "attribute": "1x"})).is_err());
    assert!(ext("extract", json!({"selector": s(), "attribute": "a b"})).is_err());
    assert!(ext("assert", json!({"selector": s(), "expect": "checked"})).is_ok());
    assert!(
        ext(
            "assert",
            json!({"selector": s(), "expect": "checked", "value": "x"})
        )
        .is_err()
    );
    assert!(ext("assert", json!({"selector": s(), "expect": "text_equals"})).is_err());
    assert_eq!(
        ext(
            "assert",
            json!({"selector": s(), "expect": "value_equals", "value": ""})
        )
        .unwrap(),
        Action::Assert {
            selector: Selector::new(SelectorKind::TestId, "x"),
            expect: Expectation::ValueEquals { value: "".into() }
        }
    );
}

#[test]
fn navigate_urls() {
    for good in [
        "https://example.com",
        "HTTPS://example.com/a?b#c",
        "http://localhost:8080/x",
        "/",
        "/account/settings?tab=2",
    ] {
        assert!(check_navigate_url(good).is_ok(), "{good}");
    }
    for bad in [
        "",
        "//evil.example/x",
        "/\\evil.example",
        "javascript:alert(1)",
        "ftp://example.com",
        "https://user:pw@example.com/",
        "https://@example.com",
        "https://",
        "https://:80/",
        "https://example.com/a b",
        "https://example.com/\n",
        "example.com",
        "relative/path",
    ] {
        assert!(check_navigate_url(bad).is_err(), "{bad:?}");
    }
    assert!(check_navigate_url(&format!("/{}", "a".repeat(2047))).is_ok());
    assert!(check_navigate_url(&format!("/{}", "a".repeat(2048))).is_err());
}

#[test]
fn options() {
    let record = |extra: Value| {
        let mut map = json!({"type": "click"}).as_object().unwrap().clone();
        map.extend(extra.as_object().unwrap().clone());
        map
    };
    // Refused without extended_actions, whatever the value; unknown fields stay ignored.
    for field in EXTENDED_RECORD_FIELDS {
        for caps in [Some(&[][..]), None] {
            let (code, reason) =
                options_from_wire(&record(json!({ *field: null })), caps).split_err();
            assert_eq!(code, RejectCode::CapabilityNotNegotiated, "{field}");
            assert!(reason.contains("extended_actions"), "{reason}");
        }
    }
    assert_eq!(
        options_from_wire(&record(json!({"comment": "x"})), Some(&[])).unwrap(),
        ActionOptions::default()
    );
    let ext_caps = Some(&[Capability::ExtendedActions][..]);
    assert_eq!(
        options_from_wire(
            &record(json!({"timeout_ms": 5000, "on_error": "retry", "reason": "Open the menu"})),
            ext_caps
        )
        .unwrap(),
        ActionOptions {
            timeout_ms: Some(5000),
            on_error: OnError::Retry {
                count: RETRY_DEFAULT
            },
            reason: Some("Open the menu".into()),
            tab: None,
        }
    );
    assert_eq!(
        options_from_wire(
            &record(json!({"on_error": "retry", "retries": 5})),
            ext_caps
        )
        .unwrap()
        .on_error,
        OnError::Retry { count: 5 }
    );
    for bad in [
        json!({"timeout_ms": 0}),
        json!({"timeout_ms": 60001}),
        json!({"timeout_ms": 1.5}),
        json!({"on_error": "ignore"}),
        json!({"on_error": true}),
        json!({"retries": 2}),
        json!({"on_error": "retry", "retries": 6}),
        json!({"on_error": "skip", "retries": 1}),
        json!({"reason": "a\nb"}),
        json!({"reason": "x".repeat(301)}),
        json!({"reason": 3}),
    ] {
        let (code, _) = options_from_wire(&record(bad.clone()), ext_caps).split_err();
        assert_eq!(code, RejectCode::InvalidRecord, "{bad}");
    }
}

#[test]
fn screenshot_needs_vision_and_takes_an_element_budget() {
    let (code, reason) = ext("screenshot", json!({})).split_err();
    assert_eq!(code, RejectCode::CapabilityNotNegotiated);
    assert!(reason.contains("\"vision\""), "{reason}");
    // The refusal says that `vision` needs `result_lines` beside it.
    assert!(reason.contains("\"result_lines\",\"vision\""), "{reason}");
    let vision = [Capability::ResultLines, Capability::Vision];
    assert_eq!(
        action_from_wire("screenshot", &json!({}), Some(&vision)).unwrap(),
        Action::Screenshot { max_elements: None }
    );
    assert_eq!(
        action_from_wire("screenshot", &json!({"max_elements": 40}), Some(&vision)).unwrap(),
        Action::Screenshot {
            max_elements: Some(40)
        }
    );
    for bad in [json!(0), json!(301), json!("40"), json!(2.5)] {
        let refused = action_from_wire("screenshot", &json!({"max_elements": bad}), Some(&vision));
        assert_eq!(refused.unwrap_err().code(), RejectCode::InvalidPayload);
    }
    // BAI/0.2 cannot negotiate it: the type is simply unknown there.
    assert_eq!(
        action_from_wire("screenshot", &json!({}), None)
            .unwrap_err()
            .code(),
        RejectCode::UnknownActionType
    );
    // Saved and read back in wire form.
    let shot = Action::Screenshot {
        max_elements: Some(12),
    };
    let wire = serde_json::to_value(&shot).unwrap();
    assert_eq!(
        wire,
        json!({"type": "screenshot", "payload": {"max_elements": 12}})
    );
    assert_eq!(shot.type_name(), "screenshot");
    assert!(shot.selector().is_none());
}

#[test]
fn tab_field() {
    use super::options::{is_tab_name, tab_from_wire};
    let record = |extra: Value| extra.as_object().unwrap().clone();
    let click = Action::Click {
        selector: crate::protocol::Selector::css("#a"),
    };
    let tabs = Some(&[Capability::Tabs][..]);
    // Absent: the bound tab, with or without the capability.
    for caps in [tabs, Some(&[][..]), None] {
        assert_eq!(
            tab_from_wire(&record(json!({})), caps, &click).unwrap(),
            None
        );
    }
    // Without `tabs`, any value is refused, naming the capability (BAI/0.2: it cannot list it).
    for value in [json!("t1"), json!(null), json!(2)] {
        let (code, reason) =
            tab_from_wire(&record(json!({ "tab": value })), Some(&[]), &click).split_err();
        assert_eq!(code, RejectCode::CapabilityNotNegotiated, "{value}");
        assert!(reason.contains("\"tabs\""), "{reason}");
        let (code, reason) =
            tab_from_wire(&record(json!({ "tab": value })), None, &click).split_err();
        assert_eq!(code, RejectCode::CapabilityNotNegotiated, "{value}");
        assert!(reason.contains("BAI/0.3"), "{reason}");
    }
    assert_eq!(
        tab_from_wire(&record(json!({"tab": "t2"})), tabs, &click).unwrap(),
        Some("t2".to_owned())
    );
    // Only names as the extension gives them: never a browser tab id or anything else.
    for bad in [
        json!("2"),
        json!(2),
        json!("t0"),
        json!("t01"),
        json!("t1000"),
        json!("T1"),
        json!("t1 "),
        json!(""),
        json!(null),
        json!(["t1"]),
    ] {
        let (code, _) = tab_from_wire(&record(json!({ "tab": bad })), tabs, &click).split_err();
        assert_eq!(code, RejectCode::InvalidRecord, "{bad}");
    }
    assert!(is_tab_name("t1") && is_tab_name("t999") && !is_tab_name("t"));
    // Actions that act on no page take no tab.
    for action in [
        Action::Done {
            success: true,
            summary: None,
        },
        Action::More {
            token: "m_0123456789abcdef".into(),
        },
        Action::Wait { ms: 5 },
        Action::OpenTab { url: "/x".into() },
        Action::Tabs {},
    ] {
        let (code, reason) =
            tab_from_wire(&record(json!({"tab": "t2"})), tabs, &action).split_err();
        assert_eq!(code, RejectCode::InvalidRecord, "{action:?}");
        assert!(reason.contains(action.type_name()), "{reason}");
    }
}

#[test]
fn tabs_action_types() {
    let tabs = Some(&[Capability::Tabs][..]);
    assert_eq!(
        action_from_wire("open_tab", &json!({"url": "/cart"}), tabs).unwrap(),
        Action::OpenTab {
            url: "/cart".into()
        }
    );
    assert_eq!(
        action_from_wire("tabs", &json!({}), tabs).unwrap(),
        Action::Tabs {}
    );
    for (type_name, payload) in [("open_tab", json!({"url": "/cart"})), ("tabs", json!({}))] {
        let (code, reason) = action_from_wire(type_name, &payload, Some(&[])).split_err();
        assert_eq!(code, RejectCode::CapabilityNotNegotiated, "{type_name}");
        assert!(reason.contains("\"tabs\""), "{reason}");
    }
    for bad in [
        json!({}),
        json!({"url": ""}),
        json!({"url": "https://u:p@shop.example/"}),
        json!({"url": "javascript:alert(1)"}),
    ] {
        let (code, _) = action_from_wire("open_tab", &bad, tabs).split_err();
        assert_eq!(code, RejectCode::InvalidPayload, "{bad}");
    }
}

/// The executor reads the action with `action_from_json`, not serde: the same action, or the
/// same sentence for one that is not valid, for every text the background writes.
#[test]
fn action_from_json_reads_as_serde_reads() {
    let cases = [
        r##"{"type":"click","payload":{"selector":{"type":"css","value":"#buy"}}}"##,
        r#"{"type":"input_text","payload":{"selector":{"type":"label","value":"Name"},"text":"Ada \"L\" \u00e9"}}"#,
        r#"{"type":"scroll","payload":{"y":120.5}}"#,
        r#"{"type":"wait","payload":{"ms":250}}"#,
        r#"{"type":"press_key","payload":{"key":"Enter"}}"#,
        r#"{"type":"observe","payload":{}}"#,
        r#"{"type":"tabs","payload":{}}"#,
        r#"{"type":"click","payload":{"selector":{"css":""}}}"#,
        r#"{"type":"click","payload":{}}"#,
        r#"{"type":"click"}"#,
        r#"{"type":"fly","payload":{}}"#,
        r#"{"payload":{}}"#,
        r#"{"type":5,"payload":{}}"#,
        r#"[1]"#,
    ];
    for case in cases {
        let by_serde = serde_json::from_str::<Action>(case).map_err(|error| error.to_string());
        assert_eq!(action_from_json(case), by_serde, "{case}");
    }
    let clicked = action_from_json(cases[0]).unwrap();
    assert_eq!(serde_json::to_string(&clicked).unwrap(), cases[0]);
    // Text serde_json would not read is refused too (the sentence differs).
    assert!(action_from_json("{").is_err());
    assert!(action_from_json(r#"{"type":"click","payload":{"selector":"a"}} x"#).is_err());
}

/// The executor writes a refusal from reading an action with `ActionSentence` (so its wasm holds
/// no handshake or ACK sentences): word for word what `Display` writes, for each kind reading an
/// action gives, wrapped ones included.
#[test]
fn action_sentence_is_the_display_sentence() {
    use crate::protocol::refusal::ActionSentence;
    let wire: [(&str, Value, Option<&[Capability]>); 10] = [
        ("fly", json!({}), Some(ALL)),
        ("click", json!([]), Some(ALL)),
        ("click", json!({}), Some(ALL)),
        ("click", json!({"selector": {"css": ""}}), Some(ALL)),
        (
            "click",
            json!({"selector": {"type": "role", "value": "button"}}),
            Some(&[]),
        ),
        (
            "click",
            json!({"selector": {"type": "css", "value": "a", "index": 1}}),
            None,
        ),
        ("observe", json!({}), Some(&[])),
        ("wait", json!({"ms": 999_999}), Some(ALL)),
        ("navigate", json!({"url": "//x.example"}), Some(ALL)),
        (
            "input_text",
            json!({"selector": "#a", "text": 5}),
            Some(ALL),
        ),
    ];
    let mut refusals: Vec<Refusal> = wire
        .iter()
        .map(|(t, p, caps)| action_from_wire(t, p, *caps).unwrap_err())
        .collect();
    for text in ["{", r#"{"a":1,"a":2}"#, r#"{"a":"\ud800"}"#, "[1] x"] {
        refusals.push(crate::protocol::json::read_value(text).unwrap_err());
    }
    refusals.push(crate::protocol::json::read_object("[1]").unwrap_err());
    let mut codes: Vec<RejectCode> = refusals.iter().map(Refusal::code).collect();
    codes.dedup();
    assert!(codes.len() >= 5, "{codes:?}");
    for refusal in &refusals {
        assert_eq!(
            ActionSentence(refusal).to_string(),
            refusal.to_string(),
            "{refusal:?}"
        );
    }
    // Any other refusal is written as its code (reading an action gives none).
    assert_eq!(
        ActionSentence(&Refusal::AckNoNonce).to_string(),
        RejectCode::InvalidRecord.to_string()
    );
}
