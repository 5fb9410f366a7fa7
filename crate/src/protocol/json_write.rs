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
}
