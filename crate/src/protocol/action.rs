//! The actions a model may ask for, as validated data.
//!
//! On the wire an action record carries `"type"` and `"payload"`; the engine validates both and
//! produces an [`Action`]. Adding an action type is one variant here (plus its payload schema in
//! the engine's validator) and one file in `dom::action`.

use serde::{Deserialize, Serialize};

use super::selector::Selector;

/// One validated action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<f64>,
        /// Vertical position.
        y: f64,
    },
    /// The model says the workflow is over.
    Done {
        /// Whether the model thinks it reached the goal.
        success: bool,
        /// A short account for the user.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
    },
}

impl Action {
    /// The wire name of the action type.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Click { .. } => "click",
            Self::InputText { .. } => "input_text",
            Self::Wait { .. } => "wait",
            Self::Scroll { .. } => "scroll",
            Self::Done { .. } => "done",
        }
    }

    /// The element the action targets, if any.
    pub fn selector(&self) -> Option<&Selector> {
        match self {
            Self::Click { selector } | Self::InputText { selector, .. } => Some(selector),
            Self::Wait { .. } | Self::Scroll { .. } | Self::Done { .. } => None,
        }
    }
}
