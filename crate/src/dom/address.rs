//! The page's address as the model may read it: [`crate::protocol::secret_query`] with the
//! names of the page's own secret fields. A password field named `xq7` in a form sent by GET
//! puts `?xq7=hunter2` in the address, and `xq7` is no word the pure rule knows; the page
//! says it is secret ([`super::secret_field::classify`], by structure, never the value).
//!
//! Hidden inputs are left out: their names (`id`, `page`, `lang`) are often a page's ordinary
//! parameters, and a token's name is caught by its words (`csrf`, `token`).

use std::cell::OnceCell;

use web_sys::Document;

use super::matching::{TextMatcher, normalize_whitespace};

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

/// Texts of one page redacted as the model is shown them: [`crate::dom::redact`] with the
/// page's secret field names and [`KNOWN_NAMES`] (what every string of a result goes
/// through), the names read once, when a text first holds a `=` (a page-wide field scan).
#[derive(Debug)]
pub struct Shown<'a> {
    document: &'a Document,
    names: OnceCell<Vec<String>>,
}

impl<'a> Shown<'a> {
    /// The redaction for `document`'s texts.
    pub fn new(document: &'a Document) -> Self {
        Self {
            document,
            names: OnceCell::new(),
        }
    }

    /// `text` as the model is shown it.
    pub fn text(&self, text: &str) -> String {
        if !may_redact(text) {
            return text.to_owned();
        }
        if !text.contains('=') {
            return super::redact::redact_secrets(text);
        }
        let names = self.names.get_or_init(|| {
            let mut names = secret_field_names(self.document);
            KNOWN_NAMES.with(|known| names.extend(known.borrow().iter().cloned()));
            names
        });
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        super::redact::redact_secrets_naming(text, &names)
    }

    /// Whether `matcher`, which matched `raw` (an element's text or name), also matches it as
    /// the model is shown it ([`crate::policy::selector_reads::matches_shown`]): a text-like
    /// selector matches only then, so whether it matches depends only on what observe shows,
    /// and guesses at a redacted part (a reset token, a card number) all answer `not_found`.
    /// Asked only of what matched `raw`: few elements, and the redaction of a short text.
    pub fn still_matches(&self, matcher: &TextMatcher, raw: &str) -> bool {
        self.still_matches_parts(matcher, &[raw])
    }

    /// [`Self::still_matches`] for a text made of `parts` (the text engine's element: the
    /// stretches its descendants' texts start and end at). The parts are redacted joined by
    /// [`ELEMENT_BREAK`], which ends a card number, a token or a parameter's value as a space
    /// does, so what is redacted in a descendant's own text stays redacted in its ancestors'
    /// (`<p>card 4111 1111 1111 1111</p><p>second</p>`: the section's text, read in one,
    /// would run the number into a word and show it); the breaks are taken out again before
    /// matching. Redacted both as read and with each part's whitespace normalized (a card
    /// number broken by a line break, or one a zero-width space splits, is one number only in
    /// the one or the other reading); it must match in both.
    pub fn still_matches_parts(&self, matcher: &TextMatcher, parts: &[&str]) -> bool {
        // Most names and texts: nothing redaction could change, and no marker to read.
        if !parts
            .iter()
            .any(|part| may_redact(part) || crate::policy::selector_reads::has_marker(part))
        {
            return true;
        }
        let break_text = ELEMENT_BREAK.to_string();
        let as_read = parts.join(&break_text);
        let normalized: Vec<String> = parts
            .iter()
            .map(|part| normalize_whitespace(part))
            .filter(|part| !part.is_empty())
            .collect();
        let normalized = normalized.join(&break_text);
        [as_read, normalized].iter().all(|text| {
            let shown = self.text(text);
            // Unchanged: the match that already held (a page's own `[redacted` text is
            // read as a marker all the same).
            (shown == *text && !crate::policy::selector_reads::has_marker(text))
                || matcher.matches_shown(&shown)
        })
    }
}

impl Shown<'_> {
    /// Whether `text` (normalized), as the model is shown it, contains `wanted` (normalized;
    /// case-sensitive), reading nothing of a redaction marker, or, `whole`, equals it: as
    /// [`Shown::still_matches`], so `assert` and `wait_for` on text answer no guess at a
    /// redacted part. Redacted only when `text` holds `wanted` at all.
    pub fn holds_text(&self, text: &str, wanted: &str, whole: bool) -> bool {
        let raw = if whole {
            text == wanted
        } else {
            text.contains(wanted)
        };
        raw && crate::policy::selector_reads::matches_shown(&self.text(text), whole, |piece| {
            if whole {
                piece == wanted
            } else {
                piece.contains(wanted)
            }
        })
    }
}

/// Whether redaction may change `text` at all, by what every rule of [`crate::dom::redact`]
/// needs: a `=` (a parameter's value) or an `@` (an address's user information;
/// `secret_query`'s own fast path says the same), 13 digits (a card number), or a digit in 15
/// bytes or more (an IBAN: 15 characters, two of them digits; a token: 24 with a digit; a
/// long code: 20 with 6 digits). One pass over the bytes instead of the redaction's four, and
/// most names and short texts ("Save 12", "Item 1500") stop here.
pub fn may_redact(text: &str) -> bool {
    let mut digits = 0;
    for b in text.bytes() {
        if b == b'=' || b == b'@' {
            return true;
        }
        if b.is_ascii_digit() {
            digits += 1;
        }
    }
    digits >= 13 || (digits >= 1 && text.len() >= 15)
}

/// What [`Shown::still_matches_parts`] puts between an element's parts: a space to redaction
/// (a word break, the end of a digit run or of a parameter's value), taken out before
/// matching. A paragraph separator: whitespace, and almost never in a page's text.
pub const ELEMENT_BREAK: char = '\u{2029}';
