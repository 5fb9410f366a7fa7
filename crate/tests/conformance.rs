#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "a test harness: a panic is a failing test"
)]
//! The protocol conformance suite: one folder per case under `tests/fixtures/protocol/`.
//!
//! Each case has `transcript.json` and `expected.jsonl` (the events `bai replay` must print), and
//! optionally `args.json`:
//!
//! ```json
//! {"nonces": ["n_..."], "snapshot": false}
//! ```
//!
//! or, for several invocations sharing one `--state` file (a page reload between them):
//!
//! ```json
//! {"runs": [{"transcript": "transcript.json", "nonces": [...]},
//!           {"transcript": "transcript2.json", "snapshot": true}]}
//! ```
//!
//! A user message of a transcript may be a *result step*, `{"role": "user", "result":
//! {"workflow_id": "...", "report": {...}}}` (report optional): replay asks the engine for the
//! `BAI_RESULT` line, prints a `result` event and posts the line as that message (see
//! `bai::protocol::replay`). A later run that must see the same line again (a reload) writes it
//! as literal text, copied from the expected events.
//!
//! Without nonces, [`DEFAULT_NONCES`] are used. Every case runs twice: through the library
//! function `bai::protocol::replay::replay` (with a save/restore of the engine between runs,
//! exactly as `--state` does) and through the `bai` binary itself; both must print exactly the
//! expected events. `BAI_BLESS=1 cargo test --test conformance` rewrites the expected files:
//! review every change by hand, the expected events are the spec.

use std::path::{Path, PathBuf};
use std::process::Command;

use bai::protocol::Engine;
use bai::protocol::replay::{ReplayOptions, Transcript, replay};
use serde::Deserialize;
use serde_json::Value;

const DEFAULT_NONCES: &[&str] = &[
    "n_0123456789abcdef0123456789abcdef",
    "n_fedcba9876543210fedcba9876543210",
    "n_00112233445566778899aabbccddeeff",
];

#[derive(Debug, Deserialize)]
struct Run {
    #[serde(default = "default_transcript")]
    transcript: String,
    #[serde(default)]
    nonces: Option<Vec<String>>,
    #[serde(default)]
    snapshot: bool,
}

fn default_transcript() -> String {
    "transcript.json".into()
}

#[derive(Debug, Deserialize)]
struct Args {
    #[serde(default)]
    runs: Option<Vec<Run>>,
    #[serde(default)]
    nonces: Option<Vec<String>>,
    #[serde(default)]
    snapshot: bool,
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/protocol")
}

fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("transcript.json").exists())
        .collect();
    cases.sort();
    cases
}

fn runs_of(case: &Path) -> Vec<Run> {
    let args_path = case.join("args.json");
    let args: Args = if args_path.exists() {
        serde_json::from_str(&std::fs::read_to_string(&args_path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", args_path.display()))
    } else {
        Args {
            runs: None,
            nonces: None,
            snapshot: false,
        }
    };
    args.runs.unwrap_or_else(|| {
        vec![Run {
            transcript: default_transcript(),
            nonces: args.nonces,
            snapshot: args.snapshot,
        }]
    })
}

fn nonces_of(run: &Run) -> Vec<String> {
    run.nonces
        .clone()
        .unwrap_or_else(|| DEFAULT_NONCES.iter().map(|s| (*s).to_owned()).collect())
}

/// The events through the library, one JSON line each.
fn run_library(case: &Path) -> Vec<String> {
    let mut state: Option<String> = None;
    let mut lines = Vec::new();
    for run in runs_of(case) {
        let path = case.join(&run.transcript);
        let transcript: Transcript = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut engine = match &state {
            Some(saved) => Engine::restore(saved).unwrap(),
            None => Engine::new(),
        };
        let options = ReplayOptions {
            nonces: nonces_of(&run),
            snapshot: run.snapshot,
        };
        let mut no_more = || {
            panic!(
                "{}: ran out of nonces; add some to args.json",
                case.display()
            )
        };
        let events = replay(&mut engine, &transcript, &options, &mut no_more).unwrap();
        lines.extend(events.iter().map(|e| serde_json::to_string(e).unwrap()));
        state = Some(engine.save().unwrap());
    }
    lines
}

/// The events through the `bai` binary, as a user would run it.
fn run_cli(case: &Path) -> Vec<String> {
    let state = std::env::temp_dir().join(format!(
        "bai-conformance-{}-{}.state.json",
        std::process::id(),
        case.file_name().unwrap().to_string_lossy()
    ));
    let _ = std::fs::remove_file(&state);
    let mut lines = Vec::new();
    for run in runs_of(case) {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_bai"));
        cmd.arg("replay").arg(case.join(&run.transcript));
        for nonce in nonces_of(&run) {
            cmd.arg("--nonce").arg(nonce);
        }
        cmd.arg("--state").arg(&state);
        if run.snapshot {
            cmd.arg("--snapshot");
        }
        let output = cmd.output().unwrap();
        assert!(
            output.status.success(),
            "{}: bai failed: {}",
            case.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        lines.extend(
            String::from_utf8(output.stdout)
                .unwrap()
                .lines()
                .map(str::to_owned),
        );
    }
    let _ = std::fs::remove_file(&state);
    lines
}

fn parse_lines(lines: &[String]) -> Vec<Value> {
    lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A readable diff of two event lists, or `None` if they are equal.
fn diff(expected: &[Value], actual: &[Value]) -> Option<String> {
    if expected == actual {
        return None;
    }
    let mut out = String::new();
    for i in 0..expected.len().max(actual.len()) {
        let e = expected.get(i);
        let a = actual.get(i);
        if e == a {
            out.push_str(&format!("  {i:>3}   {}\n", e.unwrap()));
        } else {
            if let Some(e) = e {
                out.push_str(&format!("- {i:>3}   {e}\n"));
            }
            if let Some(a) = a {
                out.push_str(&format!("+ {i:>3}   {a}\n"));
            }
        }
    }
    Some(out)
}

#[test]
fn conformance_cases() {
    let bless = std::env::var_os("BAI_BLESS").is_some_and(|v| v == "1");
    let cases = cases();
    assert!(
        cases.len() >= 45,
        "expected at least 45 cases, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let library = run_library(case);
        let expected_path = case.join("expected.jsonl");
        if bless {
            let mut text = library.join("\n");
            if !text.is_empty() {
                text.push('\n');
            }
            std::fs::write(&expected_path, text).unwrap();
            continue;
        }
        let expected_text = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        let expected_lines: Vec<String> = expected_text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect();
        let expected = parse_lines(&expected_lines);
        if let Some(d) = diff(&expected, &parse_lines(&library)) {
            failures.push(format!("case {name} (library): - expected, + actual\n{d}"));
            continue;
        }
        if let Some(d) = diff(&expected, &parse_lines(&run_cli(case))) {
            failures.push(format!(
                "case {name} (bai binary): - expected, + actual\n{d}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    println!(
        "{} conformance cases passed (library and bai binary)",
        cases.len()
    );
}
