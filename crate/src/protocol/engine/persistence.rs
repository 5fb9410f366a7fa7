//! Saving and restoring the engine's state (a page reload).
//!
//! [`Engine::save`] gives the whole state as one JSON text. A host that saves after every
//! decision should not write all of it each time: the lists that grow with the conversation (one
//! cursor per message, one ledger fingerprint per action, one entry per result) would make every
//! write grow with the work. [`split_parts`] cuts a saved state into a small head and fixed-size
//! slices of those lists; a slice, once full, never changes again, so a host that remembers what
//! it wrote ([`PartWriter`]) writes only the head and the last slices. [`join_parts`] puts them
//! back together.

use serde_json::Value;

use super::{Decision, Engine, MessageCursor, PendingResult, RejectedAction, Role};
use crate::protocol::continuation::{Continuation, Segment, SegmentField, SpentToken};
use crate::protocol::decision_write::{write_action, write_rejected_action};
use crate::protocol::error::RejectCode;
use crate::protocol::fields::{FieldError, fields, string, strings, u64s, usize_of};
use crate::protocol::fingerprint::Fingerprint;
use crate::protocol::json_write::{self, Object};
use crate::protocol::negotiation::{Capability, ProtocolVersion};
use crate::protocol::outcome::RunBook;
use crate::protocol::quote::Quoted;
use crate::protocol::validate::payload::action_from_record;
use crate::protocol::workflow::{HeldAction, IssuedResult, Workflow, WorkflowState};

impl Engine {
    /// The engine state as JSON, to persist across page reloads. Written by hand (see
    /// [`write_engine`]), the actions and refused records in it too (as in the decisions, see
    /// [`crate::protocol::decision_write`]). Writing cannot fail; the `Result` is the signature
    /// callers had when serde wrote parts of it.
    pub fn save(&self) -> Result<String, serde_json::Error> {
        let mut out = String::new();
        write_engine(&mut out, self);
        Ok(out)
    }

    /// An engine restored from [`Engine::save`]'s JSON (any version this crate ever saved).
    pub fn restore(json: &str) -> Result<Self, RestoreError> {
        let state = crate::protocol::json::read_plain(json)
            .map_err(|refusal| RestoreError(refusal.to_string()))?;
        Self::restore_value(&state)
    }

    /// [`Engine::restore`] from the state already read as JSON.
    pub fn restore_value(state: &Value) -> Result<Self, RestoreError> {
        engine_from(state).map_err(RestoreError)
    }
}

impl Decision {
    /// A [`Decision::ResultDue`] read back from its JSON (as the host was given it). `Ok(None)`:
    /// the JSON is another decision.
    pub fn result_due_from_json(text: &str) -> Result<Option<Decision>, String> {
        let value =
            crate::protocol::json::read_plain(text).map_err(|refusal| refusal.to_string())?;
        let f = fields(&value, "decision")?;
        if f.get("decision").and_then(Value::as_str) != Some("result_due") {
            return Ok(None);
        }
        Ok(Some(Decision::ResultDue {
            workflow_id: f.string("workflow_id")?,
            message_index: f.usize("message_index")?,
            executed: f.with("executed", u64s, "a list of action ids")?,
            rejected: f.list("rejected", false, rejected_action_from)?,
        }))
    }
}

// The state's writer, by hand: what the `Serialize` derives of these types wrote, field for
// field (the fixture in `crate/tests/saved_state.rs` holds that output).

/// A continuation's [`Segment`], as its derived `Serialize` wrote it (`action_id` when present,
/// `joins` when true).
fn write_segment(out: &mut String, segment: &Segment) {
    let mut o = Object::new(out);
    o.number("result_id", segment.result_id);
    if let Some(action_id) = segment.action_id {
        o.number("action_id", action_id);
    }
    o.string(
        "field",
        match segment.field {
            SegmentField::Data => "data",
            SegmentField::Observation => "observation",
        },
    );
    o.list("values", &segment.values, |out, value| {
        json_write::string(out, value);
    });
    if segment.joins {
        o.bool("joins", true);
    }
    o.end();
}

fn write_engine(out: &mut String, engine: &Engine) {
    let mut o = Object::new(out);
    json_write::list(o.key("messages"), &engine.messages, write_cursor);
    json_write::list(o.key("workflows"), &engine.workflows, write_workflow);
    o.list("stale", &engine.stale, |out, id| {
        json_write::string(out, id)
    });
    o.number("transcript_len", engine.transcript_len as u64);
    if !engine.waiting.is_empty() {
        o.list("waiting", &engine.waiting, |out, index| {
            out.push_str(&index.to_string());
        });
    }
    o.end();
}

fn write_fingerprint(out: &mut String, fingerprint: &Fingerprint) {
    out.push('"');
    out.push_str(&format!("{:016x}", fingerprint.0));
    out.push('"');
}

fn write_cursor(out: &mut String, cursor: &MessageCursor) {
    let mut o = Object::new(out);
    if let Some(role) = cursor.role {
        o.string(
            "role",
            match role {
                Role::User => "user",
                Role::Assistant => "assistant",
            },
        );
    }
    o.number("processed", cursor.processed as u64);
    write_fingerprint(o.key("prefix"), &cursor.prefix);
    o.bool("finished", cursor.finished);
    if !cursor.reported.is_empty() {
        o.list("reported", &cursor.reported, write_fingerprint);
    }
    if !cursor.pending.is_empty() {
        json_write::list(o.key("pending"), &cursor.pending, |out, pending| {
            let mut p = Object::new(out);
            p.string("workflow_id", &pending.workflow_id);
            if !pending.executed.is_empty() {
                p.list("executed", &pending.executed, |out, id| {
                    out.push_str(&id.to_string());
                });
            }
            if !pending.rejected.is_empty() {
                p.list("rejected", &pending.rejected, write_rejected_action);
            }
            p.bool("needed", pending.needed);
            p.end();
        });
    }
    o.end();
}

fn write_workflow(out: &mut String, workflow: &Workflow) {
    let mut o = Object::new(out);
    o.string("id", &workflow.id);
    o.string("protocol", workflow.protocol.as_str());
    o.string("state", workflow.state.as_str());
    o.number("handshake_message", workflow.handshake_message as u64);
    if workflow.handshake_lost {
        o.bool("handshake_lost", true);
    }
    if let Some(nonce) = &workflow.ack_nonce {
        o.string("ack_nonce", nonce);
    }
    o.bool("ack_seen", workflow.ack_seen);
    if let Some(success) = workflow.success {
        o.bool("success", success);
    }
    o.list("executed", &workflow.executed, write_fingerprint);
    if !workflow.held.is_empty() {
        json_write::list(o.key("held"), &workflow.held, |out, held| {
            let mut h = Object::new(out);
            h.number("action_id", held.action_id);
            write_fingerprint(h.key("fingerprint"), &held.fingerprint);
            write_action(h.key("action"), &held.action);
            h.number("message_index", held.message_index as u64);
            h.string("excerpt", &held.excerpt);
            h.end();
        });
    }
    if !workflow.capabilities.is_empty() {
        o.list("capabilities", &workflow.capabilities, |out, capability| {
            json_write::string(out, capability.as_str());
        });
    }
    if workflow.results_issued != 0 {
        o.number("results_issued", workflow.results_issued);
    }
    if !workflow.results.is_empty() {
        o.list("results", &workflow.results, |out, result| {
            let mut r = Object::new(out);
            write_fingerprint(r.key("fingerprint"), &result.fingerprint);
            r.bool("seen", result.seen);
            r.end();
        });
    }
    // A finished workflow's continuation can never be fetched: it is not written to disk.
    if let Some(continuation) = workflow
        .continuation
        .as_ref()
        .filter(|_| !workflow.state.is_finished())
    {
        let mut c = Object::new(o.key("continuation"));
        c.string("token", &continuation.token);
        c.list("segments", &continuation.segments, write_segment);
        if let Some(claimed_by) = continuation.claimed_by {
            c.number("claimed_by", claimed_by);
        }
        c.end();
    }
    if !workflow.spent_tokens.is_empty() {
        o.list("spent_tokens", &workflow.spent_tokens, |out, spent| {
            let mut t = Object::new(out);
            t.string("token", &spent.token);
            if spent.replaced {
                t.bool("replaced", true);
            }
            t.end();
        });
    }
    o.end();
}

/// Why a saved engine state could not be restored (a plain sentence).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("saved engine state unreadable: {0}")]
pub struct RestoreError(pub String);

// The state's reader, by hand: it reads what the serde derives of these types wrote and read
// (see `crate::protocol::fields`), with one small non-generic function per type.

fn engine_from(value: &Value) -> Result<Engine, FieldError> {
    let f = fields(value, "engine state")?;
    Ok(Engine {
        messages: f.list("messages", false, cursor_from)?,
        workflows: f.list("workflows", false, workflow_from)?,
        stale: f.list("stale", false, |v| {
            string(v).ok_or_else(|| "a stale id must be a string".to_owned())
        })?,
        transcript_len: f.with_default("transcript_len", usize_of, "an unsigned integer")?,
        waiting: f.list("waiting", true, |v| {
            usize_of(v).ok_or_else(|| "a waiting index must be an unsigned integer".to_owned())
        })?,
    })
}

fn fingerprint_of(value: &Value) -> Option<Fingerprint> {
    u64::from_str_radix(value.as_str()?, 16)
        .ok()
        .map(Fingerprint)
}

fn fingerprint_item(value: &Value) -> Result<Fingerprint, FieldError> {
    fingerprint_of(value).ok_or_else(|| "a fingerprint must be a hex string".to_owned())
}

fn role_of(value: &Value) -> Option<Role> {
    match value.as_str()? {
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        _ => None,
    }
}

fn cursor_from(value: &Value) -> Result<MessageCursor, FieldError> {
    let f = fields(value, "message")?;
    Ok(MessageCursor {
        role: f.with_optional("role", role_of, "\"user\" or \"assistant\"")?,
        processed: f.usize("processed")?,
        prefix: f.with("prefix", fingerprint_of, "a hex fingerprint")?,
        finished: f.bool("finished")?,
        reported: f.list("reported", true, fingerprint_item)?,
        pending: f.list("pending", true, pending_from)?,
    })
}

fn pending_from(value: &Value) -> Result<PendingResult, FieldError> {
    let f = fields(value, "pending result")?;
    Ok(PendingResult {
        workflow_id: f.string("workflow_id")?,
        executed: f.with_default("executed", u64s, "a list of action ids")?,
        rejected: f.list("rejected", true, rejected_action_from)?,
        needed: f.with_default("needed", Value::as_bool, "true or false")?,
    })
}

/// A [`RejectedAction`] as the serde derive wrote it.
fn rejected_action_from(value: &Value) -> Result<RejectedAction, FieldError> {
    let f = fields(value, "rejected action")?;
    Ok(RejectedAction {
        action_id: f.with_optional("action_id", Value::as_u64, "an unsigned integer")?,
        code: f.with("code", reject_code_of, "a refusal code")?,
        reason: f.string("reason")?,
    })
}

fn reject_code_of(value: &Value) -> Option<RejectCode> {
    let name = value.as_str()?;
    RejectCode::ALL
        .iter()
        .copied()
        .find(|code| code.code() == name)
}

fn workflow_state_of(value: &Value) -> Option<WorkflowState> {
    let name = value.as_str()?;
    WorkflowState::ALL
        .iter()
        .copied()
        .find(|state| state.as_str() == name)
}

fn workflow_from(value: &Value) -> Result<Workflow, FieldError> {
    let f = fields(value, "workflow")?;
    Ok(Workflow {
        id: f.string("id")?,
        protocol: f.with(
            "protocol",
            |v| ProtocolVersion::parse(v.as_str()?),
            "a protocol version",
        )?,
        state: f.with("state", workflow_state_of, "a workflow state")?,
        handshake_message: f.usize("handshake_message")?,
        handshake_lost: f.with_default("handshake_lost", Value::as_bool, "true or false")?,
        ack_nonce: f.with_optional("ack_nonce", string, "a string")?,
        ack_seen: f.with_default("ack_seen", Value::as_bool, "true or false")?,
        success: f.with_optional("success", Value::as_bool, "true or false")?,
        executed: f.list("executed", true, fingerprint_item)?,
        held: f.list("held", true, held_from)?,
        capabilities: f.list("capabilities", true, |v| {
            v.as_str()
                .and_then(Capability::parse)
                .ok_or_else(|| "unknown capability".to_owned())
        })?,
        results_issued: f.with_default("results_issued", Value::as_u64, "an unsigned integer")?,
        results: f.list("results", true, |v| {
            let r = fields(v, "issued result")?;
            Ok(IssuedResult {
                fingerprint: r.with("fingerprint", fingerprint_of, "a hex fingerprint")?,
                seen: r.with_default("seen", Value::as_bool, "true or false")?,
            })
        })?,
        continuation: match f.optional("continuation") {
            None => None,
            Some(v) => Some(continuation_from(v)?),
        },
        spent_tokens: f.list("spent_tokens", true, |v| {
            let t = fields(v, "spent token")?;
            Ok(SpentToken {
                token: t.string("token")?,
                replaced: t.with_default("replaced", Value::as_bool, "true or false")?,
            })
        })?,
        run: RunBook::default(),
    })
}

fn held_from(value: &Value) -> Result<HeldAction, FieldError> {
    let f = fields(value, "held action")?;
    Ok(HeldAction {
        action_id: f.u64("action_id")?,
        fingerprint: f.with("fingerprint", fingerprint_of, "a hex fingerprint")?,
        action: action_from_record(f.required("action")?)?,
        message_index: f.usize("message_index")?,
        excerpt: f.string("excerpt")?,
    })
}

fn continuation_from(value: &Value) -> Result<Continuation, FieldError> {
    let f = fields(value, "continuation")?;
    Ok(Continuation {
        token: f.string("token")?,
        segments: f.list("segments", false, |v| {
            let s = fields(v, "segment")?;
            Ok(Segment {
                result_id: s.u64("result_id")?,
                action_id: s.with_optional("action_id", Value::as_u64, "an unsigned integer")?,
                field: s.with(
                    "field",
                    |v| match v.as_str()? {
                        "data" => Some(SegmentField::Data),
                        "observation" => Some(SegmentField::Observation),
                        _ => None,
                    },
                    "\"data\" or \"observation\"",
                )?,
                values: s.with("values", strings, "a list of strings")?,
                joins: s.with_default("joins", Value::as_bool, "true or false")?,
            })
        })?,
        claimed_by: f.with_optional("claimed_by", Value::as_u64, "an unsigned integer")?,
    })
}

/// Items per slice of each growing list: a slice is a few KiB of JSON at most.
const MESSAGES_PER_PART: usize = 16;
const FINGERPRINTS_PER_PART: usize = 64;
const RESULTS_PER_PART: usize = 32;

/// Where a list cut into slices was, in the head: `{"$parts": [names]}`.
const PARTS_FIELD: &str = "$parts";

/// The head's name among the parts.
pub const HEAD_PART: &str = "head";

/// Cuts `list` (at `name` in the head) into slices of `per_part` items.
fn cut(list: &mut Value, name: &str, per_part: usize, parts: &mut Vec<(String, Value)>) {
    let Value::Array(items) = list else {
        return;
    };
    let mut names = Vec::new();
    for (index, slice) in items.chunks(per_part).enumerate() {
        let part = format!("{name}.{index}");
        parts.push((part.clone(), Value::Array(slice.to_vec())));
        names.push(Value::String(part));
    }
    let mut head = serde_json::Map::new();
    head.insert(PARTS_FIELD.to_owned(), Value::Array(names));
    *list = Value::Object(head);
}

/// Cuts an [`Engine::save`] state (parsed) into its head and the slices of its growing lists:
/// the message cursors, and each workflow's ledger (`executed`) and issued results. Returns
/// `(name, JSON)` pairs, the head ([`HEAD_PART`]) last. Workflows are named by their position:
/// when an old one is forgotten, the later ones' slices are written again under new names.
pub fn split_parts(mut state: Value) -> Vec<(String, String)> {
    let mut parts = Vec::new();
    if let Some(messages) = state.get_mut("messages") {
        cut(messages, "m", MESSAGES_PER_PART, &mut parts);
    }
    if let Some(Value::Array(workflows)) = state.get_mut("workflows") {
        for (index, workflow) in workflows.iter_mut().enumerate() {
            if let Some(executed) = workflow.get_mut("executed") {
                cut(
                    executed,
                    &format!("w{index}x"),
                    FINGERPRINTS_PER_PART,
                    &mut parts,
                );
            }
            if let Some(results) = workflow.get_mut("results") {
                cut(results, &format!("w{index}r"), RESULTS_PER_PART, &mut parts);
            }
        }
    }
    let mut out: Vec<(String, String)> = parts
        .into_iter()
        .map(|(name, value)| (name, json_write::value_json(&value)))
        .collect();
    out.push((HEAD_PART.to_owned(), json_write::value_json(&state)));
    out
}

/// Why saved parts could not be put together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JoinError {
    /// A part the head names is missing (the save was cut short, or the parts were deleted).
    #[error("saved part {} is missing", Quoted(.0))]
    MissingPart(String),
    /// A part is not the JSON list it should be.
    #[error("saved part {} is unreadable", Quoted(.0))]
    UnreadablePart(String),
}

/// Puts every list the head refers to back together from `part` (name -> JSON).
fn join(value: &mut Value, part: &dyn Fn(&str) -> Option<String>) -> Result<(), JoinError> {
    match value {
        Value::Object(fields) => {
            if let Some(Value::Array(names)) = fields.get(PARTS_FIELD) {
                let mut items = Vec::new();
                for name in names {
                    let name = name.as_str().unwrap_or_default();
                    let text = part(name).ok_or_else(|| JoinError::MissingPart(name.to_owned()))?;
                    match crate::protocol::json::read_plain(&text) {
                        Ok(Value::Array(slice)) => items.extend(slice),
                        _ => return Err(JoinError::UnreadablePart(name.to_owned())),
                    }
                }
                *value = Value::Array(items);
                return Ok(());
            }
            for field in fields.values_mut() {
                join(field, part)?;
            }
            Ok(())
        }
        Value::Array(items) => items.iter_mut().try_for_each(|item| join(item, part)),
        _ => Ok(()),
    }
}

/// The state [`split_parts`] cut, whole again: `head` with every slice it names, read through
/// `part`.
pub fn join_parts(
    mut head: Value,
    part: &dyn Fn(&str) -> Option<String>,
) -> Result<Value, JoinError> {
    join(&mut head, part)?;
    Ok(head)
}

/// What to write after a change: the parts that differ from the last write, and the parts that
/// no longer exist.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct PartChanges {
    /// Parts to write, by name.
    pub set: Vec<(String, String)>,
    /// Parts to delete.
    pub remove: Vec<String>,
}

/// Remembers what was written last (a fingerprint per part), so the next save writes only what
/// changed.
#[derive(Debug, Clone, Default)]
pub struct PartWriter {
    written: Fingerprints,
}

/// A fingerprint per part name, as a list sorted by name (a few dozen parts): what a `HashMap`
/// answered, without hashing code in the chat module.
#[derive(Debug, Clone, Default)]
struct Fingerprints(Vec<(String, Fingerprint)>);

impl Fingerprints {
    fn find(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(at, _)| at.as_str().cmp(name))
    }

    fn insert(&mut self, name: String, fingerprint: Fingerprint) {
        match self.find(&name) {
            Ok(at) => {
                if let Some(slot) = self.0.get_mut(at) {
                    slot.1 = fingerprint;
                }
            }
            Err(at) => self.0.insert(at, (name, fingerprint)),
        }
    }

    fn get(&self, name: &str) -> Option<&Fingerprint> {
        let at = self.find(name).ok()?;
        self.0.get(at).map(|(_, fingerprint)| fingerprint)
    }

    fn names(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(name, _)| name)
    }
}

impl PartWriter {
    /// A writer that knows nothing was written yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Notes that `parts` are what storage holds now (what a restore read).
    pub fn note_written<'a>(&mut self, parts: impl IntoIterator<Item = (&'a str, &'a str)>) {
        for (name, json) in parts {
            self.written
                .insert(name.to_owned(), Fingerprint::of(json.as_bytes()));
        }
    }

    /// The names of the parts written, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.written.names().cloned().collect();
        crate::protocol::small_sort::sort_by(&mut names, |a, b| a < b);
        names
    }

    /// The changes from the last write to `parts` (all of a state's parts); remembers them as
    /// written.
    pub fn changes(&mut self, parts: Vec<(String, String)>) -> PartChanges {
        let mut changes = PartChanges::default();
        let mut now = Fingerprints::default();
        for (name, json) in parts {
            let fingerprint = Fingerprint::of(json.as_bytes());
            if self.written.get(&name) != Some(&fingerprint) {
                changes.set.push((name.clone(), json));
            }
            now.insert(name, fingerprint);
        }
        changes.remove = self
            .written
            .names()
            .filter(|name| now.get(name).is_none())
            .cloned()
            .collect();
        crate::protocol::small_sort::sort_by(&mut changes.remove, |a, b| a < b);
        self.written = now;
        changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(messages: usize, executed: usize) -> Value {
        serde_json::json!({
            "messages": (0..messages).map(|i| serde_json::json!({"processed": i})).collect::<Vec<_>>(),
            "workflows": [{"id": "wf", "executed": (0..executed).collect::<Vec<_>>(), "results": []}],
            "stale": [],
        })
    }

    fn lookup(parts: &[(String, String)]) -> impl Fn(&str) -> Option<String> + '_ {
        move |name| {
            parts
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, json)| json.clone())
        }
    }

    #[test]
    fn split_then_join_gives_the_state_back() {
        for (messages, executed) in [(0, 0), (1, 1), (16, 64), (17, 65), (300, 1000)] {
            let whole = state(messages, executed);
            let parts = split_parts(whole.clone());
            let (name, head) = parts.last().unwrap();
            assert_eq!(name, HEAD_PART);
            let joined = join_parts(serde_json::from_str(head).unwrap(), &lookup(&parts)).unwrap();
            assert_eq!(joined, whole, "{messages} {executed}");
        }
    }

    #[test]
    fn a_missing_part_is_an_error_not_a_shorter_ledger() {
        let parts = split_parts(state(40, 0));
        let head: Value = serde_json::from_str(&parts.last().unwrap().1).unwrap();
        let without = |name: &str| (name != "m.1").then(|| lookup(&parts)(name)).flatten();
        assert_eq!(
            join_parts(head, &without),
            Err(JoinError::MissingPart("m.1".into()))
        );
    }

    #[test]
    fn a_save_after_one_more_message_writes_the_head_and_the_last_slice_only() {
        let mut writer = PartWriter::new();
        let first = writer.changes(split_parts(state(100, 50)));
        assert_eq!(first.set.len(), 7 + 1 + 1, "everything the first time");
        let again = writer.changes(split_parts(state(100, 50)));
        assert!(again.set.is_empty() && again.remove.is_empty());
        let grown = writer.changes(split_parts(state(101, 51)));
        let names: Vec<&str> = grown.set.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, vec!["m.6", "w0x.0"]);
        let shrunk = writer.changes(split_parts(state(10, 0)));
        assert!(shrunk.remove.contains(&"m.6".to_owned()), "{shrunk:?}");
    }

    /// The writer's sorted list answers as the `HashMap` it replaced (the old writer, below),
    /// over random saves, restores and renamed or repeated parts.
    #[test]
    fn part_changes_are_what_the_hash_map_writer_gave() {
        use std::collections::HashMap;
        #[derive(Default)]
        struct Old(HashMap<String, Fingerprint>);
        impl Old {
            fn changes(&mut self, parts: Vec<(String, String)>) -> PartChanges {
                let mut changes = PartChanges::default();
                let mut now = HashMap::new();
                for (name, json) in parts {
                    let fingerprint = Fingerprint::of(json.as_bytes());
                    if self.0.get(&name) != Some(&fingerprint) {
                        changes.set.push((name.clone(), json));
                    }
                    now.insert(name, fingerprint);
                }
                changes.remove = self
                    .0
                    .keys()
                    .filter(|n| !now.contains_key(*n))
                    .cloned()
                    .collect();
                changes.remove.sort();
                self.0 = now;
                changes
            }
            fn names(&self) -> Vec<String> {
                let mut names: Vec<String> = self.0.keys().cloned().collect();
                names.sort();
                names
            }
        }
        let (mut ours, mut old) = (PartWriter::new(), Old::default());
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..2_000 {
            let count = next() % 12;
            let parts: Vec<(String, String)> = (0..count)
                .map(|_| (format!("p{}", next() % 15), format!("{}", next() % 3)))
                .collect();
            if next() % 5 == 0 {
                let pairs: Vec<(&str, &str)> = parts
                    .iter()
                    .map(|(n, j)| (n.as_str(), j.as_str()))
                    .collect();
                ours.note_written(pairs.iter().copied());
                for (name, json) in &pairs {
                    old.0
                        .insert((*name).to_owned(), Fingerprint::of(json.as_bytes()));
                }
            } else {
                assert_eq!(ours.changes(parts.clone()), old.changes(parts));
            }
            assert_eq!(ours.names(), old.names());
        }
    }
}
