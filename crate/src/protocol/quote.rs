//! Quoting text inside a message, as Rust's `{:?}` does for the cases that matter here, without
//! linking core's Unicode tables.
//!
//! Messages quote what a page or a model wrote (`has no option "Blue"`), and the quoting is
//! there so hidden characters stay visible: a zero-width space, a bidi override or a soft hyphen
//! in a label would otherwise look like the text the user expects. `format!("{:?}")` does this,
//! but it decides what to escape with core's printable and grapheme tables (about 6 KB of data
//! and code in each wasm module); [`Quoted`] escapes the same way from a short list of code
//! points.
//!
//! Differences from `{:?}`, all deliberate, all in what is written as it is rather than escaped:
//! - nonspacing and enclosing marks (`{:?}` writes the accent of a decomposed `é` as
//!   `e\u{301}`, and every vowel sign of Devanagari, Thai or Arabic text likewise) are written
//!   as they are: they are visible, on their letter. The invisible ones are still escaped:
//!   variation selectors (U+FE00–FE0F, U+E0100–E01EF, which can carry hidden data), the
//!   combining grapheme joiner U+034F, Mongolian and Khmer ones (U+180B–180F, U+17B4–17B5);
//! - code points unassigned in Unicode below U+E0000, except the noncharacters, are written as
//!   they are (a browser shows a box for them; `{:?}` follows the toolchain's Unicode version).
//!
//! Everything `Quoted` escapes, `{:?}` escapes the same way (a test checks every code point).

use std::fmt::{self, Display, Formatter, Write};

/// `text` in double quotes, `"` and `\` escaped, control and invisible characters as
/// `\u{hex}`: `{:?}` of a `str`, without its tables (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct Quoted<'a>(pub &'a str);

impl Display for Quoted<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_quoted(f, self.0, '"')
    }
}

/// `c` in single quotes, as `{:?}` writes a `char` (`'` escaped, `"` not), with
/// [`Quoted`]'s escapes.
#[derive(Debug, Clone, Copy)]
pub struct QuotedChar(pub char);

impl Display for QuotedChar {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut buffer = [0; 4];
        write_quoted(f, self.0.encode_utf8(&mut buffer), '\'')
    }
}

/// `text` between two `quote`s, escaping `quote`, `\`, `\0 \t \r \n` with a backslash and the
/// [`is_hidden`] characters as `\u{hex}`; runs of other characters are written in one piece.
fn write_quoted(f: &mut Formatter<'_>, text: &str, quote: char) -> fmt::Result {
    f.write_char(quote)?;
    let mut start = 0;
    for (at, c) in text.char_indices() {
        let short = match c {
            '\0' => '0',
            '\t' => 't',
            '\r' => 'r',
            '\n' => 'n',
            '\\' => '\\',
            _ if c == quote => quote,
            _ if is_hidden(c) => '\0',
            _ => continue,
        };
        f.write_str(text.get(start..at).unwrap_or_default())?;
        f.write_char('\\')?;
        if short == '\0' {
            write_hex(f, u32::from(c))?;
        } else {
            f.write_char(short)?;
        }
        start = at + c.len_utf8();
    }
    f.write_str(text.get(start..).unwrap_or_default())?;
    f.write_char(quote)
}

/// `u{` + `value` in lowercase hex without leading zeros + `}`, as `{:?}` writes a code point.
fn write_hex(f: &mut Formatter<'_>, value: u32) -> fmt::Result {
    f.write_str("u{")?;
    let mut shift = 20;
    while shift > 0 && value >> shift == 0 {
        shift -= 4;
    }
    loop {
        f.write_char(char::from_digit((value >> shift) & 0xf, 16).unwrap_or('0'))?;
        if shift == 0 {
            break;
        }
        shift -= 4;
    }
    f.write_char('}')
}

/// Whether `c` is a character a reader may not see, or may not see for what it is: controls,
/// spaces other than U+0020, line and paragraph separators, format characters (zero-width,
/// bidi, soft hyphen, tags), invisible marks (variation selectors), private use and
/// noncharacters. `{:?}` escapes each of these (see the module documentation).
fn is_hidden(c: char) -> bool {
    let u = u32::from(c);
    if u < 0x7f {
        return u < 0x20;
    }
    matches!(
        u,
        // C1 controls and DEL; no-break space; soft hyphen.
        0x7f..=0xa0 | 0xad
        // Combining grapheme joiner.
        | 0x34f
        // Arabic, Syriac format characters.
        | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890..=0x891 | 0x8e2
        // Ogham space; Khmer inherent vowels; Mongolian variation selectors and vowel separator.
        | 0x1680 | 0x17b4..=0x17b5 | 0x180b..=0x180f
        // Spaces, zero-width characters, direction marks, separators, bidi embeddings and
        // overrides, word joiner, invisible operators, bidi isolates, deprecated formats.
        | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x206f
        // Ideographic space.
        | 0x3000
        // Private use.
        | 0xe000..=0xf8ff
        // Noncharacters.
        | 0xfdd0..=0xfdef
        // Variation selectors.
        | 0xfe00..=0xfe0f
        // Byte order mark (zero-width no-break space).
        | 0xfeff
        // Interlinear annotation controls (and the unassigned code points before them).
        | 0xfff0..=0xfffb
        // Kaithi number signs, Egyptian hieroglyph format controls, shorthand format
        // controls, musical symbol formats.
        | 0x110bd | 0x110cd | 0x13430..=0x1343f | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a
        // Tags, variation selectors supplement, private use planes.
        | 0xe0000..
    ) || u & 0xfffe == 0xfffe
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_is_debug_on_ordinary_text() {
        let samples = [
            "",
            "Blue",
            "plain ASCII with spaces ~!@#$%^&*()_+{}|:<>?`-=[];',./",
            "a \"quoted\" word and a back\\slash",
            "two\nlines\r\nand a\ttab and a nul \0 here",
            "bell \u{7} escape \u{1b} delete \u{7f} next line \u{85}",
            "accents: é à ü ñ ç, Ærøskøbing, Œuvre, ß",
            "Ελληνικά, русский, עברית, العربية",
            "中文 日本語 한국어 ｶﾀｶﾅ",
            "emoji: 😀 🎉 👍 👍🏽 🇫🇷 🏳 𝄞 \u{1f600}",
            "zero\u{200b}width, joiner\u{200d}, non\u{200c}joiner, word\u{2060}joiner",
            "bidi \u{202e}override\u{202c} \u{2066}isolate\u{2069} \u{200e}\u{200f}",
            "soft\u{ad}hyphen, no-break\u{a0}space, thin\u{2009}space, \u{3000}",
            "line\u{2028}separator, paragraph\u{2029}separator",
            "bom \u{feff} and heart \u{2764}\u{fe0f} and tag \u{e0067}\u{e007f}",
            "private \u{e000} \u{f8ff} \u{f0000} nonchar \u{fffe} \u{ffff} \u{10ffff}",
            "replacement \u{fffd} object \u{fffc}",
            "'single' quotes stay",
        ];
        for sample in samples {
            assert_eq!(
                Quoted(sample).to_string(),
                format!("{sample:?}"),
                "{sample:?}"
            );
        }
    }

    #[test]
    fn quoted_char_is_debug_on_ordinary_characters() {
        for c in [
            'a', '"', '\'', '\\', 'é', '中', '😀', '}', '\u{200b}', '\u{ad}',
        ] {
            assert_eq!(QuotedChar(c).to_string(), format!("{c:?}"), "{c:?}");
        }
    }

    /// Every code point `Quoted` escapes, `{:?}` escapes identically; where they differ, `{:?}`
    /// escapes a mark or an unassigned code point that `Quoted` writes as it is.
    #[test]
    fn quoted_escapes_a_subset_of_debug() {
        let mut differing = 0;
        for c in (0..=0x10_ffff).filter_map(char::from_u32) {
            let text = c.to_string();
            let ours = Quoted(&text).to_string();
            let debug = format!("{text:?}");
            if ours != debug {
                assert_eq!(ours, format!("\"{c}\""), "{debug}");
                differing += 1;
            }
        }
        // Marks (about 2,000) and the unassigned code points below U+E0000.
        assert!(differing > 0);
    }
}
