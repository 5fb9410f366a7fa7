//! Payload schemas: an action record's `type` and `payload` become a validated [`Action`].
//!
//! Adding an action type is one [`Action`] variant and one arm in [`action_from_wire`]; adding a
//! selector kind on the wire is one entry in [`WIRE_SELECTOR_KINDS`].

use serde_json::{Map, Value};

use super::action::Action;
use super::error::RejectCode;
use super::record::{Refusal, json_type};
use super::selector::{Selector, SelectorKind};

/// Longest `wait`, in milliseconds.
pub const WAIT_MAX_MS: u64 = 60_000;

/// The selector kinds BAI/0.2 and BAI/0.3 accept in an object selector. The other
/// [`SelectorKind`]s arrive with a later protocol revision.
pub const WIRE_SELECTOR_KINDS: &[SelectorKind] = &[
    SelectorKind::Css,
    SelectorKind::Xpath,
    SelectorKind::Aria,
    SelectorKind::Text,
];

/// The action types known on the wire.
pub const WIRE_ACTION_TYPES: &[&str] = &["click", "input_text", "wait", "scroll", "done"];

fn invalid(type_name: &str, what: impl std::fmt::Display) -> Refusal {
    (
        RejectCode::InvalidPayload,
        format!("{type_name} payload: {what}"),
    )
}

/// Build the action from the record's `type` string and `payload` value.
pub fn action_from_wire(type_name: &str, payload: &Value) -> Result<Action, Refusal> {
    let Some(fields) = payload.as_object() else {
        return Err(invalid(
            type_name,
            format_args!("\"payload\" must be an object, not {}", json_type(payload)),
        ));
    };
    match type_name {
        "click" => Ok(Action::Click {
            selector: selector_field(type_name, fields)?,
        }),
        "input_text" => Ok(Action::InputText {
            selector: selector_field(type_name, fields)?,
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
            let summary = match fields.get("summary") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(other) => {
                    return Err(invalid(
                        type_name,
                        format_args!("\"summary\" must be a string, not {}", json_type(other)),
                    ));
                }
            };
            Ok(Action::Done { success, summary })
        }
        other => Err((
            RejectCode::UnknownActionType,
            format!(
                "action type {:?} is not known; use one of {}",
                super::error::excerpt(other),
                WIRE_ACTION_TYPES.join(", ")
            ),
        )),
    }
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

fn selector_field(type_name: &str, fields: &Map<String, Value>) -> Result<Selector, Refusal> {
    let value = fields
        .get("selector")
        .ok_or_else(|| invalid(type_name, "\"selector\" is required"))?;
    selector_from_wire(value).map_err(|what| invalid(type_name, what))
}

/// A selector from its wire form: a bare string (CSS) or `{"type": KIND, "value": STRING}` with
/// optional `exact` (bool), `index` (whole number) and `name` (string).
pub fn selector_from_wire(value: &Value) -> Result<Selector, String> {
    match value {
        Value::String(css) if !css.trim().is_empty() => Ok(Selector::css(css.clone())),
        Value::String(_) => Err("\"selector\" must not be empty".into()),
        Value::Object(fields) => {
            let kind_name = match fields.get("type") {
                Some(Value::String(s)) => s.as_str(),
                _ => return Err("the selector needs a \"type\" (css, xpath, aria or text)".into()),
            };
            let Some(kind) = WIRE_SELECTOR_KINDS
                .iter()
                .copied()
                .find(|k| k.as_str() == kind_name)
            else {
                return Err(format!(
                    "selector type {:?} is not known; use css, xpath, aria or text",
                    super::error::excerpt(kind_name)
                ));
            };
            let text = match fields.get("value") {
                Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                _ => return Err("the selector needs a non-empty \"value\" string".into()),
            };
            let mut selector = Selector::new(kind, text);
            match fields.get("exact") {
                None | Some(Value::Null) => {}
                Some(Value::Bool(b)) => selector.exact = *b,
                Some(_) => return Err("the selector's \"exact\" must be true or false".into()),
            }
            match fields.get("index") {
                None | Some(Value::Null) => {}
                Some(Value::Number(n)) => {
                    selector.index = Some(
                        n.as_u64()
                            .and_then(|i| u32::try_from(i).ok())
                            .ok_or("the selector's \"index\" must be a whole number from 0")?,
                    );
                }
                Some(_) => {
                    return Err("the selector's \"index\" must be a whole number from 0".into());
                }
            }
            match fields.get("name") {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) => selector.name = Some(s.clone()),
                Some(_) => return Err("the selector's \"name\" must be a string".into()),
            }
            Ok(selector)
        }
        other => Err(format!(
            "\"selector\" must be a string or an object, not {}",
            json_type(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builds_each_type() {
        assert_eq!(
            action_from_wire("click", &json!({"selector": "#a"})).unwrap(),
            Action::Click {
                selector: Selector::css("#a")
            }
        );
        assert_eq!(
            action_from_wire(
                "input_text",
                &json!({"selector": {"type":"aria","value":"Email"}, "text": "x"})
            )
            .unwrap(),
            Action::InputText {
                selector: Selector::new(SelectorKind::Aria, "Email"),
                text: "x".into()
            }
        );
        assert_eq!(
            action_from_wire("wait", &json!({"ms": 60000})).unwrap(),
            Action::Wait { ms: 60000 }
        );
        assert_eq!(
            action_from_wire("scroll", &json!({"y": 10})).unwrap(),
            Action::Scroll { x: None, y: 10.0 }
        );
        assert_eq!(
            action_from_wire("done", &json!({"success": false})).unwrap(),
            Action::Done {
                success: false,
                summary: None
            }
        );
    }

    #[test]
    fn rejects_bad_payloads() {
        let code = |t: &str, p: Value| action_from_wire(t, &p).unwrap_err().0;
        assert_eq!(
            code("wait", json!({"ms": 60001})),
            RejectCode::InvalidPayload
        );
        assert_eq!(code("wait", json!({"ms": -1})), RejectCode::InvalidPayload);
        assert_eq!(
            code("click", json!({"selector": {"type": "role", "value": "x"}})),
            RejectCode::InvalidPayload
        );
        assert_eq!(code("click", json!({})), RejectCode::InvalidPayload);
        assert_eq!(code("click", json!("#a")), RejectCode::InvalidPayload);
        assert_eq!(code("hover", json!({})), RejectCode::UnknownActionType);
        assert_eq!(
            code("done", json!({"success": "yes"})),
            RejectCode::InvalidPayload
        );
        assert_eq!(
            code("input_text", json!({"selector": "#a"})),
            RejectCode::InvalidPayload
        );
    }
}
