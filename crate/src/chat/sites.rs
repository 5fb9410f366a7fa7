//! One table of chat sites with ordered fallback selectors. ChatGPT ships several markup
//! generations at once; when its page changes, this table is the only thing to update.
//! Anchor on data attributes and roles, never on utility class names.

use web_sys::{Document, Element};

use crate::protocol::Role;

/// How to find things on one chat site. Each list is tried in order; the first selector that
/// matches wins.
#[derive(Debug)]
pub struct SiteProfile {
    /// Shown in the panel.
    pub name: &'static str,
    /// Hostnames this profile is for. Empty: any host whose markup matches (self-hosted UIs and
    /// the local test pages, which reproduce ChatGPT's markup).
    pub hosts: &'static [&'static str],
    /// One element per message, carrying its author role.
    pub message_selectors: &'static [&'static str],
    /// The editor the extension writes its ACK line into.
    pub composer_selectors: &'static [&'static str],
    /// The button that sends the composer's text.
    pub send_button_selectors: &'static [&'static str],
    /// Present while the assistant is still writing.
    pub stop_button_selectors: &'static [&'static str],
    /// Where a message element's author role is written, tried in order.
    pub role_sources: &'static [RoleSource],
    /// The assistant's message body inside a message element, tried in order; without a match
    /// the whole message element is read.
    pub assistant_body_selectors: &'static [&'static str],
    /// The user's message body (plain text, newlines kept), tried in order.
    pub user_body_selectors: &'static [&'static str],
    /// The outermost element of a rendered code block, in any of its shapes (one selector list:
    /// these are alternatives matched together, not fallbacks).
    pub code_block_selector: &'static str,
    /// The element holding a code block's code, inside its block element, tried in order.
    pub code_body_selectors: &'static [&'static str],
    /// Interface text inside a message (buttons, headers, screen-reader labels): never part of the
    /// message text. Code block headers are read for the language only.
    pub ui_selector: &'static str,
}

/// One place a message's author role can be read from.
#[derive(Debug, Clone, Copy)]
pub struct RoleSource {
    /// `None`: the message element itself; otherwise the first descendant matching this.
    pub within: Option<&'static str>,
    /// The attribute whose value is `user` / `assistant`, or ends with `:user` / `:assistant`.
    pub attribute: &'static str,
}

// Only user and assistant messages: tool and system messages are not part of the conversation
// the protocol engine reads.
const CHATGPT_MESSAGES: &[&str] = &[
    "[data-message-author-role=user], [data-message-author-role=assistant]",
    "[data-chatgpt-search-unit-key$=':assistant'], [data-chatgpt-search-unit-key$=':user']",
    "[data-turn-key]:has(h4[data-conversation-role=user]), \
     [data-turn-key]:has(h4[data-conversation-role=assistant])",
];
const CHATGPT_ROLES: &[RoleSource] = &[
    RoleSource {
        within: None,
        attribute: "data-message-author-role",
    },
    RoleSource {
        within: None,
        attribute: "data-chatgpt-search-unit-key",
    },
    RoleSource {
        within: Some("h4[data-conversation-role]"),
        attribute: "data-conversation-role",
    },
    RoleSource {
        within: Some("[data-message-author-role]"),
        attribute: "data-message-author-role",
    },
];
const CHATGPT_ASSISTANT_BODY: &[&str] =
    &["[data-markdown-text-style=assistant-message]", ".markdown"];
const CHATGPT_USER_BODY: &[&str] = &[".whitespace-pre-wrap", "[data-user-message-bubble]"];
// 2026 `[data-markdown-copy=code-block]`; 2024/2025 `pre`; late-2025 CodeMirror viewer (normally
// inside a `pre`, matched on its own in case the `pre` goes away).
const CHATGPT_CODE_BLOCK: &str = "[data-markdown-copy=code-block], pre, .cm-editor";
const CHATGPT_CODE_BODY: &[&str] = &[".cm-content", "code"];
const CHATGPT_UI: &str = "button, svg, script, style, template, \
    [data-markdown-copy=exclude], h4[data-conversation-role], h5.sr-only, h6.sr-only";
const CHATGPT_COMPOSER: &[&str] = &[
    "form[data-chatgpt-composer] [data-composer-markdown][role=textbox]",
    "#prompt-textarea.ProseMirror[contenteditable=true]",
    "div.ProseMirror[contenteditable=true]",
    "textarea[name=prompt-textarea]",
];
const CHATGPT_SEND: &[&str] = &[
    "button[data-testid=send-button]",
    "#composer-submit-button",
    "form button[type=submit]",
];
const CHATGPT_STOP: &[&str] = &[
    "button[data-testid=stop-button]",
    "[data-testid=composer-stop-button]",
    "form button[aria-label*=stop i]",
    ".result-streaming",
];

/// Every site the extension reads, most specific first.
pub static SITES: &[SiteProfile] = &[
    SiteProfile {
        name: "chatgpt",
        hosts: &["chatgpt.com", "chat.openai.com"],
        message_selectors: CHATGPT_MESSAGES,
        composer_selectors: CHATGPT_COMPOSER,
        send_button_selectors: CHATGPT_SEND,
        stop_button_selectors: CHATGPT_STOP,
        role_sources: CHATGPT_ROLES,
        assistant_body_selectors: CHATGPT_ASSISTANT_BODY,
        user_body_selectors: CHATGPT_USER_BODY,
        code_block_selector: CHATGPT_CODE_BLOCK,
        code_body_selectors: CHATGPT_CODE_BODY,
        ui_selector: CHATGPT_UI,
    },
    SiteProfile {
        name: "chatgpt-compatible",
        hosts: &[],
        message_selectors: CHATGPT_MESSAGES,
        composer_selectors: CHATGPT_COMPOSER,
        send_button_selectors: CHATGPT_SEND,
        stop_button_selectors: CHATGPT_STOP,
        role_sources: CHATGPT_ROLES,
        assistant_body_selectors: CHATGPT_ASSISTANT_BODY,
        user_body_selectors: CHATGPT_USER_BODY,
        code_block_selector: CHATGPT_CODE_BLOCK,
        code_body_selectors: CHATGPT_CODE_BODY,
        ui_selector: CHATGPT_UI,
    },
];

impl SiteProfile {
    /// Messages matched by the first selector that matches any.
    pub fn count_messages(&self, document: &Document) -> u32 {
        for selector in self.message_selectors {
            if let Ok(list) = document.query_selector_all(selector) {
                if list.length() > 0 {
                    return list.length();
                }
            }
        }
        0
    }

    /// The composer, by the first selector that matches.
    pub fn find_composer(&self, document: &Document) -> Option<Element> {
        first_match(document, self.composer_selectors)
    }

    /// The first message selector that matches any element, if one does.
    pub fn active_message_selector(&self, document: &Document) -> Option<&'static str> {
        self.message_selectors
            .iter()
            .copied()
            .find(|selector| document.query_selector(selector).ok().flatten().is_some())
    }

    /// Whether the assistant is writing now: any stop indicator is on the page.
    ///
    /// This runs on every poll whose last message is the assistant's, and when nothing matches
    /// every query walks the whole document: one query for the whole list costs one walk
    /// instead of one per selector (measured: 2.6 ms -> 0.7 ms at 5,000 messages). If the
    /// browser rejects the list, each selector is tried alone, so one bad entry cannot make a
    /// streaming answer look complete.
    pub fn is_generating(&self, document: &Document) -> bool {
        match document.query_selector(&self.stop_button_selectors.join(", ")) {
            Ok(found) => found.is_some(),
            Err(_) => first_match(document, self.stop_button_selectors).is_some(),
        }
    }

    /// Whether a stop indicator is inside `scope`.
    pub fn has_stop_indicator(&self, scope: &Element) -> bool {
        scope
            .query_selector(&self.stop_button_selectors.join(", "))
            .ok()
            .flatten()
            .is_some()
    }

    /// Whether `element` itself is a stop indicator (`.result-streaming` on a message).
    pub fn is_stop_indicator(&self, element: &Element) -> bool {
        element
            .matches(&self.stop_button_selectors.join(", "))
            .unwrap_or(false)
    }

    /// The author of a message element, from the first role source that names one.
    pub fn role_of(&self, message: &Element) -> Option<Role> {
        self.role_sources.iter().find_map(|source| {
            let holder = match source.within {
                None => Some(message.clone()),
                Some(selector) => message.query_selector(selector).ok().flatten(),
            };
            parse_role(&holder?.get_attribute(source.attribute)?)
        })
    }

    /// The element whose text is the message, for a message of `role`.
    pub fn body_of(&self, message: &Element, role: Role) -> Element {
        let selectors = match role {
            Role::User => self.user_body_selectors,
            Role::Assistant => self.assistant_body_selectors,
        };
        selectors
            .iter()
            .find_map(|selector| message.query_selector(selector).ok().flatten())
            .unwrap_or_else(|| message.clone())
    }
}

/// `user` / `assistant`, alone or as the suffix of a `<id>:<role>` key.
fn parse_role(value: &str) -> Option<Role> {
    let role = value.rsplit(':').next().unwrap_or(value).trim();
    if role.eq_ignore_ascii_case("assistant") {
        Some(Role::Assistant)
    } else if role.eq_ignore_ascii_case("user") {
        Some(Role::User)
    } else {
        None
    }
}

fn first_match(document: &Document, selectors: &[&str]) -> Option<Element> {
    selectors
        .iter()
        .find_map(|selector| document.query_selector(selector).ok().flatten())
}
