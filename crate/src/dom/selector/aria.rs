//! `aria`: elements whose accessible name (W3C accname) matches; case-insensitive substring
//! unless `exact`. Only elements that can carry a name are considered (a role other than
//! generic/none, or a naming attribute), and hidden ones never match; nor does an element whose
//! name may carry a secret field's value.

use web_sys::Element;

use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::accname::{accessible_name_unnormalized, with_generated_content_scan};
use crate::dom::js;
use crate::dom::matching::TextMatcher;
use crate::dom::roles::role_of;
use crate::dom::secret::SecretScan;
use crate::dom::tree::CssFilter;
use crate::dom::visibility::is_hidden_for_accessibility;
use crate::protocol::Selector;

/// From how many names a query first reads the page's style sheets (see
/// [`with_generated_content_scan`]).
pub(crate) const SCAN_STYLES_ABOVE: usize = 32;

/// The accessible-name engine.
#[derive(Debug, Clone, Copy)]
pub struct AriaEngine;

impl SelectorEngine for AriaEngine {
    fn query_all(
        &self,
        root: &QueryRoot,
        selector: &Selector,
    ) -> Result<Vec<Element>, SelectorError> {
        let matcher = TextMatcher::new(&selector.value, selector.exact);
        let walked = root.walk();
        // One selector drops what cannot have a name before any attribute is read.
        let candidates = CssFilter::new(&name_candidates_css());
        let candidates: Vec<Element> = walked
            .matching(&candidates)
            .into_iter()
            .filter(can_have_name)
            .collect();
        let many = candidates.len() > SCAN_STYLES_ABOVE;
        let name_all = || {
            candidates
                .into_iter()
                // The name first: few elements match, and the secret-field and hidden checks
                // walk ancestors. (The matcher normalizes the name's whitespace.)
                .filter(|element| {
                    matcher.matches(&accessible_name_unnormalized(&root.shadow, element))
                })
                // A name that may carry a secret field's value never matches (see `secret`).
                // Checked only for the names that matched, with the fields that bear on each
                // (the same answer as a scan of the whole page, which would classify every
                // field for every query); the names that did not match are dropped here.
                .filter(|element| {
                    !SecretScan::for_name_of(&walked, element).name_may_include_secret(element)
                })
                .filter(|element| !is_hidden_for_accessibility(element))
                .collect()
        };
        // Many names: first prove, if the page allows, that no element has CSS generated
        // content (two style reads saved per name).
        Ok(if many {
            with_generated_content_scan(&walked.scopes, name_all)
        } else {
            name_all()
        })
    }
}

/// A CSS selector for a superset of the elements [`can_have_name`] accepts: a naming or `role`
/// attribute, or any tag but a few frequent ones that have no role a name can come from
/// ([`NAMELESS_TAGS`]). A short negation is a faster query than the list of every tag with a
/// role (about 50: 2.6 ms against 1.3 ms on figure 4's 10,000 elements in Chromium); the rare
/// other tags pass here and are dropped by [`can_have_name`].
pub fn name_candidates_css() -> String {
    format!(
        ":not({}), [aria-label], [aria-labelledby], [title], [role]",
        NAMELESS_TAGS.join(", ")
    )
}

/// Frequent tags whose implicit role is none, generic, or one of
/// [`NAMED_ONLY_BY_ATTRIBUTES`]: without a naming attribute they never have a name (checked
/// against `roles::implicit_tags` by a test in `tests/browser_selector_aria.rs`).
const NAMELESS_TAGS: &[&str] = &[
    "div", "span", "p", "i", "b", "em", "strong", "small", "label", "br", "code", "pre", "script",
    "style", "path", "g", "use",
];

/// Elements whose name is prohibited or always empty are skipped (and never computed).
pub(crate) fn can_have_name(element: &Element) -> bool {
    if js::has_attribute(element, "aria-label") || js::has_attribute(element, "aria-labelledby") {
        return true;
    }
    match role_of(element) {
        None => js::has_attribute(element, "title"),
        Some(role) if NAMED_ONLY_BY_ATTRIBUTES.contains(&role.as_str()) => {
            js::has_attribute(element, "title")
        }
        Some(_) => true,
    }
}

/// Roles whose name is prohibited or never comes from content: an element with one of them
/// (or none) has a name only from `aria-label`, `aria-labelledby` or `title`.
const NAMED_ONLY_BY_ATTRIBUTES: &[&str] = &[
    "generic",
    "none",
    "presentation",
    "paragraph",
    "code",
    "strong",
    "emphasis",
    "subscript",
    "superscript",
    "deletion",
    "insertion",
    "time",
    "caption",
];
