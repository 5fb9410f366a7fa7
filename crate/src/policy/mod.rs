//! The safety policy: which validated actions may run without asking the user.
//!
//! Pure and sans-IO like the protocol engine: the DOM layer passes in what it found out about the
//! target element ([`TargetFacts`]) and the host passes the user's settings and the time. The
//! model's text is untrusted input, so whatever the approval mode, some actions always need a
//! person: a click whose target reads like paying, buying, deleting or sending; typing into a
//! password field.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::protocol::Action;

/// How often the user is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalMode {
    /// Ask before every action that touches the page.
    EachAction,
    /// Allowing the handshake allows the workflow's ordinary actions (default).
    #[default]
    OncePerWorkflow,
    /// Allow handshakes and ordinary actions without asking.
    Auto,
}

/// Words that make a click risky, matched case-insensitively as whole words (or phrases) in the
/// target's accessible name and text. The user can edit this list in the panel.
pub const DEFAULT_RISKY_WORDS: &[&str] = &[
    "pay",
    "buy",
    "order",
    "purchase",
    "checkout",
    "check out",
    "delete",
    "remove",
    "transfer",
    "send",
    "submit payment",
    "confirm payment",
    "place order",
    "subscribe",
    "unsubscribe",
    "donate",
    "withdraw",
    "sell",
    "cancel subscription",
    "close account",
    "close my account",
    "confirm",
    "deactivate",
    "authorize",
    "publish",
    "book",
];

/// Endings that keep a word's meaning: "delete" also catches "deletion", "pay" also "payment".
const WORD_ENDINGS: &[&str] = &[
    "", "s", "es", "ed", "ing", "ion", "ions", "ment", "ments", "al",
];

/// Whether `token` is `word` or `word` with one of [`WORD_ENDINGS`] (a final "e" may drop:
/// "remove" -> "removal").
fn same_word(token: &str, word: &str) -> bool {
    let stems = [
        Some(word),
        word.strip_suffix('e').filter(|stem| stem.len() >= 3),
    ];
    stems.into_iter().flatten().any(|stem| {
        token
            .strip_prefix(stem)
            .is_some_and(|ending| WORD_ENDINGS.contains(&ending))
    })
}

/// The user's policy settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PolicySettings {
    /// How often to ask.
    pub approval_mode: ApprovalMode,
    /// Words that make a click risky.
    pub risky_words: Vec<String>,
    /// Most actions one workflow may run.
    pub max_actions_per_workflow: u32,
    /// Most actions per minute, across workflows of one chat tab.
    pub max_actions_per_minute: u32,
}

impl Default for PolicySettings {
    fn default() -> Self {
        Self {
            approval_mode: ApprovalMode::default(),
            risky_words: DEFAULT_RISKY_WORDS
                .iter()
                .map(|w| (*w).to_owned())
                .collect(),
            max_actions_per_workflow: 200,
            max_actions_per_minute: 60,
        }
    }
}

impl PolicySettings {
    /// What unreadable settings mean: ask before every action, with the default limits.
    pub fn strictest() -> Self {
        Self {
            approval_mode: ApprovalMode::EachAction,
            ..Self::default()
        }
    }
}

/// What the DOM layer found out about an action's target element.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetFacts {
    /// A short description (`button#buy`), for the question shown to the user.
    pub description: String,
    /// Its accessible name.
    pub name: String,
    /// Its visible text (may be empty).
    #[serde(default)]
    pub text: String,
    /// An `<input type=password>`.
    #[serde(default)]
    pub is_password: bool,
}

/// Why the user must be asked. Codes are stable; messages are for the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum AskReason {
    /// The approval mode asks before every action.
    EachActionMode,
    /// The click target reads like a risky operation.
    RiskyClick {
        /// The risky word found.
        word: String,
        /// What the element is called.
        name: String,
    },
    /// Opening an address that reads like a risky operation (`/checkout`, `/account/delete`).
    RiskyNavigation {
        /// The risky word found.
        word: String,
        /// The address.
        url: String,
    },
    /// Typing into a password field.
    PasswordField,
    /// The target could not be found in time to be checked; it might be anything.
    TargetUnchecked,
}

impl AskReason {
    /// A plain-language sentence for the approval question.
    pub fn message(&self) -> String {
        match self {
            Self::EachActionMode => "you asked to approve every action".to_owned(),
            Self::RiskyClick { word, name } => {
                format!("the button “{name}” looks like it will {word} something")
            }
            Self::RiskyNavigation { word, url } => {
                format!("it opens {url}, which looks like it will {word} something")
            }
            Self::PasswordField => "it types into a password field".to_owned(),
            Self::TargetUnchecked => {
                "its target was not on the page yet, so BAI could not check what it is".to_owned()
            }
        }
    }
}

/// The policy's answer for one action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Run it.
    Allow,
    /// Ask the user first, for these reasons.
    Ask {
        /// Why (at least one).
        reasons: Vec<AskReason>,
    },
}

/// How an action touches the page, as far as the policy is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Touch {
    /// It only reads or waits (`wait`, `observe`, `wait_for`, `extract`, `assert`, `done`).
    ReadsOnly,
    /// It activates its target the way a click does: `click`, `check`, `uncheck`,
    /// `select_option`, and `press_key` Enter or Space (which click buttons and links, and
    /// submit forms from their fields).
    Activates,
    /// It types into its target (`input_text`).
    Types,
    /// It changes what is shown without activating anything (`scroll`, `hover`, other keys,
    /// `navigate`).
    Moves,
}

fn touch_of(action: &Action) -> Touch {
    use crate::protocol::action::Key;
    match action {
        Action::Click { .. }
        | Action::Check { .. }
        | Action::Uncheck { .. }
        | Action::SelectOption { .. } => Touch::Activates,
        Action::PressKey {
            key: Key::Enter | Key::Space,
            ..
        } => Touch::Activates,
        Action::InputText { .. } => Touch::Types,
        Action::Wait { .. }
        | Action::Observe { .. }
        | Action::WaitFor { .. }
        | Action::Extract { .. }
        | Action::Assert { .. }
        | Action::Done { .. } => Touch::ReadsOnly,
        // Scroll, hover, navigate, other keys; and, fail closed, any action added later.
        _ => Touch::Moves,
    }
}

/// Decides whether `action`, on an element described by `target`, may run without asking.
///
/// `target` describes what the action will really act on: for a click, the button or link
/// around the clicked element; for `press_key` Enter in a form field, the form's submit button;
/// for `press_key` without a selector, the focused element. `None` means it could not be found.
pub fn review(settings: &PolicySettings, action: &Action, target: Option<&TargetFacts>) -> Verdict {
    let mut reasons = Vec::new();
    let touch = touch_of(action);
    if settings.approval_mode == ApprovalMode::EachAction && touch != Touch::ReadsOnly {
        reasons.push(AskReason::EachActionMode);
    }
    match (touch, target) {
        (Touch::Activates, Some(target)) => {
            // A chosen option is part of what gets activated ("Plan: Pay yearly").
            let option = match action {
                Action::SelectOption { option, .. } => option.as_str(),
                _ => "",
            };
            let haystack = format!("{} {} {option}", target.name, target.text);
            if let Some(word) = find_risky_word(&haystack, &settings.risky_words) {
                let name = if target.name.trim().is_empty() {
                    &target.text
                } else {
                    &target.name
                };
                reasons.push(AskReason::RiskyClick {
                    word: word.to_owned(),
                    name: shorten(name.trim(), 60),
                });
            }
        }
        (Touch::Types, Some(target)) if target.is_password => {
            reasons.push(AskReason::PasswordField);
        }
        // Fail closed: an element the review could not see might be the risky one.
        (Touch::Activates | Touch::Types, None) => {
            reasons.push(AskReason::TargetUnchecked);
        }
        _ => {}
    }
    if let Action::Navigate { url } = action {
        if let Some(word) = find_risky_word(url, &settings.risky_words) {
            reasons.push(AskReason::RiskyNavigation {
                word: word.to_owned(),
                url: shorten(url, 80),
            });
        }
    }
    if reasons.is_empty() {
        Verdict::Allow
    } else {
        Verdict::Ask { reasons }
    }
}

/// The first of `words` that occurs in `text` as a whole word or phrase, ignoring case.
pub fn find_risky_word<'w>(text: &str, words: &'w [String]) -> Option<&'w str> {
    let lowered: String = text.to_lowercase();
    let tokens: Vec<&str> = lowered
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .collect();
    words.iter().map(String::as_str).find(|word| {
        let phrase: Vec<String> = word
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect();
        let Some((last, head)) = phrase.split_last() else {
            return false;
        };
        tokens.windows(phrase.len()).any(|window| {
            window
                .split_last()
                .is_some_and(|(window_last, window_head)| {
                    window_head.iter().zip(head).all(|(a, b)| a == b)
                        && same_word(window_last, last)
                })
        })
    })
}

fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max_chars).collect();
    out.push('…');
    out
}

/// Why the rate limiter stopped a workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum RateLimitError {
    /// Too many actions in one workflow.
    #[error("this workflow reached its limit of {limit} actions; start a new one to go on")]
    WorkflowActionLimit {
        /// The limit.
        limit: u32,
    },
    /// Too many actions per minute.
    #[error("more than {limit} actions in one minute; BAI stopped the workflow to be safe")]
    ActionsPerMinute {
        /// The limit.
        limit: u32,
    },
}

impl RateLimitError {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::WorkflowActionLimit { .. } => "action_limit_reached",
            Self::ActionsPerMinute { .. } => "rate_limited",
        }
    }
}

/// Counts actions per workflow and per minute. Time is passed in (milliseconds).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateLimiter {
    recent: VecDeque<u64>,
    per_workflow: Vec<(String, u32)>,
}

impl RateLimiter {
    /// Records one action of `workflow_id` at `now_ms`, or refuses it.
    pub fn admit(
        &mut self,
        settings: &PolicySettings,
        workflow_id: &str,
        now_ms: u64,
    ) -> Result<(), RateLimitError> {
        while self
            .recent
            .front()
            .is_some_and(|&t| now_ms.saturating_sub(t) >= 60_000)
        {
            self.recent.pop_front();
        }
        if self.recent.len() >= settings.max_actions_per_minute as usize {
            return Err(RateLimitError::ActionsPerMinute {
                limit: settings.max_actions_per_minute,
            });
        }
        if !self.per_workflow.iter().any(|(id, _)| id == workflow_id) {
            // Keep the table small: only the most recent workflows matter.
            if self.per_workflow.len() >= 32 {
                self.per_workflow.remove(0);
            }
            self.per_workflow.push((workflow_id.to_owned(), 0));
        }
        let Some((_, count)) = self
            .per_workflow
            .iter_mut()
            .find(|(id, _)| id == workflow_id)
        else {
            return Ok(());
        };
        if *count >= settings.max_actions_per_workflow {
            return Err(RateLimitError::WorkflowActionLimit {
                limit: settings.max_actions_per_workflow,
            });
        }
        *count += 1;
        self.recent.push_back(now_ms);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Selector;

    fn click() -> Action {
        Action::Click {
            selector: Selector::css("#b"),
        }
    }

    fn button(name: &str) -> TargetFacts {
        TargetFacts {
            description: "button".into(),
            name: name.into(),
            ..TargetFacts::default()
        }
    }

    #[test]
    fn ordinary_click_is_allowed_once_per_workflow() {
        let settings = PolicySettings::default();
        assert_eq!(
            review(&settings, &click(), Some(&button("Next page"))),
            Verdict::Allow
        );
    }

    #[test]
    fn risky_words_ask_even_in_auto_mode() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        for name in [
            "Buy now",
            "DELETE account",
            "Place order",
            "Send money",
            "Pay €20",
        ] {
            let verdict = review(&settings, &click(), Some(&button(name)));
            assert!(
                matches!(verdict, Verdict::Ask { .. }),
                "{name}: {verdict:?}"
            );
        }
    }

    #[test]
    fn risky_words_match_whole_words_and_their_endings_only() {
        let settings = PolicySettings::default();
        for name in [
            "Confirm deletion",
            "Continue to payment",
            "Close my account",
            "Removal",
            "Booking",
        ] {
            let verdict = review(&settings, &click(), Some(&button(name)));
            assert!(
                matches!(verdict, Verdict::Ask { .. }),
                "{name}: {verdict:?}"
            );
        }
        for name in [
            "Display settings",
            "Payload viewer",
            "Sender info",
            "Buyer guide",
            "Repay",
        ] {
            assert_eq!(
                review(&settings, &click(), Some(&button(name))),
                Verdict::Allow,
                "{name}"
            );
        }
    }

    #[test]
    fn typing_into_a_password_field_always_asks() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let action = Action::InputText {
            selector: Selector::css("#pw"),
            text: "secret".into(),
        };
        let target = TargetFacts {
            is_password: true,
            ..button("Password")
        };
        assert_eq!(
            review(&settings, &action, Some(&target)),
            Verdict::Ask {
                reasons: vec![AskReason::PasswordField]
            }
        );
    }

    #[test]
    fn an_unchecked_target_asks() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        assert_eq!(
            review(&settings, &click(), None),
            Verdict::Ask {
                reasons: vec![AskReason::TargetUnchecked]
            }
        );
    }

    #[test]
    fn each_action_mode_asks_for_page_actions_but_not_waits() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::EachAction,
            ..Default::default()
        };
        assert!(matches!(
            review(&settings, &click(), Some(&button("Next"))),
            Verdict::Ask { .. }
        ));
        assert_eq!(
            review(&settings, &Action::Wait { ms: 10 }, None),
            Verdict::Allow
        );
    }

    #[test]
    fn edited_word_list_is_used() {
        let settings = PolicySettings {
            risky_words: vec!["launch".into()],
            ..PolicySettings::default()
        };
        assert!(matches!(
            review(&settings, &click(), Some(&button("Launch rocket"))),
            Verdict::Ask { .. }
        ));
        assert_eq!(
            review(&settings, &click(), Some(&button("Buy now"))),
            Verdict::Allow
        );
    }

    #[test]
    fn every_action_that_activates_is_reviewed_like_a_click() {
        use crate::protocol::action::Key;
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let target = Selector::css("#x");
        let activating = [
            Action::PressKey {
                key: Key::Enter,
                selector: Some(target.clone()),
            },
            Action::PressKey {
                key: Key::Space,
                selector: None,
            },
            Action::Check {
                selector: target.clone(),
            },
            Action::Uncheck {
                selector: target.clone(),
            },
            Action::SelectOption {
                selector: target.clone(),
                option: "Monthly".into(),
            },
        ];
        for action in &activating {
            assert!(
                matches!(
                    review(&settings, action, Some(&button("Delete account"))),
                    Verdict::Ask { .. }
                ),
                "{action:?} on a risky target must ask"
            );
            assert_eq!(
                review(&settings, action, None),
                Verdict::Ask {
                    reasons: vec![AskReason::TargetUnchecked]
                },
                "{action:?} on a target nobody could check must ask"
            );
            assert_eq!(
                review(&settings, action, Some(&button("Next"))),
                Verdict::Allow
            );
        }
        // The chosen option counts too.
        let plan = Action::SelectOption {
            selector: target.clone(),
            option: "Pay yearly".into(),
        };
        assert!(matches!(
            review(&settings, &plan, Some(&button("Plan"))),
            Verdict::Ask { .. }
        ));
        // Tab only moves focus.
        let tab = Action::PressKey {
            key: Key::Tab,
            selector: None,
        };
        assert_eq!(review(&settings, &tab, None), Verdict::Allow);
    }

    #[test]
    fn each_action_mode_asks_for_everything_but_reading() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::EachAction,
            ..Default::default()
        };
        let hover = Action::Hover {
            selector: Selector::css("#m"),
        };
        let navigate = Action::Navigate {
            url: "/next".into(),
        };
        for action in [hover, navigate] {
            assert_eq!(
                review(&settings, &action, Some(&button("Menu"))),
                Verdict::Ask {
                    reasons: vec![AskReason::EachActionMode]
                }
            );
        }
        let observe = Action::Observe { max_elements: None };
        assert_eq!(review(&settings, &observe, None), Verdict::Allow);
    }

    #[test]
    fn risky_addresses_ask() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let delete = Action::Navigate {
            url: "/account/delete?confirm=1".into(),
        };
        assert!(matches!(
            review(&settings, &delete, None),
            Verdict::Ask { reasons } if matches!(reasons.as_slice(), [AskReason::RiskyNavigation { word, .. }] if word == "delete")
        ));
        let docs = Action::Navigate {
            url: "/docs/intro".into(),
        };
        assert_eq!(review(&settings, &docs, None), Verdict::Allow);
    }

    #[test]
    fn rate_limiter_caps_per_minute_and_per_workflow() {
        let settings = PolicySettings {
            max_actions_per_minute: 3,
            max_actions_per_workflow: 4,
            ..Default::default()
        };
        let mut limiter = RateLimiter::default();
        for t in 0..3 {
            limiter.admit(&settings, "w", t).unwrap();
        }
        assert_eq!(
            limiter.admit(&settings, "w", 10).unwrap_err().code(),
            "rate_limited"
        );
        // A minute later the window has room again, but the workflow cap is 4.
        limiter.admit(&settings, "w", 61_000).unwrap();
        assert_eq!(
            limiter.admit(&settings, "w", 61_001).unwrap_err().code(),
            "action_limit_reached"
        );
        // Another workflow has its own count.
        limiter.admit(&settings, "other", 61_002).unwrap();
    }
}
