//! What each capability adds: the action types, selector kinds and fields every workflow
//! accepts, those `extended_actions` and `observe` add, and the refusals for using one that was
//! not negotiated.

use crate::protocol::negotiation::Capability;
use crate::protocol::quote::Quoted;
use crate::protocol::refusal::Refusal;
use crate::protocol::selector::SelectorKind;

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

/// The action types `chunked_results` adds.
pub const CHUNKED_ACTION_TYPES: &[&str] = &["more"];

/// The action types `vision` adds.
pub const VISION_ACTION_TYPES: &[&str] = &["screenshot"];

/// The action types `tabs` adds.
pub const TABS_ACTION_TYPES: &[&str] = &["open_tab", "tabs"];

/// Which capability an action type needs: `Some(None)` for a base type, `None` for an unknown one.
pub(super) fn type_capability(type_name: &str) -> Option<Option<Capability>> {
    if WIRE_ACTION_TYPES.contains(&type_name) {
        Some(None)
    } else if EXTENDED_ACTION_TYPES.contains(&type_name) {
        Some(Some(Capability::ExtendedActions))
    } else if OBSERVE_ACTION_TYPES.contains(&type_name) {
        Some(Some(Capability::Observe))
    } else if CHUNKED_ACTION_TYPES.contains(&type_name) {
        Some(Some(Capability::ChunkedResults))
    } else if VISION_ACTION_TYPES.contains(&type_name) {
        Some(Some(Capability::Vision))
    } else if TABS_ACTION_TYPES.contains(&type_name) {
        Some(Some(Capability::Tabs))
    } else {
        None
    }
}

/// Which capability a selector kind needs (`None`: every workflow has it).
pub(super) fn kind_capability(kind: SelectorKind) -> Option<Capability> {
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
    if capabilities.contains(&Capability::ChunkedResults) {
        types.extend_from_slice(CHUNKED_ACTION_TYPES);
    }
    if capabilities.contains(&Capability::Vision) {
        types.extend_from_slice(VISION_ACTION_TYPES);
    }
    if capabilities.contains(&Capability::Tabs) {
        types.extend_from_slice(TABS_ACTION_TYPES);
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

pub(super) fn not_negotiated(what: &str, capability: Capability) -> Refusal {
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
pub(super) fn field_not_negotiated(
    field: &str,
    capability: Capability,
    negotiable: bool,
) -> Refusal {
    if negotiable {
        return not_negotiated(&format!("the field {}", Quoted(field)), capability);
    }
    Refusal::FieldNeedsV03 {
        field: field.to_owned(),
        capability,
    }
}

pub(super) fn unknown_type(type_name: &str, capabilities: &[Capability]) -> Refusal {
    Refusal::UnknownActionType {
        type_name: type_name.to_owned(),
        allowed: allowed_action_types(capabilities),
    }
}
