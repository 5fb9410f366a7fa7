//! Which words of a text read in runs a review judges besides the text itself.
//!
//! The DOM layer reads a control's name and text twice: as the browser names and joins them,
//! and in runs, with a break wherever the page draws pieces apart (`dom::accname`'s
//! `accessible_name_in_runs`). A word the page glues to another by markup ("keep" + a "delete"
//! set apart by a margin, named "keepdelete") is a word only in the runs. Judging the whole
//! runs again would judge a long control's text twice over; judging only the runs' words that
//! are not words of the whole lets a negated use of the same word elsewhere hide the glued one
//! ("never delete or keep" + "delete": the glued "delete" was dropped as a known word, red team,
//! session 16). So the pieces of each whole word the runs split are kept, all of them, each
//! group with the word before it (its context: "or keep delete").

/// The groups of `runs` (a text read in runs) that split a word of `whole` (the same text as
/// shown, pieces joined) into pieces: each group is the pieces with the word before them,
/// groups apart (`" |"`); `None` when the runs split no word. The two are aligned word by word
/// (case aside: a `text-transform: capitalize` capitalizes each piece of the runs); where they
/// cannot be (the runs hold a word the whole lacks), the rest of the runs is kept, so that
/// nothing they hold goes unjudged.
pub fn glued_runs(runs: &str, whole: &str) -> Option<String> {
    let pieces: Vec<&str> = runs.split_whitespace().collect();
    let mut words = whole.split_whitespace();
    let mut out = String::new();
    let mut push_group = |from: usize, to: usize| {
        if !out.is_empty() {
            out.push_str(" |");
        }
        for piece in pieces.get(from.saturating_sub(1)..to).unwrap_or_default() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(piece);
        }
    };
    let mut at = 0;
    while at < pieces.len() {
        let piece = pieces.get(at).copied().unwrap_or_default();
        // The whole's next word this piece begins (words the runs lack are passed over: text a
        // reading in runs leaves out, such as a `<style>`'s).
        let Some(rest) = words
            .by_ref()
            .find_map(|word| strip_prefix_folded(word, piece))
        else {
            push_group(at, pieces.len());
            break;
        };
        let mut rest = rest;
        let mut end = at + 1;
        while !rest.is_empty() {
            let Some(next) = pieces
                .get(end)
                .and_then(|next| strip_prefix_folded(rest, next))
            else {
                break;
            };
            rest = next;
            end += 1;
        }
        if end > at + 1 || !rest.is_empty() {
            // Split into pieces (or only partly matched: kept, judged rather than dropped).
            push_group(at, end);
        }
        at = end;
    }
    (!out.is_empty()).then_some(out)
}

/// `word` past `piece` when it begins with it, letter case aside.
fn strip_prefix_folded<'a>(word: &'a str, piece: &str) -> Option<&'a str> {
    if let Some(rest) = word.strip_prefix(piece) {
        return Some(rest);
    }
    let mut wanted = piece.chars().flat_map(char::to_lowercase).peekable();
    for (at, c) in word.char_indices() {
        if wanted.peek().is_none() {
            return word.get(at..);
        }
        for lower in c.to_lowercase() {
            if wanted.next() != Some(lower) {
                return None;
            }
        }
    }
    wanted.peek().is_none().then_some("")
}

#[cfg(test)]
mod tests {
    use super::glued_runs;

    #[test]
    fn only_split_words_are_kept_each_with_the_word_before() {
        assert_eq!(
            glued_runs("keep delete", "keepdelete").as_deref(),
            Some("keep delete")
        );
        assert_eq!(
            glued_runs("do not keep delete them", "do not keepdelete them").as_deref(),
            Some("not keep delete")
        );
        assert_eq!(
            glued_runs("a bc d e fg", "abc d efg").as_deref(),
            Some("a bc | d e fg")
        );
        assert_eq!(glued_runs("keep the photos", "keep the photos"), None);
        assert_eq!(glued_runs("", ""), None);
        assert_eq!(glued_runs("  keep\n photos ", "keep photos"), None);
    }

    /// Red team, session 16: the glued "delete" is a word of the whole too (negated there); it
    /// is kept with its piece and the word before, not dropped as a known word.
    #[test]
    fn a_glued_word_the_whole_also_holds_is_kept() {
        assert_eq!(
            glued_runs("never delete or keep delete", "never delete or keepdelete").as_deref(),
            Some("or keep delete")
        );
    }

    #[test]
    fn pieces_are_aligned_case_aside() {
        assert_eq!(
            glued_runs("Keep Delete", "Keepdelete").as_deref(),
            Some("Keep Delete")
        );
        assert_eq!(glued_runs("İx Y", "i\u{307}xy").as_deref(), Some("İx Y"));
    }

    #[test]
    fn words_the_runs_leave_out_are_passed_over() {
        // A `<style>`'s text is in the whole (`textContent`), not in the runs.
        assert_eq!(glued_runs("keep photos", ".a{b:c} keep photos"), None);
        assert_eq!(
            glued_runs("keep delete", ".a{b:c} keepdelete").as_deref(),
            Some("keep delete")
        );
    }

    #[test]
    fn what_cannot_be_aligned_is_kept() {
        // A word the whole lacks: the rest of the runs, from the word before.
        assert_eq!(
            glued_runs("keep the delete photos", "keep the photos").as_deref(),
            Some("the delete photos")
        );
        // A piece matching only part of the word.
        assert_eq!(
            glued_runs("keep del ete", "keepdelete").as_deref(),
            Some("keep del ete")
        );
        assert_eq!(glued_runs("dele", "delete").as_deref(), Some("dele"));
    }
}
