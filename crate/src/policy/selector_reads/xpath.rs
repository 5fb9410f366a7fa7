//! XPath 1.0 expressions (what `document.evaluate` runs): tokenized by the language's lexical
//! rules, then every place where a node-set of elements (or text nodes, or the document) is
//! turned into a string or a number is found, wherever it is and on whichever side:
//! a comparison or arithmetic operand (`.='a'`, `'a'=.`, `4000<.`, `-.`), or an argument of a
//! function that reads string values (`contains('a', .)`, `id(.)`, `string-length(.)`).
//! Attribute reads are judged by the attribute's name.

use super::{ContentReads, ValueTest, is_state_class, is_structural_attribute};

/// Functions that never read the string value of their node-set arguments: they count nodes,
/// test whether a node-set is empty, or read a node's name.
const NO_STRING_FUNCTIONS: &[&str] = &[
    "last",
    "position",
    "count",
    "not",
    "boolean",
    "true",
    "false",
    "local-name",
    "name",
    "namespace-uri",
];

/// Functions that read the context node's string value when called with no argument.
const CONTEXT_STRING_FUNCTIONS: &[&str] = &["string", "string-length", "normalize-space", "number"];

/// Node tests that select text (or every kind of node).
const TEXT_NODE_TESTS: &[&str] = &["text", "node", "comment", "processing-instruction"];

/// One XPath token. Names are lower-cased: a name the browser treats differently is at worst
/// refused more often, never less.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// A string literal's text, lower-cased.
    Literal(String),
    Number,
    /// A name test, function name or node type (`div`, `contains`, `text`).
    Name(String),
    /// `*` as a name test.
    Star,
    /// An axis, with its `::` (`attribute::`, `self::`).
    Axis(String),
    /// An operator that ends an operand: comparisons, arithmetic, `and`, `or`.
    Operator(&'static str),
    /// `|` (a union is one operand).
    Union,
    Slash,
    DoubleSlash,
    Dot,
    DotDot,
    At,
    Dollar,
    Open,
    Close,
    OpenBracket,
    CloseBracket,
    Comma,
    Other,
}

impl Token {
    /// Whether a `*` or a name after this token is an operator (XPath 1.0 §3.7).
    fn makes_next_operator(&self) -> bool {
        !matches!(
            self,
            Token::At
                | Token::Axis(_)
                | Token::Open
                | Token::OpenBracket
                | Token::Comma
                | Token::Operator(_)
                | Token::Union
                | Token::Slash
                | Token::DoubleSlash
        )
    }
}

fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || !c.is_ascii()
}

fn is_name_char(c: char) -> bool {
    is_name_start(c) || c.is_ascii_digit() || matches!(c, '-' | '.')
}

fn tokenize(xpath: &str) -> Vec<Token> {
    let chars: Vec<char> = xpath.chars().collect();
    let mut tokens: Vec<Token> = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let operator_position = tokens.last().is_some_and(Token::makes_next_operator);
        let next = chars.get(i + 1).copied();
        let (token, length) = match c {
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '"' | '\'' => {
                let end = chars
                    .get(i + 1..)
                    .unwrap_or_default()
                    .iter()
                    .position(|d| *d == c);
                let length = end.map_or(chars.len() - i, |end| end + 2);
                let text: String = chars
                    .get(i + 1..i + length)
                    .unwrap_or_default()
                    .iter()
                    .collect();
                let text = text.strip_suffix(c).unwrap_or(&text).to_lowercase();
                (Token::Literal(text), length)
            }
            '0'..='9' => {
                let length = chars
                    .get(i..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|d| d.is_ascii_digit() || **d == '.')
                    .count();
                (Token::Number, length)
            }
            '.' if next == Some('.') => (Token::DotDot, 2),
            '.' if next.is_some_and(|d| d.is_ascii_digit()) => {
                let length = 1 + chars
                    .get(i + 1..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|d| d.is_ascii_digit())
                    .count();
                (Token::Number, length)
            }
            '.' => (Token::Dot, 1),
            '/' if next == Some('/') => (Token::DoubleSlash, 2),
            '/' => (Token::Slash, 1),
            '@' => (Token::At, 1),
            '$' => (Token::Dollar, 1),
            '(' => (Token::Open, 1),
            ')' => (Token::Close, 1),
            '[' => (Token::OpenBracket, 1),
            ']' => (Token::CloseBracket, 1),
            ',' => (Token::Comma, 1),
            '|' => (Token::Union, 1),
            '=' => (Token::Operator("="), 1),
            '!' if next == Some('=') => (Token::Operator("!="), 2),
            '<' if next == Some('=') => (Token::Operator("<="), 2),
            '<' => (Token::Operator("<"), 1),
            '>' if next == Some('=') => (Token::Operator(">="), 2),
            '>' => (Token::Operator(">"), 1),
            '+' => (Token::Operator("+"), 1),
            '-' => (Token::Operator("-"), 1),
            '*' if operator_position => (Token::Operator("*"), 1),
            '*' => (Token::Star, 1),
            c if is_name_start(c) => {
                let mut length = chars
                    .get(i..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|d| is_name_char(**d))
                    .count();
                // A prefixed name (`svg:rect`, `ns:*`), not an axis's `::`.
                if chars.get(i + length) == Some(&':') && chars.get(i + length + 1) != Some(&':') {
                    length += 1;
                    length += chars
                        .get(i + length..)
                        .unwrap_or_default()
                        .iter()
                        .take_while(|d| is_name_char(**d) || **d == '*')
                        .count();
                }
                let name: String = chars
                    .get(i..i + length)
                    .unwrap_or_default()
                    .iter()
                    .collect::<String>()
                    .to_lowercase();
                let mut after = i + length;
                while chars.get(after).is_some_and(|d| d.is_whitespace()) {
                    after += 1;
                }
                if chars.get(after) == Some(&':') && chars.get(after + 1) == Some(&':') {
                    (Token::Axis(name), after + 2 - i)
                } else if operator_position {
                    let operator = match name.as_str() {
                        "and" => "and",
                        "or" => "or",
                        "div" => "div",
                        "mod" => "mod",
                        _ => "?",
                    };
                    (Token::Operator(operator), length)
                } else {
                    (Token::Name(name), length)
                }
            }
            _ => (Token::Other, 1),
        };
        tokens.push(token);
        i += length.max(1);
    }
    tokens
}

/// What an operand evaluates to, as far as reading text goes.
#[derive(Debug, PartialEq, Eq)]
enum Operand {
    /// Elements, text nodes or the document: their string value is their text.
    Nodes,
    /// Attributes, a literal, a number or a function's result.
    Value,
}

/// The index of the bracket or parenthesis that closes the one opened at `open`.
fn closing(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, token) in tokens.iter().enumerate().skip(open) {
        match token {
            Token::Open | Token::OpenBracket => depth += 1,
            Token::Close | Token::CloseBracket => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// Splits `tokens` at depth 0 where `split` holds.
fn split_top(tokens: &[Token], split: impl Fn(&Token) -> bool) -> Vec<&[Token]> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (k, token) in tokens.iter().enumerate() {
        match token {
            Token::Open | Token::OpenBracket => depth += 1,
            Token::Close | Token::CloseBracket => depth = depth.saturating_sub(1),
            t if depth == 0 && split(t) => {
                parts.push(tokens.get(start..k).unwrap_or_default());
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(tokens.get(start..).unwrap_or_default());
    parts
}

/// What `tokens` (one operand: no operator or comma at depth 0) evaluates to.
fn classify(tokens: &[Token]) -> Operand {
    let branches = split_top(tokens, |t| *t == Token::Union);
    if branches
        .iter()
        .any(|branch| classify_path(branch) == Operand::Nodes)
    {
        Operand::Nodes
    } else {
        Operand::Value
    }
}

/// What a path (no union at depth 0) evaluates to: decided by its last step.
fn classify_path(tokens: &[Token]) -> Operand {
    let steps = split_top(tokens, |t| matches!(t, Token::Slash | Token::DoubleSlash));
    let last = steps.last().copied().unwrap_or_default();
    match last.first() {
        // `/` alone, or a path ending in `/`: the document, whose string value is all its text.
        None => {
            if steps.len() > 1 {
                Operand::Nodes
            } else {
                Operand::Value
            }
        }
        Some(Token::At | Token::Literal(_) | Token::Number | Token::Dollar) => Operand::Value,
        Some(Token::Axis(axis)) if axis == "attribute" || axis == "namespace" => Operand::Value,
        Some(Token::Name(name)) if last.get(1) == Some(&Token::Open) => {
            if name == "id" || crate::words!(TEXT_NODE_TESTS).contains(name) {
                Operand::Nodes
            } else {
                Operand::Value
            }
        }
        Some(Token::Open) => {
            let end = closing(last, 0);
            classify(last.get(1..end).unwrap_or_default())
        }
        Some(Token::Dot | Token::DotDot | Token::Name(_) | Token::Star | Token::Axis(_)) => {
            Operand::Nodes
        }
        Some(_) => Operand::Value,
    }
}

/// The operand that ends just before `at` (walking back to an operator, a comma or an opening
/// bracket at the same depth).
fn operand_before(tokens: &[Token], at: usize) -> &[Token] {
    let mut depth = 0usize;
    let mut start = at;
    while start > 0 {
        match tokens.get(start - 1) {
            Some(Token::Close | Token::CloseBracket) => depth += 1,
            Some(Token::Open | Token::OpenBracket) if depth == 0 => break,
            Some(Token::Open | Token::OpenBracket) => depth -= 1,
            Some(Token::Operator(_) | Token::Comma) if depth == 0 => break,
            _ => {}
        }
        start -= 1;
    }
    tokens.get(start..at).unwrap_or_default()
}

/// The operand that starts just after `at`.
fn operand_after(tokens: &[Token], at: usize) -> &[Token] {
    let mut depth = 0usize;
    let mut end = at + 1;
    while let Some(token) = tokens.get(end) {
        match token {
            Token::Open | Token::OpenBracket => depth += 1,
            Token::Close | Token::CloseBracket if depth == 0 => break,
            Token::Close | Token::CloseBracket => depth -= 1,
            Token::Operator(_) | Token::Comma if depth == 0 => break,
            _ => {}
        }
        end += 1;
    }
    tokens.get(at + 1..end).unwrap_or_default()
}

/// Where an XPath turns elements' text into a string or a number, if it does.
fn reads_text(tokens: &[Token]) -> Option<String> {
    for (k, token) in tokens.iter().enumerate() {
        match token {
            Token::Name(name)
                if tokens.get(k + 1) == Some(&Token::Open)
                    && crate::words!(TEXT_NODE_TESTS).contains(name) =>
            {
                return Some(format!("{name}()"));
            }
            Token::Operator(operator) => {
                let sides = [operand_before(tokens, k), operand_after(tokens, k)];
                // `and`/`or` take booleans: a node-set there is only tested for being empty.
                if !matches!(*operator, "and" | "or")
                    && sides.iter().any(|side| classify(side) == Operand::Nodes)
                {
                    let kind = match *operator {
                        "=" | "!=" | "<" | "<=" | ">" | ">=" => "a comparison",
                        _ => "arithmetic",
                    };
                    return Some(format!("{kind} ('{operator}')"));
                }
            }
            Token::Name(name)
                if tokens.get(k + 1) == Some(&Token::Open)
                    && !crate::words!(NO_STRING_FUNCTIONS).contains(name) =>
            {
                let end = closing(tokens, k + 1);
                let arguments = tokens.get(k + 2..end).unwrap_or_default();
                // With no argument these read the context node: `normalize-space()` is
                // `normalize-space(.)`.
                if arguments.is_empty() && crate::words!(CONTEXT_STRING_FUNCTIONS).contains(name) {
                    return Some(format!("{name}()"));
                }
                if split_top(arguments, |t| *t == Token::Comma)
                    .iter()
                    .any(|argument| classify(argument) == Operand::Nodes)
                {
                    return Some(format!("{name}( on an element's text"));
                }
            }
            _ => {}
        }
    }
    None
}

/// The attributes an XPath reads (`@name`, `attribute::name`), local names lower-cased; `*` for
/// any.
fn attributes_read(tokens: &[Token]) -> impl Iterator<Item = String> + '_ {
    tokens.windows(2).filter_map(|pair| {
        let reads = match pair.first() {
            Some(Token::At) => true,
            Some(Token::Axis(axis)) => axis == "attribute",
            _ => false,
        };
        if !reads {
            return None;
        }
        Some(match pair.get(1) {
            Some(Token::Name(name)) => name.rsplit(':').next().unwrap_or(name).to_owned(),
            _ => "*".to_owned(),
        })
    })
}

/// The first attribute read or text read in an XPath expression that could depend on what a
/// field holds.
pub fn xpath_value_test(xpath: &str) -> Option<ValueTest> {
    value_test_of(&tokenize(xpath))
}

/// Both questions the selector guard asks of an XPath, from one tokenization: its first value
/// test ([`xpath_value_test`]) and whether it reads `tabindex` ([`xpath_tests_tab_stop`]).
pub fn xpath_reads(xpath: &str) -> (Option<ValueTest>, bool) {
    let tokens = tokenize(xpath);
    (value_test_of(&tokens), tests_tab_stop(&tokens))
}

/// Every attribute an XPath reads (presence tests too: `@href` alone cannot be told from a
/// comparison without evaluating), `*` for any, and whether it reads elements' text.
pub fn xpath_content_reads(xpath: &str) -> ContentReads {
    let tokens = tokenize(xpath);
    let mut reads = ContentReads::default();
    for name in attributes_read(&tokens) {
        reads.add(name);
    }
    reads.text = reads_text(&tokens).is_some();
    reads
}

fn value_test_of(tokens: &[Token]) -> Option<ValueTest> {
    if let Some(name) =
        attributes_read(tokens).find(|name| name == "*" || !is_structural_attribute(name))
    {
        return Some(ValueTest::Attribute(name));
    }
    if attributes_read(tokens).any(|name| name == "class") {
        let state = tokens.iter().find_map(|token| match token {
            Token::Literal(text) if is_state_class(text) => Some(text.clone()),
            _ => None,
        });
        if let Some(class) = state {
            return Some(ValueTest::StateClass(class));
        }
    }
    reads_text(tokens).map(ValueTest::Text)
}

/// Whether an XPath reads `tabindex` (a radio group's tab stop is its checked button).
pub fn xpath_tests_tab_stop(xpath: &str) -> bool {
    tests_tab_stop(&tokenize(xpath))
}

fn tests_tab_stop(tokens: &[Token]) -> bool {
    attributes_read(tokens).any(|name| name == "tabindex")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(name: &str) -> Option<ValueTest> {
        Some(ValueTest::Attribute(name.to_owned()))
    }

    fn reads(xpath: &str) -> bool {
        matches!(xpath_value_test(xpath), Some(ValueTest::Text(_)))
    }

    /// The guard's one pass answers both questions as the two separate readings do.
    #[test]
    fn one_reading_answers_both_questions() {
        for xpath in [
            "//input[@name='email']",
            "//*[@tabindex='0']",
            "//*[@tabindex='0'][@value='a']",
            "//textarea[contains(.,'a')]",
            "//input[contains(@class, 'ng-not-empty')]",
            "",
        ] {
            assert_eq!(
                xpath_reads(xpath),
                (xpath_value_test(xpath), xpath_tests_tab_stop(xpath)),
                "{xpath}"
            );
        }
    }

    #[test]
    fn attribute_reads_are_found_by_name() {
        assert_eq!(xpath_value_test("//input[@value='a']"), attr("value"));
        assert_eq!(xpath_value_test("//input[@ value='a']"), attr("value"));
        assert_eq!(xpath_value_test("//input[attribute::value]"), attr("value"));
        assert_eq!(
            xpath_value_test("//input[attribute :: value]"),
            attr("value")
        );
        assert_eq!(xpath_value_test("//input[@*='a']"), attr("*"));
        assert_eq!(xpath_value_test("//input[@VALUE]"), attr("value"));
        assert_eq!(xpath_value_test("//input[@data-v]"), attr("data-v"));
        assert_eq!(xpath_value_test("//input[@name='email']"), None);
        assert_eq!(
            xpath_value_test("//input[contains(@class, 'ng-not-empty')]"),
            Some(ValueTest::StateClass("ng-not-empty".to_owned()))
        );
        assert_eq!(
            xpath_value_test("//form[contains(@class, 'login')]//button"),
            None
        );
        assert!(xpath_tests_tab_stop("//*[@tabindex='0']"));
        assert!(!xpath_tests_tab_stop("//*[@title='tabindex']"));
    }

    #[test]
    fn text_reads_are_found_on_either_side_and_in_any_argument() {
        for xpath in [
            "//textarea[contains(.,'a')]",
            "//form[.='a']",
            "//*[text()='a']",
            "//div[@id='pin'][4000<.]",
            "//div[@id='pin'][5000 > .]",
            "//div[@id='pin']['4821'=.]",
            "//textarea[(.)='alpha bravo']",
            "//div[contains('4821', .)]",
            "//div[id(.)]",
            "//div[string-length(.) > 3]",
            "//div[-. = -4821]",
            "//div[. * 1 = 4821]",
            "//div[. + 0 = 4821]",
            "//div[. div 1 = 4821]",
            "//div[starts-with(normalize-space(.), '48')]",
            "//div[substring(., 1, 1) = '4']",
            "//label[span = '4821']",
            "//label[./span = '4821']",
            "//div[self::div = '4821']",
            "//div[(./span | ./b) = '4821']",
            "//div[not(. != '4821')]",
            "//div[concat('', ..) = 'x']",
            "//div[/ = 'x']",
            "//div[id('pin') = '4821']",
            "//div[following-sibling::node()]",
            "//div[STRING(.)='x']",
            "//div[@id='pin'][number() > 4000]",
            "//textarea[starts-with(normalize-space(), 'al')]",
            "//textarea[substring-after(string(), ' ') = 'bravo']",
            "//textarea[string-length() = 11]",
            "//*[local-name()='svg'][lang(//textarea)]",
        ] {
            assert!(reads(xpath), "{xpath}");
        }
    }

    #[test]
    fn structural_xpaths_pass() {
        for xpath in [
            "//input[@name='email']",
            "//button[contains(@class,'x')][1]",
            "(//li)[position()=2]",
            "(//li)[last()]",
            "//ul[count(li) > 3]",
            "//div[@id='a']/following-sibling::div[1]",
            "//form[.//input[@type='password']]//button",
            "//div[not(@hidden) and @role='dialog']",
            "//*[local-name()='svg']",
            "//div[.]",
            "//input[@type='checkbox' or @type = 'radio']",
            "//a[starts-with(@href, '/account')]",
            "//div[@id='x']//*[@role='button'][2]",
        ] {
            assert_eq!(xpath_value_test(xpath), None, "{xpath}");
        }
    }
}
