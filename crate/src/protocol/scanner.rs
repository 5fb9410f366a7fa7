//! Finds records (`PREFIX {json}`) in a message's text (and re-exports [`bai_blocks`], the
//! ```` ```bai ```` blocks, from [`super::fence`]).
//!
//! The scanner knows nothing about JSON beyond where an object ends, and nothing about roles or
//! workflows. It is linear in the text: a `memmem` search for `BAI_` (and for ```` ``` ````) does the
//! work, so text without records costs about one memchr pass.
//!
//! Rules (from the protocol issue):
//! - A record starts with a case-sensitive prefix ([`RecordPrefix`]) at the start of a line (after
//!   optional spaces or tabs), or right after a previous complete record on the same line (rendering
//!   sometimes joins lines). The prefix must be followed by whitespace or `{`: `BAI_ACTIONS` is not
//!   a record.
//! - After the prefix and optional spaces comes one JSON object, on the same line. An object still
//!   open at the end of the line is an invalid record that ends at that line: it never swallows the
//!   next line.
//! - In a message still streaming, a record counts only once a line break follows it; anything on
//!   the unterminated last line is "not yet" ([`ScanItem::Partial`]).

use std::ops::Range;

use memchr::memmem;

/// The record kinds a line can start with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordPrefix {
    /// `BAI_ACTION`: the assistant asks for an action.
    Action,
    /// `BAI_ACK`: the extension acknowledged a handshake.
    Ack,
    /// `BAI_HANDSHAKE`: the BAI/0.2 line form of a handshake.
    Handshake,
    /// `BAI_RESULT`: the extension reports what the actions of a message did (`result_lines`).
    Result,
}

impl RecordPrefix {
    /// The prefix as written in the chat.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Action => "BAI_ACTION",
            Self::Ack => "BAI_ACK",
            Self::Handshake => "BAI_HANDSHAKE",
            Self::Result => "BAI_RESULT",
        }
    }

    fn at(bytes: &[u8]) -> Option<Self> {
        // Longest first is not needed: no prefix is a prefix of another once the following byte
        // must be whitespace or `{`.
        [Self::Action, Self::Ack, Self::Handshake, Self::Result]
            .into_iter()
            .find(|p| bytes.starts_with(p.as_str().as_bytes()))
    }
}

/// Why a prefix did not make a complete record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordProblem {
    /// The prefix is not followed by `{` on its line.
    MissingJson,
    /// The JSON object is still open at the end of the line.
    Unterminated,
    /// Text other than spaces or another record follows the JSON object on its line
    /// (`BAI_ACTION {...}} ...`): a reader that takes the whole rest of the line as the JSON
    /// refuses what the engine would otherwise accept.
    TrailingText,
}

/// One thing the scanner found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanItem {
    /// A complete record: prefix, optional spaces, one brace-balanced JSON object.
    Record {
        /// Which prefix.
        prefix: RecordPrefix,
        /// From the prefix to the closing brace.
        span: Range<usize>,
        /// The JSON object (`{` to `}`), to be parsed by the caller.
        json: Range<usize>,
        /// Start of the line the record is on.
        line_start: usize,
    },
    /// A prefix that did not make a record. `span` runs from the prefix to the end of its line
    /// (line break excluded); scanning resumes on the next line.
    Invalid {
        /// Which prefix.
        prefix: RecordPrefix,
        /// From the prefix to the end of the line.
        span: Range<usize>,
        /// What is wrong.
        problem: RecordProblem,
        /// Start of the line the record is on.
        line_start: usize,
    },
    /// The message is still streaming and its unterminated last line (starting at `line_start`)
    /// has a record, complete or not: not yet. Nothing follows this item.
    Partial {
        /// Start of the unterminated line.
        line_start: usize,
    },
}

impl ScanItem {
    /// Start of the line the item is on.
    pub fn line_start(&self) -> usize {
        match self {
            Self::Record { line_start, .. }
            | Self::Invalid { line_start, .. }
            | Self::Partial { line_start } => *line_start,
        }
    }
}

/// Iterator over the records of a text, from a given offset (which must be a line start).
#[derive(Debug)]
pub struct RecordScanner<'t> {
    text: &'t [u8],
    pos: usize,
    complete: bool,
    /// End of the last complete record: a prefix right after it (and optional spaces) counts.
    joined_after: Option<usize>,
    /// The line end found last, as (line start, line end), so each line is searched once.
    line: Option<(usize, usize)>,
    finder: memmem::Finder<'static>,
    done: bool,
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

impl<'t> RecordScanner<'t> {
    /// Scan `text` from `from` (0 or just after a line break). `complete` is false while the
    /// message is still streaming.
    pub fn new(text: &'t str, from: usize, complete: bool) -> Self {
        Self {
            text: text.as_bytes(),
            pos: from,
            complete,
            joined_after: None,
            line: None,
            finder: memmem::Finder::new(b"BAI_"),
            done: false,
        }
    }

    fn byte(&self, i: usize) -> Option<u8> {
        self.text.get(i).copied()
    }

    /// Start of the line holding `at`, if `at` may start a record there: only spaces/tabs between
    /// the line start and `at`, or `at` follows (after spaces) the previous complete record.
    fn record_line_start(&self, at: usize) -> Option<usize> {
        let mut i = at;
        while i > 0 && self.byte(i - 1).is_some_and(is_blank) {
            i -= 1;
        }
        if i == 0 || self.byte(i - 1) == Some(b'\n') {
            return Some(i);
        }
        match (self.joined_after, self.line) {
            (Some(end), Some((line_start, _))) if end == i => Some(line_start),
            _ => None,
        }
    }

    /// End of the line holding `at` (index of its `\n`, or the text length), computed once per line.
    fn line_end(&mut self, line_start: usize, at: usize) -> (usize, bool) {
        if let Some((start, end)) = self.line {
            if start == line_start && end >= at {
                return (end, end < self.text.len());
            }
        }
        let rest = self.text.get(at..).unwrap_or_default();
        let end = memchr::memchr(b'\n', rest).map_or(self.text.len(), |i| at + i);
        self.line = Some((line_start, end));
        (end, end < self.text.len())
    }

    /// Whether only blanks (and a `\r` before the line break), or another record joined on the
    /// same line, follow a record's object that ends at `end`.
    fn clean_after(&self, end: usize, line_end: usize) -> bool {
        let mut i = end;
        let mut carriage_return = false;
        while i < line_end && self.byte(i).is_some_and(|b| is_blank(b) || b == b'\r') {
            carriage_return |= self.byte(i) == Some(b'\r');
            i += 1;
        }
        if i >= line_end {
            return true;
        }
        // A joined record follows after spaces only: after a lone `\r` the next prefix is not
        // at a place [`Self::record_line_start`] accepts, so the record would be neither run nor
        // refused. The line goes on after the object: trailing text.
        if carriage_return {
            return false;
        }
        let rest = self.text.get(i..line_end).unwrap_or_default();
        RecordPrefix::at(rest).is_some_and(|prefix| {
            matches!(
                rest.get(prefix.as_str().len()),
                Some(b'{' | b' ' | b'\t' | b'\r') | None
            )
        })
    }

    /// Index just after the `}` closing the object opened at `open`, or `None` if the line (which
    /// ends at `line_end`) ends first.
    fn object_end(&self, open: usize, line_end: usize) -> Option<usize> {
        let body = self.text.get(open..line_end)?;
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        for (i, &b) in body.iter().enumerate() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(open + i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

impl Iterator for RecordScanner<'_> {
    type Item = ScanItem;

    fn next(&mut self) -> Option<ScanItem> {
        while !self.done {
            let hay = self.text.get(self.pos..).unwrap_or_default();
            let Some(found) = self.finder.find(hay) else {
                self.done = true;
                return None;
            };
            let at = self.pos + found;
            self.pos = at + 4;
            let Some(prefix) = RecordPrefix::at(self.text.get(at..).unwrap_or_default()) else {
                continue;
            };
            let after_prefix = at + prefix.as_str().len();
            let Some(line_start) = self.record_line_start(at) else {
                continue;
            };
            match self.byte(after_prefix) {
                Some(b'{' | b' ' | b'\t' | b'\n' | b'\r') => {}
                // `BAI_ACTIONS`, `BAI_ACKNOWLEDGED`, ...: not a record.
                Some(_) => continue,
                // The text ends right after the prefix.
                None if self.complete => continue,
                None => {
                    self.done = true;
                    return Some(ScanItem::Partial { line_start });
                }
            }
            let (line_end, terminated) = self.line_end(line_start, at);
            if !terminated && !self.complete {
                self.done = true;
                return Some(ScanItem::Partial { line_start });
            }
            let mut open = after_prefix;
            while open < line_end && self.byte(open).is_some_and(is_blank) {
                open += 1;
            }
            let invalid = |problem| ScanItem::Invalid {
                prefix,
                span: at..line_end,
                problem,
                line_start,
            };
            if self.byte(open) != Some(b'{') || open >= line_end {
                self.pos = line_end;
                self.joined_after = None;
                return Some(invalid(RecordProblem::MissingJson));
            }
            match self.object_end(open, line_end) {
                Some(end) if !self.clean_after(end, line_end) => {
                    self.pos = line_end;
                    self.joined_after = None;
                    return Some(invalid(RecordProblem::TrailingText));
                }
                Some(end) => {
                    self.pos = end;
                    self.joined_after = Some(end);
                    return Some(ScanItem::Record {
                        prefix,
                        span: at..end,
                        json: open..end,
                        line_start,
                    });
                }
                None => {
                    self.pos = line_end;
                    self.joined_after = None;
                    return Some(invalid(RecordProblem::Unterminated));
                }
            }
        }
        None
    }
}

pub use super::fence::{BaiBlock, bai_blocks};

/// How far a message may be processed now: all of it when complete, else up to and including its
/// last line break.
pub fn processable_len(text: &str, complete: bool) -> usize {
    if complete {
        text.len()
    } else {
        memchr::memrchr(b'\n', text.as_bytes()).map_or(0, |i| i + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(text: &str, complete: bool) -> Vec<(String, String)> {
        RecordScanner::new(text, 0, complete)
            .map(|item| match item {
                ScanItem::Record { prefix, json, .. } => {
                    (prefix.as_str().to_owned(), text[json].to_owned())
                }
                ScanItem::Invalid { problem, span, .. } => {
                    (format!("{problem:?}"), text[span].to_owned())
                }
                ScanItem::Partial { line_start } => ("partial".into(), text[line_start..].into()),
            })
            .collect()
    }

    #[test]
    fn a_record_after_a_lone_carriage_return_makes_the_line_invalid() {
        // Neither a line break nor a join: without this, the second record was silently skipped.
        let t = "BAI_ACTION {\"a\":1}\rBAI_ACTION {\"b\":2}\nBAI_ACTION {\"c\":3}\r\n";
        assert_eq!(
            records(t, true),
            vec![
                (
                    "TrailingText".into(),
                    "BAI_ACTION {\"a\":1}\rBAI_ACTION {\"b\":2}".into()
                ),
                ("BAI_ACTION".into(), "{\"c\":3}".into()),
            ]
        );
    }

    #[test]
    fn finds_line_records_and_joined_records() {
        let t = "hi\nBAI_ACTION {\"a\":1}\n  BAI_ACK{\"b\":\"}\"} BAI_ACTION {\"c\":3} \r\n";
        assert_eq!(
            records(t, true),
            vec![
                ("BAI_ACTION".into(), "{\"a\":1}".into()),
                ("BAI_ACK".into(), "{\"b\":\"}\"}".into()),
                ("BAI_ACTION".into(), "{\"c\":3}".into()),
            ]
        );
    }

    #[test]
    fn text_after_a_record_makes_it_invalid() {
        let t = "BAI_ACTION {\"a\":1}} x\nBAI_ACTION {\"a\":1} tail BAI_ACTION {\"b\":2}\nBAI_ACTION {\"a\":1}BAI_ACTIONS {}\nBAI_ACTION {\"c\":3}\n";
        assert_eq!(
            records(t, true),
            vec![
                ("TrailingText".into(), "BAI_ACTION {\"a\":1}} x".into()),
                (
                    "TrailingText".into(),
                    "BAI_ACTION {\"a\":1} tail BAI_ACTION {\"b\":2}".into()
                ),
                (
                    "TrailingText".into(),
                    "BAI_ACTION {\"a\":1}BAI_ACTIONS {}".into()
                ),
                ("BAI_ACTION".into(), "{\"c\":3}".into()),
            ]
        );
    }

    #[test]
    fn finds_result_records() {
        let t = "BAI_RESULT {\"a\":\"BAI_ACTION {}\"}\nBAI_RESULTS {}\nBAI_RESULT\n";
        assert_eq!(
            records(t, true),
            vec![
                ("BAI_RESULT".into(), "{\"a\":\"BAI_ACTION {}\"}".into()),
                ("MissingJson".into(), "BAI_RESULT".into()),
            ]
        );
    }

    #[test]
    fn ignores_mid_line_and_longer_prefixes() {
        let t = "see BAI_ACTION {\"a\":1}\nBAI_ACTIONS {\"a\":1}\n`BAI_ACK {}`\nBAI_ACKED {}\n";
        assert!(records(t, true).is_empty());
    }

    #[test]
    fn unterminated_does_not_swallow_next_line() {
        let t = "BAI_ACTION {\"a\":\"x\nBAI_ACTION {\"b\":2}\nBAI_ACTION go\n";
        assert_eq!(
            records(t, true),
            vec![
                ("Unterminated".into(), "BAI_ACTION {\"a\":\"x".into()),
                ("BAI_ACTION".into(), "{\"b\":2}".into()),
                ("MissingJson".into(), "BAI_ACTION go".into()),
            ]
        );
    }

    #[test]
    fn streaming_waits_for_line_break() {
        let t = "BAI_ACTION {\"a\":1}\nBAI_ACTION {\"b\":2}";
        assert_eq!(
            records(t, false),
            vec![
                ("BAI_ACTION".into(), "{\"a\":1}".into()),
                ("partial".into(), "BAI_ACTION {\"b\":2}".into()),
            ]
        );
        assert_eq!(records(t, true).len(), 2);
        assert_eq!(records("BAI_ACT", false), vec![]);
        assert_eq!(
            records("BAI_ACK", false),
            vec![("partial".into(), "BAI_ACK".into())]
        );
        assert_eq!(processable_len(t, false), 19);
        assert_eq!(processable_len(t, true), t.len());
    }

    /// Throughput sanity figure: `cargo test --release --lib -- --ignored scanner_throughput --nocapture`.
    #[test]
    #[ignore = "a measurement, run by hand in release mode"]
    fn scanner_throughput() {
        let line = "The quick brown fox jumps over the lazy dog; BAI is mentioned here but not as a record.\n";
        let mut text = String::new();
        let mut n = 0;
        while text.len() < 10 * 1024 * 1024 {
            text.push_str(line);
            n += 1;
            if n % 10_000 == 0 {
                text.push_str("BAI_ACTION {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"w\",\"action_id\":1}\n```json\n{}\n```\n");
            }
        }
        let mb = text.len() as f64 / (1024.0 * 1024.0);
        let start = std::time::Instant::now();
        let rounds = 20;
        let mut found = 0;
        for _ in 0..rounds {
            found += RecordScanner::new(&text, 0, true).count();
            found += bai_blocks(&text).len();
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "scanned {mb:.1} MB x {rounds} in {secs:.3} s: {:.0} MB/s ({found} items)",
            mb * f64::from(rounds) / secs
        );
        let start = std::time::Instant::now();
        let mut engine = crate::protocol::Engine::new();
        let message = crate::protocol::Message::new(crate::protocol::Role::Assistant, text.clone());
        let decisions = engine.observe(std::slice::from_ref(&message));
        let first = start.elapsed().as_secs_f64();
        let start = std::time::Instant::now();
        let again = engine.observe(std::slice::from_ref(&message));
        let unchanged = start.elapsed().as_secs_f64();
        println!(
            "engine: first observe {:.0} MB/s ({} decisions), unchanged re-observe {:.0} MB/s ({} decisions)",
            mb / first,
            decisions.len(),
            mb / unchanged,
            again.len()
        );
    }
}
