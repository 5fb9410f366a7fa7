//! `check` / `uncheck`: bring a checkbox, radio button or switch into the asked state.
//!
//! Checkable: `<input type=checkbox|radio>` (a `<label>` stands for its control), elements with
//! role `checkbox`, `radio`, `switch`, `menuitemcheckbox` or `menuitemradio` (state from
//! `aria-checked`), and custom elements with a boolean `checked` property. Anything else is
//! `not_checkable`; so is `uncheck` on a radio button (check another one of its group).
//!
//! Already in the asked state: nothing is clicked, the report says `already_in_state`.
//! Otherwise it is clicked through the click path (a native input that is visually hidden, as
//! custom-styled checkboxes are, is clicked through its first visible `<label>`), and the new
//! state is read back: still unchanged is `state_not_changed`.

use web_sys::Element;

use super::click::{Interior, checked_state, click_found};
use super::{Target, find, retry};
use crate::dom::describe::describe;
use crate::dom::error::ActionError;
use crate::dom::js;
use crate::dom::report::{ActionReport, Effect, ExecOptions};
use crate::dom::roles::role_of;
use crate::dom::secret::is_secret_choice;
use crate::dom::selector::QueryRoot;
use crate::dom::tree::as_element;
use crate::dom::visibility::{is_disabled, is_visible};

pub(super) async fn run(
    target: Target<'_>,
    wanted: bool,
    options: &ExecOptions,
) -> Result<ActionReport, ActionError> {
    let action = if wanted { "check" } else { "uncheck" };
    // Waiting cures a missing element, not a wrong kind of element: classify inside the retry.
    let ((_, element, state), mut attempts) =
        retry(options, |_| async move { checkable(target, wanted) }).await?;
    let description = describe(&element);
    // A secret group's radio button is pressed whatever its state: "already checked" would tell
    // the model which one the user chose.
    let secret_choice = is_secret_choice(&element);
    if state == wanted && !secret_choice {
        return Ok(ActionReport {
            action,
            element: Some(description),
            effects: vec![Effect::AlreadyInState { checked: state }],
            attempts,
            elapsed_ms: 0,
            data: None,
        });
    }
    // Only the control, its label, or plain content in them: never a link in the label.
    let (_, mut effects, more) = click_found(options, Interior::Plain, &|| {
        let (root, element, _) = checkable(target, wanted)?;
        // A disabled control's label is clickable but changes nothing: say why up front.
        if is_disabled(&element) {
            return Err(ActionError::Disabled {
                element: describe(&element),
            });
        }
        let target = click_target(&element);
        Ok((root, target))
    })
    .await?;
    attempts += more;
    let now = current_state(&element);
    if now != Some(wanted) {
        return Err(ActionError::StateNotChanged {
            element: description,
            wanted,
        });
    }
    if secret_choice {
        effects.retain(|e| !matches!(e, Effect::CheckedChanged { .. } | Effect::NothingObservable));
        effects.insert(0, Effect::CheckedChanged { checked: wanted });
    } else if !effects
        .iter()
        .any(|e| matches!(e, Effect::CheckedChanged { .. }))
    {
        // The click may have gone to a label: report the state of the control itself.
        effects.retain(|e| !matches!(e, Effect::NothingObservable));
        effects.insert(0, Effect::CheckedChanged { checked: wanted });
    }
    Ok(ActionReport {
        action,
        element: Some(description),
        effects,
        attempts,
        elapsed_ms: 0,
        data: None,
    })
}

/// Resolves the selector to a checkable element and its state.
fn checkable(target: Target<'_>, wanted: bool) -> Result<(QueryRoot, Element, bool), ActionError> {
    let (root, found) = find(target)?;
    let element = super::label_control_or_self(found);
    let Some(state) = current_state(&element) else {
        return Err(ActionError::NotCheckable {
            element: describe(&element),
            hint: "it is not a checkbox, radio button or switch; use click for buttons and links"
                .to_owned(),
        });
    };
    if !wanted && is_radio(&element) {
        return Err(ActionError::NotCheckable {
            element: describe(&element),
            hint: "a radio button cannot be unchecked; check another option of its group"
                .to_owned(),
        });
    }
    Ok((root, element, state))
}

fn is_radio(element: &Element) -> bool {
    let native = element.local_name() == "input"
        && element
            .get_attribute("type")
            .is_some_and(|t| t.eq_ignore_ascii_case("radio"));
    native || matches!(role_of(element).as_deref(), Some("radio" | "menuitemradio"))
}

/// The checked state, or `None` when the element is not checkable.
pub(super) fn current_state(element: &Element) -> Option<bool> {
    let tag = element.local_name();
    if tag == "input" {
        let input_type = element
            .get_attribute("type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        return matches!(input_type.as_str(), "checkbox" | "radio")
            .then(|| js::get_bool(element, "checked").unwrap_or(false));
    }
    let role = role_of(element);
    let checkable_role = matches!(
        role.as_deref(),
        Some("checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio")
    );
    if tag.contains('-') {
        if let Some(checked) = js::get_bool(element, "checked") {
            return Some(checked);
        }
    }
    if checkable_role {
        return checked_state(element).or(Some(false));
    }
    None
}

/// The element `check` clicks for what its selector found (a label stands for its control):
/// what the review judges as pressed.
pub fn check_click_target(found: &Element) -> Element {
    click_target(&super::label_control_or_self(found.clone()))
}

/// The element to click: the control itself, or for a visually hidden native input its first
/// visible label.
fn click_target(element: &Element) -> Element {
    if element.local_name() != "input" || is_visible(element) {
        return element.clone();
    }
    let labels = js::get(element, "labels");
    let length = js::get(&labels, "length").as_f64().unwrap_or(0.0) as u32;
    for i in 0..length {
        let label = js::get(&labels, &i.to_string());
        if let Some(label) = as_element(&label) {
            if is_visible(label) {
                return label.clone();
            }
        }
    }
    element.clone()
}
