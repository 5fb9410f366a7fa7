//! `hover`: move the pointer over the element, for menus and tooltips that open on hover.
//!
//! Same preparation as `click` (actionable, stable, scrolled into view, not covered; the point
//! is the middle of its visible box). Then, at that point: `pointerover` / `mouseover` on the
//! element under the pointer, `pointerenter` / `mouseenter` on it and every ancestor up to (not
//! including) `<body>`, outermost first, as a pointer arriving from outside does (these events do
//! not bubble, and menus often listen on the container), then `pointermove` / `mousemove`.
//! Nothing is sent to the element hovered before: the page sees the pointer arrive, not leave.

use web_sys::{Element, EventTarget};

use super::click::{Interior, Sequence, Watch, pointer_target, window_of};
use super::{Target, find, retry};
use crate::dom::describe::describe;
use crate::dom::error::ActionError;
use crate::dom::js;
use crate::dom::report::{ActionReport, Effect, ExecOptions};
use crate::dom::tree::event_parent;

pub(super) async fn run(
    target: Target<'_>,
    options: &ExecOptions,
) -> Result<ActionReport, ActionError> {
    let ((element, hit, point), attempts) = retry(options, |attempt| async move {
        let (root, element) = find(target)?;
        // Hovering activates nothing: anything inside the element may be under the pointer.
        let (hit, point) = pointer_target(&root, &element, attempt, Interior::Any).await?;
        Ok((element, hit, point))
    })
    .await?;
    let description = describe(&element);
    let window = window_of(&element)?;
    let document = window.document().ok_or_else(|| ActionError::Detached {
        element: description.clone(),
    })?;
    let expanded_before = element.get_attribute("aria-expanded");
    let watch = Watch::start(&window, &document);
    let events = Sequence { window, point };
    let hit_target: &EventTarget = hit.as_ref();
    events.pointer(hit_target, "pointerover", 0, 0)?;
    events.mouse(hit_target, "mouseover", 0, 0)?;
    for entered in entered_chain(&hit) {
        events.pointer(entered.as_ref(), "pointerenter", 0, 0)?;
        events.mouse(entered.as_ref(), "mouseenter", 0, 0)?;
    }
    events.pointer(hit_target, "pointermove", 0, 0)?;
    events.mouse(hit_target, "mousemove", 0, 0)?;
    // Let the page open its menu (frameworks flush state on the next frame).
    js::next_frame().await;
    let observed = watch.stop();
    let mut effects = vec![Effect::Hovered];
    let expanded_after = element.get_attribute("aria-expanded");
    if expanded_after != expanded_before {
        if let Some(after) = expanded_after {
            effects.push(Effect::ExpandedChanged {
                expanded: after == "true",
            });
        }
    }
    if observed.mutations > 0 {
        effects.push(Effect::DomChanged {
            mutations: observed.mutations,
        });
    }
    Ok(ActionReport {
        action: "hover",
        element: Some(description),
        effects,
        attempts,
        elapsed_ms: 0,
        data: None,
    })
}

/// `hit` and its composed ancestors below `<body>`, outermost first.
fn entered_chain(hit: &Element) -> Vec<Element> {
    let mut chain = Vec::new();
    let mut current = Some(hit.clone());
    while let Some(element) = current {
        if matches!(element.local_name().as_str(), "body" | "html") {
            break;
        }
        current = event_parent(&element);
        chain.push(element);
    }
    chain.reverse();
    chain
}
