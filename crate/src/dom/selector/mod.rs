//! Selector engines: one per file behind [`SelectorEngine`], registered by [`SelectorKind`].
//!
//! Parsing and validation that need no DOM ([`validate`]) are pure and report the position of a
//! syntax error; [`resolve`] turns a selector into exactly one element or a typed error.

mod aria;
mod css;
mod label;
mod placeholder;
mod ref_engine;
mod role;
mod test_id;
mod text;
mod xpath;

use web_sys::Element;

use super::describe::describe;
use super::error::ActionError;
use super::roles::KNOWN_ROLES;
pub use super::tree::QueryRoot;
use crate::protocol::{Selector, SelectorKind};

pub use aria::{
    AriaEngine, name_candidates_css, prefilter_dropped, prefilter_runs, without_prefilter,
};
pub use css::CssEngine;
pub use label::LabelEngine;
pub use placeholder::PlaceholderEngine;
pub use ref_engine::RefEngine;
pub use role::RoleEngine;
pub use test_id::TestIdEngine;
pub use text::TextEngine;
pub use xpath::XpathEngine;

/// How many candidates an `ambiguous` error lists.
const MAX_CANDIDATES: usize = 5;

/// Why a selector cannot be evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError {
    /// What is wrong, in plain words.
    pub reason: String,
    /// Character offset in the selector's value, when there is syntax to point into.
    pub position: Option<usize>,
}

impl SelectorError {
    /// An error without a position.
    pub fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            position: None,
        }
    }

    /// An error at character `position`.
    pub fn at(reason: impl Into<String>, position: usize) -> Self {
        Self {
            reason: reason.into(),
            position: Some(position),
        }
    }
}

/// One way of finding elements.
pub trait SelectorEngine {
    /// Every element matching `selector` under `root`, in tree order.
    fn query_all(
        &self,
        root: &QueryRoot,
        selector: &Selector,
    ) -> Result<Vec<Element>, SelectorError>;
}

/// The engine for `kind`, or `None` for a kind this build does not know.
pub fn engine_for(kind: SelectorKind) -> Option<&'static dyn SelectorEngine> {
    #[allow(
        unreachable_patterns,
        reason = "the protocol layer may add kinds before engines exist"
    )]
    let engine: &'static dyn SelectorEngine = match kind {
        SelectorKind::Css => &CssEngine,
        SelectorKind::Xpath => &XpathEngine,
        SelectorKind::Aria => &AriaEngine,
        SelectorKind::Text => &TextEngine,
        SelectorKind::Role => &RoleEngine,
        SelectorKind::Label => &LabelEngine,
        SelectorKind::Placeholder => &PlaceholderEngine,
        SelectorKind::TestId => &TestIdEngine,
        SelectorKind::Ref => &RefEngine,
        _ => return None,
    };
    Some(engine)
}

/// `aria 'Email'`, `role button named 'Save'`: how messages name a selector.
pub fn describe_selector(selector: &Selector) -> String {
    let mut out = format!("{} '{}'", selector.kind.as_str(), selector.value);
    if let Some(name) = &selector.name {
        out.push_str(&format!(" named '{name}'"));
    }
    if let Some(index) = selector.index {
        out.push_str(&format!(" index {index}"));
    }
    out
}

/// Checks what can be checked without a DOM: empty values, balanced brackets and quotes in CSS
/// and XPath, known role names.
pub fn validate(selector: &Selector) -> Result<(), SelectorError> {
    if selector.value.trim().is_empty() {
        return Err(SelectorError::at("the value is empty", 0));
    }
    match selector.kind {
        SelectorKind::Css | SelectorKind::Xpath => check_balanced(&selector.value),
        SelectorKind::Ref => match super::refs::parse_ref(&selector.value) {
            Some(_) => Ok(()),
            None => Err(SelectorError::at(
                "a ref looks like @e12 (from the latest observation)",
                0,
            )),
        },
        SelectorKind::Role => {
            let role = selector.value.trim().to_ascii_lowercase();
            if KNOWN_ROLES.contains(&role.as_str()) {
                Ok(())
            } else {
                Err(SelectorError::at(
                    format!(
                        "'{}' is not an ARIA role (try button, link, textbox, checkbox, heading)",
                        selector.value
                    ),
                    0,
                ))
            }
        }
        _ => Ok(()),
    }
}

/// Finds unbalanced brackets, parentheses and quotes; the position is the offending character
/// (in characters, not bytes).
pub fn check_balanced(text: &str) -> Result<(), SelectorError> {
    let mut open: Vec<(char, usize)> = Vec::new();
    let mut quote: Option<(char, usize)> = None;
    let mut escaped = false;
    for (position, c) in text.chars().enumerate() {
        if let Some((q, _)) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\\' => escaped = !escaped,
            _ if escaped => escaped = false,
            '"' | '\'' => quote = Some((c, position)),
            '[' | '(' => open.push((c, position)),
            ']' | ')' => {
                let expected = if c == ']' { '[' } else { '(' };
                match open.pop() {
                    Some((o, _)) if o == expected => {}
                    Some((o, p)) => {
                        return Err(SelectorError::at(
                            format!("'{c}' does not close '{o}' opened at character {p}"),
                            position,
                        ));
                    }
                    None => {
                        return Err(SelectorError::at(format!("unexpected '{c}'"), position));
                    }
                }
            }
            _ => {}
        }
    }
    if let Some((q, position)) = quote {
        return Err(SelectorError::at(
            format!("unterminated {q} quote"),
            position,
        ));
    }
    if let Some((o, position)) = open.pop() {
        return Err(SelectorError::at(
            format!("'{o}' is never closed"),
            position,
        ));
    }
    Ok(())
}

/// Every element `selector` matches (validated first).
pub fn query_all(root: &QueryRoot, selector: &Selector) -> Result<Vec<Element>, SelectorError> {
    validate(selector)?;
    let Some(engine) = engine_for(selector.kind) else {
        return Err(SelectorError::new(format!(
            "selector type '{}' is not supported here",
            selector.kind.as_str()
        )));
    };
    engine.query_all(root, selector)
}

/// Exactly one element for `selector`: `not_found` for none, `ambiguous` for several (unless
/// `index` picks one), `invalid_selector` for syntax errors, `secret_field` (before anything is
/// evaluated) for a selector that could test a secret field's value.
pub fn resolve(root: &QueryRoot, selector: &Selector) -> Result<Element, ActionError> {
    if selector.kind == SelectorKind::Ref {
        // A ref names one element or fails closed; `index` does not apply.
        return ref_engine::resolve(root, selector);
    }
    super::secret::guard_selector(root, selector)?;
    let described = describe_selector(selector);
    let matches = query_all(root, selector).map_err(|e| ActionError::InvalidSelector {
        selector: described.clone(),
        reason: e.reason,
        position: e.position,
    })?;
    pick(matches, selector, described)
}

/// Every element `selector` matches, with the errors an action reports: `invalid_selector`, and
/// `stale_ref` for a ref that names something else now (a ref whose element left the page
/// matches nothing).
pub fn query_all_checked(
    root: &QueryRoot,
    selector: &Selector,
) -> Result<Vec<Element>, ActionError> {
    if selector.kind == SelectorKind::Ref {
        return ref_engine::query(root, selector);
    }
    super::secret::guard_selector(root, selector)?;
    query_all(root, selector).map_err(|e| ActionError::InvalidSelector {
        selector: describe_selector(selector),
        reason: e.reason,
        position: e.position,
    })
}

fn pick(
    matches: Vec<Element>,
    selector: &Selector,
    described: String,
) -> Result<Element, ActionError> {
    let count = matches.len();
    if let Some(index) = selector.index {
        return matches
            .into_iter()
            .nth(index as usize)
            .ok_or(if count == 0 {
                ActionError::NotFound {
                    selector: described.clone(),
                }
            } else {
                ActionError::IndexOutOfRange {
                    selector: described.clone(),
                    index,
                    count,
                }
            });
    }
    let mut iter = matches.into_iter();
    match (iter.next(), count) {
        (None, _) => Err(ActionError::NotFound {
            selector: described,
        }),
        (Some(only), 1) => Ok(only),
        (Some(first), _) => {
            let candidates = std::iter::once(first)
                .chain(iter)
                .take(MAX_CANDIDATES)
                .map(|e| describe(&e))
                .collect();
            Err(ActionError::Ambiguous {
                selector: described,
                count,
                candidates,
            })
        }
    }
}
