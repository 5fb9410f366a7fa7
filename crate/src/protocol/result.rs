//! `BAI_RESULT` lines: what the actions of one assistant message did, told back to the model
//! (`result_lines` capability).
//!
//! The host (the extension) runs the actions, collects a [`ResultReport`] and asks the engine for
//! the line ([`crate::protocol::Engine::result_line`]); the engine numbers it, caps every part so a
//! page cannot flood the chat, and remembers its fingerprint so the posted line is recognized as
//! its own when it shows up in the transcript. Everything from the page in a report is untrusted
//! text: it travels inside JSON strings, on one line, and is never read as a record.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::continuation::{CONTINUATION_MAX_CHARS, Segment, SegmentField};
use super::json_write::{self, Object};
use super::record::ProtocolVersion;
use super::workflow::WorkflowState;

/// The record prefix of a result line.
pub const RESULT_PREFIX: &str = "BAI_RESULT";
/// Longest `reason` of one action's result, in characters.
pub const RESULT_REASON_MAX_CHARS: usize = 300;
/// Most hints per action.
pub const RESULT_HINTS_MAX: usize = 5;
/// Longest hint, in characters.
pub const RESULT_HINT_MAX_CHARS: usize = 160;
/// Most effects per action.
pub const RESULT_EFFECTS_MAX: usize = 8;
/// Longest effect, in characters.
pub const RESULT_EFFECT_MAX_CHARS: usize = 160;
/// Longest `data` of one action, as serialized JSON, in characters.
pub const RESULT_DATA_MAX_CHARS: usize = 2000;
/// Longest whole line (prefix included), in characters.
pub const RESULT_LINE_MAX_CHARS: usize = 8000;
/// Longest `code` and `type`, in characters (they are snake_case names; more is not a name).
const NAME_MAX_CHARS: usize = 64;
/// Longest page URL, in characters.
const PAGE_URL_MAX_CHARS: usize = 2048;
/// Longest page title, in characters.
const PAGE_TITLE_MAX_CHARS: usize = 200;
/// Longest string kept inside an observation or change list once the line had to be shrunk.
const SHRUNK_STRING_MAX_CHARS: usize = 120;

/// How one action went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultStatus {
    /// It ran and did what it should.
    Ok,
    /// It ran and failed (element not found, assertion failed, ...).
    Failed,
    /// It did not run because an earlier action failed (or the user stopped).
    Skipped,
    /// The engine or the safety policy refused it.
    Rejected,
}

impl ResultStatus {
    /// The wire name (`"ok"`, `"failed"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Failed => "failed",
            Self::Skipped => "skipped",
            Self::Rejected => "rejected",
        }
    }
}

/// One action's outcome, as the host reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionResult {
    /// The action's id.
    pub action_id: u64,
    /// Its type (`"click"`).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub action_type: Option<String>,
    /// How it went.
    pub status: ResultStatus,
    /// The stable error code, when it did not go well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// A plain-language reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the model could do next ("3 buttons match; add index or use a ref").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<String>,
    /// What visibly happened ("navigated to /cart", "dialog opened").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<String>,
    /// What `extract` (or `observe`) returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// The page after the actions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageInfo {
    /// Its URL.
    pub url: String,
    /// Its title.
    pub title: String,
}

/// What the host reports after running the actions of one message. Everything but `actions` is
/// optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultReport {
    /// One entry per action, in order.
    pub actions: Vec<ActionResult>,
    /// The page afterwards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<PageInfo>,
    /// The latest `observe` listing (element refs), as the DOM layer shapes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observation: Option<Value>,
    /// What changed on the page since the previous result, as the DOM layer shapes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Value>,
}

impl ResultReport {
    /// Applies `edit` to every string the report's JSON holds (not to keys), as a walk over that
    /// JSON would, and drops a `null` JSON value (`data`, `observation`, `changes`) as reading
    /// that JSON back would: the bindings redact secrets from a report this way before its
    /// result line is written.
    pub fn edit_strings(&mut self, edit: &mut dyn FnMut(&mut String)) {
        for action in &mut self.actions {
            action.action_type.as_mut().map(&mut *edit);
            action.code.as_mut().map(&mut *edit);
            action.reason.as_mut().map(&mut *edit);
            action.hints.iter_mut().for_each(&mut *edit);
            action.effects.iter_mut().for_each(&mut *edit);
            edit_value(&mut action.data, edit);
        }
        if let Some(page) = &mut self.page {
            edit(&mut page.url);
            edit(&mut page.title);
        }
        edit_value(&mut self.observation, edit);
        edit_value(&mut self.changes, edit);
    }
}

fn edit_value(value: &mut Option<Value>, edit: &mut dyn FnMut(&mut String)) {
    if value.as_ref().is_some_and(Value::is_null) {
        *value = None;
    }
    if let Some(value) = value {
        edit_json_strings(value, edit);
    }
}

/// Applies `edit` to every string in `value` (not to keys).
pub fn edit_json_strings(value: &mut Value, edit: &mut dyn FnMut(&mut String)) {
    match value {
        Value::String(text) => edit(text),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| edit_json_strings(item, edit)),
        Value::Object(fields) => fields
            .values_mut()
            .for_each(|field| edit_json_strings(field, edit)),
        _ => {}
    }
}

/// One action's outcome as written on the line (capped).
#[derive(Debug, Clone, PartialEq, Serialize)]
struct LineAction {
    action_id: u64,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    action_type: Option<String>,
    status: ResultStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    hints: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    effects: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
    /// Why something was left out of this entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// The record, fields in wire order.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct LineRecord<'a> {
    protocol: &'static str,
    workflow_id: &'a str,
    kind: &'static str,
    result_id: u64,
    state: &'static str,
    actions: Vec<LineAction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    page: Option<PageInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    observation: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<Value>,
    /// What is left of this result (and of the one a `more` continued), to fetch with `more`.
    #[serde(skip_serializing_if = "Option::is_none")]
    continuation: Option<ContinuationInfo>,
    /// Set when the line had to be shrunk to fit [`RESULT_LINE_MAX_CHARS`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
}

/// The `continuation` object of a result line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct ContinuationInfo {
    /// What `more` must name.
    token: String,
    /// Characters of values still to come.
    remaining_chars: usize,
}

/// `text` cut to at most `max` characters, ending in `…` when cut.
fn cap(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some(_) => {
            let keep: String = text.chars().take(max.saturating_sub(1)).collect();
            format!("{keep}…")
        }
    }
}

fn line_action(result: &ActionResult) -> LineAction {
    let mut note = None;
    let data = result.data.as_ref().map(|data| {
        let chars = json_write::value_json(data).chars().count();
        if chars <= RESULT_DATA_MAX_CHARS {
            data.clone()
        } else {
            note = Some(format!(
                "data was {chars} characters, over the {RESULT_DATA_MAX_CHARS} limit, and was left out; ask for less (a narrower selector, or one attribute)"
            ));
            Value::String("[truncated]".into())
        }
    });
    LineAction {
        action_id: result.action_id,
        action_type: result
            .action_type
            .as_deref()
            .map(|t| cap(t, NAME_MAX_CHARS)),
        status: result.status,
        code: result.code.as_deref().map(|c| cap(c, NAME_MAX_CHARS)),
        reason: result
            .reason
            .as_deref()
            .map(|r| cap(r, RESULT_REASON_MAX_CHARS)),
        hints: result
            .hints
            .iter()
            .take(RESULT_HINTS_MAX)
            .map(|h| cap(h, RESULT_HINT_MAX_CHARS))
            .collect(),
        effects: result
            .effects
            .iter()
            .take(RESULT_EFFECTS_MAX)
            .map(|e| cap(e, RESULT_EFFECT_MAX_CHARS))
            .collect(),
        data,
        note,
    }
}

/// `value` with every array cut to its first `keep` items and every string capped: the head of an
/// element listing is the most useful part, and the shape stays the DOM layer's.
fn shrink(value: &Value, keep: usize) -> Value {
    match value {
        Value::Array(items) => {
            Value::Array(items.iter().take(keep).map(|v| shrink(v, keep)).collect())
        }
        Value::Object(map) => {
            // Inserted one by one: collecting into a map sorts first, with the standard
            // library's stable sort (kept out of the chat module, see `super::small_sort`).
            let mut shrunk = serde_json::Map::new();
            for (key, item) in map {
                shrunk.insert(key.clone(), shrink(item, keep));
            }
            Value::Object(shrunk)
        }
        Value::String(s) => Value::String(cap(s, SHRUNK_STRING_MAX_CHARS)),
        other => other.clone(),
    }
}

/// The longest array in `value`, to bound the search for how much of it fits.
fn longest_array(value: &Value) -> usize {
    match value {
        Value::Array(items) => items
            .iter()
            .map(longest_array)
            .max()
            .unwrap_or(0)
            .max(items.len()),
        Value::Object(map) => map.values().map(longest_array).max().unwrap_or(0),
        _ => 0,
    }
}

/// `record` as JSON, byte for byte what its derived `Serialize` wrote with serde_json (the
/// derive stays as the tests' reference): fields in declaration order, the optional ones only
/// when present.
fn record_json(record: &LineRecord<'_>) -> String {
    let mut out = String::new();
    let mut o = Object::new(&mut out);
    o.string("protocol", record.protocol);
    o.string("workflow_id", record.workflow_id);
    o.string("kind", record.kind);
    o.number("result_id", record.result_id);
    o.string("state", record.state);
    o.list("actions", &record.actions, write_line_action);
    if let Some(page) = &record.page {
        let mut p = Object::new(o.key("page"));
        p.string("url", &page.url);
        p.string("title", &page.title);
        p.end();
    }
    if let Some(observation) = &record.observation {
        json_write::value(o.key("observation"), observation);
    }
    if let Some(changes) = &record.changes {
        json_write::value(o.key("changes"), changes);
    }
    if let Some(continuation) = &record.continuation {
        let mut c = Object::new(o.key("continuation"));
        c.string("token", &continuation.token);
        c.number("remaining_chars", continuation.remaining_chars as u64);
        c.end();
    }
    if record.truncated {
        o.bool("truncated", true);
    }
    o.end();
    out
}

fn write_line_action(out: &mut String, action: &LineAction) {
    let mut o = Object::new(out);
    o.number("action_id", action.action_id);
    if let Some(action_type) = &action.action_type {
        o.string("type", action_type);
    }
    o.string("status", action.status.as_str());
    if let Some(code) = &action.code {
        o.string("code", code);
    }
    if let Some(reason) = &action.reason {
        o.string("reason", reason);
    }
    let strings = |out: &mut String, text: &String| json_write::string(out, text);
    if !action.hints.is_empty() {
        o.list("hints", &action.hints, strings);
    }
    if !action.effects.is_empty() {
        o.list("effects", &action.effects, strings);
    }
    if let Some(data) = &action.data {
        json_write::value(o.key("data"), data);
    }
    if let Some(note) = &action.note {
        o.string("note", note);
    }
    o.end();
}

/// A continuation [`Segment`] as the JSON value its derived `Serialize` makes (`action_id` when
/// present, `joins` when true).
fn segment_value(segment: &Segment) -> Value {
    let mut map = serde_json::Map::new();
    map.insert("result_id".into(), segment.result_id.into());
    if let Some(action_id) = segment.action_id {
        map.insert("action_id".into(), action_id.into());
    }
    let field = match segment.field {
        SegmentField::Data => "data",
        SegmentField::Observation => "observation",
    };
    map.insert("field".into(), field.into());
    let values = segment.values.iter().cloned().map(Value::String).collect();
    map.insert("values".into(), Value::Array(values));
    if segment.joins {
        map.insert("joins".into(), true.into());
    }
    Value::Object(map)
}

fn render(record: &LineRecord<'_>) -> String {
    let json = record_json(record);
    // U+2028/U+2029 are legal raw inside JSON strings, but some renderers break lines there;
    // escaping them keeps the record on one line without changing its parsed value.
    let json = json
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029");
    format!("{RESULT_PREFIX} {}", replace_nul_escapes(&json))
}

/// `\u0000` escapes (a NUL from the page's text) become `\ufffd`: the engine's JSON reader
/// refuses NUL (C-string readers cut at it), and it must read its own results back. Escapes are
/// taken as pairs, so an escaped backslash followed by `u0000` stays as it is.
fn replace_nul_escapes(json: &str) -> String {
    if !json.contains("\\u0000") {
        return json.to_owned();
    }
    let mut out = String::with_capacity(json.len());
    let mut rest = json;
    while let Some(at) = rest.find('\\') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let escape = rest.get(at..).unwrap_or_default();
        if escape.starts_with("\\u0000") {
            out.push_str("\\ufffd");
            rest = escape.get(6..).unwrap_or_default();
        } else {
            // The backslash and the character it escapes (always ASCII in serde_json's output).
            out.push_str(escape.get(..2).unwrap_or(escape));
            rest = escape.get(2..).unwrap_or_default();
        }
    }
    out.push_str(rest);
    out
}

fn fits(line: &str) -> bool {
    line.chars().count() <= RESULT_LINE_MAX_CHARS
}

/// Build the capped `BAI_RESULT` line. See [`crate::protocol::Engine::result_line`].
pub(crate) fn build_line(
    protocol: ProtocolVersion,
    workflow_id: &str,
    result_id: u64,
    state: WorkflowState,
    report: &ResultReport,
) -> String {
    let mut record = LineRecord {
        protocol: protocol.as_str(),
        workflow_id,
        kind: "result",
        result_id,
        state: state.as_str(),
        actions: report.actions.iter().map(line_action).collect(),
        page: report.page.as_ref().map(|p| PageInfo {
            url: cap(&p.url, PAGE_URL_MAX_CHARS),
            title: cap(&p.title, PAGE_TITLE_MAX_CHARS),
        }),
        observation: report.observation.clone(),
        changes: report.changes.clone(),
        continuation: None,
        truncated: false,
    };
    let line = render(&record);
    if fits(&line) {
        return line;
    }
    record.truncated = true;
    // 1. Keep the head of the observation and change lists: the largest per-array count that fits.
    let (observation, changes) = (record.observation.take(), record.changes.take());
    let longest = observation
        .as_ref()
        .map_or(0, longest_array)
        .max(changes.as_ref().map_or(0, longest_array));
    let mut best = None;
    let (mut low, mut high) = (0usize, longest);
    while low <= high {
        let keep = low + (high - low) / 2;
        record.observation = observation.as_ref().map(|v| shrink(v, keep));
        record.changes = changes.as_ref().map(|v| shrink(v, keep));
        let line = render(&record);
        if fits(&line) {
            best = Some(line);
            low = keep + 1;
        } else if keep == 0 {
            break;
        } else {
            high = keep - 1;
        }
    }
    if let Some(line) = best {
        return line;
    }
    // 2. Without observation and changes.
    record.observation = None;
    record.changes = None;
    let line = render(&record);
    if fits(&line) {
        return line;
    }
    // 3. Without per-action data, hints and effects.
    for action in &mut record.actions {
        if action.data.take().is_some() {
            action.note = Some("data was left out to keep the result line short".into());
        }
        action.hints.clear();
        action.effects.clear();
    }
    let line = render(&record);
    if fits(&line) {
        return line;
    }
    // 4. Only id, type, status and code, then as many entries as fit (the first ones: the model
    //    reads a result in order, and what failed first is what it must fix).
    for action in &mut record.actions {
        action.reason = None;
        action.note = None;
    }
    record.page = None;
    while !fits(&render(&record)) && record.actions.pop().is_some() {}
    render(&record)
}

/// What a line of a `chunked_results` workflow continues and may leave for later.
#[derive(Debug, Clone, Default)]
pub(crate) struct Chunking {
    /// The `more` action (its id) this line answers, and the segments its token claimed: they
    /// are written first, into that action's `data`.
    pub(crate) more: Option<(u64, Vec<Segment>)>,
    /// The token for what is left over; `None` when nothing can be fetched later (the workflow
    /// is over): the line then says `"truncated":true`.
    pub(crate) token: Option<String>,
}

/// A chunked line and what it left for the next `more`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ChunkedLine {
    pub(crate) line: String,
    /// What did not fit, in order; empty when the line holds everything.
    pub(crate) rest: Vec<Segment>,
}

/// Where a run of values is written on the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The `data` of the action entry at this index, as an array of strings.
    Data(usize),
    /// The record's `observation.elements`.
    Observation,
    /// A segment object in the `data` of the `more` entry at this index.
    More(usize),
}

/// One run of values waiting to be placed on the line.
struct Pending {
    place: Place,
    segment: Segment,
}

/// Every value in `value` is a string: the arrays that may be split over several lines.
fn strings_of(value: &Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// Writes what each pending run placed (`placed[i]` values of `pendings[i]`) into `record`.
fn apply(
    record: &mut LineRecord<'_>,
    observation: Option<&Value>,
    pendings: &[Pending],
    placed: &[Vec<String>],
) {
    let mut more_segments: Vec<(usize, Vec<Value>)> = Vec::new();
    for (pending, values) in pendings.iter().zip(placed) {
        let array = || Value::from(values.clone());
        match pending.place {
            Place::Data(index) => {
                if let Some(action) = record.actions.get_mut(index) {
                    action.data = Some(array());
                }
            }
            Place::Observation => {
                if let Some(Value::Object(map)) = observation {
                    let mut map = map.clone();
                    map.insert("elements".into(), array());
                    record.observation = Some(Value::Object(map));
                }
            }
            Place::More(index) => {
                if values.is_empty() {
                    continue;
                }
                let segment = Segment {
                    values: values.clone(),
                    ..pending.segment.clone()
                };
                let value = segment_value(&segment);
                match more_segments.iter_mut().find(|(i, _)| *i == index) {
                    Some((_, list)) => list.push(value),
                    None => more_segments.push((index, vec![value])),
                }
            }
        }
    }
    for action in &mut record.actions {
        if action.action_type.as_deref() == Some("more") && action.status == ResultStatus::Ok {
            action.data = None;
        }
    }
    for (index, list) in more_segments {
        if let Some(action) = record.actions.get_mut(index) {
            action.data = Some(Value::Array(list));
        }
    }
}

/// The first `chars` characters of `text`.
fn prefix(text: &str, chars: usize) -> String {
    text.chars().take(chars).collect()
}

/// The largest `n` in `0..=max` for which `fits_with(n)` holds, given that it holds for 0 and
/// is monotone.
fn largest_fitting(max: usize, mut fits_with: impl FnMut(usize) -> bool) -> usize {
    let (mut low, mut high) = (0usize, max);
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        if fits_with(mid) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    low
}

/// The `BAI_RESULT` line of a workflow that negotiated `chunked_results`. Nothing is shrunk or
/// left out when the report fits one line. Otherwise `extract` data (arrays of strings), the
/// observation's `elements` and the segments a `more` claimed are written in order as far as
/// they fit, split only between values, or inside an `extract` string at a character boundary
/// (an observation line is split only when not even one fits); the rest is returned, and the
/// line's `continuation` names the token to fetch it. When even the line without those values
/// does not fit, the line is built as without `chunked_results`.
pub(crate) fn build_chunked_line(
    protocol: ProtocolVersion,
    workflow_id: &str,
    result_id: u64,
    state: WorkflowState,
    report: &ResultReport,
    chunking: Chunking,
) -> ChunkedLine {
    let more_id = chunking.more.as_ref().map(|(id, _)| *id);
    let mut pendings: Vec<Pending> = Vec::new();
    let mut actions = Vec::with_capacity(report.actions.len());
    for (index, result) in report.actions.iter().enumerate() {
        let mut entry = line_action(result);
        if more_id == Some(result.action_id) && result.status == ResultStatus::Ok {
            if let Some((_, segments)) = &chunking.more {
                pendings.extend(segments.iter().map(|segment| Pending {
                    place: Place::More(index),
                    segment: segment.clone(),
                }));
            }
            entry.data = None;
        } else if let Some(values) = result.data.as_ref().and_then(strings_of) {
            pendings.push(Pending {
                place: Place::Data(index),
                segment: Segment {
                    result_id,
                    action_id: Some(result.action_id),
                    field: SegmentField::Data,
                    values,
                    joins: false,
                },
            });
            entry.note = None;
        }
        actions.push(entry);
    }
    // The claimed segments come first, then this result's own values in line order.
    super::small_sort::sort_by_key(&mut pendings, |p| !matches!(p.place, Place::More(_)));
    let observation = report.observation.as_ref();
    if let Some(values) = observation
        .and_then(|o| o.get("elements"))
        .and_then(strings_of)
    {
        pendings.push(Pending {
            place: Place::Observation,
            segment: Segment {
                result_id,
                action_id: None,
                field: SegmentField::Observation,
                values,
                joins: false,
            },
        });
    }
    let mut record = LineRecord {
        protocol: protocol.as_str(),
        workflow_id,
        kind: "result",
        result_id,
        state: state.as_str(),
        actions,
        page: report.page.as_ref().map(|p| PageInfo {
            url: cap(&p.url, PAGE_URL_MAX_CHARS),
            title: cap(&p.title, PAGE_TITLE_MAX_CHARS),
        }),
        observation: report.observation.clone(),
        changes: report.changes.clone(),
        continuation: None,
        truncated: false,
    };
    // Everything on one line, when it fits.
    let all: Vec<Vec<String>> = pendings.iter().map(|p| p.segment.values.clone()).collect();
    apply(&mut record, observation, &pendings, &all);
    let line = render(&record);
    if fits(&line) {
        return ChunkedLine {
            line,
            rest: Vec::new(),
        };
    }
    // Room for the continuation (the widest it can be: a token is 18 characters and what
    // remains is at most CONTINUATION_MAX_CHARS).
    record.continuation = Some(ContinuationInfo {
        token: chunking
            .token
            .clone()
            .unwrap_or_else(|| "m_0000000000000000".into()),
        remaining_chars: CONTINUATION_MAX_CHARS * 10,
    });
    let mut placed: Vec<Vec<String>> = vec![Vec::new(); pendings.len()];
    apply(&mut record, observation, &pendings, &placed);
    if !fits(&render(&record)) {
        return ChunkedLine {
            line: build_line(protocol, workflow_id, result_id, state, report),
            rest: Vec::new(),
        };
    }
    let mut rest: Vec<Segment> = Vec::new();
    let mut anything_placed = false;
    for index in 0..pendings.len() {
        let Some(pending) = pendings.get(index) else {
            break;
        };
        let values = &pending.segment.values;
        let try_with = |candidate: Vec<String>, record: &mut LineRecord<'_>| {
            let mut trial = placed.clone();
            if let Some(slot) = trial.get_mut(index) {
                *slot = candidate;
            }
            apply(record, observation, &pendings, &trial);
            fits(&render(record))
        };
        let whole = largest_fitting(values.len(), |n| {
            try_with(values.get(..n).unwrap_or_default().to_vec(), &mut record)
        });
        let mut kept: Vec<String> = values.get(..whole).unwrap_or_default().to_vec();
        anything_placed |= whole > 0;
        if whole == values.len() {
            if let Some(slot) = placed.get_mut(index) {
                *slot = kept;
            }
            continue;
        }
        // The next value does not fit whole: split it at a character boundary (extract text;
        // an observation line only when nothing at all fits otherwise).
        let next = values.get(whole).cloned().unwrap_or_default();
        let splittable = pending.segment.field == SegmentField::Data || !anything_placed;
        let mut split_at = 0;
        if splittable {
            split_at = largest_fitting(next.chars().count(), |chars| {
                let mut candidate = kept.clone();
                candidate.push(prefix(&next, chars));
                try_with(candidate, &mut record)
            });
        }
        let mut remaining: Vec<String> = Vec::new();
        let joins = if split_at > 0 {
            kept.push(prefix(&next, split_at));
            remaining.push(next.chars().skip(split_at).collect());
            true
        } else {
            remaining.push(next);
            whole == 0 && pending.segment.joins
        };
        remaining.extend(values.iter().skip(whole + 1).cloned());
        if let Some(slot) = placed.get_mut(index) {
            *slot = kept;
        }
        rest.push(Segment {
            values: remaining,
            joins,
            ..pending.segment.clone()
        });
        rest.extend(pendings.iter().skip(index + 1).map(|p| p.segment.clone()));
        break;
    }
    apply(&mut record, observation, &pendings, &placed);
    // The bound: what is kept for later never exceeds CONTINUATION_MAX_CHARS.
    let mut budget = CONTINUATION_MAX_CHARS;
    let mut dropped = false;
    for segment in &mut rest {
        let mut keep = 0;
        for value in &mut segment.values {
            let chars = value.chars().count();
            if chars > budget {
                // The head of the value that reaches the bound is kept (a string may be cut at a
                // character boundary anywhere; the line then says it was cut).
                if budget > 0 {
                    *value = prefix(value, budget);
                    keep += 1;
                }
                budget = 0;
                dropped = true;
                break;
            }
            budget -= chars;
            keep += 1;
        }
        if keep < segment.values.len() {
            dropped = true;
        }
        segment.values.truncate(keep);
    }
    rest.retain(|s| !s.values.is_empty());
    record.truncated = dropped;
    match (&chunking.token, rest.is_empty()) {
        (_, true) => record.continuation = None,
        (Some(token), false) => {
            record.continuation = Some(ContinuationInfo {
                token: token.clone(),
                remaining_chars: rest.iter().map(Segment::chars).sum(),
            });
        }
        (None, false) => {
            record.continuation = None;
            record.truncated = true;
            rest.clear();
        }
    }
    ChunkedLine {
        line: render(&record),
        rest,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn edit_strings_edits_what_a_walk_over_the_json_edits() {
        use super::*;
        let report: ResultReport = serde_json::from_value(serde_json::json!({
            "actions": [
                {"action_id": 1, "type": "click", "status": "failed", "code": "not_found",
                 "reason": "no a", "hints": ["h"], "effects": ["e"], "data": {"k": ["v", 1, null]}},
                {"action_id": 2, "status": "ok", "data": null}
            ],
            "page": {"url": "u", "title": "t"},
            "observation": {"elements": ["x"]},
            "changes": ["c"]
        }))
        .unwrap();
        // Redaction never changes a status word (the edit below leaves them alone too).
        let upper = |text: &mut String| {
            if !["ok", "failed", "skipped", "rejected"].contains(&text.as_str()) {
                *text = format!("{}!", text.to_uppercase());
            }
        };
        let mut value = serde_json::to_value(&report).unwrap();
        edit_json_strings(&mut value, &mut |text| upper(text));
        let walked: ResultReport = serde_json::from_value(value).unwrap();
        let mut edited = report.clone();
        edited.edit_strings(&mut |text| upper(text));
        assert_eq!(edited, walked);
        assert_ne!(edited, report);
    }

    use super::*;
    use serde_json::json;

    /// The result line's JSON and the segments in a `more`'s data are written by hand; their
    /// derived `Serialize` (what wrote them before) is the reference.
    #[test]
    fn records_and_segments_are_written_as_serde_writes_them() {
        let action = |action_id, status, full: bool| LineAction {
            action_id,
            action_type: full.then(|| "extract".to_owned()),
            status,
            code: full.then(|| "not_found".to_owned()),
            reason: full.then(|| "no \"a\"\n\u{2028}".to_owned()),
            hints: if full {
                vec!["h1".into(), "h\\2".into()]
            } else {
                Vec::new()
            },
            effects: if full { vec!["e".into()] } else { Vec::new() },
            data: full.then(|| json!({"z": [1, -2, 0.5, 1e21, null, true], "a": "\u{1f600}"})),
            note: full.then(|| "left out".to_owned()),
        };
        for full in [false, true] {
            let record = LineRecord {
                protocol: "BAI/0.3",
                workflow_id: "wf-\"1\"",
                kind: "result",
                result_id: u64::MAX,
                state: "active",
                actions: vec![
                    action(1, ResultStatus::Ok, full),
                    action(2, ResultStatus::Failed, !full),
                    action(3, ResultStatus::Skipped, full),
                    action(4, ResultStatus::Rejected, full),
                ],
                page: full.then(|| PageInfo {
                    url: "https://a.test/?q=1&r=\u{e9}".into(),
                    title: "T\u{7}".into(),
                }),
                observation: full.then(|| json!({"elements": ["@e1 button \"Go\""], "total": 1})),
                changes: full.then(|| json!(["x"])),
                continuation: full.then(|| ContinuationInfo {
                    token: "m_0123".into(),
                    remaining_chars: 12_345,
                }),
                truncated: full,
            };
            assert_eq!(
                record_json(&record),
                serde_json::to_string(&record).unwrap()
            );
            let mut empty = record.clone();
            empty.actions.clear();
            assert_eq!(record_json(&empty), serde_json::to_string(&empty).unwrap());
        }
        for (action_id, field, joins) in [
            (None, SegmentField::Observation, false),
            (Some(7), SegmentField::Data, true),
        ] {
            let segment = Segment {
                result_id: 3,
                action_id,
                field,
                values: vec!["a".into(), "\"b\"".into()],
                joins,
            };
            assert_eq!(
                segment_value(&segment),
                serde_json::to_value(&segment).unwrap()
            );
        }
    }

    fn ok(id: u64) -> ActionResult {
        ActionResult {
            action_id: id,
            action_type: Some("click".into()),
            status: ResultStatus::Ok,
            code: None,
            reason: None,
            hints: Vec::new(),
            effects: Vec::new(),
            data: None,
        }
    }

    fn line(report: &ResultReport) -> String {
        build_line(
            ProtocolVersion::V0_3,
            "w1",
            1,
            WorkflowState::Active,
            report,
        )
    }

    fn parsed(line: &str) -> Value {
        let json = line.strip_prefix("BAI_RESULT ").unwrap();
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn small_report_is_written_as_given() {
        let report: ResultReport = serde_json::from_value(json!({
            "actions": [{"action_id": 1, "type": "click", "status": "ok", "effects": ["dialog opened"]}],
            "page": {"url": "https://a.example/", "title": "A"}
        }))
        .unwrap();
        assert_eq!(
            line(&report),
            r#"BAI_RESULT {"protocol":"BAI/0.3","workflow_id":"w1","kind":"result","result_id":1,"state":"active","actions":[{"action_id":1,"type":"click","status":"ok","effects":["dialog opened"]}],"page":{"url":"https://a.example/","title":"A"}}"#
        );
    }

    #[test]
    fn per_action_caps() {
        let mut a = ok(1);
        a.status = ResultStatus::Failed;
        a.reason = Some("r".repeat(1000));
        a.hints = (0..9).map(|i| format!("{i}{}", "h".repeat(500))).collect();
        a.effects = (0..20).map(|i| format!("e{i}")).collect();
        a.data = Some(json!(["x".repeat(3000)]));
        a.code = Some("c".repeat(100));
        let v = parsed(&line(&ResultReport {
            actions: vec![a],
            page: None,
            observation: None,
            changes: None,
        }));
        let got = &v["actions"][0];
        assert_eq!(got["reason"].as_str().unwrap().chars().count(), 300);
        assert!(got["reason"].as_str().unwrap().ends_with('…'));
        assert_eq!(got["hints"].as_array().unwrap().len(), 5);
        assert!(
            got["hints"]
                .as_array()
                .unwrap()
                .iter()
                .all(|h| h.as_str().unwrap().chars().count() == 160)
        );
        assert_eq!(got["effects"].as_array().unwrap().len(), 8);
        assert_eq!(got["data"], json!("[truncated]"));
        assert!(got["note"].as_str().unwrap().contains("3004 characters"));
        assert_eq!(got["code"].as_str().unwrap().chars().count(), 64);
        assert!(v.get("truncated").is_none());
    }

    #[test]
    fn data_at_the_limit_is_kept() {
        let mut a = ok(1);
        // `"` + 1998 + `"` = 2000 characters serialized.
        a.data = Some(json!("d".repeat(1998)));
        let v = parsed(&line(&ResultReport {
            actions: vec![a],
            page: None,
            observation: None,
            changes: None,
        }));
        assert_eq!(v["actions"][0]["data"].as_str().unwrap().len(), 1998);
        assert!(v["actions"][0].get("note").is_none());
    }

    #[test]
    fn long_observation_is_shrunk_first() {
        let elements: Vec<Value> = (1..=300)
            .map(|i| json!({"ref": format!("@e{i}"), "role": "button", "name": format!("Button number {i}")}))
            .collect();
        let mut a = ok(1);
        a.data = Some(json!({"count": 3}));
        let report = ResultReport {
            actions: vec![a],
            page: Some(PageInfo {
                url: "https://a.example/".into(),
                title: "A".into(),
            }),
            observation: Some(json!({"elements": elements, "total": 300})),
            changes: Some(json!({"added": vec!["x"; 50]})),
        };
        let text = line(&report);
        assert!(text.chars().count() <= RESULT_LINE_MAX_CHARS);
        assert!(!text.contains('\n'));
        let v = parsed(&text);
        assert_eq!(v["truncated"], json!(true));
        let kept = v["observation"]["elements"].as_array().unwrap().len();
        assert!(kept > 50 && kept < 300, "{kept}");
        assert_eq!(v["observation"]["elements"][0]["ref"], json!("@e1"));
        assert_eq!(v["observation"]["total"], json!(300));
        // Action details were not touched.
        assert_eq!(v["actions"][0]["data"], json!({"count": 3}));
    }

    #[test]
    fn huge_report_still_fits_one_line() {
        let actions: Vec<ActionResult> = (1..=400)
            .map(|i| {
                let mut a = ok(i);
                a.status = ResultStatus::Failed;
                a.reason = Some("line one\nline two \u{2028} ".repeat(40));
                a.hints = vec!["h".repeat(160); 5];
                a.data = Some(json!("d".repeat(1900)));
                a
            })
            .collect();
        let report = ResultReport {
            actions,
            page: None,
            observation: Some(json!("o".repeat(100_000))),
            changes: None,
        };
        let text = line(&report);
        assert!(text.chars().count() <= RESULT_LINE_MAX_CHARS);
        assert!(!text.contains('\n') && !text.contains('\u{2028}'));
        let v = parsed(&text);
        assert_eq!(v["truncated"], json!(true));
        let kept = v["actions"].as_array().unwrap();
        assert!(!kept.is_empty() && kept.len() < 400);
        assert_eq!(kept[0]["action_id"], json!(1));
        assert_eq!(kept[0]["status"], json!("failed"));
        assert!(v.get("observation").is_none());
    }

    #[test]
    fn control_characters_stay_escaped() {
        let mut a = ok(1);
        a.reason = Some("a\nBAI_ACTION {\"x\":1}\r\n\u{0}".into());
        let text = line(&ResultReport {
            actions: vec![a],
            page: None,
            observation: None,
            changes: None,
        });
        assert!(!text.contains('\n') && !text.contains('\r') && !text.contains('\u{0}'));
        // NUL, which JSON readers disagree on, is written as U+FFFD so the line reads back.
        assert_eq!(
            parsed(&text)["actions"][0]["reason"],
            json!("a\nBAI_ACTION {\"x\":1}\r\n\u{fffd}")
        );
        assert!(crate::protocol::json::read_object(&text["BAI_RESULT ".len()..]).is_ok());
        let mut b = ok(2);
        b.reason = Some("C:\\u0000 \u{0}".into());
        let text = line(&ResultReport {
            actions: vec![b],
            page: None,
            observation: None,
            changes: None,
        });
        assert_eq!(
            parsed(&text)["actions"][0]["reason"],
            json!("C:\\u0000 \u{fffd}")
        );
    }

    fn chunked(report: &ResultReport, token: Option<&str>) -> ChunkedLine {
        build_chunked_line(
            ProtocolVersion::V0_3,
            "w1",
            1,
            WorkflowState::Active,
            report,
            Chunking {
                more: None,
                token: token.map(str::to_owned),
            },
        )
    }

    fn extract_report(values: Value) -> ResultReport {
        let mut a = ok(1);
        a.action_type = Some("extract".into());
        a.data = Some(values);
        ResultReport {
            actions: vec![a],
            page: None,
            observation: None,
            changes: None,
        }
    }

    #[test]
    fn chunked_line_that_fits_is_the_plain_line_uncut() {
        // 3,000 characters: over the per-action cap of a plain workflow, under the line cap.
        let report = extract_report(json!(["d".repeat(3000)]));
        let built = chunked(&report, Some("m_0000000000000001"));
        assert!(built.rest.is_empty());
        let v = parsed(&built.line);
        assert_eq!(v["actions"][0]["data"], json!(["d".repeat(3000)]));
        assert!(v.get("continuation").is_none() && v.get("truncated").is_none());
    }

    #[test]
    fn observation_lines_are_not_split_when_whole_ones_fit() {
        let elements: Vec<String> = (0..400)
            .map(|i| format!("@e{i} button \"{}\"", "n".repeat(40)))
            .collect();
        let mut report = extract_report(json!(null));
        report.actions[0].data = None;
        report.observation = Some(json!({"elements": elements, "more": 0, "total": 400}));
        let built = chunked(&report, Some("m_0000000000000001"));
        let v = parsed(&built.line);
        let first = v["observation"]["elements"].as_array().unwrap();
        assert!(first.len() > 50 && first.len() < 400);
        assert_eq!(first.last().unwrap(), &json!(elements[first.len() - 1]));
        assert_eq!(built.rest.len(), 1);
        assert!(!built.rest[0].joins);
        assert_eq!(built.rest[0].values.first(), elements.get(first.len()));
        assert_eq!(v["continuation"]["token"], json!("m_0000000000000001"));
        assert_eq!(
            v["continuation"]["remaining_chars"],
            json!(built.rest[0].chars())
        );
    }

    #[test]
    fn without_a_token_the_rest_is_dropped_and_said() {
        // The workflow is over: nothing can be fetched later.
        let report = extract_report(json!(["x".repeat(20_000)]));
        let built = chunked(&report, None);
        assert!(built.rest.is_empty());
        let v = parsed(&built.line);
        assert!(built.line.chars().count() <= RESULT_LINE_MAX_CHARS);
        assert_eq!(v["truncated"], json!(true));
        assert!(v.get("continuation").is_none());
        assert!(v["actions"][0]["data"][0].as_str().unwrap().len() > 7000);
    }

    #[test]
    fn the_kept_rest_is_bounded() {
        let report = extract_report(json!(["y".repeat(CONTINUATION_MAX_CHARS + 20_000)]));
        let built = chunked(&report, Some("m_0000000000000001"));
        let kept: usize = built.rest.iter().map(Segment::chars).sum();
        assert_eq!(kept, CONTINUATION_MAX_CHARS);
        assert_eq!(parsed(&built.line)["truncated"], json!(true));
    }
}
