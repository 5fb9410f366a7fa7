//! Figure 1: record scanner throughput over a 10 MB transcript with few records, beside a bare
//! memchr pass over the same bytes (the floor) and a naive regex-per-line scanner.
//!
//! Run: `cargo bench --bench scanner` (release profile: opt-level 3, LTO). Prints one JSON object.

#![allow(
    clippy::print_stdout,
    reason = "a benchmark binary reports on stdout for scripts/bench"
)]

mod common;

use bai::protocol::scanner::{RecordScanner, ScanItem, bai_blocks};
use common::{PROSE, Rng, summary, timed};
use std::hint::black_box;

const TARGET_BYTES: usize = 10 * 1024 * 1024;
/// One record every this many lines (about 1 per 100 KB): "few records".
const RECORD_EVERY: usize = 1_200;
const ROUNDS: usize = 40;
const WARMUP: usize = 3;

fn transcript() -> (String, usize) {
    let mut rng = Rng::new(0x5eed);
    let mut text = String::with_capacity(TARGET_BYTES + 4096);
    let mut lines = 0usize;
    let mut records = 0usize;
    while text.len() < TARGET_BYTES {
        lines += 1;
        if lines % RECORD_EVERY == 0 {
            records += 1;
            text.push_str(&format!(
                "BAI_ACTION {{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"wf_bench\",\"kind\":\"action\",\"ack_nonce\":\"n_00112233445566778899aabbccddeeff\",\"action_id\":{records},\"type\":\"click\",\"payload\":{{\"selector\":{{\"type\":\"css\",\"value\":\"#item-{records}\"}}}}}}\n"
            ));
            continue;
        }
        text.push_str(
            PROSE
                .get(rng.below(PROSE.len()))
                .copied()
                .unwrap_or_default(),
        );
        text.push('\n');
    }
    (text, records)
}

/// What a scanner without an index would do: every line through a regex.
fn naive_scan(re: &regex::Regex, text: &str) -> usize {
    text.lines().filter(|line| re.is_match(line)).count()
}

fn records(text: &str) -> usize {
    RecordScanner::new(text, 0, true)
        .filter(|item| matches!(item, ScanItem::Record { .. }))
        .count()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (text, planted) = transcript();
    let bytes = text.as_bytes();
    let mb = text.len() as f64 / 1e6;
    let re = regex::Regex::new(r"^[ \t]*(BAI_ACTION|BAI_ACK|BAI_HANDSHAKE)[ \t]*(\{.*\})[ \t]*$")?;

    // Sanity: all three see the same records.
    let found = records(&text);
    let naive_found = naive_scan(&re, &text);
    if found != planted || naive_found != planted {
        return Err(format!("planted {planted}, scanner {found}, naive {naive_found}").into());
    }

    let mut memchr_absent = Vec::new();
    let mut memchr_lines = Vec::new();
    let mut scanner = Vec::new();
    let mut scanner_blocks = Vec::new();
    let mut naive = Vec::new();
    let mut ratio_absent = Vec::new();
    let mut ratio_lines = Vec::new();
    let mut ratio_naive = Vec::new();
    for round in 0..WARMUP + ROUNDS {
        // Interleaved, so machine noise hits every variant alike; ratios are per round.
        let (floor, _) = timed(|| black_box(memchr::memchr(0x00, black_box(bytes))));
        let (lines, _) = timed(|| black_box(memchr::memchr_iter(b'\n', black_box(bytes)).count()));
        let (ours, _) = timed(|| black_box(RecordScanner::new(black_box(&text), 0, true).count()));
        let (ours_blocks, _) = timed(|| {
            black_box(RecordScanner::new(black_box(&text), 0, true).count())
                + black_box(bai_blocks(black_box(&text)).len())
        });
        let (slow, _) = timed(|| black_box(naive_scan(&re, black_box(&text))));
        if round < WARMUP {
            continue;
        }
        memchr_absent.push(floor * 1e3);
        memchr_lines.push(lines * 1e3);
        scanner.push(ours * 1e3);
        scanner_blocks.push(ours_blocks * 1e3);
        naive.push(slow * 1e3);
        ratio_absent.push(ours / floor);
        ratio_lines.push(ours / lines);
        ratio_naive.push(slow / ours);
    }
    let report = serde_json::json!({
        "figure": "scanner",
        "bytes": text.len(),
        "records": planted,
        "rounds": ROUNDS,
        "ms": {
            "memchr_floor": summary(&memchr_absent),
            "memchr_newlines": summary(&memchr_lines),
            "record_scanner": summary(&scanner),
            "record_scanner_and_bai_blocks": summary(&scanner_blocks),
            "naive_regex_per_line": summary(&naive),
        },
        "mb": mb,
        "ratios": {
            "scanner_time_over_memchr_floor": summary(&ratio_absent),
            "scanner_time_over_memchr_newlines": summary(&ratio_lines),
            "naive_time_over_scanner": summary(&ratio_naive),
        },
    });
    println!("{report}");
    Ok(())
}
