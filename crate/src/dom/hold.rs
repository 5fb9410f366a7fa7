//! Elements held across the user's question. When the safety review asks, the element it looked
//! at is kept here under a random id, with the action and what the review saw; the user's Allow
//! comes back with that id, and the action then runs on exactly that element (after checking it
//! is unchanged), never on whatever its selector matches by then.
//!
//! A hold is used once, lives at most [`HOLD_LIFETIME_MS`], and the table keeps at most
//! [`MAX_HOLDS`] (the oldest goes first). Stop drops them all.

use std::cell::RefCell;

use web_sys::Element;

use super::error::ActionError;
use crate::policy::TargetFacts;

/// How long an approval may take before its hold is dropped (the question stays open no longer
/// than this in practice).
pub const HOLD_LIFETIME_MS: f64 = 10.0 * 60.0 * 1000.0;

/// Most holds kept at once (one action waits for an answer at a time per workflow; a few
/// workflows may share a page).
pub const MAX_HOLDS: usize = 16;

/// What the action was reviewed on.
#[derive(Debug, Clone, PartialEq)]
pub enum Pin {
    /// Nothing on the page (`navigate`, `scroll`, a key with nothing focused).
    Nothing,
    /// The element its selector resolved to.
    Element(Element),
    /// `press_key` without a selector: the element that had the focus, which must still have it.
    Focused(Element),
}

impl Pin {
    /// The element, if any.
    pub fn element(&self) -> Option<&Element> {
        match self {
            Self::Nothing => None,
            Self::Element(element) | Self::Focused(element) => Some(element),
        }
    }
}

/// One action waiting for the user's answer.
#[derive(Debug, Clone)]
pub struct Hold {
    /// The action as the review saw it: the approved call must be the same (compared as
    /// values, not as serialized JSON, so the executor's wasm needs no serializer for actions).
    pub action: crate::protocol::Action,
    /// What it acts on.
    pub pin: Pin,
    /// What the review saw (the fingerprint the element must still match); `None` when there was
    /// no element to look at.
    pub facts: Option<TargetFacts>,
}

struct Entry {
    id: String,
    hold: Hold,
    created_ms: f64,
}

thread_local! {
    static HOLDS: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

/// Keeps `hold` and returns its id (128 bits from the browser's CSPRNG). Fails only when the
/// page has no `crypto.getRandomValues`: then nothing is held and the action does not run.
pub fn keep(hold: Hold, now_ms: f64) -> Result<String, ActionError> {
    let id = random_id().ok_or_else(|| ActionError::Script {
        detail: "no crypto.getRandomValues to name the held element".to_owned(),
    })?;
    HOLDS.with(|holds| {
        let mut holds = holds.borrow_mut();
        holds.retain(|entry| now_ms - entry.created_ms < HOLD_LIFETIME_MS);
        while holds.len() >= MAX_HOLDS {
            holds.remove(0);
        }
        holds.push(Entry {
            id: id.clone(),
            hold,
            created_ms: now_ms,
        });
    });
    Ok(id)
}

/// Takes the hold `id` out of the table (it is used once), if it is there and not expired.
pub fn take(id: &str, now_ms: f64) -> Option<Hold> {
    HOLDS.with(|holds| {
        let mut holds = holds.borrow_mut();
        let position = holds.iter().position(|entry| entry.id == id)?;
        let entry = holds.remove(position);
        (now_ms - entry.created_ms < HOLD_LIFETIME_MS).then_some(entry.hold)
    })
}

/// Drops every hold (Stop).
pub fn drop_all() {
    HOLDS.with(|holds| holds.borrow_mut().clear());
}

/// How many holds are kept now.
pub fn count() -> usize {
    HOLDS.with(|holds| holds.borrow().len())
}

/// `h_` and 32 hex digits from `crypto.getRandomValues`.
fn random_id() -> Option<String> {
    let crypto = js_sys::Reflect::get(&js_sys::global(), &"crypto".into()).ok()?;
    let get_random_values: js_sys::Function = wasm_bindgen::JsCast::dyn_into(
        js_sys::Reflect::get(&crypto, &"getRandomValues".into()).ok()?,
    )
    .ok()?;
    let bytes = js_sys::Uint8Array::new_with_length(16);
    get_random_values.call1(&crypto, &bytes).ok()?;
    let mut id = String::from("h_");
    for byte in bytes.to_vec() {
        id.push_str(&format!("{byte:02x}"));
    }
    Some(id)
}
