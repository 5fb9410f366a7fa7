//! Waiting for the page to settle after an activating action (click, press_key, select_option,
//! check / uncheck), so the result describes the page after the click's consequences (a modal
//! faded in, a list re-rendered) rather than the instant after the event.
//!
//! Settled: no DOM mutation in the document (child lists, attributes, text; shadow roots are not
//! watched) and no running finite animation or transition (`document.getAnimations()`, play state
//! `running`, finite end time) for [`QUIET_MS`]. Infinite animations (spinners) do not count,
//! nor any animation in a hidden tab (they advance only once the tab is shown).
//! The wait is bounded by the action's timeout and by [`CAP_MS`]; a page that never goes quiet
//! (a ticking clock, an endless animation) is reported as not settled, not as a failure.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use super::js;
use super::report::{ActionReport, Effect, ExecOptions};

/// How long the page must stay quiet to count as settled.
pub const QUIET_MS: u32 = 100;
/// The longest an action waits for the page to settle.
pub const CAP_MS: u32 = 1500;
/// How often animations are polled while waiting (mutations wake the wait at once).
const POLL_MS: u32 = 25;

/// Waits until the page is quiet for [`QUIET_MS`] or `limit_ms` (capped at [`CAP_MS`]) passes.
/// Returns whether it settled and how long it waited.
pub(crate) async fn settle(limit_ms: u32) -> (bool, u32) {
    let started = js::now_ms();
    let limit = f64::from(limit_ms.min(CAP_MS));
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return (true, 0);
    };
    let last_change = Rc::new(Cell::new(started));
    let on_change = Rc::clone(&last_change);
    let callback = Closure::<dyn FnMut(JsValue, JsValue)>::new(
        move |_records: JsValue, _observer: JsValue| on_change.set(js::now_ms()),
    );
    let observer = web_sys::MutationObserver::new(callback.as_ref().unchecked_ref()).ok();
    if let Some(observer) = &observer {
        let init = web_sys::MutationObserverInit::new();
        for field in ["subtree", "childList", "attributes", "characterData"] {
            js::put(&init, field, &JsValue::TRUE);
        }
        let _ = observer.observe_with_options(&document, &init);
    }
    // A hidden tab's animations do not advance until the user shows it: waiting on them would
    // only delay the result (up to the cap), so there only mutations count.
    let hidden = document.hidden();
    let settled = loop {
        let now = js::now_ms();
        if !hidden && running_animations(&document) {
            last_change.set(now);
        }
        if now - last_change.get() >= f64::from(QUIET_MS) {
            break true;
        }
        if now - started >= limit {
            break false;
        }
        let until_quiet = f64::from(QUIET_MS) - (now - last_change.get());
        let wait = until_quiet
            .min(f64::from(POLL_MS))
            .min(limit - (now - started))
            .max(1.0);
        js::sleep(wait as u32).await;
    };
    if let Some(observer) = observer {
        // Records still queued would call a dropped closure otherwise.
        let _ = observer.take_records();
        observer.disconnect();
    }
    drop(callback);
    let waited = (js::now_ms() - started).max(0.0).min(f64::from(u32::MAX)) as u32;
    (settled, waited)
}

/// Whether a finite animation or transition is running in the document.
fn running_animations(document: &web_sys::Document) -> bool {
    let Ok(Some(list)) = js::call(document, "getAnimations", &[]) else {
        return false;
    };
    let Some(list) = list.dyn_ref::<js_sys::Array>() else {
        return false;
    };
    list.iter().any(|animation| {
        if js::get_string(&animation, "playState").as_deref() != Some("running") {
            return false;
        }
        let effect = js::get(&animation, "effect");
        let Ok(Some(timing)) = js::call(&effect, "getComputedTiming", &[]) else {
            return false;
        };
        js::get(&timing, "endTime")
            .as_f64()
            .is_some_and(f64::is_finite)
    })
}

/// After an activating action succeeded: waits for the page to settle (up to the action's
/// timeout) and says so in the report when it did not.
pub(crate) async fn after(report: &mut ActionReport, options: &ExecOptions) {
    let (settled, waited_ms) = settle(options.timeout_ms).await;
    if !settled {
        report.effects.push(Effect::NotSettled { waited_ms });
    }
}
