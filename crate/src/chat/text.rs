//! A chat message as the text the protocol engine scans, read from the DOM tree.
//!
//! The text is rebuilt from text nodes, never from `innerText` (which depends on layout, is slow
//! and differs between browsers): block elements end lines, inline text keeps its characters
//! (including a soft line break, a "\n" inside a paragraph's text), code blocks in any of the
//! shapes ChatGPT renders become fences again (```` ```lang ````, the code, ```` ``` ````), and
//! interface text (Copy buttons, code headers, screen-reader labels) is left out.

use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

use super::calls;
use super::sites::SiteProfile;
use crate::protocol::Role;

/// Elements that end a line before and after their content.
const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "thead",
    "tfoot",
    "tr",
    "ul",
];

/// Header words that are interface, not a language name.
pub const NOT_A_LANGUAGE: &[&str] = &[
    "copy",
    "copy code",
    "copied",
    "copied!",
    "edit",
    "run",
    "code",
];

/// Written at the start of each line of a streaming message's last block (see
/// [`TextWriter::reading`]): not a space, so no such line starts a record.
pub const HOLD_MARK: &str = "\u{2026} ";

/// The longest header text taken as a language name.
const MAX_LANGUAGE_CHARS: usize = 32;

/// The message's normalized text, read as a complete message. The role (and so which body is
/// read, and whether whitespace is kept verbatim) comes from `profile`; a message without a
/// readable role is read as the user's, which never executes anything.
pub fn message_text(element: &Element, profile: &SiteProfile) -> String {
    let role = profile.role_of(element).unwrap_or(Role::User);
    message_text_as(element, profile, role)
}

/// [`message_text`] for a role the caller already knows.
pub fn message_text_as(element: &Element, profile: &SiteProfile, role: Role) -> String {
    read_message(element, profile, role, Reading::Complete).text
}

/// Whether the message is read as complete or as still streaming (see [`TextWriter::reading`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    Complete,
    Streaming,
}

/// Why a code block was read as a ```` ```bai ```` block although the page did not label it so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HandshakeRule {
    /// The block had no language label at all (an unlabelled fence, or a site that shows
    /// "Code snippet" for a language it does not know); its content is one BAI handshake.
    UnlabelledBlockContent,
    /// The label was a display-cased "Bai"/"BAI" (sites that capitalize language names).
    DisplayCasedLabel,
}

impl HandshakeRule {
    /// The snake_case name the poll result gives it (as its `Serialize` writes it).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UnlabelledBlockContent => "unlabelled_block_content",
            Self::DisplayCasedLabel => "display_cased_label",
        }
    }
}

/// A message's text and the code blocks recognized as handshakes by their content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageRead {
    /// The text the protocol engine scans.
    pub text: String,
    /// One entry per code block relabelled ```` ```bai ````, in order.
    pub handshake_rules: Vec<HandshakeRule>,
    /// The message holds a line: read as streaming, each of its lines starts with
    /// [`HOLD_MARK`]; read as complete, none does. The two readings differ, so the reader reads
    /// the message again when its completeness changes.
    pub holds: bool,
}

/// Reads a message of `role` (see [`message_text_as`]), noting which blocks were recognized as
/// handshakes by their content.
pub fn read_message(
    element: &Element,
    profile: &SiteProfile,
    role: Role,
    reading: Reading,
) -> MessageRead {
    let body = profile.body_of(element, role);
    let mut writer = TextWriter::new(profile, &body, role == Role::User, false, reading);
    writer.children(&body);
    let holds = writer.write_hold_marks();
    let handshake_rules = std::mem::take(&mut writer.handshake_rules);
    MessageRead {
        text: writer.finish(),
        handshake_rules,
        holds,
    }
}

/// Where bytes `offsets` of the text [`read_message`] gives for `element` are on the page: for
/// each, the text node holding it and the offset in that node (in UTF-16 units, as DOM ranges
/// count), or the code block element for a block's opening fence (which the page draws as the
/// block's top). The same walk as the reading (once for all offsets), so the two cannot disagree
/// about what text is where.
pub fn locate_offsets(
    element: &Element,
    profile: &SiteProfile,
    role: Role,
    reading: Reading,
    offsets: &[usize],
) -> Vec<Option<(Node, u32)>> {
    let body = profile.body_of(element, role);
    let mut writer = TextWriter::new(profile, &body, role == Role::User, true, reading);
    writer.children(&body);
    writer.write_hold_marks();
    // The text read is trimmed of leading line breaks (not for the user's verbatim text).
    let leading = if writer.verbatim {
        0
    } else {
        writer.out.len() - writer.out.trim_start_matches('\n').len()
    };
    offsets
        .iter()
        .map(|offset| {
            let target = writer.unmarked_offset(offset + leading);
            let (start, node) = writer
                .positions
                .iter()
                .rev()
                .find(|(start, _)| *start <= target)?;
            Some((node.clone(), utf16_units(node, target - start)))
        })
        .collect()
}

/// UTF-16 units in the first `bytes` bytes of a text node's value (0 for an element).
fn utf16_units(node: &Node, bytes: usize) -> u32 {
    if !matches!(node.node_type(), Node::TEXT_NODE | Node::CDATA_SECTION_NODE) {
        return 0;
    }
    let value = node.node_value().unwrap_or_default();
    let mut seen = 0;
    let mut units = 0;
    for c in value.chars() {
        if seen >= bytes {
            break;
        }
        seen += c.len_utf8();
        units += c.len_utf16();
    }
    u32::try_from(units).unwrap_or(0)
}

/// Accumulates lines while walking a subtree.
struct TextWriter<'a> {
    out: String,
    profile: &'a SiteProfile,
    /// User messages are shown `white-space: pre-wrap`: every character counts.
    verbatim: bool,
    /// Blocks read as handshakes by their content (assistant messages only).
    handshake_rules: Vec<HandshakeRule>,
    /// The text ends with the line break that closed a block element (a user message made of
    /// paragraphs, such as ChatGPT's `p[data-user-message-copy]`): not part of what was typed.
    block_break_at_end: bool,
    /// Written at the start of every line inside a block quote (`> `) or a list item (`- `), as
    /// the message's Markdown had it: the page drops those markers, and a line the model only
    /// quotes or lists must not read as a record (BAI lines start their line).
    line_prefix: String,
    /// The emphasis and quote marks of the inline elements open around the text (`**`, `*`,
    /// `~~`, `"`), outermost first, written again after [`Self::line_prefix`] at the start of
    /// every line they span: a line break inside `<em>` (a soft break, `<br>`) must not start a
    /// line that reads as a record, as it would not in the Markdown the model wrote.
    open_marks: String,
    /// Half-streamed Markdown (red team, sessions 14 and 15). While a message streams, the page
    /// renders the Markdown received so far, and what later characters do to what is already
    /// shown cannot be known: the closing `~~` of `~~The page says:\nBAI_ACTION …\n(quoted)~~`
    /// strikes out every line of the paragraph; a closing backtick, `$` or `\]` makes them code
    /// or math; a `===` or a table's delimiter row makes a line a heading or a header row; a
    /// backtick at the end of a fence line turns the "code block" after a paragraph back into
    /// that paragraph's text; a link or footnote definition written later rewrites text in any
    /// earlier block; a site draws its own blocks (a footnotes section, a cursor, a status
    /// line) after the one being written. Until then each such line shows as a plain line. So in
    /// a message read as streaming every line starts with [`HOLD_MARK`], code blocks' included:
    /// nothing in it is a record until the message completes and is read again, without marks.
    /// (Holding only the block written last was tried first and passed by the fence, footnote
    /// and site-markup cases above.)
    reading: Reading,
    /// Where each line of text started in `out` (before the marks are written, see
    /// [`Self::write_hold_marks`]).
    line_starts: Vec<usize>,
    /// Where the hold marks were written, in the text without them (for [`locate_offsets`]).
    marks: Vec<usize>,
    /// Only for [`locate_offset`]: where each text node (or code block) starts in `out`.
    record_positions: bool,
    positions: Vec<(usize, Node)>,
    /// Some element under the body matches the interface selector / the code block selector.
    /// Asked once per read (one `querySelector` each): most messages hold neither, and then no
    /// element of the walk needs its own `matches` call for them.
    ui_inside: bool,
    code_inside: bool,
    /// Some element under the body is math (`<math>`, KaTeX's `.katex`): only then are spans'
    /// classes read ([`Self::math_kind`]).
    math_inside: bool,
    /// Inside math marked with `$` (math inside it is not marked again).
    math_depth: usize,
}

/// What an element is to the reading of math.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MathKind {
    /// No math.
    None,
    /// Math as shown: a `<math>` element, KaTeX's `.katex` (whose shown part is `.katex-html`).
    Shown,
    /// Never shown: KaTeX's visually hidden MathML copy (`.katex-mathml`), for screen readers.
    Hidden,
}

impl<'a> TextWriter<'a> {
    fn new(
        profile: &'a SiteProfile,
        body: &Element,
        verbatim: bool,
        record_positions: bool,
        reading: Reading,
    ) -> Self {
        // `body.querySelector(s)` finds exactly the descendants that `matches(s)` (selectors are
        // matched against the whole document either way), and the walk visits only descendants.
        let ui_inside = calls::query_selector(body, profile.ui_selector).is_some();
        let code_inside = calls::query_selector(body, profile.code_block_selector).is_some();
        let math_inside = calls::query_selector(body, "math, .katex, .katex-error").is_some();
        Self {
            out: String::new(),
            profile,
            verbatim,
            handshake_rules: Vec::new(),
            block_break_at_end: false,
            line_prefix: String::new(),
            open_marks: String::new(),
            reading,
            line_starts: Vec::new(),
            marks: Vec::new(),
            record_positions,
            positions: Vec::new(),
            ui_inside,
            code_inside,
            math_inside,
            math_depth: 0,
        }
    }

    /// Whether `element` (named `name`) is math, and shown or not. Asked only when the body
    /// holds math; classes are read of spans only (KaTeX's wrappers).
    fn math_kind(&self, element: &Element, name: &str) -> MathKind {
        if !self.math_inside {
            return MathKind::None;
        }
        match name {
            "math" => MathKind::Shown,
            "span" => {
                let class = element.get_attribute("class").unwrap_or_default();
                let mut kind = MathKind::None;
                for token in class.split_ascii_whitespace() {
                    match token {
                        "katex-mathml" => return MathKind::Hidden,
                        // A formula KaTeX could not parse is shown as its source (`throwOnError:
                        // false`): math the model wrote, marked as such all the same.
                        "katex" | "katex-error" => kind = MathKind::Shown,
                        _ => {}
                    }
                }
                kind
            }
            _ => MathKind::None,
        }
    }

    fn children(&mut self, parent: &Node) {
        let mut child = parent.first_child();
        while let Some(node) = child {
            self.node(&node);
            child = node.next_sibling();
        }
    }

    fn node(&mut self, node: &Node) {
        match node.node_type() {
            Node::TEXT_NODE | Node::CDATA_SECTION_NODE => {
                if let Some(text) = node.node_value() {
                    if self.record_positions {
                        self.positions.push((self.out.len(), node.clone()));
                    }
                    self.write(&text);
                }
            }
            // A node of type ELEMENT_NODE is an Element: no `instanceof` call to ask again.
            Node::ELEMENT_NODE => self.element(node.unchecked_ref::<Element>()),
            _ => {}
        }
    }

    fn element(&mut self, element: &Element) {
        let name = element.local_name();
        if name == "br" {
            self.trim_line_end();
            self.out.push('\n');
            self.block_break_at_end = false;
            return;
        }
        if self.ui_inside && calls::matches(element, self.profile.ui_selector) {
            return;
        }
        if self.code_inside && calls::matches(element, self.profile.code_block_selector) {
            self.code_block(element);
            return;
        }
        // Math is read as shown, never from its source: an `<annotation>` (the TeX a site
        // keeps inside MathML, line breaks and all) is never rendered, nor is KaTeX's MathML
        // copy; a line of the source must not read as a record the user never saw.
        if matches!(name.as_str(), "annotation" | "annotation-xml") {
            return;
        }
        let math = self.math_kind(element, &name);
        if math == MathKind::Hidden {
            return;
        }
        // Shown math keeps `$` marks, as the Markdown had it (`$$…$$` alone in a paragraph
        // renders as just its text): a line of it never starts its line as a record.
        let math = math == MathKind::Shown && self.math_depth == 0;
        let block = BLOCK_TAGS.contains(&name.as_str());
        if block {
            self.end_line();
        } else if matches!(name.as_str(), "td" | "th") && !self.at_line_start() {
            self.out.push_str(" | ");
        }
        let prefix_len = self.line_prefix.len();
        // Inline code (a code block was taken above) keeps its backticks: an action line shown
        // as code is an example, not a request. Not a code block still streaming, which some
        // layouts show as inline code until it closes (it holds a line break or its fence).
        let inline_code = name == "code" && {
            let code = element.text_content().unwrap_or_default();
            !code.contains('\n') && !code.starts_with("```")
        };
        // What the page drew from the message's Markdown (or HTML) marks its lines as the source
        // did, so a line only shown there never starts its line as a record: a heading's `#`s,
        // a table row's `|`, a quote's `"`, emphasis; a collapsed `<details>` (a reasoning block: the
        // model thinking, not answering) reads as quoted.
        let quote = name == "q";
        // Emphasis and strike-through too (`**BAI_ACTION …**`, `~~BAI_ACTION …~~`: a line shown
        // struck out is one the model took back), when it holds text.
        let emphasis = match name.as_str() {
            "strong" | "b" => "**",
            "em" | "i" => "*",
            "del" | "s" | "strike" => "~~",
            _ => "",
        };
        let emphasis = if math { "$" } else { emphasis };
        let emphasis = if !emphasis.is_empty()
            && element
                .text_content()
                .is_some_and(|text| !text.trim().is_empty())
        {
            emphasis
        } else {
            ""
        };
        match name.as_str() {
            "blockquote" | "details" => self.line_prefix.push_str("> "),
            "li" => self.line_prefix.push_str("- "),
            "td" | "th" => self.line_prefix.push_str("| "),
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = name[1..].parse::<usize>().unwrap_or(1);
                self.line_prefix.push_str(&"#".repeat(level));
                self.line_prefix.push(' ');
            }
            _ if inline_code => self.write("`"),
            _ if quote => self.write("\""),
            _ => self.write(emphasis),
        }
        let marks_len = self.open_marks.len();
        if quote {
            self.open_marks.push('"');
        } else if inline_code {
            // Every line it spans (a `<br>` inside it) starts with its backtick too (red team
            // red8, session 20).
            self.open_marks.push('`');
        } else {
            self.open_marks.push_str(emphasis);
        }
        self.math_depth += usize::from(math);
        self.children(element);
        self.math_depth -= usize::from(math);
        self.open_marks.truncate(marks_len);
        if inline_code {
            self.write("`");
        } else if quote {
            self.write("\"");
        } else {
            self.write(emphasis);
        }
        self.line_prefix.truncate(prefix_len);
        if block {
            let before = self.out.len();
            self.end_line();
            self.block_break_at_end = self.out.len() > before;
        }
    }

    /// Writes [`HOLD_MARK`] at the start of every line when read as streaming, and says whether
    /// the message holds a line (whatever the reading).
    fn write_hold_marks(&mut self) -> bool {
        let held = std::mem::take(&mut self.line_starts);
        let holds = !held.is_empty();
        if !holds || self.reading == Reading::Complete {
            return holds;
        }
        let mut marked = String::with_capacity(self.out.len() + held.len() * HOLD_MARK.len());
        let mut from = 0;
        for &at in &held {
            marked.push_str(self.out.get(from..at).unwrap_or_default());
            marked.push_str(HOLD_MARK);
            from = at;
        }
        marked.push_str(self.out.get(from..).unwrap_or_default());
        self.out = marked;
        self.marks = held;
        holds
    }

    /// Where byte `offset` of the text with its hold marks is in the text without them (an
    /// offset inside a mark goes to the line it starts).
    fn unmarked_offset(&self, offset: usize) -> usize {
        // Mark `i` (at `at` without marks) takes bytes `at + i * len ..= at + (i + 1) * len - 1`.
        let mut shift = 0;
        for &at in &self.marks {
            if offset < at + shift {
                return offset - shift;
            }
            if offset < at + shift + HOLD_MARK.len() {
                return at;
            }
            shift += HOLD_MARK.len();
        }
        offset.saturating_sub(shift)
    }

    fn write(&mut self, text: &str) {
        // Whitespace between blocks (source formatting of the page) is not text; inside a line
        // every character is kept, soft line breaks included.
        if !self.verbatim && self.at_line_start() && text.trim().is_empty() {
            return;
        }
        if !text.is_empty() {
            self.block_break_at_end = false;
        }
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                self.out.push('\n');
            }
            if !self.verbatim && self.at_line_start() && !line.trim().is_empty() {
                self.line_starts.push(self.out.len());
                self.out.push_str(&self.line_prefix);
                self.out.push_str(&self.open_marks);
            }
            self.out.push_str(line);
        }
    }

    fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.out.ends_with('\n')
    }

    /// Ends the current line unless it is empty.
    fn end_line(&mut self) {
        if !self.at_line_start() {
            self.trim_line_end();
            self.out.push('\n');
        }
    }

    fn trim_line_end(&mut self) {
        if !self.verbatim {
            let kept = self.out.trim_end_matches([' ', '\t']).len();
            self.out.truncate(kept);
        }
    }

    fn code_block(&mut self, block: &Element) {
        self.block_break_at_end = false;
        let body = self
            .profile
            .code_body_selectors
            .iter()
            .find_map(|selector| block.query_selector(selector).ok().flatten());
        let mut code_positions = Vec::new();
        let mut code = String::new();
        raw_children(
            body.as_ref().unwrap_or(block),
            &mut code,
            self.record_positions.then_some(&mut code_positions),
        );
        let language = body
            .as_ref()
            .and_then(language_from_attributes)
            .or_else(|| language_from_attributes(block))
            .or_else(|| language_from_header(block, body.as_ref()))
            .unwrap_or_default();
        // Some sites drop the fence's language (Gemini shows "Code snippet" for a language it
        // does not know) or display-case it. Only in the assistant's messages, a block whose
        // whole content is one BAI handshake object is read as the ```bai block the model
        // wrote; the engine then checks it like any other, and the user is still asked.
        let language = match handshake_rule(&language, &code) {
            Some(rule) if !self.verbatim => {
                self.handshake_rules.push(rule);
                "bai".to_owned()
            }
            _ => language,
        };
        // The fence is longer than any backtick run in the code, so no line of the code (a
        // "```" followed by "```bai", say) can close it early and turn the rest into a block
        // the page does not show (CommonMark's own rule for writing fences).
        let fence = "`".repeat(longest_backtick_run(&code).max(2) + 1);
        self.end_line();
        if self.record_positions {
            self.positions.push((self.out.len(), block.clone().into()));
        }
        // A block in a quote or a list item keeps the marker on each of its lines, fences
        // included: its lines are quoted too, and a quoted fence opens no `bai` block.
        let prefix = std::mem::take(&mut self.line_prefix);
        self.line_starts.push(self.out.len());
        self.out.push_str(&prefix);
        self.out.push_str(&fence);
        self.out.push_str(&language);
        self.out.push('\n');
        let base = self.out.len();
        if prefix.is_empty() {
            self.positions.extend(
                code_positions
                    .into_iter()
                    .map(|(start, node)| (base + start, node)),
            );
        }
        let code = code.trim_end_matches(['\n', '\r']);
        if !code.is_empty() {
            for line in code.split('\n') {
                self.line_starts.push(self.out.len());
                self.out.push_str(&prefix);
                self.out.push_str(line);
                self.out.push('\n');
            }
        }
        self.line_starts.push(self.out.len());
        self.out.push_str(&prefix);
        self.out.push_str(&fence);
        self.out.push('\n');
        self.line_prefix = prefix;
    }

    fn finish(mut self) -> String {
        if self.verbatim {
            if self.block_break_at_end {
                self.out.pop();
            }
            return self.out;
        }
        self.out.trim_start_matches('\n').trim_end().to_owned()
    }
}

/// Whether a code block labelled `language` (empty: unlabelled) holding `code` is a BAI
/// handshake the page lost the label of: exactly one JSON object whose `protocol` starts with
/// `BAI/` and whose `kind` is `handshake`. A block labelled with another language (`json`) is
/// what the model wrote and stays as it is.
fn handshake_rule(language: &str, code: &str) -> Option<HandshakeRule> {
    let rule = if language.is_empty() {
        HandshakeRule::UnlabelledBlockContent
    } else if language.eq_ignore_ascii_case("bai") && language != "bai" {
        HandshakeRule::DisplayCasedLabel
    } else {
        return None;
    };
    let value = crate::protocol::json::read_plain(code.trim()).ok()?;
    let object = value.as_object()?;
    let protocol = object.get("protocol")?.as_str()?;
    let kind = object.get("kind")?.as_str()?;
    (protocol.starts_with("BAI/") && kind == "handshake").then_some(rule)
}

/// The longest run of backticks in `code`.
fn longest_backtick_run(code: &str) -> usize {
    code.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Appends the code exactly as written: text nodes verbatim, `<br>` and line elements (CodeMirror's
/// `.cm-line`, or any block) end lines.
/// `positions`: where each text node starts in the code (for [`locate_offset`]).
fn raw_children(parent: &Node, out: &mut String, mut positions: Option<&mut Vec<(usize, Node)>>) {
    let mut child = parent.first_child();
    while let Some(node) = child {
        match node.node_type() {
            Node::TEXT_NODE | Node::CDATA_SECTION_NODE => {
                if let Some(text) = node.node_value() {
                    if let Some(positions) = positions.as_deref_mut() {
                        positions.push((out.len(), node.clone()));
                    }
                    out.push_str(&text);
                }
            }
            Node::ELEMENT_NODE => {
                if let Some(element) = node.dyn_ref::<Element>() {
                    raw_element(element, out, positions.as_deref_mut());
                }
            }
            _ => {}
        }
        child = node.next_sibling();
    }
}

fn raw_element(element: &Element, out: &mut String, positions: Option<&mut Vec<(usize, Node)>>) {
    let name = element.local_name();
    if name == "br" {
        out.push('\n');
        return;
    }
    if matches!(
        name.as_str(),
        "button" | "svg" | "style" | "script" | "template"
    ) {
        return;
    }
    let block = BLOCK_TAGS.contains(&name.as_str());
    if block && !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    raw_children(element, out, positions);
}

/// `language-xxx` / `lang-xxx` in the class, or a `data-language` attribute.
fn language_from_attributes(element: &Element) -> Option<String> {
    let class = element.get_attribute("class").unwrap_or_default();
    class
        .split_ascii_whitespace()
        .find_map(|token| {
            token
                .strip_prefix("language-")
                .or_else(|| token.strip_prefix("lang-"))
        })
        .filter(|language| is_language_name(language))
        .map(str::to_owned)
        .or_else(|| {
            element
                .get_attribute("data-language")
                .filter(|language| is_language_name(language))
        })
}

/// The first text in the block outside its code and its buttons that reads like a language
/// name (the header's label: "bash", "python", "bai").
fn language_from_header(block: &Element, body: Option<&Element>) -> Option<String> {
    let mut found = None;
    header_search(block, body, &mut found);
    found
}

fn header_search(parent: &Node, body: Option<&Element>, found: &mut Option<String>) {
    let mut child = parent.first_child();
    while let Some(node) = child {
        if found.is_some() {
            return;
        }
        match node.node_type() {
            Node::TEXT_NODE => {
                let text = node.node_value().unwrap_or_default();
                let text = text.trim();
                // ASCII case-folding matches what `to_lowercase` matched: the only non-ASCII
                // character that lower-cases into ASCII is the Kelvin sign (to `k`, in none of
                // the words), and it keeps Unicode's case tables (~11 KB) out of the chat module.
                if is_language_name(text)
                    && !NOT_A_LANGUAGE
                        .iter()
                        .any(|word| text.eq_ignore_ascii_case(word))
                {
                    *found = Some(text.to_owned());
                }
            }
            Node::ELEMENT_NODE => {
                if let Some(element) = node.dyn_ref::<Element>() {
                    let is_body = body.is_some_and(|body| body.is_same_node(Some(element)));
                    let name = element.local_name();
                    if !is_body && !matches!(name.as_str(), "button" | "svg" | "code") {
                        header_search(element, body, found);
                    }
                }
            }
            _ => {}
        }
        child = node.next_sibling();
    }
}

fn is_language_name(text: &str) -> bool {
    !text.is_empty()
        && text.chars().count() <= MAX_LANGUAGE_CHARS
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '+' | '-' | '#' | '.' | '_'))
}
