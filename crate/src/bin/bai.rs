//! The `bai` command-line tool: replays transcripts through the protocol engine.
//!
//! ```text
//! bai replay TRANSCRIPT.json [--nonce N]... [--state FILE] [--snapshot]   JSON Lines of decisions
//!                                                                         (and issued results)
//! bai check  TRANSCRIPT.json [--nonce N]... [--state FILE] [--snapshot]   the same, in words
//! bai prompt                                                             the text to paste into ChatGPT
//! bai version
//! ```
//!
//! The CLI is the only place that draws random numbers (nonces, the prompt's UUID), from the OS.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a CLI prints its answers and errors"
)]

use std::io::{Read, Write};
use std::process::ExitCode;

use bai::protocol::replay::{Event, ReplayOptions, Transcript, replay};
use bai::protocol::{Engine, prompt_text};

const USAGE: &str = "usage:
  bai replay TRANSCRIPT.json [--nonce N]... [--state FILE] [--snapshot]
  bai check  TRANSCRIPT.json [--nonce N]... [--state FILE] [--snapshot]
  bai prompt
  bai version

replay  prints one JSON object per decision (ack, execute, reject, state, result_due), in order,
        and a result event for each result step of the transcript (see protocol::replay).
check   prints the same decisions in words, then each workflow's final state.
  --nonce N     nonce for the next ACK (n_ + 16..64 lowercase hex); random when none is left
  --state FILE  load the engine state from FILE if it exists, save it there at the end
  --snapshot    observe the whole transcript at once (an old conversation opened),
                instead of message by message (live use)
prompt  prints the protocol text to paste into ChatGPT, with a fresh workflow UUID";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bai: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let Some((command, rest)) = args.split_first() else {
        return Err(USAGE.to_owned());
    };
    match command.as_str() {
        "version" | "--version" => {
            println!("bai {}", bai::VERSION);
            Ok(())
        }
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(())
        }
        "prompt" => {
            let uuid = uuid_v4()?;
            print!("{}", prompt_text(&uuid));
            Ok(())
        }
        "replay" => replay_command(rest, false),
        "check" => replay_command(rest, true),
        other => Err(format!("unknown command {other:?}\n{USAGE}")),
    }
}

struct ReplayArgs {
    transcript: String,
    options: ReplayOptions,
    state: Option<String>,
}

fn parse_replay_args(args: &[String]) -> Result<ReplayArgs, String> {
    let mut transcript = None;
    let mut options = ReplayOptions::default();
    let mut state = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--nonce" => {
                let nonce = iter.next().ok_or("--nonce needs a value")?;
                options.nonces.push(nonce.clone());
            }
            "--state" => state = Some(iter.next().ok_or("--state needs a file")?.clone()),
            "--snapshot" => options.snapshot = true,
            flag if flag.starts_with("--") => {
                return Err(format!("unknown option {flag}\n{USAGE}"));
            }
            path if transcript.is_none() => transcript = Some(path.to_owned()),
            extra => return Err(format!("unexpected argument {extra:?}\n{USAGE}")),
        }
    }
    let transcript = transcript.ok_or_else(|| format!("missing TRANSCRIPT.json\n{USAGE}"))?;
    Ok(ReplayArgs {
        transcript,
        options,
        state,
    })
}

fn replay_command(args: &[String], human: bool) -> Result<(), String> {
    let args = parse_replay_args(args)?;
    let text = std::fs::read_to_string(&args.transcript)
        .map_err(|e| format!("cannot read {}: {e}", args.transcript))?;
    let transcript: Transcript = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{} is not a transcript ({{\"messages\": [...]}}): {e}",
            args.transcript
        )
    })?;
    let mut engine = match &args.state {
        Some(path) if std::path::Path::new(path).exists() => {
            let saved =
                std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
            Engine::restore(&saved)
                .map_err(|e| format!("{path} is not a saved engine state: {e}"))?
        }
        _ => Engine::new(),
    };
    let mut rng_error = None;
    let mut fresh_nonce = || match random_bytes::<16>() {
        Ok(bytes) => format!("n_{}", hex(&bytes)),
        Err(e) => {
            rng_error = Some(e);
            // Never used: the error below aborts before anything is saved.
            "n_00000000000000000000000000000000".to_owned()
        }
    };
    let events = replay(&mut engine, &transcript, &args.options, &mut fresh_nonce)
        .map_err(|e| e.to_string())?;
    if let Some(e) = rng_error {
        return Err(e);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let written: std::io::Result<()> = (|| {
        for event in &events {
            if human {
                writeln!(out, "{}", event.describe())?;
            } else {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string(event).map_err(std::io::Error::other)?
                )?;
            }
        }
        if human {
            summarize(&mut out, &engine, &events)?;
        }
        out.flush()
    })();
    written.map_err(|e| format!("cannot write output: {e}"))?;
    if let Some(path) = &args.state {
        let saved = engine
            .save()
            .map_err(|e| format!("cannot save state: {e}"))?;
        std::fs::write(path, saved).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    Ok(())
}

fn summarize(out: &mut impl Write, engine: &Engine, events: &[Event]) -> std::io::Result<()> {
    let executed = events
        .iter()
        .filter(|e| matches!(e, Event::Execute { .. }))
        .count();
    let rejected = events
        .iter()
        .filter(|e| matches!(e, Event::Reject { .. }))
        .count();
    writeln!(out, "---")?;
    writeln!(
        out,
        "{executed} action(s) executed, {rejected} record(s) rejected"
    )?;
    let workflows = engine.workflows();
    if workflows.is_empty() {
        writeln!(out, "no workflow was started")?;
    }
    for w in workflows {
        let success = match w.success {
            Some(true) => " (success)",
            Some(false) => " (not successful)",
            None => "",
        };
        writeln!(
            out,
            "workflow {} ({}): {}{success}, {} action(s) executed",
            w.workflow_id, w.protocol, w.state, w.executed_actions
        )?;
    }
    Ok(())
}

/// `N` bytes from the operating system's CSPRNG.
fn random_bytes<const N: usize>() -> Result<[u8; N], String> {
    let mut bytes = [0u8; N];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| format!("cannot read random bytes from /dev/urandom: {e}"))?;
    Ok(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A random (version 4, RFC 9562) UUID.
fn uuid_v4() -> Result<String, String> {
    let mut b = random_bytes::<16>()?;
    if let Some(v) = b.get_mut(6) {
        *v = (*v & 0x0f) | 0x40;
    }
    if let Some(v) = b.get_mut(8) {
        *v = (*v & 0x3f) | 0x80;
    }
    let h = hex(&b);
    let part = |r: std::ops::Range<usize>| h.get(r).unwrap_or_default().to_owned();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        part(0..8),
        part(8..12),
        part(12..16),
        part(16..20),
        part(20..32)
    ))
}
