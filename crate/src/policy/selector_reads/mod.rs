//! Which selectors could read what a field holds. On a page with a secret field, a CSS or XPath
//! selector that tests a value (an attribute a page may copy the value into, a pseudo-class such
//! as `:placeholder-shown`, an element's text) answers a yes/no question about the secret each
//! time it is tried: the executor refuses it before it is evaluated (`dom::secret`).
//!
//! Both analyses read the selector as the browser does, with a tokenizer of the selector
//! language, not by searching its text: comments, escapes and strings are where a
//! hand-made scanner and the browser disagree, and each disagreement is a way past the guard
//! (`:/**/placeholder-shown`, `.\"` that opens no string, `['4821'=.]`). Pure, so the rules
//! are tested natively; whether a refusal happens depends only on the selector and on which
//! secret fields the page has, never on what they hold.

mod css;
mod xpath;

pub use css::{css_reads, css_tests_tab_stop, css_value_test};
pub use xpath::{xpath_reads, xpath_tests_tab_stop, xpath_value_test};

/// Why a selector may test a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueTest {
    /// An attribute compared with a value (`[value^="a"]`, `@data-v`), lower-cased.
    Attribute(String),
    /// A pseudo-class that is not known to be structural (`:placeholder-shown`, `:checked`,
    /// or one this analysis does not know).
    PseudoClass(String),
    /// XPath reading an element's text (`text()`, `string(.)`, a comparison with `.`…).
    Text(String),
    /// A class that frameworks set from what a field holds or whether it is chosen
    /// (`ng-empty`, `is-checked`, `StripeElement--complete`, `MuiFormLabel-filled`).
    StateClass(String),
}

/// Attributes that say what a field is, never what it holds: tests on them are allowed.
const STRUCTURAL_ATTRIBUTES: &[&str] = &[
    "id",
    "name",
    "type",
    "class",
    "role",
    "autocomplete",
    "placeholder",
    "aria-label",
    "aria-labelledby",
    "aria-describedby",
    "aria-required",
    "aria-disabled",
    "aria-hidden",
    "title",
    "for",
    "form",
    "href",
    "src",
    "alt",
    "lang",
    "dir",
    "tabindex",
    "inputmode",
    "maxlength",
    "minlength",
    "size",
    "pattern",
    "required",
    "disabled",
    "readonly",
    "autofocus",
    "spellcheck",
    "autocapitalize",
    "enterkeyhint",
    "data-testid",
    "data-test-id",
    "data-test",
    "data-qa",
    "data-cy",
    "style",
    "hidden",
    "contenteditable",
    "method",
    "action",
];

/// Words in a class name that frameworks use for a field's state derived from its value:
/// empty or filled (Angular's `ng-empty`/`ng-not-empty`, MUI's `-filled` and `-shrink`),
/// valid, dirty or complete (Angular, Bootstrap's `is-invalid`, Stripe's `--complete`), checked
/// or selected (Element's `is-checked`), a password's strength. On a page with a secret field a
/// class test with one of them is a test of the value.
const STATE_CLASS_WORDS: &[&str] = &[
    "empty", "filled", "checked", "selected", "valid", "dirty", "pristine", "touched", "value",
    "strength", "weak", "strong", "shrink", "complete",
];

/// Whether a class name (or a `class` attribute's compared text) names a field's state.
pub fn is_state_class(class: &str) -> bool {
    let class = class.to_ascii_lowercase();
    crate::words!(STATE_CLASS_WORDS)
        .iter()
        .any(|word| class.contains(word))
}

/// Whether reading attribute `name` tells what a field is, never what it holds.
pub fn is_structural_attribute(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name != "value" && crate::words!(STRUCTURAL_ATTRIBUTES).contains(&name)
}
