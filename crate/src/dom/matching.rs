//! Text normalization and matching shared by the text-based engines.

/// Strips zero-width spaces and soft hyphens, trims, and collapses whitespace runs to one space.
pub fn normalize_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c == '\u{200b}' || c == '\u{00ad}' {
            continue;
        }
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(c);
    }
    out
}

/// Matches normalized text: case-insensitive substring by default, case-sensitive equality when
/// exact.
#[derive(Debug, Clone)]
pub struct TextMatcher {
    needle: String,
    exact: bool,
}

impl TextMatcher {
    /// A matcher for `value`.
    pub fn new(value: &str, exact: bool) -> Self {
        let normalized = normalize_whitespace(value);
        let needle = if exact {
            normalized
        } else {
            normalized.to_lowercase()
        };
        Self { needle, exact }
    }

    /// Whether `haystack` (normalized here) matches.
    pub fn matches(&self, haystack: &str) -> bool {
        let haystack = normalize_whitespace(haystack);
        if self.exact {
            haystack == self.needle
        } else {
            haystack.to_lowercase().contains(&self.needle)
        }
    }

    /// Whether it matches `shown`, a text as redacted for the model, reading nothing of its
    /// redaction markers ([`crate::policy::selector_reads::matches_shown`]), with the breaks
    /// between an element's parts ([`crate::dom::address::ELEMENT_BREAK`]) taken out.
    pub fn matches_shown(&self, shown: &str) -> bool {
        let element_break = crate::dom::address::ELEMENT_BREAK;
        crate::policy::selector_reads::matches_shown(shown, self.exact, |piece| {
            if piece.contains(element_break) {
                self.matches(&piece.replace(element_break, ""))
            } else {
                self.matches(piece)
            }
        })
    }
}

/// `text` with every character [`normalize_whitespace`] may drop or insert removed (whitespace,
/// zero-width spaces, soft hyphens) and the rest case-folded one character at a time: upper
/// case, then lower case, twice (so ß, ẞ and SS, ς and σ fold alike). A sound pre-filter for
/// [`TextMatcher`]: when `matches(name)` holds, `fold_for_containment(name)` contains
/// `fold_for_containment(value)`, in either mode, and `name` may be any text whose fold equals
/// this one's: the same characters with spaces added or removed between them, or with any of
/// them upper- or lower-cased (CSS `text-transform`, which names follow, shows "straße" as
/// "STRASSE"). It holds because the fold maps each character on its own (so a substring folds
/// to a substring) and folding a character's upper or lower case gives the character's own
/// fold (checked for every Unicode scalar value); `str::to_lowercase`'s one context-dependent
/// mapping, Σ at a word's end, folds like σ.
pub fn fold_for_containment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    fold_each(text, |c| {
        out.push(c);
        true
    });
    out
}

/// Whether `needle` (a [`fold_for_containment`] result) is a subsequence of `text`'s fold: its
/// characters appear there in order, not necessarily together. A sound pre-filter for text
/// that may lose pieces: when `text` with some pieces taken out folds to something containing
/// `needle`, `text` passes (the fold maps each character on its own, so the shorter text's fold
/// is the longer one's with characters taken out). Stops at the first character that completes
/// `needle`.
pub fn fold_has_subsequence(text: &str, needle: &str) -> bool {
    let mut wanted = needle.chars();
    let Some(mut next) = wanted.next() else {
        return true;
    };
    let mut found = false;
    fold_each(text, |c| {
        if c != next {
            return true;
        }
        match wanted.next() {
            Some(after) => {
                next = after;
                true
            }
            None => {
                found = true;
                false
            }
        }
    });
    found
}

/// Calls `emit` with each character of [`fold_for_containment`]`(text)` in order, until it
/// answers `false`.
fn fold_each(text: &str, mut emit: impl FnMut(char) -> bool) {
    let bytes = text.as_bytes();
    let mut at = 0;
    // Byte by byte through ASCII (most of a page's text), a character at a time otherwise.
    while let Some(&byte) = bytes.get(at) {
        if byte.is_ascii() {
            // `char::is_whitespace` in ASCII: tab, line feed, vertical tab, form feed,
            // carriage return, space (`u8::is_ascii_whitespace` leaves out the vertical tab).
            if !matches!(byte, b'\t'..=b'\r' | b' ') && !emit(char::from(byte.to_ascii_lowercase()))
            {
                return;
            }
            at += 1;
            continue;
        }
        let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) else {
            break;
        };
        at += c.len_utf8();
        if c.is_whitespace() || c == '\u{200b}' || c == '\u{00ad}' {
            continue;
        }
        // Twice: one round can land on a character whose own fold differs (ẞ, the capital
        // sharp s, lowercases to ß, which upper-cases to SS).
        for upper in c.to_uppercase() {
            for lower in upper.to_lowercase() {
                for upper_again in lower.to_uppercase() {
                    for folded in upper_again.to_lowercase() {
                        if !emit(folded) {
                            return;
                        }
                    }
                }
            }
        }
    }
}
