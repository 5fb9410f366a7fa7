//! A control's text read as it is drawn: by where its letters are on the screen, not by their
//! order in the page.
//!
//! The page's order and what the user sees can disagree in ways no style rule lists: letters
//! drawn right to left (`<bdo dir=rtl>eteled</bdo>` and U+202E show "delete"), pieces put in
//! another order (`flex-direction: row-reverse`, `order`, a grid, boxes placed absolutely),
//! letters that take room but are not seen (`opacity: 0`, transparent text: "keep" and
//! "delete" shown apart), and line breaks the text does not hold (`<wbr>`, U+200B, a soft
//! hyphen where the line wraps). The DOM layer measures where each piece of text is drawn
//! (`dom::drawn_text`); this module reads the pieces line by line, left to right, with a break
//! wherever a gap is drawn. The reading only adds words to judge (`dom::review` judges it
//! beside the name and the text), so a doubtful gap breaks rather than joins.

/// A piece of text and the box it is drawn in (CSS pixels, the viewport's coordinates).
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    /// The text: one character, or a whole text node drawn on one line in its own order.
    pub text: String,
    /// Which text node it comes from (numbered in page order) and at which character.
    pub node: u32,
    pub at: u32,
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
}

impl Piece {
    fn middle(&self) -> f64 {
        (self.top + self.bottom) / 2.0
    }

    fn height(&self) -> f64 {
        self.bottom - self.top
    }

    /// Whether the piece comes right after `before` in the same text node.
    fn follows(&self, before: &Piece) -> bool {
        self.node == before.node
            && u64::from(self.at) == u64::from(before.at) + before.text.chars().count() as u64
    }
}

/// Whether `c` is a letter of a script written right to left (Hebrew, Arabic, Syriac, Thaana,
/// N'Ko, Samaritan, Mandaic and their presentation forms, and the historic ones above U+10800).
pub fn is_right_to_left(c: char) -> bool {
    matches!(c,
        '\u{0590}'..='\u{08FF}'
        | '\u{FB1D}'..='\u{FDFF}'
        | '\u{FE70}'..='\u{FEFF}'
        | '\u{10800}'..='\u{10FFF}'
        | '\u{1E800}'..='\u{1EFFF}')
}

/// Characters that are never drawn as a letter: the bidirectional controls, zero-width
/// spaces and joiners, the soft hyphen where the line does not wrap, the byte-order mark.
pub fn is_invisible_format(c: char) -> bool {
    matches!(c,
        '\u{00AD}'
        | '\u{061C}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206F}'
        | '\u{FEFF}')
}

/// The direction a piece's letters are read in, if it has strong letters: `Some(true)` right to
/// left.
fn direction(piece: &Piece) -> Option<bool> {
    piece
        .text
        .chars()
        .find(|c| c.is_alphabetic())
        .map(is_right_to_left)
}

/// How far apart two pieces on a line must be drawn to be two words: a little more than
/// nothing (touching letters are drawn exactly edge to edge), well under a space's width
/// (about a quarter of the font's size, a fifth of a line's height).
pub fn gap_breaks(gap: f64, height: f64) -> bool {
    gap > (0.08 * height).max(1.0)
}

/// `pieces` (in page order) read as drawn: lines from top to bottom, each in reading order
/// ([`in_reading_order`]: the control's direction, runs of the other direction inside it),
/// pieces drawn apart (or with
/// a space between them) as separate words, words of a right-to-left script in their own order,
/// and a break wherever a word's letters change from one direction to the other. Between lines
/// a break, unless the line wrapped in the middle of a word of one text node (`hyphens: auto`,
/// `word-break: break-all`): there the word is read whole, and where that happened the reading
/// with a break there follows too, after " | " (a wrap can also show two words: "DELETE" over
/// "PHOTOS"). Words are one space apart. A piece without text is room that text the user does
/// not see takes (a letter drawn invisible inside a word): it shows nothing, and joins the
/// pieces it touches into one word.
pub fn read_drawn(pieces: &[Piece], base_right_to_left: bool) -> String {
    // Lines: a piece joins the line whose middle is less than half the smaller of their heights
    // from its own, so that a tall piece (an icon beside two lines of text) joins neither.
    struct Line<'a> {
        pieces: Vec<&'a Piece>,
        middle: f64,
        height: f64,
    }
    let mut lines: Vec<Line<'_>> = Vec::new();
    for piece in pieces {
        // (A piece without text is room taken by text not seen: it joins what it touches.)
        if piece.height() <= 0.0 {
            continue;
        }
        let (middle, height) = (piece.middle(), piece.height());
        match lines
            .iter_mut()
            .find(|line| (line.middle - middle).abs() < 0.5 * line.height.min(height))
        {
            Some(line) => {
                line.pieces.push(piece);
                line.height = line.height.min(height);
            }
            None => lines.push(Line {
                pieces: vec![piece],
                middle,
                height,
            }),
        }
    }
    lines.sort_by(|a, b| a.middle.total_cmp(&b.middle));
    let mut joined = String::new();
    let mut split = String::new();
    let mut last_of_line: Option<&Piece> = None;
    for line in &mut lines {
        // Stable: pieces drawn at the same place (a mark over its letter) keep the page's order.
        line.pieces.sort_by(|a, b| a.left.total_cmp(&b.left));
        let words = words_of_line(&line.pieces);
        let words = in_reading_order(words, base_right_to_left);
        for (index, word) in words.iter().enumerate() {
            let joins_wrapped = index == 0
                && last_of_line.is_some_and(|before| {
                    word.first().is_some_and(|first| {
                        first.follows(before)
                            && before
                                .text
                                .chars()
                                .last()
                                .is_some_and(char::is_alphanumeric)
                            && first.text.chars().next().is_some_and(char::is_alphanumeric)
                    })
                });
            if !joined.is_empty() && !joins_wrapped {
                joined.push(' ');
            }
            if !split.is_empty() {
                split.push(' ');
            }
            for piece in word {
                joined.push_str(&piece.text);
                split.push_str(&piece.text);
            }
        }
        last_of_line = words.last().and_then(|word| word.last()).copied();
    }
    // Whitespace inside pieces collapsed, one space between words.
    let joined = joined.split_whitespace().collect::<Vec<_>>().join(" ");
    let split = split.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = if joined == split {
        joined
    } else {
        format!("{joined} | {split}")
    };
    // A column of letters, one per line, is also read from the bottom up: text written
    // sideways and turned (`writing-mode: vertical-rl` with `rotate(180deg)`, the idiom of an
    // axis label) reads upwards (red team red5, session 18).
    let column = lines.len() >= 3
        && lines.iter().all(|line| {
            let mut letters = line.pieces.iter().flat_map(|piece| piece.text.chars());
            letters.next().is_some_and(char::is_alphanumeric) && letters.next().is_none()
        });
    if column {
        let upwards: Vec<String> = lines
            .iter()
            .rev()
            .flat_map(|line| line.pieces.iter().map(|piece| piece.text.clone()))
            .collect();
        out.push_str(" | ");
        out.push_str(&upwards.join(" "));
    }
    out
}

/// A line's words (drawn left to right) in the order they are read: in a right-to-left
/// paragraph (`base_right_to_left`, the control's `direction`) from right to left, except that
/// a run of left-to-right words keeps its order ("Order history" in a Hebrew interface); in a
/// left-to-right one from left to right, except that a run of right-to-left words is read from
/// right to left. Words without letters go with the run before them.
fn in_reading_order<'a>(
    words: Vec<Vec<&'a Piece>>,
    base_right_to_left: bool,
) -> Vec<Vec<&'a Piece>> {
    // Runs of words of one direction, left to right.
    let mut runs: Vec<(bool, Vec<Vec<&'a Piece>>)> = Vec::new();
    for word in words {
        let direction = word_direction(&word);
        match runs.last_mut() {
            Some((run_direction, run)) if direction.is_none_or(|d| d == *run_direction) => {
                run.push(word);
            }
            _ => runs.push((direction.unwrap_or(base_right_to_left), vec![word])),
        }
    }
    if base_right_to_left {
        runs.reverse();
    }
    runs.into_iter()
        .flat_map(|(right_to_left, mut run)| {
            if right_to_left {
                run.reverse();
            }
            run
        })
        .collect()
}

/// The direction of a word's letters (its first strong letter's): `Some(true)` right to left.
fn word_direction(word: &[&Piece]) -> Option<bool> {
    word.iter().find_map(|piece| direction(piece))
}

/// The words of one line (pieces sorted left to right), each a list of pieces in reading order.
fn words_of_line<'a>(line: &[&'a Piece]) -> Vec<Vec<&'a Piece>> {
    let mut words: Vec<Vec<&'a Piece>> = Vec::new();
    let mut word: Vec<&'a Piece> = Vec::new();
    let mut word_direction = None;
    let mut right = f64::NEG_INFINITY;
    let mut previous: Option<&Piece> = None;
    for &piece in line {
        let piece_direction = direction(piece);
        let breaks = previous.is_some_and(|before| {
            gap_breaks(piece.left - right, before.height().min(piece.height()))
                || before.text.ends_with(char::is_whitespace)
                || piece.text.starts_with(char::is_whitespace)
        }) || (word_direction.is_some()
            && piece_direction.is_some()
            && piece_direction != word_direction);
        if breaks && !word.is_empty() {
            words.push(finish(std::mem::take(&mut word), word_direction));
            word_direction = None;
            right = f64::NEG_INFINITY;
        }
        word_direction = word_direction.or(piece_direction);
        word.push(piece);
        right = right.max(piece.right);
        previous = Some(piece);
    }
    if !word.is_empty() {
        words.push(finish(word, word_direction));
    }
    words
}

/// A word's pieces in reading order: a right-to-left word's from right to left.
fn finish(mut word: Vec<&Piece>, direction: Option<bool>) -> Vec<&Piece> {
    if direction == Some(true) {
        word.reverse();
    }
    word
}

/// Color channels (0-255) apart at most for text to blend into its background: a difference
/// of 16 in every channel (`#f0f0f0` on white) is barely seen; a hue of the same lightness
/// (red on green) is far apart in some channel.
const BLENDS_WITHIN: f64 = 16.0;

/// Whether `text` (its alpha mixing it with `background`) is drawn within [`BLENDS_WITHIN`]
/// of `background` in every channel.
pub fn blends(text: [f64; 4], background: [f64; 3]) -> bool {
    let [red, green, blue, alpha] = text;
    let alpha = alpha.clamp(0.0, 1.0);
    [red, green, blue]
        .into_iter()
        .zip(background)
        .all(|(channel, behind)| {
            let shown = channel * alpha + behind * (1.0 - alpha);
            (shown - behind).abs() <= BLENDS_WITHIN
        })
}

/// The channels and alpha of a computed color written `rgb(r, g, b)`, `rgba(r, g, b, a)` or
/// `rgb(r g b / a)`; `transparent` is all zero. Other forms (`color(srgb …)`, `oklch(…)`, which
/// a computed value keeps) are not read. `number` reads one number (the executor passes
/// JavaScript's `parseFloat`: Rust's float parsing would add its code to the module).
pub fn rgba(color: &str, number: impl Fn(&str) -> Option<f64>) -> Option<[f64; 4]> {
    let color = color.trim();
    if color == "transparent" {
        return Some([0.0; 4]);
    }
    let inner = color
        .strip_prefix("rgba(")
        .or_else(|| color.strip_prefix("rgb("))?
        .strip_suffix(')')?;
    let parts: Vec<&str> = inner
        .split([',', ' ', '/'])
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect();
    let read = |part: &str| -> Option<f64> {
        match part.strip_suffix('%') {
            Some(percent) => number(percent).map(|p| p / 100.0),
            None => number(part),
        }
    };
    let channel = |at: usize| parts.get(at).and_then(|part| read(part));
    let alpha = match parts.len() {
        3 => 1.0,
        4 => channel(3)?,
        _ => return None,
    };
    Some([channel(0)?, channel(1)?, channel(2)?, alpha])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing, reason = "tests")]
    use super::*;

    /// One character per piece, `width` pixels each, on the line at `top`, from `x`.
    fn letters(text: &str, node: u32, x: f64, top: f64, step: f64) -> Vec<Piece> {
        text.chars()
            .enumerate()
            .map(|(i, c)| {
                let left = x + step * i as f64;
                let (left, right) = if step < 0.0 {
                    (left + step, left)
                } else {
                    (left, left + step)
                };
                Piece {
                    text: c.to_string(),
                    node,
                    at: i as u32,
                    left,
                    right,
                    top,
                    bottom: top + 18.0,
                }
            })
            .collect()
    }

    fn piece(text: &str, node: u32, left: f64, right: f64, top: f64) -> Piece {
        Piece {
            text: text.into(),
            node,
            at: 0,
            left,
            right,
            top,
            bottom: top + 18.0,
        }
    }

    #[test]
    fn letters_drawn_right_to_left_read_as_drawn() {
        // `<bdo dir=rtl>eteled</bdo>`: the first letter drawn rightmost.
        assert_eq!(
            read_drawn(&letters("eteled", 0, 60.0, 0.0, -8.0), false),
            "delete"
        );
    }

    #[test]
    fn pieces_placed_in_another_order_read_by_place() {
        // `flex-direction: row-reverse` with "ete" then "del", drawn flush.
        let pieces = [
            piece("ete", 0, 24.0, 48.0, 0.0),
            piece("del", 1, 0.0, 24.0, 0.0),
        ];
        assert_eq!(read_drawn(&pieces, false), "delete");
    }

    #[test]
    fn touching_pieces_join_and_a_drawn_gap_breaks() {
        let flush = [
            piece("Pay", 0, 0.0, 30.0, 0.0),
            piece("roll", 1, 30.0, 60.0, 0.0),
        ];
        assert_eq!(read_drawn(&flush, false), "Payroll");
        let apart = [
            piece("keep", 0, 0.0, 30.0, 0.0),
            piece("delete", 1, 33.0, 80.0, 0.0),
        ];
        assert_eq!(read_drawn(&apart, false), "keep delete");
        let spaced = [
            piece("keep ", 0, 0.0, 34.0, 0.0),
            piece("delete", 1, 34.0, 80.0, 0.0),
        ];
        assert_eq!(read_drawn(&spaced, false), "keep delete");
    }

    #[test]
    fn lines_break_words_unless_one_word_wrapped_inside_its_node() {
        // `keep<wbr>delete` wrapped: two nodes, two lines.
        let wbr = [
            piece("keep", 0, 0.0, 30.0, 0.0),
            piece("delete", 1, 0.0, 40.0, 20.0),
        ];
        assert_eq!(read_drawn(&wbr, false), "keep delete");
        // "Repayment" hyphenated by the browser: one node, the letters follow each other.
        let mut hyphenated = letters("Repay", 0, 0.0, 0.0, 8.0);
        let mut rest = letters("ment", 0, 0.0, 20.0, 8.0);
        for (i, p) in rest.iter_mut().enumerate() {
            p.at = 5 + i as u32;
        }
        hyphenated.append(&mut rest);
        assert_eq!(read_drawn(&hyphenated, false), "Repayment | Repay ment");
        // A zero-width space where it wraps: the letters around it do not follow each other.
        let mut zwsp = letters("keep", 0, 0.0, 0.0, 8.0);
        let mut rest = letters("delete", 0, 0.0, 20.0, 8.0);
        for (i, p) in rest.iter_mut().enumerate() {
            p.at = 5 + i as u32;
        }
        zwsp.append(&mut rest);
        assert_eq!(read_drawn(&zwsp, false), "keep delete");
    }

    #[test]
    fn a_tall_piece_beside_two_lines_joins_neither() {
        // A 60-pixel icon, then two lines of text beside it (red team red4, session 18).
        let pieces = [
            Piece {
                bottom: 60.0,
                ..piece("🗑", 0, 0.0, 40.0, 0.0)
            },
            piece("delete", 1, 44.0, 90.0, 10.0),
            piece("all photos", 2, 44.0, 110.0, 30.0),
        ];
        let read = read_drawn(&pieces, false);
        assert!(read.split(' ').any(|word| word == "delete"), "{read}");
    }

    #[test]
    fn a_right_to_left_line_reads_its_words_right_to_left() {
        // "Track order" in Hebrew with the Latin word at its end, drawn at the left.
        let mut pieces = letters("מעקב", 0, 200.0, 0.0, -8.0);
        pieces.push(piece("Order", 1, 100.0, 140.0, 0.0));
        assert_eq!(read_drawn(&pieces, true), "מעקב Order");
        // "Orders" then "Order history" in a Hebrew interface: the Latin run keeps its order
        // (red team red5, session 18: more Latin words than Hebrew ones read left to right).
        let mut pieces = letters("הזמנות", 0, 300.0, 0.0, -8.0);
        pieces.push(piece("Order", 1, 150.0, 190.0, 0.0));
        pieces.push(piece("history", 2, 195.0, 245.0, 0.0));
        assert_eq!(read_drawn(&pieces, true), "הזמנות Order history");
        // The same words in a left-to-right paragraph: Hebrew read in its own order, in place.
        assert_eq!(read_drawn(&pieces, false), "Order history הזמנות");
    }

    #[test]
    fn lines_are_read_top_to_bottom_whatever_the_page_order() {
        let pieces = [
            piece("account", 0, 0.0, 50.0, 20.0),
            piece("Delete", 1, 0.0, 40.0, 0.0),
        ];
        assert_eq!(read_drawn(&pieces, false), "Delete account");
    }

    #[test]
    fn right_to_left_words_keep_their_order_and_a_change_of_direction_breaks() {
        // Hebrew "שלום" drawn right to left: read in its own order.
        assert_eq!(
            read_drawn(&letters("שלום", 0, 40.0, 0.0, -8.0), true),
            "שלום"
        );
        // Hebrew letters glued to reversed Latin ones cannot turn the Latin word around.
        let mut mixed = letters("eteled", 0, 100.0, 0.0, -8.0);
        let mut hebrew = letters("אבג", 0, 52.0, 0.0, -8.0);
        for (i, p) in hebrew.iter_mut().enumerate() {
            p.at = 6 + i as u32;
        }
        mixed.append(&mut hebrew);
        let read = read_drawn(&mixed, false);
        assert!(read.split(' ').any(|word| word == "delete"), "{read}");
    }

    #[test]
    fn empty_and_flat_pieces_are_passed_over() {
        let pieces = [
            piece("keep", 0, 0.0, 30.0, 0.0),
            Piece {
                bottom: 0.0,
                ..piece("x", 1, 30.0, 30.0, 0.0)
            },
            piece("", 2, 30.0, 30.0, 0.0),
            piece("sake", 3, 30.0, 60.0, 0.0),
        ];
        assert_eq!(read_drawn(&pieces, false), "keepsake");
        // Room taken by a letter not seen joins the letters it touches; without it there is
        // a gap.
        let around = [
            piece("de", 0, 0.0, 20.0, 0.0),
            piece("lete", 2, 30.0, 70.0, 0.0),
        ];
        assert_eq!(read_drawn(&around, false), "de lete");
        let hole = [
            piece("de", 0, 0.0, 20.0, 0.0),
            piece("", 1, 20.0, 30.0, 0.0),
            piece("lete", 2, 30.0, 70.0, 0.0),
        ];
        assert_eq!(read_drawn(&hole, false), "delete");
    }

    /// A column of single letters reads down, and up too (turned sideways text).
    #[test]
    fn a_column_of_letters_reads_both_ways() {
        let column: Vec<Piece> = "eteled"
            .chars()
            .enumerate()
            .map(|(at, c)| {
                let top = 20.0 * at as f64;
                Piece {
                    top,
                    bottom: top + 16.0,
                    ..piece(&c.to_string(), at as u32, 0.0, 10.0, 0.0)
                }
            })
            .collect();
        let read = read_drawn(&column, false);
        assert!(read.ends_with(" | d e l e t e"), "{read}");
        // Two lines are no column.
        let two = [
            piece("a", 0, 0.0, 10.0, 0.0),
            Piece {
                top: 20.0,
                bottom: 36.0,
                ..piece("b", 1, 0.0, 10.0, 0.0)
            },
        ];
        assert!(!read_drawn(&two, false).contains('|'));
    }

    #[test]
    fn computed_colors_are_read() {
        let rgba = |color: &str| rgba(color, |number| number.parse().ok());
        assert_eq!(rgba("rgb(255, 255, 255)"), Some([255.0, 255.0, 255.0, 1.0]));
        assert_eq!(rgba("rgba(0, 0, 0, 0.5)"), Some([0.0, 0.0, 0.0, 0.5]));
        assert_eq!(rgba("rgb(10 20 30 / 50%)"), Some([10.0, 20.0, 30.0, 0.5]));
        assert_eq!(rgba("transparent"), Some([0.0; 4]));
        assert_eq!(rgba("oklch(0.5 0.1 200)"), None);
        assert_eq!(rgba("color(srgb 1 1 1)"), None);
    }

    #[test]
    fn text_blends_only_near_its_background() {
        let white = [255.0, 255.0, 255.0];
        assert!(blends([255.0, 255.0, 255.0, 1.0], white));
        assert!(blends([245.0, 250.0, 242.0, 1.0], white));
        // Black at 5% over white is nearly white.
        assert!(blends([0.0, 0.0, 0.0, 0.05], white));
        assert!(!blends([200.0, 200.0, 200.0, 1.0], white));
        assert!(!blends([0.0, 0.0, 0.0, 0.2], white));
        // Same lightness, other hue.
        assert!(!blends([255.0, 0.0, 0.0, 1.0], [0.0, 160.0, 0.0]));
    }
}
