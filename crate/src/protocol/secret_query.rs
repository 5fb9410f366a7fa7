//! Secret values in addresses: `?email=ann%40example.com&password=hunter2` after a login form
//! was sent by GET, `#access_token=…` after an OAuth redirect, `;jsessionid=…`. Every string
//! that leaves for the model or the log goes through [`crate::dom::redact`], which calls
//! [`redact_secret_query_values`] first; so does the result line's `page.url`, an observed
//! link's address, the tab list and any message that quotes an address. Pure, so it is tested
//! natively.
//!
//! The rule: in any text, a parameter that follows `?`, `&`, `#` or `;` and whose name looks
//! secret (after percent-decoding and splitting `camelCase`, `snake_case`, `kebab-case`) keeps
//! its name and loses its value to [`REDACTED`], also when the value is empty (whether a
//! password was empty is a bit of it too). Names that merely hold such a word as part of a
//! longer word (`passenger`, `pinned`, `keyword`) stay readable, and so do a few ordinary
//! "codes" (`country_code`, `zip_code`).

/// What a secret parameter's value becomes: no spaces, so it stays one part of the address.
pub const REDACTED: &str = "[redacted]";

/// Words that make a parameter's name secret wherever they stand in it.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passwort",
    "pwd",
    "pw",
    "pass",
    "passe",
    "passphrase",
    "passcode",
    "kennwort",
    "motdepasse",
    "mdp",
    "contrasena",
    "contraseña",
    "senha",
    "wachtwoord",
    "haslo",
    "hasło",
    "heslo",
    "losenord",
    "lösenord",
    "salasana",
    "passord",
    "sifre",
    "şifre",
    "пароль",
    "secret",
    "token",
    "otp",
    "totp",
    "code",
    "pin",
    "pincode",
    "cvc",
    "cvc2",
    "cvv",
    "cvv2",
    "csc",
    "cvn",
    "cardnumber",
    "cardnum",
    "ccnumber",
    "ccnum",
    "iban",
    "ssn",
    "session",
    "sessionid",
    "sessid",
    "phpsessid",
    "jsessionid",
    "sid",
    "auth",
    "oauth",
    "authorization",
    "authcode",
    "credential",
    "credentials",
    "key",
    "apikey",
    "accesskey",
    "privatekey",
    "jwt",
    "bearer",
    "signature",
    "sig",
    "verifier",
    "recovery",
];

/// Words before `code` that make it an ordinary code, not a secret one.
const ORDINARY_CODES: &[&str] = &[
    "country", "postal", "post", "zip", "lang", "language", "locale", "currency", "error",
    "status", "response", "product", "item", "region", "area", "state", "airport", "color",
    "colour", "source", "qr", "bar", "barcode", "ean", "sku",
];

/// Words before `number`, `num`, `no` or `nr` that make it a card number.
const CARD_WORDS: &[&str] = &["card", "cc", "credit"];

/// The words of a parameter name, lower case: split at anything not a letter or digit, at
/// `camelCase` changes and between letters and digits.
fn name_words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word).to_lowercase());
            }
            continue;
        }
        let previous = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i + 1).copied();
        let boundary = previous.is_some_and(|p| {
            p.is_alphanumeric()
                && ((p.is_lowercase() && c.is_uppercase())
                    || (p.is_uppercase()
                        && c.is_uppercase()
                        && next.is_some_and(char::is_lowercase))
                    || (p.is_alphabetic() != c.is_alphabetic()))
        });
        if boundary && !word.is_empty() {
            out.push(std::mem::take(&mut word).to_lowercase());
        }
        word.push(c);
    }
    if !word.is_empty() {
        out.push(word.to_lowercase());
    }
    out
}

/// Whether a query parameter called `name` (as written in the address: percent-encoded, `+`
/// for spaces) carries a secret value, or `extra` names it (the page's own secret fields).
pub fn is_secret_parameter(name: &str, extra: &[&str]) -> bool {
    let decoded = crate::policy::percent_decode(&name.replace('+', " "));
    if extra
        .iter()
        .any(|known| !known.is_empty() && known.eq_ignore_ascii_case(decoded.trim()))
    {
        return true;
    }
    let words = name_words(&decoded);
    // The whole name glued (`ccNumber` -> `ccnumber`) is checked as well as each word.
    let joined: String = words.concat();
    if SECRET_WORDS.contains(&joined.as_str()) && joined != "code" {
        return true;
    }
    words.iter().enumerate().any(|(i, word)| {
        let before = i.checked_sub(1).and_then(|b| words.get(b));
        match word.as_str() {
            "code" => before.is_none_or(|b| !ORDINARY_CODES.contains(&b.as_str())),
            "number" | "num" | "no" | "nr" => {
                before.is_some_and(|b| CARD_WORDS.contains(&b.as_str()))
            }
            other => SECRET_WORDS.contains(&other),
        }
    })
}

/// Characters that end a parameter's value in an address written into text.
fn ends_value(c: char) -> bool {
    c.is_whitespace() || "&#;\"'`<>".contains(c)
}

/// `text` with the value of every secret parameter ([`is_secret_parameter`]) replaced by
/// [`REDACTED`]. `extra`: names of the page's secret fields, matched in any ASCII case.
pub fn redact_secret_query_values(text: &str, extra: &[&str]) -> String {
    // Fast path: no parameter can be in a text without `=`.
    if !text.contains('=') {
        return text.to_owned();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        out.push(c);
        i += 1;
        if !matches!(c, '?' | '&' | '#' | ';') {
            continue;
        }
        // A name: up to `=`, never across a separator or a space.
        let start = i;
        let mut end = i;
        while chars
            .get(end)
            .is_some_and(|&n| n != '=' && !ends_value(n) && n != '?')
        {
            end += 1;
        }
        if chars.get(end) != Some(&'=') || end == start {
            continue;
        }
        let name: String = chars.get(start..end).unwrap_or_default().iter().collect();
        if !is_secret_parameter(&name, extra) {
            continue;
        }
        out.push_str(&name);
        out.push('=');
        out.push_str(REDACTED);
        // A path parameter (`;jsessionid=…`) ends where the path or the query goes on.
        let in_path = c == ';';
        let mut value_end = end + 1;
        while chars
            .get(value_end)
            .is_some_and(|&v| !(ends_value(v) || (in_path && matches!(v, '/' | '?'))))
        {
            value_end += 1;
        }
        i = value_end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_get_login_address_loses_the_password_and_keeps_the_rest() {
        assert_eq!(
            redact_secret_query_values(
                "http://127.0.0.1:8080/page.html?email=ann%40example.com&password=hunter2",
                &[]
            ),
            "http://127.0.0.1:8080/page.html?email=ann%40example.com&password=[redacted]"
        );
    }

    #[test]
    fn secret_names_in_every_spelling_lose_their_values() {
        for (name, secret) in [
            ("password", true),
            ("Password", true),
            ("user_password", true),
            ("userPassword", true),
            ("pass%77ord", true),
            ("passwd", true),
            ("pwd", true),
            ("pass", true),
            ("passwort", true),
            ("contraseña", true),
            ("mot+de+passe", true),
            ("secret", true),
            ("client_secret", true),
            ("access_token", true),
            ("id_token", true),
            ("otp", true),
            ("otp_code", true),
            ("code", true),
            ("verification_code", true),
            ("pin", true),
            ("pinCode", true),
            ("cvc", true),
            ("cvv2", true),
            ("cardNumber", true),
            ("card_number", true),
            ("cc-number", true),
            ("ccnum", true),
            ("session", true),
            ("sessionid", true),
            ("PHPSESSID", true),
            ("auth", true),
            ("authToken", true),
            ("key", true),
            ("api_key", true),
            ("apiKey", true),
            ("X-Amz-Signature", true),
            ("code_verifier", true),
            ("recovery_code", true),
            // Ordinary parameters stay readable.
            ("email", false),
            ("q", false),
            ("page", false),
            ("passenger", false),
            ("pinned", false),
            ("keyword", false),
            ("country_code", false),
            ("zipCode", false),
            ("lang", false),
            ("number", false),
            ("order_no", false),
            ("cc", false),
            ("authuser", false),
            ("sort", false),
        ] {
            assert_eq!(is_secret_parameter(name, &[]), secret, "{name}");
        }
    }

    #[test]
    fn fragments_path_parameters_and_empty_values_are_covered() {
        for (text, expected) in [
            (
                "https://app.example/cb#access_token=eyJabc.def&token_type=bearer&state=9",
                "https://app.example/cb#access_token=[redacted]&token_type=[redacted]&state=9",
            ),
            (
                "https://shop.example/cart;jsessionid=ABC123?x=1",
                "https://shop.example/cart;jsessionid=[redacted]?x=1",
            ),
            // An empty password is redacted too: its emptiness is a bit of it.
            (
                "/login?user=ann&password=&next=/home",
                "/login?user=ann&password=[redacted]&next=/home",
            ),
            (
                "went to https://a.example/?otp=123456 then stopped",
                "went to https://a.example/?otp=[redacted] then stopped",
            ),
            ("<a href=\"/x?pin=1234\">", "<a href=\"/x?pin=[redacted]\">"),
            ("/search?q=password+reset", "/search?q=password+reset"),
            (
                "no address here: password=hunter2",
                "no address here: password=hunter2",
            ),
            ("/a?b", "/a?b"),
            ("/a?=x&", "/a?=x&"),
        ] {
            assert_eq!(redact_secret_query_values(text, &[]), expected, "{text}");
        }
    }

    #[test]
    fn redaction_is_stable_when_applied_twice() {
        let once = redact_secret_query_values("/l?password=hunter2&code=42#token=x", &[]);
        assert_eq!(redact_secret_query_values(&once, &[]), once);
        assert!(!once.contains("hunter2") && !once.contains("42") && !once.ends_with('x'));
    }

    #[test]
    fn the_page_s_own_secret_field_names_count() {
        assert_eq!(
            redact_secret_query_values("/login?u=ann&xq7=hunter2", &["XQ7"]),
            "/login?u=ann&xq7=[redacted]"
        );
        assert_eq!(
            redact_secret_query_values("/login?u=ann&xq7=hunter2", &[]),
            "/login?u=ann&xq7=hunter2"
        );
    }
}
