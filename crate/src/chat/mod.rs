//! The chat side of the DOM layer: recognizes a chat page (ChatGPT or a compatible self-hosted
//! UI) and, from it, reads the transcript the protocol engine consumes. Built only for wasm32.

pub mod composer;
pub mod observer;
pub mod sites;
pub mod text;
pub mod transcript;

use serde::Serialize;
use web_sys::Document;

pub use observer::MutationWatcher;
pub use sites::{RoleSource, SITES, SiteProfile};
pub use text::message_text;
pub use transcript::TranscriptReader;

/// What the content script learns about a page when it starts.
#[derive(Debug, Clone, Serialize)]
pub struct ChatPageStatus {
    /// The matching site profile's name, or `None` when this is not a chat page.
    pub site: Option<&'static str>,
    /// A composer or at least one message was found with the profile's selectors. `false` on a
    /// known chat host means the page's markup changed and nothing can be read: the panel says so
    /// instead of silently doing nothing.
    pub transcript_readable: bool,
    /// Messages found right now.
    pub messages: u32,
}

impl ChatPageStatus {
    /// A page that is not a chat page (or may not be one: see [`crate::sites::may_run_chat`]).
    pub fn not_a_chat() -> Self {
        Self {
            site: None,
            transcript_readable: false,
            messages: 0,
        }
    }
}

/// Classifies the page by its host and markup. Whether the page may run the chat role at all is
/// decided before, by [`crate::sites::may_run_chat`]. On a known chat host the answer is always
/// a site (readable or not); on any other host (user-added chat sites, local pages) only markup
/// that matches a profile makes it a chat page.
pub fn page_status(document: &Document, hostname: &str) -> ChatPageStatus {
    for profile in SITES {
        let known_host = profile.hosts.contains(&hostname);
        let messages = profile.count_messages(document);
        let composer = profile.find_composer(document).is_some();
        if known_host || (profile.hosts.is_empty() && (messages > 0 || composer)) {
            return ChatPageStatus {
                site: Some(profile.name),
                transcript_readable: messages > 0 || composer,
                messages,
            };
        }
    }
    ChatPageStatus::not_a_chat()
}
