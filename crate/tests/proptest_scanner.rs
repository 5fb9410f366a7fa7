#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "property tests: a panic is a failing test"
)]
//! Property tests of the record scanner: records planted in random prose are found exactly once
//! and intact; a streaming prefix never yields a record (or an invalid record) that the complete
//! text does not have at the same place; an unterminated record never swallows the next line.

use bai::protocol::scanner::{RecordScanner, ScanItem, processable_len};
use proptest::prelude::*;

fn items(text: &str, complete: bool) -> Vec<ScanItem> {
    RecordScanner::new(text, 0, complete).collect()
}

fn records(text: &str) -> Vec<String> {
    items(text, true)
        .into_iter()
        .filter_map(|i| match i {
            ScanItem::Record { json, .. } => Some(text[json].to_owned()),
            _ => None,
        })
        .collect()
}

/// Prose that cannot start a record by itself (no `BAI_` at a line start).
fn prose() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 ,.:;!?'\"{}\\[\\]éø✓-]{0,40}"
}

#[derive(Debug, Clone)]
enum Piece {
    Prose(String),
    Record(u32),
    Broken(u32),
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        3 => prose().prop_map(Piece::Prose),
        2 => any::<u32>().prop_map(Piece::Record),
        1 => any::<u32>().prop_map(Piece::Broken),
    ]
}

/// Every record prefix gets planted: the scanner treats them alike.
fn prefix_of(n: u32) -> &'static str {
    ["BAI_ACTION ", "BAI_ACK ", "BAI_RESULT ", "BAI_HANDSHAKE "][n as usize % 4]
}

fn record_json(n: u32) -> String {
    format!(r#"{{"workflow_id":"w","action_id":{n},"payload":{{"text":"a}}b\"c{{"}}}}"#)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn planted_records_are_found_once_and_intact(
        pieces in prop::collection::vec((piece(), 0u8..4), 0..24),
    ) {
        let mut text = String::new();
        let mut planted = Vec::new();
        for (i, (p, sep)) in pieces.iter().enumerate() {
            let next_is_record = matches!(pieces.get(i + 1), Some((Piece::Record(_), _)));
            match p {
                Piece::Prose(s) => text.push_str(&s.replace("BAI_", "bai_")),
                Piece::Record(n) => {
                    let json = record_json(*n);
                    text.push_str(prefix_of(*n));
                    text.push_str(&json);
                    planted.push(json);
                }
                Piece::Broken(n) => {
                    // An unterminated record: must end at its line, not swallow the next one.
                    text.push_str(&format!("BAI_ACTION {{\"action_id\":{n},\"x\":\"open"));
                }
            }
            // Every piece ends its line, joined records excepted (sep 3 joins two records; text
            // after a record on its line makes it invalid).
            match (sep, p) {
                (3, Piece::Record(_)) if next_is_record => text.push(' '),
                (2, _) => text.push_str("\r\n"),
                _ => text.push('\n'),
            }
        }
        prop_assert_eq!(records(&text), planted);
    }

    #[test]
    fn streaming_prefixes_agree_with_the_complete_text(
        pieces in prop::collection::vec((piece(), 0u8..4), 0..16),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut text = String::new();
        for (p, _) in &pieces {
            match p {
                Piece::Prose(s) => text.push_str(s),
                Piece::Record(n) => text.push_str(&format!("{}{}", prefix_of(*n), record_json(*n))),
                Piece::Broken(n) => text.push_str(&format!("BAI_ACK {{\"n\":{n}")),
            }
            text.push('\n');
        }
        let mut at = cut.index(text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let prefix = &text[..at];
        let full = items(&text, true);
        let limit = processable_len(prefix, false);
        for item in items(prefix, false) {
            match item {
                ScanItem::Partial { line_start } => prop_assert_eq!(line_start, limit),
                other => {
                    prop_assert!(other.line_start() < limit);
                    prop_assert!(full.contains(&other), "{:?} not in the complete scan", other);
                }
            }
        }
    }
}
