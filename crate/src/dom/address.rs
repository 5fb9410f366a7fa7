//! The page's address as the model may read it: [`crate::protocol::secret_query`] with the
//! names of the page's own secret fields. A password field named `xq7` in a form sent by GET
//! puts `?xq7=hunter2` in the address, and `xq7` is no word the pure rule knows; the page
//! says it is secret ([`super::secret_field::classify`], by structure, never the value).
//!
//! Hidden inputs are left out: their names (`id`, `page`, `lang`) are often a page's ordinary
//! parameters, and a token's name is caught by its words (`csrf`, `token`).

use web_sys::Document;

use super::secret::SecretScan;
use super::tree::{QueryRoot, ShadowAccess};

thread_local! {
    /// Secret field names of pages met before this one, given with the running action: the
    /// page a login form sent by GET led to has no field named like its password's, yet its
    /// address holds the password under that name.
    static KNOWN_NAMES: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Sets the names of [`KNOWN_NAMES`] from `json` (a list of strings; anything else: none).
pub fn set_known_names(json: &str) {
    let mut names = Vec::new();
    crate::protocol::secret_query::remember_names(
        &mut names,
        crate::protocol::json::read_plain(json).ok().as_ref(),
    );
    KNOWN_NAMES.with(|known| *known.borrow_mut() = names);
}

/// The names of `document`'s secret fields (not hidden inputs), each once, in every scope
/// (shadow roots, same-origin frames): see [`super::secret::SecretScan::field_names`].
pub fn secret_field_names(document: &Document) -> Vec<String> {
    let root = QueryRoot {
        document: document.clone(),
        shadow: ShadowAccess::detect(),
    };
    SecretScan::of(&root).field_names()
}

/// `text` (an address read from `document`, or a message quoting one) redacted as any text
/// is, and the values of parameters named like one of the page's secret fields (or one of
/// [`KNOWN_NAMES`]) too.
pub fn redact_address(text: &str, document: &Document) -> String {
    // Without `=` there is no parameter: the page's fields are not looked at.
    let mut names = if text.contains('=') {
        secret_field_names(document)
    } else {
        Vec::new()
    };
    KNOWN_NAMES.with(|known| names.extend(known.borrow().iter().cloned()));
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    crate::protocol::secret_query::redact_secret_query_values(text, &names)
}

/// [`redact_address`] against the current document (none: the generic rule only).
pub fn redact_address_here(text: &str) -> String {
    match web_sys::window().and_then(|w| w.document()) {
        Some(document) => redact_address(text, &document),
        None => crate::protocol::secret_query::redact_secret_query_values(text, &[]),
    }
}

/// `document`'s own address, redacted ([`redact_address`]).
pub fn page_address(document: &Document) -> String {
    let href = document
        .location()
        .and_then(|l| l.href().ok())
        .unwrap_or_default();
    redact_address(&href, document)
}
