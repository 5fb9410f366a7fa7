//! Action payloads: a record's `type` and `payload` become a validated [`Action`], one arm per
//! type, with the field readers they share. `Action`'s `Deserialize` reads through here too.

use serde_json::{Map, Value};

use super::capabilities::{field_not_negotiated, not_negotiated, type_capability, unknown_type};
use super::selector::selector_from_wire;
use crate::protocol::action::{
    Action, EXTRACT_LARGE_MAX_CHARS, ElementState, Expectation, Key, OBSERVE_MAX_ELEMENTS,
    WaitCondition,
};
use crate::protocol::negotiation::Capability;
use crate::protocol::quote::Quoted;
use crate::protocol::record::json_type;
use crate::protocol::refusal::{ActionSentence, PayloadProblem, Refusal, UrlProblem};
use crate::protocol::selector::Selector;

/// Longest `wait`, in milliseconds.
pub const WAIT_MAX_MS: u64 = 60_000;
/// Longest `navigate` URL, in characters.
pub const NAVIGATE_URL_MAX_CHARS: usize = 2048;
/// Longest `extract` attribute name, in characters.
pub const ATTRIBUTE_NAME_MAX_CHARS: usize = 100;
/// Longest `more` token, in characters (the engine issues 18).
pub const TOKEN_MAX_CHARS: usize = 64;

fn bad(type_name: &str, problem: PayloadProblem) -> Refusal {
    Refusal::InvalidPayload {
        type_name: type_name.to_owned(),
        problem,
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
                &format!("action type {}", Quoted(type_name)),
                capability,
            ));
        }
        Some(_) => {}
    }
    let Some(fields) = payload.as_object() else {
        return Err(bad(
            type_name,
            PayloadProblem::NotObject {
                json_type: json_type(payload),
            },
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
                return Err(bad(
                    type_name,
                    PayloadProblem::WaitOutOfRange {
                        max_ms: WAIT_MAX_MS,
                    },
                ));
            };
            Ok(Action::Wait { ms })
        }
        "scroll" => {
            let y = number_field(type_name, fields, "y")?
                .ok_or_else(|| bad(type_name, PayloadProblem::ScrollNoY))?;
            let x = number_field(type_name, fields, "x")?;
            Ok(Action::Scroll { x, y })
        }
        "done" => {
            let success = match fields.get("success") {
                Some(Value::Bool(b)) => *b,
                _ => return Err(bad(type_name, PayloadProblem::SuccessNotBool)),
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
                            bad(
                                type_name,
                                PayloadProblem::MaxElementsOutOfRange {
                                    max: OBSERVE_MAX_ELEMENTS,
                                },
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
                return Err(bad(
                    type_name,
                    PayloadProblem::UnknownKey {
                        written: name,
                        known: Key::ALL.iter().map(|k| k.as_str()).collect(),
                    },
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
            check_navigate_url(&url)
                .map_err(|problem| bad(type_name, PayloadProblem::Url(problem)))?;
            Ok(Action::Navigate { url })
        }
        "open_tab" => {
            let url = required_string(type_name, fields, "url")?;
            check_navigate_url(&url)
                .map_err(|problem| bad(type_name, PayloadProblem::Url(problem)))?;
            Ok(Action::OpenTab { url })
        }
        "tabs" => Ok(Action::Tabs {}),
        "wait_for" => Ok(Action::WaitFor {
            until: wire.wait_condition()?,
        }),
        "extract" => {
            let selector = wire.selector()?;
            let attribute = optional_string(type_name, fields, "attribute")?;
            if let Some(name) = &attribute {
                if !is_attribute_name(name) {
                    return Err(bad(
                        type_name,
                        PayloadProblem::NotAttributeName {
                            written: name.clone(),
                            max_chars: ATTRIBUTE_NAME_MAX_CHARS,
                        },
                    ));
                }
            }
            let max_chars = match fields.get("max_chars") {
                None => None,
                Some(_) if !capabilities.contains(&Capability::ChunkedResults) => {
                    return Err(field_not_negotiated(
                        "max_chars",
                        Capability::ChunkedResults,
                        negotiable,
                    ));
                }
                Some(value) => Some(
                    value
                        .as_u64()
                        .filter(|n| (1..=u64::from(EXTRACT_LARGE_MAX_CHARS)).contains(n))
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or_else(|| {
                            bad(
                                type_name,
                                PayloadProblem::MaxCharsOutOfRange {
                                    max: EXTRACT_LARGE_MAX_CHARS,
                                },
                            )
                        })?,
                ),
            };
            Ok(Action::Extract {
                selector,
                attribute,
                max_chars,
            })
        }
        "more" => {
            let token = non_empty_string(type_name, fields, "token")?;
            if token.chars().count() > TOKEN_MAX_CHARS {
                return Err(bad(
                    type_name,
                    PayloadProblem::TokenTooLong {
                        max_chars: TOKEN_MAX_CHARS,
                    },
                ));
            }
            Ok(Action::More { token })
        }
        "screenshot" => {
            let max_elements = match fields.get("max_elements") {
                None | Some(Value::Null) => None,
                Some(value) => Some(
                    value
                        .as_u64()
                        .filter(|n| (1..=u64::from(OBSERVE_MAX_ELEMENTS)).contains(n))
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or_else(|| {
                            bad(
                                type_name,
                                PayloadProblem::MaxElementsOutOfRange {
                                    max: OBSERVE_MAX_ELEMENTS,
                                },
                            )
                        })?,
                ),
            };
            Ok(Action::Screenshot { max_elements })
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
            .ok_or_else(|| bad(self.type_name, PayloadProblem::SelectorRequired))?;
        let capabilities = self.negotiable.then_some(self.capabilities);
        selector_from_wire(value, capabilities).map_err(|refusal| Refusal::InPayload {
            type_name: self.type_name.to_owned(),
            refusal: Box::new(refusal),
        })
    }

    fn wait_condition(&self) -> Result<WaitCondition, Refusal> {
        let present = |key: &str| !matches!(self.fields.get(key), None | Some(Value::Null));
        let given: Vec<&'static str> = ["selector", "text", "url_contains"]
            .into_iter()
            .filter(|k| present(k))
            .collect();
        if given.len() != 1 {
            return Err(bad(self.type_name, PayloadProblem::WaitForFields { given }));
        }
        if present("state") && !present("selector") {
            return Err(bad(self.type_name, PayloadProblem::StateWithoutSelector));
        }
        if present("selector") {
            let state = match self.fields.get("state") {
                None | Some(Value::Null) => ElementState::Visible,
                Some(value) => value
                    .as_str()
                    .and_then(element_state)
                    .ok_or_else(|| bad(self.type_name, PayloadProblem::UnknownState))?,
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
            return Err(bad(
                self.type_name,
                PayloadProblem::ValueNotExpected { expect: name },
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
                return Err(bad(
                    self.type_name,
                    PayloadProblem::UnknownExpect {
                        written: other.to_owned(),
                    },
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
pub(super) fn check_navigate_url(url: &str) -> Result<(), UrlProblem> {
    let chars = url.chars().count();
    if chars == 0 || chars > NAVIGATE_URL_MAX_CHARS {
        return Err(UrlProblem::Length {
            chars,
            max: NAVIGATE_URL_MAX_CHARS,
        });
    }
    if url
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || c == '\\')
    {
        return Err(UrlProblem::ForbiddenCharacter);
    }
    if let Some(path) = url.strip_prefix('/') {
        if path.starts_with('/') {
            return Err(UrlProblem::ProtocolRelative);
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
        return Err(UrlProblem::NotHttp {
            written: url.to_owned(),
        });
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return Err(UrlProblem::UserInfo);
    }
    if authority.is_empty() || authority.starts_with(':') {
        return Err(UrlProblem::NoHost);
    }
    Ok(())
}

fn required_string(
    type_name: &str,
    fields: &Map<String, Value>,
    key: &str,
) -> Result<String, Refusal> {
    match fields.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        None => Err(bad(
            type_name,
            PayloadProblem::FieldRequired {
                key: key.to_owned(),
            },
        )),
        Some(other) => Err(bad(
            type_name,
            PayloadProblem::FieldNotString {
                key: key.to_owned(),
                json_type: json_type(other),
            },
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
            _ => Err(bad(
                type_name,
                PayloadProblem::FieldNotFinite {
                    key: key.to_owned(),
                },
            )),
        },
        Some(other) => Err(bad(
            type_name,
            PayloadProblem::FieldNotNumber {
                key: key.to_owned(),
                json_type: json_type(other),
            },
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
        Some(other) => Err(bad(
            type_name,
            PayloadProblem::FieldNotString {
                key: key.to_owned(),
                json_type: json_type(other),
            },
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
        return Err(bad(
            type_name,
            PayloadProblem::FieldEmpty {
                key: key.to_owned(),
            },
        ));
    }
    Ok(value)
}

impl<'de> serde::Deserialize<'de> for Action {
    /// Reads `{"type": ..., "payload": {...}}` with [`action_from_record`].
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let record = Value::deserialize(deserializer)?;
        action_from_record(&record).map_err(D::Error::custom)
    }
}

/// A serialized action (`{"type": ..., "payload": {...}}`) with [`action_from_wire`], every
/// capability allowed: a serialized action was validated (capabilities included) when the
/// engine first read it. The error is the sentence to show.
pub fn action_from_record(record: &Value) -> Result<Action, String> {
    read_record(record, |refusal| refusal.to_string())
}

/// [`action_from_record`], its refusal written by `sentence`.
fn read_record(
    record: &Value,
    sentence: impl FnOnce(&Refusal) -> String,
) -> Result<Action, String> {
    let Some(type_name) = record.get("type").and_then(Value::as_str) else {
        return Err("an action needs a \"type\" string".to_owned());
    };
    let payload = record.get("payload").unwrap_or(&Value::Null);
    action_from_wire(type_name, payload, Some(Capability::ALL))
        .map_err(|refusal| sentence(&refusal))
}

/// [`action_from_record`] on JSON text read by the engine's strict reader
/// ([`crate::protocol::json`]), not serde_json's: the executor reads the action with it, so its
/// wasm holds no serde `Deserialize` machinery and serde's error texts. The text is what the
/// background wrote from an action it validated, which that reader accepts; for text that is
/// not JSON at all the sentence is that reader's, not serde_json's.
pub fn action_from_json(text: &str) -> Result<Action, String> {
    // Refusals written by `ActionSentence`, not `Display` (the same words): the executor's
    // wasm then holds no sentence of the handshakes, ACKs and results it never reads.
    let record = crate::protocol::json::read_value(text)
        .map_err(|refusal| ActionSentence(&refusal).to_string())?;
    read_record(&record, |refusal| ActionSentence(refusal).to_string())
}
