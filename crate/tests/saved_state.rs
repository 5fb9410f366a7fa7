#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests: a panic is a failing test"
)]
//! A state saved by an earlier build must restore: `fixtures/engine-state-v1.json` was written
//! by the engine as it was before its state reader was hand-written (serde derives), from the
//! conversation below, which touches every part of the state (cursors with pending results and
//! reported rejections, a streaming message waiting, workflows with capabilities, ledger, issued
//! results, a continuation and spent tokens, options on actions, BAI/0.2 actions held before the
//! ACK, a stale workflow). `BAI_WRITE_FIXTURE=1 cargo test -p bai --test saved_state` writes it
//! again from the current engine.

use bai::protocol::outcome::ActionReply;
use bai::protocol::{
    ActionResult, Decision, Engine, Message, ResultReport, ResultStatus, Role, WorkflowState,
};
use serde_json::json;

const NONCE: &str = "n_0123456789abcdef";
const WF: &str = "wf-fixture-1";
const FIXTURE: &str = include_str!("fixtures/engine-state-v1.json");

fn action(id: u64, type_name: &str, payload: &str, extra: &str) -> String {
    format!(
        r#"BAI_ACTION {{"protocol":"BAI/0.3","workflow_id":"{WF}","kind":"action","ack_nonce":"{NONCE}","action_id":{id},"type":"{type_name}","payload":{payload}{extra}}}"#
    )
}

/// The conversation the fixture was saved from, and the engine after it.
fn conversation() -> (Engine, Vec<Message>) {
    let mut engine = Engine::new();
    let mut messages = vec![
        Message::new(Role::User, "Please buy the cheapest \u{e9}clair. \u{1f600}"),
        Message::new(
            Role::Assistant,
            format!(
                "```bai\n{{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{WF}\",\"kind\":\"handshake\",\"state\":\"awaiting_extension_ack\",\"capabilities\":[\"action_lines\",\"result_lines\",\"observe\",\"extended_actions\",\"chunked_results\"]}}\n```"
            ),
        ),
    ];
    engine.observe(&messages);
    let acked = engine.approve(WF, NONCE).unwrap();
    let Decision::Ack { line, .. } = &acked[0] else {
        panic!("{acked:?}")
    };
    messages.push(Message::new(Role::User, line.clone()));
    engine.observe(&messages);
    // A record in a user message is refused (and remembered as reported); then actions: one
    // with options, an extract, a scroll with a fraction.
    messages.push(Message::new(
        Role::User,
        action(4, "click", r##"{"selector":"#x"}"##, ""),
    ));
    messages.push(Message::new(
        Role::Assistant,
        [
            action(
                1,
                "click",
                r##"{"selector":{"type":"css","value":"#buy \"now\""}}"##,
                r#","timeout_ms":5000,"on_error":"skip","reason":"the \u00e9clair's button""#,
            ),
            action(
                2,
                "extract",
                r#"{"selector":{"type":"css","value":"main"}}"#,
                "",
            ),
            action(3, "scroll", r#"{"y":120.5,"x":-3}"#, ""),
        ]
        .join("\n"),
    ));
    let decisions = engine.observe(&messages);
    let due = decisions
        .iter()
        .find(|d| matches!(d, Decision::ResultDue { .. }))
        .cloned()
        .unwrap();
    for id in 1..=3 {
        engine.begin_action(WF, id);
        let reply = ActionReply {
            result: Some(json!({"effects": ["clicked"]})),
            error: None,
            answer: None,
        };
        engine.record_outcome(WF, id, Some(&reply)).unwrap();
    }
    engine.actions_settled();
    let _ = engine.message_report(&due);
    let long: Vec<String> = (0..400)
        .map(|i| {
            format!(
                "line {i}: \u{e9}t\u{e9} \"quoted\" \\ tab\t {}",
                "x".repeat(40)
            )
        })
        .collect();
    let report = ResultReport {
        actions: vec![ActionResult {
            action_id: 2,
            action_type: Some("extract".into()),
            status: ResultStatus::Ok,
            code: None,
            reason: None,
            hints: vec![],
            effects: vec!["extracted".into()],
            data: Some(json!(long)),
        }],
        page: None,
        observation: None,
        changes: None,
    };
    let line = engine.result_line(WF, &report).unwrap();
    messages.push(Message::new(Role::User, line));
    engine.observe(&messages);
    // A streaming message naming a workflow not known yet waits; a BAI/0.2 handshake with held
    // actions (one types text) waits for the user; an old handshake is stale.
    messages.push(Message::streaming(
        Role::Assistant,
        "Working on it.\nBAI_ACTION {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf-later\",\"kind\":\"action\",\"ack_nonce\":\"n_0123456789abcdef\",\"action_id\":1,\"type\":\"click\",\"payload\":{\"selector\":\"#x\"}}\nmore",
    ));
    messages.push(Message::new(
        Role::Assistant,
        "```bai\n{\"protocol\":\"BAI/0.2\",\"workflow_id\":\"w2\",\"state\":\"awaiting_extension_ack\"}\n```\nBAI_ACTION {\"protocol\":\"BAI/0.2\",\"workflow_id\":\"w2\",\"action_id\":1,\"type\":\"input_text\",\"payload\":{\"selector\":{\"type\":\"aria\",\"value\":\"Email\"},\"text\":\"a@b.c\"}}\nBAI_ACTION {\"protocol\":\"BAI/0.2\",\"workflow_id\":\"w2\",\"action_id\":2,\"type\":\"scroll\",\"payload\":{\"y\":40}}",
    ));
    engine.observe(&messages);
    (engine, messages)
}

#[test]
fn a_state_saved_by_the_serde_engine_restores_and_saves_the_same() {
    let (engine, messages) = conversation();
    let saved = engine.save().unwrap();
    if std::env::var_os("BAI_WRITE_FIXTURE").is_some() {
        std::fs::write(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/engine-state-v1.json"
            ),
            &saved,
        )
        .unwrap();
        return;
    }
    // Today's engine writes what the fixture holds, byte for byte.
    assert_eq!(saved, FIXTURE.trim_end());
    let mut restored = Engine::restore(FIXTURE).unwrap();
    assert_eq!(restored.save().unwrap(), FIXTURE.trim_end());
    // It knows what it knew: nothing runs twice, the held actions wait, the continuation is
    // there.
    assert_eq!(restored.workflow(WF).unwrap().state, WorkflowState::Active);
    assert_eq!(restored.workflow(WF).unwrap().executed_actions, 3);
    assert_eq!(restored.workflow("w2").unwrap().held_actions, 2);
    let again = restored.observe(&messages);
    assert!(
        !again
            .iter()
            .any(|d| matches!(d, Decision::Execute { .. } | Decision::ResultDue { .. })),
        "{again:?}"
    );
    assert!(FIXTURE.contains("\"continuation\""), "{FIXTURE}");
    assert!(FIXTURE.contains("\"held\""), "{FIXTURE}");
    assert!(FIXTURE.contains("\"waiting\""), "{FIXTURE}");
}

#[test]
fn a_finished_workflows_continuation_is_not_saved() {
    let (mut engine, _) = conversation();
    let saved = engine.save().unwrap();
    assert!(saved.contains("\"continuation\""), "{saved}");
    engine.stop(WF).unwrap();
    let saved = engine.save().unwrap();
    assert!(!saved.contains("\"continuation\""), "{saved}");
    assert!(!saved.contains("line 399"), "{saved}");
    // Everything else of the workflow is still there, and reads back.
    let restored = Engine::restore(&saved).unwrap();
    assert_eq!(restored.workflow(WF).unwrap().state, WorkflowState::Stopped);
    assert_eq!(restored.save().unwrap(), saved);
}
