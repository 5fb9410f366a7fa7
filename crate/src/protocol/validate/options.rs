//! The optional per-action fields written beside `type` and `payload` (`timeout_ms`,
//! `on_error`, `retries`, `reason`), as [`ActionOptions`].

use serde_json::{Map, Value};

use super::capabilities::{EXTENDED_RECORD_FIELDS, field_not_negotiated};
use crate::protocol::action::{ACTION_TIMEOUT_MAX_MS, Action, ActionOptions, OnError, RETRY_MAX};
use crate::protocol::negotiation::Capability;
use crate::protocol::record::{is_format_char, json_type};
use crate::protocol::refusal::{OptionsProblem, Refusal};

/// Longest per-action `reason`, in characters.
pub const REASON_MAX_CHARS: usize = 300;
/// Extra attempts of `on_error: retry` when `retries` is absent.
pub const RETRY_DEFAULT: u8 = 2;
/// The per-action field `tabs` brings: which of the workflow's tabs the action acts on.
pub const TAB_FIELD: &str = "tab";

/// Whether `name` is a tab name as the extension gives them: `t` and a number from 1 to 999,
/// without leading zeros. The browser's own tab ids never appear on the wire.
pub fn is_tab_name(name: &str) -> bool {
    name.strip_prefix('t').is_some_and(|digits| {
        (1..=3).contains(&digits.len())
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !digits.starts_with('0')
    })
}

/// The record's `tab` field (capability `tabs`): a tab name on an action that acts on a page.
/// Whether the workflow owns that tab is the extension's to say when the action runs (it holds
/// the table of the workflow's tabs).
pub fn tab_from_wire(
    record: &Map<String, Value>,
    capabilities: Option<&[Capability]>,
    action: &Action,
) -> Result<Option<String>, Refusal> {
    let Some(value) = record.get(TAB_FIELD) else {
        return Ok(None);
    };
    if !capabilities.unwrap_or_default().contains(&Capability::Tabs) {
        return Err(field_not_negotiated(
            TAB_FIELD,
            Capability::Tabs,
            capabilities.is_some(),
        ));
    }
    let name = match value {
        Value::String(name) if is_tab_name(name) => name.clone(),
        _ => return Err(Refusal::InvalidOptions(OptionsProblem::TabNotName)),
    };
    match action {
        Action::Done { .. }
        | Action::More { .. }
        | Action::Wait { .. }
        | Action::OpenTab { .. }
        | Action::Tabs {} => Err(Refusal::InvalidOptions(OptionsProblem::TabNotForAction {
            type_name: action.type_name(),
        })),
        _ => Ok(Some(name)),
    }
}

/// The per-action fields beside `type` and `payload` ([`EXTENDED_RECORD_FIELDS`]). Without
/// `extended_actions` any of them, whatever its value, is refused with
/// `capability_not_negotiated` (`capabilities` as in [`action_from_wire`]).
pub fn options_from_wire(
    record: &Map<String, Value>,
    capabilities: Option<&[Capability]>,
) -> Result<ActionOptions, Refusal> {
    let mut options = ActionOptions::default();
    let negotiable = capabilities.is_some();
    if !capabilities
        .unwrap_or_default()
        .contains(&Capability::ExtendedActions)
    {
        return match EXTENDED_RECORD_FIELDS
            .iter()
            .find(|field| record.contains_key(**field))
        {
            Some(field) => Err(field_not_negotiated(
                field,
                Capability::ExtendedActions,
                negotiable,
            )),
            None => Ok(options),
        };
    }
    match record.get("timeout_ms") {
        None | Some(Value::Null) => {}
        Some(value) => {
            options.timeout_ms = Some(
                value
                    .as_u64()
                    .filter(|ms| (1..=u64::from(ACTION_TIMEOUT_MAX_MS)).contains(ms))
                    .and_then(|ms| u32::try_from(ms).ok())
                    .ok_or(Refusal::InvalidOptions(OptionsProblem::TimeoutOutOfRange {
                        max_ms: ACTION_TIMEOUT_MAX_MS,
                    }))?,
            );
        }
    }
    let retries = match record.get("retries") {
        None | Some(Value::Null) => None,
        Some(value) => Some(
            value
                .as_u64()
                .filter(|n| (1..=u64::from(RETRY_MAX)).contains(n))
                .and_then(|n| u8::try_from(n).ok())
                .ok_or(Refusal::InvalidOptions(OptionsProblem::RetriesOutOfRange {
                    max: RETRY_MAX,
                }))?,
        ),
    };
    options.on_error = match record.get("on_error") {
        None | Some(Value::Null) => OnError::Stop,
        Some(Value::String(mode)) => match mode.as_str() {
            "stop" => OnError::Stop,
            "skip" => OnError::Skip,
            "retry" => OnError::Retry {
                count: retries.unwrap_or(RETRY_DEFAULT),
            },
            other => {
                return Err(Refusal::InvalidOptions(OptionsProblem::UnknownOnError {
                    written: other.to_owned(),
                }));
            }
        },
        Some(other) => {
            return Err(Refusal::InvalidOptions(OptionsProblem::OnErrorNotString {
                json_type: json_type(other),
            }));
        }
    };
    if retries.is_some() && !matches!(options.on_error, OnError::Retry { .. }) {
        return Err(Refusal::InvalidOptions(OptionsProblem::RetriesWithoutRetry));
    }
    match record.get("reason") {
        None | Some(Value::Null) => {}
        Some(Value::String(reason)) => {
            let chars = reason.chars().count();
            if chars > REASON_MAX_CHARS {
                return Err(Refusal::InvalidOptions(OptionsProblem::ReasonTooLong {
                    chars,
                    max: REASON_MAX_CHARS,
                }));
            }
            if reason.chars().any(char::is_control) {
                return Err(Refusal::InvalidOptions(OptionsProblem::ReasonControl));
            }
            // The reason is shown to the user as the model's words: invisible formatting
            // characters (direction overrides, zero-width) are taken out, not refused, so a
            // reason with a joiner in an emoji still runs, and what is shown reads as stored.
            // The action's identity (its fingerprint) is still the record as written.
            options.reason = Some(reason.chars().filter(|c| !is_format_char(*c)).collect());
        }
        Some(other) => {
            return Err(Refusal::InvalidOptions(OptionsProblem::ReasonNotString {
                json_type: json_type(other),
            }));
        }
    }
    Ok(options)
}
