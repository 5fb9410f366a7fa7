//! Which sites BAI may touch. Pure: the panel and the background pass in an address, this
//! module says which host permission covers it, and whether a page may run the chat role.
//!
//! Access comes from two places. The manifest grants the built-in hosts (the ChatGPT hosts and
//! the two local hosts) to everyone. Any other site needs the user's grant, asked for one host
//! at a time through the browser's permission prompt; the grant is a match pattern
//! `scheme://host/*`, because match patterns have no port (Firefox rejects one, Chrome ignores
//! it), so a grant covers every port of that host. A workflow's scope stays the exact origin,
//! port included (the background compares origins before every action).

use std::fmt;

use serde::Serialize;

/// Hosts whose pages are ChatGPT itself: always a chat page.
pub const CHAT_HOSTS: &[&str] = &["chatgpt.com", "chat.openai.com"];

/// Local hosts granted in the manifest: self-hosted chat UIs and the user's own apps (and the
/// tests). A page there is a chat page only if its markup is one.
pub const LOCAL_HOSTS: &[&str] = &["localhost", "127.0.0.1"];

/// A public chat site BAI can read (it has a layout profile for it) but does not get access to
/// by default: an optional host permission the user turns on in the panel with one click (the
/// browser asks), after which the site is a chat site like one added by hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OptionalChatSite {
    /// The site as the user knows it.
    pub name: &'static str,
    /// Its origin; the grant is the host's match pattern (see [`site_for_address`]).
    pub origin: &'static str,
}

/// The public chat sites beyond ChatGPT, in the order the panel lists them.
pub const OPTIONAL_CHAT_SITES: &[OptionalChatSite] = &[
    OptionalChatSite {
        name: "Claude",
        origin: "https://claude.ai",
    },
    OptionalChatSite {
        name: "Gemini",
        origin: "https://gemini.google.com",
    },
    OptionalChatSite {
        name: "Microsoft Copilot",
        origin: "https://copilot.microsoft.com",
    },
];

/// A site as the browser's permission system sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Site {
    /// `scheme://host[:port]`, default port omitted: what the user typed or the tab showed.
    pub origin: String,
    /// The host permission and content-script match pattern, `scheme://host/*`.
    pub pattern: String,
    /// `host`, as shown in the panel.
    pub host: String,
    /// Granted by the manifest: no prompt, and it cannot be removed.
    pub built_in: bool,
}

/// Why an address is not a site BAI can ask for. Codes are stable; the panel shows both.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SiteError {
    /// Empty, or not shaped like `host`, `host:port` or `http(s)://host[:port]/…`.
    NotAnAddress,
    /// A scheme other than http or https (file, ftp, chrome, about…).
    NotWeb(String),
    /// A host with characters a host cannot have, or written with a wildcard.
    BadHost(String),
    /// A host name with letters outside ASCII: browsers grant it in its `xn--` form.
    NotAscii(String),
}

impl SiteError {
    /// The stable snake_case code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotAnAddress => "invalid_site",
            Self::NotWeb(_) => "site_not_web",
            Self::BadHost(_) => "invalid_site",
            Self::NotAscii(_) => "site_not_ascii",
        }
    }
}

impl fmt::Display for SiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAnAddress => write!(
                f,
                "Type a site's address, such as https://chat.example.com or chat.example.com:8080."
            ),
            Self::NotWeb(scheme) => write!(
                f,
                "BAI can act only on web pages (http or https), not on {scheme}: addresses."
            ),
            Self::BadHost(host) => write!(
                f,
                "“{host}” is not a host name; type one site's address (no wildcards)."
            ),
            Self::NotAscii(host) => write!(
                f,
                "Type “{host}” in its ASCII form (xn--…), as the address bar shows it when copied."
            ),
        }
    }
}

impl std::error::Error for SiteError {}

/// The site of an address the user typed or a tab's URL: `host`, `host:port`, or a full
/// `http(s)://` URL (its path, query and fragment are ignored). Without a scheme, https.
pub fn site_for_address(input: &str) -> Result<Site, SiteError> {
    let input = input.trim();
    let (scheme, rest) = match input.split_once("://") {
        Some((scheme, rest)) => (scheme.to_ascii_lowercase(), rest),
        None if input.contains(':') && !looks_like_host_port(input) => {
            // `about:blank`, `mailto:x`: a scheme without `//`.
            let scheme = input.split(':').next().unwrap_or_default();
            return Err(SiteError::NotWeb(scheme.to_ascii_lowercase()));
        }
        None => ("https".to_owned(), input),
    };
    if scheme != "http" && scheme != "https" {
        return Err(SiteError::NotWeb(scheme));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.is_empty() {
        return Err(SiteError::NotAnAddress);
    }
    // `user:password@host` is a way to disguise a host in a link; never a site to grant.
    if authority.contains('@') {
        return Err(SiteError::BadHost(authority.to_owned()));
    }
    let (host, port) = split_host_port(authority)?;
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if !host.is_ascii() {
        return Err(SiteError::NotAscii(host));
    }
    let valid_name = !host.is_empty()
        && !host.starts_with(['.', '-'])
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    let valid_ipv6 = host.starts_with('[')
        && host.ends_with(']')
        && host.len() > 2
        && host
            .trim_matches(['[', ']'])
            .chars()
            .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.');
    if !(valid_name || valid_ipv6) {
        return Err(SiteError::BadHost(host));
    }
    let default_port = if scheme == "http" { 80 } else { 443 };
    let origin = match port {
        Some(port) if port != default_port => format!("{scheme}://{host}:{port}"),
        _ => format!("{scheme}://{host}"),
    };
    let built_in = is_built_in(&scheme, &host);
    Ok(Site {
        origin,
        pattern: format!("{scheme}://{host}/*"),
        host,
        built_in,
    })
}

/// Whether the manifest already grants this host (chat hosts over https, local hosts over http).
fn is_built_in(scheme: &str, host: &str) -> bool {
    (scheme == "https" && CHAT_HOSTS.contains(&host))
        || (scheme == "http" && LOCAL_HOSTS.contains(&host))
}

/// `example.com:8080` is a host and port, not a scheme `example.com`.
fn looks_like_host_port(input: &str) -> bool {
    input
        .rsplit_once(':')
        .is_some_and(|(_, port)| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
}

fn split_host_port(authority: &str) -> Result<(&str, Option<u16>), SiteError> {
    let bad = || SiteError::BadHost(authority.to_owned());
    let (host, port) = if authority.starts_with('[') {
        // IPv6: the port, if any, follows the closing bracket.
        let end = authority.find(']').ok_or_else(bad)?;
        let (host, rest) = authority.split_at(end + 1);
        match rest.strip_prefix(':') {
            Some(port) => (host, Some(port)),
            None if rest.is_empty() => (host, None),
            None => return Err(bad()),
        }
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port = match port {
        None | Some("") => None,
        Some(port) => Some(port.parse::<u16>().map_err(|_| bad())?),
    };
    Ok((host, port))
}

/// Whether a page on `hostname` may run the chat role (read the conversation, post BAI's
/// acknowledgement, start workflows). ChatGPT's hosts and the built-in local hosts may; any
/// other host only if the user added it as a *chat* site. A site added as a target only runs
/// the executor: otherwise a page there that imitates ChatGPT's markup could hold a
/// conversation with BAI, read the nonce BAI posts into it, and drive itself.
pub fn may_run_chat(hostname: &str, user_added_chat_site: bool) -> bool {
    let hostname = hostname.trim_end_matches('.').to_ascii_lowercase();
    CHAT_HOSTS.contains(&hostname.as_str())
        || LOCAL_HOSTS.contains(&hostname.as_str())
        || user_added_chat_site
}

/// Whether a chat page at `path` (a URL's path) is a new chat, one with no address of its own
/// yet: ChatGPT's and Open WebUI's `/`, Claude's `/new`, Gemini's `/app` (`/u/1/app` for a
/// second account), LibreChat's `/c/new`, any path whose last part is `new`. A conversation
/// there is gone once the page leaves or reloads, and the next one there is another: its state
/// is never resumed at that address, so no approval given in one new chat counts in the next
/// (red team red8, session 20).
pub fn is_new_chat_path(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    let last = path.rsplit('/').next().unwrap_or_default();
    if path.is_empty() || last == "new" {
        return true;
    }
    // Gemini: `/app`, or `/u/<account>/app`.
    match path.strip_suffix("/app") {
        Some("") => true,
        Some(account) => account
            .strip_prefix("/u/")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests: a panic is a failing test")]

    use super::*;

    #[test]
    fn new_chat_pages_are_told_from_conversations() {
        for path in [
            "/",
            "",
            "/new",
            "/app",
            "/app/",
            "/u/1/app",
            "/c/new",
            "/chat/c/new",
        ] {
            assert!(is_new_chat_path(path), "{path:?}");
        }
        for path in [
            "/c/6f1c3c10",
            "/chat/abc",
            "/app/4f2e9a",
            "/u/1/app/4f2e9a",
            "/u/x/app",
            "/newsletter",
            "/chat/c/news",
            "/csp/chat/",
        ] {
            assert!(!is_new_chat_path(path), "{path:?}");
        }
    }

    fn site(input: &str) -> Site {
        site_for_address(input).unwrap()
    }

    #[test]
    fn a_url_becomes_its_origin_and_a_portless_pattern() {
        let s = site("http://127.0.0.2:8123/target/login.html?x=1#top");
        assert_eq!(s.origin, "http://127.0.0.2:8123");
        assert_eq!(s.pattern, "http://127.0.0.2/*");
        assert_eq!(s.host, "127.0.0.2");
        assert!(!s.built_in);
    }

    #[test]
    fn a_bare_host_defaults_to_https_and_drops_default_ports() {
        assert_eq!(site("Chat.Example.com").origin, "https://chat.example.com");
        assert_eq!(
            site("chat.example.com:443").origin,
            "https://chat.example.com"
        );
        assert_eq!(
            site("chat.example.com:8080").origin,
            "https://chat.example.com:8080"
        );
        assert_eq!(
            site("http://shop.example:80/").origin,
            "http://shop.example"
        );
        assert_eq!(
            site("  example.org./path ").pattern,
            "https://example.org/*"
        );
    }

    #[test]
    fn ipv6_hosts_keep_their_brackets() {
        let s = site("http://[::1]:9000/x");
        assert_eq!(s.origin, "http://[::1]:9000");
        assert_eq!(s.pattern, "http://[::1]/*");
    }

    #[test]
    fn built_in_hosts_are_recognised_by_scheme_and_host() {
        assert!(site("https://chatgpt.com/c/abc").built_in);
        assert!(site("http://localhost:3000").built_in);
        assert!(site("http://127.0.0.1:5173").built_in);
        assert!(
            !site("http://chatgpt.com").built_in,
            "the manifest grants https only"
        );
        assert!(
            !site("https://localhost").built_in,
            "the manifest grants http only"
        );
        assert!(!site("http://127.0.0.2").built_in);
    }

    #[test]
    fn what_is_not_one_web_site_is_refused_with_a_code() {
        let code = |input: &str| site_for_address(input).unwrap_err().code();
        assert_eq!(code(""), "invalid_site");
        assert_eq!(code("https://"), "invalid_site");
        assert_eq!(code("file:///etc/passwd"), "site_not_web");
        assert_eq!(code("chrome://extensions"), "site_not_web");
        assert_eq!(code("about:blank"), "site_not_web");
        assert_eq!(code("https://*.example.com"), "invalid_site");
        assert_eq!(code("https://user:pw@bank.example"), "invalid_site");
        assert_eq!(code("https://example.com:99999"), "invalid_site");
        assert_eq!(code("https://exa mple.com"), "invalid_site");
        assert_eq!(code("https://bücher.example"), "site_not_ascii");
        let message = site_for_address("ftp://x").unwrap_err().to_string();
        assert!(message.contains("http or https"), "{message}");
    }

    #[test]
    fn optional_chat_sites_are_web_sites_that_are_not_built_in() {
        for entry in OPTIONAL_CHAT_SITES {
            let s = site(entry.origin);
            assert_eq!(s.origin, entry.origin);
            assert!(!s.built_in, "{} must be asked for", entry.name);
            assert!(
                !may_run_chat(&s.host, false),
                "{} chats only once turned on",
                entry.name
            );
        }
    }

    #[test]
    fn only_chat_hosts_local_hosts_and_user_added_chat_sites_run_the_chat_role() {
        assert!(may_run_chat("chatgpt.com", false));
        assert!(may_run_chat("127.0.0.1", false));
        assert!(may_run_chat("localhost", false));
        assert!(
            !may_run_chat("127.0.0.2", false),
            "a target site runs only the executor"
        );
        assert!(!may_run_chat("shop.example", false));
        assert!(may_run_chat("chat.example.com", true));
    }
}
