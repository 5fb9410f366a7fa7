//! What an action did, as data the extension shows and sends back to the model.

use serde::Serialize;

use crate::protocol::json_write::{self, SortedObject};

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
    /// What the action read, as JSON text: for `observe` an [`crate::dom::Observation`], for
    /// `extract` an array of strings. Written by hand as serde_json wrote the `Value` it once
    /// was (keys sorted), so the executor's wasm builds no `Value` for an answer; serialized as
    /// that value (the tests compare reports through it).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "json_text_as_value"
    )]
    pub data: Option<String>,
}

/// [`ActionReport::data`] as the JSON value its text holds (for the derived `Serialize`, which
/// only the tests use).
fn json_text_as_value<S: serde::Serializer>(
    data: &Option<String>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let value = match data {
        // The crate's reader: its floats are correctly rounded, serde_json's default reader's
        // are not always (a long float would come back one digit off).
        Some(text) => Some(
            crate::protocol::json::read_plain(text)
                .map_err(|refusal| serde::ser::Error::custom(refusal.to_string()))?,
        ),
        None => None,
    };
    value.serialize(serializer)
}

impl ActionReport {
    /// Whether the report contains `effect`'s kind.
    pub fn has(&self, kind: &str) -> bool {
        self.effects.iter().any(|e| e.kind() == kind)
    }

    /// The report's fields as JSON, what `serde_json::to_value` of the derived `Serialize` gives
    /// (keys sorted when written), written by hand: the executor's wasm then carries no serde
    /// serializer for reports, effects and errors (`browser_json_out` checks both agree, variant
    /// by variant).
    pub fn json_fields(&self) -> SortedObject {
        let mut object = SortedObject::new();
        object.string("action", self.action);
        if let Some(element) = &self.element {
            object.string("element", element);
        }
        let mut effects = String::new();
        json_write::list(&mut effects, &self.effects, |out, effect| {
            out.push_str(&effect.to_json_string());
        });
        object.json("effects", effects);
        object.number("attempts", u64::from(self.attempts));
        object.number("elapsed_ms", u64::from(self.elapsed_ms));
        if let Some(data) = &self.data {
            object.json("data", data.clone());
        }
        object
    }

    /// The report as JSON text (see [`ActionReport::json_fields`]).
    pub fn to_json_string(&self) -> String {
        self.json_fields().into_json()
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

    /// The effect as JSON text, what the derived `Serialize` gives (see
    /// [`ActionReport::json_fields`]).
    pub fn to_json_string(&self) -> String {
        let mut object = SortedObject::new();
        object.string("kind", self.kind());
        let count = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
        match self {
            Self::NavigationStarted { url } => {
                if let Some(url) = url {
                    // Written here, the one place every action's report passes: the address
                    // loses the values of the page's own secret fields too (a GET form's).
                    object.string("url", &crate::dom::address::redact_address_here(url));
                }
            }
            Self::FormSubmitted { handled_by_script } => {
                object.bool("handled_by_script", *handled_by_script);
            }
            Self::CheckedChanged { checked } | Self::AlreadyInState { checked } => {
                object.bool("checked", *checked);
            }
            Self::ExpandedChanged { expanded } => object.bool("expanded", *expanded),
            Self::DomChanged { mutations } => object.number("mutations", u64::from(*mutations)),
            Self::ValueSet { chars } | Self::TextDeleted { chars } => {
                object.number("chars", count(*chars));
            }
            Self::OptionSelected { value } => object.string("value", value),
            Self::Scrolled { x, y } => {
                // As serde_json writes an `f64` (`null` when not finite).
                object.json("x", json_write::float_json(*x));
                object.json("y", json_write::float_json(*y));
            }
            Self::Waited { ms } => object.number("ms", u64::from(*ms)),
            Self::KeyPressed {
                key,
                default_prevented,
            } => {
                object.string("key", key);
                object.bool("default_prevented", *default_prevented);
            }
            Self::FocusMoved { to } => object.string("to", to),
            Self::ConditionMet { waited_ms } | Self::NotSettled { waited_ms } => {
                object.number("waited_ms", u64::from(*waited_ms));
            }
            Self::Extracted {
                count: read,
                matched,
                truncated,
            } => {
                object.number("count", count(*read));
                object.number("matched", count(*matched));
                object.bool("truncated", *truncated);
            }
            Self::Observed { listed, total } => {
                object.number("listed", count(*listed));
                object.number("total", count(*total));
            }
            Self::ElementDetached
            | Self::Focused
            | Self::Hovered
            | Self::AssertionHeld
            | Self::NothingObservable => {}
        }
        object.into_json()
    }
}
