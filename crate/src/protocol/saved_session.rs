//! Reading a saved chat session (what
//! [`saved_session_json`](super::decision_write::saved_session_json) writes, kept by the chat
//! tab in `storage.local`): the engine's state, the rate limits and the secret field names the
//! session learnt. Pure, so a save and its restore are tested natively.

use super::fields::{fields, strings};
use super::json::read_plain;
use crate::policy::RateLimiter;

/// A saved chat session, read.
#[derive(Debug)]
pub struct SavedSession {
    /// The engine's state (its head when saved in parts), as JSON text.
    pub engine: String,
    /// The rate limits: a reload must not reset them.
    pub limiter: RateLimiter,
    /// The names of the secret fields the target pages had (never their values; with
    /// [`super::secret_query::LEGACY_ENCODED_NAME`] when one page's form sent a legacy
    /// encoding): after a reload of the chat tab, the page a form sent by GET led to still
    /// loses the values under them. Missing in a session saved before they were kept.
    pub secret_names: Vec<String>,
}

impl SavedSession {
    /// `json` read as a saved session, as the derived `Deserialize` of the struct it replaced
    /// read it (`engine` and `limiter` required, `parts` and `secret_names` lists of strings or
    /// missing); `None`: not a saved session (a state saved before the limiter was kept is a
    /// bare engine state).
    pub fn read(json: &str) -> Option<SavedSession> {
        let value = read_plain(json).ok()?;
        let f = fields(&value, "saved session").ok()?;
        if f.optional("parts")
            .is_some_and(|parts| strings(parts).is_none())
        {
            return None;
        }
        let secret_names = match f.optional("secret_names") {
            Some(names) => strings(names)?,
            None => Vec::new(),
        };
        let engine = f.string("engine").ok()?;
        let limiter = RateLimiter::from_value(f.required("limiter").ok()?).ok()?;
        Some(SavedSession {
            engine,
            limiter,
            secret_names,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::decision_write::saved_session_json;
    use crate::protocol::secret_query::{
        LEGACY_ENCODED_NAME, redact_secret_query_values, remember_names,
    };

    /// Red team, session 16: the secret field names lived in memory only, so after a reload of
    /// the chat tab the page a GET form led to (`?xq7=…`: a name only the login page said was
    /// secret) was reported whole. Saved with the session, they redact it after the restore.
    #[test]
    fn a_restored_session_still_redacts_with_the_names_it_learnt() {
        let mut names = Vec::new();
        // What an executor's answer on the login page carried (a legacy form among its forms).
        remember_names(
            &mut names,
            Some(&serde_json::json!(["xq7", LEGACY_ENCODED_NAME])),
        );
        let limiter = RateLimiter::default();
        let parts = ["m.0".to_owned()];
        let address = "https://shop.example/signed-in?email=ann%40example.com&xq7=hunter2-XQ&%EA%EE%E4=swordfish";
        for saved in [
            saved_session_json(r#"{"messages":[]}"#, &limiter, Some(&parts), &names),
            saved_session_json(r#"{"messages":[]}"#, &limiter, None, &names),
        ] {
            assert!(
                !saved.contains("hunter2"),
                "names only, never values: {saved}"
            );
            let restored = SavedSession::read(&saved).expect("a saved session");
            assert_eq!(restored.engine, r#"{"messages":[]}"#);
            assert_eq!(restored.secret_names, names);
            let restored: Vec<&str> = restored.secret_names.iter().map(String::as_str).collect();
            assert_eq!(
                redact_secret_query_values(address, &restored),
                "https://shop.example/signed-in?email=ann%40example.com&xq7=[redacted]&%EA%EE%E4=[redacted]"
            );
        }
        // What the restore had before: no names, and the address went whole.
        assert_eq!(redact_secret_query_values(address, &[]), address);
    }

    #[test]
    fn a_session_saved_without_names_reads_with_none_and_bad_names_do_not_read() {
        let limiter = RateLimiter::default();
        let saved = saved_session_json("{}", &limiter, None, &[]);
        assert!(!saved.contains("secret_names"), "{saved}");
        let restored = SavedSession::read(&saved).expect("a saved session");
        assert!(restored.secret_names.is_empty());
        let bad = format!(
            r#"{},"secret_names":[1]}}"#,
            saved.strip_suffix('}').unwrap_or_default()
        );
        assert!(crate::protocol::json::read_plain(&bad).is_ok(), "{bad}");
        assert!(SavedSession::read(&bad).is_none());
        assert!(
            SavedSession::read(r#"{"messages":[]}"#).is_none(),
            "a bare engine state"
        );
    }
}
