//! The chat side of the DOM layer: recognizes a chat page (ChatGPT or a compatible self-hosted
//! UI) and, from it, reads the transcript the protocol engine consumes. Built only for wasm32.

pub mod calls;
pub mod composer;
pub mod image;
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

/// What a chat page shows, as far as BAI can read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatLayout {
    /// Messages are read: the page is a readable chat.
    Messages,
    /// A composer matched but no message was read: a new chat, or messages in a layout BAI does
    /// not recognize. Watched, not called readable.
    ComposerOnly,
    /// A page that should be a chat (a chat site's host, or a site the user added as a chat
    /// site) where no profile matches anything: BAI does not recognize its chat layout.
    Unrecognized,
    /// Not a chat page.
    NotAChat,
}

/// What the content script learns about a page when it starts.
#[derive(Debug, Clone, Serialize)]
pub struct ChatPageStatus {
    /// The chosen layout profile's name, or `None` when no profile matches.
    pub site: Option<&'static str>,
    /// The site as the user knows it ("ChatGPT"), when known (from the profile, or from the host
    /// for a page whose layout is not recognized).
    pub site_name: Option<&'static str>,
    /// What the page shows.
    pub layout: ChatLayout,
    /// Messages were read with the profile's selectors. A composer alone is not a readable
    /// transcript.
    pub transcript_readable: bool,
    /// Messages found right now.
    pub messages: u32,
    /// The profile's composer was found.
    pub composer: bool,
    /// The page may run the chat role ([`crate::sites::may_run_chat`]): if its chat renders
    /// later (single-page apps), the content script looks again.
    pub may_run_chat: bool,
}

impl ChatPageStatus {
    /// The status as JSON, byte for byte what its derived `Serialize` writes (`null` for an
    /// unknown site), by hand: the chat module carries no serde writer.
    pub fn json(&self) -> String {
        use crate::protocol::json_write::Object;
        let mut out = String::new();
        let mut o = Object::new(&mut out);
        for (key, name) in [("site", self.site), ("site_name", self.site_name)] {
            match name {
                Some(name) => o.string(key, name),
                None => o.key(key).push_str("null"),
            }
        }
        o.string(
            "layout",
            match self.layout {
                ChatLayout::Messages => "messages",
                ChatLayout::ComposerOnly => "composer_only",
                ChatLayout::Unrecognized => "unrecognized",
                ChatLayout::NotAChat => "not_a_chat",
            },
        );
        o.bool("transcript_readable", self.transcript_readable);
        o.number("messages", self.messages.into());
        o.bool("composer", self.composer);
        o.bool("may_run_chat", self.may_run_chat);
        o.end();
        out
    }

    /// A page that is not a chat page (or may not be one: see [`crate::sites::may_run_chat`]).
    pub fn not_a_chat() -> Self {
        Self {
            site: None,
            site_name: None,
            layout: ChatLayout::NotAChat,
            transcript_readable: false,
            messages: 0,
            composer: false,
            may_run_chat: false,
        }
    }
}

/// A profile and what it finds on a page.
#[derive(Debug, Clone, Copy)]
pub struct ProfileMatch {
    /// The layout profile.
    pub profile: &'static SiteProfile,
    /// Messages it reads.
    pub messages: u32,
    /// Its composer was found.
    pub composer: bool,
}

/// The profile that best reads `document`: one that reads messages (the first in table order,
/// or the host's own on a tie), else one whose composer matches; `None` when no profile matches
/// anything. The host never picks a profile by itself, so a saved copy or a self-hosted
/// deployment of any supported site is read like the site.
pub fn choose_profile(document: &Document, hostname: &str) -> Option<ProfileMatch> {
    let mut best: Option<((bool, bool, bool), ProfileMatch)> = None;
    for profile in SITES {
        let messages = profile.count_messages(document);
        let composer = profile.find_composer(document).is_some();
        if messages == 0 && !composer {
            continue;
        }
        let rank = (messages > 0, composer, profile.hosts.contains(&hostname));
        if best.as_ref().is_none_or(|(current, _)| rank > *current) {
            let found = ProfileMatch {
                profile,
                messages,
                composer,
            };
            best = Some((rank, found));
        }
    }
    best.map(|(_, found)| found)
}

/// Classifies a page that may run the chat role (see [`crate::sites::may_run_chat`]) by its
/// markup (`may_run_chat` is true in every answer). `should_be_chat`: the host is a chat site's own or one the user added as a chat site,
/// so a page matching no profile is reported as an unrecognized layout instead of "not a chat".
pub fn page_status(document: &Document, hostname: &str, should_be_chat: bool) -> ChatPageStatus {
    let host_site = SITES
        .iter()
        .find(|profile| profile.hosts.contains(&hostname))
        .map(|profile| profile.site);
    match choose_profile(document, hostname) {
        Some(ProfileMatch {
            profile,
            messages,
            composer,
        }) => ChatPageStatus {
            site: Some(profile.name),
            site_name: Some(profile.site),
            layout: if messages > 0 {
                ChatLayout::Messages
            } else {
                ChatLayout::ComposerOnly
            },
            transcript_readable: messages > 0,
            messages,
            composer,
            may_run_chat: true,
        },
        None if should_be_chat || host_site.is_some() => ChatPageStatus {
            site_name: host_site,
            layout: ChatLayout::Unrecognized,
            may_run_chat: true,
            ..ChatPageStatus::not_a_chat()
        },
        None => ChatPageStatus {
            may_run_chat: true,
            ..ChatPageStatus::not_a_chat()
        },
    }
}
