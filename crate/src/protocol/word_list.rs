//! Word lists packed into one string at compile time.
//!
//! A `&[&str]` table costs the wasm its words plus an 8-byte pointer and length per word, and
//! those pairs compress poorly (issue 17: the executor's long lists carried 4.6 KB of them).
//! [`words!`](crate::words) turns a `const` list into one `|`-separated string in the constant
//! evaluator, so the binary holds only the text, and the list stays readable in the source. The
//! `const` list itself is never emitted unless code outside a constant uses it.
//!
//! For lists read once per review or per page, not in a selector engine's inner loop: a lookup
//! walks the string.

/// A word list packed by [`words!`](crate::words): its words joined by `|`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words(&'static str);

impl Words {
    /// The packed text (words joined by `|`); [`packed_text`] made it from a list.
    pub const fn from_packed(text: &'static str) -> Self {
        Self(text)
    }

    /// The words, in the list's order.
    pub fn iter(self) -> std::str::Split<'static, char> {
        self.0.split(SEPARATOR)
    }

    /// Whether `word` is one of the words.
    pub fn contains(self, word: &str) -> bool {
        self.iter().any(|w| w == word)
    }
}

/// Between two words of a packed list; no word may contain it (checked when packing).
pub const SEPARATOR: char = '|';

/// The length of `list` packed: its words and a separator between each two.
pub const fn packed_len(list: &[&str]) -> usize {
    let mut len = 0;
    let mut rest = list;
    while let [word, tail @ ..] = rest {
        len += word.len();
        if !tail.is_empty() {
            len += 1;
        }
        rest = tail;
    }
    len
}

/// `list` packed into `N` bytes ([`packed_len`]); fails to compile if a word is empty or holds
/// the separator (it would read back as other words).
#[allow(
    clippy::indexing_slicing,
    clippy::panic,
    reason = "evaluated by the compiler only (`words!`): an index out of range or a bad word \
              stops the build, never the extension"
)]
pub const fn packed_text<const N: usize>(list: &[&str]) -> [u8; N] {
    let mut out = [0u8; N];
    let mut at = 0;
    let mut i = 0;
    while i < list.len() {
        if i > 0 {
            out[at] = SEPARATOR as u8;
            at += 1;
        }
        let word = list[i].as_bytes();
        if word.is_empty() {
            panic!("a packed word list holds an empty word");
        }
        let mut j = 0;
        while j < word.len() {
            if word[j] == SEPARATOR as u8 {
                panic!("a packed word list holds a word with the separator");
            }
            out[at] = word[j];
            at += 1;
            j += 1;
        }
        i += 1;
    }
    if at != N {
        panic!("packed_text: wrong length");
    }
    out
}

/// The `const` word list `$list` (a `&[&str]`) as [`Words`], packed by the compiler.
#[macro_export]
macro_rules! words {
    ($list:expr) => {{
        const LEN: usize = $crate::protocol::word_list::packed_len($list);
        const BYTES: [u8; LEN] = $crate::protocol::word_list::packed_text::<LEN>($list);
        const TEXT: &str = match ::std::str::from_utf8(&BYTES) {
            Ok(text) => text,
            // Whole UTF-8 words joined by an ASCII byte are UTF-8; the compiler checks it.
            #[allow(
                clippy::panic,
                reason = "constant evaluation: fails the build, not the extension"
            )]
            Err(_) => panic!("a packed word list is not UTF-8"),
        };
        $crate::protocol::word_list::Words::from_packed(TEXT)
    }};
}

#[cfg(test)]
mod tests {
    const LIST: &[&str] = &["pay", "check out", "löschen", "пароль", "x"];

    #[test]
    fn packed_words_read_back_as_the_list() {
        let packed = crate::words!(LIST);
        assert_eq!(packed.iter().collect::<Vec<_>>(), LIST);
        for word in LIST {
            assert!(packed.contains(word), "{word}");
        }
        for other in ["", "pa", "pay|check out", "check", "X", "|"] {
            assert!(!packed.contains(other), "{other}");
        }
    }

    #[test]
    fn one_word_packs_alone() {
        const ONE: &[&str] = &["only"];
        assert_eq!(crate::words!(ONE).iter().collect::<Vec<_>>(), ["only"]);
    }
}
