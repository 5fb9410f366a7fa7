//! Redaction of obvious secrets in text read from the page (`extract`, `assert` messages,
//! observed values) before it goes back to the model.
//!
//! The rule, deliberately simple and biased towards redacting:
//! - **Card-like numbers**: a run of 13 to 19 digits, optionally grouped by single spaces or
//!   hyphens (`4111 1111 1111 1111`), becomes `[redacted number]`. No Luhn check: a long order
//!   number is redacted too, which costs less than leaking a card number.
//! - **Token-like words**: a word (split on whitespace, quotes, brackets, `,;:<>`) of at least
//!   24 characters made only of letters, digits and `-_.+/=`, holding a letter and a digit, and
//!   either starting with a known key prefix (`sk-`, `sk_live_`, `pk_live_`, `rk_live_`, `ghp_`,
//!   `gho_`, `ghs_`, `github_pat_`, `xoxb-`, `xoxp-`, `AKIA`, `AIza`, `eyJ` for JWTs) or mixing
//!   lower case, upper case and digits, becomes `[redacted token]`.
//!
//! Password field values are never read at all (callers replace them with
//! [`REDACTED_PASSWORD`]).

/// What a password field's value reads as.
pub const REDACTED_PASSWORD: &str = "[redacted password]";

const KEY_PREFIXES: &[&str] = &[
    "sk-",
    "sk_live_",
    "sk_test_",
    "pk_live_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghs_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
    "AKIA",
    "AIza",
    "eyJ",
];

const MIN_TOKEN_CHARS: usize = 24;

/// `text` with card-like numbers and token-like words replaced.
pub fn redact_secrets(text: &str) -> String {
    redact_tokens(&redact_numbers(text))
}

fn redact_numbers(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let starts_run = chars.get(i).is_some_and(char::is_ascii_digit)
            && (i == 0 || chars.get(i - 1).is_some_and(|c| !c.is_ascii_alphanumeric()));
        if starts_run {
            // Extend over digits and single separators between digits.
            let mut end = i;
            let mut digits = 0;
            let mut j = i;
            while j < chars.len() {
                match chars.get(j) {
                    Some(c) if c.is_ascii_digit() => {
                        digits += 1;
                        j += 1;
                        end = j;
                    }
                    Some(' ' | '-')
                        if chars.get(j + 1).is_some_and(char::is_ascii_digit) && digits > 0 =>
                    {
                        j += 1;
                    }
                    _ => break,
                }
            }
            let followed_by_word = chars.get(end).is_some_and(char::is_ascii_alphanumeric);
            if (13..=19).contains(&digits) && !followed_by_word {
                out.push_str("[redacted number]");
                i = end;
                continue;
            }
            out.extend(chars.get(i..end).unwrap_or_default());
            i = end.max(i + 1);
            continue;
        }
        if let Some(c) = chars.get(i) {
            out.push(*c);
        }
        i += 1;
    }
    out
}

fn is_word_break(c: char) -> bool {
    c.is_whitespace() || "\"'`()[]{}<>,;:|".contains(c)
}

fn redact_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars() {
        if is_word_break(c) {
            flush_word(&mut out, &mut word);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush_word(&mut out, &mut word);
    out
}

fn flush_word(out: &mut String, word: &mut String) {
    if looks_like_token(word) {
        out.push_str("[redacted token]");
    } else {
        out.push_str(word);
    }
    word.clear();
}

/// Whether `word` looks like an API key or access token (see the module rule).
pub fn looks_like_token(word: &str) -> bool {
    // Trailing sentence punctuation is not part of a token.
    let word = word.trim_end_matches(['.', '!', '?']);
    if word.chars().count() < MIN_TOKEN_CHARS {
        return false;
    }
    if !word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.+/=".contains(c))
    {
        return false;
    }
    let lower = word.chars().any(|c| c.is_ascii_lowercase());
    let upper = word.chars().any(|c| c.is_ascii_uppercase());
    let digit = word.chars().any(|c| c.is_ascii_digit());
    if !digit || !(lower || upper) {
        return false;
    }
    KEY_PREFIXES.iter().any(|p| word.starts_with(p)) || (lower && upper)
}
