//! Unit tests of the engine API that the CLI-based conformance suite cannot reach: approval,
//! denial, stop, incremental updates, streaming step by step, limits.

use super::*;
use crate::protocol::result::ResultReport;

const WF: &str = "wf-0001";
const NONCE: &str = "n_0123456789abcdef";

fn handshake(wf: &str) -> String {
    format!(
        "```bai\n{{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{wf}\",\"kind\":\"handshake\",\"state\":\"awaiting_extension_ack\",\"capabilities\":[\"action_lines\"]}}\n```"
    )
}

fn action(wf: &str, id: u64, selector: &str) -> String {
    format!(
        "BAI_ACTION {{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{wf}\",\"kind\":\"action\",\"ack_nonce\":\"{NONCE}\",\"action_id\":{id},\"type\":\"click\",\"payload\":{{\"selector\":\"{selector}\"}}}}"
    )
}

fn executed(decisions: &[Decision]) -> Vec<u64> {
    decisions
        .iter()
        .filter_map(|d| match d {
            Decision::Execute { action_id, .. } => Some(*action_id),
            _ => None,
        })
        .collect()
}

fn codes(decisions: &[Decision]) -> Vec<&'static str> {
    decisions
        .iter()
        .filter_map(|d| match d {
            Decision::Reject(r) => Some(r.code.code()),
            _ => None,
        })
        .collect()
}

/// An engine with `WF` acknowledged after messages [user, assistant handshake].
fn active_engine() -> (Engine, Vec<Message>) {
    let mut engine = Engine::new();
    let mut messages = vec![Message::new(Role::User, "go")];
    assert!(engine.observe(&messages).is_empty());
    messages.push(Message::new(Role::Assistant, handshake(WF)));
    let found = engine.observe(&messages);
    assert!(
        matches!(found.as_slice(), [Decision::HandshakeFound { workflow_id, .. }] if workflow_id == WF)
    );
    let approved = engine.approve(WF, NONCE).unwrap();
    assert!(matches!(&approved[0], Decision::Ack { line, .. } if line.contains(NONCE)));
    (engine, messages)
}

#[test]
fn approve_validates_the_nonce_and_state() {
    let mut engine = Engine::new();
    engine.observe(&[Message::new(Role::Assistant, handshake(WF))]);
    assert!(matches!(
        engine.approve(WF, "n_7d8f1c"),
        Err(EngineError::InvalidNonce { .. })
    ));
    assert!(matches!(
        engine.approve("other", NONCE),
        Err(EngineError::UnknownWorkflow { .. })
    ));
    assert_eq!(
        engine.workflow(WF).unwrap().state,
        WorkflowState::AwaitingExtensionAck
    );
    engine.approve(WF, NONCE).unwrap();
    assert!(matches!(
        engine.approve(WF, NONCE),
        Err(EngineError::NotAwaitingApproval { .. })
    ));
    assert_eq!(engine.workflow(WF).unwrap().state, WorkflowState::Active);
}

#[test]
fn deny_and_stop() {
    let mut engine = Engine::new();
    let mut messages = vec![Message::new(Role::Assistant, handshake(WF))];
    engine.observe(&messages);
    assert_eq!(
        engine.deny(WF).unwrap(),
        vec![Decision::StateChanged {
            workflow_id: WF.into(),
            state: WorkflowState::Denied
        }]
    );
    assert!(engine.approve(WF, NONCE).is_err());
    messages.push(Message::new(Role::Assistant, action(WF, 1, "#a")));
    assert_eq!(codes(&engine.observe(&messages)), vec!["workflow_finished"]);

    let (mut engine, mut messages) = active_engine();
    assert_eq!(engine.stop(WF).unwrap().len(), 1);
    assert!(matches!(
        engine.stop(WF),
        Err(EngineError::AlreadyFinished { .. })
    ));
    messages.push(Message::new(Role::Assistant, action(WF, 1, "#a")));
    let decisions = engine.observe(&messages);
    assert!(executed(&decisions).is_empty());
    assert_eq!(codes(&decisions), vec!["workflow_finished"]);
}

#[test]
fn stop_drops_held_v02_actions() {
    let mut engine = Engine::new();
    let text = "```bai\n{\"protocol\":\"BAI/0.2\",\"workflow_id\":\"w2\",\"state\":\"awaiting_extension_ack\"}\n```\nBAI_ACTION {\"protocol\":\"BAI/0.2\",\"workflow_id\":\"w2\",\"action_id\":1,\"type\":\"click\",\"payload\":{\"selector\":\"#a\"}}";
    engine.observe(&[Message::new(Role::Assistant, text)]);
    assert_eq!(engine.workflow("w2").unwrap().held_actions, 1);
    engine.stop("w2").unwrap();
    assert_eq!(engine.workflow("w2").unwrap().held_actions, 0);
    assert!(engine.approve("w2", NONCE).is_err());
}

fn v02_action(id: &str, selector: &str) -> String {
    format!(
        "BAI_ACTION {{\"protocol\":\"BAI/0.2\",\"workflow_id\":\"w2\",\"action_id\":{id},\"type\":\"click\",\"payload\":{{\"selector\":\"{selector}\"}}}}"
    )
}

const V02_HANDSHAKE: &str = "```bai\n{\"protocol\":\"BAI/0.2\",\"workflow_id\":\"w2\",\"state\":\"awaiting_extension_ack\"}\n```";

/// A BAI/0.2 line written before the ACK in a later assistant message (the user has not answered
/// yet), refused for each reason a live line is refused: the workflow fails, the user is no
/// longer asked, and nothing held runs.
#[test]
fn a_refused_held_line_in_a_later_message_fails_the_workflow_like_a_live_one() {
    let bad_lines = [
        (v02_action("3", "#c"), "id_out_of_sequence"),
        (v02_action("1", "#other"), "id_reused"),
        (v02_action("0", "#c"), "invalid_action_id"),
        (
            v02_action("2", "#c").replace("\"type\":\"click\"", "\"type\":\"hover\""),
            "unknown_action_type",
        ),
        (
            v02_action("2", "#c").replace("\"payload\"", "\"payload\":{},\"payload\""),
            "duplicate_key",
        ),
        (
            "BAI_ACTION {\"protocol\":\"BAI/0.2\",\"action_id\":2}".to_owned(),
            "invalid_record",
        ),
        (
            "BAI_ACTION {\"protocol\":".to_owned(),
            "unterminated_record",
        ),
        (v02_action("2", "#c") + " trailing", "invalid_json"),
    ];
    for (bad, code) in bad_lines {
        for live in [false, true] {
            let mut engine = Engine::new();
            let mut messages = vec![Message::new(
                Role::Assistant,
                format!("{V02_HANDSHAKE}\n{}", v02_action("1", "#a")),
            )];
            engine.observe(&messages);
            if live {
                engine.approve("w2", NONCE).unwrap();
            }
            messages.push(Message::new(
                Role::Assistant,
                format!("{bad}\n{}", v02_action("2", "#b")),
            ));
            let decisions = engine.observe(&messages);
            assert_eq!(codes(&decisions).first(), Some(&code), "{bad} live={live}");
            assert!(
                decisions.contains(&Decision::StateChanged {
                    workflow_id: "w2".into(),
                    state: WorkflowState::Failed
                }),
                "{bad} live={live}: {decisions:?}"
            );
            assert!(executed(&decisions).is_empty(), "{bad} live={live}");
            assert_eq!(engine.workflow("w2").unwrap().held_actions, 0);
            if !live {
                assert!(matches!(
                    engine.approve("w2", NONCE),
                    Err(EngineError::NotAwaitingApproval { .. })
                ));
            }
        }
    }
}

/// A BAI/0.2 line in an assistant message written before the handshake's message is refused as
/// `unknown_workflow` when first read. If that message re-renders (its text changes) while the
/// user has not yet answered the handshake, the re-scan must not hold the old line: approving
/// would then run an action the model wrote before the workflow existed.
#[test]
fn a_v02_line_before_the_handshake_message_is_never_held_even_when_rescanned() {
    let mut engine = Engine::new();
    let mut messages = vec![
        Message::new(Role::User, "go"),
        Message::new(
            Role::Assistant,
            format!("Old plan:\n{}", v02_action("1", "#delete")),
        ),
    ];
    assert_eq!(codes(&engine.observe(&messages)), vec!["unknown_workflow"]);
    messages.push(Message::new(Role::Assistant, V02_HANDSHAKE));
    let found = engine.observe(&messages);
    assert!(matches!(
        found.as_slice(),
        [Decision::HandshakeFound { .. }]
    ));
    // The earlier message re-renders before the user approves.
    messages[1] = Message::new(
        Role::Assistant,
        format!("Old plan: \n{}", v02_action("1", "#delete")),
    );
    let rescanned = engine.observe(&messages);
    assert_eq!(codes(&rescanned), vec!["before_ack"], "{rescanned:?}");
    assert_eq!(engine.workflow("w2").unwrap().held_actions, 0);
    let approved = engine.approve("w2", NONCE).unwrap();
    assert!(executed(&approved).is_empty(), "{approved:?}");
    assert_eq!(engine.workflow("w2").unwrap().state, WorkflowState::Active);
}

/// Older messages loaded on top move the handshake: it is found again (the last message holding
/// it), so a copy of it the model wrote above, in history this browser never saw, with a BAI/0.2
/// line after it, does not make that line count as written after the ACK.
#[test]
fn a_handshake_copy_above_in_history_loaded_later_does_not_anchor_the_workflow() {
    let mut engine = Engine::new();
    let mut messages = vec![
        Message::new(Role::User, "go"),
        Message::new(Role::Assistant, V02_HANDSHAKE),
    ];
    assert!(matches!(
        engine.observe(&messages).as_slice(),
        [Decision::HandshakeFound { .. }]
    ));
    assert!(executed(&engine.approve("w2", NONCE).unwrap()).is_empty());
    // History above loads: the model's earlier copy of the handshake, with a line after it.
    messages.insert(0, Message::new(Role::Assistant, v02_action("1", "#delete")));
    messages.insert(0, Message::new(Role::Assistant, V02_HANDSHAKE));
    messages.insert(0, Message::new(Role::User, "earlier"));
    let decisions = engine.observe(&messages);
    assert!(executed(&decisions).is_empty(), "{decisions:?}");
    assert_eq!(codes(&decisions), vec!["before_ack"], "{decisions:?}");
    // The model's next line, below the real handshake, runs.
    messages.push(Message::new(Role::Assistant, v02_action("1", "#next")));
    assert_eq!(executed(&engine.observe(&messages)), vec![1]);
}

/// The user edits an earlier message: the conversation shows another branch, without the
/// handshake. A BAI/0.2 line of that branch, numbered as the next action and below the old
/// handshake's index, is not placed after the ACK (it has no nonce): refused, the workflow stays
/// active, and the line written after the handshake on its own branch runs once it is back.
#[test]
fn a_v02_line_of_a_branch_without_the_handshake_is_refused_until_it_is_back() {
    let mut engine = Engine::new();
    let mut branch_y = vec![
        Message::new(Role::User, "go"),
        Message::new(Role::Assistant, V02_HANDSHAKE),
    ];
    engine.observe(&branch_y);
    engine.approve("w2", NONCE).unwrap();
    branch_y.push(Message::new(Role::User, "(the ACK)"));
    branch_y.push(Message::new(Role::Assistant, v02_action("1", "#login")));
    assert_eq!(executed(&engine.observe(&branch_y)), vec![1]);
    let branch_x = vec![
        Message::new(Role::User, "go, and clean up"),
        Message::new(Role::Assistant, "Which account?"),
        Message::new(Role::User, "mine"),
        Message::new(
            Role::Assistant,
            format!(
                "Plan, not to run yet:\n{}",
                v02_action("2", "#delete-account")
            ),
        ),
    ];
    let decisions = engine.observe(&branch_x);
    assert!(executed(&decisions).is_empty(), "{decisions:?}");
    assert_eq!(codes(&decisions), vec!["before_ack"], "{decisions:?}");
    assert_eq!(engine.workflow("w2").unwrap().state, WorkflowState::Active);
    // The lost anchor survives a reload.
    let mut engine = Engine::restore(&engine.save().unwrap()).unwrap();
    assert!(executed(&engine.observe(&branch_x)).is_empty());
    // Back on the handshake's branch, its next line runs.
    branch_y.push(Message::new(Role::Assistant, v02_action("2", "#orders")));
    assert_eq!(executed(&engine.observe(&branch_y)), vec![2]);
}

/// While the user has not answered a BAI/0.2 handshake, a line of a branch without it is not
/// held (approving would run it) and does not fail the workflow.
#[test]
fn a_v02_line_of_a_branch_without_the_handshake_is_not_held() {
    let mut engine = Engine::new();
    let branch_y = vec![
        Message::new(Role::User, "go"),
        Message::new(Role::Assistant, V02_HANDSHAKE),
    ];
    engine.observe(&branch_y);
    let branch_x = vec![
        Message::new(Role::User, "go, and clean up"),
        Message::new(Role::Assistant, v02_action("1", "#delete-account")),
        Message::new(Role::Assistant, "BAI_ACTION {\"protocol\":"),
    ];
    let decisions = engine.observe(&branch_x);
    assert_eq!(codes(&decisions), vec!["before_ack", "unterminated_record"]);
    let info = engine.workflow("w2").unwrap();
    assert_eq!(
        (info.state, info.held_actions),
        (WorkflowState::AwaitingExtensionAck, 0)
    );
    engine.observe(&branch_y);
    assert!(executed(&engine.approve("w2", NONCE).unwrap()).is_empty());
}

/// The question is shown for a BAI/0.2 handshake without actions; while the user reads it, the
/// model writes three action lines. Allow must not run what the question never announced: the
/// approval names the held set it showed, and a different one refuses it (nothing changes) so
/// the host asks again, showing the new count.
#[test]
fn approving_runs_only_the_held_actions_the_question_showed() {
    let mut engine = Engine::new();
    let mut messages = vec![
        Message::new(Role::User, "go"),
        Message::new(Role::Assistant, V02_HANDSHAKE),
    ];
    engine.observe(&messages);
    let shown = engine.workflow("w2").unwrap();
    assert_eq!((shown.held_actions, shown.held_set.as_str()), (0, ""));
    messages.push(Message::new(
        Role::Assistant,
        [
            v02_action("1", "#a"),
            v02_action("2", "#b"),
            v02_action("3", "#delete-account"),
        ]
        .join("\n"),
    ));
    engine.observe(&messages);
    assert_eq!(engine.workflow("w2").unwrap().held_actions, 3);
    let refused = engine.approve_shown("w2", NONCE, &shown.held_set);
    assert_eq!(
        refused,
        Err(EngineError::HeldActionsChanged {
            workflow_id: "w2".into(),
            held_actions: 3
        })
    );
    assert_eq!(
        refused.unwrap_err().code(),
        "held_actions_changed",
        "a stable code the host can tell"
    );
    let info = engine.workflow("w2").unwrap();
    assert_eq!(info.state, WorkflowState::AwaitingExtensionAck);
    // Asked again, with the three shown: they run.
    assert!(info.held_set.starts_with("3-"), "{}", info.held_set);
    let approved = engine.approve_shown("w2", NONCE, &info.held_set).unwrap();
    assert_eq!(executed(&approved), vec![1, 2, 3]);
}

/// The user regenerates the answer that held `click #delete-account` while the question is open;
/// the new answer has no action line. The held line is dropped with the message that held it,
/// whichever way the host feeds the change; a message taken off the transcript drops its lines
/// too.
#[test]
fn a_held_line_is_dropped_when_its_message_changes_or_goes() {
    let handshake_and_line = Message::new(
        Role::Assistant,
        format!("{V02_HANDSHAKE}\n{}", v02_action("1", "#delete-account")),
    );
    let regenerated = Message::new(
        Role::Assistant,
        format!("Let me start over.\n{V02_HANDSHAKE}"),
    );
    let user = Message::new(Role::User, "go");
    for batch in [false, true] {
        let mut engine = Engine::new();
        if batch {
            engine.update_messages(2, [(0, &user), (1, &handshake_and_line)]);
        } else {
            engine.observe(&[user.clone(), handshake_and_line.clone()]);
        }
        assert_eq!(engine.workflow("w2").unwrap().held_actions, 1);
        if batch {
            engine.update_messages(2, [(1, &regenerated)]);
        } else {
            engine.observe(&[user.clone(), regenerated.clone()]);
        }
        assert_eq!(
            engine.workflow("w2").unwrap().held_actions,
            0,
            "batch={batch}"
        );
        let approved = engine.approve("w2", NONCE).unwrap();
        assert!(
            executed(&approved).is_empty(),
            "batch={batch}: {approved:?}"
        );
    }
    // A later message holding a line, then taken off (the user regenerated the one before it).
    let mut engine = Engine::new();
    let mut messages = vec![user.clone(), Message::new(Role::Assistant, V02_HANDSHAKE)];
    engine.observe(&messages);
    messages.push(Message::new(
        Role::Assistant,
        v02_action("1", "#delete-account"),
    ));
    engine.observe(&messages);
    assert_eq!(engine.workflow("w2").unwrap().held_actions, 1);
    messages.pop();
    engine.observe(&messages);
    assert_eq!(engine.workflow("w2").unwrap().held_actions, 0);
    assert!(executed(&engine.approve("w2", NONCE).unwrap()).is_empty());
}

/// What a re-render or a shift does not change stays held, under the same held set: the
/// question stays valid. Lines held after a changed message's are taken back and held again
/// when their message is scanned afresh.
#[test]
fn held_lines_that_did_not_change_stay_held_under_the_same_set() {
    let mut engine = Engine::new();
    let mut messages = vec![
        Message::new(Role::User, "go"),
        Message::new(Role::Assistant, V02_HANDSHAKE),
        Message::new(Role::Assistant, v02_action("1", "#a")),
        Message::new(Role::Assistant, v02_action("2", "#b")),
    ];
    engine.observe(&messages[..2]);
    engine.observe(&messages);
    let shown = engine.workflow("w2").unwrap().held_set;
    assert!(shown.starts_with("2-"), "{shown}");
    // The token is the held actions written out, not a hash a second set could be aimed at.
    assert_eq!(
        shown.lines().nth(1),
        Some(r##"1 {"type":"click","payload":{"selector":{"type":"css","value":"#a"}}}"##),
        "{shown}"
    );
    assert!(shown.contains(r##""value":"#b""##), "{shown}");
    // Message 2 re-renders with the same line (its text changed before the line).
    messages[2] = Message::new(Role::Assistant, format!("Next:\n{}", v02_action("1", "#a")));
    engine.observe(&messages);
    assert_eq!(engine.workflow("w2").unwrap().held_set, shown);
    // The page drops its oldest message: everything moves up by one.
    messages.remove(0);
    engine.observe(&messages);
    assert_eq!(engine.workflow("w2").unwrap().held_set, shown);
    let approved = engine.approve_shown("w2", NONCE, &shown).unwrap();
    assert_eq!(executed(&approved), vec![1, 2]);
}

#[test]
fn a_handshake_whose_held_line_is_refused_in_the_same_message_is_not_offered() {
    let mut engine = Engine::new();
    let text = format!("{V02_HANDSHAKE}\n{}", v02_action("2", "#b"));
    let decisions = engine.observe(&[Message::new(Role::Assistant, text)]);
    assert!(
        !decisions
            .iter()
            .any(|d| matches!(d, Decision::HandshakeFound { .. })),
        "{decisions:?}"
    );
    assert_eq!(codes(&decisions), vec!["id_out_of_sequence"]);
    assert_eq!(engine.workflow("w2").unwrap().state, WorkflowState::Failed);
}

#[test]
fn held_v02_actions_survive_save_and_restore() {
    let mut engine = Engine::new();
    let text = "```bai\n{\"protocol\":\"BAI/0.2\",\"workflow_id\":\"w2\",\"state\":\"awaiting_extension_ack\"}\n```\nBAI_ACTION {\"protocol\":\"BAI/0.2\",\"workflow_id\":\"w2\",\"action_id\":1,\"type\":\"input_text\",\"payload\":{\"selector\":{\"type\":\"aria\",\"value\":\"Email\"},\"text\":\"a@b.c\"}}\nBAI_ACTION {\"protocol\":\"BAI/0.2\",\"workflow_id\":\"w2\",\"action_id\":2,\"type\":\"scroll\",\"payload\":{\"y\":40}}";
    engine.observe(&[Message::new(Role::Assistant, text)]);
    assert_eq!(engine.workflow("w2").unwrap().held_actions, 2);
    let saved = engine.save().unwrap();
    // The held actions are saved in their wire form and read back by the wire parser.
    assert!(
        saved.contains(r#""action":{"type":"scroll","payload":{"y":40.0}}"#),
        "{saved}"
    );
    let mut restored = Engine::restore(&saved).unwrap();
    assert_eq!(restored, engine);
    let decisions = restored.approve("w2", NONCE).unwrap();
    assert_eq!(executed(&decisions), vec![1, 2]);
    // A state whose held action does not parse is refused as a whole, not half restored.
    let broken = saved.replace(r#""y":40.0"#, r#""y":"40""#);
    assert!(Engine::restore(&broken).is_err());
}

#[test]
fn streaming_line_by_line_executes_each_record_once_when_its_line_ends() {
    let (mut engine, mut messages) = active_engine();
    let full = format!("{}\n{}\n", action(WF, 1, "#a"), action(WF, 2, "#b"));
    let mut seen = Vec::new();
    messages.push(Message::streaming(Role::Assistant, ""));
    for end in 0..=full.len() {
        if !full.is_char_boundary(end) {
            continue;
        }
        if let Some(last) = messages.last_mut() {
            last.text = full[..end].to_owned();
        }
        let decisions = engine.observe(&messages);
        assert!(codes(&decisions).is_empty(), "{decisions:?}");
        for id in executed(&decisions) {
            // Executed only once the line break after it arrived.
            assert!(full[..end].ends_with('\n'), "executed {id} at {end}");
            seen.push(id);
        }
    }
    if let Some(last) = messages.last_mut() {
        last.complete = true;
    }
    assert!(engine.observe(&messages).is_empty());
    assert_eq!(seen, vec![1, 2]);
}

#[test]
fn last_record_of_a_streaming_message_waits_for_completion() {
    let (mut engine, mut messages) = active_engine();
    messages.push(Message::streaming(Role::Assistant, action(WF, 1, "#a")));
    assert!(engine.observe(&messages).is_empty());
    messages.last_mut().unwrap().complete = true;
    assert_eq!(executed(&engine.observe(&messages)), vec![1]);
}

#[test]
fn update_message_is_incremental_and_knows_the_last_message() {
    let mut engine = Engine::new();
    assert!(
        engine
            .update_message(0, &Message::new(Role::User, "hi"))
            .is_empty()
    );
    let found = engine.update_message(1, &Message::new(Role::Assistant, handshake(WF)));
    assert!(matches!(
        found.as_slice(),
        [Decision::HandshakeFound { .. }]
    ));
    engine.approve(WF, NONCE).unwrap();
    let acted = engine.update_message(2, &Message::new(Role::Assistant, action(WF, 1, "#a")));
    assert_eq!(executed(&acted), vec![1]);
    // The same message again: nothing.
    assert!(
        engine
            .update_message(2, &Message::new(Role::Assistant, action(WF, 1, "#a")))
            .is_empty()
    );
    // A handshake that shows up in an older slot is not the newest message.
    let stale = engine.update_message(1, &Message::new(Role::Assistant, handshake("wf-other")));
    assert_eq!(codes(&stale), vec!["stale_handshake"]);
    // Far-away indexes are ignored, not allocated.
    assert!(
        engine
            .update_message(usize::MAX, &Message::new(Role::User, "x"))
            .is_empty()
    );
}

#[test]
fn save_restore_decides_nothing_twice() {
    let (mut engine, mut messages) = active_engine();
    messages.push(Message::new(
        Role::Assistant,
        format!("{}\n{}", action(WF, 1, "#a"), action(WF, 2, "#b")),
    ));
    assert_eq!(executed(&engine.observe(&messages)), vec![1, 2]);
    let saved = engine.save().unwrap();
    let mut restored = Engine::restore(&saved).unwrap();
    assert_eq!(restored, engine);
    assert!(restored.observe(&messages).is_empty());
    // A fresh engine on the same snapshot (state lost): the handshake is stale, nothing runs.
    let mut fresh = Engine::new();
    let decisions = fresh.observe(&messages);
    assert!(executed(&decisions).is_empty());
    assert!(codes(&decisions).contains(&"stale_handshake"));
}

#[test]
fn a_rerender_with_changed_prefix_is_rescanned_without_reexecuting() {
    let (mut engine, mut messages) = active_engine();
    messages.push(Message::new(Role::Assistant, action(WF, 1, "#a")));
    assert_eq!(executed(&engine.observe(&messages)), vec![1]);
    messages.last_mut().unwrap().text = format!(
        "Re-rendered:\n\n{}\n{}",
        action(WF, 1, "#a"),
        action(WF, 2, "#b")
    );
    assert_eq!(executed(&engine.observe(&messages)), vec![2]);
}

#[test]
fn repeated_rejections_are_reported_once_per_message() {
    let (mut engine, mut messages) = active_engine();
    messages.push(Message::new(Role::User, action(WF, 1, "#a")));
    assert_eq!(codes(&engine.observe(&messages)), vec!["action_from_user"]);
    messages.last_mut().unwrap().text = format!("{}\n", action(WF, 1, "#a"));
    assert!(engine.observe(&messages).is_empty());
}

#[test]
fn workflow_table_is_bounded() {
    let mut engine = Engine::new();
    let mut messages = Vec::new();
    for i in 0..(MAX_WORKFLOWS + 5) {
        let wf = format!("wf-{i}");
        messages.push(Message::new(Role::Assistant, handshake(&wf)));
        let found = engine.observe(&messages);
        assert!(
            matches!(found.as_slice(), [Decision::HandshakeFound { .. }]),
            "{i}: {found:?}"
        );
        engine.approve(&wf, NONCE).unwrap();
    }
    assert!(engine.workflows().len() <= MAX_WORKFLOWS);
    // A forgotten workflow is treated as stale, never re-offered.
    messages.push(Message::new(Role::Assistant, handshake("wf-0")));
    assert_eq!(codes(&engine.observe(&messages)), vec!["stale_handshake"]);
}

#[test]
fn handshake_needs_a_complete_message() {
    let mut engine = Engine::new();
    let mut messages = vec![Message::streaming(Role::Assistant, handshake(WF))];
    assert!(engine.observe(&messages).is_empty());
    messages[0].complete = true;
    assert!(matches!(
        engine.observe(&messages).as_slice(),
        [Decision::HandshakeFound { .. }]
    ));
}

#[test]
fn decisions_serialize_for_the_host() {
    let (mut engine, mut messages) = active_engine();
    messages.push(Message::new(Role::Assistant, action(WF, 1, "#a")));
    let decisions = engine.observe(&messages);
    let json = serde_json::to_string(&decisions).unwrap();
    assert!(json.contains(r#""decision":"execute""#), "{json}");
    let back: Vec<Decision> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, decisions);
}

#[test]
fn update_messages_knows_the_length_of_a_batch() {
    let mut engine = Engine::new();
    let handshake_message = Message::new(Role::Assistant, handshake(WF));
    let user = Message::new(Role::User, "hello");
    // Two messages arrive in one batch: the handshake is not the newest.
    let decisions = engine.update_messages(2, [(0, &handshake_message), (1, &user)]);
    assert_eq!(codes(&decisions), vec!["stale_handshake"]);
    // A batch whose newest message is the handshake offers it.
    let mut engine = Engine::new();
    let decisions = engine.update_messages(2, [(0, &user), (1, &handshake_message)]);
    assert!(matches!(
        decisions.as_slice(),
        [Decision::HandshakeFound { .. }]
    ));
    // Indexes beyond the stated length are ignored.
    assert!(engine.update_messages(2, [(5, &user)]).is_empty());
}

#[test]
fn a_conversation_opened_without_state_acknowledges_nothing_even_in_its_last_message() {
    let handshake = "```bai\n{\"protocol\":\"BAI/0.2\",\"workflow_id\":\"w-open\",\"state\":\"awaiting_extension_ack\",\"capabilities\":[\"action_lines\"]}\n```\nBAI_ACTION {\"protocol\":\"BAI/0.2\",\"workflow_id\":\"w-open\",\"action_id\":1,\"type\":\"click\",\"payload\":{\"selector\":\"#buy\"}}";
    let mut engine = Engine::new();
    let decisions = engine.observe_opened(&[Message::new(Role::Assistant, handshake)]);
    assert!(
        !decisions.iter().any(|d| matches!(
            d,
            Decision::HandshakeFound { .. } | Decision::Execute { .. }
        )),
        "{decisions:?}"
    );
    assert!(engine.approve("w-open", "n_0123456789abcdef").is_err());
    // A handshake written after the page opened is live as usual.
    let fresh = "```bai\n{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"w-new\",\"kind\":\"handshake\",\"state\":\"awaiting_extension_ack\",\"capabilities\":[\"action_lines\"]}\n```";
    let decisions = engine.update_messages(2, [(1, &Message::new(Role::Assistant, fresh))]);
    assert!(
        decisions
            .iter()
            .any(|d| matches!(d, Decision::HandshakeFound { .. })),
        "{decisions:?}"
    );
}

fn handshake_with(wf: &str, capabilities: &str) -> String {
    format!(
        "```bai\n{{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{wf}\",\"kind\":\"handshake\",\"state\":\"awaiting_extension_ack\",\"capabilities\":[{capabilities}]}}\n```"
    )
}

fn report() -> ResultReport {
    serde_json::from_str(r#"{"actions":[{"action_id":1,"status":"ok"}]}"#).unwrap()
}

#[test]
fn result_line_needs_result_lines_and_an_ack() {
    let (mut engine, _) = active_engine();
    assert!(matches!(
        engine.result_line(WF, &report()),
        Err(EngineError::ResultsNotNegotiated { .. })
    ));
    assert!(matches!(
        engine.result_line("nope", &report()),
        Err(EngineError::UnknownWorkflow { .. })
    ));
    let mut engine = Engine::new();
    engine.observe(&[Message::new(
        Role::Assistant,
        handshake_with(WF, r#""action_lines","result_lines""#),
    )]);
    assert!(matches!(
        engine.result_line(WF, &report()),
        Err(EngineError::NotAcknowledged { .. })
    ));
    engine.approve(WF, NONCE).unwrap();
    let first = engine.result_line(WF, &report()).unwrap();
    let second = engine.result_line(WF, &report()).unwrap();
    assert!(first.contains(r#""result_id":1,"#), "{first}");
    assert!(second.contains(r#""result_id":2,"#), "{second}");
    let info = engine.workflow(WF).unwrap();
    assert_eq!(info.capabilities, vec!["action_lines", "result_lines"]);
    assert_eq!((info.results_issued, info.results_seen), (2, 0));
    // The second line, posted and reformatted (key order, spacing), is still ours.
    let value: serde_json::Value =
        serde_json::from_str(second.strip_prefix("BAI_RESULT ").unwrap()).unwrap();
    let pretty = format!("BAI_RESULT {}", serde_json::to_string(&value).unwrap());
    let decisions = engine.observe(&[
        Message::new(
            Role::Assistant,
            handshake_with(WF, r#""action_lines","result_lines""#),
        ),
        Message::new(Role::User, pretty),
    ]);
    assert!(decisions.is_empty(), "{decisions:?}");
    assert_eq!(engine.workflow(WF).unwrap().results_seen, 1);
}

#[test]
fn state_saved_before_capabilities_restores_as_plain() {
    let (engine, _) = active_engine();
    let saved = engine.save().unwrap();
    assert!(!saved.contains("capabilities") && !saved.contains("results"));
    let restored = Engine::restore(&saved).unwrap();
    assert_eq!(restored, engine);
    assert!(restored.workflow(WF).unwrap().capabilities.is_empty());
}

#[test]
fn result_due_once_per_streamed_message_and_never_after_restore() {
    let mut engine = Engine::new();
    let mut messages = vec![Message::new(
        Role::Assistant,
        handshake_with(WF, r#""action_lines","result_lines""#),
    )];
    engine.observe(&messages);
    engine.approve(WF, NONCE).unwrap();
    let two = format!("{}\n{}\n", action(WF, 1, "#a"), action(WF, 2, "#b"));
    messages.push(Message::streaming(Role::Assistant, two.clone()));
    let streaming = engine.observe(&messages);
    assert_eq!(executed(&streaming), vec![1, 2]);
    assert!(
        !streaming
            .iter()
            .any(|d| matches!(d, Decision::ResultDue { .. }))
    );
    let mut engine = Engine::restore(&engine.save().unwrap()).unwrap();
    messages[1] = Message::new(Role::Assistant, two);
    let complete = engine.observe(&messages);
    assert!(
        matches!(complete.as_slice(), [Decision::ResultDue { executed, rejected, message_index: 1, .. }] if *executed == vec![1, 2] && rejected.is_empty()),
        "{complete:?}"
    );
    let mut engine = Engine::restore(&engine.save().unwrap()).unwrap();
    assert!(engine.observe(&messages).is_empty());
    // The host serializes it with the `result_due` tag.
    let json = serde_json::to_value(&complete[0]).unwrap();
    assert_eq!(json["decision"], "result_due");
}

/// `Decision::Execute` with an action and every option survives JSON both ways (the host keeps
/// copies).
#[test]
fn decisions_round_trip_with_options() {
    use crate::protocol::action::{Expectation, OnError};
    use crate::protocol::selector::Selector;
    let decision = Decision::Execute {
        workflow_id: "wf".into(),
        action_id: 3,
        action: Action::Assert {
            selector: Selector::css("#a"),
            expect: Expectation::ValueEquals { value: "x".into() },
        },
        options: ActionOptions {
            timeout_ms: Some(5000),
            on_error: OnError::Retry { count: 2 },
            reason: Some("Check the total".into()),
            tab: Some("t2".into()),
        },
    };
    let text = serde_json::to_string(&decision).unwrap();
    assert_eq!(
        serde_json::from_str::<Decision>(&text).unwrap(),
        decision,
        "{text}"
    );
}

/// An action line with extra top-level fields (`extended_actions` options).
fn action_with(wf: &str, id: u64, kind: &str, payload: &str, extra: &str) -> String {
    format!(
        "BAI_ACTION {{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{wf}\",\"kind\":\"action\",\"ack_nonce\":\"{NONCE}\",\"action_id\":{id},\"type\":\"{kind}\",\"payload\":{payload}{extra}}}"
    )
}

/// An engine with `WF` acknowledged with result lines and extended actions, and one assistant
/// message of `lines`, complete: its decisions.
fn ran(lines: &[String]) -> (Engine, Vec<Decision>) {
    let mut engine = Engine::new();
    let mut messages = vec![Message::new(
        Role::Assistant,
        handshake_with(
            WF,
            r#""action_lines","result_lines","observe","extended_actions""#,
        ),
    )];
    engine.observe(&messages);
    engine.approve(WF, NONCE).unwrap();
    messages.push(Message::new(Role::Assistant, lines.join("\n")));
    let decisions = engine.observe(&messages);
    (engine, decisions)
}

fn reply(json: &str) -> crate::protocol::outcome::ActionReply {
    serde_json::from_str(json).unwrap()
}

const CLICK: &str = r##"{"selector":{"type":"css","value":"#a"}}"##;
const NOT_FOUND: &str =
    r#"{"error":{"code":"not_found","message":"no #a","hints":["@e1 button \"A\""]}}"#;

#[test]
fn outcomes_retry_what_touched_nothing_then_stop_the_message() {
    use crate::protocol::outcome::{ActionStart, NextStep, SkipReason};
    let (mut engine, decisions) = ran(&[
        action_with(WF, 1, "click", CLICK, r#","on_error":"retry","retries":2"#),
        action_with(WF, 2, "click", CLICK, ""),
    ]);
    assert_eq!(engine.begin_action(WF, 1), ActionStart::Run);
    let first = engine
        .record_outcome(WF, 1, Some(&reply(NOT_FOUND)))
        .unwrap();
    assert_eq!(first.next, NextStep::Retry { attempt: 1 });
    let second = engine
        .record_outcome(WF, 1, Some(&reply(NOT_FOUND)))
        .unwrap();
    assert_eq!(second.next, NextStep::Retry { attempt: 2 });
    let last = engine
        .record_outcome(WF, 1, Some(&reply(NOT_FOUND)))
        .unwrap();
    assert_eq!(last.next, NextStep::StopMessage);
    assert_eq!(last.failure.unwrap().code, "not_found");
    // The outcome is over: another reply for it is the host's mistake.
    assert!(engine.record_outcome(WF, 1, None).is_err());
    assert_eq!(
        engine.begin_action(WF, 2),
        ActionStart::Skip {
            why: SkipReason::EarlierFailure
        }
    );
    let due = decisions.last().unwrap();
    let report = engine.message_report(due).unwrap();
    let line = serde_json::to_string(&report.actions).unwrap();
    assert_eq!(
        line,
        r#"[{"action_id":1,"type":"click","status":"failed","code":"not_found","reason":"no #a","hints":["@e1 button \"A\""]},{"action_id":2,"type":"click","status":"skipped"}]"#
    );
}

#[test]
fn outcomes_never_retry_after_a_touch_or_for_select_option() {
    use crate::protocol::outcome::NextStep;
    let select = r##"{"selector":{"type":"css","value":"#s"},"option":"x"}"##;
    let (mut engine, _) = ran(&[
        action_with(WF, 1, "click", CLICK, r#","on_error":"retry","retries":3"#),
        action_with(
            WF,
            2,
            "select_option",
            select,
            r#","on_error":"retry","retries":3"#,
        ),
    ]);
    engine.begin_action(WF, 1);
    let reloaded = r#"{"error":{"code":"target_reloaded","message":"gone"}}"#;
    let step = engine
        .record_outcome(WF, 1, Some(&reply(reloaded)))
        .unwrap();
    assert_eq!(step.next, NextStep::StopMessage);
    engine.actions_settled();
    // The settle keeps a result-lines workflow's failure until its result is built.
    assert!(matches!(
        engine.begin_action(WF, 2),
        crate::protocol::outcome::ActionStart::Skip { .. }
    ));
    let (mut engine, _) = ran(&[action_with(
        WF,
        1,
        "select_option",
        select,
        r#","on_error":"retry","retries":3"#,
    )]);
    engine.begin_action(WF, 1);
    let step = engine
        .record_outcome(WF, 1, Some(&reply(NOT_FOUND)))
        .unwrap();
    assert_eq!(step.next, NextStep::StopMessage);
}

#[test]
fn outcomes_skip_goes_on_but_a_refusal_by_the_user_stops() {
    use crate::protocol::outcome::{ActionStart, NextStep};
    let skip = r#","on_error":"skip""#;
    let (mut engine, _) = ran(&[
        action_with(WF, 1, "click", CLICK, skip),
        action_with(WF, 2, "click", CLICK, skip),
        action_with(WF, 3, "click", CLICK, ""),
    ]);
    engine.begin_action(WF, 1);
    let step = engine
        .record_outcome(WF, 1, Some(&reply(NOT_FOUND)))
        .unwrap();
    assert_eq!(step.next, NextStep::GoOn);
    assert_eq!(engine.begin_action(WF, 2), ActionStart::Run);
    let step = engine
        .record_outcome(WF, 2, Some(&reply(r#"{"answer":"deny"}"#)))
        .unwrap();
    assert_eq!(step.next, NextStep::StopMessage);
    assert_eq!(step.failure.unwrap().code, "denied_by_user");
    assert!(matches!(
        engine.begin_action(WF, 3),
        ActionStart::Skip { .. }
    ));
}

#[test]
fn outcomes_after_stop_are_skipped_and_not_retried() {
    use crate::protocol::outcome::{ActionStart, NextStep, SkipReason};
    let (mut engine, decisions) = ran(&[
        action_with(WF, 1, "click", CLICK, r#","on_error":"retry","retries":2"#),
        action_with(WF, 2, "click", CLICK, ""),
    ]);
    engine.begin_action(WF, 1);
    engine.stop(WF).unwrap();
    // Stop between attempts: no further attempt.
    let step = engine
        .record_outcome(WF, 1, Some(&reply(NOT_FOUND)))
        .unwrap();
    assert_eq!(step.next, NextStep::StopMessage);
    assert_eq!(
        engine.begin_action(WF, 2),
        ActionStart::Skip {
            why: SkipReason::Stopped
        }
    );
    assert!(executed(&decisions).contains(&2));
    // An action the engine never handed out does not run.
    assert!(matches!(
        engine.begin_action("other", 1),
        ActionStart::Skip { .. }
    ));
}

#[test]
fn outcomes_report_success_done_and_the_observation_apart() {
    use crate::protocol::outcome::{ActionStart, NextStep};
    let (mut engine, decisions) = ran(&[
        action_with(WF, 1, "click", CLICK, ""),
        action_with(WF, 2, "observe", "{}", ""),
        action_with(WF, 3, "done", r#"{"success":true,"summary":"ok"}"#, ""),
    ]);
    engine.begin_action(WF, 1);
    let ok = r#"{"result":{"effects":[{"kind":"navigation_started","url":"x"}]}}"#;
    assert_eq!(
        engine.record_outcome(WF, 1, Some(&reply(ok))).unwrap().next,
        NextStep::GoOn
    );
    engine.begin_action(WF, 2);
    let observed = r#"{"result":{"data":{"url":"u","title":"t","elements":"@e1"}}}"#;
    engine
        .record_outcome(WF, 2, Some(&reply(observed)))
        .unwrap();
    assert_eq!(engine.begin_action(WF, 3), ActionStart::Finished);
    let due = decisions
        .iter()
        .find(|d| matches!(d, Decision::ResultDue { .. }))
        .unwrap();
    let report = engine.message_report(due).unwrap();
    assert_eq!(
        serde_json::to_string(&report).unwrap(),
        r#"{"actions":[{"action_id":1,"type":"click","status":"ok","effects":["navigation_started"]},{"action_id":2,"type":"observe","status":"ok"},{"action_id":3,"type":"done","status":"ok"}],"observation":{"elements":"@e1"}}"#
    );
    // Nothing of this goes to the saved state.
    assert!(!engine.save().unwrap().contains("navigation_started"));
}

/// A state saved in parts (as the content script writes it) and read back is the same engine,
/// and a save after one more action writes a bounded amount.
#[test]
fn a_state_saved_in_parts_restores_exactly() {
    use super::persistence::{PartWriter, join_parts, split_parts};
    let (mut engine, mut messages) = active_engine();
    let mut writer = PartWriter::new();
    let mut last_write = 0;
    for id in 1..=300 {
        messages.push(Message::new(Role::Assistant, action(WF, id, "#a")));
        let decided = engine.observe(&messages);
        assert_eq!(executed(&decided), vec![id]);
        messages.push(Message::new(Role::User, "next"));
        engine.observe(&messages);
        let changes = writer.changes(split_parts(
            serde_json::from_str(&engine.save().unwrap()).unwrap(),
        ));
        last_write = changes.set.iter().map(|(_, json)| json.len()).sum();
    }
    let whole = engine.save().unwrap();
    assert!(
        last_write * 4 < whole.len(),
        "a write ({last_write} bytes) is a fraction of the state ({} bytes)",
        whole.len()
    );
    let parts = split_parts(serde_json::from_str(&whole).unwrap());
    let head = serde_json::from_str(&parts.last().unwrap().1).unwrap();
    let part = |name: &str| {
        parts
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, json)| json.clone())
    };
    let restored = Engine::restore(&join_parts(head, &part).unwrap().to_string()).unwrap();
    assert_eq!(restored, engine);
    assert_eq!(restored.save().unwrap(), whole);
    // And it decides nothing again.
    let mut restored = restored;
    assert!(executed(&restored.observe(&messages)).is_empty());
}

#[test]
fn a_result_due_decision_reads_back_from_its_json() {
    let (_, decisions) = ran(&[
        action_with(WF, 1, "click", CLICK, ""),
        action_with(WF, 2, "click", r#"{"selector":5}"#, ""),
    ]);
    let due = decisions
        .iter()
        .find(|d| matches!(d, Decision::ResultDue { .. }))
        .unwrap();
    let json = serde_json::to_string(due).unwrap();
    assert_eq!(
        Decision::result_due_from_json(&json).unwrap().as_ref(),
        Some(due)
    );
    let other = serde_json::to_string(&decisions[0]).unwrap();
    assert_eq!(Decision::result_due_from_json(&other).unwrap(), None);
    assert!(Decision::result_due_from_json("{").is_err());
    assert!(Decision::result_due_from_json(r#"{"decision":"result_due"}"#).is_err());
}

#[test]
fn any_active_follows_the_workflows_states() {
    let mut engine = Engine::new();
    assert!(!engine.any_active());
    engine.observe(&[Message::new(Role::Assistant, handshake(WF))]);
    // Found, not acknowledged yet: not running.
    assert!(!engine.any_active());
    engine.approve(WF, NONCE).unwrap();
    assert!(engine.any_active());
    engine.stop(WF).unwrap();
    assert!(!engine.any_active());
    assert_eq!(
        engine.any_active(),
        engine
            .workflows()
            .iter()
            .any(|w| w.state == WorkflowState::Active)
    );
}
