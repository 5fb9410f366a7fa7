//! `ref`: an element ref (`@e12`) issued by `observe` or a failure hint. Resolves only while the
//! ref identifies the same element (see [`crate::dom::refs`]); otherwise `stale_ref`, never a
//! fallback to whatever now looks similar.

use web_sys::Element;

use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::error::ActionError;
use crate::dom::refs::{Lookup, format_ref, lookup, parse_ref};
use crate::protocol::Selector;

/// The ref engine.
#[derive(Debug, Clone, Copy)]
pub struct RefEngine;

impl SelectorEngine for RefEngine {
    /// The element, or no match when it left the page; a changed element is an error.
    fn query_all(
        &self,
        root: &QueryRoot,
        selector: &Selector,
    ) -> Result<Vec<Element>, SelectorError> {
        match query(root, selector) {
            Ok(found) => Ok(found),
            Err(error) => Err(SelectorError::new(error.message())),
        }
    }
}

/// The element `selector` (a ref) names, failing closed with `stale_ref` when the ref is unknown
/// in this document, the element left the page, or it changed.
pub(crate) fn resolve(root: &QueryRoot, selector: &Selector) -> Result<Element, ActionError> {
    let n = number(selector)?;
    match lookup(&root.shadow, n) {
        Lookup::Found(element) => Ok(element),
        Lookup::Detached(was) => Err(ActionError::StaleRef {
            reference: format_ref(n),
            reason: format!("the {was} it named was removed from the page"),
        }),
        other => Err(stale(n, other)),
    }
}

/// Like [`resolve`], but an element that left the page is "no match" rather than an error:
/// `wait_for` a ref to be detached, `assert` it is absent.
pub(crate) fn query(root: &QueryRoot, selector: &Selector) -> Result<Vec<Element>, ActionError> {
    let n = number(selector)?;
    match lookup(&root.shadow, n) {
        Lookup::Found(element) => Ok(vec![element]),
        Lookup::Detached(_) => Ok(Vec::new()),
        other => Err(stale(n, other)),
    }
}

fn number(selector: &Selector) -> Result<u32, ActionError> {
    parse_ref(&selector.value).ok_or_else(|| ActionError::InvalidSelector {
        selector: super::describe_selector(selector),
        reason: "a ref looks like @e12 (from the latest observation)".to_owned(),
        position: Some(0),
    })
}

fn stale(n: u32, lookup: Lookup) -> ActionError {
    let reason = match lookup {
        Lookup::Changed { was, now } => format!("it was {was} and is now {now}"),
        Lookup::Detached(was) => format!("the {was} it named was removed from the page"),
        Lookup::Unknown | Lookup::Found(_) => {
            "it was not issued on this page; the page changed or reloaded since the observation"
                .to_owned()
        }
    };
    ActionError::StaleRef {
        reference: format_ref(n),
        reason,
    }
}
