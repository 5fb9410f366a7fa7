//! Figure 2: the engine over a 5,000-message conversation with 2,000 actions: time per message
//! and peak heap, for the three ways a host feeds it:
//!
//! - `replay` (live): `protocol::replay`, which observes the prefixes 1, 2, ..., n of the
//!   transcript (the `bai replay` CLI and the conformance suite), feeding each step the new
//!   message and any earlier one whose scan waits;
//! - incremental: `update_messages(len, [(i, message)])` once per new message (what the content
//!   script does through `ChatSession`);
//! - snapshot: one `observe` of the whole conversation (opening an old conversation).
//!
//! Run: `cargo bench --bench engine`. Prints one JSON object.

#![allow(
    clippy::print_stdout,
    reason = "a benchmark binary reports on stdout for scripts/bench"
)]
#![allow(
    unsafe_code,
    reason = "a counting global allocator must implement the unsafe GlobalAlloc trait"
)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use bai::protocol::replay::{Event, ReplayOptions, Transcript, replay};
use bai::protocol::{Decision, Engine, Message, ProtocolVersion, Role, ack_line, prompt_text};
use common::{PROSE, Rng, summary, timed};

/// Counts live heap bytes and the peak since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        ptr
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            if new_size >= layout.size() {
                let live = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed)
                    + (new_size - layout.size());
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` and returns its result with the heap peak it reached above the live bytes at start.
fn peak_during<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let value = f();
    (PEAK.load(Ordering::Relaxed).saturating_sub(base), value)
}

const MESSAGES: usize = 5_000;
const ACTIONS: u64 = 2_000;
const WORKFLOW: &str = "wf_bench_engine";
const NONCE: &str = "n_0123456789abcdef0123456789abcdef";

fn prose(rng: &mut Rng, lines: usize) -> String {
    let mut out = String::new();
    for _ in 0..lines {
        out.push_str(
            PROSE
                .get(rng.below(PROSE.len()))
                .copied()
                .unwrap_or_default(),
        );
        out.push('\n');
    }
    out
}

/// The protocol pasted by the user, the handshake, the ACK, then user and assistant turns; 2,000
/// of the assistant turns carry one action each.
fn conversation() -> Vec<Message> {
    let mut rng = Rng::new(42);
    let mut messages = vec![
        Message::new(Role::User, prompt_text(WORKFLOW)),
        Message::new(
            Role::Assistant,
            format!(
                "Ready.\n\n```bai\n{{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{WORKFLOW}\",\"kind\":\"handshake\",\"state\":\"awaiting_extension_ack\",\"capabilities\":[\"action_lines\"]}}\n```\n"
            ),
        ),
        Message::new(Role::User, ack_line(ProtocolVersion::V0_3, WORKFLOW, NONCE)),
    ];
    let mut action_id = 0u64;
    let mut assistant_turns = 0usize;
    while messages.len() < MESSAGES {
        if messages.len() % 2 == 1 {
            let lines = 1 + rng.below(2);
            messages.push(Message::new(Role::User, prose(&mut rng, lines)));
            continue;
        }
        assistant_turns += 1;
        let lines = 3 + rng.below(8);
        let mut text = prose(&mut rng, lines);
        // 2,000 actions over the ~2,500 assistant turns: every turn but each sixth, until 2,000.
        if assistant_turns % 6 != 0 && action_id < ACTIONS {
            action_id += 1;
            text.push_str(&format!(
                "BAI_ACTION {{\"protocol\":\"BAI/0.3\",\"workflow_id\":\"{WORKFLOW}\",\"kind\":\"action\",\"ack_nonce\":\"{NONCE}\",\"action_id\":{action_id},\"type\":\"click\",\"payload\":{{\"selector\":{{\"type\":\"aria\",\"value\":\"Item {action_id}\"}}}}}}\n"
            ));
        }
        let lines = rng.below(3);
        text.push_str(&prose(&mut rng, lines));
        messages.push(Message::new(Role::Assistant, text));
    }
    messages
}

fn executes(decisions: &[Decision]) -> usize {
    decisions
        .iter()
        .filter(|d| matches!(d, Decision::Execute { .. }))
        .count()
}

/// Feeds the messages one at a time as the content script does; per-message seconds.
fn incremental(
    messages: &[Message],
) -> Result<(Vec<f64>, usize, Engine), Box<dyn std::error::Error>> {
    let mut engine = Engine::new();
    let mut times = Vec::with_capacity(messages.len());
    let mut executed = 0;
    for (index, message) in messages.iter().enumerate() {
        let started = Instant::now();
        let decisions = engine.update_messages(index + 1, [(index, message)]);
        executed += executes(&decisions);
        for decision in &decisions {
            if let Decision::HandshakeFound { workflow_id, .. } = decision {
                executed += executes(&engine.approve(workflow_id, NONCE)?);
            }
        }
        times.push(started.elapsed().as_secs_f64());
    }
    Ok((times, executed, engine))
}

/// Bytes the content script writes to storage over the conversation, fed as `incremental` does:
/// after every message that decided something, the changed parts of the saved state
/// (`split_parts` + `PartWriter`, as `ChatSession::save_changes`), and after every action the
/// head again (the rate-limit count is saved after each action). Returns (bytes written for the
/// last 100 actions ÷ 100, total bytes ÷ actions, the whole state's size at the end: what one
/// write was before).
fn state_writes(messages: &[Message]) -> Result<(f64, f64, usize), Box<dyn std::error::Error>> {
    use bai::protocol::engine::{PartWriter, split_parts};
    let mut engine = Engine::new();
    let mut writer = PartWriter::new();
    let mut per_action: Vec<usize> = Vec::new();
    let mut total = 0usize;
    for (index, message) in messages.iter().enumerate() {
        let mut decisions = engine.update_messages(index + 1, [(index, message)]);
        for decision in decisions.clone() {
            if let Decision::HandshakeFound { workflow_id, .. } = decision {
                decisions.extend(engine.approve(&workflow_id, NONCE)?);
            }
        }
        if decisions.is_empty() {
            continue;
        }
        let parts = split_parts(serde_json::from_str(&engine.save()?)?);
        let head = parts.last().map_or(0, |(_, json)| json.len());
        let changes = writer.changes(parts);
        let mut bytes: usize = changes
            .set
            .iter()
            .map(|(name, json)| name.len() + json.len())
            .sum();
        let actions = executes(&decisions);
        // persistCount: the head (with the rate limits) once per action.
        bytes += head * actions;
        total += bytes;
        if let Some(each) = bytes.checked_div(actions) {
            per_action.extend(std::iter::repeat_n(each, actions));
        }
    }
    let tail: Vec<usize> = per_action.iter().rev().take(100).copied().collect();
    let at_end = tail.iter().sum::<usize>() as f64 / tail.len().max(1) as f64;
    let mean = total as f64 / per_action.len().max(1) as f64;
    Ok((at_end, mean, engine.save()?.len()))
}

/// Mirrors `replay` (live) with a clock around each observation; per-message seconds.
fn live(messages: &[Message]) -> Result<(Vec<f64>, usize), Box<dyn std::error::Error>> {
    let mut engine = Engine::new();
    let mut times = Vec::with_capacity(messages.len());
    let mut executed = 0;
    for k in 1..=messages.len() {
        let started = Instant::now();
        let mut changed = engine.waiting_messages(k - 1);
        changed.push(k - 1);
        let decisions = engine.update_messages(
            k,
            changed
                .into_iter()
                .filter_map(|index| messages.get(index).map(|m| (index, m))),
        );
        executed += executes(&decisions);
        for decision in &decisions {
            if let Decision::HandshakeFound { workflow_id, .. } = decision {
                executed += executes(&engine.approve(workflow_id, NONCE)?);
            }
        }
        times.push(started.elapsed().as_secs_f64());
    }
    Ok((times, executed))
}

fn ms(seconds: &[f64]) -> Vec<f64> {
    seconds.iter().map(|s| s * 1e3).collect()
}

fn us(seconds: &[f64]) -> Vec<f64> {
    seconds.iter().map(|s| s * 1e6).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let messages = conversation();
    let bytes: usize = messages.iter().map(|m| m.text.len()).sum();
    let transcript = Transcript {
        messages: messages.iter().cloned().map(Into::into).collect(),
    };
    let options = ReplayOptions {
        nonces: vec![NONCE.to_owned()],
        snapshot: false,
    };

    // `replay`, live: whole runs.
    let mut replay_totals = Vec::new();
    let mut replay_peak = 0;
    for _ in 0..2 {
        let (peak, (seconds, events)) = peak_during(|| {
            timed(|| {
                replay(&mut Engine::new(), &transcript, &options, &mut || {
                    NONCE.to_owned()
                })
            })
        });
        let events = events?;
        let executed = events
            .iter()
            .filter(|e| matches!(e, Event::Execute { .. }))
            .count();
        if executed as u64 != ACTIONS {
            let first: Vec<String> = events.iter().take(12).map(Event::describe).collect();
            return Err(format!(
                "replay executed {executed} actions, expected {ACTIONS}: {first:?}"
            )
            .into());
        }
        replay_totals.push(seconds);
        replay_peak = replay_peak.max(peak);
    }
    let (live_times, live_executed) = live(&messages)?;
    let head: Vec<f64> = live_times.iter().take(100).copied().collect();
    let tail: Vec<f64> = live_times.iter().rev().take(100).copied().collect();

    // Incremental: five whole runs, every message timed.
    let mut inc_times = Vec::new();
    let mut inc_totals = Vec::new();
    let mut inc_peak = 0;
    let mut state_json = 0;
    for _ in 0..5 {
        let (peak, result) = peak_during(|| incremental(&messages));
        let (times, executed, engine) = result?;
        if executed as u64 != ACTIONS {
            return Err(format!("incremental executed {executed}, expected {ACTIONS}").into());
        }
        inc_totals.push(times.iter().sum::<f64>());
        inc_times.extend(times);
        inc_peak = inc_peak.max(peak);
        state_json = engine.save()?.len();
    }

    let (write_at_end, write_mean, whole_state) = state_writes(&messages)?;

    // Snapshot: the whole conversation at once (an old conversation: nothing runs).
    let mut snap_totals = Vec::new();
    let mut snap_peak = 0;
    for _ in 0..5 {
        let (peak, (seconds, decisions)) =
            peak_during(|| timed(|| Engine::new().observe(&messages)));
        if executes(&decisions) != 0 {
            return Err("an old conversation executed something".into());
        }
        snap_totals.push(seconds);
        snap_peak = snap_peak.max(peak);
    }

    let per_message_us =
        |totals: &[f64]| -> Vec<f64> { totals.iter().map(|t| t * 1e6 / MESSAGES as f64).collect() };
    let report = serde_json::json!({
        "figure": "engine",
        "messages": MESSAGES,
        "actions": ACTIONS,
        "transcript_bytes": bytes,
        "replay_live": {
            "total_ms": summary(&ms(&replay_totals)),
            "mean_per_message_us": summary(&per_message_us(&replay_totals)),
            "per_message_us": summary(&us(&live_times)),
            "first_100_messages_us": summary(&us(&head)),
            "last_100_messages_us": summary(&us(&tail)),
            "executed": live_executed,
            "peak_heap_bytes": replay_peak,
        },
        "incremental": {
            "total_ms": summary(&ms(&inc_totals)),
            "per_message_us": summary(&us(&inc_times)),
            "peak_heap_bytes": inc_peak,
            "saved_state_bytes": state_json,
        },
        "state_writes": {
            "bytes_per_action_at_end": write_at_end,
            "bytes_per_action_mean": write_mean,
            "whole_state_bytes": whole_state,
        },
        "snapshot": {
            "total_ms": summary(&ms(&snap_totals)),
            "peak_heap_bytes": snap_peak,
        },
    });
    println!("{report}");
    Ok(())
}
