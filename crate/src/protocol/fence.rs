//! Fenced code blocks as CommonMark reads them, to find "the only ```` ```bai ```` block" of a
//! message the way a renderer (and so the user) sees it.
//!
//! The rules (CommonMark 0.31, "Fenced code blocks"), for a message read as top-level blocks:
//! - an opening fence is a run of at least three backticks or three tildes, indented by at most
//!   three columns (a tab counts to the next multiple of four), then an info string; a backtick
//!   fence whose info string holds a backtick is not a fence (it is inline code);
//! - the language is the info string's first word, after backslash escapes and numeric character
//!   references (```` ```&#98;ai ```` is a `bai` block to a renderer);
//! - the block ends at a closing fence: the same character, at least as many, indented by at most
//!   three columns, nothing but spaces after; a fence left open runs to the end of the message;
//! - lines inside a block are its content, whatever they look like (a ```` ```bai ```` line inside
//!   a ```` ````text ```` block is text).
//!
//! A renderer also nests fences inside containers (block quotes `>`, list items `-`, `1.`), where
//! the container may end a fence early. The engine does not rebuild containers; instead
//! [`bai_fence_lines`] counts every line that *could* open a `bai` block in any container or
//! position, so a handshake is accepted only when there is no other candidate anywhere, and a
//! difference in container handling can only make the engine refuse, never accept more.
//!
//! HTML code blocks marked `language-bai` count as candidates too (a renderer that passes HTML
//! through shows them as `bai` blocks).
//!
//! Linear: only lines holding a run of three fence characters are looked at, found with `memchr2`.

use std::ops::Range;

/// A fenced code block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FencedBlock {
    /// From the opening fence's first fence character to the end of the closing fence's line (or
    /// of the text).
    pub span: Range<usize>,
    /// The lines between the fences.
    pub content: Range<usize>,
    /// The language: the info string's first word, decoded.
    pub language: String,
    /// Whether a closing fence was found.
    pub closed: bool,
}

/// A ```` ```bai ```` fenced block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaiBlock {
    /// From the opening fence to the end of the closing fence (or of the text).
    pub span: Range<usize>,
    /// The lines between the fences.
    pub content: Range<usize>,
    /// Whether a closing fence was found.
    pub closed: bool,
}

/// A line that may be a fence: the fence character, the run's length and where it starts, the
/// line's indentation in columns, and the rest of the line after the run.
struct FenceLine<'t> {
    mark: u8,
    run: usize,
    at: usize,
    indent: usize,
    rest: &'t str,
}

/// The line `line` (no line break) starting at `start`, read as a possible fence.
fn fence_line(line: &str, start: usize) -> Option<FenceLine<'_>> {
    let bytes = line.as_bytes();
    let mut column = 0;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b' ' => column += 1,
            b'\t' => column += 4 - column % 4,
            _ => break,
        }
        i += 1;
    }
    let mark = *bytes.get(i).filter(|b| matches!(b, b'`' | b'~'))?;
    let run = bytes.get(i..)?.iter().take_while(|&&b| b == mark).count();
    if run < 3 {
        return None;
    }
    Some(FenceLine {
        mark,
        run,
        at: start + i,
        indent: column,
        rest: line.get(i + run..).unwrap_or_default(),
    })
}

/// The language of an info string: its first word, with backslash escapes of ASCII punctuation
/// and numeric character references decoded, as a renderer does.
fn language_of(info: &str) -> String {
    let word = info
        .split([' ', '\t'])
        .find(|w| !w.is_empty())
        .unwrap_or_default();
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(c) = rest.chars().next() {
        if c == '\\' {
            if let Some(p) = rest
                .get(1..2)
                .filter(|p| p.bytes().all(|b| b.is_ascii_punctuation()))
            {
                out.push_str(p);
                rest = rest.get(2..).unwrap_or_default();
                continue;
            }
        }
        if c == '&' {
            if let Some((decoded, used)) = numeric_reference(rest) {
                out.push(decoded);
                rest = rest.get(used..).unwrap_or_default();
                continue;
            }
        }
        out.push(c);
        rest = rest.get(c.len_utf8()..).unwrap_or_default();
    }
    out
}

/// `&#98;` or `&#x62;` at the start of `text`: the character and the bytes used.
fn numeric_reference(text: &str) -> Option<(char, usize)> {
    let body = text.strip_prefix("&#")?;
    let (digits, radix, skip) = match body.strip_prefix(['x', 'X']) {
        Some(hex) => (hex, 16, 3),
        None => (body, 10, 2),
    };
    let len = digits
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    if len == 0 || len > 7 || digits.as_bytes().get(len) != Some(&b';') {
        return None;
    }
    let code = u32::from_str_radix(digits.get(..len)?, radix).ok()?;
    let c = char::from_u32(code)
        .filter(|c| *c != '\0')
        .unwrap_or('\u{fffd}');
    Some((c, skip + len + 1))
}

/// The line holding byte `at`: (start, end without the line break, start of the next line).
fn line_around(bytes: &[u8], at: usize) -> (usize, usize, usize) {
    let start = memchr::memrchr(b'\n', bytes.get(..at).unwrap_or_default()).map_or(0, |i| i + 1);
    let end =
        memchr::memchr(b'\n', bytes.get(at..).unwrap_or_default()).map_or(bytes.len(), |i| at + i);
    let next = (end + 1).min(bytes.len());
    let trimmed = if end > start && bytes.get(end - 1) == Some(&b'\r') {
        end - 1
    } else {
        end
    };
    (start, trimmed, next)
}

/// Start offsets of the lines holding a run of at least three backticks or tildes, in order.
fn fence_candidates(text: &str) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut pos = 0;
    std::iter::from_fn(move || {
        while let Some(found) = memchr::memchr2(b'`', b'~', bytes.get(pos..).unwrap_or_default()) {
            let at = pos + found;
            let mark = bytes.get(at).copied().unwrap_or_default();
            let run = bytes
                .get(at..)
                .unwrap_or_default()
                .iter()
                .take_while(|&&b| b == mark)
                .count();
            if run < 3 {
                pos = at + run.max(1);
                continue;
            }
            let line = line_around(bytes, at);
            pos = line.2.max(at + run);
            return Some(line);
        }
        None
    })
}

/// The fenced code blocks of a complete text, top level, in order.
pub fn fenced_blocks(text: &str) -> Vec<FencedBlock> {
    struct Open {
        mark: u8,
        run: usize,
        at: usize,
        content: usize,
        language: String,
    }
    let mut blocks = Vec::new();
    let mut open: Option<Open> = None;
    for (start, end, next) in fence_candidates(text) {
        let line = text.get(start..end).unwrap_or_default();
        let Some(fence) = fence_line(line, start).filter(|f| f.indent <= 3) else {
            continue;
        };
        match &open {
            Some(o) => {
                let closes = fence.mark == o.mark
                    && fence.run >= o.run
                    && fence.rest.bytes().all(|b| b == b' ' || b == b'\t');
                if closes {
                    blocks.push(FencedBlock {
                        span: o.at..end,
                        content: o.content..start,
                        language: o.language.clone(),
                        closed: true,
                    });
                    open = None;
                }
            }
            None => {
                if fence.mark == b'`' && fence.rest.contains('`') {
                    continue;
                }
                open = Some(Open {
                    mark: fence.mark,
                    run: fence.run,
                    at: fence.at,
                    content: next,
                    language: language_of(fence.rest.trim_matches([' ', '\t'])),
                });
            }
        }
    }
    if let Some(o) = open {
        blocks.push(FencedBlock {
            span: o.at..text.len(),
            content: o.content.min(text.len())..text.len(),
            language: o.language,
            closed: false,
        });
    }
    blocks
}

/// The ```` ```bai ```` blocks of a complete text (any fence form), in order. A `bai` fence line
/// inside another block is that block's content, not a block.
pub fn bai_blocks(text: &str) -> Vec<BaiBlock> {
    fenced_blocks(text)
        .into_iter()
        .filter(|b| b.language == "bai")
        .map(|b| BaiBlock {
            span: b.span,
            content: b.content,
            closed: b.closed,
        })
        .collect()
}

/// How many lines of `text` could open a `bai` block to some reader: a run of three backticks or
/// tildes whose info string's first word is `bai` in any letter case, after any indentation and
/// any block-quote (`>`) or list-item (`-`, `*`, `+`, `1.`, `1)`) markers, inside another fenced
/// block or not. At least [`bai_blocks`]' count; more means a `bai` block the top-level reading
/// does not see (in a container, or hidden in another block by a container that ends it early).
pub fn bai_fence_lines(text: &str) -> usize {
    html_bai_blocks(text)
        + fence_candidates(text)
            .filter(|&(start, end, _)| {
                let line = text.get(start..end).unwrap_or_default();
                let stripped = strip_containers(line);
                let offset = line.len() - stripped.len();
                fence_line(stripped, start + offset).is_some_and(|f| {
                    language_of(f.rest.trim_matches([' ', '\t'])).eq_ignore_ascii_case("bai")
                })
            })
            .count()
}

/// HTML code blocks marked as `bai` (`<code class="language-bai">`, `lang-bai`,
/// `data-language="bai"`), which a renderer that passes HTML through shows as `bai` blocks and
/// the chat layer reads back as fences. Counted wherever they are, in any letter case.
fn html_bai_blocks(text: &str) -> usize {
    let lower = text.to_ascii_lowercase();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
    let mut count = 0;
    for marker in [
        "language-bai",
        "lang-bai",
        "data-language=\"bai",
        "data-language='bai",
    ] {
        for (at, _) in lower.match_indices(marker) {
            let next = lower.as_bytes().get(at + marker.len()).copied();
            let before = at
                .checked_sub(1)
                .and_then(|i| lower.as_bytes().get(i))
                .copied();
            let quoted_end = marker.starts_with("data-");
            let ends = if quoted_end {
                matches!(next, Some(b'"' | b'\''))
            } else {
                !next.is_some_and(word)
            };
            if ends && !before.is_some_and(word) {
                count += 1;
            }
        }
    }
    count
}

/// `line` without its leading indentation and block-quote / list-item markers.
fn strip_containers(line: &str) -> &str {
    let mut rest = line;
    loop {
        let trimmed = rest.trim_start_matches([' ', '\t', '>']);
        let after_marker = trimmed
            .strip_prefix(['-', '*', '+'])
            .or_else(|| {
                let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
                (1..=9)
                    .contains(&digits)
                    .then(|| trimmed.get(digits..))
                    .flatten()
                    .and_then(|r| r.strip_prefix(['.', ')']))
            })
            .filter(|r| r.is_empty() || r.starts_with([' ', '\t']));
        match after_marker {
            Some(r) => rest = r,
            None if trimmed.len() == rest.len() => return rest,
            None => rest = trimmed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn languages(text: &str) -> Vec<(String, String, bool)> {
        fenced_blocks(text)
            .into_iter()
            .map(|b| (b.language, text[b.content].to_owned(), b.closed))
            .collect()
    }

    fn block(language: &str, content: &str, closed: bool) -> (String, String, bool) {
        (language.to_owned(), content.to_owned(), closed)
    }

    #[test]
    fn backtick_and_tilde_fences_of_any_length() {
        let t = "a\n```bai\n{1}\n```\n~~~bai\n{2}\n~~~\n````bai x\n{3}\n```\n````\n~~~~~ bai\n{4}\n~~~~~~\n";
        assert_eq!(
            languages(t),
            vec![
                block("bai", "{1}\n", true),
                block("bai", "{2}\n", true),
                block("bai", "{3}\n```\n", true),
                block("bai", "{4}\n", true),
            ]
        );
        assert_eq!(bai_blocks(t).len(), 4);
        assert_eq!(bai_fence_lines(t), 4);
    }

    #[test]
    fn closing_rules() {
        // Other character, shorter run, info after the run: not a closing fence.
        let t = "````bai\n~~~~\n```\n```` x\n````\n";
        assert_eq!(
            languages(t),
            vec![block("bai", "~~~~\n```\n```` x\n", true)]
        );
        // Left open: runs to the end.
        assert_eq!(
            languages("~~~bai\n{}\n```"),
            vec![block("bai", "{}\n```", false)]
        );
        // A closing fence may be indented up to three spaces and followed by spaces.
        assert_eq!(
            languages("```bai\n{}\n   ```  \n"),
            vec![block("bai", "{}\n", true)]
        );
        assert_eq!(
            languages("```bai\n{}\n    ```\n"),
            vec![block("bai", "{}\n    ```\n", false)]
        );
    }

    #[test]
    fn indentation_and_info_rules() {
        assert_eq!(bai_blocks("   ```bai\n{}\n```").len(), 1);
        assert_eq!(bai_blocks("    ```bai\n{}\n```").len(), 0);
        assert_eq!(bai_blocks("\t```bai\n{}\n```").len(), 0);
        assert_eq!(bai_blocks("  \t```bai\n{}\n```").len(), 0);
        // A backtick in a backtick fence's info string: inline code, not a fence.
        assert_eq!(languages("```bai`\n{}\n```\n"), vec![block("", "", false)]);
        assert_eq!(
            languages("~~~bai`\n{}\n~~~\n"),
            vec![block("bai`", "{}\n", true)]
        );
        // Two backticks are not a fence; CRLF line ends are line ends.
        assert!(languages("``bai\n{}\n``").is_empty());
        assert_eq!(
            languages("```bai\r\n{}\r\n```\r\n"),
            vec![block("bai", "{}\r\n", true)]
        );
        // The language is decoded as a renderer decodes it.
        assert_eq!(bai_blocks("```&#98;ai\n{}\n```").len(), 1);
        assert_eq!(bai_blocks("```&#x62;&#x61;&#x69; json\n{}\n```").len(), 1);
        assert_eq!(bai_blocks("```BAI\n{}\n```").len(), 0);
        assert_eq!(bai_blocks("``` bai\n{}\n```").len(), 1);
    }

    #[test]
    fn a_bai_line_inside_another_block_is_content() {
        let t = "````text\n```bai\n{}\n```\n````\n~~~\n```bai\n~~~\n";
        assert!(bai_blocks(t).is_empty());
        assert_eq!(bai_fence_lines(t), 2);
    }

    #[test]
    fn candidates_in_containers_are_counted() {
        for line in [
            "> ```bai",
            ">>```bai",
            "- ```bai",
            "* ~~~bai",
            "1. ```bai",
            "12) ```bai",
            " > - 1. ```bai",
            "        ```bai",
            "\t```bai",
            "```BAI",
            "```Bai json",
        ] {
            assert_eq!(
                bai_fence_lines(&format!("x\n{line}\n{{}}\n```\n")),
                1,
                "{line:?}"
            );
        }
        for html in [
            "<pre><code class=\"language-bai\">{}</code></pre>",
            "<code class='x LANG-BAI'>",
            "<pre data-language=\"bai\">",
        ] {
            assert_eq!(bai_fence_lines(html), 1, "{html}");
        }
        for html in [
            "<code class=\"language-bairn\">",
            "<code class=\"xlang-bai\">",
            "<pre data-language=\"bait\">",
        ] {
            assert_eq!(bai_fence_lines(html), 0, "{html}");
        }
        for line in [
            "-```bai",
            "1.```bai",
            "```baix",
            "``bai",
            "a ```bai",
            "```json bai",
        ] {
            assert_eq!(
                bai_fence_lines(&format!("x\n{line}\n{{}}\n```\n")),
                0,
                "{line:?}"
            );
        }
    }
}
