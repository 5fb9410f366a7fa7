//! Content patterns: redaction of secrets in any text that leaves for the model or the log
//! (`extract`, `assert` messages, observed values, every string of a result line), whatever
//! field or element it came from. Secret *fields* are recognized by structure
//! ([`crate::dom::secret`]) and never read at all; this is the second line, for secrets shown
//! as ordinary text.
//!
//! The rule, deliberately simple and biased towards redacting:
//! - **Card-like numbers**: a run of 13 to 19 digits, optionally grouped by single spaces or
//!   hyphens (`4111 1111 1111 1111`), becomes `[redacted card number]`. Every Luhn-valid card
//!   number is such a run; no Luhn check is made, so a long order number is redacted too, which
//!   costs less than leaking a card number (and the output cannot tell valid from invalid).
//! - **IBANs**: two letters, two digits and 11 to 30 letters or digits (spaces between groups
//!   allowed) whose ISO 13616 mod-97 checksum holds become `[redacted iban]`.
//! - **Token-like words**: a word (split on whitespace, quotes, brackets, `,;:<>|`) of at least
//!   24 characters made only of letters, digits and `-_.+/=`, holding a letter and a digit, and
//!   starting with a known key prefix (`sk-`, `sk_live_`, `pk_live_`, `rk_live_`, `ghp_`, `gho_`,
//!   `ghs_`, `github_pat_`, `xoxb-`, `xoxp-`, `AKIA`, `AIza`, `eyJ` for JWTs), or mixing lower
//!   case, upper case and digits, becomes `[redacted token]`; so does, in any letter case, a
//!   part of a word between `/`, `?`, `&`, `=`, `#` of at least 20 letters and digits (other
//!   than `-_`) with at least 6 digits and 6 letters (hex keys, lower- or upper-case recovery
//!   codes, UUID-like ids).
//! - **Secret parameters in addresses**: the value of a parameter whose name looks secret
//!   (`?password=…`, `#access_token=…`, `&otp=…`) becomes `[redacted]`
//!   ([`crate::protocol::secret_query`]); first, so the other patterns see the marker only.

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

/// `text` with card-like numbers, IBANs and token-like words replaced.
pub fn redact_secrets(text: &str) -> String {
    redact_secrets_naming(text, &[])
}

/// [`redact_secrets`], and the values of address parameters named in `secret_names` (the names
/// of secret fields the pages met had, [`crate::dom::address`]).
pub fn redact_secrets_naming(text: &str, secret_names: &[&str]) -> String {
    let text = crate::protocol::secret_query::redact_secret_query_values(text, secret_names);
    redact_tokens(&redact_numbers(&redact_ibans(&text)))
}

/// Whether `candidate` (letters and digits only, upper case) is an IBAN by its checksum.
pub fn is_iban(candidate: &str) -> bool {
    let bytes = candidate.as_bytes();
    if !(15..=34).contains(&bytes.len())
        || !bytes.iter().take(2).all(u8::is_ascii_uppercase)
        || !bytes.iter().skip(2).take(2).all(u8::is_ascii_digit)
        || !bytes.iter().all(u8::is_ascii_alphanumeric)
    {
        return false;
    }
    let rearranged = bytes.iter().skip(4).chain(bytes.iter().take(4));
    let mut remainder: u32 = 0;
    for b in rearranged {
        let value = if b.is_ascii_digit() {
            u32::from(b - b'0')
        } else {
            u32::from(b.to_ascii_uppercase() - b'A') + 10
        };
        remainder = if value >= 10 {
            (remainder * 100 + value) % 97
        } else {
            (remainder * 10 + value) % 97
        };
    }
    remainder == 1
}

/// Replaces IBANs: a letter pair and two digits starting a word, then groups of letters and
/// digits separated by single spaces, checked by [`is_iban`].
fn redact_ibans(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let starts = (i == 0 || chars.get(i - 1).is_some_and(|c| !c.is_alphanumeric()))
            && chars.get(i).is_some_and(char::is_ascii_alphabetic)
            && chars.get(i + 1).is_some_and(char::is_ascii_alphabetic)
            && chars.get(i + 2).is_some_and(char::is_ascii_digit)
            && chars.get(i + 3).is_some_and(char::is_ascii_digit);
        if starts {
            // The longest IBAN-looking stretch; then the longest prefix of it that checks out.
            let mut compact = String::new();
            let mut ends = Vec::new();
            let mut j = i;
            while j < chars.len() && compact.len() < 34 {
                match chars.get(j) {
                    Some(c) if c.is_ascii_alphanumeric() => {
                        compact.push(c.to_ascii_uppercase());
                        j += 1;
                        ends.push((compact.len(), j));
                    }
                    Some(' ') if chars.get(j + 1).is_some_and(char::is_ascii_alphanumeric) => {
                        j += 1;
                    }
                    _ => break,
                }
            }
            let found = ends.iter().rev().find(|(len, end)| {
                let boundary = chars.get(*end).is_none_or(|c| !c.is_ascii_alphanumeric());
                boundary && compact.get(..*len).is_some_and(is_iban)
            });
            if let Some((_, end)) = found {
                out.push_str("[redacted iban]");
                i = *end;
                continue;
            }
        }
        if let Some(c) = chars.get(i) {
            out.push(*c);
        }
        i += 1;
    }
    out
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
                out.push_str("[redacted card number]");
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
        // Parts of a URL or query string, in any letter case.
        let mut part = String::new();
        for c in word.chars() {
            if "/?&=#".contains(c) {
                push_part(out, &part);
                part.clear();
                out.push(c);
            } else {
                part.push(c);
            }
        }
        push_part(out, &part);
    }
    word.clear();
}

fn push_part(out: &mut String, part: &str) {
    if looks_like_random_code(part) {
        out.push_str("[redacted token]");
    } else {
        out.push_str(part);
    }
}

/// A long code in any letter case: at least 20 letters and digits besides `-` and `_`, with at
/// least 6 of each (hex keys, recovery codes, UUIDs).
pub fn looks_like_random_code(part: &str) -> bool {
    let part = part.trim_end_matches(['.', '!', '?']);
    if !part
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return false;
    }
    let digits = part.chars().filter(char::is_ascii_digit).count();
    let letters = part.chars().filter(char::is_ascii_alphabetic).count();
    digits + letters >= 20 && digits >= 6 && letters >= 6
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
