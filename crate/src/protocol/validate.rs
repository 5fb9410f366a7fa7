//! Payload schemas: an action record's `type` and `payload` become a validated [`Action`], and
//! its optional per-action fields become [`ActionOptions`].
//!
//! What a record may use depends on the capabilities its workflow negotiated: plain BAI/0.3 (and
//! BAI/0.2) accept exactly the [`WIRE_ACTION_TYPES`] and [`WIRE_SELECTOR_KINDS`]; `extended_actions`
//! adds [`EXTENDED_ACTION_TYPES`], [`EXTENDED_SELECTOR_KINDS`] and the per-action fields;
//! `observe` adds the `observe` type and `ref` selectors. A type, kind or field this engine knows
//! but the workflow did not negotiate is refused with `capability_not_negotiated`, naming what to
//! add: a reader of the line would expect it to count, so it is neither honoured nor dropped.
//!
//! Adding an action type is one [`Action`] variant, one entry in the type lists and one arm in
//! [`action_from_wire`].

use serde_json::{Map, Value};

use super::action::{
    ACTION_TIMEOUT_MAX_MS, Action, ActionOptions, ElementState, Expectation, Key,
    OBSERVE_MAX_ELEMENTS, OnError, RETRY_MAX, WaitCondition,
};
use super::error::excerpt;
use super::negotiation::Capability;
use super::record::json_type;
use super::refusal::Refusal;
use super::selector::{Selector, SelectorKind};

/// Longest `wait`, in milliseconds.
pub const WAIT_MAX_MS: u64 = 60_000;
/// Longest `navigate` URL, in characters.
pub const NAVIGATE_URL_MAX_CHARS: usize = 2048;
/// Longest per-action `reason`, in characters.
pub const REASON_MAX_CHARS: usize = 300;
/// Extra attempts of `on_error: retry` when `retries` is absent.
pub const RETRY_DEFAULT: u8 = 2;
/// Longest `extract` attribute name, in characters.
pub const ATTRIBUTE_NAME_MAX_CHARS: usize = 100;

/// The selector kinds every workflow accepts in an object selector.
pub const WIRE_SELECTOR_KINDS: &[SelectorKind] = &[
    SelectorKind::Css,
    SelectorKind::Xpath,
    SelectorKind::Aria,
    SelectorKind::Text,
];

/// The selector kinds `extended_actions` adds.
pub const EXTENDED_SELECTOR_KINDS: &[SelectorKind] = &[
    SelectorKind::Role,
    SelectorKind::Label,
    SelectorKind::Placeholder,
    SelectorKind::TestId,
];

/// The action types every workflow accepts.
pub const WIRE_ACTION_TYPES: &[&str] = &["click", "input_text", "wait", "scroll", "done"];

/// The action types `extended_actions` adds.
pub const EXTENDED_ACTION_TYPES: &[&str] = &[
    "select_option",
    "check",
    "uncheck",
    "press_key",
    "hover",
    "navigate",
    "wait_for",
    "extract",
    "assert",
];

/// The action types `observe` adds.
pub const OBSERVE_ACTION_TYPES: &[&str] = &["observe"];

/// Which capability an action type needs: `Some(None)` for a base type, `None` for an unknown one.
fn type_capability(type_name: &str) -> Option<Option<Capability>> {
    if WIRE_ACTION_TYPES.contains(&type_name) {
        Some(None)
    } else if EXTENDED_ACTION_TYPES.contains(&type_name) {
        Some(Some(Capability::ExtendedActions))
    } else if OBSERVE_ACTION_TYPES.contains(&type_name) {
        Some(Some(Capability::Observe))
    } else {
        None
    }
}

/// Which capability a selector kind needs (`None`: every workflow has it).
fn kind_capability(kind: SelectorKind) -> Option<Capability> {
    if kind == SelectorKind::Ref {
        Some(Capability::Observe)
    } else if EXTENDED_SELECTOR_KINDS.contains(&kind) {
        Some(Capability::ExtendedActions)
    } else {
        None
    }
}

/// The action types a workflow with `capabilities` may use, for messages.
pub fn allowed_action_types(capabilities: &[Capability]) -> Vec<&'static str> {
    let mut types = WIRE_ACTION_TYPES.to_vec();
    if capabilities.contains(&Capability::Observe) {
        types.extend_from_slice(OBSERVE_ACTION_TYPES);
    }
    if capabilities.contains(&Capability::ExtendedActions) {
        types.extend_from_slice(EXTENDED_ACTION_TYPES);
    }
    types
}

/// The selector kinds a workflow with `capabilities` may use, for messages.
pub fn allowed_selector_kinds(capabilities: &[Capability]) -> Vec<&'static str> {
    let all = [
        WIRE_SELECTOR_KINDS,
        EXTENDED_SELECTOR_KINDS,
        &[SelectorKind::Ref],
    ];
    all.iter()
        .flat_map(|kinds| kinds.iter().copied())
        .filter(|k| kind_capability(*k).is_none_or(|c| capabilities.contains(&c)))
        .map(SelectorKind::as_str)
        .collect()
}

fn not_negotiated(what: &str, capability: Capability) -> Refusal {
    Refusal::NotNegotiated {
        what: what.to_owned(),
        capability,
    }
}

/// The per-action fields `extended_actions` brings, written beside `type` and `payload`.
pub const EXTENDED_RECORD_FIELDS: &[&str] = &["timeout_ms", "on_error", "retries", "reason"];

/// The object-selector fields `extended_actions` brings.
pub const EXTENDED_SELECTOR_FIELDS: &[&str] = &["exact", "index", "name"];

/// A field this engine knows, of a capability the workflow did not negotiate: refused, never
/// silently honoured nor silently dropped (a reader of the line would expect it to count).
/// `negotiable` is false for BAI/0.2, which cannot list capabilities at all.
fn field_not_negotiated(field: &str, capability: Capability, negotiable: bool) -> Refusal {
    if negotiable {
        return not_negotiated(&format!("the field {field:?}"), capability);
    }
    Refusal::FieldNeedsV03 {
        field: field.to_owned(),
        capability,
    }
}

fn unknown_type(type_name: &str, capabilities: &[Capability]) -> Refusal {
    Refusal::UnknownActionType {
        type_name: type_name.to_owned(),
        allowed: allowed_action_types(capabilities),
    }
}

fn invalid(type_name: &str, what: impl std::fmt::Display) -> Refusal {
    Refusal::InvalidPayload {
        type_name: type_name.to_owned(),
        problem: what.to_string(),
    }
}

/// Build the action from the record's `type` string and `payload` value, for a workflow that
/// negotiated `capabilities`; `None` for a BAI/0.2 workflow, which cannot negotiate any, so that
/// an extension's type or selector kind is simply unknown there (as it always was).
pub fn action_from_wire(
    type_name: &str,
    payload: &Value,
    capabilities: Option<&[Capability]>,
) -> Result<Action, Refusal> {
    let negotiable = capabilities.is_some();
    let capabilities = capabilities.unwrap_or_default();
    match type_capability(type_name) {
        Some(Some(capability)) if !negotiable && !capabilities.contains(&capability) => {
            return Err(unknown_type(type_name, capabilities));
        }
        None => return Err(unknown_type(type_name, capabilities)),
        Some(Some(capability)) if !capabilities.contains(&capability) => {
            return Err(not_negotiated(
                &format!("action type {type_name:?}"),
                capability,
            ));
        }
        Some(_) => {}
    }
    let Some(fields) = payload.as_object() else {
        return Err(invalid(
            type_name,
            format_args!("\"payload\" must be an object, not {}", json_type(payload)),
        ));
    };
    let wire = Wire {
        type_name,
        fields,
        capabilities,
        negotiable,
    };
    match type_name {
        "click" => Ok(Action::Click {
            selector: wire.selector()?,
        }),
        "input_text" => Ok(Action::InputText {
            selector: wire.selector()?,
            text: required_string(type_name, fields, "text")?,
        }),
        "wait" => {
            let ms = match fields.get("ms") {
                Some(Value::Number(n)) => n.as_u64().filter(|ms| *ms <= WAIT_MAX_MS),
                _ => None,
            };
            let Some(ms) = ms.and_then(|ms| u32::try_from(ms).ok()) else {
                return Err(invalid(
                    type_name,
                    format_args!("\"ms\" must be a whole number from 0 to {WAIT_MAX_MS}"),
                ));
            };
            Ok(Action::Wait { ms })
        }
        "scroll" => {
            let y = number_field(type_name, fields, "y")?
                .ok_or_else(|| invalid(type_name, "\"y\" (pixels from the top) is required"))?;
            let x = number_field(type_name, fields, "x")?;
            Ok(Action::Scroll { x, y })
        }
        "done" => {
            let success = match fields.get("success") {
                Some(Value::Bool(b)) => *b,
                _ => return Err(invalid(type_name, "\"success\" must be true or false")),
            };
            let summary = optional_string(type_name, fields, "summary")?;
            Ok(Action::Done { success, summary })
        }
        "observe" => {
            let max_elements = match fields.get("max_elements") {
                None | Some(Value::Null) => None,
                Some(value) => Some(
                    value
                        .as_u64()
                        .filter(|n| (1..=u64::from(OBSERVE_MAX_ELEMENTS)).contains(n))
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or_else(|| {
                            invalid(
                                type_name,
                                format_args!(
                                    "\"max_elements\" must be a whole number from 1 to {OBSERVE_MAX_ELEMENTS}"
                                ),
                            )
                        })?,
                ),
            };
            Ok(Action::Observe { max_elements })
        }
        "select_option" => Ok(Action::SelectOption {
            selector: wire.selector()?,
            option: required_string(type_name, fields, "option")?,
        }),
        "check" => Ok(Action::Check {
            selector: wire.selector()?,
        }),
        "uncheck" => Ok(Action::Uncheck {
            selector: wire.selector()?,
        }),
        "hover" => Ok(Action::Hover {
            selector: wire.selector()?,
        }),
        "press_key" => {
            let name = required_string(type_name, fields, "key")?;
            let Some(key) = Key::parse(&name) else {
                let names: Vec<&str> = Key::ALL.iter().map(|k| k.as_str()).collect();
                return Err(invalid(
                    type_name,
                    format_args!(
                        "key {:?} is not known; use one of {} (exact spelling)",
                        excerpt(&name),
                        names.join(", ")
                    ),
                ));
            };
            let selector = match fields.get("selector") {
                None | Some(Value::Null) => None,
                Some(_) => Some(wire.selector()?),
            };
            Ok(Action::PressKey { key, selector })
        }
        "navigate" => {
            let url = required_string(type_name, fields, "url")?;
            check_navigate_url(&url).map_err(|what| invalid(type_name, what))?;
            Ok(Action::Navigate { url })
        }
        "wait_for" => Ok(Action::WaitFor {
            until: wire.wait_condition()?,
        }),
        "extract" => {
            let selector = wire.selector()?;
            let attribute = optional_string(type_name, fields, "attribute")?;
            if let Some(name) = &attribute {
                if !is_attribute_name(name) {
                    return Err(invalid(
                        type_name,
                        format_args!(
                            "\"attribute\" {:?} is not an attribute name (letters, digits, -, _, :, . and at most {ATTRIBUTE_NAME_MAX_CHARS} characters, e.g. \"href\"); leave it out to read the text",
                            excerpt(name)
                        ),
                    ));
                }
            }
            Ok(Action::Extract {
                selector,
                attribute,
            })
        }
        "assert" => {
            let selector = wire.selector()?;
            let expect = wire.expectation()?;
            Ok(Action::Assert { selector, expect })
        }
        // `type_capability` knows every name matched above; an unmatched one is a bug in the
        // lists, refused rather than ignored.
        other => Err(Refusal::UnlistedActionType {
            type_name: other.to_owned(),
        }),
    }
}

/// One payload being read: its type (for messages), fields and the workflow's capabilities.
struct Wire<'a> {
    type_name: &'a str,
    fields: &'a Map<String, Value>,
    capabilities: &'a [Capability],
    /// False for BAI/0.2 (see [`action_from_wire`]).
    negotiable: bool,
}

impl Wire<'_> {
    fn selector(&self) -> Result<Selector, Refusal> {
        let value = self
            .fields
            .get("selector")
            .ok_or_else(|| invalid(self.type_name, "\"selector\" is required"))?;
        let capabilities = self.negotiable.then_some(self.capabilities);
        selector_from_wire(value, capabilities).map_err(|refusal| Refusal::InPayload {
            type_name: self.type_name.to_owned(),
            refusal: Box::new(refusal),
        })
    }

    fn wait_condition(&self) -> Result<WaitCondition, Refusal> {
        let present = |key: &str| !matches!(self.fields.get(key), None | Some(Value::Null));
        let given: Vec<&str> = ["selector", "text", "url_contains"]
            .into_iter()
            .filter(|k| present(k))
            .collect();
        if given.len() != 1 {
            return Err(invalid(
                self.type_name,
                format_args!(
                    "give exactly one of \"selector\" (with an optional \"state\"), \"text\" or \"url_contains\"; got {}",
                    if given.is_empty() {
                        "none".to_owned()
                    } else {
                        given.join(" and ")
                    }
                ),
            ));
        }
        if present("state") && !present("selector") {
            return Err(invalid(
                self.type_name,
                "\"state\" goes with \"selector\" only",
            ));
        }
        if present("selector") {
            let state = match self.fields.get("state") {
                None | Some(Value::Null) => ElementState::Visible,
                Some(value) => value.as_str().and_then(element_state).ok_or_else(|| {
                    invalid(
                        self.type_name,
                        "\"state\" must be one of visible, hidden, enabled, attached, detached",
                    )
                })?,
            };
            return Ok(WaitCondition::Element {
                selector: self.selector()?,
                state,
            });
        }
        if present("text") {
            return Ok(WaitCondition::Text {
                text: non_empty_string(self.type_name, self.fields, "text")?,
            });
        }
        Ok(WaitCondition::Url {
            contains: non_empty_string(self.type_name, self.fields, "url_contains")?,
        })
    }

    fn expectation(&self) -> Result<Expectation, Refusal> {
        let name = required_string(self.type_name, self.fields, "expect")?;
        let needs_value = matches!(
            name.as_str(),
            "text_equals" | "text_contains" | "value_equals"
        );
        let has_value = !matches!(self.fields.get("value"), None | Some(Value::Null));
        if has_value && !needs_value {
            return Err(invalid(
                self.type_name,
                format_args!(
                    "\"value\" goes only with text_equals, text_contains or value_equals; remove it for {:?}",
                    excerpt(&name)
                ),
            ));
        }
        let value = || required_string(self.type_name, self.fields, "value");
        Ok(match name.as_str() {
            "exists" => Expectation::Exists,
            "absent" => Expectation::Absent,
            "checked" => Expectation::Checked,
            "unchecked" => Expectation::Unchecked,
            "text_equals" => Expectation::TextEquals { value: value()? },
            "text_contains" => Expectation::TextContains { value: value()? },
            "value_equals" => Expectation::ValueEquals { value: value()? },
            other => {
                return Err(invalid(
                    self.type_name,
                    format_args!(
                        "\"expect\" {:?} is not known; use exists, absent, text_equals, text_contains, value_equals, checked or unchecked",
                        excerpt(other)
                    ),
                ));
            }
        })
    }
}

fn element_state(name: &str) -> Option<ElementState> {
    Some(match name {
        "visible" => ElementState::Visible,
        "hidden" => ElementState::Hidden,
        "enabled" => ElementState::Enabled,
        "attached" => ElementState::Attached,
        "detached" => ElementState::Detached,
        _ => return None,
    })
}

/// An HTML/XML attribute name: `[a-zA-Z_:][-a-zA-Z0-9_:.]*`, at most
/// [`ATTRIBUTE_NAME_MAX_CHARS`] characters. Whether reading it is allowed (a password's value)
/// is the DOM layer's call.
fn is_attribute_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    let first_ok = bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b':');
    first_ok
        && name.len() <= ATTRIBUTE_NAME_MAX_CHARS
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'))
}

/// A `navigate` destination: an absolute `http(s)` URL without user info, or a path starting
/// with exactly one `/`. No spaces, control characters or backslashes anywhere: browsers read
/// `\` as `/`, so `/\evil.example` would be a protocol-relative URL to another site. Whether the
/// destination is inside the workflow's scope (the target's origin) is the extension's check.
fn check_navigate_url(url: &str) -> Result<(), String> {
    let chars = url.chars().count();
    if chars == 0 || chars > NAVIGATE_URL_MAX_CHARS {
        return Err(format!(
            "\"url\" has {chars} characters; use 1 to {NAVIGATE_URL_MAX_CHARS}"
        ));
    }
    if url
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || c == '\\')
    {
        return Err(
            "\"url\" must not contain spaces, control characters or backslashes; percent-encode them"
                .into(),
        );
    }
    if let Some(path) = url.strip_prefix('/') {
        if path.starts_with('/') {
            return Err("\"url\" starting with // points to another site; use a path with one leading / or a full https:// URL".into());
        }
        return Ok(());
    }
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        url.get(8..)
    } else if lower.starts_with("http://") {
        url.get(7..)
    } else {
        None
    };
    let Some(rest) = rest else {
        return Err(format!(
            "\"url\" {:?} must be an absolute http:// or https:// URL, or a path starting with /",
            excerpt(url)
        ));
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return Err("\"url\" must not contain a user name or password (user@host)".into());
    }
    if authority.is_empty() || authority.starts_with(':') {
        return Err("\"url\" has no host name".into());
    }
    Ok(())
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
    let bad = |problem: String| Refusal::InvalidOptions { problem };
    match record.get("timeout_ms") {
        None | Some(Value::Null) => {}
        Some(value) => {
            options.timeout_ms = Some(
                value
                    .as_u64()
                    .filter(|ms| (1..=u64::from(ACTION_TIMEOUT_MAX_MS)).contains(ms))
                    .and_then(|ms| u32::try_from(ms).ok())
                    .ok_or_else(|| {
                        bad(format!(
                            "\"timeout_ms\" must be a whole number of milliseconds from 1 to {ACTION_TIMEOUT_MAX_MS}"
                        ))
                    })?,
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
                .ok_or_else(|| {
                    bad(format!(
                        "\"retries\" must be a whole number from 1 to {RETRY_MAX}"
                    ))
                })?,
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
                return Err(bad(format!(
                    "\"on_error\" {:?} is not known; use \"stop\", \"skip\" or \"retry\"",
                    excerpt(other)
                )));
            }
        },
        Some(other) => {
            return Err(bad(format!(
                "\"on_error\" must be a string (\"stop\", \"skip\" or \"retry\"), not {}",
                json_type(other)
            )));
        }
    };
    if retries.is_some() && !matches!(options.on_error, OnError::Retry { .. }) {
        return Err(bad(
            "\"retries\" goes only with \"on_error\":\"retry\"; remove it or add that".into(),
        ));
    }
    match record.get("reason") {
        None | Some(Value::Null) => {}
        Some(Value::String(reason)) => {
            let chars = reason.chars().count();
            if chars > REASON_MAX_CHARS {
                return Err(bad(format!(
                    "\"reason\" has {chars} characters; keep it to {REASON_MAX_CHARS}"
                )));
            }
            if reason.chars().any(char::is_control) {
                return Err(bad(
                    "\"reason\" must not contain control characters (line breaks, tabs); write one plain sentence".into(),
                ));
            }
            options.reason = Some(reason.clone());
        }
        Some(other) => {
            return Err(bad(format!(
                "\"reason\" must be a string, not {}",
                json_type(other)
            )));
        }
    }
    Ok(options)
}

fn required_string(
    type_name: &str,
    fields: &Map<String, Value>,
    key: &str,
) -> Result<String, Refusal> {
    match fields.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        None => Err(invalid(type_name, format_args!("\"{key}\" is required"))),
        Some(other) => Err(invalid(
            type_name,
            format_args!("\"{key}\" must be a string, not {}", json_type(other)),
        )),
    }
}

fn number_field(
    type_name: &str,
    fields: &Map<String, Value>,
    key: &str,
) -> Result<Option<f64>, Refusal> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(invalid(
                type_name,
                format_args!("\"{key}\" must be a finite number"),
            )),
        },
        Some(other) => Err(invalid(
            type_name,
            format_args!("\"{key}\" must be a number, not {}", json_type(other)),
        )),
    }
}

fn optional_string(
    type_name: &str,
    fields: &Map<String, Value>,
    key: &str,
) -> Result<Option<String>, Refusal> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(invalid(
            type_name,
            format_args!("\"{key}\" must be a string, not {}", json_type(other)),
        )),
    }
}

fn non_empty_string(
    type_name: &str,
    fields: &Map<String, Value>,
    key: &str,
) -> Result<String, Refusal> {
    let value = required_string(type_name, fields, key)?;
    if value.trim().is_empty() {
        return Err(invalid(
            type_name,
            format_args!("\"{key}\" must not be empty"),
        ));
    }
    Ok(value)
}

/// Whether `value` is an element ref as `observe` hands them out: `@e` and 1 to 9 digits, no
/// leading zero.
pub fn is_element_ref(value: &str) -> bool {
    value.strip_prefix("@e").is_some_and(|digits| {
        (1..=9).contains(&digits.len())
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !digits.starts_with('0')
    })
}

/// A selector from its wire form: a bare string (CSS) or `{"type": KIND, "value": STRING}` with
/// optional `exact` (bool), `index` (whole number) and `name` (string). Kinds beyond
/// [`WIRE_SELECTOR_KINDS`] need the capability that brings them (`capabilities` as in
/// [`action_from_wire`]).
pub fn selector_from_wire(
    value: &Value,
    capabilities: Option<&[Capability]>,
) -> Result<Selector, Refusal> {
    let negotiable = capabilities.is_some();
    let capabilities = capabilities.unwrap_or_default();
    let bad = |problem: String| Refusal::InvalidSelector { problem };
    // "css, xpath, aria or text", as the messages always said.
    let allowed = || {
        let kinds = allowed_selector_kinds(capabilities);
        match kinds.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => kinds.join(", "),
        }
    };
    match value {
        Value::String(css) if !css.trim().is_empty() => Ok(Selector::css(css.clone())),
        Value::String(_) => Err(bad("\"selector\" must not be empty".into())),
        Value::Object(fields) => {
            let kind_name = match fields.get("type") {
                Some(Value::String(s)) => s.as_str(),
                _ => {
                    return Err(bad(format!(
                        "the selector needs a \"type\" ({})",
                        allowed()
                    )));
                }
            };
            let known = WIRE_SELECTOR_KINDS
                .iter()
                .chain(EXTENDED_SELECTOR_KINDS)
                .chain(&[SelectorKind::Ref])
                .copied()
                .find(|k| k.as_str() == kind_name)
                .filter(|k| negotiable || kind_capability(*k).is_none());
            let Some(kind) = known else {
                return Err(bad(format!(
                    "selector type {:?} is not known; use {}",
                    excerpt(kind_name),
                    allowed()
                )));
            };
            if let Some(capability) = kind_capability(kind) {
                if !capabilities.contains(&capability) {
                    return Err(not_negotiated(
                        &format!("selector type {kind_name:?}"),
                        capability,
                    ));
                }
            }
            if !capabilities.contains(&Capability::ExtendedActions) {
                if let Some(field) = EXTENDED_SELECTOR_FIELDS
                    .iter()
                    .find(|field| fields.contains_key(**field))
                {
                    return Err(field_not_negotiated(
                        &format!("selector.{field}"),
                        Capability::ExtendedActions,
                        negotiable,
                    ));
                }
            }
            let text = match fields.get("value") {
                Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                _ => return Err(bad("the selector needs a non-empty \"value\" string".into())),
            };
            if kind == SelectorKind::Ref && !is_element_ref(&text) {
                return Err(bad(format!(
                    "ref {:?} is not an element ref; use a ref from the latest observe result, like \"@e12\"",
                    excerpt(&text)
                )));
            }
            let mut selector = Selector::new(kind, text);
            match fields.get("exact") {
                None | Some(Value::Null) => {}
                Some(Value::Bool(b)) => selector.exact = *b,
                Some(_) => {
                    return Err(bad("the selector's \"exact\" must be true or false".into()));
                }
            }
            match fields.get("index") {
                None | Some(Value::Null) => {}
                Some(Value::Number(n)) => {
                    selector.index = Some(
                        n.as_u64()
                            .and_then(|i| u32::try_from(i).ok())
                            .ok_or_else(|| {
                                bad("the selector's \"index\" must be a whole number from 0".into())
                            })?,
                    );
                }
                Some(_) => {
                    return Err(bad(
                        "the selector's \"index\" must be a whole number from 0".into(),
                    ));
                }
            }
            match fields.get("name") {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) => selector.name = Some(s.clone()),
                Some(_) => return Err(bad("the selector's \"name\" must be a string".into())),
            }
            if kind == SelectorKind::Ref && (selector.index.is_some() || selector.name.is_some()) {
                // A ref already names one element; an index or name would silently mean
                // something else.
                return Err(bad(
                    "a ref selector names exactly one element; remove \"index\" and \"name\""
                        .into(),
                ));
            }
            Ok(selector)
        }
        other => Err(bad(format!(
            "\"selector\" must be a string or an object, not {}",
            json_type(other)
        ))),
    }
}

impl<'de> serde::Deserialize<'de> for Action {
    /// Reads `{"type": ..., "payload": {...}}` with [`action_from_wire`], every capability
    /// allowed: a serialized action was validated (capabilities included) when the engine first
    /// read it.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let record = Value::deserialize(deserializer)?;
        let Some(type_name) = record.get("type").and_then(Value::as_str) else {
            return Err(D::Error::custom("an action needs a \"type\" string"));
        };
        let payload = record.get("payload").unwrap_or(&Value::Null);
        action_from_wire(type_name, payload, Some(Capability::ALL))
            .map_err(|refusal| D::Error::custom(refusal.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::error::RejectCode;
    use serde_json::json;

    /// A refusal as its code and message, for assertions.
    trait SplitErr {
        fn split_err(self) -> (RejectCode, String);
    }

    impl<T: std::fmt::Debug> SplitErr for Result<T, Refusal> {
        fn split_err(self) -> (RejectCode, String) {
            let refusal = self.unwrap_err();
            (refusal.code(), refusal.to_string())
        }
    }

    const ALL: &[Capability] = &[
        Capability::ResultLines,
        Capability::Observe,
        Capability::ExtendedActions,
    ];

    fn plain(t: &str, p: Value) -> Result<Action, Refusal> {
        action_from_wire(t, &p, Some(&[]))
    }

    fn ext(t: &str, p: Value) -> Result<Action, Refusal> {
        action_from_wire(t, &p, Some(ALL))
    }

    #[test]
    fn builds_each_type() {
        assert_eq!(
            plain("click", json!({"selector": "#a"})).unwrap(),
            Action::Click {
                selector: Selector::css("#a")
            }
        );
        assert_eq!(
            plain(
                "input_text",
                json!({"selector": {"type":"aria","value":"Email"}, "text": "x"})
            )
            .unwrap(),
            Action::InputText {
                selector: Selector::new(SelectorKind::Aria, "Email"),
                text: "x".into()
            }
        );
        assert_eq!(
            plain("wait", json!({"ms": 60000})).unwrap(),
            Action::Wait { ms: 60000 }
        );
        assert_eq!(
            plain("scroll", json!({"y": 10})).unwrap(),
            Action::Scroll { x: None, y: 10.0 }
        );
        assert_eq!(
            plain("done", json!({"success": false})).unwrap(),
            Action::Done {
                success: false,
                summary: None
            }
        );
    }

    #[test]
    fn rejects_bad_payloads() {
        let code = |t: &str, p: Value| plain(t, p).unwrap_err().code();
        assert_eq!(
            code("wait", json!({"ms": 60001})),
            RejectCode::InvalidPayload
        );
        assert_eq!(code("wait", json!({"ms": -1})), RejectCode::InvalidPayload);
        assert_eq!(code("click", json!({})), RejectCode::InvalidPayload);
        assert_eq!(code("click", json!("#a")), RejectCode::InvalidPayload);
        assert_eq!(code("teleport", json!({})), RejectCode::UnknownActionType);
        assert_eq!(
            code("done", json!({"success": "yes"})),
            RejectCode::InvalidPayload
        );
        assert_eq!(
            code("input_text", json!({"selector": "#a"})),
            RejectCode::InvalidPayload
        );
    }

    #[test]
    fn extensions_need_their_capability() {
        let (code, reason) = plain("hover", json!({"selector": "#a"})).split_err();
        assert_eq!(code, RejectCode::CapabilityNotNegotiated);
        assert!(reason.contains("\"extended_actions\""), "{reason}");
        let (code, reason) = plain("observe", json!({})).split_err();
        assert_eq!(code, RejectCode::CapabilityNotNegotiated);
        assert!(reason.contains("\"observe\""), "{reason}");
        let role = json!({"selector": {"type": "role", "value": "button"}});
        assert_eq!(
            plain("click", role.clone()).unwrap_err().code(),
            RejectCode::CapabilityNotNegotiated
        );
        assert!(ext("click", role).is_ok());
        let by_ref = json!({"selector": {"type": "ref", "value": "@e12"}});
        assert_eq!(
            action_from_wire("click", &by_ref, Some(&[Capability::ExtendedActions]))
                .unwrap_err()
                .code(),
            RejectCode::CapabilityNotNegotiated
        );
        assert!(action_from_wire("click", &by_ref, Some(&[Capability::Observe])).is_ok());
        // BAI/0.2 cannot negotiate: there the extensions are simply unknown, as before.
        assert_eq!(
            action_from_wire("hover", &json!({"selector": "#a"}), None)
                .unwrap_err()
                .code(),
            RejectCode::UnknownActionType
        );
        let (code, reason) = action_from_wire(
            "click",
            &json!({"selector": {"type": "role", "value": "button"}}),
            None,
        )
        .split_err();
        assert_eq!(code, RejectCode::InvalidPayload);
        assert!(
            reason.contains("is not known; use css, xpath, aria or text"),
            "{reason}"
        );
        // Selector options belong to extended_actions too, on every kind and in BAI/0.2.
        for field in [
            json!({"exact": true}),
            json!({"index": 0}),
            json!({"name": "x"}),
        ] {
            let mut selector = json!({"type": "aria", "value": "Email"});
            selector
                .as_object_mut()
                .unwrap()
                .extend(field.as_object().unwrap().clone());
            let payload = json!({ "selector": selector });
            for caps in [Some(&[][..]), Some(&[Capability::Observe][..]), None] {
                assert_eq!(
                    action_from_wire("click", &payload, caps)
                        .unwrap_err()
                        .code(),
                    RejectCode::CapabilityNotNegotiated,
                    "{payload} {caps:?}"
                );
            }
            assert!(ext("click", payload).is_ok());
        }
        // The unknown-type message lists what this workflow may use.
        let (_, reason) = plain("teleport", json!({})).split_err();
        assert!(!reason.contains("hover"), "{reason}");
        let (_, reason) = ext("teleport", json!({})).split_err();
        assert!(
            reason.contains("hover") && reason.contains("observe"),
            "{reason}"
        );
    }

    #[test]
    fn refs() {
        for good in ["@e1", "@e12", "@e999999999"] {
            assert!(is_element_ref(good), "{good}");
        }
        for bad in [
            "@e0",
            "@e01",
            "@e",
            "e12",
            "@E12",
            "@e1234567890",
            "@e1x",
            " @e1",
        ] {
            assert!(!is_element_ref(bad), "{bad}");
        }
        let with_index = json!({"selector": {"type": "ref", "value": "@e3", "index": 1}});
        assert_eq!(
            ext("click", with_index).unwrap_err().code(),
            RejectCode::InvalidPayload
        );
    }

    #[test]
    fn extended_payloads() {
        let s = || json!({"type": "test_id", "value": "x"});
        assert_eq!(
            ext("observe", json!({"max_elements": 300})).unwrap(),
            Action::Observe {
                max_elements: Some(300)
            }
        );
        assert!(ext("observe", json!({"max_elements": 0})).is_err());
        assert!(ext("observe", json!({"max_elements": 301})).is_err());
        assert_eq!(
            ext("press_key", json!({"key": "Enter"})).unwrap(),
            Action::PressKey {
                key: Key::Enter,
                selector: None
            }
        );
        let (_, reason) = ext("press_key", json!({"key": "enter"})).split_err();
        assert!(reason.contains("ArrowDown"), "{reason}");
        assert!(ext("select_option", json!({"selector": s(), "option": "FR"})).is_ok());
        assert!(ext("select_option", json!({"selector": s()})).is_err());
        assert!(ext("wait_for", json!({"selector": s(), "state": "hidden"})).is_ok());
        assert!(ext("wait_for", json!({"selector": s(), "text": "x"})).is_err());
        assert!(ext("wait_for", json!({"text": "x", "state": "hidden"})).is_err());
        assert!(ext("wait_for", json!({})).is_err());
        assert!(ext("wait_for", json!({"selector": s(), "state": "gone"})).is_err());
        assert_eq!(
            ext("wait_for", json!({"url_contains": "/done"})).unwrap(),
            Action::WaitFor {
                until: WaitCondition::Url {
                    contains: "/done".into()
                }
            }
        );
        assert!(
            ext(
                "extract",
                json!({"selector": s(), "attribute": "data-x:y.z"})
            )
            .is_ok()
        );
        assert!(ext("extract", json!({"selector": s(), "attribute": "1x"})).is_err());
        assert!(ext("extract", json!({"selector": s(), "attribute": "a b"})).is_err());
        assert!(ext("assert", json!({"selector": s(), "expect": "checked"})).is_ok());
        assert!(
            ext(
                "assert",
                json!({"selector": s(), "expect": "checked", "value": "x"})
            )
            .is_err()
        );
        assert!(ext("assert", json!({"selector": s(), "expect": "text_equals"})).is_err());
        assert_eq!(
            ext(
                "assert",
                json!({"selector": s(), "expect": "value_equals", "value": ""})
            )
            .unwrap(),
            Action::Assert {
                selector: Selector::new(SelectorKind::TestId, "x"),
                expect: Expectation::ValueEquals { value: "".into() }
            }
        );
    }

    #[test]
    fn navigate_urls() {
        for good in [
            "https://example.com",
            "HTTPS://example.com/a?b#c",
            "http://localhost:8080/x",
            "/",
            "/account/settings?tab=2",
        ] {
            assert!(check_navigate_url(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "//evil.example/x",
            "/\\evil.example",
            "javascript:alert(1)",
            "ftp://example.com",
            "https://user:pw@example.com/",
            "https://@example.com",
            "https://",
            "https://:80/",
            "https://example.com/a b",
            "https://example.com/\n",
            "example.com",
            "relative/path",
        ] {
            assert!(check_navigate_url(bad).is_err(), "{bad:?}");
        }
        assert!(check_navigate_url(&format!("/{}", "a".repeat(2047))).is_ok());
        assert!(check_navigate_url(&format!("/{}", "a".repeat(2048))).is_err());
    }

    #[test]
    fn options() {
        let record = |extra: Value| {
            let mut map = json!({"type": "click"}).as_object().unwrap().clone();
            map.extend(extra.as_object().unwrap().clone());
            map
        };
        // Refused without extended_actions, whatever the value; unknown fields stay ignored.
        for field in EXTENDED_RECORD_FIELDS {
            for caps in [Some(&[][..]), None] {
                let (code, reason) =
                    options_from_wire(&record(json!({ *field: null })), caps).split_err();
                assert_eq!(code, RejectCode::CapabilityNotNegotiated, "{field}");
                assert!(reason.contains("extended_actions"), "{reason}");
            }
        }
        assert_eq!(
            options_from_wire(&record(json!({"comment": "x"})), Some(&[])).unwrap(),
            ActionOptions::default()
        );
        let ext_caps = Some(&[Capability::ExtendedActions][..]);
        assert_eq!(
            options_from_wire(
                &record(
                    json!({"timeout_ms": 5000, "on_error": "retry", "reason": "Open the menu"})
                ),
                ext_caps
            )
            .unwrap(),
            ActionOptions {
                timeout_ms: Some(5000),
                on_error: OnError::Retry {
                    count: RETRY_DEFAULT
                },
                reason: Some("Open the menu".into())
            }
        );
        assert_eq!(
            options_from_wire(
                &record(json!({"on_error": "retry", "retries": 5})),
                ext_caps
            )
            .unwrap()
            .on_error,
            OnError::Retry { count: 5 }
        );
        for bad in [
            json!({"timeout_ms": 0}),
            json!({"timeout_ms": 60001}),
            json!({"timeout_ms": 1.5}),
            json!({"on_error": "ignore"}),
            json!({"on_error": true}),
            json!({"retries": 2}),
            json!({"on_error": "retry", "retries": 6}),
            json!({"on_error": "skip", "retries": 1}),
            json!({"reason": "a\nb"}),
            json!({"reason": "x".repeat(301)}),
            json!({"reason": 3}),
        ] {
            let (code, _) = options_from_wire(&record(bad.clone()), ext_caps).split_err();
            assert_eq!(code, RejectCode::InvalidRecord, "{bad}");
        }
    }
}
