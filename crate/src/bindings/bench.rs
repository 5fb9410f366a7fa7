//! Benchmark entry points for `scripts/bench`, built only with the `bench` feature (never in the
//! extension).
//!
//! `bench_selector` times the selector engines inside the page, so the figure holds no protocol
//! round trip: the same work a `BAI_ACTION` pays to find its target, minus the action itself.
//! `bench_observe` times and sizes `observe` (figure 8, beside Playwright's aria snapshot).
//! `bench_names` times accessible names (figure 9, beside dom-accessibility-api).

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::dom::selector::{QueryRoot, query_all};
use crate::protocol::record::Capability;
use crate::protocol::validate::selector_from_wire;

/// What [`bench_selector`] returns (as JSON).
#[derive(Debug, Serialize)]
struct SelectorTimings {
    /// Elements matched (the same every run).
    count: usize,
    /// Milliseconds per run, in run order.
    times_ms: Vec<f64>,
}

/// Runs `query_all` for `selector_json` (a protocol selector, e.g.
/// `{"type":"role","value":"button","name":"Save 42"}`) `runs` times over the current document,
/// timing each run with `performance.now()`. Resolves to `{"count": n, "times_ms": [...]}`.
#[allow(unreachable_pub, reason = "exported to JS by wasm-bindgen")]
#[wasm_bindgen]
pub fn bench_selector(selector_json: &str, runs: u32) -> Result<String, JsError> {
    let value: serde_json::Value =
        serde_json::from_str(selector_json).map_err(|error| JsError::new(&error.to_string()))?;
    let selector = selector_from_wire(&value, Some(Capability::ALL))
        .map_err(|refusal| JsError::new(&refusal.to_string()))?;
    let performance = web_sys::window()
        .and_then(|window| window.performance())
        .ok_or_else(|| JsError::new("no performance clock"))?;
    let root = QueryRoot::current().ok_or_else(|| JsError::new("no document"))?;
    let mut times_ms = Vec::with_capacity(runs as usize);
    let mut count = 0;
    for _ in 0..runs {
        let started = performance.now();
        let found = query_all(&root, &selector).map_err(|error| JsError::new(&error.reason))?;
        times_ms.push(performance.now() - started);
        count = found.len();
    }
    serde_json::to_string(&SelectorTimings { count, times_ms })
        .map_err(|error| JsError::new(&error.to_string()))
}

/// Times `QueryRoot::all_elements` (the walk over every element, into shadow roots and
/// same-origin iframes, that the non-CSS engines start from) `runs` times: the floor under
/// [`bench_selector`] for those engines. Resolves to `{"count": n, "times_ms": [...]}`.
#[allow(unreachable_pub, reason = "exported to JS by wasm-bindgen")]
#[wasm_bindgen]
pub fn bench_tree_walk(runs: u32) -> Result<String, JsError> {
    let performance = web_sys::window()
        .and_then(|window| window.performance())
        .ok_or_else(|| JsError::new("no performance clock"))?;
    let root = QueryRoot::current().ok_or_else(|| JsError::new("no document"))?;
    let mut times_ms = Vec::with_capacity(runs as usize);
    let mut count = 0;
    for _ in 0..runs {
        let started = performance.now();
        count = root.all_elements().len();
        times_ms.push(performance.now() - started);
    }
    serde_json::to_string(&SelectorTimings { count, times_ms })
        .map_err(|error| JsError::new(&error.to_string()))
}

/// What [`bench_observe`] returns (as JSON).
#[derive(Debug, Serialize)]
struct ObserveTimings {
    /// Characters (Unicode scalar values) of the observation serialized as JSON, as the
    /// extension's binding returns it (`url`, `title`, `elements`, and `more` when not zero).
    json_chars: usize,
    /// Lines listed (at most the budget).
    lines: usize,
    /// Elements found.
    total: usize,
    /// Elements found but not listed.
    more: usize,
    /// Milliseconds per run (observe + JSON serialization), in run order.
    times_ms: Vec<f64>,
    /// The last observation itself, so the figure can show what was measured.
    observation: crate::dom::Observation,
}

/// Runs `dom::observe(max_elements)` (0 means the default budget) `runs` times over the current
/// document and serializes each observation to JSON, timing each run with `performance.now()`.
/// Resolves to `{"json_chars", "lines", "total", "more", "times_ms", "observation"}`.
#[allow(unreachable_pub, reason = "exported to JS by wasm-bindgen")]
#[wasm_bindgen]
pub fn bench_observe(max_elements: u32, runs: u32) -> Result<String, JsError> {
    let performance = web_sys::window()
        .and_then(|window| window.performance())
        .ok_or_else(|| JsError::new("no performance clock"))?;
    let mut times_ms = Vec::with_capacity(runs as usize);
    let mut last = None;
    for _ in 0..runs.max(1) {
        let started = performance.now();
        let observation = crate::dom::observe(max_elements);
        let json = serde_json::to_string(&observation)
            .map_err(|error| JsError::new(&error.to_string()))?;
        times_ms.push(performance.now() - started);
        last = Some((observation, json.chars().count()));
    }
    let (observation, json_chars) = last.ok_or_else(|| JsError::new("no run"))?;
    serde_json::to_string(&ObserveTimings {
        json_chars,
        lines: observation.elements.len(),
        total: observation.total,
        more: observation.more,
        times_ms,
        observation,
    })
    .map_err(|error| JsError::new(&error.to_string()))
}

/// What [`bench_names`] returns (as JSON).
#[derive(Debug, Serialize)]
struct NameTimings {
    /// Elements named per run.
    count: usize,
    /// Milliseconds per run (every element of the body named once), in run order.
    times_ms: Vec<f64>,
    /// The names of the last run, in document order, to compare with another implementation.
    names: Vec<String>,
}

/// Computes the accessible name (`dom::accname::accessible_name_with`, as the selectors and
/// observe call it) of every element in `<body>`, `runs` times, timing each run with
/// `performance.now()`. Resolves to `{"count", "times_ms", "names"}`.
#[allow(unreachable_pub, reason = "exported to JS by wasm-bindgen")]
#[wasm_bindgen]
pub fn bench_names(runs: u32) -> Result<String, JsError> {
    let performance = web_sys::window()
        .and_then(|window| window.performance())
        .ok_or_else(|| JsError::new("no performance clock"))?;
    let root = QueryRoot::current().ok_or_else(|| JsError::new("no document"))?;
    let body = root
        .document
        .body()
        .ok_or_else(|| JsError::new("no body"))?;
    let list = body.get_elements_by_tag_name("*");
    let elements: Vec<web_sys::Element> = (0..list.length()).filter_map(|i| list.item(i)).collect();
    let mut times_ms = Vec::with_capacity(runs as usize);
    let mut names = Vec::new();
    for _ in 0..runs.max(1) {
        let started = performance.now();
        names = elements
            .iter()
            .map(|element| crate::dom::accname::accessible_name_with(&root.shadow, element))
            .collect();
        times_ms.push(performance.now() - started);
    }
    serde_json::to_string(&NameTimings {
        count: elements.len(),
        times_ms,
        names,
    })
    .map_err(|error| JsError::new(&error.to_string()))
}

/// The accessible name and role of each of `elements` (anywhere: shadow roots included), as
/// the role and aria selectors compute them (inside the style-sheet scan over the document and
/// each element's shadow root): `[[name, role], ...]` as JSON, role "" for none. For
/// bench/browser/accname-fuzz.mjs, which compares them with the browsers'.
#[allow(unreachable_pub, reason = "exported to JS by wasm-bindgen")]
#[wasm_bindgen]
pub fn bench_name_role(elements: Vec<web_sys::Element>) -> Result<String, JsError> {
    use wasm_bindgen::JsCast;
    let root = QueryRoot::current().ok_or_else(|| JsError::new("no document"))?;
    let mut scopes: Vec<web_sys::Node> = vec![root.document.clone().into()];
    for element in &elements {
        let node = element.get_root_node();
        if node.is_instance_of::<web_sys::ShadowRoot>() && !scopes.contains(&node) {
            scopes.push(node);
        }
    }
    let out: Vec<(String, String)> =
        crate::dom::accname::with_generated_content_scan(&scopes, || {
            elements
                .iter()
                .map(|element| {
                    (
                        crate::dom::accname::accessible_name_with(&root.shadow, element),
                        crate::dom::roles::role_of(element).unwrap_or_default(),
                    )
                })
                .collect()
        });
    serde_json::to_string(&out).map_err(|error| JsError::new(&error.to_string()))
}
