//! Fuzzes the scanner and the engine with arbitrary transcripts.
//!
//! Input layout: chunks separated by a 0x00 byte; each chunk is one message, its first byte is a
//! set of flags and the rest is the text (lossy UTF-8):
//! bit 0 assistant (else user), bit 1 still streaming, bit 2 deny instead of approve,
//! bit 3 save/restore the engine before this message, bit 4 stream the message in halves first,
//! bit 5 feed it through `update_message` instead of `observe`, bit 6 press stop afterwards,
//! bit 7 feed it through `update_messages`.
//!
//! Every `result_due` is answered as the extension would: `result_line` with a report of the
//! listed actions, posted as the next user message.
//!
//! Checks: no panic; scanner spans in bounds, ordered and on character boundaries; whatever the
//! engine's JSON reader accepts (records, bai blocks) serde_json reads as the same value; every
//! bai block is counted as a bai fence line; nothing runs
//! before an ACK or twice; at most one `result_due` per message, and `result_line` accepts it;
//! the engine's own result line is never reported as foreign; a restored engine equals the saved
//! one and decides nothing new on the same snapshot; the saved state stays proportional to the
//! input.
#![no_main]

use bai::protocol::fence::bai_fence_lines;
use bai::protocol::json::read_object;
use bai::protocol::scanner::{RecordScanner, ScanItem, bai_blocks};
use bai::protocol::{
    ActionResult, Decision, Engine, Message, RejectCode, ResultReport, ResultStatus, Role,
    WorkflowState,
};
use libfuzzer_sys::fuzz_target;

const NONCE: &str = "n_f00df00df00df00df00df00df00df00d";

fn check_scanner(text: &str) {
    for complete in [true, false] {
        let mut last = 0;
        for item in RecordScanner::new(text, 0, complete) {
            let span = match &item {
                ScanItem::Record { span, json, .. } => {
                    assert!(span.start <= json.start && json.end == span.end);
                    check_json(&text[json.clone()]);
                    span.clone()
                }
                ScanItem::Invalid { span, .. } => span.clone(),
                ScanItem::Partial { line_start } => *line_start..text.len(),
            };
            assert!(span.start >= last, "items out of order");
            assert!(span.end <= text.len());
            assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
            assert!(item.line_start() <= span.start);
            last = span.start;
        }
    }
    let blocks = bai_blocks(text);
    for block in &blocks {
        assert!(block.span.end <= text.len() && block.content.end <= text.len());
        assert!(text.get(block.content.clone()).is_some());
        check_json(&text[block.content.clone()]);
    }
    assert!(
        bai_fence_lines(text) >= blocks.len(),
        "a bai block not counted as a fence line"
    );
}

/// What the engine's JSON reader accepts, serde_json reads as the same value.
fn check_json(json: &str) {
    if let Ok(map) = read_object(json) {
        let theirs: serde_json::Value =
            serde_json::from_str(json).expect("serde_json reads it too");
        assert!(
            theirs == serde_json::Value::Object(map),
            "serde_json reads another value"
        );
    }
}

#[derive(Default)]
struct Ledger {
    acked: Vec<String>,
    executed: Vec<(String, u64)>,
    due: Vec<usize>,
}

impl Ledger {
    fn take(&mut self, decisions: &[Decision]) {
        for d in decisions {
            match d {
                Decision::Ack { workflow_id, .. } => {
                    assert!(!self.acked.contains(workflow_id), "second ACK");
                    self.acked.push(workflow_id.clone());
                }
                Decision::Execute {
                    workflow_id,
                    action_id,
                    ..
                } => {
                    assert!(self.acked.contains(workflow_id), "executed without ACK");
                    let previous = self
                        .executed
                        .iter()
                        .filter(|(w, _)| w == workflow_id)
                        .map(|(_, id)| *id)
                        .max()
                        .unwrap_or(0);
                    assert_eq!(*action_id, previous + 1, "executed twice or out of order");
                    self.executed.push((workflow_id.clone(), *action_id));
                }
                Decision::ResultDue { message_index, .. } => {
                    assert!(!self.due.contains(message_index), "second result_due");
                    self.due.push(*message_index);
                }
                _ => {}
            }
        }
    }
}

/// The result lines owed by `decisions`, built as the extension would.
fn results(engine: &mut Engine, decisions: &[Decision]) -> Vec<String> {
    let mut lines = Vec::new();
    for d in decisions {
        if let Decision::ResultDue {
            workflow_id,
            executed,
            ..
        } = d
        {
            let report = ResultReport {
                actions: executed
                    .iter()
                    .map(|id| ActionResult {
                        action_id: *id,
                        action_type: None,
                        status: ResultStatus::Ok,
                        code: None,
                        reason: None,
                        hints: Vec::new(),
                        effects: Vec::new(),
                        data: None,
                    })
                    .collect(),
                page: None,
                observation: None,
                changes: None,
            };
            lines.push(
                engine
                    .result_line(workflow_id, &report)
                    .expect("a due result can be built"),
            );
        }
    }
    lines
}

fn respond(engine: &mut Engine, decisions: &[Decision], deny: bool, ledger: &mut Ledger) {
    ledger.take(decisions);
    for d in decisions {
        if let Decision::HandshakeFound { workflow_id, .. } = d {
            // A workflow that failed in the same observation (a refused BAI/0.2 line held in
            // its handshake message) is no longer asked about, as in the extension.
            let awaiting = engine
                .workflow(workflow_id)
                .is_some_and(|w| w.state == WorkflowState::AwaitingExtensionAck);
            if !awaiting {
                continue;
            }
            let answer = if deny {
                engine.deny(workflow_id)
            } else {
                engine.approve(workflow_id, NONCE)
            };
            ledger.take(&answer.expect("a found handshake can be answered"));
        }
    }
}

fn reload(engine: &mut Engine) {
    let saved = engine.save().expect("state serializes");
    let restored = Engine::restore(&saved).expect("state deserializes");
    assert!(restored == *engine, "restore changed the state");
    *engine = restored;
}

fuzz_target!(|data: &[u8]| {
    let mut engine = Engine::new();
    let mut ledger = Ledger::default();
    let mut view: Vec<Message> = Vec::new();
    for chunk in data.split(|b| *b == 0).take(64) {
        let (flags, body) = match chunk.split_first() {
            Some((f, rest)) => (*f, rest),
            None => (0, &[][..]),
        };
        let text = String::from_utf8_lossy(body).into_owned();
        check_scanner(&text);
        let role = if flags & 1 != 0 {
            Role::Assistant
        } else {
            Role::User
        };
        let complete = flags & 2 == 0;
        let deny = flags & 4 != 0;
        if flags & 8 != 0 {
            reload(&mut engine);
        }
        if flags & 16 != 0 {
            let mut half = text.len() / 2;
            while !text.is_char_boundary(half) {
                half -= 1;
            }
            view.push(Message {
                role,
                text: text[..half].to_owned(),
                complete: false,
            });
            let decisions = engine.observe(&view);
            respond(&mut engine, &decisions, deny, &mut ledger);
            view.pop();
        }
        view.push(Message {
            role,
            text,
            complete,
        });
        let index = view.len() - 1;
        let decisions = if flags & 128 != 0 {
            engine.update_messages(view.len(), [(index, &view[index])])
        } else if flags & 32 != 0 {
            engine.update_message(index, &view[index])
        } else {
            engine.observe(&view)
        };
        respond(&mut engine, &decisions, deny, &mut ledger);
        for line in results(&mut engine, &decisions) {
            view.push(Message::new(Role::User, line));
            let posted = view.len() - 1;
            let decisions = engine.observe(&view);
            assert!(
                !decisions.iter().any(|d| matches!(
                    d,
                    Decision::Reject(r) if r.code == RejectCode::ForeignResult && r.message_index == posted
                )),
                "own result reported as foreign: {decisions:?}"
            );
            respond(&mut engine, &decisions, deny, &mut ledger);
        }
        if flags & 64 != 0 {
            for w in engine.workflows() {
                if !w.state.is_finished() {
                    ledger.take(&engine.stop(&w.workflow_id).expect("stop an open workflow"));
                }
            }
        }
    }
    // Reload and feed the same page: nothing new may happen.
    reload(&mut engine);
    let again = engine.observe(&view);
    assert!(
        !again.iter().any(|d| matches!(
            d,
            Decision::Execute { .. }
                | Decision::Ack { .. }
                | Decision::HandshakeFound { .. }
                | Decision::ResultDue { .. }
        )),
        "decided again after reload: {again:?}"
    );
    let saved = engine.save().expect("state serializes");
    assert!(
        saved.len() <= 16_384 + 4 * data.len() + 512 * view.len(),
        "state grew to {} bytes for {} input bytes",
        saved.len(),
        data.len()
    );
});
