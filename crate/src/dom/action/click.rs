//! `click`: wait until the target is attached, visible, enabled and stable; scroll it into view;
//! hit-test the middle of its visible box (through shadow roots) and fail with `covered` when
//! something else is on top; dispatch the pointer/mouse/focus/click sequence Playwright's
//! synthetic backend sends; report what the click caused.
//!
//! A link, button or other control that the review did not judge never takes the click in
//! place of the target, even inside it, inside its label or inside the button around it: the
//! click goes to another point where only the target or plain content is, or fails `covered`
//! ([`Interior`]).

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{
    Document, Element, Event, EventTarget, MouseEvent, MouseEventInit, PointerEvent,
    PointerEventInit, Window,
};

use super::{
    Target, check_actionable, check_stable, find, focus, retry, script_error, scroll_into_view,
};
use crate::dom::describe::describe;
use crate::dom::error::ActionError;
use crate::dom::focus;
use crate::dom::js;
use crate::dom::report::{ActionReport, Effect, ExecOptions};
use crate::dom::review::{acts_on_click, label_control};
use crate::dom::secret::note_pressed;
use crate::dom::selector::QueryRoot;
use crate::dom::tree::{ShadowAccess, as_element, as_shadow_root, event_contains, event_parent};

pub(super) async fn run(
    target: Target<'_>,
    options: &ExecOptions,
) -> Result<ActionReport, ActionError> {
    // The review judged what is under the pointer at the middle of this very element, checked
    // again right before the press: any control inside it may take the click.
    let (element, effects, attempts) =
        click_found(options, Interior::Any, &|| find(target)).await?;
    let description = describe(&element);
    Ok(ActionReport {
        action: "click",
        element: Some(description),
        effects,
        attempts,
        elapsed_ms: 0,
        data: None,
    })
}

/// Which elements inside the clicked element may take the click.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Interior {
    /// Any element inside it: the review judged what is under the pointer at this very point
    /// (`click` on the element it reviewed), or the pointer activates nothing (`hover`).
    Any,
    /// Only the element itself and plain content inside it (text, a span, an icon): the review
    /// judged the element, not a link or button inside it (`check` through a label, an option
    /// or an opener of a custom list).
    Plain,
}

/// Clicks the element `finder` returns (called afresh on every attempt) through the whole click
/// path: actionability, scrolling, hit test, events. Returns the element, the effects and the
/// number of attempts. `check` and ARIA `select_option` click through this too.
pub(super) fn click_found<'a>(
    options: &'a ExecOptions,
    interior: Interior,
    finder: &'a dyn Fn() -> Result<(QueryRoot, Element), ActionError>,
) -> Clicked<'a> {
    // One boxed, non-generic future for every caller (click, check, select_option's options
    // and openers): its poll function is compiled once instead of inlined into each.
    Box::pin(async move {
        let ((element, hit, point), attempts) =
            retry(options, |attempt| prepare(finder, attempt, interior)).await?;
        let effects = press(&element, &hit, point).await?;
        Ok((element, effects, attempts))
    })
}

/// What [`click_found`] resolves to: the element, the effects and the number of attempts.
pub(super) type Clicked<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<(Element, Vec<Effect>, u32), ActionError>> + 'a>,
>;

/// One attempt: find, check, scroll, hit-test. Returns the target, the element that receives
/// the events and the point.
async fn prepare(
    finder: &dyn Fn() -> Result<(QueryRoot, Element), ActionError>,
    attempt: u32,
    interior: Interior,
) -> Result<(Element, Element, (f64, f64)), ActionError> {
    let (root, element) = finder()?;
    if element.local_name() == "option" {
        return Err(ActionError::UnsupportedElement {
            element: describe(&element),
            hint: "options of a drop-down cannot be clicked; use select_option on the <select> with the option's label".to_owned(),
        });
    }
    let (hit, point) = pointer_target(&root, &element, attempt, interior).await?;
    // The page had frames to change things while the element settled: look again, with nothing
    // awaited between this look and the press (a reviewed element is checked against its
    // review here, with what is under the pointer now).
    let (_, now) = finder()?;
    if now != element {
        return Err(ActionError::Detached {
            element: describe(&element),
        });
    }
    Ok((element, hit, point))
}

/// Actionable, stable, scrolled into view, and not covered: the element under the pointer at
/// the middle of `element`'s visible box, and that point (shared with `hover`). When a control
/// nobody reviewed is there (a link in the label, say), another point of the element where
/// only it or plain content is, or `covered`.
pub(super) async fn pointer_target(
    root: &QueryRoot,
    element: &Element,
    attempt: u32,
    interior: Interior,
) -> Result<(Element, (f64, f64)), ActionError> {
    check_actionable(element)?;
    check_stable(element).await?;
    scroll_into_view(element, attempt);
    let point = visible_center(element)?;
    let nested = match hit_target(&root.shadow, element, point, interior) {
        Ok(hit) => return Ok((hit, point)),
        Err(Refused::Nested(nested)) => nested,
        Err(Refused::Failed(error)) => return Err(error),
    };
    // Away from the middle, nothing was reviewed but the element itself: only plain content.
    for other in plain_points(&root.shadow, element) {
        if let Ok(hit) = hit_target(&root.shadow, element, other, Interior::Plain) {
            return Ok((hit, other));
        }
    }
    Err(ActionError::Covered {
        element: describe(element),
        by: describe(&nested),
    })
}

/// Why the element under the pointer may not take the click.
enum Refused {
    /// A control inside the target (or inside its label or the button around it) that the
    /// review did not judge.
    Nested(Element),
    /// Something else is there, or nothing is (the error to report).
    Failed(ActionError),
}

/// Most points [`plain_points`] offers.
const MAX_PLAIN_POINTS: usize = 24;

/// Other points of `element`'s visible box to press instead of its middle: first the middle
/// of each line of its own text (outside any control inside it), then a grid over its box.
fn plain_points(shadow: &ShadowAccess, element: &Element) -> Vec<(f64, f64)> {
    let Ok(window) = window_of(element) else {
        return Vec::new();
    };
    let size = |value: Result<JsValue, JsValue>| value.ok().and_then(|v| v.as_f64());
    let width = size(window.inner_width()).unwrap_or(0.0);
    let height = size(window.inner_height()).unwrap_or(0.0);
    let inside = |(x, y): (f64, f64)| x >= 0.0 && y >= 0.0 && x < width && y < height;
    let mut points = Vec::new();
    if let Some(document) = element.owner_document() {
        for text in plain_text_nodes(shadow, element) {
            let Ok(range) = document.create_range() else {
                break;
            };
            if range.select_node_contents(&text).is_err() {
                continue;
            }
            // One box per line the text runs over.
            let Ok(Some(rects)) = js::call(range.as_ref(), "getClientRects", &[]) else {
                continue;
            };
            let length = js::get(&rects, "length").as_f64().unwrap_or(0.0) as u32;
            for i in 0..length.min(8) {
                let rect = js::get(&rects, &i.to_string());
                if !rect.is_object() {
                    continue;
                }
                let rect = rect.unchecked_into::<web_sys::DomRect>();
                let point = (
                    rect.left() + rect.width() / 2.0,
                    rect.top() + rect.height() / 2.0,
                );
                if rect.width() > 0.0 && inside(point) && points.len() < MAX_PLAIN_POINTS {
                    points.push(point);
                }
            }
        }
    }
    let rect = element.get_bounding_client_rect();
    let (left, right) = (rect.left().max(0.0), rect.right().min(width));
    let (top, bottom) = (rect.top().max(0.0), rect.bottom().min(height));
    for row in [0.5, 0.25, 0.75] {
        for column in [0.1, 0.3, 0.5, 0.7, 0.9] {
            let point = (left + (right - left) * column, top + (bottom - top) * row);
            if right > left && bottom > top && points.len() < MAX_PLAIN_POINTS {
                points.push(point);
            }
        }
    }
    points
}

/// The text nodes with something to read inside `element` (its open shadow root included), not
/// inside a link, button or other control in it.
fn plain_text_nodes(shadow: &ShadowAccess, element: &Element) -> Vec<web_sys::Node> {
    let mut found = Vec::new();
    let mut stack: Vec<web_sys::Node> = Vec::new();
    let push_from = |stack: &mut Vec<web_sys::Node>, el: &Element| {
        if let Some(root) = shadow.shadow_root(el) {
            stack.extend(crate::dom::tree::children(root.as_ref()).into_iter().rev());
        }
        stack.extend(crate::dom::tree::children(el.as_ref()).into_iter().rev());
    };
    push_from(&mut stack, element);
    let mut visited = 0;
    while let Some(node) = stack.pop() {
        visited += 1;
        if visited > 500 || found.len() >= MAX_PLAIN_POINTS {
            break;
        }
        if node.node_type() == web_sys::Node::TEXT_NODE {
            if node
                .text_content()
                .is_some_and(|text| !text.trim().is_empty())
            {
                found.push(node);
            }
            continue;
        }
        if let Some(el) = as_element(node.as_ref()) {
            if !acts_on_click(el) {
                push_from(&mut stack, el);
            }
        }
    }
    found
}

/// The middle of the part of the element's box inside its viewport.
fn visible_center(element: &Element) -> Result<(f64, f64), ActionError> {
    let window = window_of(element)?;
    let width = window
        .inner_width()
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0);
    let height = window
        .inner_height()
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0);
    let rect = element.get_bounding_client_rect();
    let left = rect.left().max(0.0);
    let right = rect.right().min(width);
    let top = rect.top().max(0.0);
    let bottom = rect.bottom().min(height);
    if right <= left || bottom <= top {
        return Err(ActionError::NotVisible {
            element: describe(element),
        });
    }
    Ok(((left + right) / 2.0, (top + bottom) / 2.0))
}

pub(super) fn window_of(element: &Element) -> Result<Window, ActionError> {
    element
        .owner_document()
        .and_then(|d| d.default_view())
        .ok_or_else(|| ActionError::Detached {
            element: describe(element),
        })
}

/// The deepest element at `point` (descending through shadow roots); it must be the target, in
/// the target, in the same button or link as the target, or in a label of the target. Inside
/// the button or link or the label, and inside the target unless `interior` is
/// [`Interior::Any`], only plain content may take the click ([`plain_within`]).
fn hit_target(
    shadow: &ShadowAccess,
    target: &Element,
    point: (f64, f64),
    interior: Interior,
) -> Result<Element, Refused> {
    let Some(document) = target.owner_document() else {
        return Err(Refused::Failed(ActionError::Detached {
            element: describe(target),
        }));
    };
    let Some(mut hit) = first_at(&document.elements_from_point(point.0 as f32, point.1 as f32))
    else {
        return Err(Refused::Failed(ActionError::NotVisible {
            element: describe(target),
        }));
    };
    // Descend through shadow roots: the document only reports the host.
    for _ in 0..32 {
        let Some(root) = shadow.shadow_root(&hit) else {
            break;
        };
        match first_at(&root.elements_from_point(point.0 as f32, point.1 as f32)) {
            Some(inner) if inner != hit => hit = inner,
            _ => break,
        }
    }
    if event_contains(target, &hit) {
        if interior == Interior::Plain {
            plain_within(&hit, target, target)?;
        }
        return Ok(hit);
    }
    if let Some(control_of) = button_or_link(target) {
        if event_contains(&control_of, &hit) {
            plain_within(&hit, &control_of, target)?;
            return Ok(hit);
        }
    }
    if let Some(label) = label_of(&hit, target) {
        plain_within(&hit, &label, target)?;
        return Ok(hit);
    }
    // A shadow root we may not open: the document can only report its host.
    if hosts_closed_root_of(&hit, target) {
        return Ok(target.clone());
    }
    Err(Refused::Failed(ActionError::Covered {
        element: describe(target),
        by: describe(&hit),
    }))
}

/// `Ok` when nothing from `hit` up to `container` (not included) does anything of its own on a
/// click but `target`: plain content, the target itself, a label of the target or of a control
/// inside it (a web component's own label), and, when the target is a label, its control.
/// Anything else (a link in a label, a button in a link) would do what nobody reviewed.
fn plain_within(hit: &Element, container: &Element, target: &Element) -> Result<(), Refused> {
    let target_control = label_control(target);
    let serves_target = |control: &Element| {
        event_contains(target, control) || target_control.as_ref() == Some(control)
    };
    let mut current = Some(hit.clone());
    for _ in 0..MAX_PLAIN_DEPTH {
        let Some(element) = current else {
            break;
        };
        if element == *container {
            return Ok(());
        }
        let plain = element == *target
            || !acts_on_click(&element)
            || target_control.as_ref() == Some(&element)
            || label_control(&element).is_some_and(|control| serves_target(&control));
        if !plain {
            return Err(Refused::Nested(element));
        }
        current = event_parent(&element);
    }
    // Fail closed: a control further up than this walk goes would take the click unjudged.
    Err(Refused::Nested(hit.clone()))
}

/// Most ancestors [`plain_within`] walks from the hit to its container.
const MAX_PLAIN_DEPTH: usize = 20_000;

fn first_at(array: &js_sys::Array) -> Option<Element> {
    array.iter().find_map(|v| as_element(&v).cloned())
}

/// Whether `host` is the shadow host of one of the (closed) shadow roots `target` lives in.
fn hosts_closed_root_of(host: &Element, target: &Element) -> bool {
    let mut root = target.get_root_node();
    for _ in 0..32 {
        let Some(shadow) = as_shadow_root(&root) else {
            return false;
        };
        let owner = shadow.host();
        if &owner == host {
            return true;
        }
        root = owner.get_root_node();
    }
    false
}

/// The nearest button or link around `element` (itself included).
fn button_or_link(element: &Element) -> Option<Element> {
    let mut current = Some(element.clone());
    while let Some(el) = current {
        let tag = el.local_name();
        let role = el.get_attribute("role").unwrap_or_default();
        if tag == "button"
            || (tag == "a" && el.has_attribute("href"))
            || role == "button"
            || role == "link"
        {
            return Some(el);
        }
        current = event_parent(&el);
    }
    None
}

/// The `<label>` around `hit` whose control is `target` (clicking it clicks the target).
fn label_of(hit: &Element, target: &Element) -> Option<Element> {
    let mut current = Some(hit.clone());
    while let Some(el) = current {
        if el.local_name() == "label" {
            return (label_control(&el).as_ref() == Some(target)).then_some(el);
        }
        current = event_parent(&el);
    }
    None
}

/// What the page looked like before the click, to tell what changed.
struct Before {
    href: String,
    focused: bool,
    checked: Option<bool>,
    expanded: Option<bool>,
}

pub(super) fn checked_state(element: &Element) -> Option<bool> {
    let tag = element.local_name();
    if tag == "input" || tag.contains('-') {
        if let Some(checked) = js::get_bool(element, "checked") {
            return Some(checked);
        }
    }
    element.get_attribute("aria-checked").map(|v| v == "true")
}

fn expanded_state(element: &Element) -> Option<bool> {
    element.get_attribute("aria-expanded").map(|v| v == "true")
}

/// Dispatches the event sequence at `point` on `hit` (which is `target` or inside it) and
/// reports the effects.
async fn press(
    target: &Element,
    hit: &Element,
    point: (f64, f64),
) -> Result<Vec<Effect>, ActionError> {
    let window = window_of(target)?;
    let document = window.document().ok_or_else(|| ActionError::Detached {
        element: describe(target),
    })?;
    let secret_choice = note_pressed(target);
    let before = Before {
        href: window.location().href().unwrap_or_default(),
        focused: focus_within(&document, target),
        checked: checked_state(target),
        expanded: expanded_state(target),
    };
    let watch = Watch::start(&window, &document);
    // A background tab fires no focus events: the page's own focus() calls in its handlers are
    // told after each event (see crate::dom::focus).
    focus::baseline(&document);

    let events = Sequence {
        window: window.clone(),
        point,
    };
    let hit_target: &EventTarget = hit.as_ref();
    events.pointer(hit_target, "pointerover", 0, 0)?;
    events.mouse(hit_target, "mouseover", 0, 0)?;
    events.pointer(hit_target, "pointerenter", 0, 0)?;
    events.mouse(hit_target, "mouseenter", 0, 0)?;
    events.pointer(hit_target, "pointermove", 0, 0)?;
    events.mouse(hit_target, "mousemove", 0, 0)?;
    let pointer_down_ok = events.pointer(hit_target, "pointerdown", 0, 1)?;
    let mouse_down_ok = if pointer_down_ok {
        events.mouse(hit_target, "mousedown", 1, 1)?
    } else {
        true
    };
    focus::sync(&document);
    if mouse_down_ok && hit.is_connected() {
        focus_for_click(hit);
    }
    events.pointer(hit_target, "pointerup", 0, 0)?;
    if pointer_down_ok {
        events.mouse(hit_target, "mouseup", 1, 0)?;
    }
    let click_target: &EventTarget = if hit.is_connected() {
        hit_target
    } else {
        target.as_ref()
    };
    let not_canceled = events.mouse(click_target, "click", 1, 0)?;
    // A label's click focuses its control; a handler may move focus.
    focus::sync(&document);

    // Let frameworks flush their state updates and the browser start navigations.
    js::next_frame().await;

    let mut effects = Vec::new();
    let observed = watch.stop();
    let href_after = window.location().href().unwrap_or_default();
    if observed.unloading || href_after != before.href {
        effects.push(Effect::NavigationStarted {
            url: Some(href_after),
        });
    } else if not_canceled {
        if let Some(url) = followed_link(hit) {
            effects.push(Effect::NavigationStarted { url: Some(url) });
        }
    }
    if let Some(handled_by_script) = observed.submitted {
        effects.push(Effect::FormSubmitted { handled_by_script });
    }
    if !target.is_connected() {
        effects.push(Effect::ElementDetached);
    } else {
        let checked = checked_state(target);
        if secret_choice {
            // Whether a secret group's radio button was the checked one is the secret: the
            // report says it is checked now, alike whether the press changed it.
            if checked == Some(true) {
                effects.push(Effect::CheckedChanged { checked: true });
            }
        } else if let (Some(after), Some(was)) = (checked, before.checked) {
            if after != was {
                effects.push(Effect::CheckedChanged { checked: after });
            }
        }
        let expanded = expanded_state(target);
        if let (Some(after), Some(was)) = (expanded, before.expanded) {
            if after != was {
                effects.push(Effect::ExpandedChanged { expanded: after });
            }
        }
    }
    if !before.focused && target.is_connected() && focus_within(&document, target) {
        effects.push(Effect::Focused);
    }
    if observed.mutations > 0 {
        effects.push(Effect::DomChanged {
            mutations: observed.mutations,
        });
    }
    if effects.is_empty() {
        effects.push(Effect::NothingObservable);
    }
    Ok(effects)
}

/// Whether keyboard focus is on `target` or inside it (through shadow roots).
pub(super) fn focus_within(document: &Document, target: &Element) -> bool {
    let mut active = document.active_element();
    // The document reports a shadow host; descend to the focused element inside.
    for _ in 0..32 {
        let Some(current) = active.clone() else {
            return false;
        };
        let inner = current.shadow_root().and_then(|root| root.active_element());
        match inner {
            Some(inner) if inner != current => active = Some(inner),
            _ => break,
        }
    }
    active.is_some_and(|a| event_contains(target, &a))
}

/// The URL a click on `hit` follows, if it is inside a link that navigates away.
fn followed_link(hit: &Element) -> Option<String> {
    let link = hit.closest("a[href]").ok().flatten()?;
    if link.has_attribute("download") {
        return None;
    }
    let href = js::get_string(&link, "href")?;
    if href.starts_with("javascript:") {
        None
    } else {
        Some(href)
    }
}

/// A synthetic mousedown does not move focus: focus the nearest focusable element ourselves, or,
/// when nothing around the hit point can take focus, give focus back to the document (the
/// focused field is blurred, as by a user's click elsewhere).
fn focus_for_click(hit: &Element) {
    let mut current = Some(hit.clone());
    while let Some(el) = current {
        if is_focusable(&el) || delegates_focus(&el) {
            focus(&el);
            return;
        }
        current = event_parent(&el);
    }
    if let Some(document) = hit.owner_document() {
        focus::release_focus(&document);
    }
}

/// A shadow host whose open root delegates focus to its first focusable element.
fn delegates_focus(element: &Element) -> bool {
    element
        .shadow_root()
        .is_some_and(|root| js::get_bool(&root, "delegatesFocus").unwrap_or(false))
}

pub(super) fn is_focusable(element: &Element) -> bool {
    let tag = element.local_name();
    let natively = match tag.as_str() {
        "button" | "select" | "textarea" => !element.has_attribute("disabled"),
        "input" => {
            !element.has_attribute("disabled")
                && element.get_attribute("type").as_deref() != Some("hidden")
        }
        "a" | "area" => element.has_attribute("href"),
        "summary" | "iframe" => true,
        _ => false,
    };
    natively
        || element.has_attribute("tabindex")
        || element
            .get_attribute("contenteditable")
            .is_some_and(|v| v != "false")
}

/// Builds and dispatches the events of one click.
pub(super) struct Sequence {
    pub(super) window: Window,
    pub(super) point: (f64, f64),
}

impl Sequence {
    fn mouse_init(&self, init: &MouseEventInit, kind: &str, detail: i32, buttons: u16) {
        let bubbles = !matches!(
            kind,
            "mouseenter" | "mouseleave" | "pointerenter" | "pointerleave"
        );
        js::put(init, "bubbles", &bubbles.into());
        js::put(init, "cancelable", &bubbles.into());
        js::put(init, "composed", &JsValue::TRUE);
        js::put(init, "view", &self.window);
        js::put(init, "detail", &detail.into());
        js::put(init, "button", &0.into());
        js::put(init, "buttons", &buttons.into());
        let (x, y) = self.point;
        js::put(init, "clientX", &(x as i32).into());
        js::put(init, "clientY", &(y as i32).into());
        let screen_x = self
            .window
            .screen_x()
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        let screen_y = self
            .window
            .screen_y()
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        js::put(init, "screenX", &((x + screen_x) as i32).into());
        js::put(init, "screenY", &((y + screen_y) as i32).into());
    }

    /// Dispatches a mouse event; returns false when a listener canceled it.
    pub(super) fn mouse(
        &self,
        target: &EventTarget,
        kind: &str,
        detail: i32,
        buttons: u16,
    ) -> Result<bool, ActionError> {
        let init = MouseEventInit::new();
        self.mouse_init(&init, kind, detail, buttons);
        let event = MouseEvent::new_with_mouse_event_init_dict(kind, &init)
            .map_err(|e| script_error(&e))?;
        target.dispatch_event(&event).map_err(|e| script_error(&e))
    }

    /// Dispatches a pointer event; returns false when a listener canceled it.
    pub(super) fn pointer(
        &self,
        target: &EventTarget,
        kind: &str,
        detail: i32,
        buttons: u16,
    ) -> Result<bool, ActionError> {
        let init = PointerEventInit::new();
        self.mouse_init(init.unchecked_ref(), kind, detail, buttons);
        js::put(&init, "pointerId", &1.into());
        js::put(&init, "pointerType", &"mouse".into());
        js::put(&init, "isPrimary", &JsValue::TRUE);
        js::put(&init, "width", &1.into());
        js::put(&init, "height", &1.into());
        if kind == "pointerdown" {
            js::put(&init, "pressure", &0.5.into());
        }
        let event =
            PointerEvent::new_with_event_init_dict(kind, &init).map_err(|e| script_error(&e))?;
        target.dispatch_event(&event).map_err(|e| script_error(&e))
    }
}

/// What happened on the page while the click ran.
#[derive(Debug, Default)]
pub(super) struct Observed {
    pub(super) unloading: bool,
    pub(super) submitted: Option<bool>,
    pub(super) mutations: u32,
}

/// Listeners and a mutation observer installed around a click; removed by [`Watch::stop`].
pub(super) struct Watch {
    window: Window,
    state: Rc<RefCell<(bool, Option<Event>)>>,
    on_unload: Closure<dyn FnMut(Event)>,
    on_submit: Closure<dyn FnMut(Event)>,
    observer: Option<web_sys::MutationObserver>,
    delivered: Rc<std::cell::Cell<u32>>,
    _on_mutation: Closure<dyn FnMut(JsValue, JsValue)>,
}

impl Watch {
    pub(super) fn start(window: &Window, document: &Document) -> Self {
        let state = Rc::new(RefCell::new((false, None)));
        let unload_state = state.clone();
        let on_unload = Closure::<dyn FnMut(Event)>::new(move |_event: Event| {
            if let Ok(mut s) = unload_state.try_borrow_mut() {
                s.0 = true;
            }
        });
        let submit_state = state.clone();
        let on_submit = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            if let Ok(mut s) = submit_state.try_borrow_mut() {
                s.1 = Some(event);
            }
        });
        let _ = window
            .add_event_listener_with_callback("beforeunload", on_unload.as_ref().unchecked_ref());
        // Bubble phase on the window: page handlers on the form have run by then.
        let _ =
            window.add_event_listener_with_callback("submit", on_submit.as_ref().unchecked_ref());
        let delivered = Rc::new(std::cell::Cell::new(0_u32));
        let counter = delivered.clone();
        let on_mutation =
            Closure::<dyn FnMut(JsValue, JsValue)>::new(move |records: JsValue, _: JsValue| {
                let count = records
                    .dyn_ref::<js_sys::Array>()
                    .map_or(0, js_sys::Array::length);
                counter.set(counter.get().saturating_add(count));
            });
        let observer = web_sys::MutationObserver::new(on_mutation.as_ref().unchecked_ref()).ok();
        if let Some(observer) = &observer {
            let init = web_sys::MutationObserverInit::new();
            for field in ["subtree", "childList", "attributes", "characterData"] {
                js::put(&init, field, &JsValue::TRUE);
            }
            let _ = observer.observe_with_options(document, &init);
        }
        Self {
            window: window.clone(),
            state,
            on_unload,
            on_submit,
            observer,
            delivered,
            _on_mutation: on_mutation,
        }
    }

    pub(super) fn stop(self) -> Observed {
        let _ = self.window.remove_event_listener_with_callback(
            "beforeunload",
            self.on_unload.as_ref().unchecked_ref(),
        );
        let _ = self
            .window
            .remove_event_listener_with_callback("submit", self.on_submit.as_ref().unchecked_ref());
        let mutations = match &self.observer {
            Some(observer) => {
                let records = observer.take_records().length();
                observer.disconnect();
                records.saturating_add(self.delivered.get())
            }
            None => 0,
        };
        let (unloading, submit) = match self.state.try_borrow() {
            Ok(s) => (s.0, s.1.clone()),
            Err(_) => (false, None),
        };
        Observed {
            unloading,
            submitted: submit.map(|e| e.default_prevented()),
            mutations,
        }
    }
}
