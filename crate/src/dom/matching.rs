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
}
