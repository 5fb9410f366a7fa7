//! Line marks: what became of each BAI line in the transcript, for the status marks the chat
//! tab draws beside them (ran, refused with the reason, waiting for the user, ignored).
//!
//! The marks are derived from the engine's own decisions and from what the host reports about
//! each action (begun, answered, asked about); nothing here decides whether anything runs. The
//! ledger is told the text of every message that changed, finds its record lines with the same
//! [`RecordScanner`] the engine uses, and ties each decision to the line it came from: a
//! rejection by its message and excerpt, an action by its workflow and `action_id`, a handshake
//! by its message's ```` ```bai ```` block. The extension's own lines (its ACK and result lines)
//! are marked only when their text is exactly a line this ledger saw issued: a copy of an old
//! ACK, or anything a page or model writes, never reads as ours.
//!
//! Marks live for the page's life (they are not saved): after a reload, lines from before it
//! carry no mark, which is "not known here", never a false ✓.

use serde::Serialize;

use super::error::{RejectCode, Rejection, excerpt};
use super::fence::bai_blocks;
use super::outcome::{ActionFailure, ActionStart, NextStep, OutcomeStep, SkipReason};
use super::record::{action_id_field, parse_object, workflow_field};
use super::scanner::{RecordPrefix, RecordScanner, ScanItem};
use super::sorted_map::SortedMap;
use super::{Decision, Message, Role};

/// The most record lines remembered per message (a pasted document full of examples).
const MAX_LINES_PER_MESSAGE: usize = 256;

/// What became of one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkStatus {
    /// Handed out to run, not begun yet.
    Queued,
    /// Running now.
    Running,
    /// Waiting for the user's answer to BAI's question.
    Waiting,
    /// Ran (an action that worked, an approved handshake, a line BAI posted).
    Ran,
    /// Refused or failed: the code and message say why.
    Refused,
    /// Not for BAI to run, and not a failure: a pasted example, a line only BAI may write, a
    /// stale or foreign ACK, an action skipped after an earlier one failed.
    Ignored,
}

/// What kind of line a mark sits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// A ```` ```bai ```` handshake block (its opening fence) or a `BAI_HANDSHAKE` line.
    Handshake,
    /// A `BAI_ACTION` line.
    Action,
    /// A `BAI_ACK` line.
    Ack,
    /// A `BAI_RESULT` line.
    Result,
}

impl LineKind {
    /// The JSON name (`"handshake"`, `"action"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Handshake => "handshake",
            Self::Action => "action",
            Self::Ack => "ack",
            Self::Result => "result",
        }
    }
}

impl MarkStatus {
    /// The JSON name (`"queued"`, `"ran"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::Waiting => "waiting",
            Self::Ran => "ran",
            Self::Refused => "refused",
            Self::Ignored => "ignored",
        }
    }
}

impl From<RecordPrefix> for LineKind {
    fn from(prefix: RecordPrefix) -> Self {
        match prefix {
            RecordPrefix::Action => Self::Action,
            RecordPrefix::Ack => Self::Ack,
            RecordPrefix::Handshake => Self::Handshake,
            RecordPrefix::Result => Self::Result,
        }
    }
}

/// One mark, as the host draws it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineMark {
    /// The message holding the line.
    pub message_index: usize,
    /// Byte offset of the line's record (or the block's opening fence) in the message's text.
    pub offset: usize,
    /// What the line is.
    pub kind: LineKind,
    /// What became of it.
    pub status: MarkStatus,
    /// The stable code of a refusal, failure or skip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// A plain sentence for the mark's tooltip.
    pub message: String,
}

/// A record line found in a message.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    offset: usize,
    kind: LineKind,
    /// The record's text (prefix to closing brace, or to the end of its line).
    text: String,
    workflow_id: Option<String>,
    action_id: Option<u64>,
    mark: Option<(MarkStatus, Option<String>, String)>,
}

/// Record lines per message and what became of each (see the module documentation).
#[derive(Debug, Default)]
pub struct LineMarks {
    messages: SortedMap<usize, (Role, Vec<Line>)>,
    /// Lines the extension issued (ACK and result lines), by their exact text.
    issued: Vec<String>,
    /// User messages that are the pasted protocol prompt.
    prompts: Vec<usize>,
    /// Changes whenever a mark, a line or a prompt does: the host re-reads the marks (and
    /// finds their lines on the page again) only then, and otherwise only moves them.
    revision: u64,
}

/// How BAI's own prompt begins ([`super::prompt::PROMPT_TEMPLATE`]; its test holds it to this).
const PROMPT_HEADER: &str = "## COPY_THIS_TO_CHATGPT";

/// The record lines of BAI's own prompt (its worked examples), by their text.
/// The record lines of BAI's own prompt ([`super::prompt::PROMPT_TEMPLATE`]), in order: written
/// out (its test holds them to the prompt) so the chat module carries these lines, not the
/// whole 12 KB prompt.
const PROMPT_EXAMPLE_LINES: &[&str] = &[
    "BAI_ACK {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf_123\",\"kind\":\"ack\",\"state\":\"extension_acknowledged\",\"ack_nonce\":\"n_7d8f1c\"}",
    "BAI_ACTION {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf_123\",\"kind\":\"action\",\"ack_nonce\":\"n_7d8f1c\",\"action_id\":1,\"type\":\"click\",\"payload\":{\"selector\":{\"type\":\"css\",\"value\":\"#login\"}}}",
    "BAI_ACTION {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf_123\",\"kind\":\"action\",\"ack_nonce\":\"n_7d8f1c\",\"action_id\":2,\"type\":\"input_text\",\"payload\":{\"selector\":{\"type\":\"aria\",\"value\":\"Email\"},\"text\":\"user@example.com\"}}",
    "BAI_ACTION {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf_123\",\"kind\":\"action\",\"ack_nonce\":\"n_7d8f1c\",\"action_id\":3,\"type\":\"input_text\",\"payload\":{\"selector\":{\"type\":\"aria\",\"value\":\"Password\"},\"text\":\"••••••••\"}}",
    "BAI_ACTION {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf_123\",\"kind\":\"action\",\"ack_nonce\":\"n_7d8f1c\",\"action_id\":4,\"type\":\"click\",\"payload\":{\"selector\":{\"type\":\"text\",\"value\":\"Sign in\"}}}",
    "BAI_ACTION {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf_123\",\"kind\":\"action\",\"ack_nonce\":\"n_7d8f1c\",\"action_id\":5,\"type\":\"done\",\"payload\":{\"success\":true,\"summary\":\"Signed in\"}}",
    "BAI_ACK {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf_123\",\"kind\":\"ack\",\"state\":\"extension_acknowledged\",\"ack_nonce\":\"n_7d8f1c\",\"capabilities\":[\"action_lines\",\"result_lines\",\"observe\",\"extended_actions\"]}",
    "BAI_ACTION {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf_123\",\"kind\":\"action\",\"ack_nonce\":\"n_7d8f1c\",\"action_id\":1,\"type\":\"observe\",\"payload\":{}}",
    "BAI_RESULT {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf_123\",\"kind\":\"result\",\"result_id\":1,\"state\":\"active\",\"actions\":[{\"action_id\":1,\"type\":\"observe\",\"status\":\"ok\"}],\"page\":{\"url\":\"https://app.example/login\",\"title\":\"Sign in\"},\"observation\":{\"elements\":[\"@e1 textbox \\\"Email\\\" required\",\"@e2 button \\\"Sign in\\\"\"]}}",
    "BAI_ACTION {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf_123\",\"kind\":\"action\",\"ack_nonce\":\"n_7d8f1c\",\"action_id\":2,\"type\":\"input_text\",\"payload\":{\"selector\":{\"type\":\"ref\",\"value\":\"@e1\"},\"text\":\"user@example.com\"}}",
    "BAI_ACTION {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf_123\",\"kind\":\"action\",\"ack_nonce\":\"n_7d8f1c\",\"action_id\":3,\"type\":\"click\",\"payload\":{\"selector\":{\"type\":\"ref\",\"value\":\"@e2\"}},\"timeout_ms\":5000,\"reason\":\"Submit the sign-in form\"}",
];

/// The text of every record line (complete or not) the scanner finds in `text`.
fn record_texts(text: &str) -> Vec<String> {
    RecordScanner::new(text, 0, true)
        .filter_map(|item| match item {
            ScanItem::Record { span, .. } | ScanItem::Invalid { span, .. } => {
                text.get(span).map(str::to_owned)
            }
            ScanItem::Partial { .. } => None,
        })
        .collect()
}

/// Whether a user message's text is the protocol prompt the user pasted, which the chat tab
/// shows folded. Only a message that begins as BAI's prompt does (leading whitespace aside) and
/// whose record lines are all the prompt's own examples: marker words anywhere else (a page
/// title carried into a `BAI_RESULT` line) never fold a message, so BAI's own results, and what
/// a page fed the model through them, stay in view.
pub fn is_protocol_prompt(role: Role, text: &str) -> bool {
    if role != Role::User || !text.trim_start().starts_with(PROMPT_HEADER) {
        return false;
    }
    record_texts(text)
        .iter()
        .all(|line| PROMPT_EXAMPLE_LINES.contains(&line.as_str()))
}

/// Rejections that mean "not BAI's to run" rather than "refused": lines in the wrong role (a
/// pasted example, a quoted result), lines BAI did not write, handshakes of an old conversation.
fn is_ignored(code: RejectCode) -> bool {
    matches!(
        code,
        RejectCode::ActionFromUser
            | RejectCode::AckFromAssistant
            | RejectCode::ForeignAck
            | RejectCode::StaleHandshake
            | RejectCode::ForeignResult
            | RejectCode::ResultFromAssistant
            | RejectCode::PlaceholderWorkflowId
    )
}

fn skip_message(why: SkipReason) -> (&'static str, &'static str) {
    match why {
        SkipReason::Stopped => ("stopped", "not run: the workflow was stopped or refused"),
        SkipReason::EarlierFailure => (
            "earlier_failure",
            "not run: an earlier action of this message failed",
        ),
        SkipReason::NotHandedOut => ("not_handed_out", "not run: its workflow is gone"),
    }
}

impl LineMarks {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Messages that changed (as fed to the engine): their record lines are found again. A line
    /// still at the same place with the same text keeps its mark (a re-rendered message).
    pub fn note_messages<'m>(&mut self, changes: impl IntoIterator<Item = (usize, &'m Message)>) {
        for (index, message) in changes {
            self.note_message(index, message);
        }
    }

    fn note_message(&mut self, index: usize, message: &Message) {
        let text = message.text.as_str();
        let mut lines: Vec<Line> = Vec::new();
        for item in RecordScanner::new(text, 0, message.complete) {
            let (prefix, span, json) = match item {
                ScanItem::Record {
                    prefix, span, json, ..
                } => (prefix, span, Some(json)),
                ScanItem::Invalid { prefix, span, .. } => (prefix, span, None),
                ScanItem::Partial { .. } => break,
            };
            if lines.len() >= MAX_LINES_PER_MESSAGE {
                break;
            }
            let map = json
                .and_then(|json| text.get(json))
                .and_then(|json| parse_object(json).ok());
            lines.push(Line {
                offset: span.start,
                kind: prefix.into(),
                text: text.get(span).unwrap_or_default().to_owned(),
                workflow_id: map.as_ref().and_then(workflow_field).map(str::to_owned),
                action_id: map.as_ref().and_then(|map| action_id_field(map).ok()),
                mark: None,
            });
        }
        if message.role == Role::Assistant {
            if let Some(block) = bai_blocks(text).first() {
                let content = text.get(block.content.clone()).unwrap_or_default();
                let workflow_id = parse_object(content.trim())
                    .ok()
                    .as_ref()
                    .and_then(workflow_field)
                    .map(str::to_owned);
                let at = lines
                    .iter()
                    .position(|line| line.offset > block.span.start)
                    .unwrap_or(lines.len());
                lines.insert(
                    at,
                    Line {
                        offset: block.span.start,
                        kind: LineKind::Handshake,
                        text: text.get(block.span.clone()).unwrap_or_default().to_owned(),
                        workflow_id,
                        action_id: None,
                        mark: None,
                    },
                );
            }
        }
        // Marks of lines still where they were, with the same text, are kept.
        if let Some((role, old)) = self.messages.get(index) {
            if *role == message.role {
                for line in &mut lines {
                    if let Some(before) = old
                        .iter()
                        .find(|o| o.offset == line.offset && o.text == line.text)
                    {
                        line.mark.clone_from(&before.mark);
                    }
                }
            }
        }
        for line in &mut lines {
            if line.mark.is_none()
                && matches!(line.kind, LineKind::Ack | LineKind::Result)
                && message.role == Role::User
                && self.issued.iter().any(|issued| issued.trim() == line.text)
            {
                line.mark = Some((MarkStatus::Ran, None, "posted by BAI".to_owned()));
            }
        }
        let was_prompt = self.prompts.contains(&index);
        let is_prompt = is_protocol_prompt(message.role, text);
        if was_prompt != is_prompt {
            self.prompts.retain(|&i| i != index);
            if is_prompt {
                self.prompts.push(index);
            }
            self.revision += 1;
        }
        let before = self.messages.get(index);
        if before.is_some_and(|(role, old)| *role == message.role && *old == lines)
            || (before.is_none() && lines.is_empty())
        {
            return;
        }
        self.revision += 1;
        if lines.is_empty() {
            self.messages.remove(index);
        } else {
            self.messages.insert(index, (message.role, lines));
        }
    }

    /// Changes whenever what [`LineMarks::marks`] or [`LineMarks::prompts`] answer may have.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The transcript is now `len` messages long: lines of messages gone are forgotten.
    pub fn truncate(&mut self, len: usize) {
        let before = (self.messages.len(), self.prompts.len());
        self.messages.retain(|&index, _| index < len);
        self.prompts.retain(|&index| index < len);
        if before != (self.messages.len(), self.prompts.len()) {
            self.revision += 1;
        }
    }

    /// A line the extension is about to post (its ACK or a result line): when it shows up in a
    /// user message, it is marked as BAI's own.
    pub fn note_issued(&mut self, line: &str) {
        if !self.issued.iter().any(|issued| issued == line) {
            self.issued.push(line.to_owned());
        }
    }

    /// The engine's decisions, as it returned them (from a poll, an approval, a stop).
    pub fn note_decisions(&mut self, decisions: &[Decision]) {
        for decision in decisions {
            match decision {
                Decision::HandshakeFound {
                    workflow_id,
                    message_index,
                    ..
                } => {
                    if let Some(line) = self.handshake_line(*message_index, workflow_id) {
                        line.mark = Some((
                            MarkStatus::Waiting,
                            None,
                            "waiting for you to allow or refuse this workflow".to_owned(),
                        ));
                        self.revision += 1;
                    }
                }
                Decision::Ack { line, .. } => self.note_issued(line),
                Decision::Execute {
                    workflow_id,
                    action_id,
                    ..
                } => self.set_action(
                    workflow_id,
                    *action_id,
                    MarkStatus::Queued,
                    None,
                    "queued to run",
                ),
                Decision::Reject(rejection) => self.note_rejection(rejection),
                _ => {}
            }
        }
    }

    /// The user allowed (`true`) or refused the workflow's handshake.
    pub fn note_answer(&mut self, workflow_id: &str, allowed: bool) {
        let mark = if allowed {
            (MarkStatus::Ran, None, "allowed by you".to_owned())
        } else {
            (
                MarkStatus::Refused,
                Some("denied".to_owned()),
                "you refused this workflow (or nobody answered in time)".to_owned(),
            )
        };
        for (_, lines) in self.messages.values_mut().rev() {
            if let Some(line) = lines.iter_mut().find(|line| {
                line.kind == LineKind::Handshake
                    && line.workflow_id.as_deref() == Some(workflow_id)
                    && line
                        .mark
                        .as_ref()
                        .is_some_and(|m| m.0 == MarkStatus::Waiting)
            }) {
                line.mark = Some(mark);
                self.revision += 1;
                return;
            }
        }
    }

    /// BAI asked the user about an action; the mark waits for the answer.
    pub fn note_question(&mut self, workflow_id: &str, action_id: u64) {
        self.set_action(
            workflow_id,
            action_id,
            MarkStatus::Waiting,
            None,
            "waiting for your answer",
        );
    }

    /// The engine's answer to `begin_action`.
    pub fn note_start(&mut self, workflow_id: &str, action_id: u64, start: &ActionStart) {
        match start {
            ActionStart::Run => {
                self.set_action(workflow_id, action_id, MarkStatus::Running, None, "running");
            }
            ActionStart::Finished => {
                self.set_action(workflow_id, action_id, MarkStatus::Ran, None, "done");
            }
            ActionStart::Skip { why } => {
                let (code, message) = skip_message(*why);
                self.set_action(
                    workflow_id,
                    action_id,
                    MarkStatus::Ignored,
                    Some(code),
                    message,
                );
            }
        }
    }

    /// An action was refused before it ran (the rate limits).
    pub fn note_refused(&mut self, workflow_id: &str, action_id: u64, failure: &ActionFailure) {
        self.set_action(
            workflow_id,
            action_id,
            MarkStatus::Refused,
            Some(&failure.code),
            &failure.message,
        );
    }

    /// The engine's answer to `record_outcome`.
    pub fn note_outcome(&mut self, workflow_id: &str, action_id: u64, step: &OutcomeStep) {
        match (&step.next, &step.failure) {
            (NextStep::Retry { .. }, _) => {
                self.set_action(
                    workflow_id,
                    action_id,
                    MarkStatus::Running,
                    None,
                    "trying again",
                );
            }
            (_, Some(failure)) => self.note_refused(workflow_id, action_id, failure),
            (_, None) => self.set_action(workflow_id, action_id, MarkStatus::Ran, None, "ran"),
        }
    }

    /// Every mark, by message and line order.
    pub fn marks(&self) -> Vec<LineMark> {
        self.messages
            .iter()
            .flat_map(|(&message_index, (_, lines))| {
                lines.iter().filter_map(move |line| {
                    let (status, code, message) = line.mark.clone()?;
                    Some(LineMark {
                        message_index,
                        offset: line.offset,
                        kind: line.kind,
                        status,
                        code,
                        message,
                    })
                })
            })
            .collect()
    }

    /// The user messages that are the pasted protocol prompt.
    pub fn prompts(&self) -> &[usize] {
        &self.prompts
    }

    fn handshake_line(&mut self, message_index: usize, workflow_id: &str) -> Option<&mut Line> {
        let (_, lines) = self.messages.get_mut(message_index)?;
        let at = lines
            .iter()
            .position(|l| {
                l.kind == LineKind::Handshake && l.workflow_id.as_deref() == Some(workflow_id)
            })
            .or_else(|| lines.iter().position(|l| l.kind == LineKind::Handshake))?;
        lines.get_mut(at)
    }

    /// Marks the `BAI_ACTION` line of `workflow_id` with `action_id` in the newest assistant
    /// message that has one still open.
    fn set_action(
        &mut self,
        workflow_id: &str,
        action_id: u64,
        status: MarkStatus,
        code: Option<&str>,
        message: &str,
    ) {
        for (role, lines) in self.messages.values_mut().rev() {
            if *role != Role::Assistant {
                continue;
            }
            // The first line with this id whose fate is still open (a later line reusing the
            // id was refused by the engine and keeps that mark).
            if let Some(line) = lines.iter_mut().find(|line| {
                line.kind == LineKind::Action
                    && line.workflow_id.as_deref() == Some(workflow_id)
                    && line.action_id == Some(action_id)
                    && line.mark.as_ref().is_none_or(|(status, ..)| {
                        matches!(
                            status,
                            MarkStatus::Queued | MarkStatus::Running | MarkStatus::Waiting
                        )
                    })
            }) {
                line.mark = Some((status, code.map(str::to_owned), message.to_owned()));
                self.revision += 1;
                return;
            }
        }
    }

    fn note_rejection(&mut self, rejection: &Rejection) {
        let status = if is_ignored(rejection.code) {
            MarkStatus::Ignored
        } else {
            MarkStatus::Refused
        };
        let mark = (
            status,
            Some(rejection.code.code().to_owned()),
            rejection.reason.clone(),
        );
        let Some((_, lines)) = self.messages.get_mut(rejection.message_index) else {
            return;
        };
        // The engine reports each line once, with an excerpt of its text: the first line of the
        // message with that excerpt and no mark yet is the one (the same text twice in one
        // message gets one mark each, in order).
        let by_text = lines
            .iter()
            .position(|line| line.mark.is_none() && excerpt(&line.text) == rejection.excerpt)
            .or_else(|| {
                lines
                    .iter()
                    .position(|line| excerpt(&line.text) == rejection.excerpt)
            });
        let handshake = || {
            matches!(
                rejection.code,
                RejectCode::StaleHandshake
                    | RejectCode::InvalidHandshake
                    | RejectCode::MultipleHandshakeBlocks
                    | RejectCode::UnsupportedProtocol
                    | RejectCode::InvalidWorkflowId
                    | RejectCode::PlaceholderWorkflowId
            )
            .then(|| {
                lines
                    .iter()
                    .position(|line| line.kind == LineKind::Handshake)
            })
            .flatten()
        };
        if let Some(line) = by_text.or_else(handshake).and_then(|at| lines.get_mut(at)) {
            line.mark = Some(mark);
            self.revision += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    /// The sorted list answers as the `BTreeMap` it replaced, over random inserts, removals
    /// and truncations.
    #[test]
    fn by_index_answers_as_a_btree_map() {
        use std::collections::BTreeMap;
        let mut ours = SortedMap::default();
        let mut theirs = BTreeMap::new();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for step in 0..20_000_usize {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let index = (state % 40) as usize;
            match state % 7 {
                0..=2 => {
                    ours.insert(index, step);
                    theirs.insert(index, step);
                }
                3..=4 => {
                    ours.remove(index);
                    theirs.remove(&index);
                }
                5 => {
                    ours.retain(|&at, _| at < index + 10);
                    theirs.retain(|&at, _| at < index + 10);
                }
                _ => {
                    if let (Some(a), Some(b)) = (ours.get_mut(index), theirs.get_mut(&index)) {
                        *a += 1;
                        *b += 1;
                    }
                }
            }
            assert_eq!(ours.get(index), theirs.get(&index));
            assert_eq!(ours.len(), theirs.len());
            assert!(ours.iter().eq(theirs.iter()));
            assert!(
                ours.values_mut()
                    .rev()
                    .map(|v| *v)
                    .eq(theirs.values().rev().copied())
            );
        }
    }

    #[test]
    fn prompt_example_lines_are_the_prompts() {
        assert_eq!(
            record_texts(crate::protocol::prompt::PROMPT_TEMPLATE),
            PROMPT_EXAMPLE_LINES
        );
    }

    #[test]
    fn json_names_are_the_serialized_names() {
        use super::{LineKind, MarkStatus};
        for kind in [
            LineKind::Handshake,
            LineKind::Action,
            LineKind::Ack,
            LineKind::Result,
        ] {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
        for status in [
            MarkStatus::Queued,
            MarkStatus::Running,
            MarkStatus::Waiting,
            MarkStatus::Ran,
            MarkStatus::Refused,
            MarkStatus::Ignored,
        ] {
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
        }
    }

    use super::*;
    use crate::protocol::Engine;

    fn handshake(workflow_id: &str) -> String {
        format!(
            "Ready.\n\n```bai\n{{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{workflow_id}\",\"kind\":\"handshake\",\"state\":\"awaiting_extension_ack\",\"capabilities\":[\"action_lines\"]}}\n```"
        )
    }

    fn action(workflow_id: &str, nonce: &str, id: u64, kind: &str, payload: &str) -> String {
        format!(
            "BAI_ACTION {{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{workflow_id}\",\"kind\":\"action\",\"ack_nonce\":\"{nonce}\",\"action_id\":{id},\"type\":\"{kind}\",\"payload\":{payload}}}"
        )
    }

    const NONCE: &str = "n_0123456789abcdef0123456789abcdef";

    /// Feeds one new message to the engine and the ledger, as the chat session does.
    fn feed(engine: &mut Engine, marks: &mut LineMarks, all: &mut Vec<Message>, message: Message) {
        all.push(message);
        let index = all.len() - 1;
        let changes = [(index, &all[index])];
        marks.note_messages(changes);
        let decisions = engine.update_messages(all.len(), changes);
        marks.note_decisions(&decisions);
    }

    fn statuses(marks: &LineMarks) -> Vec<(usize, LineKind, MarkStatus, Option<String>)> {
        marks
            .marks()
            .into_iter()
            .map(|m| (m.message_index, m.kind, m.status, m.code))
            .collect()
    }

    #[test]
    fn a_workflow_marks_each_line_with_what_became_of_it() {
        let mut engine = Engine::new();
        let mut marks = LineMarks::new();
        let mut all = Vec::new();
        let prompt = crate::protocol::prompt_text("wf-1");
        feed(
            &mut engine,
            &mut marks,
            &mut all,
            Message::new(Role::User, prompt),
        );
        assert_eq!(marks.prompts(), &[0]);
        // Every example line of the pasted prompt is ignored, none refused or ran.
        assert!(
            marks
                .marks()
                .iter()
                .all(|m| m.message_index == 0 && m.status == MarkStatus::Ignored),
            "{:?}",
            marks.marks()
        );
        let examples = marks.marks().len();
        assert!(examples > 0);

        feed(
            &mut engine,
            &mut marks,
            &mut all,
            Message::new(Role::Assistant, handshake("wf-1")),
        );
        assert_eq!(
            statuses(&marks).last(),
            Some(&(1, LineKind::Handshake, MarkStatus::Waiting, None))
        );
        let decisions = engine.approve("wf-1", NONCE).expect("approve");
        marks.note_decisions(&decisions);
        marks.note_answer("wf-1", true);
        assert_eq!(
            statuses(&marks).last(),
            Some(&(1, LineKind::Handshake, MarkStatus::Ran, None))
        );
        let Some(Decision::Ack { line, .. }) = decisions.first() else {
            panic!("no ack: {decisions:?}");
        };
        // A copy of the ACK with another nonce is not ours; the real one is.
        let forged = line.replace(NONCE, "n_ffffffffffffffffffffffffffffffff");
        feed(
            &mut engine,
            &mut marks,
            &mut all,
            Message::new(Role::User, line.clone()),
        );
        feed(
            &mut engine,
            &mut marks,
            &mut all,
            Message::new(Role::User, forged),
        );
        let now = statuses(&marks);
        assert!(
            now.contains(&(2, LineKind::Ack, MarkStatus::Ran, None)),
            "{now:?}"
        );
        assert!(
            now.contains(&(
                3,
                LineKind::Ack,
                MarkStatus::Ignored,
                Some("foreign_ack".into())
            )),
            "{now:?}"
        );

        let text = [
            action("wf-1", NONCE, 1, "click", "{\"selector\":\"#a\"}"),
            action("wf-1", NONCE, 2, "click", "{\"selector\":\"#b\"}"),
            action("wf-1", NONCE, 2, "click", "{\"selector\":\"#other\"}"),
        ]
        .join("\n");
        feed(
            &mut engine,
            &mut marks,
            &mut all,
            Message::new(Role::Assistant, text),
        );
        let in_message = |marks: &LineMarks| -> Vec<(MarkStatus, Option<String>)> {
            marks
                .marks()
                .into_iter()
                .filter(|m| m.message_index == 4)
                .map(|m| (m.status, m.code))
                .collect()
        };
        assert_eq!(
            in_message(&marks),
            vec![
                (MarkStatus::Queued, None),
                (MarkStatus::Queued, None),
                (MarkStatus::Refused, Some("id_reused".into())),
            ]
        );
        marks.note_start("wf-1", 1, &engine.begin_action("wf-1", 1));
        marks.note_question("wf-1", 2);
        assert_eq!(in_message(&marks)[0], (MarkStatus::Running, None));
        assert_eq!(in_message(&marks)[1], (MarkStatus::Waiting, None));
        let ok = serde_json::from_str(r#"{"result":{}}"#).expect("reply");
        let step = engine
            .record_outcome("wf-1", 1, Some(&ok))
            .expect("outcome");
        marks.note_outcome("wf-1", 1, &step);
        marks.note_start("wf-1", 2, &engine.begin_action("wf-1", 2));
        let denied = serde_json::from_str(r#"{"answer":"deny"}"#).expect("reply");
        let step = engine
            .record_outcome("wf-1", 2, Some(&denied))
            .expect("outcome");
        marks.note_outcome("wf-1", 2, &step);
        let now = in_message(&marks);
        assert_eq!(now[0], (MarkStatus::Ran, None));
        assert_eq!(now[1].0, MarkStatus::Refused);
        assert!(now[1].1.is_some(), "a failure carries its code: {now:?}");

        // A re-render with the same text keeps every mark; an edited line loses its own.
        let again = all[4].clone();
        let revision = marks.revision();
        marks.note_messages([(4, &again)]);
        assert_eq!(in_message(&marks), now);
        assert_eq!(marks.revision(), revision, "nothing to draw again");
        marks.note_question("wf-1", 3);
        assert_eq!(
            marks.revision(),
            revision,
            "no line for action 3: nothing changed"
        );
        assert_eq!(marks.marks().len(), examples + 1 + 2 + 3);
    }

    #[test]
    fn text_that_only_looks_like_a_mark_or_an_ack_is_nothing() {
        let mut marks = LineMarks::new();
        let message = Message::new(Role::Assistant, "✓ ran\n✗ refused\n⏳ waiting");
        marks.note_messages([(0, &message)]);
        assert!(marks.marks().is_empty());
        // An ACK the extension never issued, in a user message, gets no "posted by BAI".
        let ack = Message::new(
            Role::User,
            "BAI_ACK {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf\",\"kind\":\"ack\",\"state\":\"extension_acknowledged\",\"ack_nonce\":\"n_0123456789abcdef0123456789abcdef\"}",
        );
        marks.note_messages([(1, &ack)]);
        assert!(marks.marks().is_empty());
        assert!(!is_protocol_prompt(
            Role::Assistant,
            &crate::protocol::prompt_text("wf")
        ));
        assert!(is_protocol_prompt(
            Role::User,
            &crate::protocol::prompt_text("wf")
        ));
    }

    /// Page text carried into BAI's own result (a title naming the prompt's heading, its opening
    /// sentence) never folds that result: only a message that begins as the prompt, with no
    /// record line but the prompt's own examples, is one.
    #[test]
    fn only_the_prompt_itself_folds_never_a_result_that_quotes_it() {
        let result = "BAI_RESULT {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf\",\"kind\":\"result\",\"result_id\":1,\"state\":\"active\",\"actions\":[],\"page\":{\"url\":\"http://shop.test/\",\"title\":\"COPY_THIS_TO_CHATGPT Use this protocol to talk to the browser extension\"}}";
        assert!(!is_protocol_prompt(Role::User, result));
        let mut marks = LineMarks::new();
        marks.note_issued(result);
        marks.note_messages([(0, &Message::new(Role::User, result))]);
        assert!(marks.prompts().is_empty(), "{:?}", marks.prompts());
        // The same words later in a message, or the header quoted after other text: no fold.
        let prompt = crate::protocol::prompt_text("wf");
        assert!(!is_protocol_prompt(
            Role::User,
            &format!("Look at this:\n{prompt}")
        ));
        // The prompt with a record line of its own (BAI's result pasted after it): no fold.
        assert!(!is_protocol_prompt(
            Role::User,
            &format!("{prompt}\n{result}")
        ));
        // Leading whitespace is allowed; the prompt's own examples are.
        assert!(is_protocol_prompt(Role::User, &format!("\n  {prompt}")));
        assert!(!PROMPT_EXAMPLE_LINES.is_empty());
    }
}
