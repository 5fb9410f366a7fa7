#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "property tests: a panic is a failing test"
)]
//! Results over several lines (`chunked_results`): for arbitrary Unicode extracted text and
//! observation lines, the parts the engine writes (the first result line, then one per `more`)
//! are each a valid `BAI_RESULT` line within the cap that the engine's own strict JSON reader
//! accepts, and reassembled as documented they give exactly the original values (NUL excepted:
//! every result line writes it as U+FFFD, see `crate::protocol::result`). The engine state is
//! saved and restored between parts, as a page reload would.

use bai::protocol::continuation::{Segment, SegmentField, reassemble};
use bai::protocol::result::RESULT_LINE_MAX_CHARS;
use bai::protocol::{
    ActionResult, Capability, Decision, Engine, Message, ProtocolVersion, ResultReport,
    ResultStatus, Role, ack_line_with_capabilities,
};
use proptest::prelude::*;
use serde_json::{Value, json};

const NONCE: &str = "n_5eed5eed5eed5eed5eed5eed5eed5eed";
const WF: &str = "wf-chunks-1";
const CAPS: &[Capability] = &[
    Capability::ResultLines,
    Capability::Observe,
    Capability::ExtendedActions,
    Capability::ChunkedResults,
];

fn action(id: u64, type_name: &str, payload: &str) -> String {
    format!(
        r#"BAI_ACTION {{"protocol":"BAI/0.3","workflow_id":"{WF}","kind":"action","ack_nonce":"{NONCE}","action_id":{id},"type":"{type_name}","payload":{payload}}}"#
    )
}

/// The conversation up to the ACK, with the engine approving.
fn started() -> (Engine, Vec<Message>) {
    let mut engine = Engine::new();
    let mut messages = vec![Message::new(
        Role::Assistant,
        format!(
            "```bai\n{{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{WF}\",\"kind\":\"handshake\",\"state\":\"awaiting_extension_ack\",\"capabilities\":[\"action_lines\",\"result_lines\",\"observe\",\"extended_actions\",\"chunked_results\"]}}\n```"
        ),
    )];
    engine.observe(&messages);
    engine.approve(WF, NONCE).unwrap();
    messages.push(Message::new(
        Role::User,
        ack_line_with_capabilities(ProtocolVersion::V0_3, WF, NONCE, CAPS),
    ));
    engine.observe(&messages);
    (engine, messages)
}

fn parse(line: &str) -> Value {
    assert!(
        line.chars().count() <= RESULT_LINE_MAX_CHARS,
        "over the cap"
    );
    assert!(!line.contains('\n') && !line.contains('\r'));
    let json = line.strip_prefix("BAI_RESULT ").unwrap();
    // The engine's own strict reader (no duplicate keys, nothing readers disagree on).
    assert!(bai::protocol::json::read_object(json).is_ok(), "{line}");
    serde_json::from_str(json).unwrap()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

/// Feeds `line` as the next assistant message and returns the decisions.
fn say(engine: &mut Engine, messages: &mut Vec<Message>, line: String) -> Vec<Decision> {
    messages.push(Message::new(Role::Assistant, line));
    engine.observe(messages)
}

/// Runs one message with an extract (data `data`) and an observe (lines `elements`), then
/// fetches every part with `more`; returns what the model reassembles.
fn deliver(data: &[String], elements: &[String]) -> (Vec<String>, Vec<String>, usize) {
    let (mut engine, mut messages) = started();
    let decisions = say(
        &mut engine,
        &mut messages,
        format!(
            "{}\n{}",
            action(1, "extract", r#"{"selector":"main","max_chars":100000}"#),
            action(2, "observe", r#"{"max_elements":300}"#)
        ),
    );
    assert!(
        decisions
            .iter()
            .any(|d| matches!(d, Decision::ResultDue { .. }))
    );
    let report = ResultReport {
        actions: vec![
            ActionResult {
                action_id: 1,
                action_type: Some("extract".into()),
                status: ResultStatus::Ok,
                code: None,
                reason: None,
                hints: vec![],
                effects: vec!["extracted".into()],
                data: Some(json!(data)),
            },
            ActionResult {
                action_id: 2,
                action_type: Some("observe".into()),
                status: ResultStatus::Ok,
                code: None,
                reason: None,
                hints: vec![],
                effects: vec![],
                data: None,
            },
        ],
        page: None,
        observation: Some(json!({"elements": elements, "more": 0, "total": elements.len()})),
        changes: None,
    };
    let line = engine.result_line(WF, &report).unwrap();
    messages.push(Message::new(Role::User, line.clone()));
    assert!(engine.observe(&messages).is_empty());
    let first = parse(&line);
    let first_data = strings(&first["actions"][0]["data"]);
    let first_elements = strings(&first["observation"]["elements"]);
    let mut segments: Vec<Segment> = Vec::new();
    let mut token = first["continuation"]["token"].as_str().map(str::to_owned);
    let mut next_id = 3;
    let mut parts = 1;
    while let Some(current) = token.take() {
        // A reload between two parts.
        engine = Engine::restore(&engine.save().unwrap()).unwrap();
        let decisions = say(
            &mut engine,
            &mut messages,
            action(next_id, "more", &format!(r#"{{"token":"{current}"}}"#)),
        );
        assert!(
            decisions.iter().any(|d| matches!(
                d,
                Decision::Execute { action_id, .. } if *action_id == next_id
            )),
            "{decisions:?}"
        );
        let report = ResultReport {
            actions: vec![ActionResult {
                action_id: next_id,
                action_type: Some("more".into()),
                status: ResultStatus::Ok,
                code: None,
                reason: None,
                hints: vec![],
                effects: vec![],
                data: None,
            }],
            page: None,
            observation: None,
            changes: None,
        };
        let line = engine.result_line(WF, &report).unwrap();
        messages.push(Message::new(Role::User, line.clone()));
        assert!(engine.observe(&messages).is_empty());
        let part = parse(&line);
        let got: Vec<Segment> = serde_json::from_value(part["actions"][0]["data"].clone()).unwrap();
        assert!(!got.is_empty(), "a part without content: {line}");
        segments.extend(got);
        token = part["continuation"]["token"].as_str().map(str::to_owned);
        next_id += 1;
        parts += 1;
        assert!(parts < 400, "never ends");
    }
    let of = |field: SegmentField| -> Vec<Segment> {
        segments
            .iter()
            .filter(|s| s.field == field)
            .cloned()
            .collect()
    };
    (
        reassemble(&first_data, &of(SegmentField::Data)),
        reassemble(&first_elements, &of(SegmentField::Observation)),
        parts,
    )
}

fn as_written(values: &[String]) -> Vec<String> {
    values.iter().map(|v| v.replace('\0', "\u{fffd}")).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn parts_reassemble_to_the_original(
        data in prop::collection::vec(any::<String>(), 0..6),
        long in prop::collection::vec(any::<char>(), 0..12_000),
        elements in prop::collection::vec("\\PC{0,60}", 0..200),
    ) {
        let mut data = data;
        data.push(long.into_iter().collect());
        let (got_data, got_elements, _) = deliver(&data, &elements);
        prop_assert_eq!(got_data, as_written(&data));
        prop_assert_eq!(got_elements, as_written(&elements));
    }
}

#[test]
fn fifty_thousand_characters_over_several_parts() {
    let text: String = (0..50_000)
        .map(|i| ['a', 'é', '€', '𝄞', '"', '\\', '\u{2028}', '\n'][i % 8])
        .collect();
    let (got, elements, parts) = deliver(std::slice::from_ref(&text), &[]);
    assert_eq!(got, vec![text]);
    assert!(elements.is_empty());
    assert!(parts >= 7, "{parts} parts");
}
