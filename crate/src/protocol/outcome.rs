//! What happens after an action answered: the retry rules, and what the result line says about
//! it. The host runs the action and hands its reply to the engine
//! ([`crate::protocol::Engine::record_outcome`]); the engine answers retry, go on, or stop the
//! rest of the message, and keeps the outcome for the `BAI_RESULT` line. These rules live here
//! only: the glue holds no copy.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fields::{FieldError, fields, string, strings};

use super::action::{Action, OnError};
use super::result::{ActionResult, ResultStatus};

/// Failure codes that come before the action touched anything: an `on_error: retry` may try
/// again. (After `covered`, for instance, nothing was clicked; after `target_reloaded` it may have
/// been, so that code is not here.)
pub const RETRIABLE_CODES: &[&str] = &[
    "not_found",
    "not_visible",
    "covered",
    "disabled",
    "not_stable",
    "target_not_ready",
    "target_not_loaded",
    "index_out_of_range",
];

/// Whether a failure with `code` may be retried (see [`RETRIABLE_CODES`]).
pub fn is_retriable(code: &str) -> bool {
    RETRIABLE_CODES.contains(&code)
}

/// Why `action` is never retried, whatever `on_error` asks, or `None` when it may be.
pub fn never_retried(action: &Action) -> Option<&'static str> {
    match action {
        // On a custom list, `select_option` opens it first, then looks for the option: a
        // failure there comes after a click.
        Action::SelectOption { .. } => Some(
            "select_option opens a custom list before it looks for the option, so a failure comes after a click",
        ),
        _ => None,
    }
}

/// How many extra attempts an action gets.
pub fn extra_attempts(action: &Action, on_error: OnError) -> u8 {
    match on_error {
        OnError::Retry { count } if never_retried(action).is_none() => count,
        _ => 0,
    }
}

/// Why an action failed, as the DOM layer (or the background, or the user's answer) says it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionFailure {
    /// The stable error code (`not_found`).
    #[serde(default = "unknown_code")]
    pub code: String,
    /// A plain-language reason.
    #[serde(default)]
    pub message: String,
    /// The closest elements, with their refs, for a selector that matched nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<String>,
}

fn unknown_code() -> String {
    "action_failed".to_owned()
}

impl ActionFailure {
    fn new(code: &str, message: &str) -> Self {
        Self {
            code: code.to_owned(),
            message: message.to_owned(),
            hints: Vec::new(),
        }
    }
}

/// The user's answer to the question an action asked, when it was not "allow".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusedAnswer {
    /// The user said no.
    Deny,
    /// Stop (or a conversation switch) took the question back.
    Withdrawn,
    /// Nobody answered in the time the user set.
    TimedOut,
}

/// Failure codes that are a refusal (by the user, one of their rules, or a question nobody
/// answered): they end the message's actions even under `on_error: skip`, and are never retried.
pub const REFUSAL_CODES: &[&str] = &["denied_by_user", "denied_by_rule", "question_timed_out"];

/// Whether `code` is a refusal ([`REFUSAL_CODES`]).
pub fn is_refusal(code: &str) -> bool {
    REFUSAL_CODES.contains(&code)
}

/// What the host hands back after one attempt of an action.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ActionReply {
    /// What the action did (`effects`, `data`), when it ran.
    #[serde(default)]
    pub result: Option<Value>,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<ActionFailure>,
    /// The user did not allow it (the action never ran).
    #[serde(default)]
    pub answer: Option<RefusedAnswer>,
}

impl ActionReply {
    /// The reply in `text` (JSON) as its derived `Deserialize` read it: `null` or unreadable
    /// text is `None` (no answer, which counts as a failure); `result`, `error` and `answer`
    /// may each be missing or `null`, unknown fields are ignored.
    pub fn from_json(text: &str) -> Option<Self> {
        let value = crate::protocol::json::read_plain(text).ok()?;
        Self::from_value(&value).ok().flatten()
    }

    fn from_value(value: &Value) -> Result<Option<Self>, FieldError> {
        if value.is_null() {
            return Ok(None);
        }
        let f = fields(value, "reply")?;
        Ok(Some(Self {
            result: f.optional("result").cloned(),
            error: match f.optional("error") {
                None => None,
                Some(error) => {
                    let e = fields(error, "error")?;
                    Some(ActionFailure {
                        code: match e.get("code") {
                            None => unknown_code(),
                            Some(code) => string(code).ok_or("code must be a string")?,
                        },
                        message: e.with_default("message", string, "a string")?,
                        hints: e.with_default("hints", strings, "a list of strings")?,
                    })
                }
            },
            answer: f.with_optional(
                "answer",
                |v| match v.as_str()? {
                    "deny" => Some(RefusedAnswer::Deny),
                    "withdrawn" => Some(RefusedAnswer::Withdrawn),
                    "timed_out" => Some(RefusedAnswer::TimedOut),
                    _ => None,
                },
                "\"deny\", \"withdrawn\" or \"timed_out\"",
            )?,
        }))
    }

    /// The failure this reply reports, if any. No reply at all is a failure too.
    pub fn failure(reply: Option<&Self>) -> Option<ActionFailure> {
        let Some(reply) = reply else {
            return Some(ActionFailure::new(
                "action_failed",
                "The action did not answer.",
            ));
        };
        match reply.answer {
            Some(RefusedAnswer::Withdrawn) => Some(ActionFailure::new(
                "stopped",
                "You pressed Stop; BAI did not act.",
            )),
            Some(RefusedAnswer::TimedOut) => Some(ActionFailure::new(
                "question_timed_out",
                "Nobody answered BAI's question in time, so BAI did not act.",
            )),
            Some(RefusedAnswer::Deny) => Some(ActionFailure::new(
                "denied_by_user",
                "The user did not allow this action.",
            )),
            None => reply.error.clone(),
        }
    }
}

/// What the host does after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "next", rename_all = "snake_case")]
pub enum NextStep {
    /// Run the same action again: attempt number `attempt` (1, 2, ...).
    Retry {
        /// The attempt to run.
        attempt: u8,
    },
    /// The action is over; the next one may run.
    GoOn,
    /// The action is over and failed: the workflow's later actions of this message are
    /// skipped (until its result is posted, or, without result lines, until the poll ends).
    StopMessage,
}

/// The engine's answer to [`crate::protocol::Engine::record_outcome`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutcomeStep {
    /// What to do now.
    #[serde(flatten)]
    pub next: NextStep,
    /// The failure of this attempt, for the log (absent when it worked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<ActionFailure>,
}

/// Why an action is not run at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// The workflow was stopped, refused or superseded: nothing queued for it runs.
    Stopped,
    /// An earlier action of the same message failed (it was written assuming that one worked).
    EarlierFailure,
    /// The engine did not hand this action out (its workflow is gone: another conversation).
    NotHandedOut,
}

/// The engine's answer to [`crate::protocol::Engine::begin_action`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "next", rename_all = "snake_case")]
pub enum ActionStart {
    /// Run it (attempt 0).
    Run,
    /// Do not run it; it is reported as skipped.
    Skip {
        /// Why.
        why: SkipReason,
    },
    /// A `done`: nothing to run, recorded as ok.
    Finished,
}

/// An action handed out to execute and not answered yet.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InFlight {
    pub(crate) action_id: u64,
    pub(crate) action_type: &'static str,
    /// Extra attempts allowed.
    pub(crate) retries: u8,
    /// Attempts made so far (0 before the first answer).
    pub(crate) attempt: u8,
    pub(crate) observe: bool,
    /// `on_error: skip`: a failure lets the message's later actions run.
    pub(crate) skip_on_error: bool,
}

/// One recorded outcome, waiting for its result line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Recorded {
    pub(crate) result: ActionResult,
    /// What an `observe` returned (the page's `url` and `title` left out: the result's `page`
    /// says them).
    pub(crate) observation: Option<Value>,
}

/// A workflow's actions in flight and the outcomes not yet reported. Kept in memory only (not in
/// the saved state): after a reload nothing in flight survives, as before.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunBook {
    /// Handed out by [`crate::protocol::Decision::Execute`], in order, not begun yet.
    pub(crate) queued: Vec<InFlight>,
    /// The action running now.
    pub(crate) running: Option<InFlight>,
    /// Outcomes waiting for the result line (workflows with `result_lines` only).
    pub(crate) outcomes: Vec<Recorded>,
    /// An action of the current message failed: its later actions are skipped.
    pub(crate) failed: bool,
}

/// Engines compare by their protocol state, what [`crate::protocol::Engine::save`] keeps (a
/// restored engine equals the one saved); what is in flight is not part of it.
impl PartialEq for RunBook {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Most actions remembered as handed out but not begun per workflow (a host that never runs
/// them, such as `bai replay`, must not grow memory without bound).
pub(crate) const MAX_QUEUED: usize = 4096;

impl InFlight {
    pub(crate) fn new(action_id: u64, action: &Action, on_error: OnError) -> Self {
        Self {
            action_id,
            action_type: action.type_name(),
            retries: extra_attempts(action, on_error),
            attempt: 0,
            // A screenshot's listing is an observation too: the refs its marks show.
            observe: matches!(action, Action::Observe { .. } | Action::Screenshot { .. }),
            skip_on_error: on_error == OnError::Skip,
        }
    }
}

/// What the result line says about a successful action: its effects' kinds, and its data (an
/// `observe` keeps its listing apart, for the result's `observation`).
pub(crate) fn success(flight: &InFlight, result: Option<&Value>) -> Recorded {
    let effects = result
        .and_then(|r| r.get("effects"))
        .and_then(Value::as_array)
        .map(|effects| {
            effects
                .iter()
                .filter_map(|e| e.get("kind").and_then(Value::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let data = result
        .and_then(|r| r.get("data"))
        .filter(|d| !d.is_null())
        .cloned();
    let (data, observation) = match data {
        Some(Value::Object(data)) if flight.observe => {
            // The listing without `url` and `title`; a screenshot says what picture it attached
            // (size, marks, masks) as its `image`, which becomes the action's data. Rebuilt by
            // inserting the rest rather than removing keys: the same map, without the B-tree's
            // removal code in the chat module.
            let mut listing = serde_json::Map::new();
            let mut image = None;
            for (key, value) in data {
                match key.as_str() {
                    "url" | "title" => {}
                    "image" => image = Some(value),
                    _ => {
                        listing.insert(key, value);
                    }
                }
            }
            (image, Some(Value::Object(listing)))
        }
        other => (other, None),
    };
    Recorded {
        result: ActionResult {
            action_id: flight.action_id,
            action_type: Some(flight.action_type.to_owned()),
            status: ResultStatus::Ok,
            code: None,
            reason: None,
            hints: Vec::new(),
            effects,
            data,
        },
        observation,
    }
}

/// What the result line says about a failed action.
pub(crate) fn failed(action_id: u64, action_type: &str, failure: &ActionFailure) -> Recorded {
    Recorded {
        result: ActionResult {
            action_id,
            action_type: Some(action_type.to_owned()),
            status: ResultStatus::Failed,
            code: Some(failure.code.clone()),
            reason: Some(failure.message.clone()),
            hints: failure.hints.clone(),
            effects: Vec::new(),
            data: None,
        },
        observation: None,
    }
}

/// What the result line says about an action that did not run, or a `done`.
pub(crate) fn plain(action_id: u64, action_type: &str, status: ResultStatus) -> Recorded {
    Recorded {
        result: ActionResult {
            action_id,
            action_type: Some(action_type.to_owned()),
            status,
            code: None,
            reason: None,
            hints: Vec::new(),
            effects: Vec::new(),
            data: None,
        },
        observation: None,
    }
}

/// Whether a page's change list says anything (the DOM layer's `{added, removed, changed, more}`).
pub fn changes_worth_reporting(changes: &Value) -> bool {
    let listed = |key: &str| {
        changes
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|items| !items.is_empty())
    };
    let more = changes.get("more").is_some_and(|more| {
        !(more.is_null() || more == &Value::from(0) || more == &Value::Bool(false))
    });
    listed("added") || listed("removed") || listed("changed") || more
}

#[cfg(test)]
mod tests {
    #[test]
    fn replies_read_as_the_serde_derive_reads_them() {
        for text in [
            "null",
            r#"{}"#,
            r#"{"result":{"effects":["clicked"],"data":[1.5,"x"]}}"#,
            r#"{"result":null,"error":null,"answer":null}"#,
            r#"{"error":{"code":"not_found","message":"no #a","hints":["@e1"]}}"#,
            r#"{"error":{"message":"boom"}}"#,
            r#"{"error":{}}"#,
            r#"{"answer":"deny"}"#,
            r#"{"answer":"withdrawn","extra":1}"#,
            r#"{"answer":"timed_out"}"#,
            r#"{"answer":"maybe"}"#,
            r#"{"error":{"code":5}}"#,
            r#"{"error":{"code":null}}"#,
            r#"{"error":"x"}"#,
            r#"{"error":{"hints":[1]}}"#,
            r#""text""#,
            "{",
            "",
        ] {
            let by_serde: Option<ActionReply> = serde_json::from_str(text).ok().flatten();
            assert_eq!(ActionReply::from_json(text), by_serde, "{text}");
        }
    }

    use super::*;

    fn click() -> Action {
        serde_json::from_value(
            serde_json::json!({"type":"click","payload":{"selector":{"type":"css","value":"#a"}}}),
        )
        .unwrap()
    }

    fn select_option() -> Action {
        serde_json::from_value(serde_json::json!({"type":"select_option","payload":{"selector":{"type":"css","value":"#a"},"option":"x"}})).unwrap()
    }

    #[test]
    fn only_failures_before_touching_anything_are_retriable() {
        for code in RETRIABLE_CODES {
            assert!(is_retriable(code), "{code}");
        }
        // After these the action may have done something: never again.
        for code in [
            "target_reloaded",
            "denied_by_user",
            "stopped",
            "action_failed",
            "already_run",
            "navigation_out_of_scope",
        ] {
            assert!(!is_retriable(code), "{code}");
        }
    }

    #[test]
    fn select_option_is_never_retried_and_says_why() {
        assert!(never_retried(&select_option()).is_some());
        assert_eq!(
            extra_attempts(&select_option(), OnError::Retry { count: 3 }),
            0
        );
        assert_eq!(never_retried(&click()), None);
        assert_eq!(extra_attempts(&click(), OnError::Retry { count: 3 }), 3);
        assert_eq!(extra_attempts(&click(), OnError::Skip), 0);
        assert_eq!(extra_attempts(&click(), OnError::Stop), 0);
    }

    #[test]
    fn answers_other_than_allow_are_typed_failures() {
        let deny: ActionReply = serde_json::from_str(r#"{"answer":"deny"}"#).unwrap();
        assert_eq!(
            ActionReply::failure(Some(&deny)).unwrap().code,
            "denied_by_user"
        );
        let withdrawn: ActionReply = serde_json::from_str(r#"{"answer":"withdrawn"}"#).unwrap();
        assert_eq!(
            ActionReply::failure(Some(&withdrawn)).unwrap().code,
            "stopped"
        );
        assert_eq!(ActionReply::failure(None).unwrap().code, "action_failed");
        let coded: ActionReply = serde_json::from_str(r#"{"error":{"message":"boom"}}"#).unwrap();
        assert_eq!(
            ActionReply::failure(Some(&coded)).unwrap().code,
            "action_failed"
        );
        let ok: ActionReply = serde_json::from_str(r#"{"result":{"effects":[]}}"#).unwrap();
        assert_eq!(ActionReply::failure(Some(&ok)), None);
    }

    #[test]
    fn a_screenshot_keeps_its_listing_as_the_observation_and_its_picture_as_data() {
        let flight = InFlight::new(
            3,
            &Action::Screenshot { max_elements: None },
            OnError::default(),
        );
        assert!(flight.observe);
        let result = serde_json::json!({"effects":[{"kind":"observed"}],"data":{"url":"u","title":"t",
            "elements":["@e1 button \"Help\""],"total":1,"more":0,
            "image":{"type":"image/png","width":800,"height":600,"marks":[1],"masked":2}}});
        let recorded = success(&flight, Some(&result));
        assert_eq!(
            recorded.observation,
            Some(serde_json::json!({"elements":["@e1 button \"Help\""],"total":1,"more":0}))
        );
        assert_eq!(
            recorded.result.data,
            Some(
                serde_json::json!({"type":"image/png","width":800,"height":600,"marks":[1],"masked":2})
            )
        );
        assert_eq!(recorded.result.action_type.as_deref(), Some("screenshot"));
    }

    #[test]
    fn an_observation_is_kept_apart_without_its_address() {
        let flight = InFlight {
            action_id: 2,
            action_type: "observe",
            retries: 0,
            attempt: 0,
            observe: true,
            skip_on_error: false,
        };
        let result = serde_json::json!({"effects":[{"kind":"x"}],"data":{"url":"u","title":"t","elements":["@e1"]}});
        let recorded = success(&flight, Some(&result));
        assert_eq!(recorded.result.data, None);
        assert_eq!(recorded.result.effects, vec!["x".to_owned()]);
        assert_eq!(
            recorded.observation,
            Some(serde_json::json!({"elements":["@e1"]}))
        );
    }
}
