//! Actions on the live page: one file per action, all run through [`execute`].
//!
//! Element actions get their element through [`find`] on every attempt, check actionability,
//! act, and verify. Run by [`execute`], they resolve their selector afresh each time (a
//! re-rendered element is found again); run by [`execute_on`] with a [`Pinned`] element (the
//! one the safety review looked at), they act on exactly that element, checked against the
//! review before each attempt, and never on whatever the selector matches later. Errors that waiting may cure are retried
//! with back-off 0, 20, 100, 100, 500, 500... ms until the timeout; the last error is returned.

mod assert;
mod check;
mod click;
mod extract;
mod hover;
mod input_text;
mod observe;
mod press_key;
mod screenshot;
mod scroll;
mod select_option;
mod wait;
mod wait_for;

use std::future::Future;

use js_sys::{Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use web_sys::{Element, InputEvent, InputEventInit, KeyboardEvent, KeyboardEventInit};

use super::describe::describe;
use super::error::ActionError;
use super::js;
use super::report::{ActionReport, Effect, ExecOptions};
use super::selector::{QueryRoot, resolve};
use super::visibility::{is_disabled, is_visible};
use crate::protocol::{Action, Selector};

pub use check::check_click_target;
pub use input_text::{field_for, targets_password_explicitly};
pub use press_key::{KeyChoice, activation_target, enter_left_to_page, key_choice};
pub use select_option::option_preview;

/// One action's run, boxed: each action's future keeps its own poll function instead of all of
/// them being inlined into one state machine for `execute_on`.
type Run<'a> = std::pin::Pin<Box<dyn Future<Output = Result<ActionReport, ActionError>> + 'a>>;

/// Back-off between attempts, in milliseconds; the last value repeats.
const BACKOFF_MS: [u32; 5] = [0, 20, 100, 100, 500];

/// What the review saw, checked again before an action acts on its pinned element. Implemented
/// by the layer that reviewed it (the bindings), so this module knows nothing of the policy.
pub trait Reviewed {
    /// `Ok` when `element` (the pinned element, now) is still what was reviewed or needs no
    /// question of its own; else why not (`target_changed`).
    fn recheck(&self, element: &Element) -> Result<(), ActionError>;
    /// `Ok` when choosing the option named `name` (seen only once a custom list opened) is what
    /// was reviewed or needs no question of its own.
    fn recheck_option(&self, name: &str) -> Result<(), ActionError>;
}

/// The element the review resolved, to be acted on instead of resolving the selector again.
#[derive(Clone, Copy)]
pub struct Pinned<'a> {
    /// What the selector found at review time (before a label or web component stands for its
    /// control, which the action does as usual).
    pub element: &'a Element,
    /// The review, checked again before each attempt.
    pub reviewed: &'a dyn Reviewed,
}

impl std::fmt::Debug for Pinned<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pinned")
            .field("element", &describe(self.element))
            .finish_non_exhaustive()
    }
}

/// What an element action acts on: its selector, and the pinned element when it was reviewed.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The selector the model wrote (still used for what it says, e.g. whether it names a
    /// password field on purpose).
    pub selector: &'a Selector,
    /// Exactly this element, or `None` to resolve the selector on every attempt.
    pub pinned: Option<Pinned<'a>>,
}

impl<'a> Target<'a> {
    /// The selector, resolved afresh on every attempt.
    pub fn selector(selector: &'a Selector) -> Self {
        Self {
            selector,
            pinned: None,
        }
    }
}

/// Performs `action` on the current page, resolving its selector on every attempt.
pub async fn execute(action: &Action, options: &ExecOptions) -> Result<ActionReport, ActionError> {
    execute_on(action, None, options).await
}

/// Performs `action` on the current page; with `pinned`, element actions act on exactly that
/// element (for `press_key` without a selector, the caller checked it is the focused one).
pub async fn execute_on(
    action: &Action,
    pinned: Option<Pinned<'_>>,
    options: &ExecOptions,
) -> Result<ActionReport, ActionError> {
    let target = |selector| Target { selector, pinned };
    let started = js::now_ms();
    #[allow(
        unreachable_patterns,
        reason = "the protocol layer may add actions before they are implemented here"
    )]
    let run: Run<'_> = match action {
        Action::Click { selector } => Box::pin(click::run(target(selector), options)),
        Action::InputText { selector, text } => {
            Box::pin(input_text::run(target(selector), text, options))
        }
        Action::Wait { ms } => Box::pin(wait::run(*ms)),
        Action::Scroll { x, y } => Box::pin(scroll::run(*x, *y)),
        Action::Observe { max_elements } => {
            Box::pin(std::future::ready(observe::run(*max_elements)))
        }
        Action::Screenshot { max_elements } => {
            Box::pin(std::future::ready(screenshot::run(*max_elements)))
        }
        Action::SelectOption { selector, option } => {
            Box::pin(select_option::run(target(selector), option, options))
        }
        Action::Check { selector } => Box::pin(check::run(target(selector), true, options)),
        Action::Uncheck { selector } => Box::pin(check::run(target(selector), false, options)),
        Action::PressKey { key, selector } => {
            Box::pin(press_key::run(*key, selector.as_ref().map(target), options))
        }
        Action::Hover { selector } => Box::pin(hover::run(target(selector), options)),
        Action::WaitFor { until } => Box::pin(wait_for::run(until, options)),
        Action::Extract {
            selector,
            attribute,
            max_chars,
        } => Box::pin(extract::run(
            selector,
            attribute.as_deref(),
            *max_chars,
            options,
        )),
        Action::Assert { selector, expect } => Box::pin(assert::run(selector, expect, options)),
        // `navigate` is performed by the extension's background (it may load another origin and
        // must check the workflow's scope first); `done` and `more` (the engine writes the next
        // part of a result) are not actions on the page.
        other => Box::pin(std::future::ready(Err(ActionError::NotExecutable {
            action: other.type_name().to_owned(),
        }))),
    };
    // A note left by an action that failed before it was read must not reach this one.
    crate::dom::secret::take_pressed_secret_choice();
    press_key::take_key_on_secret();
    let mut result = run.await;
    // A key on a secret field: how long the page takes to settle after it, and whether it
    // settles, depend on what the field holds (a page reacts to a Backspace only while there is
    // something to delete), so nothing is waited for and nothing of it is reported.
    let key_on_secret = press_key::take_key_on_secret();
    let activating = matches!(
        action,
        Action::Click { .. }
            | Action::PressKey { .. }
            | Action::SelectOption { .. }
            | Action::Check { .. }
            | Action::Uncheck { .. }
    );
    if let (Ok(report), true) = (&mut result, activating && !key_on_secret) {
        super::settle::after(report, options).await;
    }
    // A press on a secret group's radio button: whether the page reacted (it does only when
    // the button was not the checked one), how long it took to settle, where focus went,
    // would each tell which button the user chose. The report keeps only what is the same
    // either way: the key, and that the button is checked now.
    let pressed_secret_choice = crate::dom::secret::take_pressed_secret_choice();
    result.map(|mut report| {
        if pressed_secret_choice || key_on_secret {
            report.effects.retain(|e| {
                matches!(
                    e,
                    Effect::KeyPressed { .. } | Effect::CheckedChanged { checked: true }
                )
            });
            // Whether the page's handler blocked the key's default can depend on what the
            // field holds (Backspace in an empty one-time-code box moves back and blocks it).
            for effect in &mut report.effects {
                if let Effect::KeyPressed {
                    default_prevented, ..
                } = effect
                {
                    *default_prevented = false;
                }
            }
            report.elapsed_ms = 0;
        } else {
            report.elapsed_ms = elapsed_since(started);
        }
        report
    })
}

fn elapsed_since(started: f64) -> u32 {
    let elapsed = (js::now_ms() - started).max(0.0);
    if elapsed > f64::from(u32::MAX) {
        u32::MAX
    } else {
        elapsed as u32
    }
}

/// Runs `attempt` until it succeeds, fails with an error waiting cannot cure, or the timeout
/// passes (then the last error is returned). Returns the value and the number of attempts.
pub(crate) async fn retry<T, F, Fut>(
    options: &ExecOptions,
    mut attempt: F,
) -> Result<(T, u32), ActionError>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<T, ActionError>>,
{
    // Only the attempt is generic: the waiting and the bookkeeping are compiled once, not into
    // each caller's copy of this loop.
    let mut retries = Retries::new(options);
    loop {
        retries.pause().await?;
        match attempt(retries.count).await {
            Ok(value) => return Ok((value, retries.count)),
            Err(error) => retries.failed(error)?,
        }
    }
}

/// The state of a [`retry`] loop.
struct Retries {
    deadline: f64,
    started: super::cancel::Started,
    /// Attempts made so far.
    count: u32,
    last_was_not_found: bool,
}

impl Retries {
    fn new(options: &ExecOptions) -> Self {
        Self {
            deadline: js::now_ms() + f64::from(options.timeout_ms),
            started: super::cancel::Started::now(),
            count: 0,
            last_was_not_found: false,
        }
    }

    /// Waits the back-off before the next attempt (none before the first); `Stopped` when Stop
    /// was pressed meanwhile (no further attempt touches the page). Counts the attempt.
    async fn pause(&mut self) -> Result<(), ActionError> {
        let backoff = BACKOFF_MS.get(self.count as usize).copied().unwrap_or(500);
        if backoff > 0 {
            let remaining = self.deadline - js::now_ms();
            let wait = f64::from(backoff).min(remaining.max(0.0)) as u32;
            if self.last_was_not_found {
                // Waiting for an element to appear: wake up as soon as the DOM changes.
                js::dom_change_or_timeout(wait).await;
            } else {
                js::sleep(wait).await;
            }
        }
        if self.started.is_cancelled() {
            return Err(ActionError::Stopped);
        }
        self.count += 1;
        Ok(())
    }

    /// After a failed attempt: `Ok` to try again (the error is one waiting may cure and there
    /// is time left), else the error to return.
    fn failed(&mut self, error: ActionError) -> Result<(), ActionError> {
        if error.is_retriable() && js::now_ms() < self.deadline {
            self.last_was_not_found = matches!(error, ActionError::NotFound { .. });
            Ok(())
        } else {
            Err(error)
        }
    }
}

/// The current query root, or a script error when there is no document.
pub(crate) fn query_root() -> Result<QueryRoot, ActionError> {
    QueryRoot::current().ok_or_else(|| ActionError::Script {
        detail: "no document".to_owned(),
    })
}

/// The element a key pressed without a selector goes to: the focused element, through
/// same-origin frames and open shadow roots.
pub fn focused_element() -> Option<Element> {
    press_key::active_element(&query_root().ok()?)
}

/// A `<label>` stands for its control (what a click on it would toggle or focus); any other
/// element for itself.
pub(crate) fn label_control_or_self(found: Element) -> Element {
    if found.local_name() == "label" {
        if let Some(control) = super::tree::as_element(&js::get(&found, "control")) {
            return control.clone();
        }
    }
    found
}

/// The element `target` names now: its pinned element, still on the page and still what was
/// reviewed (else `target_changed`, never retried), or its selector resolved afresh.
pub(crate) fn find(target: Target<'_>) -> Result<(QueryRoot, Element), ActionError> {
    let root = query_root()?;
    let Some(pinned) = target.pinned else {
        let element = resolve(&root, target.selector)?;
        return Ok((root, element));
    };
    if !pinned.element.is_connected() {
        return Err(ActionError::TargetChanged {
            element: describe(pinned.element),
            reason: "it left the page (removed or re-rendered)".to_owned(),
        });
    }
    pinned.reviewed.recheck(pinned.element)?;
    Ok((root, pinned.element.clone()))
}

/// Attached, visible and enabled, or the reason why not.
pub(crate) fn check_actionable(element: &Element) -> Result<(), ActionError> {
    if !element.is_connected() {
        return Err(ActionError::Detached {
            element: describe(element),
        });
    }
    if !is_visible(element) {
        return Err(ActionError::NotVisible {
            element: describe(element),
        });
    }
    if is_disabled(element) {
        return Err(ActionError::Disabled {
            element: describe(element),
        });
    }
    Ok(())
}

/// The same bounding box now and at the next animation frame: anything that animates moves
/// between two frames, so one frame tells (Playwright compares two frames too), and each
/// further frame would add ~16 ms to every action (issue 17's action → effect figure).
pub(crate) async fn check_stable(element: &Element) -> Result<(), ActionError> {
    let before = rect_of(element);
    // An animation moves only when the document's clock does, and on a loaded machine the next
    // frame can show the very time the first look saw (Chrome advances the clock for a look
    // between frames, and a late frame then carries an older time; a frame later than
    // next_frame's fallback never came): wait a few more frames for the clock to move, else
    // a moving element would look stable. An idle machine moves it in the first frame.
    // (Chrome may also report the same time a few microseconds apart: a frame is milliseconds.)
    let document = element.owner_document().map(JsValue::from);
    let clock = document.as_ref().and_then(js::animation_clock);
    for _ in 0..5 {
        js::next_frame().await;
        let now = document.as_ref().and_then(js::animation_clock);
        if clock.zip(now).is_none_or(|(clock, now)| now - clock >= 1.0) {
            break;
        }
    }
    if !element.is_connected() {
        return Err(ActionError::Detached {
            element: describe(element),
        });
    }
    if before != rect_of(element) {
        return Err(ActionError::NotStable {
            element: describe(element),
        });
    }
    Ok(())
}

/// `(left, top, width, height)` of the element's bounding box.
pub(crate) fn rect_of(element: &Element) -> (f64, f64, f64, f64) {
    let rect = element.get_bounding_client_rect();
    (rect.left(), rect.top(), rect.width(), rect.height())
}

/// How an attempt scrolls the element into view: the first attempt only if needed, then
/// alternating alignments so a sticky header or footer cannot keep covering it.
pub(crate) fn scroll_into_view(element: &Element, attempt: u32) {
    let block = match attempt % 4 {
        1 => None,
        2 => Some("center"),
        3 => Some("end"),
        _ => Some("start"),
    };
    let block = match block {
        Some(block) => block,
        None if in_viewport(element) => return,
        None => "nearest",
    };
    let options = web_sys::ScrollIntoViewOptions::new();
    js::put(&options, "behavior", &"instant".into());
    js::put(&options, "block", &block.into());
    js::put(&options, "inline", &block.into());
    element.scroll_into_view_with_scroll_into_view_options(&options);
}

/// Whether the whole bounding box is inside its window's viewport.
fn in_viewport(element: &Element) -> bool {
    let Some(window) = element.owner_document().and_then(|d| d.default_view()) else {
        return false;
    };
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
    rect.top() >= 0.0 && rect.left() >= 0.0 && rect.bottom() <= height && rect.right() <= width
}

/// Focuses the element as a user's focus change would, with the focus and blur events a
/// background tab does not fire (see [`crate::dom::focus`]).
pub(crate) fn focus(element: &Element) {
    super::focus::move_focus(element);
}

/// Fires a plain bubbling `kind` event (`input`, `change`) at `element`, as the browser does
/// after a user's edit or choice. Shared by the field actions (here, so that `input_text` and
/// `select_option`, which use each other's native paths, do not depend on each other).
pub(crate) fn dispatch_plain(element: &Element, kind: &str) -> Result<(), ActionError> {
    let init = web_sys::EventInit::new();
    js::put(&init, "bubbles", &JsValue::TRUE);
    let event =
        web_sys::Event::new_with_event_init_dict(kind, &init).map_err(|e| script_error(&e))?;
    element
        .dispatch_event(&event)
        .map_err(|e| script_error(&e))?;
    Ok(())
}

/// Converts a thrown JS value into a script error. Only the kind of a standard exception is
/// kept, never its message: a page's exception can carry any text (the page's, or what it read),
/// and the error goes to the model and the log.
pub(crate) fn script_error(err: &wasm_bindgen::JsValue) -> ActionError {
    ActionError::Script {
        detail: exception_kind(err).to_owned(),
    }
}

/// The standard exception names a thrown value may be reported by; anything else is "an
/// exception".
const EXCEPTION_KINDS: &[&str] = &[
    "TypeError",
    "RangeError",
    "ReferenceError",
    "SyntaxError",
    "InvalidStateError",
    "NotSupportedError",
    "NotAllowedError",
    "SecurityError",
    "HierarchyRequestError",
    "InvalidCharacterError",
    "NotFoundError",
    "AbortError",
    "DataCloneError",
];

fn exception_kind(err: &wasm_bindgen::JsValue) -> &'static str {
    let name = js::get_string(err, "name").unwrap_or_default();
    crate::words!(EXCEPTION_KINDS)
        .iter()
        .find(|kind| *kind == name)
        .unwrap_or("an exception")
}

/// Calls the `value` setter of the element's own prototype chain, bypassing any instance-level
/// override a framework installed (React's value tracker), so the framework sees a change.
pub(crate) fn set_native_value(element: &Element, text: &str) -> Result<(), ActionError> {
    let key = JsValue::from_str("value");
    let mut proto = Object::get_prototype_of(element);
    while !proto.is_null() && !proto.is_undefined() {
        let descriptor = Object::get_own_property_descriptor(&proto, &key);
        if !descriptor.is_undefined() {
            let setter = js::get(&descriptor, "set");
            // `typeof`: a frame's setter is a function of another realm.
            if setter.is_function() {
                let setter = setter.unchecked_ref::<js_sys::Function>();
                setter
                    .call1(element, &JsValue::from_str(text))
                    .map_err(|e| script_error(&e))?;
                return Ok(());
            }
        }
        proto = Object::get_prototype_of(&proto);
    }
    Reflect::set(element, &key, &JsValue::from_str(text)).map_err(|e| script_error(&e))?;
    Ok(())
}

pub(crate) fn dispatch_input(element: &Element, text: &str) -> Result<(), ActionError> {
    let init = InputEventInit::new();
    js::put(&init, "bubbles", &JsValue::TRUE);
    js::put(&init, "composed", &JsValue::TRUE);
    if text.is_empty() {
        js::put(&init, "inputType", &"deleteContentBackward".into());
        js::put(&init, "data", &JsValue::UNDEFINED);
    } else {
        js::put(&init, "inputType", &"insertText".into());
        js::put(&init, "data", &text.into());
    }
    let event =
        InputEvent::new_with_event_init_dict("input", &init).map_err(|e| script_error(&e))?;
    element
        .dispatch_event(&event)
        .map_err(|e| script_error(&e))?;
    Ok(())
}

/// One key as a keyboard reports it: what `keydown`, `keypress` and `keyup` carry.
pub(crate) struct KeyStroke<'a> {
    /// `key`: the character typed, or the key's name (`"Enter"`).
    pub key: &'a str,
    /// `code`: the physical key on a US layout (`"Digit7"`), or `""` when none is known.
    pub code: &'a str,
    /// Legacy `keyCode` / `which` of `keydown` and `keyup`.
    pub key_code: u32,
    /// Legacy `charCode` (also `keyCode` / `which`) of `keypress`.
    pub char_code: u32,
    /// Whether Shift is held (an upper-case letter, a shifted symbol).
    pub shift: bool,
}

/// Dispatches one keyboard event of `kind` (`keydown`, `keypress`, `keyup`), bubbling,
/// cancelable and composed as a real key's; false when a listener canceled it.
pub(crate) fn dispatch_keyboard(
    target: &Element,
    kind: &str,
    stroke: &KeyStroke<'_>,
) -> Result<bool, ActionError> {
    let init = KeyboardEventInit::new();
    js::put(&init, "key", &stroke.key.into());
    js::put(&init, "code", &stroke.code.into());
    js::put(&init, "shiftKey", &stroke.shift.into());
    for field in ["bubbles", "cancelable", "composed"] {
        js::put(&init, field, &JsValue::TRUE);
    }
    if let Some(window) = web_sys::window() {
        js::put(&init, "view", &window);
    }
    let (key_code, char_code) = if kind == "keypress" {
        (stroke.char_code, stroke.char_code)
    } else {
        (stroke.key_code, 0)
    };
    // Legacy fields many sites still read; not every browser takes them from the init
    // dictionary, so they are also defined on the event below.
    let legacy = [
        ("keyCode", key_code),
        ("which", key_code),
        ("charCode", char_code),
    ];
    for (field, value) in legacy {
        let _ = Reflect::set(&init, &JsValue::from_str(field), &JsValue::from(value));
    }
    let event = KeyboardEvent::new_with_keyboard_event_init_dict(kind, &init)
        .map_err(|e| script_error(&e))?;
    for (field, value) in legacy {
        if js::get(&event, field).as_f64() != Some(f64::from(value)) {
            let descriptor = Object::new();
            let _ = Reflect::set(&descriptor, &"value".into(), &JsValue::from(value));
            let _ = Object::define_property(&event, &JsValue::from_str(field), &descriptor);
        }
    }
    target.dispatch_event(&event).map_err(|e| script_error(&e))
}
