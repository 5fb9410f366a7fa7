//! Results over several lines (`chunked_results`): what a result line could not hold waits in the
//! engine's state as a [`Continuation`], and the model fetches the next part with a `more` action
//! naming its token.
//!
//! Why the rest is kept and not read again from the page: the parts must reassemble into exactly
//! what the first line began (a page that changed between two `more`s would otherwise splice two
//! different texts), and the page may have gone. What is kept is what the result line would have
//! carried: the DOM layer already redacted it (secret fields read `[redacted …]`, observe shows
//! `value=<hidden>`), so the state holds nothing the chat would not. It lives in the engine state
//! the host saves per conversation, so it is deleted with that state (the retention setting,
//! "clear"); a finished workflow's continuation is dropped at once and never saved.
//!
//! Bound: one continuation per workflow, at most [`CONTINUATION_MAX_CHARS`] characters of values;
//! a newer result with more to continue replaces the older one (its token becomes stale).

use serde::{Deserialize, Serialize};

use super::fingerprint::Fingerprint;
use super::refusal::ContinuationProblem;

/// Most characters (of values) one continuation keeps; the rest is dropped and the line says
/// `"truncated":true`.
pub const CONTINUATION_MAX_CHARS: usize = 250_000;
/// Tokens remembered per workflow after they were used or replaced, to tell `continuation_used`
/// and `continuation_stale` from `unknown_continuation`.
pub(crate) const MAX_SPENT_TOKENS: usize = 64;

/// Where a segment's values belong in the result that began them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentField {
    /// An action's `data` (what `extract` read: an array of strings).
    Data,
    /// The result's `observation.elements`.
    Observation,
}

/// A run of values of one field of one result, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    /// The result line the field began in.
    pub result_id: u64,
    /// The action whose `data` it continues (absent for the observation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_id: Option<u64>,
    /// Which field.
    pub field: SegmentField,
    /// The values, in order.
    pub values: Vec<String>,
    /// The first value continues the last value already given for this field (a string that
    /// was split at a character boundary): join them without a separator.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub joins: bool,
}

impl Segment {
    pub(crate) fn chars(&self) -> usize {
        self.values.iter().map(|v| v.chars().count()).sum()
    }
}

/// The rest of a result, waiting for `more`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Continuation {
    /// The token the model must name.
    pub(crate) token: String,
    /// What is left, in order.
    pub(crate) segments: Vec<Segment>,
    /// The `more` action that named the token and waits for its result line.
    pub(crate) claimed_by: Option<u64>,
}

/// A token that no longer gives anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpentToken {
    pub(crate) token: String,
    /// True: a newer continuation replaced it unused; false: it was used.
    pub(crate) replaced: bool,
}

/// The token for the continuation issued by result `result_id` of a workflow: bound to the
/// workflow's id and ACK nonce (random, never shown to other workflows), so another workflow's
/// token never matches, and unique per result line.
pub(crate) fn token_for(workflow_id: &str, ack_nonce: &str, result_id: u64) -> String {
    let fingerprint = Fingerprint::of(ack_nonce.as_bytes())
        .with(Fingerprint::of(workflow_id.as_bytes()))
        .with(Fingerprint(result_id));
    format!("m_{:016x}", fingerprint.0)
}

/// Whether `token` names the continuation a `more` may claim now.
pub(crate) fn check_token(
    continuation: Option<&Continuation>,
    spent: &[SpentToken],
    token: &str,
) -> Result<(), ContinuationProblem> {
    if let Some(current) = continuation.filter(|c| c.token == token) {
        return match current.claimed_by {
            None => Ok(()),
            Some(_) => Err(ContinuationProblem::Used),
        };
    }
    match spent.iter().rev().find(|s| s.token == token) {
        Some(SpentToken { replaced: true, .. }) => Err(ContinuationProblem::Stale),
        Some(_) => Err(ContinuationProblem::Used),
        None => Err(ContinuationProblem::Unknown),
    }
}

/// Remember a spent token (bounded: the oldest is forgotten first).
pub(crate) fn remember_spent(spent: &mut Vec<SpentToken>, token: String, replaced: bool) {
    if spent.len() >= MAX_SPENT_TOKENS {
        spent.remove(0);
    }
    spent.push(SpentToken { token, replaced });
}

/// Concatenate parts back into the fields they came from, as a model would: `first` is the
/// value list the first line carried for one field, then every segment of that field in order.
/// Public so tests (and hosts) reassemble exactly as documented.
pub fn reassemble(first: &[String], segments: &[Segment]) -> Vec<String> {
    let mut out = first.to_vec();
    for segment in segments {
        let mut values = segment.values.iter();
        if segment.joins {
            if let Some(head) = values.next() {
                match out.last_mut() {
                    Some(last) => last.push_str(head),
                    None => out.push(head.clone()),
                }
            }
        }
        out.extend(values.cloned());
    }
    out
}
