//! Selectors from their wire form: a bare CSS string or an object naming a kind, with the
//! fields each capability brings.

use serde_json::Value;

use super::capabilities::{
    EXTENDED_SELECTOR_FIELDS, EXTENDED_SELECTOR_KINDS, WIRE_SELECTOR_KINDS, allowed_selector_kinds,
    field_not_negotiated, kind_capability, not_negotiated,
};
use crate::protocol::join::join;
use crate::protocol::negotiation::Capability;
use crate::protocol::quote::Quoted;
use crate::protocol::record::json_type;
use crate::protocol::refusal::{Refusal, SelectorProblem};
use crate::protocol::selector::{Selector, SelectorKind};

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
    let bad = Refusal::InvalidSelector;
    // "css, xpath, aria or text", as the messages always said.
    let allowed = || {
        let kinds = allowed_selector_kinds(capabilities);
        match kinds.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", join(rest, ", ")),
            _ => join(&kinds, ", "),
        }
    };
    match value {
        Value::String(css) if !css.trim().is_empty() => Ok(Selector::css(css.clone())),
        Value::String(_) => Err(bad(SelectorProblem::Empty)),
        Value::Object(fields) => {
            let kind_name = match fields.get("type") {
                Some(Value::String(s)) => s.as_str(),
                _ => {
                    return Err(bad(SelectorProblem::NoKind { allowed: allowed() }));
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
                return Err(bad(SelectorProblem::UnknownKind {
                    written: kind_name.to_owned(),
                    allowed: allowed(),
                }));
            };
            if let Some(capability) = kind_capability(kind) {
                if !capabilities.contains(&capability) {
                    return Err(not_negotiated(
                        &format!("selector type {}", Quoted(kind_name)),
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
                _ => return Err(bad(SelectorProblem::NoValue)),
            };
            if kind == SelectorKind::Ref && !is_element_ref(&text) {
                return Err(bad(SelectorProblem::NotARef { written: text }));
            }
            let mut selector = Selector::new(kind, text);
            match fields.get("exact") {
                None | Some(Value::Null) => {}
                Some(Value::Bool(b)) => selector.exact = *b,
                Some(_) => {
                    return Err(bad(SelectorProblem::ExactNotBool));
                }
            }
            match fields.get("index") {
                None | Some(Value::Null) => {}
                Some(Value::Number(n)) => {
                    selector.index = Some(
                        n.as_u64()
                            .and_then(|i| u32::try_from(i).ok())
                            .ok_or(bad(SelectorProblem::IndexNotWhole))?,
                    );
                }
                Some(_) => {
                    return Err(bad(SelectorProblem::IndexNotWhole));
                }
            }
            match fields.get("name") {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) => selector.name = Some(s.clone()),
                Some(_) => return Err(bad(SelectorProblem::NameNotString)),
            }
            if kind == SelectorKind::Ref && (selector.index.is_some() || selector.name.is_some()) {
                // A ref already names one element; an index or name would silently mean
                // something else.
                return Err(bad(SelectorProblem::RefWithIndexOrName));
            }
            Ok(selector)
        }
        other => Err(bad(SelectorProblem::NotStringOrObject {
            json_type: json_type(other),
        })),
    }
}
