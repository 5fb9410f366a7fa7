//! One `MutationObserver` owned by Rust: the callback gets each batch of records the browser
//! delivers (all mutations of one task, at once), and the observer disconnects when dropped.

use js_sys::Array;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{MutationObserver, MutationObserverInit, Node};

/// A live observer; dropping it stops the callbacks and frees the closure.
#[derive(Debug)]
pub struct MutationWatcher {
    observer: MutationObserver,
    // Kept alive for as long as the observer may call it.
    _callback: Closure<dyn FnMut(Array, MutationObserver)>,
}

impl MutationWatcher {
    /// Observes `target` with `options`, calling `callback` with each batch of records.
    pub fn new(
        target: &Node,
        options: &MutationObserverInit,
        mut callback: impl FnMut(&Array) + 'static,
    ) -> Result<Self, JsValue> {
        let closure = Closure::<dyn FnMut(Array, MutationObserver)>::new(
            move |records: Array, _observer: MutationObserver| callback(&records),
        );
        let observer = MutationObserver::new(closure.as_ref().unchecked_ref())?;
        observer.observe_with_options(target, options)?;
        Ok(Self {
            observer,
            _callback: closure,
        })
    }

    /// Records queued but not delivered yet, removed from the queue (for a caller that must be
    /// up to date now, before the browser's next delivery).
    pub fn take_records(&self) -> Array {
        self.observer.take_records()
    }
}

impl Drop for MutationWatcher {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}
