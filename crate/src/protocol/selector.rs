//! How an action names its target element.
//!
//! On the wire a selector is either a bare string (CSS, in both protocol versions) or an object
//! `{"type": KIND, "value": STRING, ...}`. The DOM layer turns a [`Selector`] into elements; this
//! module only describes and validates it, without any DOM.

use serde::Serialize;

/// Which engine resolves a selector. Adding a kind is one variant here and one engine file in
/// `dom::selector`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SelectorKind {
    /// `document.querySelectorAll`, descending into shadow roots and same-origin iframes.
    Css,
    /// `document.evaluate`.
    Xpath,
    /// Accessible name (W3C accname), case-insensitive substring unless `exact`.
    Aria,
    /// Visible text, innermost matching element.
    Text,
    /// ARIA role (explicit or implicit), optionally with an accessible `name`.
    Role,
    /// Text of an associated `<label>`, `aria-label` or `aria-labelledby`.
    Label,
    /// The `placeholder` attribute.
    Placeholder,
    /// Exact `data-testid`.
    TestId,
    /// A ref (`@e12`) from the latest `observe` of the target tab; fails closed with `stale_ref`
    /// when it no longer identifies the same element.
    Ref,
}

impl SelectorKind {
    /// The wire name (`"css"`, `"test_id"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Css => "css",
            Self::Xpath => "xpath",
            Self::Aria => "aria",
            Self::Text => "text",
            Self::Role => "role",
            Self::Label => "label",
            Self::Placeholder => "placeholder",
            Self::TestId => "test_id",
            Self::Ref => "ref",
        }
    }
}

/// A validated selector. Serialized in the wire's object form; read back with
/// [`super::validate::selector_from_wire`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Selector {
    /// The engine.
    #[serde(rename = "type")]
    pub kind: SelectorKind,
    /// What to look for: CSS text, XPath, a name, a text, a role.
    pub value: String,
    /// For `role`: the accessible name to match (substring unless `exact`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Match case-sensitively and in full instead of as a case-insensitive substring.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
    /// Pick the N-th match (0-based) instead of failing when several elements match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
}

impl Selector {
    /// A CSS selector, as a bare string on the wire means.
    pub fn css(value: impl Into<String>) -> Self {
        Self {
            kind: SelectorKind::Css,
            value: value.into(),
            name: None,
            exact: false,
            index: None,
        }
    }

    /// A selector of any kind with no options.
    pub fn new(kind: SelectorKind, value: impl Into<String>) -> Self {
        Self {
            kind,
            value: value.into(),
            name: None,
            exact: false,
            index: None,
        }
    }
}
