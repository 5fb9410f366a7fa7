//! What an action did, as data the extension shows and sends back to the model.

use serde::Serialize;
use serde_json::{Map, Value};

/// Options for [`crate::dom::execute`]. Deserializes from `{"timeout_ms": 3000}` (missing
/// fields take their defaults).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ExecOptions {
    /// How long an action may wait for its target to become actionable, in milliseconds.
    pub timeout_ms: u32,
}

impl ExecOptions {
    /// The default timeout: long enough for a re-render or a short animation, short enough that
    /// the model hears back quickly.
    pub const DEFAULT_TIMEOUT_MS: u32 = 5000;
}

impl Default for ExecOptions {
    fn default() -> Self {
        Self {
            timeout_ms: Self::DEFAULT_TIMEOUT_MS,
        }
    }
}

/// Something observable that an action caused.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Effect {
    /// A link or form started loading another page (or the URL changed in place).
    NavigationStarted {
        /// The destination, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// A form's `submit` event fired.
    FormSubmitted {
        /// A page script called `preventDefault()` and handles the submission itself.
        handled_by_script: bool,
    },
    /// The clicked element left the page (a dialog closed, a list re-rendered...).
    ElementDetached,
    /// A checkbox, radio or switch changed state.
    CheckedChanged {
        /// The new state.
        checked: bool,
    },
    /// `aria-expanded` changed (a menu or section opened or closed).
    ExpandedChanged {
        /// The new state.
        expanded: bool,
    },
    /// The element received keyboard focus.
    Focused,
    /// The page's DOM changed.
    DomChanged {
        /// Number of mutation records observed.
        mutations: u32,
    },
    /// A field now holds the typed text.
    ValueSet {
        /// Characters typed (the text itself is not repeated, so passwords never leak).
        chars: usize,
    },
    /// An option of a `<select>` was chosen.
    OptionSelected {
        /// The option's value.
        value: String,
    },
    /// The page scrolled.
    Scrolled {
        /// New horizontal position.
        x: f64,
        /// New vertical position.
        y: f64,
    },
    /// Time passed.
    Waited {
        /// Milliseconds.
        ms: u32,
    },
    /// `check` / `uncheck` found the element already in the asked state and did nothing.
    AlreadyInState {
        /// The state it is in.
        checked: bool,
    },
    /// A key was pressed.
    KeyPressed {
        /// The DOM `key` value (`Enter`, `" "`...).
        key: String,
        /// A page listener canceled the keydown, so the browser's default action was skipped.
        default_prevented: bool,
    },
    /// Keyboard focus moved to another element.
    FocusMoved {
        /// The newly focused element, described.
        to: String,
    },
    /// Characters were deleted from a text field (Backspace / Delete).
    TextDeleted {
        /// How many characters.
        chars: usize,
    },
    /// The pointer was moved over the element.
    Hovered,
    /// A `wait_for` condition holds.
    ConditionMet {
        /// Milliseconds waited until it held.
        waited_ms: u32,
    },
    /// `extract` read the matched elements (the texts are in the report's `data`).
    Extracted {
        /// Elements read.
        count: usize,
        /// Elements that matched (more than `count` when capped).
        matched: usize,
        /// Some text was cut to stay within the size limit.
        truncated: bool,
    },
    /// An `assert` held.
    AssertionHeld,
    /// `observe` listed the page (the observation is in the report's `data`).
    Observed {
        /// Elements listed.
        listed: usize,
        /// Elements found.
        total: usize,
    },
    /// The action ran but nothing observable followed.
    NothingObservable,
    /// The page was still changing (DOM mutations or running animations) when the wait for it
    /// to settle ended: what the result describes may still change.
    NotSettled {
        /// Milliseconds waited.
        waited_ms: u32,
    },
}

/// The result of a successful action.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActionReport {
    /// The action's wire name (`click`, `input_text`...).
    pub action: &'static str,
    /// The element acted on, described (`input#email[name=email]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// What happened, most important first.
    pub effects: Vec<Effect>,
    /// How many attempts it took (1 = acted at once).
    pub attempts: u32,
    /// Milliseconds from start to finish.
    pub elapsed_ms: u32,
    /// What the action read, for `observe` (an [`crate::dom::Observation`]) and `extract` (an
    /// array of strings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl ActionReport {
    /// Whether the report contains `effect`'s kind.
    pub fn has(&self, kind: &str) -> bool {
        self.effects.iter().any(|e| e.kind() == kind)
    }

    /// The report as JSON, the value the derived `Serialize` gives (`serde_json::to_value`),
    /// built by hand: the executor's wasm then carries no serde serializer for reports, effects
    /// and errors (`browser_json_out` checks both agree, variant by variant).
    pub fn into_json(self) -> Value {
        let mut map = Map::new();
        map.insert("action".into(), self.action.into());
        if let Some(element) = self.element {
            map.insert("element".into(), element.into());
        }
        let effects = self.effects.iter().map(Effect::to_json).collect();
        map.insert("effects".into(), Value::Array(effects));
        map.insert("attempts".into(), self.attempts.into());
        map.insert("elapsed_ms".into(), self.elapsed_ms.into());
        if let Some(data) = self.data {
            map.insert("data".into(), data);
        }
        Value::Object(map)
    }
}

impl Effect {
    /// The effect's `kind`, as serialized.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::NavigationStarted { .. } => "navigation_started",
            Self::FormSubmitted { .. } => "form_submitted",
            Self::ElementDetached => "element_detached",
            Self::CheckedChanged { .. } => "checked_changed",
            Self::ExpandedChanged { .. } => "expanded_changed",
            Self::Focused => "focused",
            Self::DomChanged { .. } => "dom_changed",
            Self::ValueSet { .. } => "value_set",
            Self::OptionSelected { .. } => "option_selected",
            Self::Scrolled { .. } => "scrolled",
            Self::Waited { .. } => "waited",
            Self::AlreadyInState { .. } => "already_in_state",
            Self::KeyPressed { .. } => "key_pressed",
            Self::FocusMoved { .. } => "focus_moved",
            Self::TextDeleted { .. } => "text_deleted",
            Self::Hovered => "hovered",
            Self::ConditionMet { .. } => "condition_met",
            Self::Extracted { .. } => "extracted",
            Self::AssertionHeld => "assertion_held",
            Self::Observed { .. } => "observed",
            Self::NothingObservable => "nothing_observable",
            Self::NotSettled { .. } => "not_settled",
        }
    }

    /// The effect as JSON, the value the derived `Serialize` gives (see
    /// [`ActionReport::into_json`]).
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("kind".into(), self.kind().into());
        let mut put = |key: &str, value: Value| {
            map.insert(key.to_owned(), value);
        };
        match self {
            Self::NavigationStarted { url } => {
                if let Some(url) = url {
                    put("url", url.as_str().into());
                }
            }
            Self::FormSubmitted { handled_by_script } => {
                put("handled_by_script", (*handled_by_script).into());
            }
            Self::CheckedChanged { checked } | Self::AlreadyInState { checked } => {
                put("checked", (*checked).into());
            }
            Self::ExpandedChanged { expanded } => put("expanded", (*expanded).into()),
            Self::DomChanged { mutations } => put("mutations", (*mutations).into()),
            Self::ValueSet { chars } | Self::TextDeleted { chars } => put("chars", (*chars).into()),
            Self::OptionSelected { value } => put("value", value.as_str().into()),
            Self::Scrolled { x, y } => {
                put("x", (*x).into());
                put("y", (*y).into());
            }
            Self::Waited { ms } => put("ms", (*ms).into()),
            Self::KeyPressed {
                key,
                default_prevented,
            } => {
                put("key", key.as_str().into());
                put("default_prevented", (*default_prevented).into());
            }
            Self::FocusMoved { to } => put("to", to.as_str().into()),
            Self::ConditionMet { waited_ms } | Self::NotSettled { waited_ms } => {
                put("waited_ms", (*waited_ms).into());
            }
            Self::Extracted {
                count,
                matched,
                truncated,
            } => {
                put("count", (*count).into());
                put("matched", (*matched).into());
                put("truncated", (*truncated).into());
            }
            Self::Observed { listed, total } => {
                put("listed", (*listed).into());
                put("total", (*total).into());
            }
            Self::ElementDetached
            | Self::Focused
            | Self::Hovered
            | Self::AssertionHeld
            | Self::NothingObservable => {}
        }
        Value::Object(map)
    }
}
