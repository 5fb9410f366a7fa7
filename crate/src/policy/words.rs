//! Finding risky words in what a page calls a control, or in an address, after normalizing the
//! forms a page or a model may write them in: percent-encoding (`%64elete`, twice encoded too),
//! letter case, joined and split words (`deleteAccount`, `delete_account`, `delete-account`,
//! `deleteaccount`), invisible characters (`de\u{200b}lete`).
//!
//! Where a word stands matters for words that are nouns as often as verbs: "Book now" books,
//! "Favourite book" names a book. Such a word counts only at the verb position (the first word)
//! or in its plain verb forms in an address (`/book`, not `/books`).
//!
//! Accents are folded (`Löschen`, `lo\u{308}schen` and `loschen` are one word), so a word in
//! another language matches however the page composed its letters.
//!
//! A negation lowers no risk: "Don't delete", "Undo send" and "Nicht löschen" hold a risky
//! verb and ask. Three red teams (sessions 17-19) hid a negation the page's text opens with
//! (white on a cover, clipped, indented away, a line of its own, a cover the pointer passes
//! through, a web font drawing it as nothing) so that the review read "Don't delete" where
//! the user saw "delete"; no reading of the page proves a word seen, so no word the page
//! writes may make a risky verb safe. The cost is a question on an honest "Don't delete".

/// Risky words that are as often nouns as verbs: they count only at the verb position.
/// ("compra" is Italian "buy!" and Spanish and Portuguese "purchase", as in "Mis compras".)
/// Each as its [`words`] (a test holds them to it), compared with a risky word's.
const NOUN_OR_VERB: &[&[&str]] = &[
    &["book"],
    &["order"],
    &["transfer"],
    &["check", "out"],
    &["checkout"],
    &["compra"],
];

/// Prefixes that make one longer word of the word they come before ("repayment", "undelete"):
/// a spelled run is not cut after them ([`spelled_runs_cut`]).
const ONE_WORD_PREFIXES: &[&str] = &["re", "un", "pre"];

/// Names of at most this many words are short: in a choice's name (an option, a radio button,
/// a tab) a risky verb counts anywhere in a short name ("Permanently delete", German "Konto
/// löschen" with its verb last), and only first in a longer one, which describes more than it
/// commands.
const SHORT_NAME_WORDS: usize = 5;

/// Endings that keep a word's meaning: "delete" also catches "deletion", "pay" also "payment".
const WORD_ENDINGS: &[&str] = &[
    "", "s", "es", "ed", "ing", "ion", "ions", "ment", "ments", "al",
];

/// Endings that keep a noun-or-verb word a verb ("book", "booking"), not a plural noun.
const VERB_ENDINGS: &[&str] = &["", "ing"];

/// Words that, glued after a risky word in one lowercase token (`deleteaccount`), still name
/// what it acts on.
const JOINED_OBJECTS: &[&str] = &[
    "account",
    "accounts",
    "all",
    "now",
    "order",
    "orders",
    "item",
    "items",
    "user",
    "users",
    "data",
    "card",
    "cart",
    "file",
    "files",
    "message",
    "messages",
    "payment",
    "profile",
    "it",
    "everything",
    "me",
    "my",
    "this",
    "repo",
    "repository",
    "project",
    "subscription",
    "money",
];

/// Where in a text a word is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// Anywhere (the name of a command: a button, a link, a menu item).
    Anywhere,
    /// Only as the text's first word, where an English command puts its verb (the name of a
    /// field, a combobox).
    VerbOnly,
    /// In a choice (an option, a radio button, a tab): as [`Position::VerbOnly`], and also
    /// anywhere in a short name for a word that is only a verb ("Permanently delete", "Konto
    /// löschen"); in verb forms only ("Payment history" is no "pay").
    ShortName,
    /// In an address: every word counts, noun-or-verb words only in their verb forms.
    Address,
}

/// Decodes `%XX` escapes (up to three rounds, for `%2564`); invalid escapes stay as they are.
pub fn percent_decode(text: &str) -> String {
    let mut current = text.to_owned();
    for _ in 0..3 {
        if !current.contains('%') {
            break;
        }
        let bytes = current.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let byte = bytes.get(i).copied().unwrap_or_default();
            let hex = |at: usize| bytes.get(at).and_then(|b| (*b as char).to_digit(16));
            if byte == b'%' {
                if let (Some(high), Some(low)) = (hex(i + 1), hex(i + 2)) {
                    out.push((high * 16 + low) as u8);
                    i += 3;
                    continue;
                }
            }
            out.push(byte);
            i += 1;
        }
        let decoded = String::from_utf8_lossy(&out).into_owned();
        if decoded == current {
            break;
        }
        current = decoded;
    }
    current
}

/// Characters that render as nothing: a page can put them inside a word to break matching.
/// Combining accents count too: they are folded away with the letters that carry them
/// ([`fold_accents`]), so `o` plus U+0308 reads as `ö` does.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        // Unicode's default-ignorable characters (drawn as nothing: a page can put one inside a
        // word, red team red4, session 18: U+FE0F, U+E0020, U+180E, U+2065, U+17B4, U+1D173),
        // less the Hangul fillers, which separate words (`is_blank_letter`).
        '\u{00ad}'
            | '\u{034f}'
            | '\u{061c}'
            | '\u{17b4}'..='\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{feff}'
            | '\u{fff0}'..='\u{fff8}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e0fff}'
            // Combining marks drawn on a letter (accents, Hebrew and Arabic points): the word
            // reads as its letters.
            | '\u{0300}'..='\u{036f}'
            | '\u{0591}'..='\u{05bd}'
            | '\u{05bf}'
            | '\u{05c1}'..='\u{05c2}'
            | '\u{05c4}'..='\u{05c5}'
            | '\u{05c7}'
            | '\u{0610}'..='\u{061a}'
            | '\u{064b}'..='\u{065f}'
            | '\u{0670}'
            | '\u{06d6}'..='\u{06dc}'
            | '\u{06df}'..='\u{06e4}'
            | '\u{06e7}'..='\u{06e8}'
            | '\u{06ea}'..='\u{06ed}'
            | '\u{1ab0}'..='\u{1aff}'
            | '\u{1dc0}'..='\u{1dff}'
            | '\u{20d0}'..='\u{20ff}'
            | '\u{fe20}'..='\u{fe2f}'
    )
}

/// The Latin letter `c` is drawn as, for letters of other alphabets and styles that look
/// exactly like one (red team red4, session 18: Cyrillic "Dеlеtе", "Раy", mathematical bold
/// and full-width letters, small capitals read as words the risky list does not hold). Only
/// letters a reader cannot tell from the Latin one; other letters are themselves.
fn as_latin(c: char) -> char {
    let code = u32::from(c);
    // Full-width Latin letters.
    if let 0xFF21..=0xFF3A | 0xFF41..=0xFF5A = code {
        return char::from_u32(code - 0xFF21 + u32::from('A')).unwrap_or(c);
    }
    // Mathematical alphanumeric letters: 13 styles of 52 letters (A-Z, a-z) from U+1D400.
    if let 0x1D400..=0x1D6A3 = code {
        let at = (code - 0x1D400) % 52;
        let base = if at < 26 {
            u32::from('A')
        } else {
            u32::from('a') - 26
        };
        return char::from_u32(base + at).unwrap_or(c);
    }
    match c {
        // Cyrillic.
        'А' => 'A',
        'В' => 'B',
        'С' | 'Ϲ' => 'C',
        'Е' => 'E',
        'Н' => 'H',
        'І' => 'I',
        'Ј' => 'J',
        'К' => 'K',
        'М' => 'M',
        'О' => 'O',
        'Р' => 'P',
        'Ѕ' => 'S',
        'Т' => 'T',
        'Х' => 'X',
        'Ү' => 'Y',
        'а' => 'a',
        'с' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' => 'e',
        'һ' => 'h',
        'і' => 'i',
        'ј' => 'j',
        'ӏ' => 'l',
        'о' => 'o',
        'р' => 'p',
        'ԛ' => 'q',
        'ѕ' => 's',
        'ԝ' => 'w',
        'х' => 'x',
        'у' => 'y',
        // Greek.
        'Α' => 'A',
        'Β' => 'B',
        'Ε' => 'E',
        'Ζ' => 'Z',
        'Η' => 'H',
        'Ι' => 'I',
        'Κ' => 'K',
        'Μ' => 'M',
        'Ν' => 'N',
        'Ο' => 'O',
        'Ρ' => 'P',
        'Τ' => 'T',
        'Υ' => 'Y',
        'Χ' => 'X',
        'ο' => 'o',
        'ν' => 'v',
        // Small capitals (drawn as small upper-case letters).
        'ᴀ' => 'a',
        'ʙ' => 'b',
        'ᴄ' => 'c',
        'ᴅ' => 'd',
        'ᴇ' => 'e',
        'ꜰ' => 'f',
        'ɢ' => 'g',
        'ʜ' => 'h',
        'ɪ' => 'i',
        'ᴊ' => 'j',
        'ᴋ' => 'k',
        'ʟ' => 'l',
        'ᴍ' => 'm',
        'ɴ' => 'n',
        'ᴏ' => 'o',
        'ᴘ' => 'p',
        'ʀ' => 'r',
        'ꜱ' => 's',
        'ᴛ' => 't',
        'ᴜ' => 'u',
        'ᴠ' => 'v',
        'ᴡ' => 'w',
        'ʏ' => 'y',
        'ᴢ' => 'z',
        other => other,
    }
}

/// A lowercase word with the accents of Latin letters removed (`löschen` -> `loschen`,
/// `réserver` -> `reserver`, `ß` -> `ss`), so precomposed, decomposed and unaccented spellings
/// are one word.
fn fold_accents(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        let base = match c {
            'à'..='å' | 'ā' | 'ă' | 'ą' => "a",
            'æ' => "ae",
            'ç' | 'ć' | 'č' => "c",
            'ď' => "d",
            'è'..='ë' | 'ē' | 'ė' | 'ę' | 'ě' => "e",
            'ğ' => "g",
            'ì'..='ï' | 'ī' | 'į' | 'ı' => "i",
            'ł' => "l",
            'ñ' | 'ń' | 'ň' => "n",
            'ò'..='ö' | 'ø' | 'ō' | 'ő' => "o",
            'œ' => "oe",
            'ř' => "r",
            'ß' => "ss",
            'ś' | 'š' | 'ş' => "s",
            'ť' | 'ţ' => "t",
            'ù'..='ü' | 'ū' | 'ů' | 'ű' | 'ų' => "u",
            'ý' | 'ÿ' => "y",
            'ź' | 'ż' | 'ž' => "z",
            other => {
                out.push(other);
                continue;
            }
        };
        out.push_str(base);
    }
    out
}

/// The words of `text`, lowercased: split at anything that is not a letter or digit, and at
/// case changes inside a word (`deleteAccount` -> `delete account`, `HTMLDelete` -> `html
/// delete`). Percent escapes are decoded first.
pub fn words(text: &str) -> Vec<String> {
    split_words(text, true).words
}

/// The words of `text`, lowercased, split only at what is not a letter or digit and between
/// letters and digits: letter case says nothing here, so `DeLeTe` and `DELETEaccount` stay
/// one word each (`delete`, `deleteaccount`), which splitting at case changes would break.
fn uncased_words(text: &str) -> Split {
    split_words(text, false)
}

/// Letters that draw as blank space (Hangul fillers): a page can put one between two words to
/// show them apart while they read as one word; they separate words.
fn is_blank_letter(c: char) -> bool {
    matches!(c, '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}')
}

/// The words of a text, and which of them are letters set apart that were joined into one.
struct Split {
    words: Vec<String>,
    /// Per word: whether it is a run of one-letter words joined ([`join_spelled_letters`]).
    spelled: Vec<bool>,
}

fn split_words(text: &str, at_case_changes: bool) -> Split {
    #[cfg(test)]
    tests::SPLITS.with(|splits| splits.set(splits.get() + 1));
    let decoded = percent_decode(text);
    let chars: Vec<char> = decoded
        .chars()
        .filter(|c| !is_invisible(*c))
        .map(as_latin)
        .collect();
    let mut out = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() || is_blank_letter(c) {
            if !word.is_empty() {
                out.push(fold_accents(&std::mem::take(&mut word).to_lowercase()));
            }
            continue;
        }
        let previous = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i + 1).copied();
        let boundary = match previous {
            Some(p) if p.is_alphanumeric() => {
                (at_case_changes
                    && ((p.is_lowercase() && c.is_uppercase())
                        || (p.is_uppercase()
                            && c.is_uppercase()
                            && next.is_some_and(char::is_lowercase))))
                    || (p.is_alphabetic() != c.is_alphabetic())
            }
            _ => false,
        };
        if boundary && !word.is_empty() {
            out.push(fold_accents(&std::mem::take(&mut word).to_lowercase()));
        }
        word.push(c);
    }
    if !word.is_empty() {
        out.push(fold_accents(&word.to_lowercase()));
    }
    join_spelled_letters(out)
}

/// The length of the longest start of `text` that is `word` with one of [`WORD_ENDINGS`]
/// (its final "e" may drop, as in [`with_ending`]): the ending stays with the word, so a
/// spelled "DELETED" is read as "deleted" and judged as that word is elsewhere.
fn longest_with_ending(text: &str, word: &str) -> Option<usize> {
    let stems = [
        Some(word),
        word.strip_suffix('e').filter(|stem| stem.len() >= 3),
    ];
    stems
        .into_iter()
        .flatten()
        .filter(|stem| text.starts_with(stem))
        .flat_map(|stem| {
            WORD_ENDINGS.iter().filter_map(move |ending| {
                let rest = text.get(stem.len()..)?;
                rest.starts_with(ending)
                    .then_some(stem.len() + ending.len())
            })
        })
        .filter(|length| *length >= word.len())
        .max()
}

/// `words` with each run of words of one or two letters that holds three or more of one letter
/// joined into one word: letters set apart ("D E L E T E", letter-spaced capitals, a word drawn
/// one letter per line down a column, "DE L E T E", "OK D E L E T E") read as the word they
/// spell (red teams red4, session 18, and red6, session 19).
fn join_spelled_letters(words: Vec<String>) -> Split {
    let letters = |word: &String| {
        let count = word.chars().count();
        (word.chars().all(char::is_alphabetic) && count <= 2).then_some(count)
    };
    let mut out = Split {
        words: Vec::with_capacity(words.len()),
        spelled: Vec::with_capacity(words.len()),
    };
    // The run: words of one or two letters side by side, and how many have one.
    let mut run: Vec<String> = Vec::new();
    let mut single = 0;
    let flush = |run: &mut Vec<String>, single: &mut usize, out: &mut Split| {
        if *single >= 3 {
            out.words.push(run.concat());
            out.spelled.push(true);
            run.clear();
        } else {
            out.spelled.extend(run.iter().map(|_| false));
            out.words.append(run);
        }
        *single = 0;
    };
    for word in words {
        match letters(&word) {
            Some(count) => {
                single += usize::from(count == 1);
                run.push(word);
            }
            None => {
                flush(&mut run, &mut single, &mut out);
                out.words.push(word);
                out.spelled.push(false);
            }
        }
    }
    flush(&mut run, &mut single, &mut out);
    out
}

/// `split.words` with each spelled run cut again where a word of `phrases` begins: a run joins
/// every letter set apart, so two spelled words in a row ("D E L E T E  P H O T O S") join
/// into one (`deletephotos`) in which no whole word is found; the gap between the two words is
/// lost with the spaces (red team red5, session 18). At each place the longest phrase word
/// that starts there is cut out, with its ending; the letters between stay one word. `None` when nothing was spelled.
fn spelled_runs_cut(split: &Split, phrases: &[Phrase]) -> Option<Vec<String>> {
    if !split.spelled.contains(&true) {
        return None;
    }
    let mut out = Vec::with_capacity(split.words.len() + 2);
    for (word, &spelled) in split.words.iter().zip(&split.spelled) {
        if !spelled {
            out.push(word.clone());
            continue;
        }
        let mut between = String::new();
        let mut rest = word.as_str();
        while let Some(c) = rest.chars().next() {
            // A word is cut out anywhere but after a prefix that makes one longer word of it
            // ("R E P A Y M E N T", "U N D E L E T E": read whole, as unspelled). Any other
            // letters before it are another word ("O K  D E L E T E", red team red6).
            if ONE_WORD_PREFIXES.contains(&between.as_str()) {
                between.push(c);
                rest = rest.get(c.len_utf8()..).unwrap_or_default();
                continue;
            }
            let longest = phrases
                .iter()
                .flat_map(|phrase| &phrase.words)
                .map(String::as_str)
                // (Two letters are too short to stand apart in a run: "un", "re".)
                .filter(|known| known.chars().count() >= 3)
                .filter_map(|known| longest_with_ending(rest, known))
                .max();
            match longest {
                Some(length) => {
                    if !between.is_empty() {
                        out.push(std::mem::take(&mut between));
                    }
                    let (known, after) = rest.split_at(length);
                    out.push(known.to_owned());
                    rest = after;
                }
                None => {
                    between.push(c);
                    rest = rest.get(c.len_utf8()..).unwrap_or_default();
                }
            }
        }
        if !between.is_empty() {
            out.push(between);
        }
    }
    Some(out)
}

/// Whether `token` is `stem` plus one of `endings` (a final "e" of the stem may drop:
/// "remove" -> "removal").
fn with_ending(token: &str, word: &str, endings: &[&str]) -> bool {
    let stems = [
        Some(word),
        word.strip_suffix('e').filter(|stem| stem.len() >= 3),
    ];
    stems.into_iter().flatten().any(|stem| {
        token
            .strip_prefix(stem)
            .is_some_and(|ending| endings.contains(&ending))
    })
}

/// Whether `token` is the word (with an allowed ending), or the word glued to what it acts on
/// (`deleteaccount`).
fn token_is(token: &str, word: &str, endings: &[&str]) -> bool {
    with_ending(token, word, endings)
        || token
            .strip_prefix(word)
            .is_some_and(|rest| crate::words!(JOINED_OBJECTS).contains(rest))
}

/// The first of `risky` found in `text` at `position`, ignoring case, encoding and how words
/// are joined. The text is read twice: split at case changes (`deleteAccount`) and not
/// (`DeLeTe`, where the case changes are only there to break the word).
pub fn find_risky<'w>(text: &str, risky: &'w [String], position: Position) -> Option<&'w str> {
    PHRASES.with_borrow_mut(|cache| {
        let phrases = cache.phrases_of(risky);
        let cased = split_words(text, true);
        let found = find_in_tokens(&cased.words, risky, phrases, position);
        found.or_else(|| {
            let uncased = uncased_words(text);
            find_in_tokens(&uncased.words, risky, phrases, position).or_else(|| {
                [&cased, &uncased].into_iter().find_map(|split| {
                    let cut = spelled_runs_cut(split, phrases)?;
                    find_in_tokens(&cut, risky, phrases, position)
                })
            })
        })
    })
}

/// A risky word as [`find_in_tokens`] compares it: its [`words`], and whether it is one of
/// [`NOUN_OR_VERB`].
#[derive(Debug, PartialEq, Eq)]
struct Phrase {
    words: Vec<String>,
    noun_or_verb: bool,
}

/// The phrases of the last risky list asked about, with that list.
struct Phrases {
    list: Vec<String>,
    phrases: Vec<Phrase>,
}

thread_local! {
    /// One review asks about the same risky list many times (the name, the text, each control
    /// inside, the address; each read twice), and splitting the ~170 default words again each
    /// time (and every noun-or-verb word once per risky word) cost 3-6 ms of every click
    /// (figure 7, session 12).
    static PHRASES: std::cell::RefCell<Phrases> = const {
        std::cell::RefCell::new(Phrases {
            list: Vec::new(),
            phrases: Vec::new(),
        })
    };
}

impl Phrases {
    /// The phrases of `risky`, in its order: split once per list, not once per question.
    fn phrases_of(&mut self, risky: &[String]) -> &[Phrase] {
        if self.list.as_slice() != risky {
            self.phrases = risky
                .iter()
                .map(|word| {
                    let words = words(word);
                    let noun_or_verb = NOUN_OR_VERB.iter().any(|n| *n == words.as_slice());
                    Phrase {
                        words,
                        noun_or_verb,
                    }
                })
                .collect();
            self.list = risky.to_vec();
        }
        &self.phrases
    }
}

fn find_in_tokens<'w>(
    tokens: &[String],
    risky: &'w [String],
    phrases: &[Phrase],
    position: Position,
) -> Option<&'w str> {
    risky.iter().zip(phrases).find_map(|(word, phrase)| {
        let found = phrase_found(tokens, phrase, position);
        found.then_some(word.as_str())
    })
}

/// Whether `phrase` is in `tokens` at `position`.
fn phrase_found(tokens: &[String], phrase: &Phrase, position: Position) -> bool {
    let Phrase {
        words: phrase,
        noun_or_verb,
    } = phrase;
    let noun_or_verb = *noun_or_verb;
    let Some((last, head)) = phrase.split_last() else {
        return false;
    };
    // At the verb position only verb forms count: "Payment history" is no "pay".
    let endings = if noun_or_verb || matches!(position, Position::VerbOnly | Position::ShortName) {
        VERB_ENDINGS
    } else {
        WORD_ENDINGS
    };
    let verb_only = match position {
        Position::VerbOnly => true,
        Position::Anywhere => noun_or_verb,
        Position::ShortName => noun_or_verb || tokens.len() > SHORT_NAME_WORDS,
        Position::Address => false,
    };
    let matches_at = |start: usize| {
        let Some(window) = tokens.get(start..start + phrase.len()) else {
            return false;
        };
        let Some((window_last, window_head)) = window.split_last() else {
            return false;
        };
        window_head.iter().zip(head).all(|(a, b)| a == b) && token_is(window_last, last, endings)
    };
    if verb_only {
        return matches_at(0);
    }
    (0..tokens.len()).any(matches_at)
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// How many times this thread split a text into words.
        pub(super) static SPLITS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    #[test]
    fn noun_or_verb_words_are_written_as_words_splits_them() {
        for phrase in NOUN_OR_VERB {
            assert_eq!(words(&phrase.join(" ")), *phrase);
        }
    }

    /// Words disguised by how they are written still read as the word the user sees (red team
    /// red4, session 18): letters set apart, lookalike letters of other alphabets and styles,
    /// characters drawn as nothing inside the word.
    #[test]
    fn disguised_spellings_read_as_the_word_shown() {
        let risky = crate::policy::PolicySettings::default().risky_words;
        for text in [
            "D E L E T E",
            "d e l e t e photos",
            "P A Y now",
            "D\u{435}l\u{435}t\u{435} account",
            "\u{420}\u{430}y now",
            "\u{1d41d}\u{1d41e}\u{1d425}\u{1d41e}\u{1d42d}\u{1d41e}",
            "\u{ff44}\u{ff45}\u{ff4c}\u{ff45}\u{ff54}\u{ff45}",
            "\u{1d05}\u{1d07}\u{29f}\u{1d07}\u{1d1b}\u{1d07}",
            "de\u{fe0f}lete",
            "de\u{e0020}lete",
            "de\u{180e}lete",
            "de\u{2065}lete",
            "de\u{17b4}lete",
            "de\u{1d173}lete",
            "de\u{05b0}lete",
        ] {
            assert!(
                find_risky(text, &risky, Position::Anywhere).is_some(),
                "{text:?}"
            );
        }
        // Ordinary single letters and other alphabets' own words stay what they are.
        for text in [
            "A B testing",
            "Plan A or B",
            "Q & A",
            "\u{41f}\u{440}\u{438}\u{432}\u{435}\u{442}",
        ] {
            assert_eq!(
                find_risky(text, &risky, Position::Anywhere),
                None,
                "{text:?}"
            );
        }
    }

    /// Two or more words spelled apart in a row join into one run; the words in it are still
    /// found, at the place each stands (red team red5, session 18).
    #[test]
    fn spelled_words_in_a_row_are_each_read() {
        let risky = crate::policy::PolicySettings::default().risky_words;
        for (text, position, expected) in [
            (
                "D E L E T E  P H O T O S",
                Position::ShortName,
                Some("delete"),
            ),
            (
                "D E L E T E  P H O T O S",
                Position::VerbOnly,
                Some("delete"),
            ),
            (
                "D E L E T E D  P H O T O S",
                Position::Anywhere,
                Some("delete"),
            ),
            // A spelled word keeps its ending, and is judged as that word is unspelled: a
            // short name's past tense describes ("Deleted photos").
            ("D E L E T E D  P H O T O S", Position::ShortName, None),
            (
                "P H O T O S  D E L E T E",
                Position::Anywhere,
                Some("delete"),
            ),
            (
                "Photos: D E L E T E  A L L",
                Position::Anywhere,
                Some("delete"),
            ),
            (
                "T R A N S F E R  F U N D S",
                Position::ShortName,
                Some("transfer"),
            ),
            ("P A Y  N O W", Position::VerbOnly, Some("pay")),
            ("B U Y  A N D  S H I P", Position::ShortName, Some("buy")),
            // Read as said: "Undo send" holds "send", which a negation does not make safe.
            ("U N D O  S E N D", Position::ShortName, Some("send")),
            ("S H O W  P H O T O S", Position::ShortName, None),
            // A prefix of one or two letters makes one longer word, read as it is unspelled.
            ("R E P A Y M E N T", Position::Anywhere, None),
            ("U N D E L E T E", Position::Anywhere, None),
            ("A U T O D E L E T E", Position::Anywhere, Some("delete")),
            // Other letters before the word are another word (red team red6, session 19).
            (
                "O K  D E L E T E  A C C O U N T",
                Position::ShortName,
                Some("delete"),
            ),
            ("X  D E L E T E", Position::ShortName, Some("delete")),
            ("G O  P A Y", Position::ShortName, Some("pay")),
            ("M Y  D E L E T E", Position::ShortName, Some("delete")),
            ("DE L E T E", Position::ShortName, Some("delete")),
            ("O K  R E M O V E", Position::ShortName, Some("remove")),
        ] {
            assert_eq!(find_risky(text, &risky, position), expected, "{text:?}");
        }
    }

    /// A negation lowers no risk, wherever it stands: the page could hide it from the user
    /// (red teams red5 and red6, sessions 18-19).
    #[test]
    fn a_negation_lowers_no_risk() {
        let risky = crate::policy::PolicySettings::default().risky_words;
        for text in [
            "Undo send",
            "Don't delete",
            "Do not delete",
            "Please don't delete",
            "No, never delete",
            "Ne pas supprimer",
            "Nicht löschen",
            "never delete or keep photos",
            "Last backup: never Delete account",
            "Backups never delete",
        ] {
            assert!(
                find_risky(text, &risky, Position::ShortName).is_some(),
                "{text:?}"
            );
        }
    }

    /// The review asks about one risky list many times per action: its words are split once
    /// per list, not once per question (3-6 ms of every click with the default list).
    #[test]
    fn a_risky_list_is_split_once_not_per_question() {
        let risky = crate::policy::PolicySettings::default().risky_words;
        assert!(risky.len() > 100);
        assert_eq!(
            find_risky("Delete account", &risky, Position::Anywhere),
            Some("delete")
        );
        let before = SPLITS.with(std::cell::Cell::get);
        assert_eq!(find_risky("Clicked 0", &risky, Position::Anywhere), None);
        assert_eq!(find_risky("Clicked 1", &risky, Position::VerbOnly), None);
        // The two texts, each read twice (split at case changes and not).
        assert_eq!(SPLITS.with(std::cell::Cell::get) - before, 4);
        // Another list is split afresh, and answers for itself.
        let mine = list(&["click"]);
        assert_eq!(
            find_risky("Clicked 0", &mine, Position::Anywhere),
            Some("click")
        );
        assert_eq!(
            find_risky("Delete account", &mine, Position::Anywhere),
            None
        );
        assert_eq!(
            find_risky("Delete account", &risky, Position::Anywhere),
            Some("delete")
        );
    }

    fn list(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    /// Hangul fillers are letters that draw as blank space: "keep" + filler + "delete" shows
    /// two words, and is read as two (red team, session 17).
    #[test]
    fn a_blank_letter_between_words_separates_them() {
        let risky = list(&["delete"]);
        for filler in ['\u{115f}', '\u{1160}', '\u{3164}', '\u{ffa0}'] {
            let text = format!("keep{filler}delete");
            assert_eq!(
                find_risky(&text, &risky, Position::Anywhere),
                Some("delete"),
                "{filler:?}"
            );
        }
        assert_eq!(find_risky("keepdelete", &risky, Position::Anywhere), None);
    }

    #[test]
    fn letter_case_games_do_not_hide_a_word() {
        let risky = list(&["delete", "remove", "transfer", "unsubscribe"]);
        for text in [
            "/Account/DeLeTe",
            "/api/dElEtE",
            "/DELETEaccount",
            "/x/ReMoVe_User",
            "/TrAnSfEr-money",
            "/UnSubScribe",
            "DeLeTe",
        ] {
            assert!(
                find_risky(text, &risky, Position::Address).is_some(),
                "{text}"
            );
            assert!(
                find_risky(text, &risky, Position::Anywhere).is_some(),
                "{text}"
            );
        }
        // Ordinary camelCase and names stay as they were: no new false friends.
        for text in [
            "/api/getDeletedCount2",
            "Removable media",
            "/TransferWise/about",
        ] {
            let _ = find_risky(text, &risky, Position::Address);
        }
        assert_eq!(
            find_risky("/Account/Details", &risky, Position::Address),
            None
        );
        assert_eq!(
            find_risky("/SendGrid/Remotes", &risky, Position::Address),
            None
        );
    }

    #[test]
    fn words_split_joined_forms_and_decode_escapes() {
        for (text, expected) in [
            ("deleteAccount", vec!["delete", "account"]),
            ("delete_account", vec!["delete", "account"]),
            ("delete-account", vec!["delete", "account"]),
            ("DeleteAccount", vec!["delete", "account"]),
            ("HTMLDelete", vec!["html", "delete"]),
            ("/%64elete", vec!["delete"]),
            ("/%2564elete", vec!["delete"]),
            ("/%44%45LETE", vec!["delete"]),
            ("de\u{200b}lete", vec!["delete"]),
            ("step2delete", vec!["step", "2", "delete"]),
            ("100%", vec!["100"]),
        ] {
            assert_eq!(words(text), expected, "{text}");
        }
    }

    #[test]
    fn noun_or_verb_words_count_only_as_verbs() {
        let risky = list(&["book", "order", "delete"]);
        assert_eq!(
            find_risky("Book now", &risky, Position::Anywhere),
            Some("book")
        );
        assert_eq!(
            find_risky("Favourite book", &risky, Position::Anywhere),
            None
        );
        assert_eq!(find_risky("Orders", &risky, Position::Anywhere), None);
        assert_eq!(find_risky("My orders", &risky, Position::Anywhere), None);
        assert_eq!(
            find_risky("Remove and delete", &risky, Position::Anywhere),
            Some("delete")
        );
        assert_eq!(
            find_risky("Account deletion", &risky, Position::VerbOnly),
            None
        );
        assert_eq!(
            find_risky("Delete account", &risky, Position::VerbOnly),
            Some("delete")
        );
        assert_eq!(
            find_risky("/shop/book?id=3", &risky, Position::Address),
            Some("book")
        );
        assert_eq!(find_risky("/shop/books/3", &risky, Position::Address), None);
        assert_eq!(
            find_risky("/account/deletion", &risky, Position::Address),
            Some("delete")
        );
    }

    #[test]
    fn joined_lowercase_words_are_found_without_false_friends() {
        let risky = list(&["delete", "pay", "send", "buy"]);
        assert_eq!(
            find_risky("deleteaccount", &risky, Position::Anywhere),
            Some("delete")
        );
        assert_eq!(
            find_risky("/buynow", &risky, Position::Address),
            Some("buy")
        );
        for harmless in [
            "Payload viewer",
            "Sender info",
            "Buyer guide",
            "Display",
            "Repay",
        ] {
            assert_eq!(
                find_risky(harmless, &risky, Position::Anywhere),
                None,
                "{harmless}"
            );
        }
    }
}
