//! Payload schemas: an action record's `type` and `payload` become a validated
//! [`Action`](crate::protocol::Action), and its optional per-action fields become
//! [`ActionOptions`](crate::protocol::action::ActionOptions).
//!
//! What a record may use depends on the capabilities its workflow negotiated: plain BAI/0.3 (and
//! BAI/0.2) accept exactly the [`WIRE_ACTION_TYPES`] and [`WIRE_SELECTOR_KINDS`]; `extended_actions`
//! adds [`EXTENDED_ACTION_TYPES`], [`EXTENDED_SELECTOR_KINDS`] and the per-action fields;
//! `observe` adds the `observe` type and `ref` selectors. A type, kind or field this engine knows
//! but the workflow did not negotiate is refused with `capability_not_negotiated`, naming what to
//! add: a reader of the line would expect it to count, so it is neither honoured nor dropped.
//!
//! Adding an action type is one [`Action`](crate::protocol::Action) variant, one entry in the type
//! lists and one arm in [`action_from_wire`].
//!
//! One concern per file: [`capabilities`] (what each capability adds), [`payload`] (action
//! payloads), [`selector`] (wire selectors), [`options`] (per-action fields).

pub mod capabilities;
pub mod options;
pub mod payload;
pub mod selector;

pub use capabilities::{
    CHUNKED_ACTION_TYPES, EXTENDED_ACTION_TYPES, EXTENDED_RECORD_FIELDS, EXTENDED_SELECTOR_FIELDS,
    EXTENDED_SELECTOR_KINDS, OBSERVE_ACTION_TYPES, TABS_ACTION_TYPES, WIRE_ACTION_TYPES,
    WIRE_SELECTOR_KINDS, allowed_action_types, allowed_selector_kinds,
};
pub use options::{REASON_MAX_CHARS, RETRY_DEFAULT, TAB_FIELD, options_from_wire, tab_from_wire};
pub use payload::{
    ATTRIBUTE_NAME_MAX_CHARS, NAVIGATE_URL_MAX_CHARS, WAIT_MAX_MS, action_from_json,
    action_from_record, action_from_wire,
};
pub use selector::{is_element_ref, selector_from_wire};

#[cfg(test)]
mod tests;
