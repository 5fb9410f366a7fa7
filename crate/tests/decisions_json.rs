#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests: a panic is a failing test"
)]
//! The engine's decisions as the chat module hands them to JS (and as the engine saves held
//! actions and refused records): `fixtures/decisions-v1.jsonl` was written by serde's derived
//! `Serialize` impls before the chat module's writer was hand-written; every case below must
//! still be written byte for byte the same (the host reads these, and a `result_due` comes back
//! to [`bai::protocol::Decision::result_due_from_json`]). One line per case, in order.
//! `BAI_WRITE_FIXTURE=1 cargo test -p bai --test decisions_json` writes it again.

use bai::protocol::action::{ActionOptions, OnError};
use bai::protocol::decision_write::{
    action_json, decisions_json, poll_result_json, write_rejected_action,
};
use bai::protocol::json_write;
use bai::protocol::validate::action_from_json;
use bai::protocol::{
    Action, Decision, ProtocolVersion, RejectCode, RejectedAction, Rejection, WorkflowState,
};

const FIXTURE: &str = include_str!("fixtures/decisions-v1.jsonl");

/// Every action type, every selector form and option, every wait condition and expectation,
/// floats, and strings that need escapes.
const ACTIONS: &[&str] = &[
    r##"{"type":"click","payload":{"selector":"#buy"}}"##,
    r##"{"type":"click","payload":{"selector":{"type":"role","value":"button","name":"Save \"all\"","exact":true,"index":2}}}"##,
    r##"{"type":"click","payload":{"selector":{"type":"ref","value":"@e12"}}}"##,
    r##"{"type":"click","payload":{"selector":{"type":"test_id","value":"x\u0001\t\n\\/é😀\u2028"}}}"##,
    r##"{"type":"input_text","payload":{"selector":{"type":"aria","value":"Email"},"text":"a@b.c"}}"##,
    r##"{"type":"input_text","payload":{"selector":{"type":"label","value":"Name","exact":false},"text":""}}"##,
    r##"{"type":"wait","payload":{"ms":0}}"##,
    r##"{"type":"wait","payload":{"ms":60000}}"##,
    r##"{"type":"scroll","payload":{"y":10}}"##,
    r##"{"type":"scroll","payload":{"x":-0.5,"y":1e21}}"##,
    r##"{"type":"scroll","payload":{"x":0.1,"y":123456.789}}"##,
    r##"{"type":"scroll","payload":{"x":1.0,"y":-1.5}}"##,
    r##"{"type":"scroll","payload":{"y":2.5e-8}}"##,
    r##"{"type":"observe","payload":{}}"##,
    r##"{"type":"observe","payload":{"max_elements":300}}"##,
    r##"{"type":"select_option","payload":{"selector":{"type":"placeholder","value":"Size"},"option":"XL"}}"##,
    r##"{"type":"check","payload":{"selector":{"type":"xpath","value":"//input[@id='a']"}}}"##,
    r##"{"type":"uncheck","payload":{"selector":{"type":"text","value":"Remember me"}}}"##,
    r##"{"type":"press_key","payload":{"key":"Enter"}}"##,
    r##"{"type":"press_key","payload":{"key":"Space","selector":"#q"}}"##,
    r##"{"type":"press_key","payload":{"key":"ArrowDown"}}"##,
    r##"{"type":"hover","payload":{"selector":{"type":"css","value":"nav > a"}}}"##,
    r##"{"type":"navigate","payload":{"url":"/cart?x=1&y=2"}}"##,
    r##"{"type":"open_tab","payload":{"url":"https://shop.test/a"}}"##,
    r##"{"type":"tabs","payload":{}}"##,
    r##"{"type":"wait_for","payload":{"selector":"#a"}}"##,
    r##"{"type":"wait_for","payload":{"selector":{"type":"css","value":"#a"},"state":"hidden"}}"##,
    r##"{"type":"wait_for","payload":{"selector":"#a","state":"enabled"}}"##,
    r##"{"type":"wait_for","payload":{"selector":"#a","state":"attached"}}"##,
    r##"{"type":"wait_for","payload":{"selector":"#a","state":"detached"}}"##,
    r##"{"type":"wait_for","payload":{"text":"Thank you"}}"##,
    r##"{"type":"wait_for","payload":{"url_contains":"/done"}}"##,
    r##"{"type":"extract","payload":{"selector":".price"}}"##,
    r##"{"type":"extract","payload":{"selector":"a","attribute":"href","max_chars":5000}}"##,
    r##"{"type":"more","payload":{"token":"m_0123456789abcdef"}}"##,
    r##"{"type":"assert","payload":{"selector":"#a","expect":"exists"}}"##,
    r##"{"type":"assert","payload":{"selector":"#a","expect":"absent"}}"##,
    r##"{"type":"assert","payload":{"selector":"#a","expect":"text_equals","value":"Hi"}}"##,
    r##"{"type":"assert","payload":{"selector":"#a","expect":"text_contains","value":"H"}}"##,
    r##"{"type":"assert","payload":{"selector":"#a","expect":"value_equals","value":"v"}}"##,
    r##"{"type":"assert","payload":{"selector":"#a","expect":"checked"}}"##,
    r##"{"type":"assert","payload":{"selector":"#a","expect":"unchecked"}}"##,
    r##"{"type":"screenshot","payload":{}}"##,
    r##"{"type":"screenshot","payload":{"max_elements":5}}"##,
    r##"{"type":"done","payload":{"success":true}}"##,
    r##"{"type":"done","payload":{"success":false,"summary":"Could not \"pay\"."}}"##,
];

fn options() -> Vec<ActionOptions> {
    vec![
        ActionOptions::default(),
        ActionOptions {
            timeout_ms: Some(5000),
            ..ActionOptions::default()
        },
        ActionOptions {
            on_error: OnError::Skip,
            ..ActionOptions::default()
        },
        ActionOptions {
            on_error: OnError::Retry { count: 3 },
            reason: Some("to see the \"total\"".to_owned()),
            ..ActionOptions::default()
        },
        ActionOptions {
            timeout_ms: Some(1),
            on_error: OnError::Stop,
            reason: Some(String::new()),
            tab: Some("t2".to_owned()),
        },
    ]
}

fn actions() -> Vec<Action> {
    ACTIONS
        .iter()
        .map(|text| action_from_json(text).unwrap_or_else(|e| panic!("{text}: {e}")))
        .collect()
}

/// Every case, as a list of decisions (what `approve`, `deny` and `stop` hand to JS).
fn cases() -> Vec<Vec<Decision>> {
    let mut cases = Vec::new();
    for (index, action) in actions().into_iter().enumerate() {
        let options = options();
        cases.push(vec![Decision::Execute {
            workflow_id: "wf-1".to_owned(),
            action_id: index as u64,
            action,
            options: options[index % options.len()].clone(),
        }]);
    }
    for options in options() {
        cases.push(vec![Decision::Execute {
            workflow_id: "wf-\u{e9}".to_owned(),
            action_id: u64::MAX,
            action: Action::Tabs {},
            options,
        }]);
    }
    cases.push(Vec::new());
    cases.push(vec![
        Decision::HandshakeFound {
            workflow_id: "wf-1".to_owned(),
            protocol: ProtocolVersion::V0_2,
            message_index: 0,
        },
        Decision::HandshakeFound {
            workflow_id: "wf-2".to_owned(),
            protocol: ProtocolVersion::V0_3,
            message_index: 17,
        },
        Decision::Ack {
            workflow_id: "wf-1".to_owned(),
            protocol: ProtocolVersion::V0_3,
            ack_nonce: "n_0123456789abcdef".to_owned(),
            line: "BAI_ACK {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf-1\"}".to_owned(),
        },
    ]);
    for (index, state) in WorkflowState::ALL.iter().enumerate() {
        cases.push(vec![Decision::StateChanged {
            workflow_id: format!("wf-{index}"),
            state: *state,
        }]);
    }
    for (index, code) in RejectCode::ALL.iter().enumerate() {
        cases.push(vec![Decision::Reject(Rejection {
            code: *code,
            reason: format!("reason {index}: \"quoted\"\n\u{7f}"),
            message_index: index,
            excerpt: "BAI_ACTION {\"a\":1}\u{1f600}".to_owned(),
            workflow_id: (index % 2 == 0).then(|| format!("wf-{index}")),
            action_id: (index % 3 == 0).then_some(index as u64),
        })]);
    }
    cases.push(vec![
        Decision::ResultDue {
            workflow_id: "wf-1".to_owned(),
            message_index: 3,
            executed: Vec::new(),
            rejected: Vec::new(),
        },
        Decision::ResultDue {
            workflow_id: "wf-1".to_owned(),
            message_index: 4,
            executed: vec![1, 2, 40],
            rejected: vec![
                RejectedAction {
                    action_id: Some(3),
                    code: RejectCode::InvalidPayload,
                    reason: "ms must be at most 60000".to_owned(),
                },
                RejectedAction {
                    action_id: None,
                    code: RejectCode::InvalidJson,
                    reason: "\\".to_owned(),
                },
            ],
        },
    ]);
    cases
}

/// What the engine saves of held actions and refused records: the same writers, one value each.
#[test]
fn actions_and_refused_records_are_written_as_serde_writes_them() {
    for action in actions() {
        assert_eq!(
            action_json(&action),
            serde_json::to_string(&action).unwrap()
        );
    }
    for decision in cases().iter().flatten() {
        if let Decision::ResultDue { rejected, .. } = decision {
            let mut ours = String::new();
            json_write::list(&mut ours, rejected, write_rejected_action);
            assert_eq!(ours, serde_json::to_string(rejected).unwrap());
        }
    }
}

#[test]
fn decisions_are_written_as_before() {
    let written: Vec<String> = cases()
        .iter()
        .map(|decisions| serde_json::to_string(decisions).unwrap())
        .collect();
    if std::env::var_os("BAI_WRITE_FIXTURE").is_some() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/decisions-v1.jsonl"
        );
        std::fs::write(path, written.join("\n") + "\n").unwrap();
        return;
    }
    let expected: Vec<&str> = FIXTURE.lines().collect();
    assert_eq!(written.len(), expected.len(), "one fixture line per case");
    for (case, (serde, old)) in cases().iter().zip(written.iter().zip(&expected)) {
        assert_eq!(serde, old, "serde's derives");
        assert_eq!(&decisions_json(case), old, "the hand-written writer");
    }
}

/// The chat session's poll result, as its derived `Serialize` wrote it (`PollResult` and
/// `HandshakeRecognition` in `bindings::chat_session`, wasm only: their fields, in order).
#[test]
fn poll_results_are_written_as_serde_writes_them() {
    #[derive(serde::Serialize)]
    struct PollResult<'a> {
        pending: bool,
        decisions: &'a [Decision],
        messages: usize,
        reads: u64,
        site: &'static str,
        handshake_recognitions: Vec<HandshakeRecognition>,
    }
    #[derive(serde::Serialize)]
    struct HandshakeRecognition {
        message_index: usize,
        rule: &'static str,
    }
    let all = cases().concat();
    for (pending, decisions, recognitions) in [
        (true, &all[..0], Vec::new()),
        (false, &all[..], Vec::new()),
        (
            false,
            &all[..1],
            vec![(0, "unlabelled_block_content"), (7, "display_cased_label")],
        ),
    ] {
        let serde = serde_json::to_string(&PollResult {
            pending,
            decisions,
            messages: 12,
            reads: u64::MAX,
            site: "chatgpt",
            handshake_recognitions: recognitions
                .iter()
                .map(|&(message_index, rule)| HandshakeRecognition {
                    message_index,
                    rule,
                })
                .collect(),
        })
        .unwrap();
        let ours = poll_result_json(pending, decisions, 12, u64::MAX, "chatgpt", &recognitions);
        assert_eq!(ours, serde);
    }
}

/// The chat session's other answers to JS, each against its derived `Serialize` (the saved
/// session's struct lives in the wasm-only bindings: mirrored here, fields in order).
#[test]
fn session_answers_are_written_as_serde_writes_them() {
    use bai::policy::{PolicySettings, RateLimiter};
    use bai::protocol::WorkflowInfo;
    use bai::protocol::decision_write::{
        action_start_json, outcome_step_json, part_changes_json, refused_json, saved_session_json,
        strings_json, workflows_json,
    };
    use bai::protocol::engine::PartChanges;
    use bai::protocol::outcome::{ActionFailure, ActionStart, NextStep, OutcomeStep, SkipReason};

    for start in [
        ActionStart::Run,
        ActionStart::Finished,
        ActionStart::Skip {
            why: SkipReason::Stopped,
        },
        ActionStart::Skip {
            why: SkipReason::EarlierFailure,
        },
        ActionStart::Skip {
            why: SkipReason::NotHandedOut,
        },
    ] {
        assert_eq!(
            action_start_json(&start),
            serde_json::to_string(&start).unwrap()
        );
    }

    let failures = [
        ActionFailure {
            code: "not_found".into(),
            message: "no element matches \"#a\"\n".into(),
            hints: Vec::new(),
        },
        ActionFailure {
            code: String::new(),
            message: String::new(),
            hints: vec!["@e1 button \"Buy\"".into(), "\u{e9}".into()],
        },
    ];
    for failure in &failures {
        #[derive(serde::Serialize)]
        struct Refused<'a> {
            error: &'a ActionFailure,
            next: &'static str,
        }
        let refused = Refused {
            error: failure,
            next: "refused",
        };
        assert_eq!(
            refused_json(failure),
            serde_json::to_string(&refused).unwrap()
        );
        for next in [
            NextStep::Retry { attempt: 0 },
            NextStep::Retry { attempt: 255 },
            NextStep::GoOn,
            NextStep::StopMessage,
        ] {
            for failure in [None, Some(failure.clone())] {
                let step = OutcomeStep { next, failure };
                assert_eq!(
                    outcome_step_json(&step),
                    serde_json::to_string(&step).unwrap()
                );
            }
        }
    }

    let info = |n: u64| WorkflowInfo {
        workflow_id: format!("wf-\"{n}\""),
        protocol: if n % 2 == 0 {
            ProtocolVersion::V0_3
        } else {
            ProtocolVersion::V0_2
        },
        state: WorkflowState::ALL[n as usize % WorkflowState::ALL.len()],
        ack_nonce: (n % 2 == 0).then(|| "n_0123456789abcdef".to_owned()),
        ack_seen: n % 3 == 0,
        executed_actions: n * 7,
        held_actions: n,
        held_set: if n == 0 {
            String::new()
        } else {
            format!("{n}-00000000000000{n:02x}")
        },
        success: [None, Some(true), Some(false)][n as usize % 3],
        capabilities: if n % 2 == 0 {
            vec!["action_lines".into(), "observe".into()]
        } else {
            Vec::new()
        },
        results_issued: n % 4,
        results_seen: n % 5,
    };
    for count in [0, 1, 9] {
        let workflows: Vec<WorkflowInfo> = (0..count).map(info).collect();
        assert_eq!(
            workflows_json(&workflows),
            serde_json::to_string(&workflows).unwrap()
        );
    }

    #[derive(serde::Serialize)]
    struct SavedSession {
        engine: String,
        limiter: RateLimiter,
        #[serde(skip_serializing_if = "Option::is_none")]
        parts: Option<Vec<String>>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        secret_names: Vec<String>,
    }
    let mut limiter = RateLimiter::default();
    let settings = PolicySettings::default();
    for (index, workflow) in ["wf-1", "wf-\"2\"", "wf-1"].iter().enumerate() {
        let _ = limiter.admit(&settings, workflow, 1_700_000_000_000 + index as u64);
    }
    assert!(
        saved_session_json("", &limiter, None, &[]).contains(r#""per_workflow":[["wf-1",2],"#),
        "the limiter has windows to write"
    );
    for limiter in [RateLimiter::default(), limiter] {
        for parts in [
            None,
            Some(Vec::new()),
            Some(vec!["m.0".to_owned(), "w0x.1".to_owned()]),
        ] {
            for secret_names in [Vec::new(), vec!["xq7".to_owned(), "a \"b\"\n".to_owned()]] {
                let engine = r#"{"messages":[],"workflows":[{"id":"wf-1"}]}"#;
                let saved = SavedSession {
                    engine: engine.to_owned(),
                    limiter: limiter.clone(),
                    parts: parts.clone(),
                    secret_names: secret_names.clone(),
                };
                assert_eq!(
                    saved_session_json(engine, &limiter, parts.as_deref(), &secret_names),
                    serde_json::to_string(&saved).unwrap()
                );
            }
        }
    }

    let changes = PartChanges {
        set: vec![
            ("m.0".into(), r#"[{"processed":1}]"#.into()),
            ("head".into(), "{\"a\":\"\\u0001\"}".into()),
        ],
        remove: vec!["w1r.0".into()],
    };
    for changes in [PartChanges::default(), changes] {
        assert_eq!(
            part_changes_json(&changes),
            serde_json::to_string(&changes).unwrap()
        );
        assert_eq!(
            strings_json(&changes.remove),
            serde_json::to_string(&changes.remove).unwrap()
        );
    }
}
