//! Which selectors could read what a field holds. On a page with a secret field, a CSS or XPath
//! selector that tests a value (an attribute a page may copy the value into, a pseudo-class such
//! as `:placeholder-shown`, an element's text) answers a yes/no question about the secret each
//! time it is tried: the executor refuses it before it is evaluated (`dom::secret`).
//!
//! Both analyses read the selector as the browser does, with a tokenizer of the selector
//! language, not by searching its text: comments, escapes and strings are where a
//! hand-made scanner and the browser disagree, and each disagreement is a way past the guard
//! (`:/**/placeholder-shown`, `.\"` that opens no string, `['4821'=.]`). Pure, so the rules
//! are tested natively; whether a refusal happens depends only on the selector and on which
//! secret fields the page has, never on what they hold.

mod css;
mod xpath;

pub use css::{css_content_reads, css_reads, css_tests_tab_stop, css_value_test};
pub use xpath::{xpath_content_reads, xpath_reads, xpath_tests_tab_stop, xpath_value_test};

/// Why a selector may test a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueTest {
    /// An attribute compared with a value (`[value^="a"]`, `@data-v`), lower-cased.
    Attribute(String),
    /// A pseudo-class that is not known to be structural (`:placeholder-shown`, `:checked`,
    /// or one this analysis does not know).
    PseudoClass(String),
    /// XPath reading an element's text (`text()`, `string(.)`, a comparison with `.`…).
    Text(String),
    /// A class that frameworks set from what a field holds or whether it is chosen
    /// (`ng-empty`, `is-checked`, `StripeElement--complete`, `MuiFormLabel-filled`).
    StateClass(String),
}

/// What a CSS or XPath selector reads of the page's content, whatever the page holds: the
/// second guard (`dom::secret::guard_redacted`) refuses a selector when part of what it reads
/// is redacted for the model (a token in an `href`, a card number in a paragraph), because a
/// match against the unredacted page would answer a guess about the hidden part. Unlike
/// [`ValueTest`], structural attributes count too: an `href` tells what a link is, and may
/// still hold a password sent by GET.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContentReads {
    /// The attributes whose value it compares (CSS `[name=…]`, `[name*=…]`…; XPath every
    /// attribute it reads), lower-cased, each once; `*` for any attribute.
    pub attributes: Vec<String>,
    /// Whether it reads elements' text (XPath `text()`, `contains(., …)`, `. = …`).
    pub text: bool,
}

impl ContentReads {
    /// Notes that attribute `name` is read.
    fn add(&mut self, name: String) {
        if !self.attributes.contains(&name) {
            self.attributes.push(name);
        }
    }

    /// Whether it reads nothing of the page's content.
    pub fn is_empty(&self) -> bool {
        self.attributes.is_empty() && !self.text
    }
}

/// How every redaction marker starts (`[redacted]`, `[redacted card number]`…:
/// `dom::redact`, `protocol::secret_query::REDACTED`).
const MARKER_START: &str = "[redacted";

/// The pieces of `shown` (a text as redacted for the model) between its redaction markers:
/// each is a stretch of the original text that redaction left as it was. A marker is
/// `[redacted` up to the next `]` (or the end of the text), also where the page itself wrote
/// one: the pieces are a function of `shown` alone.
pub fn shown_pieces(shown: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(shown);
    std::iter::from_fn(move || {
        let text = rest?;
        match text.find(MARKER_START) {
            Some(at) => {
                let marker = text.get(at..).unwrap_or("");
                rest = marker.find(']').and_then(|end| marker.get(end + 1..));
                text.get(..at)
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

/// Whether `shown` holds a redaction marker (see [`shown_pieces`]).
pub fn has_marker(shown: &str) -> bool {
    shown.contains(MARKER_START)
}

/// Whether a text-like selector (text, name, label, placeholder) may match a text the model is
/// shown as `shown`: `matches` (the engine's own test, of normalized text) holds for one of its
/// [`shown_pieces`], or, `exact`, for the whole of a text without a marker.
///
/// The answer depends only on `shown`, so trying guesses reveals nothing observe does not
/// show: a guess at a redacted part (`token=q7Z`, a card number) never matches, right or
/// wrong, nor does a query that spans a marker or reads its letters (`e` in `[redacted]`,
/// which would otherwise match or not as the hidden value holds an `e`). And it implies the
/// engine's match on the unredacted text (each piece is a stretch of it; a text without a
/// marker is it), so an engine need ask only the elements that matched that text: few, and
/// whose answer stays unchanged whenever redaction changes nothing.
pub fn matches_shown(shown: &str, exact: bool, matches: impl Fn(&str) -> bool) -> bool {
    if exact {
        !has_marker(shown) && matches(shown)
    } else {
        shown_pieces(shown).any(matches)
    }
}

/// Attributes that say what a field is, never what it holds: tests on them are allowed.
const STRUCTURAL_ATTRIBUTES: &[&str] = &[
    "id",
    "name",
    "type",
    "class",
    "role",
    "autocomplete",
    "placeholder",
    "aria-label",
    "aria-labelledby",
    "aria-describedby",
    "aria-required",
    "aria-disabled",
    "aria-hidden",
    "title",
    "for",
    "form",
    "href",
    "src",
    "alt",
    "lang",
    "dir",
    "tabindex",
    "inputmode",
    "maxlength",
    "minlength",
    "size",
    "pattern",
    "required",
    "disabled",
    "readonly",
    "autofocus",
    "spellcheck",
    "autocapitalize",
    "enterkeyhint",
    "data-testid",
    "data-test-id",
    "data-test",
    "data-qa",
    "data-cy",
    "style",
    "hidden",
    "contenteditable",
    "method",
    "action",
];

/// Words in a class name that frameworks use for a field's state derived from its value:
/// empty or filled (Angular's `ng-empty`/`ng-not-empty`, MUI's `-filled` and `-shrink`),
/// valid, dirty or complete (Angular, Bootstrap's `is-invalid`, Stripe's `--complete`), checked
/// or selected (Element's `is-checked`), a password's strength. On a page with a secret field a
/// class test with one of them is a test of the value.
const STATE_CLASS_WORDS: &[&str] = &[
    "empty", "filled", "checked", "selected", "valid", "dirty", "pristine", "touched", "value",
    "strength", "weak", "strong", "shrink", "complete",
];

/// Whether a class name (or a `class` attribute's compared text) names a field's state.
pub fn is_state_class(class: &str) -> bool {
    let class = class.to_ascii_lowercase();
    crate::words!(STATE_CLASS_WORDS)
        .iter()
        .any(|word| class.contains(word))
}

/// Whether reading attribute `name` tells what a field is, never what it holds.
pub fn is_structural_attribute(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name != "value" && crate::words!(STRUCTURAL_ATTRIBUTES).contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(shown: &str) -> Vec<&str> {
        shown_pieces(shown).collect()
    }

    #[test]
    fn pieces_are_the_text_between_markers() {
        assert_eq!(pieces("no marker"), ["no marker"]);
        assert_eq!(
            pieces("reset?token=[redacted] or card [redacted card number]."),
            ["reset?token=", " or card ", "."]
        );
        assert_eq!(pieces("[redacted token]"), ["", ""]);
        // An unclosed marker runs to the end.
        assert_eq!(pieces("a [redacted b"), ["a "]);
    }

    /// A case-insensitive substring test, as the text engines' matcher.
    fn contains(needle: &str) -> impl Fn(&str) -> bool + '_ {
        move |text: &str| text.to_lowercase().contains(&needle.to_lowercase())
    }

    /// The guesses at a redacted value answer alike, right or wrong: the answer is a function
    /// of the shown text, and the text shown is the same for both secrets.
    #[test]
    fn guesses_at_a_redacted_part_never_match() {
        let shown = "Reset your password: https://ex.test/reset?token=[redacted] or card [redacted card number]";
        for guess in [
            "token=q7Z",
            "token=q8",
            "4111 1111 1111 1111",
            "4111 1111 1111 1112",
            "cted",
            "token=[redacted]",
            "redacted",
        ] {
            assert!(!matches_shown(shown, false, contains(guess)), "{guess}");
        }
        for visible in ["Reset your password", "reset?token=", "or card", "EX.TEST"] {
            assert!(matches_shown(shown, false, contains(visible)), "{visible}");
        }
        // Exact: a text with a marker never equals anything; one without is itself.
        assert!(!matches_shown(shown, true, |t| t == shown));
        assert!(matches_shown("Pay now", true, |t| t == "Pay now"));
        assert!(!matches_shown("Pay now", true, |t| t == "Pay"));
    }

    #[test]
    fn content_reads_list_every_compared_attribute() {
        let reads =
            css_content_reads(r#"a[href*="xq7=hunter2"]:not([title=x]), [HREF^=y], [data-x]"#);
        assert_eq!(reads.attributes, ["href", "title"]);
        assert!(!reads.text);
        // Escaped, nested in :has(), through a namespace prefix.
        assert_eq!(
            css_content_reads(r#"div:has(> a[h\72 ef$="2"])"#).attributes,
            ["href"]
        );
        assert_eq!(css_content_reads(r#"[*|src~="a"]"#).attributes, ["src"]);
        // Presence, ids and classes compare no value.
        assert!(css_content_reads("a[href], #row-1500 button, .x").is_empty());

        let reads = xpath_content_reads("//a[contains(@href, 'pw=')][@title]");
        assert_eq!(reads.attributes, ["href", "title"]);
        assert!(!reads.text);
        assert!(xpath_content_reads("//p[contains(., '4111')]").text);
        assert!(xpath_content_reads("//p[text()='x']").text);
        assert_eq!(xpath_content_reads("//*[@*='x']").attributes, ["*"]);
        assert!(xpath_content_reads("//div/p[2]").is_empty());
    }
}
