//! Writing JSON by hand, exactly as serde_json's compact writer does (same escapes, no spaces),
//! for the engine's saved state: one small non-generic writer instead of serde's derived code
//! per type.

/// Appends `text` as a JSON string: `"` and `\` escaped, control characters as `\b \t \n \f
/// \r` or `\u00xx`, everything else as it is (as serde_json writes it).
pub fn string(out: &mut String, text: &str) {
    out.push('"');
    let mut start = 0;
    for (at, byte) in text.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(text.get(start..at).unwrap_or_default());
        if escape.is_empty() {
            // A control character: `\u00` and two lowercase hex digits (0x00..=0x1f).
            out.push_str(if byte < 0x10 { "\\u000" } else { "\\u001" });
            out.push(char::from_digit(u32::from(byte & 0xf), 16).unwrap_or('0'));
        } else {
            out.push_str(escape);
        }
        start = at + 1;
    }
    out.push_str(text.get(start..).unwrap_or_default());
    out.push('"');
}

/// Appends `value` as serde_json's compact writer does (`value.to_string()`): objects in their
/// map's order (sorted by key: serde_json's default map), numbers as serde_json's `Number`
/// prints them (shortest round-trip floats, `.0` on whole ones).
pub fn value(out: &mut String, value: &serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => self::number(out, number),
        Value::String(text) => string(out, text),
        Value::Array(items) => list(out, items, self::value),
        Value::Object(map) => object(out, map),
    }
}

/// Appends `number` as serde_json writes it. In the wasm, integers go through the standard
/// library's integer formatting and floats through [`crate::dom::js::serde_float_text`], so the
/// modules link neither serde_json's number writer nor its float formatter (zmij and its
/// tables); `browser_json_out` holds both to serde_json's output.
pub fn number(out: &mut String, number: &serde_json::Number) {
    #[cfg(target_arch = "wasm32")]
    {
        use std::fmt::Write as _;
        if let Some(n) = number.as_u64() {
            let _ = write!(out, "{n}");
        } else if let Some(n) = number.as_i64() {
            let _ = write!(out, "{n}");
        } else if let Some(x) = number.as_f64() {
            out.push_str(&crate::dom::js::serde_float_text(x));
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    out.push_str(&number.to_string());
}

/// Appends `value` as serde_json writes an `f64` (`Value::from(value)`): the shortest text that
/// reads back the same, `null` when not finite.
pub fn float(out: &mut String, value: f64) {
    match serde_json::Number::from_f64(value) {
        Some(n) => number(out, &n),
        None => out.push_str("null"),
    }
}

/// `value` as JSON text (see [`float`]).
pub fn float_json(value: f64) -> String {
    let mut out = String::new();
    float(&mut out, value);
    out
}

/// Appends a JSON object's fields in the map's order (see [`value`]).
pub fn object(out: &mut String, map: &serde_json::Map<String, serde_json::Value>) {
    let mut o = Object::new(out);
    for (key, item) in map {
        value(o.key(key), item);
    }
    o.end();
}

/// `value` as JSON text (see [`value`]).
pub fn value_json(value: &serde_json::Value) -> String {
    let mut out = String::new();
    self::value(&mut out, value);
    out
}

/// A JSON object being written: `{` on creation, `,` between fields, `}` at [`Object::end`].
#[derive(Debug)]
pub struct Object<'a> {
    out: &'a mut String,
    empty: bool,
}

impl<'a> Object<'a> {
    /// Starts an object.
    pub fn new(out: &'a mut String) -> Self {
        out.push('{');
        Self { out, empty: true }
    }

    /// Writes `"key":` and gives the output for the value.
    pub fn key(&mut self, key: &str) -> &mut String {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        string(self.out, key);
        self.out.push(':');
        self.out
    }

    /// A string field.
    pub fn string(&mut self, key: &str, value: &str) {
        string(self.key(key), value);
    }

    /// An unsigned integer field.
    pub fn number(&mut self, key: &str, value: u64) {
        let out = self.key(key);
        out.push_str(&value.to_string());
    }

    /// A boolean field.
    pub fn bool(&mut self, key: &str, value: bool) {
        self.key(key).push_str(if value { "true" } else { "false" });
    }

    /// A list field, each item written by `write`.
    pub fn list<T>(&mut self, key: &str, items: &[T], write: impl Fn(&mut String, &T)) {
        list(self.key(key), items, write);
    }

    /// Ends the object.
    pub fn end(self) {
        self.out.push('}');
    }
}

/// A JSON object whose fields may come in any order and are written sorted by key, as
/// serde_json writes its default map (a `BTreeMap`, `Value::to_string`): the executor's
/// answers, once built as `serde_json::Map`s, are written through this with the same bytes and
/// without the map's insertion and drop code and the `Value`s.
#[derive(Debug, Default)]
pub struct SortedObject {
    /// Each key with its value already written as JSON, sorted by key.
    fields: Vec<(&'static str, String)>,
}

impl SortedObject {
    /// An object with no fields yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A field whose value is JSON text already; replaces an earlier field of the same key, as
    /// a map's `insert` does.
    pub fn json(&mut self, key: &'static str, json: String) {
        let at = self.fields.partition_point(|(known, _)| *known < key);
        match self.fields.get_mut(at) {
            Some(field) if field.0 == key => field.1 = json,
            _ => self.fields.insert(at, (key, json)),
        }
    }

    /// A string field.
    pub fn string(&mut self, key: &'static str, value: &str) {
        let mut json = String::new();
        string(&mut json, value);
        self.json(key, json);
    }

    /// A string field, or `null`.
    pub fn string_or_null(&mut self, key: &'static str, value: Option<&str>) {
        match value {
            Some(value) => self.string(key, value),
            None => self.json(key, "null".to_owned()),
        }
    }

    /// An unsigned integer field.
    pub fn number(&mut self, key: &'static str, value: u64) {
        self.json(key, value.to_string());
    }

    /// A boolean field.
    pub fn bool(&mut self, key: &'static str, value: bool) {
        self.json(key, if value { "true" } else { "false" }.to_owned());
    }

    /// A list of strings, each passed through `text` first.
    pub fn strings(&mut self, key: &'static str, items: &[String], text: &dyn Fn(&str) -> String) {
        let mut json = String::new();
        list(&mut json, items, |out, item| string(out, &text(item)));
        self.json(key, json);
    }

    /// The object as JSON text.
    pub fn into_json(self) -> String {
        let mut out = String::new();
        let mut object = Object::new(&mut out);
        for (key, json) in &self.fields {
            object.key(key).push_str(json);
        }
        object.end();
        out
    }
}

/// Appends a JSON list, each item written by `write`.
pub fn list<T>(out: &mut String, items: &[T], write: impl Fn(&mut String, &T)) {
    out.push('[');
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        write(out, item);
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        let all: String = (0u32..0x80).filter_map(char::from_u32).collect();
        for text in [
            "",
            "plain",
            "q\"b\\s/",
            "é \u{2028} \u{1f600} \u{7f}",
            all.as_str(),
        ] {
            let mut ours = String::new();
            string(&mut ours, text);
            assert_eq!(ours, serde_json::to_string(text).unwrap(), "{text:?}");
        }
    }

    #[test]
    fn sorted_objects_are_written_as_serde_json_writes_its_map() {
        let mut ours = SortedObject::new();
        let mut map = serde_json::Map::new();
        ours.string("message", "a \"quoted\" \u{7}");
        map.insert("message".into(), "a \"quoted\" \u{7}".into());
        ours.number("next_ref", 12);
        map.insert("next_ref".into(), 12.into());
        ours.string_or_null("target", None);
        map.insert("target".into(), serde_json::Value::Null);
        ours.string_or_null("targetName", Some("Buy"));
        map.insert("targetName".into(), "Buy".into());
        ours.bool("checked", false);
        map.insert("checked".into(), false.into());
        let items = vec!["x".to_owned(), String::new()];
        ours.strings("hints", &items, &|text| text.to_uppercase());
        map.insert("hints".into(), vec!["X", ""].into());
        ours.json("code", "1".to_owned());
        ours.string("code", "again");
        map.insert("code".into(), "again".into());
        ours.json("a", "[]".to_owned());
        map.insert("a".into(), serde_json::json!([]));
        assert_eq!(ours.into_json(), serde_json::Value::Object(map).to_string());
        assert_eq!(SortedObject::new().into_json(), "{}");
    }

    #[test]
    fn values_are_written_as_serde_json_writes_them() {
        let all: String = (0u32..0x80).filter_map(char::from_u32).collect();
        let values = [
            serde_json::json!(null),
            serde_json::json!([]),
            serde_json::json!({}),
            serde_json::json!({"z": [1, -1, u64::MAX, i64::MIN, 0.5, -0.0, 1e21, 1e-7, 1.0,
                f64::MAX, f64::MIN_POSITIVE, 5e-324, 123_456.789, 0.1 + 0.2],
                "a": {"y": [true, false, null, {}, []], "\u{e9}": all, "": "\u{2028}\u{1f600}"}}),
        ];
        for item in values {
            assert_eq!(value_json(&item), serde_json::to_string(&item).unwrap());
            assert_eq!(value_json(&item), item.to_string());
        }
    }
}
