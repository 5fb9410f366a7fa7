//! The page's address as the model may read it: [`crate::protocol::secret_query`] with the
//! names of the page's own secret fields. A password field named `xq7` in a form sent by GET
//! puts `?xq7=hunter2` in the address, and `xq7` is no word the pure rule knows; the page
//! says it is secret ([`super::secret_field::classify`], by structure, never the value).
//!
//! Hidden inputs are left out: their names (`id`, `page`, `lang`) are often a page's ordinary
//! parameters, and a token's name is caught by its words (`csrf`, `token`).

use wasm_bindgen::JsCast;
use web_sys::{Document, NodeList};

use super::js;
use super::secret_field::{SecretKind, classify};
use super::tree::as_element;

/// Fields a form can send, with a name to send them under.
const NAMED_FIELDS: &str = "input[name], textarea[name], select[name]";

/// The names of `document`'s secret fields (not hidden inputs), each once.
pub fn secret_field_names(document: &Document) -> Vec<String> {
    let Ok(Some(list)) = js::call(document, "querySelectorAll", &[NAMED_FIELDS.into()]) else {
        return Vec::new();
    };
    let Some(list) = list.dyn_ref::<NodeList>() else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for node in (0..list.length()).filter_map(|i| list.item(i)) {
        let Some(element) = as_element(&node) else {
            continue;
        };
        if !classify(element).is_some_and(|kind| kind != SecretKind::HiddenValue) {
            continue;
        }
        if let Some(name) = js::attribute(element, "name").filter(|n| !names.contains(n)) {
            names.push(name);
        }
    }
    names
}

/// `text` (an address read from `document`, or a message quoting one) redacted as any text
/// is, and the values of parameters named like one of the page's secret fields too.
pub fn redact_address(text: &str, document: &Document) -> String {
    // Without `=` there is no parameter: the page's fields are not looked at.
    let names = if text.contains('=') {
        secret_field_names(document)
    } else {
        Vec::new()
    };
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
