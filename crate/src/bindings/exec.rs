//! Entry points of the executor role: the content script on a page a workflow targets (refs,
//! observation). Built with the `role-exec` feature; [`super::perform`]
//! runs the actions.

use wasm_bindgen::prelude::*;

/// Makes the next element ref number at least `n`: the background keeps one counter per tab, so
/// refs stay unique across the pages a tab shows and a ref from an earlier page never names an
/// element of a later one.
#[wasm_bindgen]
pub fn set_ref_floor(n: u32) {
    crate::dom::set_ref_floor(n);
}

/// The number the next new element ref will get (the background stores it per tab).
#[wasm_bindgen]
pub fn next_ref_number() -> u32 {
    crate::dom::next_ref_number()
}

/// Whether this page was observed (so a diff against that observation means something).
#[wasm_bindgen]
pub fn has_observation() -> bool {
    crate::dom::refs::has_baseline()
}

/// What changed since this page's last observation (JSON of [`crate::dom::ObservationDiff`]),
/// at most `max_elements` entries; makes the page as it is now the next baseline.
#[wasm_bindgen]
pub fn observe_changes(max_elements: u32) -> String {
    crate::dom::observe_changes(max_elements).to_json_string()
}

/// The names of the page's secret fields as a JSON list: the chat tab redacts the values under
/// these names from later addresses too (the next page's, after a form sent by GET).
#[wasm_bindgen]
pub fn secret_field_names() -> String {
    let names = web_sys::window()
        .and_then(|w| w.document())
        .map(|d| crate::dom::address::secret_field_names(&d))
        .unwrap_or_default();
    let mut out = String::new();
    crate::protocol::json_write::list(&mut out, &names, |out, name| {
        crate::protocol::json_write::string(out, name);
    });
    out
}

/// The page's address as the model may read it: secret parameters' values redacted, also
/// those named like one of the page's own secret fields ([`crate::dom::address`]).
#[wasm_bindgen]
pub fn page_url() -> String {
    web_sys::window()
        .and_then(|w| w.document())
        .map(|d| crate::dom::address::page_address(&d))
        .unwrap_or_default()
}
