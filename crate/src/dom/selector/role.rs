//! `role`: elements with the ARIA role `value` (explicit `role` attribute, else implicit) and,
//! when `name` is given, a matching accessible name (also as the model is shown it:
//! [`Shown::still_matches`]). Hidden elements never match.

use web_sys::Element;

use super::aria::SCAN_STYLES_ABOVE;
use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::accname::{accessible_name_unnormalized, with_generated_content_scan};
use crate::dom::address::Shown;
use crate::dom::matching::TextMatcher;
use crate::dom::roles::{role_candidates_css, role_of};
use crate::dom::secret::SecretScan;
use crate::dom::tree::CssFilter;
use crate::dom::visibility::is_hidden_for_accessibility;
use crate::protocol::Selector;

/// The role engine.
#[derive(Debug, Clone, Copy)]
pub struct RoleEngine;

impl SelectorEngine for RoleEngine {
    fn query_all(
        &self,
        root: &QueryRoot,
        selector: &Selector,
    ) -> Result<Vec<Element>, SelectorError> {
        let wanted = canonical(&selector.value.trim().to_ascii_lowercase());
        let matcher = selector
            .name
            .as_deref()
            .map(|name| TextMatcher::new(name, selector.exact));
        let walked = root.walk();
        // Cheapest first: one selector drops what cannot have the role, then the exact role,
        // then the name, then visibility (which walks the ancestors).
        let candidates = CssFilter::new(&role_candidates_css(&wanted));
        let with_role: Vec<Element> = walked
            .matching(&candidates)
            .into_iter()
            .filter(|element| role_of(element).is_some_and(|role| canonical(&role) == wanted))
            .collect();
        let many = matcher.is_some() && with_role.len() > SCAN_STYLES_ABOVE;
        let shown = Shown::new(&root.document);
        let name_all = || {
            with_role
                .into_iter()
                .filter(|element| match &matcher {
                    Some(matcher) => {
                        let name = accessible_name_unnormalized(&root.shadow, element);
                        matcher.matches(&name)
                            && shown.still_matches(matcher, &name)
                            // A name that may carry a secret field's value never matches
                            // (see `secret`). Checked only for the names that matched, with
                            // the fields that bear on each: the same answer as the whole
                            // page's scan, without classifying every field per query.
                            && !SecretScan::for_name_of(&walked, element)
                                .name_may_include_secret(element)
                    }
                    None => true,
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

fn canonical(role: &str) -> String {
    if role == "presentation" {
        "none".to_owned()
    } else {
        role.to_owned()
    }
}
