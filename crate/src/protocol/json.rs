//! The engine's one JSON reader, for records, handshakes and the ACK/result lines it recognizes.
//!
//! It reads standard JSON (RFC 8259) into `serde_json` values, and refuses every text on which
//! two standard readers could disagree, so that what the engine acts on is what any other reader
//! of the same line (the user, the panel's excerpt, `JSON.parse`, serde_json, Python) sees:
//!
//! - a key written twice in one object, at any depth, compared after decoding escapes
//!   (`"t\u0065xt"` and `"text"` are the same key): some readers keep the first value, most the
//!   last ([`RejectCode::DuplicateKey`]);
//! - a key written with a `\` escape, or with anything but printable ASCII: it reads differently
//!   raw and decoded, and a look-alike of a protocol key (`"pаyload"` with a Cyrillic `а`) would
//!   shadow the real one for a human reader;
//! - a lone UTF-16 surrogate (`"\ud800"`): JavaScript keeps it, serde_json refuses it, others
//!   replace it;
//! - a U+0000 (NUL) in a string, which C-string readers cut at;
//! - a number JavaScript reads differently: an integer beyond ±(2^53 − 1), `-0`, or a fraction or
//!   exponent beyond what every reader provably rounds alike (more than 15 significant digits,
//!   a decimal exponent beyond ±22: `1e400`, `0.1000000000000000055511151231257827`);
//! - anything but JSON's four whitespace characters around tokens (no BOM, no NBSP), and any text
//!   after the value;
//! - nesting deeper than [`MAX_DEPTH`].
//!
//! Everything else a standard reader accepts, this one accepts with the same value.

use serde_json::{Map, Number, Value};

use super::quote::QuotedChar;
use super::refusal::{Disagreement, JsonProblem, Refusal};

/// Deepest nesting of objects and arrays accepted (records need 4).
pub const MAX_DEPTH: usize = 32;

/// The largest integer every JSON reader represents exactly (JavaScript's `Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Why a text was refused: [`Refusal::InvalidJson`] or [`Refusal::DuplicateKey`] (or
/// [`Refusal::JsonNotObject`]).
pub type JsonRefusal = Refusal;

/// Read `text` as exactly one JSON object (JSON whitespace around it allowed).
pub fn read_object(text: &str) -> Result<Map<String, Value>, JsonRefusal> {
    match read_value(text)? {
        Value::Object(map) => Ok(map),
        _ => Err(Refusal::JsonNotObject),
    }
}

/// Read `text` as exactly one JSON value (JSON whitespace around it allowed).
pub fn read_value(text: &str) -> Result<Value, JsonRefusal> {
    read_whole(text, false)
}

/// Deepest nesting [`read_plain`] accepts (serde_json's limit).
pub const PLAIN_MAX_DEPTH: usize = 128;

/// Read `text` as exactly one JSON value as any standard reader does (serde_json's `Value`):
/// none of the strict checks above (a key written twice keeps its last value, any key and
/// `\u0000` are fine, every number reads, correctly rounded), nesting up to
/// [`PLAIN_MAX_DEPTH`]. For JSON the engine acts on through no record: state this crate saved,
/// and what the glue passes in (replies, the page's state, held texts). Syntax errors, lone
/// surrogates and numbers beyond a double are refused, as serde_json refuses them.
pub fn read_plain(text: &str) -> Result<Value, JsonRefusal> {
    read_whole(text, true)
}

/// The JSON value that `text` starts with, read as [`read_plain`] reads, and the byte offset
/// where it ends (what follows is not looked at).
pub fn read_plain_prefix(text: &str) -> Result<(Value, usize), JsonRefusal> {
    let mut reader = Reader::new(text, true);
    reader.skip_whitespace();
    let value = reader.value(0)?;
    Ok((value, reader.pos))
}

/// `text` as `text.parse::<i32>()` reads it: an optional `+` or `-`, then one or more ASCII
/// digits and nothing else; `None` when it is not that or out of range. One small loop instead
/// of the standard library's generic integer reader (its `i32` and `u16` copies were 0.8 KB of
/// the executor's wasm); `parse_i32_is_the_standard_parse` holds them equal.
pub fn parse_i32(text: &str) -> Option<i32> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, text.get(1..)?),
        Some(b'+') => (false, text.get(1..)?),
        _ => (false, text),
    };
    if digits.is_empty() {
        return None;
    }
    let mut value: i32 = 0;
    for byte in digits.bytes() {
        let digit = i32::from(byte.wrapping_sub(b'0'));
        if !byte.is_ascii_digit() {
            return None;
        }
        // Built on the sign's side, so that `i32::MIN` (one more than `i32::MAX`) fits.
        value = value.checked_mul(10)?;
        value = if negative {
            value.checked_sub(digit)?
        } else {
            value.checked_add(digit)?
        };
    }
    Some(value)
}

fn read_whole(text: &str, plain: bool) -> Result<Value, JsonRefusal> {
    let mut reader = Reader::new(text, plain);
    reader.skip_whitespace();
    let value = reader.value(0)?;
    reader.skip_whitespace();
    if reader.pos < reader.bytes.len() {
        return Err(reader.syntax("text follows the JSON value"));
    }
    match reader.soft {
        Some(problem) => Err(Refusal::InvalidJson(problem)),
        None => Ok(value),
    }
}

struct Reader<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    /// The first problem that does not stop reading (an escaped key), reported only if no
    /// duplicate key or syntax error comes later: a duplicate is the more useful report.
    soft: Option<JsonProblem>,
    /// [`read_plain`]: none of the strict checks.
    plain: bool,
}

impl<'t> Reader<'t> {
    fn new(text: &'t str, plain: bool) -> Self {
        Reader {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            soft: None,
            plain,
        }
    }
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// The 1-based character column of the current position, for messages.
    fn column(&self) -> usize {
        self.text
            .get(..self.pos)
            .map_or(self.pos, |before| before.chars().count())
            + 1
    }

    fn syntax(&self, what: &str) -> JsonRefusal {
        let found = match self
            .text
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
        {
            None => "the end of the text".to_owned(),
            Some(c) if c.is_control() || c.is_whitespace() || c == '\u{feff}' => {
                format!("U+{:04X}", u32::from(c))
            }
            Some(c) => QuotedChar(c).to_string(),
        };
        Refusal::InvalidJson(JsonProblem::Syntax {
            expected: what.to_owned(),
            found,
            column: self.column(),
        })
    }

    fn ambiguous(&self, what: Disagreement) -> JsonRefusal {
        Refusal::InvalidJson(JsonProblem::Disagreement {
            what,
            column: self.column(),
        })
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8, what: &str) -> Result<(), JsonRefusal> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.syntax(what))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, JsonRefusal> {
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => Ok(Value::String(self.string()?.0)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            _ => Err(self.syntax("expected a value")),
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, JsonRefusal> {
        if self
            .bytes
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(word.as_bytes()))
        {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.syntax("expected a value"))
        }
    }

    fn check_depth(&self, depth: usize) -> Result<(), JsonRefusal> {
        let max_depth = if self.plain {
            PLAIN_MAX_DEPTH
        } else {
            MAX_DEPTH
        };
        if depth > max_depth {
            return Err(Refusal::InvalidJson(JsonProblem::TooDeep { max_depth }));
        }
        Ok(())
    }

    fn object(&mut self, depth: usize) -> Result<Value, JsonRefusal> {
        self.check_depth(depth)?;
        self.pos += 1;
        let mut map = Map::new();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Object(map));
        }
        loop {
            if self.peek() != Some(b'"') {
                return Err(self.syntax("expected a key in double quotes"));
            }
            let key_at = self.pos;
            let (key, escaped) = self.string()?;
            // A plain reader keeps the last of two values under one key, as serde_json does.
            if !self.plain {
                if map.contains_key(&key) {
                    let column = self
                        .text
                        .get(..key_at)
                        .map_or(key_at, |b| b.chars().count())
                        + 1;
                    return Err(Refusal::DuplicateKey { key, column });
                }
                if self.soft.is_none() {
                    if escaped {
                        self.soft = Some(JsonProblem::EscapedKey { key: key.clone() });
                    } else if !key.bytes().all(|b| (0x20..0x7f).contains(&b)) {
                        self.soft = Some(JsonProblem::NonAsciiKey { key: key.clone() });
                    }
                }
            }
            self.skip_whitespace();
            self.expect(b':', "expected ':' after a key")?;
            self.skip_whitespace();
            let value = self.value(depth)?;
            map.insert(key, value);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_whitespace();
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(map));
                }
                _ => return Err(self.syntax("expected ',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, JsonRefusal> {
        self.check_depth(depth)?;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_whitespace();
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.syntax("expected ',' or ']'")),
            }
        }
    }

    /// A string starting at the current `"`: its decoded text and whether it had any escape.
    fn string(&mut self) -> Result<(String, bool), JsonRefusal> {
        self.pos += 1;
        let mut out = String::new();
        let mut escaped = false;
        loop {
            let start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // `start` and `pos` sit next to ASCII bytes (or the ends), so both are char boundaries.
            out.push_str(self.text.get(start..self.pos).unwrap_or_default());
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok((out, escaped));
                }
                Some(b'\\') => {
                    escaped = true;
                    self.escape(&mut out)?;
                }
                Some(_) => {
                    return Err(self.syntax("a control character inside a string must be escaped"));
                }
                None => return Err(self.syntax("the string is not closed")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), JsonRefusal> {
        let at = self.pos;
        self.pos += 1;
        let Some(kind) = self.peek() else {
            return Err(self.syntax("the string is not closed"));
        };
        self.pos += 1;
        let c = match kind {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                let code = match unit {
                    0xD800..=0xDBFF => {
                        let low = if self.bytes.get(self.pos..self.pos + 2) == Some(b"\\u") {
                            self.pos += 2;
                            Some(self.hex4()?)
                        } else {
                            None
                        };
                        match low {
                            Some(low @ 0xDC00..=0xDFFF) => {
                                0x10000
                                    + ((u32::from(unit) - 0xD800) << 10)
                                    + (u32::from(low) - 0xDC00)
                            }
                            _ => {
                                self.pos = at;
                                return Err(
                                    self.ambiguous(Disagreement::LoneHighSurrogate { unit })
                                );
                            }
                        }
                    }
                    0xDC00..=0xDFFF => {
                        self.pos = at;
                        return Err(self.ambiguous(Disagreement::LoneLowSurrogate { unit }));
                    }
                    other => u32::from(other),
                };
                if code == 0 && !self.plain {
                    self.pos = at;
                    return Err(self.ambiguous(Disagreement::Nul));
                }
                // Surrogates were handled above, so every code here is a valid scalar value.
                char::from_u32(code).unwrap_or('\u{fffd}')
            }
            _ => {
                self.pos = at;
                return Err(self.syntax(
                    "an unknown escape (use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)",
                ));
            }
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u16, JsonRefusal> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            // Four hex digits folded by hand: no generic integer reader for one `u16`.
            .and_then(|d| {
                d.iter().try_fold(0u16, |unit, byte| {
                    let digit = char::from(*byte).to_digit(16)?;
                    Some(unit * 16 + u16::try_from(digit).ok()?)
                })
            });
        match digits {
            Some(unit) => {
                self.pos += 4;
                Ok(unit)
            }
            None => Err(self.syntax("\\u must be followed by 4 hex digits")),
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Value, JsonRefusal> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    return Err(self.syntax("a number must not start with 0"));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.syntax("expected digits")),
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            integer = false;
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.syntax("expected digits after '.'"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integer = false;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.syntax("expected digits in the exponent"));
            }
        }
        let token = self.text.get(start..self.pos).unwrap_or_default();
        if self.plain {
            return self.plain_number(token, integer, start);
        }
        let refuse = |reader: &mut Self, what: Disagreement| {
            reader.pos = start;
            Err(reader.ambiguous(what))
        };
        if integer {
            let magnitude = token.trim_start_matches('-');
            let value = magnitude
                .parse::<u64>()
                .ok()
                .filter(|n| *n <= MAX_SAFE_INTEGER);
            return match value {
                Some(0) if negative => refuse(self, Disagreement::MinusZeroInteger),
                Some(n) if negative => {
                    // n <= 2^53 - 1, so the negation fits an i64.
                    let n = i64::try_from(n).map_or(i64::MIN, |n| -n);
                    Ok(Value::Number(Number::from(n)))
                }
                Some(n) => Ok(Value::Number(Number::from(n))),
                None => refuse(
                    self,
                    Disagreement::IntegerBeyondSafe {
                        token: token.to_owned(),
                    },
                ),
            };
        }
        // A fraction or an exponent: read only where every reader provably gets the same double
        // (Clinger's fast path): at most 15 significant digits and a decimal exponent within
        // ±22, so the value is one correctly rounded multiplication or division of exact
        // doubles, which is what JavaScript's and serde_json's readers compute too. Protocol
        // numbers with a fraction are pixel positions; nothing needs more.
        match fast_path_value(token) {
            Some(v) if v == 0.0 && negative => refuse(
                self,
                Disagreement::NegativeZero {
                    token: token.to_owned(),
                },
            ),
            Some(v) => match Number::from_f64(v) {
                Some(number) => Ok(Value::Number(number)),
                None => refuse(
                    self,
                    Disagreement::OutOfRange {
                        token: token.to_owned(),
                    },
                ),
            },
            None => refuse(
                self,
                Disagreement::TooPrecise {
                    token: token.to_owned(),
                },
            ),
        }
    }
}

impl Reader<'_> {
    /// A number token as serde_json reads it: an integer that fits 64 bits as that integer, any
    /// other number as the nearest double (`-0` too); beyond a double's range is an error.
    fn plain_number(
        &mut self,
        token: &str,
        integer: bool,
        start: usize,
    ) -> Result<Value, JsonRefusal> {
        if integer {
            if token.starts_with('-') {
                if let Some(n) = token.parse::<i64>().ok().filter(|n| *n != 0) {
                    return Ok(Value::Number(Number::from(n)));
                }
            } else if let Ok(n) = token.parse::<u64>() {
                return Ok(Value::Number(Number::from(n)));
            }
        }
        match Number::from_f64(nearest_double(token)) {
            Some(number) => Ok(Value::Number(number)),
            None => {
                self.pos = start;
                Err(self.ambiguous(Disagreement::OutOfRange {
                    token: token.to_owned(),
                }))
            }
        }
    }
}

/// The double nearest a JSON number token (infinite beyond the range, which is refused). In
/// wasm, JavaScript's `parseFloat` reads what the fast path cannot: it rounds correctly, and
/// core's reader would bring ~10 KB of tables into the module.
#[cfg(target_arch = "wasm32")]
fn nearest_double(token: &str) -> f64 {
    fast_path_value(token).unwrap_or_else(|| js_sys::parse_float(token))
}

/// The double nearest a JSON number token (infinite beyond the range, which is refused).
#[cfg(not(target_arch = "wasm32"))]
fn nearest_double(token: &str) -> f64 {
    token.parse().unwrap_or(f64::NAN)
}

/// Exact powers of ten (every one up to 10^22 is a double exactly).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The value of a JSON number token with a fraction or exponent, when it has at most 15
/// significant digits and a decimal exponent within ±22 (signed by the token).
fn fast_path_value(token: &str) -> Option<f64> {
    let (negative, rest) = match token.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, token),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (rest.get(..at)?, parse_i32(rest.get(at + 1..)?)?),
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = int.bytes().chain(frac.bytes()).skip_while(|b| *b == b'0');
    let mut significand: u64 = 0;
    let mut count = 0;
    for digit in digits {
        count += 1;
        if count > 15 {
            return None;
        }
        significand = significand * 10 + u64::from(digit - b'0');
    }
    let exponent = exponent.checked_sub(i32::try_from(frac.len()).ok()?)?;
    // 15 digits are below 2^53: the significand is exact as a double.
    let m = significand as f64;
    let value = if significand == 0 {
        0.0
    } else if exponent >= 0 {
        m * *POW10.get(usize::try_from(exponent).ok()?)?
    } else {
        m / *POW10.get(usize::try_from(-exponent).ok()?)?
    };
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::error::RejectCode;

    #[test]
    fn parse_i32_is_the_standard_parse() {
        let mut cases: Vec<String> = [
            "",
            "+",
            "-",
            "+-1",
            "-+1",
            "--1",
            "++1",
            "0",
            "-0",
            "+0",
            "007",
            "-007",
            "12",
            "+12",
            "-12",
            " 1",
            "1 ",
            "1a",
            "a1",
            "1.0",
            "1e3",
            "2147483647",
            "2147483648",
            "-2147483648",
            "-2147483649",
            "99999999999",
            "-99999999999",
            "٣",
            "１",
            "0x10",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..5_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let alphabet = b"0123456789+- a";
            let len = (state % 12) as usize;
            let text: String = (0..len)
                .map(|at| char::from(alphabet[((state >> (at * 4)) % 14) as usize]))
                .collect();
            cases.push(text);
            cases.push(format!("{}", state as i64 as i32));
        }
        for case in cases {
            assert_eq!(parse_i32(&case), case.parse::<i32>().ok(), "{case:?}");
        }
    }

    fn code(text: &str) -> RejectCode {
        read_object(text).unwrap_err().code()
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{}"#,
            r#" {"a":1,"b":[true,false,null,-2,3.5,1e3,"x\"\\\/\b\f\n\r\tz"],"c":{"d":{}}} "#,
            r#"{"s":"\ud83d\ude00 é \u00e9 \u2028"}"#,
            r#"{"n":9007199254740991,"m":-9007199254740991,"f":0.1,"g":0.0,"h":1E-2}"#,
            r#"{"a":123456789012345e-22,"b":1e22,"c":0.000123,"d":10.5,"e":1.0,"f":-2.5E+3}"#,
            "{\"a\"\t:\r\n1}",
        ] {
            let ours = read_object(text).unwrap();
            let theirs: Value = serde_json::from_str(text).unwrap();
            assert_eq!(Value::Object(ours), theirs, "{text}");
        }
    }

    #[test]
    fn the_plain_reader_reads_as_serde_json_reads() {
        for text in [
            r#"{"a":1,"a":2}"#,
            r#"{"p\u0061yload":{"x":"\u0000"},"é":[1.7976931348623157e308,-0,-0.0,0.30000000000000004]}"#,
            r#"[18446744073709551615,18446744073709551616,-9223372036854775808,-9223372036854775809]"#,
            r#"[1e-400,123456789012345678901234567890,1E+2,0.1]"#,
            " \"x\" ",
            "null",
        ] {
            let ours = read_plain(text).unwrap();
            let theirs: Value = serde_json::from_str(text).unwrap();
            assert_eq!(ours, theirs, "{text}");
            assert_eq!(ours.to_string(), theirs.to_string(), "{text}");
        }
        for text in [
            "1e400",
            r#"{"a":"\ud800"}"#,
            "{\"a\":\"\t\"}",
            "[1,]",
            "{} x",
            "01",
        ] {
            assert!(read_plain(text).is_err(), "{text}");
            assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
        }
        let deep = format!(
            "{}{}",
            "[".repeat(PLAIN_MAX_DEPTH),
            "]".repeat(PLAIN_MAX_DEPTH)
        );
        assert!(read_plain(&deep).is_ok());
        let deeper = format!(
            "{}1{}",
            "[".repeat(PLAIN_MAX_DEPTH + 1),
            "]".repeat(PLAIN_MAX_DEPTH + 1)
        );
        assert!(read_plain(&deeper).is_err());
        assert!(serde_json::from_str::<Value>(&deeper).is_err());
        // Where serde_json's default (fast, not always correctly rounded) reading of a long
        // fraction differs, this reader gives the correctly rounded double.
        assert_eq!(
            read_plain("2.2250738585072011e-308").unwrap(),
            serde_json::json!(2.225_073_858_507_201e-308)
        );
        let (value, end) = read_plain_prefix(r#"{"a":[1]} tail {"#).unwrap();
        assert_eq!((value, end), (serde_json::json!({"a": [1]}), 9));
    }

    #[test]
    fn duplicate_keys_at_every_depth() {
        for text in [
            r#"{"a":1,"a":1}"#,
            r#"{"a":1,"b":{"c":1,"c":2}}"#,
            r#"{"a":[{"x":1},{"y":1,"y":1}]}"#,
            r#"{"text":1,"t\u0065xt":2}"#,
            r#"{"t\u0065xt":1,"text":2}"#,
            r#"{"\u0061":1,"\u0061":2}"#,
        ] {
            assert_eq!(code(text), RejectCode::DuplicateKey, "{text}");
        }
        let reason = read_object(r#"{"payload":{},"payload":{}}"#)
            .unwrap_err()
            .to_string();
        assert!(reason.contains("\"payload\" appears twice"), "{reason}");
        // The same key in two different objects is fine.
        assert!(read_object(r#"{"a":{"v":1},"b":{"v":1}}"#).is_ok());
    }

    #[test]
    fn refuses_what_readers_disagree_on() {
        for text in [
            r#"{"p\u0061yload":{}}"#,
            "{\"p\u{430}yload\":{}}",
            r#"{"a":"\ud800"}"#,
            r#"{"a":"\udc00\ud800"}"#,
            r#"{"a":"\ud800\u0041"}"#,
            r#"{"a":"x\u0000"}"#,
            r#"{"a":1e400}"#,
            r#"{"a":1e23}"#,
            r#"{"a":1e-23}"#,
            r#"{"a":0.1234567890123456}"#,
            r#"{"a":2.2250738585072011e-308}"#,
            r#"{"a":-1e400}"#,
            r#"{"a":-0}"#,
            r#"{"a":-0.0}"#,
            r#"{"a":-0e5}"#,
            r#"{"a":9007199254740992}"#,
            r#"{"a":-9007199254740992}"#,
            r#"{"a":18446744073709551616}"#,
            "\u{feff}{}",
            "{}\u{feff}",
            "{\u{a0}}",
            "{}\u{0}",
            r#"{} {}"#,
            r#"{}}"#,
            r#"{"a":1,}"#,
            r#"{'a':1}"#,
            r#"{"a":01}"#,
            r#"{"a":+1}"#,
            r#"{"a":.5}"#,
            r#"{"a":NaN}"#,
            r#"{"a":"\x41"}"#,
            "{\"a\":\"\t\"}",
            r#"[]"#,
            r#""x""#,
        ] {
            assert_eq!(code(text), RejectCode::InvalidJson, "{text:?}");
        }
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(read_value(&deep).is_ok());
        let deeper = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(read_value(&deeper).is_err());
    }
}
