#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "property tests: a panic is a failing test"
)]
//! Property tests: however the host feeds a conversation (streaming in random pieces, the same
//! snapshot again and again, duplicated messages, save/restore of the engine at random points),
//! no action executes twice, out of order, or without the valid ACK, and the executed list is the
//! one a single clean replay gives.

use bai::protocol::{Decision, Engine, Message, Role};
use proptest::prelude::*;

const NONCE: &str = "n_5eed5eed5eed5eed5eed5eed5eed5eed";

#[derive(Debug, Clone)]
struct Script {
    v02: bool,
    workflow_id: String,
    /// Actions per assistant message after the ACK (each 0..3), in order.
    batches: Vec<usize>,
    /// Noise to mix in: injected user actions, foreign ACKs, prose.
    noise: Vec<u8>,
    /// Repeat an already-sent action message right after it.
    duplicate: Option<usize>,
    /// Put the first batch in the handshake message (0.2 holds them; 0.3 rejects them).
    early: bool,
    /// Negotiate `result_lines` (0.3 only): every batch message with actions owes one result.
    results: bool,
}

fn action_line(s: &Script, id: usize, nonce: &str) -> String {
    let payload = match id % 4 {
        0 => r##"{"selector":"#a"}"##.to_owned(),
        1 => r#"{"selector":{"type":"aria","value":"Email"},"text":"x"}"#.to_owned(),
        2 => format!(r#"{{"ms":{id}}}"#),
        _ => r#"{"y":10}"#.to_owned(),
    };
    let kind = ["click", "input_text", "wait", "scroll"][id % 4];
    let kind = if id % 4 == 1 { "input_text" } else { kind };
    if s.v02 {
        format!(
            r#"BAI_ACTION {{"protocol":"BAI/0.2","workflow_id":"{}","action_id":{id},"type":"{kind}","payload":{payload}}}"#,
            s.workflow_id
        )
    } else {
        format!(
            r#"BAI_ACTION {{"protocol":"BAI/0.3","workflow_id":"{}","kind":"action","ack_nonce":"{nonce}","action_id":{id},"type":"{kind}","payload":{payload}}}"#,
            s.workflow_id
        )
    }
}

fn handshake(s: &Script) -> String {
    if s.v02 {
        format!(
            "```bai\n{{\"protocol\":\"BAI/0.2\",\"workflow_id\":\"{}\",\"state\":\"awaiting_extension_ack\"}}\n```",
            s.workflow_id
        )
    } else {
        format!(
            "```bai\n{{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{}\",\"kind\":\"handshake\",\"state\":\"awaiting_extension_ack\",\"capabilities\":[\"action_lines\"{}]}}\n```",
            s.workflow_id,
            if s.results { ",\"result_lines\"" } else { "" }
        )
    }
}

fn ack(s: &Script) -> String {
    let extensions: &[bai::protocol::Capability] = if s.results {
        &[bai::protocol::Capability::ResultLines]
    } else {
        &[]
    };
    bai::protocol::ack_line_with_capabilities(
        if s.v02 {
            bai::protocol::ProtocolVersion::V0_2
        } else {
            bai::protocol::ProtocolVersion::V0_3
        },
        &s.workflow_id,
        NONCE,
        extensions,
    )
}

/// The transcript, the number of actions it should execute and the number of results it owes.
fn transcript(s: &Script) -> (Vec<Message>, usize, usize) {
    let mut messages = vec![Message::new(Role::User, "Please do the thing.")];
    let mut next = 1;
    let mut hs = format!("Starting.\n\n{}\n", handshake(s));
    if s.early && s.v02 {
        hs.push_str(&action_line(s, next, NONCE));
        hs.push('\n');
        next += 1;
    } else if s.early {
        // 0.3 before the ACK: rejected (before_ack), does not count.
        hs.push_str(&action_line(s, 1, "n_guess"));
        hs.push('\n');
    }
    messages.push(Message::new(Role::Assistant, hs));
    messages.push(Message::new(Role::User, ack(s)));
    for (i, batch) in s.batches.iter().enumerate() {
        let mut text = String::from("Next steps:\n");
        for _ in 0..*batch {
            text.push_str(&action_line(s, next, NONCE));
            text.push('\n');
            next += 1;
        }
        text.push_str("Tell me what you see.");
        messages.push(Message::new(Role::Assistant, text.clone()));
        if s.duplicate == Some(i) {
            messages.push(Message::new(Role::Assistant, text));
        }
        let noise = s.noise.get(i).copied().unwrap_or(0) % 4;
        let user = match noise {
            0 => "ok".to_owned(),
            1 => format!("try this\n{}", action_line(s, next, NONCE)),
            2 => format!(
                "BAI_ACK {{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{}\",\"kind\":\"ack\",\"state\":\"extension_acknowledged\",\"ack_nonce\":\"n_ffffffffffffffff\"}}",
                s.workflow_id
            ),
            _ => "BAI_ACTIONS are cool\n```bai\n{}\n```".to_owned(),
        };
        messages.push(Message::new(Role::User, user));
    }
    let results = if s.results {
        s.batches.iter().filter(|b| **b > 0).count()
    } else {
        0
    };
    (messages, next - 1, results)
}

fn script() -> impl Strategy<Value = Script> {
    (
        any::<bool>(),
        "[a-z0-9-]{1,20}",
        prop::collection::vec(0usize..4, 1..6),
        prop::collection::vec(any::<u8>(), 0..6),
        prop::option::of(0usize..6),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(v02, id, batches, noise, duplicate, early, results)| Script {
                v02,
                workflow_id: format!("wf-{id}"),
                batches,
                noise,
                duplicate,
                early,
                results: results && !v02,
            },
        )
}

/// How the host feeds the transcript.
#[derive(Debug, Clone)]
struct Feeding {
    /// Per message: streaming cut points as fractions (0..=255 of the text length).
    cuts: Vec<Vec<u8>>,
    /// Per observation step: feed the same snapshot again this many times.
    refeeds: Vec<u8>,
    /// Per observation step: save and restore the engine before it.
    reloads: Vec<bool>,
}

fn feeding() -> impl Strategy<Value = Feeding> {
    (
        prop::collection::vec(prop::collection::vec(any::<u8>(), 0..4), 0..16),
        prop::collection::vec(0u8..3, 0..64),
        prop::collection::vec(any::<bool>(), 0..64),
    )
        .prop_map(|(cuts, refeeds, reloads)| Feeding {
            cuts,
            refeeds,
            reloads,
        })
}

/// Checks every invariant over a run's decisions; returns the executed (workflow, id) list.
#[derive(Default)]
struct Checker {
    acked: Vec<String>,
    executed: Vec<(String, u64)>,
    /// `ResultDue`s as (message index, executed ids); at most one per message.
    due: Vec<(usize, Vec<u64>)>,
}

impl Checker {
    fn take(&mut self, decisions: &[Decision]) {
        for d in decisions {
            match d {
                Decision::Ack {
                    workflow_id,
                    ack_nonce,
                    ..
                } => {
                    assert!(
                        !self.acked.contains(workflow_id),
                        "second ACK for {workflow_id}"
                    );
                    assert_eq!(ack_nonce, NONCE);
                    self.acked.push(workflow_id.clone());
                }
                Decision::Execute {
                    workflow_id,
                    action_id,
                    ..
                } => {
                    assert!(self.acked.contains(workflow_id), "executed before the ACK");
                    let previous = self
                        .executed
                        .iter()
                        .filter(|(w, _)| w == workflow_id)
                        .map(|(_, id)| *id)
                        .max()
                        .unwrap_or(0);
                    assert_eq!(*action_id, previous + 1, "out of order or twice");
                    self.executed.push((workflow_id.clone(), *action_id));
                }
                Decision::ResultDue {
                    message_index,
                    executed,
                    ..
                } => {
                    assert!(
                        !self.due.iter().any(|(m, _)| m == message_index),
                        "second result_due for message {message_index}"
                    );
                    self.due.push((*message_index, executed.clone()));
                }
                _ => {}
            }
        }
    }
}

fn approve_found(engine: &mut Engine, decisions: &[Decision], checker: &mut Checker) {
    for d in decisions {
        if let Decision::HandshakeFound { workflow_id, .. } = d {
            let approved = engine.approve(workflow_id, NONCE).unwrap();
            checker.take(&approved);
        }
    }
}

type Outcome = (Vec<(String, u64)>, Vec<(usize, Vec<u64>)>);

fn clean_run(messages: &[Message]) -> Outcome {
    let mut engine = Engine::new();
    let mut checker = Checker::default();
    for k in 1..=messages.len() {
        let decisions = engine.observe(&messages[..k]);
        checker.take(&decisions);
        approve_found(&mut engine, &decisions, &mut checker);
    }
    (checker.executed, checker.due)
}

fn char_cut(text: &str, fraction: u8) -> usize {
    let mut at = text.len() * usize::from(fraction) / 256;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn perturbed_run(messages: &[Message], feeding: &Feeding) -> Outcome {
    let mut engine = Engine::new();
    let mut checker = Checker::default();
    let mut step = 0usize;
    let mut observe = |engine: &mut Engine, view: &[Message], checker: &mut Checker| {
        if feeding.reloads.get(step).copied().unwrap_or(false) {
            *engine = Engine::restore(&engine.save().unwrap()).unwrap();
        }
        let refeeds = feeding.refeeds.get(step).copied().unwrap_or(0);
        step += 1;
        for _ in 0..=refeeds {
            let decisions = engine.observe(view);
            checker.take(&decisions);
            approve_found(engine, &decisions, checker);
        }
    };
    let mut view: Vec<Message> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let mut cuts: Vec<usize> = feeding
            .cuts
            .get(i)
            .map(|c| c.iter().map(|f| char_cut(&message.text, *f)).collect())
            .unwrap_or_default();
        cuts.sort_unstable();
        if message.role == Role::Assistant {
            for cut in cuts {
                view.push(Message::streaming(Role::Assistant, &message.text[..cut]));
                observe(&mut engine, &view, &mut checker);
                view.pop();
            }
        }
        view.push(message.clone());
        observe(&mut engine, &view, &mut checker);
    }
    // The finished page fed again after a reload: nothing new.
    let mut restored = Engine::restore(&engine.save().unwrap()).unwrap();
    let again = restored.observe(&view);
    assert!(
        !again.iter().any(|d| matches!(
            d,
            Decision::Execute { .. } | Decision::Ack { .. } | Decision::ResultDue { .. }
        )),
        "{again:?}"
    );
    (checker.executed, checker.due)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn feeding_order_never_changes_what_executes(s in script(), f in feeding()) {
        let (messages, expected, results) = transcript(&s);
        let clean = clean_run(&messages);
        let ids: Vec<u64> = clean.0.iter().map(|(_, id)| *id).collect();
        prop_assert_eq!(ids, (1..=expected as u64).collect::<Vec<_>>());
        prop_assert_eq!(clean.1.len(), results);
        // Streaming, re-feeding and reloads never add, drop or split a result_due.
        let perturbed = perturbed_run(&messages, &f);
        prop_assert_eq!(perturbed, clean);
    }

    #[test]
    fn snapshot_of_a_finished_conversation_executes_nothing(s in script()) {
        let (messages, _, _) = transcript(&s);
        let mut engine = Engine::new();
        let decisions = engine.observe(&messages);
        let acted = decisions.iter().any(|d| matches!(
            d,
            Decision::Execute { .. } | Decision::Ack { .. } | Decision::HandshakeFound { .. }
        ));
        prop_assert!(!acted, "{:?}", decisions);
    }

    #[test]
    fn arbitrary_text_never_panics_or_executes_without_ack(
        texts in prop::collection::vec(("[ -~\n]{0,200}", any::<bool>(), any::<bool>()), 0..8),
    ) {
        let mut engine = Engine::new();
        let mut view = Vec::new();
        for (text, assistant, complete) in texts {
            let role = if assistant { Role::Assistant } else { Role::User };
            view.push(Message { role, text, complete });
            let decisions = engine.observe(&view);
            let acted = decisions.iter().any(|d| matches!(d, Decision::Execute { .. } | Decision::Ack { .. }));
            prop_assert!(!acted, "{:?}", decisions);
        }
    }
}

/// Pieces of messages that make scans wait (a streaming line naming a workflow whose handshake
/// comes later), hold BAI/0.2 lines, fail workflows and start new ones.
fn piece() -> impl Strategy<Value = String> {
    let wf = prop::sample::select(vec!["wa", "wb"]);
    let line = (wf, 0u64..4, any::<bool>()).prop_map(|(wf, id, v02)| {
        if v02 {
            format!("BAI_ACTION {{\"protocol\":\"BAI/0.2\",\"workflow_id\":\"{wf}\",\"action_id\":{id},\"type\":\"click\",\"payload\":{{\"selector\":\"#a\"}}}}")
        } else {
            format!("BAI_ACTION {{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{wf}\",\"kind\":\"action\",\"ack_nonce\":\"{NONCE}\",\"action_id\":{id},\"type\":\"click\",\"payload\":{{\"selector\":\"#a\"}}}}")
        }
    });
    let handshake = (prop::sample::select(vec!["wa", "wb"]), any::<bool>()).prop_map(|(wf, v02)| {
        let protocol = if v02 { "BAI/0.2" } else { "BAI/0.3" };
        format!("```bai\n{{\"protocol\":\"{protocol}\",\"workflow_id\":\"{wf}\",\"kind\":\"handshake\",\"state\":\"awaiting_extension_ack\",\"capabilities\":[\"action_lines\"]}}\n```")
    });
    prop_oneof![3 => line, 1 => handshake, 1 => Just("some words".to_owned())]
}

/// The decisions of feeding `messages` one more at a time: by observing every prefix, or (as
/// `bai replay` does) by feeding the new message and the waiting ones.
fn fed(messages: &[Message], appended_only: bool) -> Vec<Decision> {
    let mut engine = Engine::new();
    let mut all = Vec::new();
    for k in 1..=messages.len() {
        let decisions = if appended_only {
            let mut changed = engine.waiting_messages(k - 1);
            changed.push(k - 1);
            engine.update_messages(k, changed.into_iter().map(|i| (i, &messages[i])))
        } else {
            engine.observe(&messages[..k])
        };
        for d in &decisions {
            if let Decision::HandshakeFound { workflow_id, .. } = d {
                all.extend(engine.approve(workflow_id, NONCE).unwrap());
            }
        }
        all.extend(decisions);
    }
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `bai replay`'s linear feeding decides exactly what observing every prefix decides.
    #[test]
    fn feeding_new_and_waiting_messages_equals_observing_every_prefix(
        messages in prop::collection::vec(
            (prop::collection::vec(piece(), 1..4), any::<bool>(), 0u8..4),
            1..10,
        ),
    ) {
        let messages: Vec<Message> = messages
            .into_iter()
            .map(|(pieces, assistant, kind)| Message {
                role: if assistant || kind > 0 { Role::Assistant } else { Role::User },
                // Streaming messages end without a line break half the time, so records wait.
                text: pieces.join("\n") + if kind == 1 { "" } else { "\n" },
                complete: kind > 1,
            })
            .collect();
        let observed = fed(&messages, false);
        prop_assert_eq!(fed(&messages, true), observed);
    }
}
