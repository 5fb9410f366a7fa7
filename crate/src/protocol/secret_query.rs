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
//! "codes" (`country_code`, `zip_code`); a few long words count glued into any name
//! (`csrfmiddlewaretoken`, `newpassword`). A name is read as a form field's: `+` a space,
//! percent-decoded, so `pass+word`, `pass%77ord`, `user[password]` and `?pass word=` (a space,
//! in an `href` read as written) are secret. Beyond the names:
//! - the user information of an address (`http://ann:hunter2@host/`) goes, user name too;
//! - a value that, percent-decoded (up to three levels), holds something secret
//!   (`?next=%2Fx%3Fpassword%3Dhunter2`) goes whole;
//! - names the page gives its own secret fields (`extra`, [`crate::dom::address`]) count, also
//!   on the next page a form sent by GET led to (the chat session keeps them,
//!   [`remember_names`]);
//! - a form that sends a legacy encoding (a `windows-1251` page, an `accept-charset`) writes a
//!   field named `пароль` as `%EF%E0%F0%EE%EB%FC`, which no UTF-8 comparison meets: when such a
//!   form has a secret field whose name is not ASCII, the page adds [`LEGACY_ENCODED_NAME`] to
//!   its names, and then every parameter whose name may be a non-ASCII name so encoded loses
//!   its value: percent-decoded, a byte of 0x80 or more, a numeric character reference (a
//!   `windows-1252` page sends `пароль` as `&#1087;&#1072;…`) or an escape (`ISO-2022-JP`
//!   writes 7-bit bytes after ESC). Wider than the field's own name, but it needs no encoder
//!   for every legacy encoding, and it is the same on the page the form led to.

/// What a secret parameter's value becomes: no spaces, so it stays one part of the address.
pub const REDACTED: &str = "[redacted]";

/// Stands among the page's secret field names when a form sends one whose name is not ASCII in
/// an encoding other than UTF-8 (see the module's comment). A page naming a field so only
/// widens what is redacted.
pub const LEGACY_ENCODED_NAME: &str = "[bai:legacy-encoded-secret-name]";

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
    "saml",
    "hmac",
    "tan",
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

/// Words that make a parameter's name secret also glued inside a longer word
/// (`csrfmiddlewaretoken`, `newpassword`, `accesstoken`): long enough not to be a part of an
/// ordinary word by chance.
const GLUED_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passwort",
    "passphrase",
    "passcode",
    "secret",
    "token",
    "csrf",
    "xsrf",
    "apikey",
    "sessionid",
    "credential",
];

/// Characters that show nothing: a name with one inside (`passw\u{200b}ord`) reads as
/// without it.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
}

/// A parameter's name as a form field's name: `+` a space, percent-decoded (three levels,
/// [`crate::policy::percent_decode`]), invisible characters dropped, trimmed. Letter case is
/// kept: it splits `camelCase` words.
fn normalized_name(name: &str) -> String {
    let decoded = crate::policy::percent_decode(&name.replace('+', " "));
    visible_name(&decoded)
}

/// `name` without invisible characters, its line breaks as `\n` (a form sends CRLF), trimmed.
fn visible_name(name: &str) -> String {
    let visible: String = name
        .replace("\r\n", "\n")
        .chars()
        .filter(|c| !is_invisible(*c))
        .map(|c| if c == '\r' { '\n' } else { c })
        .collect();
    visible.trim().to_owned()
}

/// Whether `decoded` (a parameter's name, percent-decoded) may be a non-ASCII name as a legacy
/// encoding writes it: bytes of 0x80 or more (they decode to U+FFFD or to other letters), a
/// character the encoding lacks written as a numeric character reference (`&#1087;`: every
/// single-byte encoding, and any other for what it cannot map), or the escapes of `ISO-2022-JP`
/// (ESC, 0x1B, before 7-bit bytes). The last two are ASCII, so a test for non-ASCII alone
/// misses them.
fn is_legacy_encoded(decoded: &str) -> bool {
    !decoded.is_ascii() || decoded.contains("&#") || decoded.contains('\u{1b}')
}

/// Whether a query parameter called `name` (as written in the address: percent-encoded, `+`
/// for spaces) carries a secret value, or `extra` names it (the page's own secret fields,
/// compared in the same normalized form: decoded, any letter case).
pub fn is_secret_parameter(name: &str, extra: &[&str]) -> bool {
    let decoded = normalized_name(name);
    if extra.contains(&LEGACY_ENCODED_NAME) && is_legacy_encoded(&decoded) {
        return true;
    }
    if extra.iter().any(|known| {
        // A field's own name, not encoded: a `+` in it is a `+` (the form sends `%2B`).
        let known = visible_name(known);
        !known.is_empty() && known.to_lowercase() == decoded.to_lowercase()
    }) {
        return true;
    }
    let words = name_words(&decoded);
    // The whole name glued (`ccNumber` -> `ccnumber`) is checked as well as each word.
    let joined = crate::protocol::join::join(&words, "");
    // Packed (`words!`): the lists cost the wasm their text only.
    let secret_words = crate::words!(SECRET_WORDS);
    if (secret_words.contains(&joined) && joined != "code")
        || crate::words!(GLUED_WORDS)
            .iter()
            .any(|glued| joined.contains(glued))
    {
        return true;
    }
    words.iter().enumerate().any(|(i, word)| {
        let before = i.checked_sub(1).and_then(|b| words.get(b));
        match word.as_str() {
            "code" => before.is_none_or(|b| !crate::words!(ORDINARY_CODES).contains(b)),
            "number" | "num" | "no" | "nr" => {
                before.is_some_and(|b| crate::words!(CARD_WORDS).contains(b))
            }
            other => secret_words.contains(other),
        }
    })
}

/// Characters that end a parameter's value in an address written into text.
fn ends_value(c: char) -> bool {
    c.is_whitespace() || "&#;\"'`<>".contains(c)
}

/// Characters that end an address's authority (`user:pass@host:port`) in text.
fn ends_authority(c: char) -> bool {
    ends_value(c) || "/?#\\".contains(c)
}

/// A name may hold a space (`?pass word=…` in text quoting an address) only this close to its
/// start, so that a `?` in prose does not make every later `=` a parameter's.
const MAX_SPACED_NAME_CHARS: usize = 64;

/// How many times a parameter's value is percent-decoded to look for an address inside it
/// (`?next=%2Fx%3Fpassword%3D…`, also encoded twice): the same bound as
/// [`crate::policy::percent_decode`]'s.
const NESTED_DEPTH: u8 = 3;

/// `text` with the value of every secret parameter ([`is_secret_parameter`]) replaced by
/// [`REDACTED`], and so the user information of every address (`http://ann:hunter2@host/`
/// becomes `http://[redacted]@host/`: the user name goes too, as tokens often stand there,
/// `https://ghp_…@github.com/`). A parameter whose percent-decoded value holds an address or
/// query with anything secret in it (`?next=%2Fx%3Fpassword%3Dhunter2`) loses its whole value:
/// simpler than encoding the redacted inside again, and it fails closed. `extra`: names of the
/// page's secret fields, matched in any case after the same decoding.
pub fn redact_secret_query_values(text: &str, extra: &[&str]) -> String {
    redact_nested(text, extra, NESTED_DEPTH)
}

fn redact_nested(text: &str, extra: &[&str], depth: u8) -> String {
    // Fast path: no parameter can be in a text without `=`, no user information without `@`.
    if !text.contains('=') && !text.contains('@') {
        return text.to_owned();
    }
    let chars: Vec<char> = redact_user_info(text).chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        out.push(c);
        i += 1;
        if !matches!(c, '?' | '&' | '#' | ';') {
            continue;
        }
        // A name: up to `=`, never across a separator, nor across a space first or far from
        // its start (`Why? Because … a=b` is prose, `?pass word=` a name).
        let start = i;
        let mut end = i;
        while chars.get(end).is_some_and(|&n| {
            n != '='
                && n != '?'
                && (!ends_value(n)
                    || (n == ' ' && end > start && end - start < MAX_SPACED_NAME_CHARS))
        }) {
            end += 1;
        }
        if chars.get(end) != Some(&'=') || end == start {
            continue;
        }
        let name: String = chars.get(start..end).unwrap_or_default().iter().collect();
        // A path parameter (`;jsessionid=…`) ends where the path or the query goes on.
        let in_path = c == ';';
        let mut value_end = end + 1;
        while chars
            .get(value_end)
            .is_some_and(|&v| !(ends_value(v) || (in_path && matches!(v, '/' | '?'))))
        {
            value_end += 1;
        }
        if !is_secret_parameter(&name, extra)
            && !hides_secret(&chars, end + 1, value_end, extra, depth)
        {
            continue;
        }
        out.push_str(&name);
        out.push('=');
        out.push_str(REDACTED);
        i = value_end;
    }
    out
}

/// Whether the value `chars[from..to]`, percent-decoded, holds something
/// [`redact_nested`] would redact. A value without `%` holds no encoded address: one written
/// out is met by the scan of the text it is in.
fn hides_secret(chars: &[char], from: usize, to: usize, extra: &[&str], depth: u8) -> bool {
    let value: String = chars.get(from..to).unwrap_or_default().iter().collect();
    if depth == 0 || !value.contains('%') {
        return false;
    }
    let decoded = crate::policy::percent_decode(&value);
    redact_nested(&decoded, extra, depth - 1) != decoded
}

/// `text` with the user information of every address (between `//` and an `@` before the
/// host) replaced by [`REDACTED`].
fn redact_user_info(text: &str) -> String {
    if !text.contains('@') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("//") {
        let (before, after) = rest.split_at(at + 2);
        out.push_str(before);
        let authority_end = after.find(ends_authority).unwrap_or(after.len());
        let authority = after.get(..authority_end).unwrap_or_default();
        match authority.rfind('@') {
            Some(user_end) if user_end > 0 => {
                out.push_str(REDACTED);
                rest = after.get(user_end..).unwrap_or_default();
            }
            _ => rest = after,
        }
    }
    out.push_str(rest);
    out
}

/// How many secret field names a chat session keeps ([`remember_names`]): enough for the forms
/// of the pages one conversation meets, and a bound on the work per redacted text.
pub const MAX_REMEMBERED_NAMES: usize = 64;

/// Adds the names in `list` (a JSON list of strings: an executor's `secretNames`) to `known`,
/// each once, the newest kept when there are more than [`MAX_REMEMBERED_NAMES`].
pub fn remember_names(known: &mut Vec<String>, list: Option<&serde_json::Value>) {
    let Some(list) = list.and_then(serde_json::Value::as_array) else {
        return;
    };
    for name in list.iter().filter_map(serde_json::Value::as_str) {
        if name.trim().is_empty() {
            continue;
        }
        known.retain(|old| old != name);
        known.push(name.to_owned());
    }
    let over = known.len().saturating_sub(MAX_REMEMBERED_NAMES);
    known.drain(..over);
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

    /// `пароль` sent by a `windows-1251` form (`%EF%E0%F0%EE%EB%FC`), or by a KOI8-R one
    /// (`%D0%C1%D2%CF%CC%D8`, bytes that are no UTF-8 either): the UTF-8 name does not meet it;
    /// with the page's mark every parameter whose name is not ASCII goes, and only those.
    #[test]
    fn legacy_encoded_names_lose_their_values_when_the_page_says_so() {
        let address = "/x?%EF%E0%F0%EE%EB%FC=hunter2&%D0%C1%D2%CF%CC%D8=swordfish&q=shoes&поиск=1";
        assert_eq!(
            redact_secret_query_values(address, &["пароль"]),
            address,
            "without the mark: as before"
        );
        assert_eq!(
            redact_secret_query_values(address, &["пароль", LEGACY_ENCODED_NAME]),
            "/x?%EF%E0%F0%EE%EB%FC=[redacted]&%D0%C1%D2%CF%CC%D8=[redacted]&q=shoes&поиск=[redacted]"
        );
        // Encoded twice, or in a fragment: the same; ASCII names stay as they are.
        assert_eq!(
            redact_secret_query_values("/x#%25EF%25E0=1&q=2", &[LEGACY_ENCODED_NAME]),
            "/x#%25EF%25E0=[redacted]&q=2"
        );
        assert!(!is_secret_parameter("q", &[LEGACY_ENCODED_NAME]));
        assert!(!is_secret_parameter("%41bc", &[LEGACY_ENCODED_NAME]));
    }

    /// Encodings that write a non-ASCII name in ASCII bytes (red team, session 15), as Chromium
    /// and Firefox send `пароль` (`browser_secrets` reads a real submission): a `windows-1252`
    /// form, character references; an `ISO-2022-JP` one, 7-bit bytes between escapes. With
    /// the page's mark they go too; without it, and for plain ASCII names, nothing changes.
    #[test]
    fn legacy_encoded_names_written_in_ascii_lose_their_values() {
        let references =
            "%26%231087%3B%26%231072%3B%26%231088%3B%26%231086%3B%26%231083%3B%26%231100%3B";
        let escaped = "%1B%24B%27a%27Q%27b%27%60%27%5D%27n%1B%28B";
        for name in [
            references,
            escaped,
            // Hexadecimal references, `+` for a space, encoded twice, a reference in a longer name.
            "%26%23x43f%3B",
            "my+%26%231087%3B",
            "%2526%25231087%253B",
            "user%26%231087%3B",
        ] {
            assert!(is_secret_parameter(name, &[LEGACY_ENCODED_NAME]), "{name}");
            assert!(!is_secret_parameter(name, &[]), "{name}");
        }
        let address = format!("/x?{references}=hunter2&{escaped}=swordfish&q=shoes&a%26b=1");
        assert_eq!(
            redact_secret_query_values(&address, &[LEGACY_ENCODED_NAME]),
            format!("/x?{references}=[redacted]&{escaped}=[redacted]&q=shoes&a%26b=1")
        );
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
    #[test]
    fn user_information_in_an_address_is_redacted() {
        for (text, expected) in [
            (
                "http://ann:hunter2@example.com/",
                "http://[redacted]@example.com/",
            ),
            (
                "see https://ghp_abc@github.com/x?q=1 and //bob:@h.example",
                "see https://[redacted]@github.com/x?q=1 and //[redacted]@h.example",
            ),
            (
                "ftp://a:b:c@d@host.example:21/f",
                "ftp://[redacted]@host.example:21/f",
            ),
            // An `@` after the host is not user information.
            (
                "https://example.com/@ann?email=ann@example.com",
                "https://example.com/@ann?email=ann@example.com",
            ),
            ("mail ann@example.com // x@y", "mail ann@example.com // x@y"),
        ] {
            assert_eq!(redact_secret_query_values(text, &[]), expected, "{text}");
        }
    }

    #[test]
    fn an_address_encoded_in_a_value_is_looked_into() {
        for (text, expected) in [
            (
                "/login?next=%2Fx%3Fpassword%3Dhunter2&q=1",
                "/login?next=[redacted]&q=1",
            ),
            (
                "/l?return=https%3A%2F%2Fa.example%2F%3Ftoken%3Dabc",
                "/l?return=[redacted]",
            ),
            // Encoded twice, and three times.
            ("/l?next=%252Fx%253Fpin%253D1234", "/l?next=[redacted]"),
            (
                "/l?next=%25252Fx%25253Fotp%25253D1234",
                "/l?next=[redacted]",
            ),
            (
                "/l?next=http%3A%2F%2Fann%3Ahunter2%40a.example%2F",
                "/l?next=[redacted]",
            ),
            // A fragment's value too.
            ("/cb#state=%2Fa%3Fcode%3D42", "/cb#state=[redacted]"),
            // Nothing secret inside: readable.
            (
                "/l?next=%2Fsearch%3Fq%3Dshoes%26page%3D2&x=%20y",
                "/l?next=%2Fsearch%3Fq%3Dshoes%26page%3D2&x=%20y",
            ),
        ] {
            assert_eq!(redact_secret_query_values(text, &[]), expected, "{text}");
        }
    }

    #[test]
    fn names_are_decoded_before_they_are_matched() {
        for (text, expected) in [
            ("/l?pass word=hunter2&q=1", "/l?pass word=[redacted]&q=1"),
            ("/l?pass+word=hunter2", "/l?pass+word=[redacted]"),
            ("/l?pass%77ord=hunter2", "/l?pass%77ord=[redacted]"),
            ("/l?p%2561ssword=hunter2", "/l?p%2561ssword=[redacted]"),
            ("/l?PassWord=hunter2", "/l?PassWord=[redacted]"),
            ("/l?user[password]=hunter2", "/l?user[password]=[redacted]"),
            ("/l?password[]=hunter2", "/l?password[]=[redacted]"),
            (
                "/l?passw%E2%80%8Bord=hunter2",
                "/l?passw%E2%80%8Bord=[redacted]",
            ),
            // A space far from the `?`, or right after it, does not make a name.
            (
                "Why?Because the sum of the parts of this very long sentence is, so then the pin=1",
                "Why?Because the sum of the parts of this very long sentence is, so then the pin=1",
            ),
            ("Is it? The token=abc", "Is it? The token=abc"),
        ] {
            assert_eq!(redact_secret_query_values(text, &[]), expected, "{text}");
        }
    }

    #[test]
    fn framework_and_protocol_token_names_are_secret() {
        for name in [
            "csrfmiddlewaretoken",
            "authenticity_token",
            "__RequestVerificationToken",
            "_csrf",
            "xsrf",
            "XSRF-TOKEN",
            "csrftoken",
            "accesstoken",
            "newpassword",
            "code",
            "id_token",
            "access_token",
            "refresh_token",
            "sig",
            "signature",
            "otp",
            "pin",
            "cvv",
            "cvc",
            "ssn",
            "SAMLResponse",
            "hmac",
            "tan",
        ] {
            assert!(is_secret_parameter(name, &[]), "{name}");
        }
        assert_eq!(
            redact_secret_query_values("https://app.example/cb?code=4%2F0Ad&state=xyz", &[]),
            "https://app.example/cb?code=[redacted]&state=xyz"
        );
        assert_eq!(
            redact_secret_query_values(
                "https://app.example/cb#id_token=eyJ.x&expires_in=3600",
                &[]
            ),
            "https://app.example/cb#id_token=[redacted]&expires_in=3600"
        );
    }

    #[test]
    fn page_field_names_match_in_their_submitted_spelling() {
        assert_eq!(
            redact_secret_query_values("/l?my+pin=1&my%20key%5B%5D=2&q=3", &["My Pin", "my key[]"]),
            "/l?my+pin=[redacted]&my%20key%5B%5D=[redacted]&q=3"
        );
    }

    #[test]
    fn page_field_names_are_raw_names() {
        // Red team 14: a field named `x+y` is sent as `x%2By`; one with a line break, with CRLF.
        assert_eq!(
            redact_secret_query_values("/l?x%2By=hunter2&x+y=1&a%0D%0Ab=2&q=3", &["x+y", "a\nb"]),
            "/l?x%2By=[redacted]&x+y=1&a%0D%0Ab=[redacted]&q=3"
        );
    }

    #[test]
    fn remembered_names_are_kept_once_and_bounded() {
        let mut known = Vec::new();
        remember_names(&mut known, Some(&serde_json::json!(["xq7", "pin", 3, " "])));
        remember_names(&mut known, Some(&serde_json::json!(["xq7"])));
        remember_names(&mut known, None);
        assert_eq!(known, ["pin", "xq7"]);
        let many: Vec<String> = (0..100).map(|i| format!("f{i}")).collect();
        remember_names(&mut known, Some(&serde_json::json!(many)));
        assert_eq!(known.len(), MAX_REMEMBERED_NAMES);
        assert_eq!(known.last().map(String::as_str), Some("f99"));
    }
}
