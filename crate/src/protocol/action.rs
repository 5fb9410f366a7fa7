//! The actions a model may ask for, as validated data.
//!
//! On the wire an action record carries `"type"` and `"payload"`; the engine validates both and
//! produces an [`Action`]. Adding an action type is one variant here (plus its payload schema in
//! the engine's validator) and one file in `dom::action`.

use serde::{Deserialize, Serialize};

use super::selector::Selector;

/// One validated action.
///
/// Serialized as the wire record's `{"type": ..., "payload": {...}}`, with the payload exactly as
/// the protocol documents it, and deserialized by [`super::validate::action_from_wire`] (the
/// `Deserialize` impl lives beside it, in [`super::validate`]): one parser for the model's
/// records, saved engine states and the host's copies of [`super::Decision::Execute`] (a derived
/// `Deserialize` for this enum was about a sixth of the extension's wasm code).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum Action {
    /// Click the element.
    Click {
        /// The target.
        selector: Selector,
    },
    /// Replace the value of a text field (or contenteditable) with `text`.
    InputText {
        /// The target.
        selector: Selector,
        /// The text to type.
        text: String,
    },
    /// Pause for `ms` milliseconds (0 to 60000).
    Wait {
        /// Milliseconds.
        ms: u32,
    },
    /// Scroll the page to (`x`, `y`) pixels.
    Scroll {
        /// Horizontal position; unchanged when absent.
        #[serde(skip_serializing_if = "Option::is_none")]
        x: Option<f64>,
        /// Vertical position.
        y: f64,
    },
    /// List the page's interactive elements with short refs (`@e1`, ...). Needs the `observe`
    /// capability.
    Observe {
        /// At most this many elements (1 to [`OBSERVE_MAX_ELEMENTS`], default
        /// [`OBSERVE_DEFAULT_ELEMENTS`]); the rest are counted, not listed.
        #[serde(skip_serializing_if = "Option::is_none")]
        max_elements: Option<u32>,
    },
    /// Choose an option of a `<select>` (or ARIA listbox/combobox): by value, else by label.
    /// Needs `extended_actions`.
    SelectOption {
        /// The select element.
        selector: Selector,
        /// The option's value or visible label.
        option: String,
    },
    /// Make a checkbox, radio or switch checked (no-op when it already is). Needs
    /// `extended_actions`.
    Check {
        /// The target.
        selector: Selector,
    },
    /// Make a checkbox or switch unchecked (no-op when it already is). Needs `extended_actions`.
    Uncheck {
        /// The target.
        selector: Selector,
    },
    /// Press one key on the focused element, or on `selector` after focusing it. Needs
    /// `extended_actions`.
    PressKey {
        /// The key.
        key: Key,
        /// Focus this element first; when absent the key goes to the focused element.
        #[serde(skip_serializing_if = "Option::is_none")]
        selector: Option<Selector>,
    },
    /// Move the pointer over the element (menus that open on hover). Needs `extended_actions`.
    Hover {
        /// The target.
        selector: Selector,
    },
    /// Load `url` in the target tab: an absolute `http(s)` URL or a path starting with `/`. The
    /// extension refuses a destination outside the workflow's scope. Needs `extended_actions`.
    Navigate {
        /// Where to go.
        url: String,
    },
    /// Open a new tab on the workflow's bound site at `url` (an absolute `http(s)` URL or a path
    /// starting with `/`), judged like a `navigate`; the result names the new tab (`"t2"`).
    /// Needs `tabs`.
    OpenTab {
        /// What the new tab loads.
        url: String,
    },
    /// List the workflow's tabs (name, origin, title, whether alive). Touches no page. Needs
    /// `tabs`.
    Tabs {},
    /// Wait until a condition holds (or the action's timeout passes). Needs `extended_actions`.
    WaitFor {
        /// What to wait for (its fields are the payload's).
        #[serde(flatten)]
        until: WaitCondition,
    },
    /// Read the text (or one attribute) of the matched elements, size-capped and redacted.
    /// Needs `extended_actions`.
    Extract {
        /// The elements (every match, up to [`EXTRACT_MAX_ELEMENTS`]).
        selector: Selector,
        /// Read this attribute instead of the text.
        #[serde(skip_serializing_if = "Option::is_none")]
        attribute: Option<String>,
        /// Read up to this many characters (1 to [`EXTRACT_LARGE_MAX_CHARS`]) instead of
        /// [`EXTRACT_MAX_CHARS`], from up to [`EXTRACT_LARGE_MAX_ELEMENTS`] elements. Needs
        /// `chunked_results`: what does not fit one result line continues in the next ones.
        #[serde(skip_serializing_if = "Option::is_none")]
        max_chars: Option<u32>,
    },
    /// Ask for the next part of a result that did not fit one line. Needs `chunked_results`.
    /// Not performed on the page: the engine checks the token (issued for this workflow,
    /// unused, not replaced by a newer continuation) and writes the part into the next result.
    More {
        /// The continuation token of the previous part (`"m_…"`).
        token: String,
    },
    /// Check a fact about the page; fails with `assertion_failed` when it does not hold. Needs
    /// `extended_actions`.
    Assert {
        /// The element the expectation is about.
        selector: Selector,
        /// What must be true (`expect` and `value` in the payload).
        #[serde(flatten)]
        expect: Expectation,
    },
    /// A picture of the target's visible area, attached to the result message: password and
    /// secret fields and every frame painted over, each listed element boxed with the number of
    /// its ref (the same `observe` runs in the call, so the picture and the refs agree). Asked
    /// about by default. Needs `vision`.
    Screenshot {
        /// At most this many elements listed and marked (as `observe`'s `max_elements`).
        #[serde(skip_serializing_if = "Option::is_none")]
        max_elements: Option<u32>,
    },
    /// The model says the workflow is over.
    Done {
        /// Whether the model thinks it reached the goal.
        success: bool,
        /// A short account for the user.
        #[serde(skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
    },
}

/// Default number of elements an `observe` lists.
pub const OBSERVE_DEFAULT_ELEMENTS: u32 = 60;
/// Most elements an `observe` may list.
pub const OBSERVE_MAX_ELEMENTS: u32 = 300;
/// Most elements an `extract` reads.
pub const EXTRACT_MAX_ELEMENTS: usize = 20;
/// Most characters an `extract` returns in total.
pub const EXTRACT_MAX_CHARS: usize = 2000;
/// Most characters an `extract` with `max_chars` (`chunked_results`) may ask for.
pub const EXTRACT_LARGE_MAX_CHARS: u32 = 100_000;
/// Most elements an `extract` with `max_chars` reads.
pub const EXTRACT_LARGE_MAX_ELEMENTS: usize = 1000;

/// The keys `press_key` may press.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub enum Key {
    /// Enter / Return.
    Enter,
    /// Tab (moves focus forward).
    Tab,
    /// Escape.
    Escape,
    /// Backspace.
    Backspace,
    /// Delete.
    Delete,
    /// The space bar (`" "`).
    Space,
    /// Arrow up.
    ArrowUp,
    /// Arrow down.
    ArrowDown,
    /// Arrow left.
    ArrowLeft,
    /// Arrow right.
    ArrowRight,
    /// Home.
    Home,
    /// End.
    End,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
}

impl Key {
    /// Every key, in documentation order.
    pub const ALL: &'static [Key] = &[
        Self::Enter,
        Self::Tab,
        Self::Escape,
        Self::Backspace,
        Self::Delete,
        Self::Space,
        Self::ArrowUp,
        Self::ArrowDown,
        Self::ArrowLeft,
        Self::ArrowRight,
        Self::Home,
        Self::End,
        Self::PageUp,
        Self::PageDown,
    ];

    /// The keys that move the current option in a list of choices (a native select's or
    /// radio group's, an ARIA listbox's, menu's, radiogroup's): the review of a widget key and
    /// the key's own run judge the same set.
    pub fn moves_in_a_list(self) -> bool {
        matches!(
            self,
            Self::ArrowUp
                | Self::ArrowDown
                | Self::ArrowLeft
                | Self::ArrowRight
                | Self::Home
                | Self::End
                | Self::PageUp
                | Self::PageDown
        )
    }

    /// The wire name, which is also the DOM `KeyboardEvent.key` except for `Space` (`" "`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Enter => "Enter",
            Self::Tab => "Tab",
            Self::Escape => "Escape",
            Self::Backspace => "Backspace",
            Self::Delete => "Delete",
            Self::Space => "Space",
            Self::ArrowUp => "ArrowUp",
            Self::ArrowDown => "ArrowDown",
            Self::ArrowLeft => "ArrowLeft",
            Self::ArrowRight => "ArrowRight",
            Self::Home => "Home",
            Self::End => "End",
            Self::PageUp => "PageUp",
            Self::PageDown => "PageDown",
        }
    }

    /// Parse a wire name (exact, as listed in [`Key::ALL`]).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.as_str() == name)
    }
}

/// The element states `wait_for` can wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ElementState {
    /// Matches and is visible.
    Visible,
    /// No match, or every match is invisible.
    Hidden,
    /// Matches, is visible and is not disabled.
    Enabled,
    /// Matches (visible or not).
    Attached,
    /// No element matches.
    Detached,
}

/// What `wait_for` waits for. Serialized as its wire fields (which say which variant it is).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum WaitCondition {
    /// An element reaches a state. Wire: `{"selector": S, "state": "visible"}` (state defaults to
    /// visible).
    Element {
        /// The element.
        selector: Selector,
        /// The state.
        state: ElementState,
    },
    /// The page's visible text contains `text` (case-sensitive). Wire: `{"text": "..."}`.
    Text {
        /// The text.
        text: String,
    },
    /// The page's URL contains `contains`. Wire: `{"url_contains": "..."}`.
    Url {
        /// The substring.
        #[serde(rename = "url_contains")]
        contains: String,
    },
}

/// What `assert` checks. Wire: `{"selector": S, "expect": NAME, "value": "..."}` (`value` only for
/// the `*_equals` / `*_contains` expectations). Serialized as `expect` and `value`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "expect", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Expectation {
    /// At least one element matches.
    Exists,
    /// No element matches.
    Absent,
    /// The element's text, whitespace-collapsed and trimmed, equals `value`.
    TextEquals {
        /// The expected text.
        value: String,
    },
    /// The element's text contains `value`.
    TextContains {
        /// The expected substring.
        value: String,
    },
    /// The form control's value equals `value` (never reported back for password fields).
    ValueEquals {
        /// The expected value.
        value: String,
    },
    /// The checkbox/radio/switch is checked.
    Checked,
    /// The checkbox/radio/switch is not checked.
    Unchecked,
}

/// What happens when an action fails (per-action `on_error`; `extended_actions` only).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
#[non_exhaustive]
pub enum OnError {
    /// Skip the rest of the message's actions (the default, and BAI/0.3's behaviour).
    #[default]
    Stop,
    /// Go on with the next action.
    Skip,
    /// Try again up to `count` more times (1 to [`RETRY_MAX`]), then stop.
    Retry {
        /// Extra attempts.
        count: u8,
    },
}

/// Most extra attempts `on_error: retry` may ask for.
pub const RETRY_MAX: u8 = 5;
/// Longest per-action `timeout_ms`.
pub const ACTION_TIMEOUT_MAX_MS: u32 = 60_000;

/// Optional per-action fields (`extended_actions` only): written beside `type` and `payload`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ActionOptions {
    /// How long the action may wait for its target or condition (1 to
    /// [`ACTION_TIMEOUT_MAX_MS`]); the DOM engine's default when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u32>,
    /// What to do when it fails.
    #[serde(skip_serializing_if = "is_default_on_error")]
    pub on_error: OnError,
    /// Why the model wants this, shown to the user in the approval prompt and the log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Which of the workflow's tabs the action acts on (`"t2"`; `tabs` only); the bound tab
    /// when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tab: Option<String>,
}

fn is_default_on_error(on_error: &OnError) -> bool {
    *on_error == OnError::Stop
}

impl ActionOptions {
    /// Whether every field has its default (nothing to serialize).
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

impl Action {
    /// The wire name of the action type.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Click { .. } => "click",
            Self::InputText { .. } => "input_text",
            Self::Wait { .. } => "wait",
            Self::Scroll { .. } => "scroll",
            Self::Observe { .. } => "observe",
            Self::SelectOption { .. } => "select_option",
            Self::Check { .. } => "check",
            Self::Uncheck { .. } => "uncheck",
            Self::PressKey { .. } => "press_key",
            Self::Hover { .. } => "hover",
            Self::Navigate { .. } => "navigate",
            Self::WaitFor { .. } => "wait_for",
            Self::Extract { .. } => "extract",
            Self::Assert { .. } => "assert",
            Self::Done { .. } => "done",
            Self::More { .. } => "more",
            Self::Screenshot { .. } => "screenshot",
            Self::OpenTab { .. } => "open_tab",
            Self::Tabs {} => "tabs",
        }
    }

    /// The element the action targets, if any.
    pub fn selector(&self) -> Option<&Selector> {
        match self {
            Self::Click { selector }
            | Self::InputText { selector, .. }
            | Self::SelectOption { selector, .. }
            | Self::Check { selector }
            | Self::Uncheck { selector }
            | Self::Hover { selector }
            | Self::Extract { selector, .. }
            | Self::Assert { selector, .. }
            | Self::WaitFor {
                until: WaitCondition::Element { selector, .. },
            } => Some(selector),
            Self::PressKey { selector, .. } => selector.as_ref(),
            Self::Wait { .. }
            | Self::Scroll { .. }
            | Self::Done { .. }
            | Self::More { .. }
            | Self::OpenTab { .. }
            | Self::Tabs {}
            | Self::Observe { .. }
            | Self::Screenshot { .. }
            | Self::Navigate { .. }
            | Self::WaitFor { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::selector::SelectorKind;
    use super::*;
    use serde_json::json;

    fn selector_with_options() -> Selector {
        Selector {
            kind: SelectorKind::Role,
            value: "button".into(),
            name: Some("Save".into()),
            exact: true,
            index: Some(2),
        }
    }

    /// One of each variant and shape (options set and unset).
    fn every_action() -> Vec<Action> {
        let css = || Selector::css("#a");
        let test_id = || Selector::new(SelectorKind::TestId, "x");
        let by_ref = || Selector::new(SelectorKind::Ref, "@e12");
        let mut actions = vec![
            Action::Click { selector: css() },
            Action::Click {
                selector: selector_with_options(),
            },
            Action::Click { selector: by_ref() },
            Action::InputText {
                selector: Selector::new(SelectorKind::Aria, "Email"),
                text: "a@b.c".into(),
            },
            Action::Wait { ms: 0 },
            Action::Wait { ms: 60_000 },
            Action::Scroll { x: None, y: 10.0 },
            Action::Scroll {
                x: Some(1.5),
                y: 0.0,
            },
            Action::Observe { max_elements: None },
            Action::Observe {
                max_elements: Some(OBSERVE_MAX_ELEMENTS),
            },
            Action::SelectOption {
                selector: test_id(),
                option: "FR".into(),
            },
            Action::Check {
                selector: Selector::new(SelectorKind::Label, "Agree"),
            },
            Action::Uncheck {
                selector: Selector::new(SelectorKind::Placeholder, "x"),
            },
            Action::PressKey {
                key: Key::Enter,
                selector: None,
            },
            Action::Hover {
                selector: Selector::new(SelectorKind::Xpath, "//a"),
            },
            Action::Navigate {
                url: "/account?tab=2".into(),
            },
            Action::WaitFor {
                until: WaitCondition::Text {
                    text: "Saved".into(),
                },
            },
            Action::WaitFor {
                until: WaitCondition::Url {
                    contains: "/done".into(),
                },
            },
            Action::Extract {
                selector: test_id(),
                attribute: None,
                max_chars: None,
            },
            Action::Extract {
                selector: test_id(),
                attribute: Some("href".into()),
                max_chars: None,
            },
            Action::Extract {
                selector: test_id(),
                attribute: None,
                max_chars: Some(50_000),
            },
            Action::More {
                token: "m_0123456789abcdef".into(),
            },
            Action::OpenTab {
                url: "/cart".into(),
            },
            Action::Tabs {},
            Action::Done {
                success: true,
                summary: None,
            },
            Action::Done {
                success: false,
                summary: Some("Could not log in".into()),
            },
        ];
        actions.extend(Key::ALL.iter().map(|&key| Action::PressKey {
            key,
            selector: Some(css()),
        }));
        actions.extend(
            [
                ElementState::Visible,
                ElementState::Hidden,
                ElementState::Enabled,
                ElementState::Attached,
                ElementState::Detached,
            ]
            .map(|state| Action::WaitFor {
                until: WaitCondition::Element {
                    selector: Selector::new(SelectorKind::Text, "Loading"),
                    state,
                },
            }),
        );
        actions.extend(
            [
                Expectation::Exists,
                Expectation::Absent,
                Expectation::TextEquals { value: "Hi".into() },
                Expectation::TextContains { value: "H".into() },
                Expectation::ValueEquals { value: "".into() },
                Expectation::Checked,
                Expectation::Unchecked,
            ]
            .map(|expect| Action::Assert {
                selector: test_id(),
                expect,
            }),
        );
        actions
    }

    #[test]
    fn serializes_the_wire_form_and_reads_it_back() {
        let actions = every_action();
        let types: std::collections::BTreeSet<_> = actions.iter().map(Action::type_name).collect();
        assert_eq!(types.len(), 18, "a variant is missing from every_action");
        for action in actions {
            let value = serde_json::to_value(&action).unwrap();
            let (Some(type_name), Some(payload)) = (value["type"].as_str(), value.get("payload"))
            else {
                panic!("not a wire record: {value}");
            };
            assert_eq!(type_name, action.type_name());
            // The payload is what a model writes, and means the same action.
            let record = json!({"type": type_name, "payload": payload});
            assert_eq!(
                serde_json::from_value::<Action>(record).unwrap(),
                action,
                "{value}"
            );
            let text = serde_json::to_string(&action).unwrap();
            assert_eq!(
                serde_json::from_str::<Action>(&text).unwrap(),
                action,
                "{text}"
            );
        }
    }

    #[test]
    fn payloads_as_documented() {
        let wire = |action: Action| serde_json::to_value(action).unwrap()["payload"].clone();
        assert_eq!(
            wire(Action::WaitFor {
                until: WaitCondition::Url {
                    contains: "/done".into()
                }
            }),
            json!({"url_contains": "/done"})
        );
        assert_eq!(
            wire(Action::WaitFor {
                until: WaitCondition::Element {
                    selector: Selector::css("#a"),
                    state: ElementState::Hidden
                }
            }),
            json!({"selector": {"type": "css", "value": "#a"}, "state": "hidden"})
        );
        assert_eq!(
            wire(Action::Assert {
                selector: Selector::css("#a"),
                expect: Expectation::TextEquals { value: "Hi".into() }
            }),
            json!({"selector": {"type": "css", "value": "#a"}, "expect": "text_equals", "value": "Hi"})
        );
        assert_eq!(
            wire(Action::Assert {
                selector: Selector::css("#a"),
                expect: Expectation::Checked
            }),
            json!({"selector": {"type": "css", "value": "#a"}, "expect": "checked"})
        );
        assert_eq!(
            wire(Action::Click {
                selector: selector_with_options()
            }),
            json!({"selector": {"type": "role", "value": "button", "name": "Save", "exact": true, "index": 2}})
        );
    }

    #[test]
    fn refuses_what_the_wire_refuses() {
        for bad in [
            json!({"payload": {"selector": "#a"}}),
            json!({"type": "click"}),
            json!({"type": "teleport", "payload": {}}),
            json!({"type": "wait", "payload": {"ms": 60001}}),
            json!({"type": "click", "payload": {"selector": {"type": "css", "value": "#a", "exact": "yes"}}}),
            json!({"type": "wait_for", "payload": {"until": {"kind": "url", "contains": "/x"}}}),
        ] {
            assert!(
                serde_json::from_value::<Action>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }
}
