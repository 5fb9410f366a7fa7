//! Small helpers over `js_sys::Reflect` for the DOM APIs web-sys does not bind (or binds
//! differently across versions), and the async waits every action uses.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// `obj[name]`, or `undefined` when it throws.
pub(crate) fn get(obj: &JsValue, name: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// A form's controls (`form.elements`) read through `HTMLFormElement.prototype`'s own getter:
/// a control named `elements` shadows the property itself, and a page would then choose which
/// controls BAI sees. `None` when the getter cannot be reached; callers then fail closed.
///
/// The form's realm may not be the module's (a frame; Firefox's content-script sandbox sees
/// the page's objects through wrappers), so nothing here uses `instanceof` (`dyn_into`), which
/// is false across realms: `typeof` checks only.
pub(crate) fn form_elements(form: &web_sys::Element) -> Option<JsValue> {
    let view = form.owner_document()?.default_view()?;
    let prototype = get(&get(&view, "HTMLFormElement"), "prototype");
    if !prototype.is_object() {
        return None;
    }
    let descriptor = js_sys::Object::get_own_property_descriptor(
        prototype.unchecked_ref::<js_sys::Object>(),
        &JsValue::from_str("elements"),
    );
    let getter = get(&descriptor, "get");
    if !getter.is_function() {
        return None;
    }
    let elements = getter.unchecked_ref::<Function>().call0(form).ok()?;
    elements.is_object().then_some(elements)
}

/// `obj[name]` as a string, if it is one.
pub(crate) fn get_string(obj: &JsValue, name: &str) -> Option<String> {
    get(obj, name).as_string()
}

/// `obj[name]` as a boolean, if it is one.
pub(crate) fn get_bool(obj: &JsValue, name: &str) -> Option<bool> {
    get(obj, name).as_bool()
}

/// `obj[name](...args)`; `Ok(None)` when there is no such method.
pub(crate) fn call(
    obj: &JsValue,
    name: &str,
    args: &[JsValue],
) -> Result<Option<JsValue>, JsValue> {
    let method = get(obj, name);
    // `typeof`, not `instanceof`: a frame's methods are functions of another realm.
    if !method.is_function() {
        return Ok(None);
    }
    let function = method.unchecked_ref::<Function>();
    let array: Array = args.iter().collect();
    function.apply(obj, &array).map(Some)
}

/// Sets field `key` of a plain object (an event's init dictionary, an options object) to
/// `value`, as web-sys's typed setters do: one import for every field and dictionary, where each
/// typed setter is an import and a JavaScript function of its own (smaller module and glue).
pub(crate) fn put(object: &JsValue, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &JsValue::from_str(key), value);
}

/// The text of a thrown JS value (an exception's `message`, or its string form).
pub(crate) fn error_text(err: &JsValue) -> String {
    if let Some(message) = get_string(err, "message") {
        return message;
    }
    err.as_string().unwrap_or_else(|| format!("{err:?}"))
}

/// A number as CSS computes it ("0.5", " 12 "), read by JavaScript's `parseFloat`: Rust's float
/// parsing would bring its float code into the executor (scripts/test's float-code check).
/// Nothing for an empty or non-numeric text.
pub(crate) fn css_number(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let parsed = js_sys::parse_float(text);
    parsed.is_finite().then_some(parsed)
}

/// A computed length in pixels ("4px", "-2.5px"); nothing for anything else.
pub(crate) fn css_pixels(value: &str) -> Option<f64> {
    css_number(value.trim().strip_suffix("px")?)
}

/// `x` as Rust's `{}` writes an `f64` (shortest digits that read back the same, never an
/// exponent), without linking Rust's float formatter (13.9 KB of the executor's wasm code; once
/// serde's reader left, one error message was its last user): JavaScript's `String(x)` gives
/// the same shortest digits, in exponent form only from 1e21 or below 1e-6, which is moved back
/// to plain digits here.
pub(crate) fn number_text(x: f64) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    if x.is_nan() {
        return "NaN".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    let text = match js_sys::Number::from(x).to_string_with_radix(10) {
        Ok(text) => String::from(text),
        // `toString(10)` throws only for a radix outside 2..=36.
        Err(_) => return String::new(),
    };
    let Some((mantissa, exponent)) = text.split_once('e') else {
        return text;
    };
    let Some(exponent) = crate::protocol::json::parse_i32(exponent) else {
        return text;
    };
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    // The value is d.ddd × 10^exponent: the point goes `exponent + 1` digits in.
    let point = exponent.saturating_add(1);
    let count = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    let zeros = |n: i32| "0".repeat(usize::try_from(n).unwrap_or(0));
    if point <= 0 {
        format!("{sign}0.{}{digits}", zeros(-point))
    } else if point >= count {
        format!("{sign}{digits}{}", zeros(point - count))
    } else {
        let (whole, fraction) = digits.split_at(usize::try_from(point).unwrap_or(0));
        format!("{sign}{whole}.{fraction}")
    }
}

/// A finite `x` as serde_json writes a float (`Number`'s `Display`): the shortest digits that
/// read back the same (JavaScript's, through [`number_text`]), in plain form with a `.0` on
/// whole numbers when the leading digit's power of ten is within -5..=15, else as
/// `d.ddde+N` / `de-N`. Zero is `0.0` or `-0.0`. Serde_json writes no non-finite number (its
/// `Value` holds them as `null`).
pub(crate) fn serde_float_text(x: f64) -> String {
    let plain = number_text(x);
    let (sign, plain) = match plain.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", plain.as_str()),
    };
    let (whole, fraction) = plain.split_once('.').unwrap_or((plain, ""));
    let all = format!("{whole}{fraction}");
    let Some(first) = all.find(|c| c != '0') else {
        return format!("{sign}0.0");
    };
    let digits = all.get(first..).unwrap_or_default().trim_end_matches('0');
    let to_i32 = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    // The power of ten of the leading digit.
    let exponent = to_i32(whole.len()) - 1 - to_i32(first);
    let count = to_i32(digits.len());
    let zeros = |n: i32| "0".repeat(usize::try_from(n).unwrap_or(0));
    if (-5..=15).contains(&exponent) {
        if count - 1 <= exponent {
            format!("{sign}{digits}{}.0", zeros(exponent + 1 - count))
        } else if exponent >= 0 {
            let (head, tail) = digits.split_at(usize::try_from(exponent + 1).unwrap_or(0));
            format!("{sign}{head}.{tail}")
        } else {
            format!("{sign}0.{}{digits}", zeros(-exponent - 1))
        }
    } else {
        let (head, tail) = digits.split_at(1.min(digits.len()));
        let point = if tail.is_empty() { "" } else { "." };
        let exponent_sign = if exponent < 0 { '-' } else { '+' };
        format!(
            "{sign}{head}{point}{tail}e{exponent_sign}{}",
            exponent.unsigned_abs()
        )
    }
}

/// Milliseconds since the epoch, for deadlines.
pub(crate) fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Sleep on a timer (gloo-timers); never a busy loop.
pub(crate) async fn sleep(ms: u32) {
    gloo_timers::future::TimeoutFuture::new(ms).await;
}

/// Resolves on the next animation frame, or after 100 ms if frames are not running (a hidden
/// tab), so an action never hangs on a background page.
pub(crate) async fn next_frame() {
    if document_hidden() {
        // A hidden tab runs no frames and throttles timers to one wake-up a second: the next
        // task (a message to ourselves, never throttled) is the closest thing to a frame.
        next_task().await;
        return;
    }
    let promise = Promise::new(&mut |resolve, _reject| {
        let Some(window) = web_sys::window() else {
            let _ = resolve.call0(&JsValue::UNDEFINED);
            return;
        };
        let on_frame = resolve.clone();
        let frame = Closure::once_into_js(move || {
            let _ = on_frame.call0(&JsValue::UNDEFINED);
        });
        let timer = Closure::once_into_js(move || {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        });
        let _ = window.request_animation_frame(frame.unchecked_ref());
        let _ = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(timer.unchecked_ref(), 100);
    });
    let _ = JsFuture::from(promise).await;
}

/// The time of `document`'s animation clock (`document.timeline.currentTime`), which every
/// CSS animation and transition follows; `None` when it has none (an inactive document).
pub(crate) fn animation_clock(document: &JsValue) -> Option<f64> {
    get(&get(document, "timeline"), "currentTime").as_f64()
}

/// Whether the page is hidden (a background tab, a minimized window).
pub(crate) fn document_hidden() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.hidden())
}

/// Resolves in a new task (after the tasks already queued, such as a framework's scheduled
/// render), through a `MessageChannel`, which hidden tabs do not throttle.
async fn next_task() {
    let promise = Promise::new(&mut |resolve, _reject| {
        let channel = get(&js_sys::global(), "MessageChannel")
            .dyn_into::<Function>()
            .ok()
            .and_then(|ctor| Reflect::construct(&ctor, &Array::new()).ok());
        let Some(channel) = channel else {
            let _ = resolve.call0(&JsValue::UNDEFINED);
            return;
        };
        let on_message = Closure::once_into_js(move || {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        });
        let port1 = get(&channel, "port1");
        let _ = Reflect::set(&port1, &JsValue::from_str("onmessage"), &on_message);
        let _ = call(&get(&channel, "port2"), "postMessage", &[JsValue::NULL]);
    });
    let _ = JsFuture::from(promise).await;
}

/// Waits up to `ms` milliseconds, returning early when the document changes: the retry loop
/// re-checks as soon as the page re-renders instead of sleeping the full back-off.
pub(crate) async fn dom_change_or_timeout(ms: u32) {
    if ms == 0 {
        return;
    }
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        sleep(ms).await;
        return;
    };
    let (sender, receiver) = futures_channel_like();
    let wake = sender.clone();
    let callback = Closure::<dyn FnMut(JsValue, JsValue)>::new(
        move |_records: JsValue, _observer: JsValue| {
            wake.fire();
        },
    );
    let observer = web_sys::MutationObserver::new(callback.as_ref().unchecked_ref());
    if let Ok(observer) = &observer {
        let init = web_sys::MutationObserverInit::new();
        for field in ["subtree", "childList", "attributes", "characterData"] {
            put(&init, field, &JsValue::TRUE);
        }
        let _ = observer.observe_with_options(&document, &init);
    }
    let timer = gloo_timers::callback::Timeout::new(ms, move || sender.fire());
    receiver.await;
    drop(timer);
    if let Ok(observer) = observer {
        observer.disconnect();
    }
    drop(callback);
}

/// A one-shot, single-threaded signal: `fire` wakes the future once.
#[derive(Debug, Clone, Default)]
pub(crate) struct Signal {
    inner: std::rc::Rc<std::cell::RefCell<SignalState>>,
}

#[derive(Debug, Default)]
struct SignalState {
    fired: bool,
    waker: Option<std::task::Waker>,
}

impl Signal {
    pub(crate) fn fire(&self) {
        let waker = {
            let Ok(mut state) = self.inner.try_borrow_mut() else {
                return;
            };
            state.fired = true;
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The waiting side of a [`Signal`].
#[derive(Debug)]
pub(crate) struct SignalFuture {
    signal: Signal,
}

impl Future for SignalFuture {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let Ok(mut state) = self.signal.inner.try_borrow_mut() else {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        };
        if state.fired {
            Poll::Ready(())
        } else {
            state.waker = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

fn futures_channel_like() -> (Signal, SignalFuture) {
    let signal = Signal::default();
    (signal.clone(), SignalFuture { signal })
}

#[wasm_bindgen]
extern "C" {
    /// An element whose attributes are read by a name already made a JS string.
    type AttributeHost;
    #[wasm_bindgen(method, js_name = getAttribute)]
    fn get_attribute_named(this: &AttributeHost, name: &JsValue) -> Option<String>;
    #[wasm_bindgen(method, js_name = hasAttribute)]
    fn has_attribute_named(this: &AttributeHost, name: &JsValue) -> bool;
}

thread_local! {
    /// Attribute names as JS strings, each made once: a query reads the same few names on
    /// thousands of elements, and turning a Rust string into a JS one costs more than the read.
    static ATTRIBUTE_NAMES: std::cell::RefCell<Vec<(&'static str, JsValue)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

fn with_name<T>(name: &'static str, read: impl FnOnce(&JsValue) -> T) -> T {
    ATTRIBUTE_NAMES.with(|names| {
        let mut names = names.borrow_mut();
        // Compared by address: a literal is one string in the binary (a copy elsewhere only
        // adds an entry), so no bytes are compared on this path.
        if let Some((_, value)) = names.iter().find(|(known, _)| {
            std::ptr::eq(known.as_ptr(), name.as_ptr()) && known.len() == name.len()
        }) {
            return read(value);
        }
        let value = JsValue::from_str(name);
        let result = read(&value);
        names.push((name, value));
        result
    })
}

/// `element.getAttribute(name)` for a name known at compile time (cached as a JS string).
pub(crate) fn attribute(element: &web_sys::Element, name: &'static str) -> Option<String> {
    with_name(name, |name| {
        element
            .unchecked_ref::<AttributeHost>()
            .get_attribute_named(name)
    })
}

/// `element.hasAttribute(name)` for a name known at compile time (cached as a JS string).
pub(crate) fn has_attribute(element: &web_sys::Element, name: &'static str) -> bool {
    with_name(name, |name| {
        element
            .unchecked_ref::<AttributeHost>()
            .has_attribute_named(name)
    })
}
