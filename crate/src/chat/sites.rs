//! One table of chat sites with ordered fallback selectors. ChatGPT ships several markup
//! generations at once; when its page changes, this table is the only thing to update.
//! Anchor on data attributes and roles, never on utility class names.

use web_sys::{Document, Element};

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
}

const CHATGPT_MESSAGES: &[&str] = &[
    "[data-message-author-role]",
    "[data-chatgpt-search-unit-key$=':assistant'], [data-chatgpt-search-unit-key$=':user']",
];
const CHATGPT_COMPOSER: &[&str] = &[
    "form[data-chatgpt-composer] [data-composer-markdown][role=textbox]",
    "#prompt-textarea.ProseMirror[contenteditable=true]",
    "div.ProseMirror[contenteditable=true]",
    "textarea[name=prompt-textarea]",
];
const CHATGPT_SEND: &[&str] =
    &["button[data-testid=send-button]", "#composer-submit-button", "form button[type=submit]"];
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
    },
    SiteProfile {
        name: "chatgpt-compatible",
        hosts: &[],
        message_selectors: CHATGPT_MESSAGES,
        composer_selectors: CHATGPT_COMPOSER,
        send_button_selectors: CHATGPT_SEND,
        stop_button_selectors: CHATGPT_STOP,
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
}

fn first_match(document: &Document, selectors: &[&str]) -> Option<Element> {
    selectors.iter().find_map(|selector| document.query_selector(selector).ok().flatten())
}
