//! CSS selectors: tokenized as CSS Syntax Level 3 tokenizes them (comments dropped, strings as
//! strings, escapes decoded inside names only), then every attribute selector and every
//! pseudo-class is judged, wherever it is nested (`:has()`, `:not()`, `:is()`,
//! `:nth-child(… of S)`). Pseudo-classes are judged against a list of structural ones: one this
//! analysis does not know (a new or vendor pseudo-class, `:state()`, `:dir()`) is refused on a
//! page with secrets rather than trusted.

use super::{ContentReads, ValueTest, is_state_class, is_structural_attribute};

/// Pseudo-classes whose match depends only on the document's structure, attributes that say
/// what a field is, focus, links or media state, never on what a field holds.
const STRUCTURAL_PSEUDO_CLASSES: &[&str] = &[
    "not",
    "is",
    "where",
    "has",
    "matches",
    "any",
    "-webkit-any",
    "-moz-any",
    "nth-child",
    "nth-last-child",
    "nth-of-type",
    "nth-last-of-type",
    "nth-col",
    "nth-last-col",
    "first-child",
    "last-child",
    "only-child",
    "first-of-type",
    "last-of-type",
    "only-of-type",
    "root",
    "scope",
    "enabled",
    "disabled",
    "read-only",
    "read-write",
    "-moz-read-only",
    "-moz-read-write",
    "required",
    "optional",
    "link",
    "any-link",
    "-webkit-any-link",
    "-moz-any-link",
    "visited",
    "local-link",
    "hover",
    "active",
    "focus",
    "focus-visible",
    "focus-within",
    "-moz-focusring",
    "target",
    "target-within",
    "lang",
    "defined",
    "host",
    "host-context",
    "open",
    "closed",
    "popover-open",
    "modal",
    "fullscreen",
    "-webkit-full-screen",
    "picture-in-picture",
    "playing",
    "paused",
    "seeking",
    "muted",
    "buffering",
    "stalled",
    "volume-locked",
    "current",
    "past",
    "future",
    "first",
    "left",
    "right",
    // Pseudo-elements in their old one-colon spelling: querySelectorAll never matches them.
    "before",
    "after",
    "first-line",
    "first-letter",
];

/// One CSS token, as far as the analysis needs them. Names are unescaped and ASCII-lower-cased
/// (CSS matches pseudo-class and, in HTML documents, attribute names ASCII-case-insensitively).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// An identifier (`value`, `placeholder-shown`).
    Ident(String),
    /// An identifier directly followed by `(` (`has(`, `nth-child(`); the `(` is consumed.
    Function(String),
    /// A quoted string (its contents are data, never syntax), unescaped and ASCII-lower-cased.
    Str(String),
    /// A class selector's name (`.ng-empty`).
    Class(String),
    /// Whitespace (significant only between an attribute's parts, where it is skipped).
    Space,
    /// `:`
    Colon,
    /// `[`
    Open,
    /// `]`
    Close,
    /// Any other character, number, hash or punctuation.
    Delim(char),
}

/// Splits `css` into tokens.
fn tokenize(css: &str) -> Vec<Token> {
    let chars = preprocess(css);
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        // A comment is nothing: `:/**/checked` is `:checked`.
        if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars.get(i) == Some(&'*') && chars.get(i + 1) == Some(&'/'))
            {
                i += 1;
            }
            i = (i + 2).min(chars.len());
            continue;
        }
        if is_space(c) {
            while chars.get(i).is_some_and(|c| is_space(*c)) {
                i += 1;
            }
            tokens.push(Token::Space);
            continue;
        }
        if c == '"' || c == '\'' {
            let (text, next) = read_string(&chars, i);
            i = next;
            tokens.push(Token::Str(text));
            continue;
        }
        if c == '.' && starts_name(&chars, i + 1) {
            let (name, next) = consume_name(&chars, i + 1);
            i = next;
            tokens.push(Token::Class(name));
            continue;
        }
        if starts_name(&chars, i) {
            let (name, next) = consume_name(&chars, i);
            i = next;
            if chars.get(i) == Some(&'(') {
                i += 1;
                // `url(` and an unquoted address is one token: `/*` and quotes inside it are
                // text (§4.3.6), not a comment or a string that would hide what follows.
                if name == "url" {
                    let mut j = i;
                    while chars.get(j).is_some_and(|c| is_space(*c)) {
                        j += 1;
                    }
                    if !matches!(chars.get(j), Some('"' | '\'')) {
                        i = skip_url(&chars, j);
                        tokens.push(Token::Delim('u'));
                        continue;
                    }
                }
                tokens.push(Token::Function(name));
            } else {
                tokens.push(Token::Ident(name));
            }
            continue;
        }
        tokens.push(match c {
            ':' => Token::Colon,
            '[' => Token::Open,
            ']' => Token::Close,
            other => Token::Delim(other),
        });
        i += 1;
        // `#id` and numbers' units are names after a delimiter: consuming them as names keeps
        // an escaped quote inside them (`#a\"`) from reading as anything else.
        if matches!(c, '#' | '.') && starts_name_body(&chars, i) {
            let (_, next) = consume_name(&chars, i);
            i = next;
        }
    }
    tokens
}

/// The input as CSS Syntax §3.3 preprocesses it: CR LF, CR and FF become LF, NUL becomes
/// U+FFFD. Without it `\` + CR LF would be an escaped CR and a line end to this tokenizer, and
/// one line continuation to the browser's: the two would disagree about which quotes open
/// strings from there on.
fn preprocess(css: &str) -> Vec<char> {
    let mut chars = Vec::with_capacity(css.len());
    let mut input = css.chars().peekable();
    while let Some(c) = input.next() {
        match c {
            '\r' => {
                if input.peek() == Some(&'\n') {
                    input.next();
                }
                chars.push('\n');
            }
            '\u{c}' => chars.push('\n'),
            '\0' => chars.push('\u{FFFD}'),
            other => chars.push(other),
        }
    }
    chars
}

/// Skips an unquoted `url(` address from `chars[i]`: the index after its `)` (or the end).
fn skip_url(chars: &[char], mut i: usize) -> usize {
    while let Some(&c) = chars.get(i) {
        if c == ')' {
            return i + 1;
        }
        i += if is_escape(chars, i) { 2 } else { 1 };
    }
    chars.len()
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}')
}

/// Whether `chars[i]` starts a valid escape (`\` not followed by a newline or the end).
fn is_escape(chars: &[char], i: usize) -> bool {
    chars.get(i) == Some(&'\\')
        && chars
            .get(i + 1)
            .is_some_and(|c| !matches!(c, '\n' | '\r' | '\u{c}'))
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || !c.is_ascii()
}

fn is_name_char(c: char) -> bool {
    is_name_start(c) || c.is_ascii_digit() || c == '-'
}

/// Whether an identifier starts at `chars[i]` (CSS Syntax §4.3.10).
fn starts_name(chars: &[char], i: usize) -> bool {
    match chars.get(i) {
        Some('-') => {
            chars
                .get(i + 1)
                .is_some_and(|c| is_name_start(*c) || *c == '-')
                || is_escape(chars, i + 1)
        }
        Some('\\') => is_escape(chars, i),
        Some(c) => is_name_start(*c),
        None => false,
    }
}

/// Whether a name's characters (not necessarily a valid start) begin at `chars[i]`.
fn starts_name_body(chars: &[char], i: usize) -> bool {
    chars.get(i).is_some_and(|c| is_name_char(*c)) || is_escape(chars, i)
}

/// Consumes a name from `chars[i]`: its unescaped, ASCII-lower-cased text and the index after it.
fn consume_name(chars: &[char], mut i: usize) -> (String, usize) {
    let mut name = String::new();
    loop {
        match chars.get(i) {
            Some(c) if is_name_char(*c) => {
                name.push(c.to_ascii_lowercase());
                i += 1;
            }
            Some('\\') if is_escape(chars, i) => {
                let (c, next) = consume_escape(chars, i + 1);
                name.push(c.to_ascii_lowercase());
                i = next;
            }
            _ => return (name, i),
        }
    }
}

/// Consumes an escape after its `\`: the character and the index after it (§4.3.7).
fn consume_escape(chars: &[char], mut i: usize) -> (char, usize) {
    let mut code: u32 = 0;
    let mut digits = 0;
    while digits < 6 {
        match chars.get(i).and_then(|c| c.to_digit(16)) {
            Some(d) => {
                code = code * 16 + d;
                digits += 1;
                i += 1;
            }
            None => break,
        }
    }
    if digits == 0 {
        return match chars.get(i) {
            Some(c) => (*c, i + 1),
            None => ('\u{FFFD}', i),
        };
    }
    if chars.get(i).is_some_and(|c| is_space(*c)) {
        i += 1;
    }
    let c = match code {
        0 => '\u{FFFD}',
        _ => char::from_u32(code).unwrap_or('\u{FFFD}'),
    };
    (c, i)
}

/// Reads a string starting at its quote `chars[i]`: its text (escapes decoded, ASCII-lower-cased)
/// and the index after it. A string ends at its quote, an unescaped newline or the end (§4.3.5).
fn read_string(chars: &[char], i: usize) -> (String, usize) {
    let quote = chars.get(i).copied();
    let mut text = String::new();
    let mut j = i + 1;
    while let Some(&c) = chars.get(j) {
        if Some(c) == quote {
            return (text, j + 1);
        }
        if c == '\n' {
            return (text, j);
        }
        if c == '\\' {
            match chars.get(j + 1) {
                // An escaped newline continues the string.
                Some('\n') => j += 2,
                Some(_) => {
                    let (decoded, next) = consume_escape(chars, j + 1);
                    text.push(decoded.to_ascii_lowercase());
                    j = next;
                }
                None => j += 1,
            }
            continue;
        }
        text.push(c.to_ascii_lowercase());
        j += 1;
    }
    (text, chars.len())
}

/// The first value test in a CSS selector: an attribute selector on a non-structural attribute
/// (compared or only present), a class that names a field's state (`.ng-empty`,
/// `[class*=is-checked]`), or a pseudo-class that is not known to be structural, anywhere in the
/// selector.
pub fn css_value_test(css: &str) -> Option<ValueTest> {
    value_test_of(&tokenize(css))
}

/// Both questions the selector guard asks of a CSS selector, from one tokenization: its first
/// value test ([`css_value_test`]) and whether it tests `tabindex` ([`css_tests_tab_stop`]).
pub fn css_reads(css: &str) -> (Option<ValueTest>, bool) {
    let tokens = tokenize(css);
    (value_test_of(&tokens), tests_tab_stop(&tokens))
}

/// Every attribute a CSS selector compares with a value, anywhere in it (`a[href*="pw="]`,
/// inside `:has()`/`:not()` too, escapes decoded; presence tests such as `[href]` read no
/// value). `#id` and `.class` are left out: they test whole words of structural attributes,
/// not text that redaction hides a part of.
pub fn css_content_reads(css: &str) -> ContentReads {
    let tokens = tokenize(css);
    let mut reads = ContentReads::default();
    for (i, token) in tokens.iter().enumerate() {
        if *token == Token::Open {
            if let (Some(name), true) = attribute_selector(tokens.get(i + 1..).unwrap_or_default())
            {
                reads.add(name);
            }
        }
    }
    reads
}

fn value_test_of(tokens: &[Token]) -> Option<ValueTest> {
    let mut i = 0;
    while let Some(token) = tokens.get(i) {
        match token {
            Token::Colon => {
                // `::name` is a pseudo-element: querySelectorAll never matches one.
                if tokens.get(i + 1) == Some(&Token::Colon) {
                    i += 3;
                    continue;
                }
                match tokens.get(i + 1) {
                    Some(Token::Ident(name) | Token::Function(name))
                        if crate::words!(STRUCTURAL_PSEUDO_CLASSES).contains(name) => {}
                    Some(Token::Ident(name) | Token::Function(name)) => {
                        return Some(ValueTest::PseudoClass(name.clone()));
                    }
                    // `: x`, `:"x"`: not a pseudo-class the browser would accept; the
                    // selector fails to parse there.
                    _ => {}
                }
            }
            Token::Open => {
                let rest = tokens.get(i + 1..).unwrap_or_default();
                let (name, compared) = attribute_selector(rest);
                if let Some(name) = name {
                    // Present or not, an attribute other than the structural ones may be the
                    // page's mark of a state (`[data-checked]`, `[data-filled]`).
                    if !is_structural_attribute(&name) {
                        return Some(ValueTest::Attribute(name));
                    }
                    if name == "class" && compared {
                        if let Some(class) = attribute_operand(rest).filter(|c| is_state_class(c)) {
                            return Some(ValueTest::StateClass(class));
                        }
                    }
                }
            }
            Token::Class(name) if is_state_class(name) => {
                return Some(ValueTest::StateClass(name.clone()));
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The attribute an attribute selector names (after `[`, with its namespace prefix dropped),
/// and whether it compares the attribute with a value.
fn attribute_selector(tokens: &[Token]) -> (Option<String>, bool) {
    let mut name = None;
    for (k, token) in tokens.iter().enumerate() {
        match token {
            Token::Close => return (name, false),
            Token::Ident(n) => name = Some(n.clone()),
            // `|` between a namespace and the name, unless it is `|=`.
            Token::Delim('|') if tokens.get(k + 1) != Some(&Token::Delim('=')) => {}
            Token::Delim('=') => return (name, true),
            Token::Delim('~' | '|' | '^' | '$' | '*')
                if tokens.get(k + 1) == Some(&Token::Delim('=')) =>
            {
                return (name, true);
            }
            // `*|name`: any namespace.
            Token::Delim('*') | Token::Space => {}
            // Anything else: not an attribute selector the browser accepts.
            _ => return (name, true),
        }
    }
    (name, false)
}

/// The value an attribute selector compares with (after its matcher), if any.
fn attribute_operand(tokens: &[Token]) -> Option<String> {
    let mut after_matcher = false;
    for token in tokens {
        match token {
            Token::Close => return None,
            Token::Delim('=') => after_matcher = true,
            Token::Ident(text) | Token::Str(text) if after_matcher => return Some(text.clone()),
            _ => {}
        }
    }
    None
}

/// Whether a CSS selector tests `tabindex` (a radio group's tab stop is its checked button).
pub fn css_tests_tab_stop(css: &str) -> bool {
    tests_tab_stop(&tokenize(css))
}

fn tests_tab_stop(tokens: &[Token]) -> bool {
    tokens.iter().enumerate().any(|(i, token)| {
        *token == Token::Open
            && attribute_selector(tokens.get(i + 1..).unwrap_or_default())
                .0
                .as_deref()
                == Some("tabindex")
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;

    fn attr(name: &str) -> Option<ValueTest> {
        Some(ValueTest::Attribute(name.to_owned()))
    }

    fn pseudo(name: &str) -> Option<ValueTest> {
        Some(ValueTest::PseudoClass(name.to_owned()))
    }

    #[test]
    fn attribute_selectors_that_compare_or_test_state_are_found_wherever_they_are() {
        assert_eq!(css_value_test(r#"input[value^="a"]"#), attr("value"));
        assert_eq!(
            css_value_test(r#"form:has(input[VALUE="a"])"#),
            attr("value")
        );
        assert_eq!(
            css_value_test(r#"input:not([v\61lue$="z"])"#),
            attr("value")
        );
        assert_eq!(css_value_test(r#"input:is([*|value*="z"])"#), attr("value"));
        assert_eq!(
            css_value_test(r#"input:is([svg|value="z"])"#),
            attr("value")
        );
        assert_eq!(css_value_test(r#"[data-v~="z"]"#), attr("data-v"));
        assert_eq!(css_value_test(r#"[data-v|="z"]"#), attr("data-v"));
        assert_eq!(css_value_test("input[value]"), attr("value"));
        assert_eq!(css_value_test("input[ value ]"), attr("value"));
        assert_eq!(css_value_test("input[checked]"), attr("checked"));
        assert_eq!(
            css_value_test(r#"li:nth-child(1 of [value="a"])"#),
            attr("value")
        );
        assert_eq!(
            css_value_test(r#"input[type=password]:not([value=""])"#),
            attr("value")
        );
        assert_eq!(css_value_test(r#"[val/**/ue="a"]"#), attr("ue"));
    }

    #[test]
    fn structural_selectors_pass() {
        for css in [
            "#email",
            "button.primary > span",
            "input[name]",
            r#"input[name="email"]"#,
            r#"input[type=password i]"#,
            "ul li:nth-child(2n+1):not(:first-child)",
            "a:hover, a:focus-visible",
            "form:has(> input:required) button:enabled",
            r#"input[placeholder="Value: [x]"]"#,
            r#"[aria-label=":checked"]"#,
            "div::before",
            "::slotted(span)",
        ] {
            assert_eq!(css_value_test(css), None, "{css}");
        }
    }

    #[test]
    fn value_pseudo_classes_and_unknown_ones_are_found() {
        assert_eq!(
            css_value_test("input:placeholder-shown"),
            pseudo("placeholder-shown")
        );
        assert_eq!(
            css_value_test(r"input:pl\61 ceholder-shown"),
            pseudo("placeholder-shown")
        );
        assert_eq!(
            css_value_test("input:PLACEHOLDER-SHOWN"),
            pseudo("placeholder-shown")
        );
        assert_eq!(css_value_test("input:checked"), pseudo("checked"));
        assert_eq!(css_value_test("input:dir(rtl)"), pseudo("dir"));
        assert_eq!(css_value_test("x-el:state(checked)"), pseudo("state"));
        assert_eq!(css_value_test("x-el:--checked"), pseudo("--checked"));
        assert_eq!(
            css_value_test("input:-internal-autofill-selected"),
            pseudo("-internal-autofill-selected")
        );
        assert_eq!(
            css_value_test("input:some-future-state"),
            pseudo("some-future-state")
        );
        assert_eq!(css_value_test("div:empty"), pseudo("empty"));
    }

    /// The red team's ways past the old scanner: a comment between `:` and the name, and an
    /// escaped quote (`\"`) that the old scanner decoded into a string opener, hiding the rest.
    #[test]
    fn comments_and_escaped_quotes_hide_nothing() {
        assert_eq!(
            css_value_test("#pw:/**/placeholder-shown"),
            pseudo("placeholder-shown")
        );
        assert_eq!(css_value_test("#pw:/**/valid"), pseudo("valid"));
        assert_eq!(css_value_test("#pw:/* x */checked"), pseudo("checked"));
        assert_eq!(css_value_test("#pw/**/:autofill"), pseudo("autofill"));
        assert_eq!(
            css_value_test(r#"#pw:not(.\"):placeholder-shown:not(.\")"#),
            pseudo("placeholder-shown")
        );
        assert_eq!(
            css_value_test(r#"#pw:not(.\")[value^="hu"]:not(.\")"#),
            attr("value")
        );
        assert_eq!(css_value_test(r#"#a\"[value^=x]"#), attr("value"));
        assert_eq!(css_value_test(r#"[title='it\'s'][value=x]"#), attr("value"));
        assert_eq!(css_value_test(r#"[title="a\"]"][value=x]"#), attr("value"));
        // `url(` with an unquoted address is one token (second red team, session 11).
        assert_eq!(
            css_value_test("#pw:is(url(/*), *):placeholder-shown"),
            pseudo("placeholder-shown")
        );
        assert_eq!(
            css_value_test("#pw:is(URL( /*), *)[value^=\"hu\"]"),
            attr("value")
        );
        assert_eq!(
            css_value_test(r"#pw:is(u\rl(/*), *):checked"),
            pseudo("checked")
        );
        assert_eq!(
            css_value_test("#otp:where(url('/*')), #otp:valid"),
            pseudo("valid")
        );
        // `\` + CR LF continues the string, as in the browser.
        assert_eq!(
            css_value_test("#pw:not([title=\"\\\r\n\"]):placeholder-shown:not([title=\"a\"])"),
            pseudo("placeholder-shown")
        );
        assert_eq!(
            css_value_test("#pw:not([title='\\\r\n'])[value^=hu]:not([title='a'])"),
            attr("value")
        );
        assert_eq!(css_value_test("#pw[val\\75\r\ne]"), attr("value"));
        // An unterminated comment swallows the rest, as in the browser.
        assert_eq!(css_value_test("#pw/*:checked"), None);
    }

    /// Marks a page or a framework sets from a field's value (second red team, session 11):
    /// Angular's `ng-not-empty`, Element's `is-checked`, Headless UI's `data-checked`.
    #[test]
    fn state_marks_are_found_by_class_and_by_presence() {
        let class = |name: &str| Some(ValueTest::StateClass(name.to_owned()));
        assert_eq!(css_value_test("#pw.ng-not-empty"), class("ng-not-empty"));
        assert_eq!(
            css_value_test("#pw.ng-invalid-minlength"),
            class("ng-invalid-minlength")
        );
        assert_eq!(
            css_value_test("[role=radio].is-checked"),
            class("is-checked")
        );
        assert_eq!(
            css_value_test(r".StripeElement--compl\65te"),
            class("stripeelement--complete")
        );
        assert_eq!(
            css_value_test(r#"[class*="Mui-filled"]"#),
            class("mui-filled")
        );
        assert_eq!(css_value_test("[class~=is-checked]"), class("is-checked"));
        assert_eq!(
            css_value_test("[role=radio][data-checked]"),
            attr("data-checked")
        );
        assert_eq!(css_value_test("#pw[aria-invalid]"), attr("aria-invalid"));
        assert_eq!(css_value_test("form .btn-primary"), None);
        assert_eq!(css_value_test(r#"[class="login-form"] button"#), None);
    }

    /// The guard's one pass answers both questions as the two separate readings do.
    #[test]
    fn one_reading_answers_both_questions() {
        for css in [
            "#email",
            r#"[tabindex="0"]"#,
            r#"[tab\69ndex="0"][value=x]"#,
            "#pw:/**/placeholder-shown",
            r#"#pw:not(.\")[value^="hu"]:not(.\")"#,
            "#pw:is(url(/*), *):checked",
            "[role=radio].is-checked",
            "#pw/*:checked",
            "",
        ] {
            assert_eq!(
                css_reads(css),
                (css_value_test(css), css_tests_tab_stop(css)),
                "{css}"
            );
        }
    }

    #[test]
    fn tab_stop_tests_are_found_through_escapes() {
        assert!(css_tests_tab_stop(r#"[tabindex="0"]"#));
        assert!(css_tests_tab_stop(r#"[tab\69ndex="0"]"#));
        assert!(css_tests_tab_stop(r#"[TabIndex="0"]"#));
        assert!(!css_tests_tab_stop(r#"[title="tabindex"]"#));
    }
}
