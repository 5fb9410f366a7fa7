//! Approval rules the user writes per site: "allow `check` and `select_option` always", "ask
//! for any `navigate`", "deny clicks whose name says delete or remove", each with an optional
//! expiry. They are data from the trusted user, evaluated here, inside [`super::review`] only:
//! the one path every action takes before it runs.
//!
//! What a rule can never do: an allow rule does not waive the questions the policy must ask
//! whatever the user prefers (typing into a password field, a target nobody could check, a
//! target nothing describes), and it never applies to an action whose address leaves the rule's
//! site. Rules never see or change what an action reveals: secret fields are refused by the DOM
//! layer before any review. A deny rule wins over every other rule, an ask rule over allow.
//!
//! The name pattern is plain words, never a regular expression: alternatives separated by `|`,
//! each a word or phrase matched as whole words in any case or spelling (`delete` matches
//! "Delete", "deleteAccount", "delete_item"); an alternative in double quotes must be the whole
//! name (`"Remove item"` matches "Remove item" and not "Remove item from every cart"). Matching
//! is linear in the name and the pattern, whatever either holds.

use serde::{Deserialize, Serialize};

use super::{AskReason, TargetFacts, words};
use crate::protocol::Action;
use crate::protocol::join::join;

/// Most rules read from the settings; the rest are ignored (the panel keeps far fewer).
const MAX_RULES: usize = 200;
/// Longest name pattern, in characters; a longer one matches nothing.
const MAX_PATTERN_CHARS: usize = 300;
/// Most alternatives in one pattern; a pattern with more matches nothing.
const MAX_ALTERNATIVES: usize = 32;

/// What a rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleVerdict {
    /// Run without a question (unless the policy must ask for a reason no rule can waive).
    Allow,
    /// Always ask.
    Ask,
    /// Never run: the action fails with `denied_by_rule`.
    Deny,
}

impl RuleVerdict {
    fn word(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask for",
            Self::Deny => "deny",
        }
    }
}

/// One approval rule, as the panel stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRule {
    /// The panel's id for it (to show and remove it).
    #[serde(default)]
    pub id: String,
    /// The site it holds on: an origin (`https://shop.example`), compared exactly.
    pub site: String,
    /// The action types it covers (wire names: `click`, `select_option`…); none covers nothing.
    pub actions: Vec<String>,
    /// Which targets it covers, by name (see the module documentation); empty covers any.
    #[serde(default)]
    pub name: String,
    /// What it decides.
    pub verdict: RuleVerdict,
    /// When it stops holding (milliseconds since the epoch); none: never.
    #[serde(default)]
    pub expires_at_ms: Option<u64>,
}

impl ApprovalRule {
    /// The rule in words, as the panel, the question and errors show it: `deny click whose
    /// name has “delete|remove” on https://shop.example`, `allow click named exactly “Remove
    /// item” on https://shop.example`.
    pub fn describe(&self) -> String {
        let actions = if self.actions.is_empty() {
            "nothing".to_owned()
        } else {
            join(&self.actions, ", ")
        };
        let name = self.name.trim();
        let exact = name
            .strip_prefix('"')
            .and_then(|rest| rest.strip_suffix('"'))
            .filter(|inner| !inner.contains(['"', '|']));
        let named = match exact {
            _ if name.is_empty() => String::new(),
            Some(inner) => format!(" named exactly “{inner}”"),
            None => format!(" whose name has “{name}”"),
        };
        format!("{} {actions}{named} on {}", self.verdict.word(), self.site)
    }

    /// Whether the rule holds at `now_ms` on `site`. A rule with an expiry holds only while the
    /// time is known and before it; an allow rule never holds when the time is unknown and it
    /// could have expired.
    fn holds(&self, site: &str, now_ms: Option<u64>) -> bool {
        if self.site != site {
            return false;
        }
        match (self.expires_at_ms, now_ms) {
            (None, _) => true,
            (Some(expiry), Some(now)) => now < expiry,
            // Unknown time: only a rule that makes BAI stricter still holds.
            (Some(_), None) => self.verdict != RuleVerdict::Allow,
        }
    }

    fn covers_type(&self, action: &Action) -> bool {
        let name = action.type_name();
        self.actions.iter().any(|a| a.trim() == name)
    }
}

/// One alternative of a name pattern.
struct Alternative {
    words: Vec<String>,
    whole: bool,
}

/// A parsed name pattern; `None` inside means "any name".
struct NamePattern(Option<Vec<Alternative>>);

impl NamePattern {
    fn parse(pattern: &str) -> Self {
        let pattern = pattern.trim();
        if pattern.is_empty() {
            return Self(None);
        }
        if pattern.chars().count() > MAX_PATTERN_CHARS {
            return Self(Some(Vec::new()));
        }
        let alternatives: Vec<Alternative> = pattern
            .split('|')
            .filter_map(|part| {
                let part = part.trim();
                let (inner, whole) = match part
                    .strip_prefix('"')
                    .and_then(|rest| rest.strip_suffix('"'))
                {
                    Some(inner) => (inner, true),
                    None => (part, false),
                };
                let words = words(inner);
                (!words.is_empty()).then_some(Alternative { words, whole })
            })
            .collect();
        if alternatives.len() > MAX_ALTERNATIVES {
            return Self(Some(Vec::new()));
        }
        Self(Some(alternatives))
    }

    /// Whether `text` is matched. A pattern of only separators matches nothing.
    fn matches(&self, text: &str) -> bool {
        let Some(alternatives) = &self.0 else {
            return true;
        };
        let tokens = words(text);
        alternatives.iter().any(|alternative| {
            if alternative.whole {
                return tokens == alternative.words;
            }
            let n = alternative.words.len();
            n <= tokens.len() && tokens.windows(n).any(|window| window == alternative.words)
        })
    }

    fn is_any(&self) -> bool {
        self.0.is_none()
    }
}

/// What one action is, for the rules: its own name (what the user sees it act on) and every
/// other text that may say what it does.
struct Subject<'a> {
    /// The target's name (its text when it has no name), or `navigate`'s address.
    own: Option<&'a str>,
    /// Everything else: its text, the controls inside it, a chosen option, where it goes.
    others: Vec<&'a str>,
    /// Addresses it goes to (to keep allow rules on their site).
    addresses: Vec<&'a str>,
}

fn subject_of<'a>(action: &'a Action, target: Option<&'a TargetFacts>) -> Subject<'a> {
    let mut subject = Subject {
        own: None,
        others: Vec::new(),
        addresses: Vec::new(),
    };
    if let Action::Navigate { url } | Action::OpenTab { url } = action {
        subject.own = Some(url.as_str());
        subject.addresses.push(url.as_str());
    }
    if let Action::SelectOption { option, .. } = action {
        subject.others.push(option.as_str());
    }
    if let Some(target) = target {
        let own = if target.name.trim().is_empty() {
            target.text.as_str()
        } else {
            target.name.as_str()
        };
        if subject.own.is_none() {
            subject.own = Some(own);
        }
        subject.others.push(target.name.as_str());
        subject.others.push(target.text.as_str());
        // Its name and text read in runs: a word the page glues to another by markup
        // ("Quick" + an "archive" set apart) is a word to a deny or ask rule as to the review
        // (red team, session 16).
        subject
            .others
            .extend(target.runs.iter().map(String::as_str));
        subject
            .others
            .extend(target.inner_names.iter().map(String::as_str));
        if let Some(destination) = &target.destination {
            subject.others.push(destination.as_str());
            subject.addresses.push(destination.as_str());
        }
        // What the same press activates around it says what it does too, and where it goes.
        for other in &target.also_activates {
            subject.others.push(other.name.as_str());
            subject.others.push(other.text.as_str());
            subject.others.extend(other.runs.iter().map(String::as_str));
            if let Some(destination) = &other.destination {
                subject.others.push(destination.as_str());
                subject.addresses.push(destination.as_str());
            }
        }
    }
    subject
}

/// Whether `address` stays on `site`: a path on the same site, or an absolute address on the
/// same origin. Anything else (another origin, `//host`, a scheme BAI does not know) does not.
fn stays_on(address: &str, site: &str) -> bool {
    let address = address.trim();
    let lower = address.to_ascii_lowercase();
    if lower.starts_with("//") || lower.starts_with("/\\") || lower.starts_with('\\') {
        return false;
    }
    let scheme_end = lower.find(':');
    let path_start = lower.find(['/', '?', '#']);
    let has_scheme = match (scheme_end, path_start) {
        (Some(colon), Some(slash)) => colon < slash,
        (Some(_), None) => true,
        (None, _) => false,
    };
    if !has_scheme {
        return true;
    }
    let site = site.to_ascii_lowercase();
    lower.strip_prefix(site.as_str()).is_some_and(|rest| {
        rest.is_empty() || rest.starts_with('/') || rest.starts_with('?') || rest.starts_with('#')
    })
}

/// What the rules decided for one action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RulesSay {
    /// No rule holds for it.
    Nothing,
    /// A deny rule holds: this one.
    Deny(ApprovalRule),
    /// An ask rule holds: this one.
    Ask(ApprovalRule),
    /// An allow rule holds: this one.
    Allow(ApprovalRule),
}

/// The rule that decides `action` on `target` at `site` and `now_ms`: deny first, then ask,
/// then allow. Deny and ask rules look at every text that says what the action does; an allow
/// rule only at its target's own name, and never at an action that goes off `site`.
pub(super) fn decide(
    rules: &[ApprovalRule],
    site: Option<&str>,
    now_ms: Option<u64>,
    action: &Action,
    target: Option<&TargetFacts>,
) -> RulesSay {
    let Some(site) = site else {
        return RulesSay::Nothing;
    };
    let subject = subject_of(action, target);
    let holding = || {
        rules
            .iter()
            .take(MAX_RULES)
            .filter(|rule| rule.holds(site, now_ms) && rule.covers_type(action))
    };
    let strict_match = |rule: &&ApprovalRule| {
        let pattern = NamePattern::parse(&rule.name);
        pattern.is_any()
            || subject.own.is_some_and(|own| pattern.matches(own))
            || subject.others.iter().any(|text| pattern.matches(text))
    };
    if let Some(rule) = holding()
        .filter(|r| r.verdict == RuleVerdict::Deny)
        .find(strict_match)
    {
        return RulesSay::Deny(rule.clone());
    }
    if let Some(rule) = holding()
        .filter(|r| r.verdict == RuleVerdict::Ask)
        .find(strict_match)
    {
        return RulesSay::Ask(rule.clone());
    }
    if !subject.addresses.iter().all(|a| stays_on(a, site)) {
        return RulesSay::Nothing;
    }
    let allow_match = |rule: &&ApprovalRule| {
        let pattern = NamePattern::parse(&rule.name);
        pattern.is_any() || subject.own.is_some_and(|own| pattern.matches(own))
    };
    match holding()
        .filter(|r| r.verdict == RuleVerdict::Allow)
        .find(allow_match)
    {
        Some(rule) => RulesSay::Allow(rule.clone()),
        None => RulesSay::Nothing,
    }
}

/// Whether an allow rule waives `reason`. Never: a password field, a target nobody could check,
/// a target nothing describes. A risky name or destination only when the rule's pattern covers
/// the very name or address the question would have been about (an icon-only "Delete" inside a
/// harmless-named wrapper is not covered by a rule for the wrapper).
pub(super) fn allow_waives(rule: &ApprovalRule, reason: &AskReason) -> bool {
    match reason {
        AskReason::PasswordField
        // A secret sent into the address reaches the model: only the user can say yes to it.
        | AskReason::SecretInAddress
        | AskReason::SecretChecked
        | AskReason::TargetUnchecked
        | AskReason::UnknownActivation { .. }
        // A key only the page gives a meaning to: what it does is unknown, as for an unknown
        // activation.
        | AskReason::PageBoundKey { .. }
        // A key whose choice nobody can tell: unknown, as for an unknown activation.
        | AskReason::UnknownChoice { .. }
        // Words nobody read: unknown, as for an unknown activation (a rule for the name
        // "Close" must not cover what a megabyte of text hides).
        | AskReason::TextTooLong { .. }
        | AskReason::Rule { .. } => false,
        // The rule covers `press_key` on this element by name (or any name) on this site: the
        // user said Enter there may do what the page does with it.
        AskReason::EnterMaySend { .. } => true,
        // A download, as a risky name: only a rule whose pattern covers that very link.
        AskReason::RiskyClick { name, .. } | AskReason::DownloadsFile { name } => {
            NamePattern::parse(&rule.name).matches(name)
        }
        // Where a control goes is not what it is called: a rule for the name "Next" does not
        // cover a "Next" whose form goes to /account/delete, unless its pattern names that.
        AskReason::RiskyDestination { url, .. } => NamePattern::parse(&rule.name).matches(url),
        // The address is what a navigate rule's pattern was matched against.
        AskReason::EachActionMode | AskReason::RiskyNavigation { .. } => true,
        // The user's own "allow screenshot on this site": what the picture question asks.
        AskReason::Picture { .. } => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_plain_words_never_regular_expressions() {
        let delete = NamePattern::parse("delete|remove");
        for name in ["Delete", "deleteAccount", "remove_item", "Please REMOVE it"] {
            assert!(delete.matches(name), "{name}");
        }
        for name in ["Deleted items", "Removal", "Undelete", "Save"] {
            assert!(!delete.matches(name), "{name}");
        }
        // Regular-expression syntax is just text: no character classes, no repetition.
        assert!(!NamePattern::parse("del.*").matches("delete"));
        assert!(!NamePattern::parse("(a+)+$").matches("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"));
        // Phrases and whole names.
        assert!(NamePattern::parse("remove item").matches("Remove item 3"));
        assert!(!NamePattern::parse("remove item").matches("Remove 3 items"));
        let whole = NamePattern::parse("\"Remove item\"");
        assert!(whole.matches("remove  ITEM"));
        assert!(!whole.matches("Remove item from every cart"));
        // Empty means any; only separators or an oversized pattern match nothing.
        assert!(NamePattern::parse("  ").matches("anything"));
        assert!(!NamePattern::parse("|||").matches("anything"));
        assert!(!NamePattern::parse(&"a|".repeat(200)).matches("a"));
    }

    #[test]
    fn addresses_stay_on_the_site_or_not() {
        let site = "https://shop.example";
        for address in [
            "/next",
            "next.html",
            "?page=2",
            "#top",
            "https://shop.example",
            "https://shop.example/a",
            "HTTPS://SHOP.EXAMPLE/a",
        ] {
            assert!(stays_on(address, site), "{address}");
        }
        for address in [
            "//evil.example/x",
            "/\\evil.example",
            "\\\\evil.example",
            "https://shop.example.evil.example/",
            "https://shop.example@evil.example/",
            "https://shop.example:8443/",
            "http://shop.example/",
            "javascript:alert(1)",
            "data:text/html,x",
        ] {
            assert!(!stays_on(address, site), "{address}");
        }
    }

    #[test]
    fn a_rule_holds_on_its_site_until_it_expires() {
        let rule = ApprovalRule {
            id: "r".into(),
            site: "https://a.example".into(),
            actions: vec!["click".into()],
            name: String::new(),
            verdict: RuleVerdict::Allow,
            expires_at_ms: Some(1_000),
        };
        assert!(rule.holds("https://a.example", Some(999)));
        assert!(!rule.holds("https://a.example", Some(1_000)));
        assert!(!rule.holds("https://b.example", Some(1)));
        assert!(!rule.holds("https://a.example", None));
        let deny = ApprovalRule {
            verdict: RuleVerdict::Deny,
            ..rule
        };
        assert!(deny.holds("https://a.example", None));
        assert_eq!(deny.describe(), "deny click on https://a.example");
        let named = |name: &str| ApprovalRule {
            name: name.into(),
            ..deny.clone()
        };
        assert_eq!(
            named("\"Remove item\"").describe(),
            "deny click named exactly “Remove item” on https://a.example"
        );
        assert_eq!(
            named("delete|remove").describe(),
            "deny click whose name has “delete|remove” on https://a.example"
        );
    }

    mod through_review {
        use super::super::super::{
            ApprovalMode, AskReason, PolicySettings, TargetFacts, Verdict, review,
        };
        use super::super::{ApprovalRule, RuleVerdict};
        use crate::protocol::{Action, Selector};

        const SITE: &str = "https://shop.example";

        fn rule(verdict: RuleVerdict, actions: &[&str], name: &str) -> ApprovalRule {
            ApprovalRule {
                id: format!("{verdict:?}-{}", actions.join("-")),
                site: SITE.into(),
                actions: actions.iter().map(|a| (*a).to_owned()).collect(),
                name: name.into(),
                verdict,
                expires_at_ms: None,
            }
        }

        fn settings(mode: ApprovalMode, rules: Vec<ApprovalRule>) -> PolicySettings {
            PolicySettings {
                approval_mode: mode,
                rules,
                site: Some(SITE.into()),
                now_ms: Some(10_000),
                ..PolicySettings::default()
            }
        }

        fn control(role: &str, name: &str) -> TargetFacts {
            TargetFacts {
                description: format!("{role} \"{name}\""),
                name: name.into(),
                role: role.into(),
                ..TargetFacts::default()
            }
        }

        fn click() -> Action {
            Action::Click {
                selector: Selector::css("#x"),
            }
        }

        fn codes(verdict: &Verdict) -> Vec<String> {
            match verdict {
                Verdict::Ask { reasons } => reasons
                    .iter()
                    .map(|r| {
                        serde_json::to_value(r).unwrap()["code"]
                            .as_str()
                            .unwrap()
                            .to_owned()
                    })
                    .collect(),
                other => panic!("expected a question, got {other:?}"),
            }
        }

        /// Red team, session 16: "Quick" + an "archive" the page sets apart is named
        /// "Quickarchive"; read in runs ("Quick archive"), a deny or ask rule for "archive"
        /// holds, as the review's own words do.
        #[test]
        fn deny_and_ask_rules_read_the_name_in_runs() {
            let glued = TargetFacts {
                runs: vec!["Quick archive".into()],
                ..control("button", "Quickarchive")
            };
            let around = TargetFacts {
                also_activates: vec![glued.clone()],
                ..control("button", "Card")
            };
            for verdict in [RuleVerdict::Deny, RuleVerdict::Ask] {
                let settings = settings(
                    ApprovalMode::Auto,
                    vec![rule(verdict, &["click"], "archive")],
                );
                for target in [&glued, &around] {
                    let decided = review(&settings, &click(), Some(target));
                    match verdict {
                        RuleVerdict::Deny => {
                            assert!(matches!(decided, Verdict::Deny { .. }), "{decided:?}");
                        }
                        _ => assert!(matches!(decided, Verdict::Ask { .. }), "{decided:?}"),
                    }
                }
                let plain = control("button", "Quickarchive");
                assert!(matches!(
                    review(&settings, &click(), Some(&plain)),
                    Verdict::Allow
                ));
            }
        }

        #[test]
        fn an_allow_rule_runs_its_actions_without_a_question() {
            let settings = settings(
                ApprovalMode::EachAction,
                vec![rule(RuleVerdict::Allow, &["check", "select_option"], "")],
            );
            let check = Action::Check {
                selector: Selector::css("#terms"),
            };
            assert!(matches!(
                review(&settings, &check, Some(&control("checkbox", "I agree"))),
                Verdict::AllowedByRule { waived, .. } if waived == vec![AskReason::EachActionMode]
            ));
            // Other types still ask.
            assert_eq!(
                codes(&review(
                    &settings,
                    &click(),
                    Some(&control("button", "Next"))
                )),
                ["each_action_mode"]
            );
        }

        #[test]
        fn an_allow_rule_for_a_name_waives_the_risky_word_only_for_that_name() {
            let settings = settings(
                ApprovalMode::Auto,
                vec![rule(RuleVerdict::Allow, &["click"], "\"Remove item\"")],
            );
            assert!(matches!(
                review(&settings, &click(), Some(&control("button", "Remove item"))),
                Verdict::AllowedByRule { .. }
            ));
            for other in ["Remove item from every cart", "Remove account", "Delete"] {
                assert_eq!(
                    codes(&review(
                        &settings,
                        &click(),
                        Some(&control("button", other))
                    )),
                    ["risky_click"],
                    "{other}"
                );
            }
            // A harmless-named wrapper around an icon-only Delete: the rule for the wrapper
            // does not cover what a click on it may press.
            let wide = settings_with(vec![rule(RuleVerdict::Allow, &["click"], "toolbar")]);
            let wrapper = TargetFacts {
                inner_names: vec!["Delete".into()],
                ..control("toolbar", "Toolbar")
            };
            assert_eq!(
                codes(&review(&wide, &click(), Some(&wrapper))),
                ["risky_click"]
            );
        }

        #[test]
        fn a_rule_for_a_name_does_not_cover_a_risky_destination() {
            let settings = settings(
                ApprovalMode::EachAction,
                vec![rule(RuleVerdict::Allow, &["click"], "\"Next\"")],
            );
            let harmless = TargetFacts {
                submits_form: true,
                destination: Some("https://shop.example/search".into()),
                ..control("button", "Next")
            };
            assert!(matches!(
                review(&settings, &click(), Some(&harmless)),
                Verdict::AllowedByRule { .. }
            ));
            let risky = TargetFacts {
                destination: Some("https://shop.example/account/delete".into()),
                ..harmless
            };
            assert_eq!(
                codes(&review(&settings, &click(), Some(&risky))),
                ["each_action_mode", "risky_destination"]
            );
            // A rule with no name pattern covers any target of its type on its site.
            let any = settings_with(vec![rule(RuleVerdict::Allow, &["click"], "")]);
            assert!(matches!(
                review(&any, &click(), Some(&risky)),
                Verdict::AllowedByRule { .. }
            ));
        }

        fn settings_with(rules: Vec<ApprovalRule>) -> PolicySettings {
            settings(ApprovalMode::Auto, rules)
        }

        #[test]
        fn no_rule_waives_a_password_field_an_unchecked_or_an_unknown_target() {
            let settings = settings(
                ApprovalMode::EachAction,
                vec![rule(RuleVerdict::Allow, &["input_text", "click"], "")],
            );
            let typing = Action::InputText {
                selector: Selector::css("#pw"),
                text: "x".into(),
            };
            let password = TargetFacts {
                is_password: true,
                ..control("textbox", "Password")
            };
            assert_eq!(
                codes(&review(&settings, &typing, Some(&password))),
                ["each_action_mode", "password_field"]
            );
            assert_eq!(
                codes(&review(&settings, &click(), None)),
                ["each_action_mode", "target_unchecked"]
            );
            let nothing = TargetFacts {
                description: "div.x".into(),
                ..TargetFacts::default()
            };
            assert_eq!(
                codes(&review(&settings, &click(), Some(&nothing))),
                ["each_action_mode", "unknown_activation"]
            );
            let unread = TargetFacts {
                more_text_cut: true,
                ..control("button", "Close")
            };
            assert_eq!(
                codes(&review(&settings, &click(), Some(&unread))),
                ["each_action_mode", "text_too_long"]
            );
        }

        #[test]
        fn no_allow_rule_applies_to_an_address_off_its_site() {
            let settings = settings(
                ApprovalMode::EachAction,
                vec![rule(RuleVerdict::Allow, &["navigate", "click"], "")],
            );
            for url in [
                "https://evil.example/",
                "//evil.example/x",
                "https://shop.example.evil.example/checkout",
            ] {
                let navigate = Action::Navigate { url: url.into() };
                assert!(
                    matches!(review(&settings, &navigate, None), Verdict::Ask { .. }),
                    "{url}"
                );
            }
            let inside = Action::Navigate {
                url: "/account/delete".into(),
            };
            assert!(matches!(
                review(&settings, &inside, None),
                Verdict::AllowedByRule { waived, .. } if waived.len() == 2
            ));
            // A link off the site keeps its question (here: each action is asked about).
            let link = TargetFacts {
                destination: Some("https://evil.example/delete".into()),
                ..control("link", "Continue")
            };
            assert_eq!(
                codes(&review(&settings, &click(), Some(&link))),
                ["each_action_mode", "risky_destination"]
            );
        }

        #[test]
        fn what_a_press_also_activates_is_judged_and_keeps_rules_honest() {
            // A harmless button inside a link to a risky address: the link's address asks; a
            // nameless wrapper around it does not make the press "unknown".
            let button = TargetFacts {
                also_activates: vec![
                    TargetFacts {
                        destination: Some("https://shop.example/account/delete".into()),
                        ..control("link", "Continue")
                    },
                    control("", ""),
                ],
                ..control("button", "Continue")
            };
            let auto = settings(ApprovalMode::Auto, Vec::new());
            assert_eq!(
                codes(&review(&auto, &click(), Some(&button))),
                ["risky_destination"]
            );
            // The name of an onclick wrapper around it counts as a command's.
            let wrapped = TargetFacts {
                also_activates: vec![TargetFacts {
                    text: "Delete my account Continue".into(),
                    ..control("", "")
                }],
                ..control("link", "Continue")
            };
            assert_eq!(
                codes(&review(&auto, &click(), Some(&wrapped))),
                ["risky_click"]
            );
            // Nothing around it: no question.
            assert_eq!(
                review(&auto, &click(), Some(&control("button", "Continue"))),
                Verdict::Allow
            );
            // A deny rule sees the names around it; an allow rule never waives a press whose
            // surrounding link leaves the site.
            let deny = settings(
                ApprovalMode::Auto,
                vec![rule(RuleVerdict::Deny, &["click"], "delete")],
            );
            assert!(matches!(
                review(&deny, &click(), Some(&wrapped)),
                Verdict::Deny { .. }
            ));
            let allow = settings(
                ApprovalMode::EachAction,
                vec![rule(RuleVerdict::Allow, &["click"], "Continue")],
            );
            let offsite = TargetFacts {
                also_activates: vec![TargetFacts {
                    destination: Some("https://evil.example/next".into()),
                    ..control("link", "Continue")
                }],
                ..control("button", "Continue")
            };
            assert_eq!(
                codes(&review(&allow, &click(), Some(&offsite))),
                ["each_action_mode"]
            );
        }

        #[test]
        fn a_deny_rule_refuses_whatever_else_holds() {
            let settings = settings(
                ApprovalMode::Auto,
                vec![
                    rule(RuleVerdict::Allow, &["click"], ""),
                    rule(RuleVerdict::Deny, &["click"], "delete|remove"),
                ],
            );
            let refused = |facts: &TargetFacts| review(&settings, &click(), Some(facts));
            assert_eq!(
                refused(&control("button", "Delete account")),
                Verdict::Deny {
                    rule: "deny click whose name has “delete|remove” on https://shop.example"
                        .into()
                }
            );
            // Also when the word is only inside the target, or in where it goes.
            let wrapper = TargetFacts {
                inner_names: vec!["Remove".into()],
                ..control("", "")
            };
            assert!(matches!(refused(&wrapper), Verdict::Deny { .. }));
            let link = TargetFacts {
                destination: Some("https://shop.example/cart/remove?id=3".into()),
                ..control("link", "Continue")
            };
            assert!(matches!(refused(&link), Verdict::Deny { .. }));
            // Other names: the allow rule holds.
            assert!(matches!(
                refused(&control("button", "Next")),
                Verdict::AllowedByRule { .. }
            ));
        }

        #[test]
        fn an_ask_rule_asks_even_when_nothing_else_would() {
            let settings = settings(
                ApprovalMode::Auto,
                vec![
                    rule(RuleVerdict::Allow, &["navigate"], ""),
                    rule(RuleVerdict::Ask, &["navigate"], ""),
                ],
            );
            let navigate = Action::Navigate {
                url: "/docs".into(),
            };
            assert_eq!(codes(&review(&settings, &navigate, None)), ["rule_asks"]);
        }

        #[test]
        fn an_expired_rule_or_another_sites_rule_does_nothing() {
            let mut expired = rule(RuleVerdict::Allow, &["click"], "");
            expired.expires_at_ms = Some(9_999);
            let mut elsewhere = rule(RuleVerdict::Deny, &["click"], "");
            elsewhere.site = "https://other.example".into();
            let settings = settings(ApprovalMode::Auto, vec![expired.clone(), elsewhere]);
            assert_eq!(
                codes(&review(
                    &settings,
                    &click(),
                    Some(&control("button", "Buy now"))
                )),
                ["risky_click"]
            );
            // Before it expired, it held.
            let earlier = PolicySettings {
                now_ms: Some(9_998),
                ..settings.clone()
            };
            assert!(matches!(
                review(&earlier, &click(), Some(&control("button", "Buy now"))),
                Verdict::AllowedByRule { .. }
            ));
            // With no site, no rule applies at all.
            let siteless = PolicySettings {
                site: None,
                ..earlier
            };
            assert_eq!(
                codes(&review(
                    &siteless,
                    &click(),
                    Some(&control("button", "Buy now"))
                )),
                ["risky_click"]
            );
        }

        #[test]
        fn a_picture_is_asked_about_unless_the_users_rule_for_this_site_allows_it() {
            let shot = Action::Screenshot { max_elements: None };
            for mode in [ApprovalMode::Auto, ApprovalMode::EachAction] {
                let verdict = review(&settings(mode, Vec::new()), &shot, None);
                assert_eq!(codes(&verdict), ["picture"], "{mode:?}");
                let Verdict::Ask { reasons } = verdict else {
                    unreachable!()
                };
                assert_eq!(
                    reasons[0].message(),
                    "BAI will send a picture of https://shop.example to the chat"
                );
            }
            // The user's allow rule for screenshots on this site.
            let allowed = settings(
                ApprovalMode::EachAction,
                vec![rule(RuleVerdict::Allow, &["screenshot"], "")],
            );
            assert!(matches!(
                review(&allowed, &shot, None),
                Verdict::AllowedByRule { .. }
            ));
            // A rule for other actions, a named rule, another site's rule, an expired rule, or
            // no site at all: the question stays.
            let mut elsewhere = rule(RuleVerdict::Allow, &["screenshot"], "");
            elsewhere.site = "https://other.example".into();
            let mut expired = rule(RuleVerdict::Allow, &["screenshot"], "");
            expired.expires_at_ms = Some(9_000);
            for other in [
                rule(RuleVerdict::Allow, &["click", "observe"], ""),
                rule(RuleVerdict::Allow, &["screenshot"], "checkout"),
                elsewhere,
                expired,
            ] {
                let verdict = review(
                    &settings(ApprovalMode::Auto, vec![other.clone()]),
                    &shot,
                    None,
                );
                assert_eq!(codes(&verdict), ["picture"], "{other:?}");
            }
            let siteless = PolicySettings {
                site: None,
                ..allowed.clone()
            };
            let verdict = review(&siteless, &shot, None);
            assert_eq!(codes(&verdict), ["picture"]);
            let Verdict::Ask { reasons } = verdict else {
                unreachable!()
            };
            assert!(reasons[0].message().contains("this page"));
            // A deny rule refuses it.
            let denied = settings(
                ApprovalMode::Auto,
                vec![rule(RuleVerdict::Deny, &["screenshot"], "")],
            );
            assert!(matches!(review(&denied, &shot, None), Verdict::Deny { .. }));
        }

        #[test]
        fn rules_arrive_in_the_settings_json() {
            let json = r#"{"approval_mode":"auto","site":"https://shop.example","now_ms":5,
                "rules":[{"id":"a","site":"https://shop.example","actions":["click"],
                "name":"delete","verdict":"deny","expires_at_ms":null}]}"#;
            let settings: PolicySettings = serde_json::from_str(json).unwrap();
            assert!(matches!(
                review(&settings, &click(), Some(&control("button", "Delete"))),
                Verdict::Deny { .. }
            ));
        }
    }
}
