//! Benchmark entry points for `scripts/bench` (not used by the extension itself).
//!
//! `bench_selector` times the selector engines inside the page, so the figure holds no protocol
//! round trip: the same work a `BAI_ACTION` pays to find its target, minus the action itself.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::dom::selector::{QueryRoot, query_all};
use crate::protocol::Selector;

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
    let selector: Selector =
        serde_json::from_str(selector_json).map_err(|error| JsError::new(&error.to_string()))?;
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
