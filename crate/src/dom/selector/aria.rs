//! `aria`: elements whose accessible name (W3C accname) matches; case-insensitive substring
//! unless `exact`. Only elements that can carry a name are considered (a role other than
//! generic/none, or a naming attribute), and hidden ones never match; nor does an element whose
//! name may carry a secret field's value. A name must match also as the model is shown it
//! ([`Shown::still_matches`]: a guess at a redacted part of it never matches).

use std::cell::Cell;

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, Node};

use super::{QueryRoot, SelectorEngine, SelectorError};
use crate::dom::accname::{
    accessible_name_unnormalized, generated_content_absent, with_generated_content_scan,
};
use crate::dom::address::Shown;
use crate::dom::js;
use crate::dom::matching::{TextMatcher, fold_for_containment};
use crate::dom::roles::role_of;
use crate::dom::secret::{SecretScan, classify};
use crate::dom::tree::{CssFilter, as_document, as_element};
use crate::dom::visibility::is_hidden_for_accessibility;
use crate::protocol::Selector;
use crate::protocol::join::join;

/// From how many names (role) or walked elements (aria) a query first reads the page's style
/// sheets (see [`with_generated_content_scan`]).
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
        // Many elements (so, most often, many names): first prove, if the page allows, that no
        // element has CSS generated content (two style reads saved per name, and the leaf
        // pre-filter allowed). Decided on the walk's count, before the candidates are
        // fetched: which candidates are fetched depends on the proof.
        let many = walked.elements.len() > SCAN_STYLES_ABOVE;
        let shown = Shown::new(&root.document);
        let name_all = || {
            // Only now is it known whether generated content was proved absent.
            let leaves = PREFILTER
                .with(Cell::get)
                .then(|| TextOnlyLeaves::new(&selector.value, &walked.scopes))
                .flatten();
            if leaves.is_some() {
                RUNS.with(|n| n.set(n.get() + 1));
            }
            // One selector drops what cannot have a name before any attribute is read; when
            // no leaf can match, it leaves them out too.
            let (candidates, leaves) = match leaves.as_ref().and_then(|l| l.others.as_ref()) {
                Some(others) => (walked.matching(others), None),
                None => (
                    walked.matching(&CssFilter::new(&name_candidates_css())),
                    leaves,
                ),
            };
            candidates
                .into_iter()
                // A leaf whose name can only be its own text, when the text cannot hold the
                // value, is dropped before anything else is read (two calls into the page).
                .filter(|element| leaves.as_ref().is_none_or(|l| l.may_match(element)))
                .filter(can_have_name)
                // The name first: few elements match, and the secret-field and hidden checks
                // walk ancestors. (The matcher normalizes the name's whitespace.)
                .filter(|element| {
                    let name = accessible_name_unnormalized(&root.shadow, element);
                    matcher.matches(&name) && shown.still_matches(&matcher, &name)
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
        Ok(if many {
            with_generated_content_scan(&walked.scopes, name_all)
        } else {
            name_all()
        })
    }
}

/// Tags whose name, on an element without a naming attribute or `role` and without element
/// children, is its own text or nothing (`accname::named` for the root): no name from the host
/// language (an HTML `<a>`'s; an SVG `<a>` is named by a `<title>` child, which a leaf has not),
/// no shadow root (none of them can host one: `tree::can_host_shadow`), so their content is
/// their child nodes. `<button>` joins them where no `<label>` can name it ([`TextOnlyLeaves`]).
const TEXT_ONLY_TAGS: &str = "a, li, td, th, summary";

/// The attributes that can give one of [`TEXT_ONLY_TAGS`] a name other than its text, or add
/// to it (`aria-owns`), or change its role (`role`).
const NAMING_ATTRIBUTES: &str =
    "[aria-label], [aria-labelledby], [aria-labeledby], [aria-owns], [role], [title]";

/// A sound pre-filter for the frequent candidates whose name can only be their own text: a
/// link, a button, a list item, a cell with text and no element inside (the leaf's text and
/// the computed name then hold the same characters, the name with spaces added between text
/// nodes, or the name is empty: not named from content, withheld for a secret). Such a leaf
/// whose text does not contain the value (both folded by [`fold_for_containment`]) cannot
/// match and is dropped without computing its name; every other candidate, and every leaf that
/// may match, gets the full computation, so the answer is the full computation's.
///
/// It holds only while nothing but the DOM's text can enter such a name: no CSS generated
/// content (proved for the query, [`generated_content_absent`]), no CDATA section in the page
/// (`textContent` includes one, a name skips it: text around it would be joined in the text
/// but not in the name), no `<label>` for a button. Otherwise there is no filter.
struct TextOnlyLeaves {
    /// Matches the leaves: `:is(tags):not(attributes, :has(> *))`. A browser without `:has`
    /// throws, which [`CssFilter::matches`] answers as no match: every element then gets the
    /// full computation.
    filter: CssFilter,
    /// The selector's value, folded.
    needle: String,
    /// Whether the text of some scope contains it. A leaf's text is a substring of its
    /// scope's `textContent` (its text nodes are consecutive there: no element child, and no
    /// CDATA section anywhere), so when none does, no leaf can match and none is read.
    in_some_text: bool,
    /// When no leaf can match (and the browser knows `:has`): a selector for every candidate
    /// of [`name_candidates_css`] but the leaves (and a few more that [`can_have_name`]
    /// drops), so the leaves are not even fetched.
    others: Option<CssFilter>,
}

impl TextOnlyLeaves {
    fn new(value: &str, scopes: &[Node]) -> Option<Self> {
        if !generated_content_absent() {
            return None;
        }
        let needle = fold_for_containment(value);
        if needle.is_empty() || scopes.iter().any(has_cdata_section) {
            return None;
        }
        // A label names a button only in its own tree (its `for` target or the labelable
        // element inside it): one scope without labels would be enough for its buttons, but
        // one answer for the page is simpler.
        let mut labels = false;
        for scope in scopes {
            for element in elements_in(scope, LABELS_AND_TEXT_FIELDS)? {
                let tag = element.local_name();
                if tag == "label" {
                    labels = true;
                } else if !matches!(tag.as_str(), "input" | "select")
                    && classify(&element).is_some()
                {
                    // A secret field whose value is text (an editor, a textarea's default
                    // text, a widget's content): the filter reads the page's text, so which
                    // path a query takes, and its time, would depend on the secret. No filter:
                    // the choice depends on the page's structure only.
                    return None;
                }
            }
        }
        let tags = if labels {
            TEXT_ONLY_TAGS.to_owned()
        } else {
            format!("{TEXT_ONLY_TAGS}, button")
        };
        let in_some_text = scopes
            .iter()
            .any(|scope| fold_for_containment(&scope_text(scope)).contains(&needle));
        // Not a leaf: a tag that is no nameless one and no leaf, or a naming attribute (a
        // superset of the attributes in `name_candidates_css`).
        let others = (!in_some_text)
            .then(|| {
                // One compound per tag (`a:not(:has(> *))`): a faster query than
                // `:is(a, ...):not(:has(> *))` in Chromium (2.0 against 2.2 ms on figure 4's
                // page).
                let leaves: Vec<String> = tags
                    .split(", ")
                    .map(|tag| format!("{tag}:not(:has(> *))"))
                    .collect();
                format!(
                    ":not({}, {}), {NAMING_ATTRIBUTES}",
                    join(NAMELESS_TAGS, ", "),
                    join(&leaves, ", ")
                )
            })
            .filter(|css| selector_supported(scopes, css))
            .map(|css| CssFilter::new(&css));
        Some(Self {
            filter: CssFilter::new(&format!(":is({tags}):not({NAMING_ATTRIBUTES}, :has(> *))")),
            needle,
            in_some_text,
            others,
        })
    }

    /// False only for a leaf whose name provably does not match.
    fn may_match(&self, element: &Element) -> bool {
        if !self.filter.matches(element) {
            return true;
        }
        let may = self.in_some_text && {
            let text = element.text_content().unwrap_or_default();
            fold_for_containment(&text).contains(&self.needle)
        };
        if !may {
            DROPPED.with(|n| n.set(n.get() + 1));
        }
        may
    }
}

/// The text of every text node in `scope` (a document's root element's `textContent`, a
/// shadow root's own).
fn scope_text(scope: &Node) -> String {
    let node = match as_document(scope) {
        Some(document) => document.document_element().map(Node::from),
        None => Some(scope.clone()),
    };
    node.and_then(|n| n.text_content()).unwrap_or_default()
}

thread_local! {
    /// Whether [`TextOnlyLeaves`] may run (tests compare the answers with and without it).
    static PREFILTER: Cell<bool> = const { Cell::new(true) };
    /// How many leaves it dropped one by one (tests check that it ran).
    static DROPPED: Cell<usize> = const { Cell::new(0) };
    /// How many queries it ran in.
    static RUNS: Cell<usize> = const { Cell::new(0) };
}

/// Runs `query` with the aria engine's leaf pre-filter off: every candidate's name is
/// computed. For tests that compare the two answers.
#[doc(hidden)]
pub fn without_prefilter<R>(query: impl FnOnce() -> R) -> R {
    let before = PREFILTER.with(|flag| flag.replace(false));
    let out = query();
    PREFILTER.with(|flag| flag.set(before));
    out
}

/// How many candidates the leaf pre-filter has dropped in this thread so far (tests check
/// that it ran).
#[doc(hidden)]
pub fn prefilter_dropped() -> usize {
    DROPPED.with(Cell::get)
}

/// How many queries the leaf pre-filter has run in, in this thread so far (tests check that
/// it ran, or did not).
#[doc(hidden)]
pub fn prefilter_runs() -> usize {
    RUNS.with(Cell::get)
}

/// `NodeFilter.SHOW_CDATA_SECTION`.
const SHOW_CDATA_SECTION: u32 = 0x8;

/// Whether `scope` (a document or shadow root) holds a CDATA section (only an XML document
/// makes one; a page can adopt one from it).
pub(super) fn has_cdata_section(scope: &Node) -> bool {
    let document = match scope.owner_document() {
        Some(document) => JsValue::from(document),
        None => JsValue::from(scope.clone()),
    };
    let walker = js::call(
        &document,
        "createTreeWalker",
        &[
            JsValue::from(scope.clone()),
            JsValue::from(SHOW_CDATA_SECTION),
        ],
    );
    let Ok(Some(walker)) = walker else {
        // Unknown: assume one.
        return true;
    };
    !matches!(js::call(&walker, "nextNode", &[]), Ok(Some(node)) if node.is_null())
}

/// Whether the browser parses `css` (tried with `matches` on the first scope's root element:
/// `querySelectorAll` with a selector it does not know would throw).
fn selector_supported(scopes: &[Node], css: &str) -> bool {
    let Some(root) = scopes.first().and_then(|scope| match as_document(scope) {
        Some(document) => document.document_element(),
        None => scope.first_child().and_then(|n| as_element(&n).cloned()),
    }) else {
        return false;
    };
    js::call(&root, "matches", &[JsValue::from_str(css)]).is_ok()
}

/// Labels, and the elements whose text may be a secret field's value (a select's options are
/// static text; an input has none): [`TextOnlyLeaves`] is off when one of them is a secret.
const LABELS_AND_TEXT_FIELDS: &str = "label, textarea, [contenteditable], [role]";

/// `scope.querySelectorAll(css)` as elements, `None` when the call fails.
fn elements_in(scope: &Node, css: &str) -> Option<Vec<Element>> {
    let Ok(Some(list)) = js::call(scope, "querySelectorAll", &[JsValue::from_str(css)]) else {
        return None;
    };
    let list: &web_sys::NodeList = list.unchecked_ref();
    Some(
        (0..list.length())
            .filter_map(|i| list.item(i))
            .filter_map(|node| as_element(&node).cloned())
            .collect(),
    )
}

/// A CSS selector for a superset of the elements [`can_have_name`] accepts: a naming or `role`
/// attribute, or any tag but a few frequent ones that have no role a name can come from
/// ([`NAMELESS_TAGS`]). A short negation is a faster query than the list of every tag with a
/// role (about 50: 2.6 ms against 1.3 ms on figure 4's 10,000 elements in Chromium); the rare
/// other tags pass here and are dropped by [`can_have_name`].
pub fn name_candidates_css() -> String {
    format!(
        ":not({}), [aria-label], [aria-labelledby], [title], [role]",
        join(NAMELESS_TAGS, ", ")
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
