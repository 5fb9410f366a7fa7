//! The element ref registry: `@e12` ↔ element, per document.
//!
//! `observe` (and failure hints) hand refs to the model; the `ref` selector engine turns them
//! back into elements. A ref is only honoured while it identifies the same element it was issued
//! for: the element is still in the page and its fingerprint (tag, role, accessible name, `type`
//! and `name` attributes) is unchanged. Anything else fails closed with `stale_ref`.
//!
//! Numbers are never reused within a document. A new document (navigation) forgets every ref but
//! keeps counting up, and the extension carries the counter across page loads of a tab with
//! [`set_ref_floor`] / [`next_ref_number`], so a ref from an old page can never name an element
//! of the new one.

use std::cell::RefCell;

use crate::protocol::sorted_map::SortedMap;

use wasm_bindgen::JsValue;
use web_sys::{Document, Element};

use super::roles::role_of;
use super::secret::SecretScan;
use super::tree::ShadowAccess;

/// What a ref was issued for; compared again when the ref is used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// `button`, `input`...
    pub tag: String,
    /// The ARIA role, or empty.
    pub role: String,
    /// The accessible name.
    pub name: String,
    /// The `type` and `name` attributes, `type/name`.
    pub attributes: String,
}

impl Fingerprint {
    /// The fingerprint of `element` now.
    pub fn of(shadow: &ShadowAccess, element: &Element) -> Self {
        Self {
            tag: element.local_name(),
            role: role_of(element).unwrap_or_default(),
            // Withheld (empty) when the name may carry a secret field's value: a stale ref must
            // not tell that the secret changed.
            name: super::tree::QueryRoot::current()
                .and_then(|root| SecretScan::of(&root).safe_name(shadow, element))
                .unwrap_or_default(),
            attributes: format!(
                "{}/{}",
                element.get_attribute("type").unwrap_or_default(),
                element.get_attribute("name").unwrap_or_default()
            ),
        }
    }

    /// `button "Save"`: how messages name what a ref used to be.
    pub fn summary(&self) -> String {
        let what = if self.role.is_empty() {
            &self.tag
        } else {
            &self.role
        };
        if self.name.is_empty() {
            what.clone()
        } else {
            format!("{what} \"{}\"", self.name)
        }
    }
}

#[derive(Debug)]
struct Entry {
    element: Element,
    fingerprint: Fingerprint,
}

#[derive(Debug, Default)]
struct Registry {
    /// The document the entries belong to.
    document: Option<Document>,
    /// element → ref number, without keeping elements alive through the map itself.
    numbers: Option<js_sys::WeakMap>,
    entries: SortedMap<u32, Entry>,
    /// The next number to issue; 0 until the first one (then at least 1).
    next: u32,
    /// The lines of the latest observation, by ref number (the baseline of the next diff).
    last_lines: Option<Lines>,
}

/// An observation's lines by ref number.
pub(crate) type Lines = SortedMap<u32, String>;

thread_local! {
    static REGISTRY: RefCell<Registry> = RefCell::new(Registry::default());
}

impl Registry {
    /// Forgets every ref when the document changed (not the counter).
    fn sync(&mut self, document: &Document) {
        if self.document.as_ref() != Some(document) {
            self.document = Some(document.clone());
            self.numbers = Some(js_sys::WeakMap::new());
            self.entries.clear();
            self.last_lines = None;
        }
    }

    fn issue(&mut self) -> u32 {
        let n = self.next.max(1);
        self.next = n.saturating_add(1);
        n
    }
}

fn current_document() -> Option<Document> {
    web_sys::window()?.document()
}

/// The ref number of `element`, issuing a new one if it has none. An element whose fingerprint
/// changed (renamed, another role) gets a new number: its old ref keeps the old fingerprint, so
/// the model's `@eN` for "Show preview" fails as stale when the element now says "Share
/// publicly", even if no observation listed the change.
pub(crate) fn ref_for(element: &Element, fingerprint: Fingerprint) -> u32 {
    let Some(document) = current_document() else {
        return 0;
    };
    REGISTRY.with(|cell| {
        let Ok(mut registry) = cell.try_borrow_mut() else {
            return 0;
        };
        registry.sync(&document);
        let known = registry
            .numbers
            .as_ref()
            .and_then(|map| map.get(element).as_f64())
            .map(|n| n as u32)
            .filter(|n| registry.entries.get(*n).is_some());
        let unchanged = known.filter(|n| {
            registry
                .entries
                .get(*n)
                .is_some_and(|entry| entry.fingerprint == fingerprint)
        });
        if let Some(n) = unchanged {
            return n;
        }
        let n = registry.issue();
        if let Some(map) = &registry.numbers {
            map.set(element, &JsValue::from(n));
        }
        registry.entries.insert(
            n,
            Entry {
                element: element.clone(),
                fingerprint,
            },
        );
        n
    })
}

/// Why a ref cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// The element, still attached and with the same fingerprint.
    Found(Element),
    /// The element left the page (it was `what`).
    Detached(String),
    /// The element is there but is now something else.
    Changed {
        /// What it was.
        was: String,
        /// What it is now.
        now: String,
    },
    /// Never issued in this document.
    Unknown,
}

/// Looks up ref number `n` and checks it still identifies the same element.
pub(crate) fn lookup(shadow: &ShadowAccess, n: u32) -> Lookup {
    let Some(document) = current_document() else {
        return Lookup::Unknown;
    };
    let entry = REGISTRY.with(|cell| {
        let Ok(mut registry) = cell.try_borrow_mut() else {
            return None;
        };
        registry.sync(&document);
        registry
            .entries
            .get(n)
            .map(|e| (e.element.clone(), e.fingerprint.clone()))
    });
    let Some((element, recorded)) = entry else {
        return Lookup::Unknown;
    };
    if !element.is_connected() {
        return Lookup::Detached(recorded.summary());
    }
    let now = Fingerprint::of(shadow, &element);
    if now == recorded {
        Lookup::Found(element)
    } else {
        Lookup::Changed {
            was: recorded.summary(),
            now: now.summary(),
        }
    }
}

/// What ref number `n` was issued for, if it was (for hints after a `stale_ref`).
pub(crate) fn recorded(n: u32) -> Option<Fingerprint> {
    REGISTRY.with(|cell| {
        cell.try_borrow()
            .ok()
            .and_then(|r| r.entries.get(n).map(|e| e.fingerprint.clone()))
    })
}

/// Replaces the baseline of the next diff; returns the previous one (`None` when this document
/// was not observed yet).
pub(crate) fn swap_last_lines(lines: Lines) -> Option<Lines> {
    let document = current_document()?;
    REGISTRY.with(|cell| {
        let mut registry = cell.try_borrow_mut().ok()?;
        registry.sync(&document);
        registry.last_lines.replace(lines)
    })
}

/// Makes the next ref number at least `n` (the extension passes the number it stored for the
/// tab, so refs stay unique across page loads).
pub fn set_ref_floor(n: u32) {
    REGISTRY.with(|cell| {
        if let Ok(mut registry) = cell.try_borrow_mut() {
            registry.next = registry.next.max(n);
        }
    });
}

/// The number the next new ref will get (store it per tab; pass it to [`set_ref_floor`] after a
/// page load).
pub fn next_ref_number() -> u32 {
    REGISTRY.with(|cell| cell.try_borrow().map_or(1, |r| r.next.max(1)))
}

/// Whether this document was observed (a diff against that observation means something).
pub fn has_baseline() -> bool {
    let Some(document) = current_document() else {
        return false;
    };
    REGISTRY.with(|cell| {
        cell.try_borrow_mut().is_ok_and(|mut registry| {
            registry.sync(&document);
            registry.last_lines.is_some()
        })
    })
}

/// Parses `@e12` (or `e12`) into 12.
pub fn parse_ref(text: &str) -> Option<u32> {
    let text = text.trim();
    let digits = text.strip_prefix('@').unwrap_or(text).strip_prefix('e')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|n| *n > 0)
}

/// `@e12`.
pub fn format_ref(n: u32) -> String {
    format!("@e{n}")
}
