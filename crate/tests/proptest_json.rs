#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "property tests: a panic is a failing test"
)]
//! Property tests of the engine's JSON reader against standard readers: for any record, if a
//! standard reader would see a different value than the engine, the engine refuses it.
//!
//! Three standard readers are modelled: serde_json (`Value`, the last of duplicate keys wins),
//! serde_json into a map that keeps the *first* of duplicate keys (as some readers and a human
//! reading left to right do), and JavaScript's `JSON.parse` (a reference reader written here:
//! every number a correctly rounded double, strings as UTF-16 so lone surrogates survive, the
//! last duplicate wins). Texts are built from a grammar that mixes valid JSON with every
//! disagreement the engine knows of (duplicate keys at every depth, escaped and look-alike keys,
//! lone surrogates, NUL, unsafe integers, `-0`, overflowing floats, hard-to-round floats, non-JSON
//! whitespace, trailing text); the same holds through the whole engine for action records.

use std::fmt;

use bai::protocol::json::read_object;
use bai::protocol::validate::action_from_wire;
use bai::protocol::{Decision, Engine, Message, Role};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

// ---------------------------------------------------------------------------------------------
// Reader 2: serde_json, keeping the first of duplicate keys.

struct FirstWins(Value);

impl<'de> Deserialize<'de> for FirstWins {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(FirstWinsVisitor)
    }
}

struct FirstWinsVisitor;

impl<'de> Visitor<'de> for FirstWinsVisitor {
    type Value = FirstWins;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E>(self, v: bool) -> Result<FirstWins, E> {
        Ok(FirstWins(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<FirstWins, E> {
        Ok(FirstWins(Value::Number(v.into())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<FirstWins, E> {
        Ok(FirstWins(Value::Number(v.into())))
    }
    fn visit_f64<E>(self, v: f64) -> Result<FirstWins, E> {
        Ok(FirstWins(
            Number::from_f64(v).map_or(Value::Null, Value::Number),
        ))
    }
    fn visit_str<E>(self, v: &str) -> Result<FirstWins, E> {
        Ok(FirstWins(Value::String(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<FirstWins, E> {
        Ok(FirstWins(Value::String(v)))
    }
    fn visit_unit<E>(self) -> Result<FirstWins, E> {
        Ok(FirstWins(Value::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FirstWins, A::Error> {
        let mut items = Vec::new();
        while let Some(FirstWins(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(FirstWins(Value::Array(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<FirstWins, A::Error> {
        let mut map = Map::new();
        while let Some((key, FirstWins(value))) = access.next_entry::<String, FirstWins>()? {
            map.entry(key).or_insert(value);
        }
        Ok(FirstWins(Value::Object(map)))
    }
}

// ---------------------------------------------------------------------------------------------
// Reader 3: JavaScript's JSON.parse.

#[derive(Debug, Clone, PartialEq)]
enum Js {
    Null,
    Bool(bool),
    Num(f64),
    /// An exact integer, as the engine holds `u64` / `i64` numbers (only on the engine's side).
    Exact(i128),
    Str(Vec<u16>),
    Arr(Vec<Js>),
    /// Keys in first-insertion order, values last-wins, as a JS object built by JSON.parse.
    Obj(Vec<(Vec<u16>, Js)>),
}

/// JSON.parse: `None` where it throws. (JavaScript compares `-0` and `0` as equal with `==`;
/// `Js::Num` keeps the sign, so `-0` stays visible to the comparison.)
fn js_parse(text: &str) -> Option<Js> {
    let chars: Vec<char> = text.chars().collect();
    let mut p = JsParser { s: &chars, i: 0 };
    p.ws();
    let v = p.value()?;
    p.ws();
    (p.i == chars.len()).then_some(v)
}

struct JsParser<'a> {
    s: &'a [char],
    i: usize,
}

impl JsParser<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }
    fn ws(&mut self) {
        // ECMA-262 JSON.parse whitespace: exactly these four.
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: char) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }
    fn value(&mut self) -> Option<Js> {
        match self.peek()? {
            '{' => {
                self.i += 1;
                let mut fields: Vec<(Vec<u16>, Js)> = Vec::new();
                self.ws();
                if self.eat('}').is_some() {
                    return Some(Js::Obj(fields));
                }
                loop {
                    self.ws();
                    let key = self.string()?;
                    self.ws();
                    self.eat(':')?;
                    self.ws();
                    let value = self.value()?;
                    match fields.iter_mut().find(|(k, _)| *k == key) {
                        Some(slot) => slot.1 = value,
                        None => fields.push((key, value)),
                    }
                    self.ws();
                    if self.eat(',').is_some() {
                        continue;
                    }
                    self.eat('}')?;
                    return Some(Js::Obj(fields));
                }
            }
            '[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.eat(']').is_some() {
                    return Some(Js::Arr(items));
                }
                loop {
                    self.ws();
                    items.push(self.value()?);
                    self.ws();
                    if self.eat(',').is_some() {
                        continue;
                    }
                    self.eat(']')?;
                    return Some(Js::Arr(items));
                }
            }
            '"' => self.string().map(Js::Str),
            't' => self.word("true", Js::Bool(true)),
            'f' => self.word("false", Js::Bool(false)),
            'n' => self.word("null", Js::Null),
            _ => self.number(),
        }
    }
    fn word(&mut self, w: &str, v: Js) -> Option<Js> {
        for c in w.chars() {
            self.eat(c)?;
        }
        Some(v)
    }
    fn number(&mut self) -> Option<Js> {
        let start = self.i;
        self.eat('-');
        let int_start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        let int = &self.s[int_start..self.i];
        if int.is_empty() || (int.len() > 1 && int[0] == '0') {
            return None;
        }
        if self.eat('.').is_some() {
            let f = self.i;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.i += 1;
            }
            if self.i == f {
                return None;
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            self.i += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.i += 1;
            }
            let e = self.i;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.i += 1;
            }
            if self.i == e {
                return None;
            }
        }
        let token: String = self.s[start..self.i].iter().collect();
        // Rust's parse is correctly rounded, as ECMAScript's Number parsing is; overflow gives
        // infinity in both.
        token.parse::<f64>().ok().map(Js::Num)
    }
    fn string(&mut self) -> Option<Vec<u16>> {
        self.eat('"')?;
        let mut out = Vec::new();
        loop {
            let c = self.peek()?;
            self.i += 1;
            match c {
                '"' => return Some(out),
                '\\' => {
                    let e = self.peek()?;
                    self.i += 1;
                    let unit = match e {
                        '"' => 0x22,
                        '\\' => 0x5c,
                        '/' => 0x2f,
                        'b' => 8,
                        'f' => 12,
                        'n' => 10,
                        'r' => 13,
                        't' => 9,
                        'u' => {
                            let hex: String = self.s.get(self.i..self.i + 4)?.iter().collect();
                            if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
                                return None;
                            }
                            self.i += 4;
                            u16::from_str_radix(&hex, 16).ok()?
                        }
                        _ => return None,
                    };
                    out.push(unit);
                }
                c if (c as u32) < 0x20 => return None,
                c => {
                    let mut buf = [0u16; 2];
                    out.extend_from_slice(c.encode_utf16(&mut buf));
                }
            }
        }
    }
}

/// The engine's value as JavaScript would hold it.
fn as_js(value: &Value) -> Js {
    match value {
        Value::Null => Js::Null,
        Value::Bool(b) => Js::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Js::Exact(i128::from(u)),
            (None, Some(i)) => Js::Exact(i128::from(i)),
            _ => Js::Num(n.as_f64().unwrap()),
        },
        Value::String(s) => Js::Str(s.encode_utf16().collect()),
        Value::Array(items) => Js::Arr(items.iter().map(as_js).collect()),
        Value::Object(map) => Js::Obj(
            map.iter()
                .map(|(k, v)| (k.encode_utf16().collect(), as_js(v)))
                .collect(),
        ),
    }
}

/// JS objects compare as sets of fields (key order is not part of a value).
fn js_equal(a: &Js, b: &Js) -> bool {
    match (a, b) {
        (Js::Num(x), Js::Num(y)) => x.to_bits() == y.to_bits(),
        // The double JavaScript holds must be exactly the engine's integer (and not -0).
        (Js::Num(x), Js::Exact(n)) | (Js::Exact(n), Js::Num(x)) => {
            x.is_finite()
                && x.fract() == 0.0
                && x.abs() < 1e38
                && (*x as i128) == *n
                && x.to_bits() != (-0.0f64).to_bits()
        }
        (Js::Arr(x), Js::Arr(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| js_equal(a, b))
        }
        (Js::Obj(x), Js::Obj(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| k == k2 && js_equal(v, v2)))
        }
        _ => a == b,
    }
}

/// Whether every reader sees `value` (the engine's reading of `text`).
fn every_reader_agrees(text: &str, value: &Map<String, Value>) -> Result<(), String> {
    let ours = Value::Object(value.clone());
    match serde_json::from_str::<Value>(text) {
        Ok(v) if v == ours => {}
        other => return Err(format!("serde_json reads {other:?}, the engine {ours}")),
    }
    match serde_json::from_str::<FirstWins>(text) {
        Ok(FirstWins(v)) if v == ours => {}
        Ok(FirstWins(v)) => {
            return Err(format!("a first-wins reader reads {v}, the engine {ours}"));
        }
        Err(e) => return Err(format!("a first-wins reader fails ({e})")),
    }
    match js_parse(text) {
        Some(js) if js_equal(&js, &as_js(&ours)) => {}
        other => return Err(format!("JSON.parse reads {other:?}, the engine {ours}")),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The grammar.

const KEYS: &[&str] = &["a", "b", "text", "type", "payload", "selector", "value", ""];

/// Keys that equal another key once decoded, or look like one.
const TRICKY_KEYS: &[&str] = &["t\\u0065xt", "p\\u0061yload", "\\u0061", "p\u{430}yload"];

const STRINGS: &[&str] = &[
    "",
    "x",
    "#a",
    "é✓",
    "\\\"q\\\"",
    "\\\\",
    "\\/",
    "\\n\\t",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\u2028",
    "\u{feff}",
];

/// Strings readers disagree on (lone surrogates, NUL).
const BAD_STRINGS: &[&str] = &[
    "\\ud800",
    "\\udc00",
    "\\ud800\\u0041",
    "\\u0000",
    "a\\u0000b",
];

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "1.0",
    "1e0",
    "0e5",
    "10.5",
    "0.1",
    "2.5e-3",
    "1E2",
    "9007199254740991",
    "-9007199254740991",
    "1e308",
    "4.9e-324",
    "1e-400",
    "2.2250738585072011e-308",
    "1.7976931348623157e308",
    "0.30000000000000004",
    "9007199254740993.0",
    "1.00000000000000011102230246251565404236316680908203125",
];

/// Numbers readers disagree on, or that some reader cannot represent.
const BAD_NUMBERS: &[&str] = &[
    "-0",
    "-0.0",
    "-0e-5",
    "9007199254740992",
    "-9007199254740993",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890",
    "1e309",
    "1e400",
    "-1e400",
];

const SPACES: &[&str] = &["", " ", "\t", "\n", "\r"];

const BAD_SPACES: &[&str] = &["\u{a0}", "\u{feff}", "\u{2028}"];

const TRAILING: &[&str] = &[" ", "x", "}", " {}", "\u{0}", "\u{a0}"];

fn pick(list: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    prop::sample::select(list)
}

fn key() -> impl Strategy<Value = &'static str> {
    prop_oneof![6 => pick(KEYS), 1 => pick(TRICKY_KEYS)]
}

fn space() -> impl Strategy<Value = &'static str> {
    prop_oneof![12 => Just(""), 4 => pick(SPACES), 1 => pick(BAD_SPACES)]
}

fn json_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        8 => pick(STRINGS).prop_map(|s| format!("\"{s}\"")),
        1 => pick(BAD_STRINGS).prop_map(|s| format!("\"{s}\"")),
        8 => pick(NUMBERS).prop_map(str::to_owned),
        1 => pick(BAD_NUMBERS).prop_map(str::to_owned),
        2 => Just("true".to_owned()),
        2 => Just("null".to_owned()),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4)
                .prop_map(|items| format!("[{}]", items.join(","))),
            object_of(inner),
        ]
    })
}

fn object_of(values: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    prop::collection::vec((key(), values, space()), 0..5).prop_map(|fields| {
        let body: Vec<String> = fields
            .iter()
            .map(|(k, v, s)| format!("{s}\"{k}\"{s}:{v}"))
            .collect();
        format!("{{{}}}", body.join(","))
    })
}

fn record_text() -> impl Strategy<Value = String> {
    let trailing = prop_oneof![12 => Just(""), 1 => pick(TRAILING)];
    (space(), object_of(json_value()), space(), trailing)
        .prop_map(|(a, object, b, trailing)| format!("{a}{object}{b}{trailing}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    /// The engine's reading is everyone's reading, or the engine refuses.
    #[test]
    fn accepted_records_read_the_same_in_every_reader(text in record_text()) {
        if let Ok(map) = read_object(&text) {
            if let Err(why) = every_reader_agrees(&text, &map) {
                return Err(TestCaseError::fail(format!("{text:?}: {why}")));
            }
        }
    }

    /// What serde_json reads, the hand-written writer writes back as serde_json does (record
    /// identities hash this text).
    #[test]
    fn values_are_written_as_serde_json_writes_them(text in record_text()) {
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            prop_assert_eq!(
                bai::protocol::json_write::value_json(&value),
                serde_json::to_string(&value).unwrap()
            );
        }
    }
}

/// The property above is not vacuous: the grammar produces accepted records often, and each
/// kind of refusal it is meant to exercise.
#[test]
fn the_grammar_reaches_both_outcomes() {
    let mut runner = TestRunner::new(Config::default());
    let (mut accepted, mut duplicate, mut invalid) = (0, 0, 0);
    for _ in 0..4000 {
        let text = record_text().new_tree(&mut runner).unwrap().current();
        match read_object(&text) {
            Ok(_) => accepted += 1,
            Err(refusal) if refusal.code().code() == "duplicate_key" => duplicate += 1,
            Err(_) => invalid += 1,
        }
    }
    assert!(accepted > 400, "only {accepted} accepted");
    assert!(duplicate > 200, "only {duplicate} duplicate keys");
    assert!(invalid > 400, "only {invalid} invalid");
}

// ---------------------------------------------------------------------------------------------
// Through the engine: an action that runs is the action every reader reads.

const WF: &str = "9b3e5d7f-1a2c-4e6b-8d0f-2c4a6e8b0d1f";
const NONCE: &str = "n_0123456789abcdef0123456789abcdef";

/// Fields of an action record, some of them written twice or in a form readers disagree on.
fn action_record() -> impl Strategy<Value = String> {
    let base = [
        ("protocol", "\"BAI/0.3\"".to_owned()),
        ("workflow_id", format!("\"{WF}\"")),
        ("kind", "\"action\"".to_owned()),
        ("ack_nonce", format!("\"{NONCE}\"")),
        ("action_id", "1".to_owned()),
        ("type", "\"click\"".to_owned()),
        ("payload", "{\"selector\":\"#safe\"}".to_owned()),
    ];
    let extra_value = prop_oneof![
        Just("\"input_text\"".to_owned()),
        Just("\"done\"".to_owned()),
        Just("\"n_ffffffffffffffffffffffffffffffff\"".to_owned()),
        Just("{\"selector\":\"#delete\"}".to_owned()),
        Just("{\"selector\":{\"type\":\"css\",\"value\":\"#x\",\"value\":\"#y\"}}".to_owned()),
        Just("{\"selector\":\"#q\",\"text\":\"a\",\"t\\u0065xt\":\"b\"}".to_owned()),
        Just("{\"success\":true}".to_owned()),
        pick(NUMBERS).prop_map(str::to_owned),
        pick(BAD_NUMBERS).prop_map(str::to_owned),
        pick(STRINGS).prop_map(|s| format!("\"{s}\"")),
        pick(BAD_STRINGS).prop_map(|s| format!("\"{s}\"")),
    ];
    let key = prop_oneof![
        pick(&[
            "protocol",
            "workflow_id",
            "kind",
            "ack_nonce",
            "action_id",
            "type",
            "payload"
        ]),
        pick(&[
            "p\\u0061yload",
            "t\\u0079pe",
            "action\\u005fid",
            "p\u{430}yload",
            "note"
        ]),
    ];
    let trailing = prop_oneof![6 => Just(""), 1 => pick(TRAILING)];
    (
        prop::collection::vec((key, extra_value, any::<prop::sample::Index>()), 0..3),
        trailing,
    )
        .prop_map(move |(extras, trailing)| {
            let mut fields: Vec<(String, String)> = base
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            for (k, v, at) in extras {
                let at = at.index(fields.len() + 1);
                fields.insert(at, (k.to_owned(), v));
            }
            let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            format!("BAI_ACTION {{{}}}{trailing}", body.join(","))
        })
}

/// What a reader that reads the record as `record` would run.
fn action_as_read(record: &Value) -> Option<(u64, Value)> {
    let map = record.as_object()?;
    let id = map.get("action_id")?.as_u64()?;
    let action =
        action_from_wire(map.get("type")?.as_str()?, map.get("payload")?, Some(&[])).ok()?;
    Some((id, serde_json::to_value(action).ok()?))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn an_action_that_runs_is_the_action_every_reader_reads(line in action_record()) {
        let mut engine = Engine::new();
        let handshake = format!(
            "```bai\n{{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{WF}\",\"kind\":\"handshake\",\"state\":\"awaiting_extension_ack\",\"capabilities\":[\"action_lines\"]}}\n```"
        );
        let mut messages = vec![Message::new(Role::Assistant, handshake)];
        engine.observe(&messages);
        engine.approve(WF, NONCE).unwrap();
        messages.push(Message::new(Role::Assistant, line.clone()));
        for decision in engine.observe(&messages) {
            if let Decision::Execute { action_id, action, .. } = decision {
                let ran = (action_id, serde_json::to_value(action).unwrap());
                let json = line.strip_prefix("BAI_ACTION ").unwrap();
                let last: Value = serde_json::from_str(json).unwrap();
                let FirstWins(first) = serde_json::from_str(json).unwrap();
                prop_assert_eq!(action_as_read(&last), Some(ran.clone()), "{}", line);
                prop_assert_eq!(action_as_read(&first), Some(ran), "{}", line);
            }
        }
    }
}
