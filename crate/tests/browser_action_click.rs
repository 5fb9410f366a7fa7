#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The click action: actionability waits, hit testing, the event sequence, reported effects.

use std::cell::RefCell;
use std::rc::Rc;

use bai::dom::fixture::{Fixture, run_script, until};
use bai::dom::{ActionReport, ExecOptions, execute};
use bai::protocol::{Action, Selector, SelectorKind};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn opts(timeout_ms: u32) -> ExecOptions {
    ExecOptions { timeout_ms }
}

async fn click(selector: Selector, timeout_ms: u32) -> Result<ActionReport, bai::dom::ActionError> {
    execute(&Action::Click { selector }, &opts(timeout_ms)).await
}

fn role(value: &str, name: &str) -> Selector {
    let mut selector = Selector::new(SelectorKind::Role, value);
    selector.name = Some(name.to_owned());
    selector
}

fn global(name: &str) -> JsValue {
    js_sys::Reflect::get(&js_sys::global(), &name.into()).unwrap()
}

fn kinds(report: &ActionReport) -> Vec<String> {
    report
        .effects
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[wasm_bindgen_test]
async fn dispatches_the_full_sequence_with_coordinates() {
    let f =
        Fixture::mount(r#"<button id="b" style="width:120px;height:40px">Press</button>"#).unwrap();
    let button = f.find("#b").unwrap();
    let log: Rc<RefCell<Vec<String>>> = Rc::default();
    let names = [
        "pointerover",
        "mouseover",
        "pointerenter",
        "mouseenter",
        "pointermove",
        "mousemove",
        "pointerdown",
        "mousedown",
        "focus",
        "pointerup",
        "mouseup",
        "click",
    ];
    let mut keep = Vec::new();
    for name in names {
        let log = log.clone();
        let listener = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
            let mut entry = event.type_();
            if let Some(mouse) = event.dyn_ref::<web_sys::MouseEvent>() {
                entry.push_str(&format!(
                    " x>0:{} detail:{} button:{} buttons:{}",
                    mouse.client_x() > 0,
                    mouse.detail(),
                    mouse.button(),
                    mouse.buttons()
                ));
            }
            log.borrow_mut().push(entry);
        });
        button
            .add_event_listener_with_callback(name, listener.as_ref().unchecked_ref())
            .unwrap();
        keep.push(listener);
    }
    let report = click(Selector::css("#b"), 2000).await.unwrap();
    let log = log.borrow();
    let types: Vec<&str> = log.iter().map(|e| e.split(' ').next().unwrap()).collect();
    assert_eq!(types, names);
    let click_entry = log.last().unwrap();
    assert_eq!(click_entry, "click x>0:true detail:1 button:0 buttons:0");
    assert!(
        log[7].ends_with("detail:1 button:0 buttons:1"),
        "{}",
        log[7]
    );
    assert_eq!(report.action, "click");
    assert_eq!(report.element.as_deref(), Some("button#b \"Press\""));
    assert_eq!(report.attempts, 1);
}

#[wasm_bindgen_test]
async fn waits_for_a_button_disabled_for_a_while() {
    let _f = Fixture::mount(
        r#"<button id="later" disabled onclick="window.__laterClicked=true">Later</button>"#,
    )
    .unwrap();
    run_script("setTimeout(() => document.getElementById('later').disabled = false, 300)").unwrap();
    let report = click(Selector::new(SelectorKind::Text, "Later"), 3000)
        .await
        .unwrap();
    assert!(report.attempts > 1);
    assert_eq!(global("__laterClicked"), JsValue::TRUE);
}

#[wasm_bindgen_test]
async fn disabled_fieldset_and_aria_disabled_fail_with_disabled() {
    let _f = Fixture::mount(
        r#"<fieldset disabled><legend>L</legend><button id="in-fs">A</button></fieldset>
           <div aria-disabled="true"><span role="button" id="aria-dis">B</span></div>"#,
    )
    .unwrap();
    let err = click(Selector::css("#in-fs"), 200).await.unwrap_err();
    assert_eq!(err.code(), "disabled");
    let err = click(Selector::css("#aria-dis"), 200).await.unwrap_err();
    assert_eq!(err.code(), "disabled");
    let json = serde_json::to_value(&err).unwrap();
    assert_eq!(json["code"], "disabled");
    assert!(json["message"].as_str().unwrap().contains("is disabled"));
    assert_eq!(json["element"], "span#aria-dis[role=button] \"B\"");
}

#[wasm_bindgen_test]
async fn an_overlay_makes_it_covered() {
    let _f = Fixture::mount(
        r#"<button id="under" style="position:fixed;top:10px;left:10px;width:100px;height:40px">Under</button>
           <div id="overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.3);z-index:5"></div>"#,
    )
    .unwrap();
    let err = click(Selector::css("#under"), 300).await.unwrap_err();
    assert_eq!(err.code(), "covered");
    assert!(
        err.message().contains("covered by div#overlay"),
        "{}",
        err.message()
    );
}

#[wasm_bindgen_test]
async fn escapes_a_sticky_header() {
    let _f = Fixture::mount(
        r#"<div style="position:sticky;top:0;height:150px;background:#fff;z-index:10" id="sticky">Header</div>
           <div style="height:1500px"></div>
           <button id="target" onclick="window.__stickyClicked=true">Target</button>
           <div style="height:1500px"></div>"#,
    )
    .unwrap();
    // Put the target just under the sticky header: in the viewport, but covered.
    let window = web_sys::window().unwrap();
    let target = window
        .document()
        .unwrap()
        .get_element_by_id("target")
        .unwrap();
    let top = target.get_bounding_client_rect().top() + window.scroll_y().unwrap();
    window.scroll_to_with_x_and_y(0.0, top - 60.0);
    let covered_at = target.get_bounding_client_rect().top();
    assert!(covered_at < 150.0, "target at {covered_at}");
    let report = click(Selector::css("#target"), 3000).await.unwrap();
    assert!(report.attempts >= 2, "attempts {}", report.attempts);
    assert_eq!(global("__stickyClicked"), JsValue::TRUE);
}

#[wasm_bindgen_test]
async fn waits_for_an_element_that_appears_later() {
    let _f = Fixture::mount(r#"<div id="slot"></div>"#).unwrap();
    run_script(
        "setTimeout(() => { document.getElementById('slot').innerHTML = '<button id=\"late\" onclick=\"window.__lateClicked=true\">Late</button>'; }, 250)",
    )
    .unwrap();
    let report = click(role("button", "Late"), 3000).await.unwrap();
    assert!(report.attempts > 1);
    assert_eq!(global("__lateClicked"), JsValue::TRUE);
}

#[wasm_bindgen_test]
async fn follows_a_detached_then_rerendered_element() {
    let _f = Fixture::mount(r#"<div id="rr"><button id="rb">Again</button></div>"#).unwrap();
    run_script(
        // Re-rendered on each of the next 12 animation frames (a timer could fall between the
        // two frames the stability check waits, and the first attempt would then click a
        // button that is about to be replaced).
        "window.__rrClicked = 0; (function () { let n = 0; const step = () => { const host = document.getElementById('rr'); if (!host) { return; } host.innerHTML = '<button id=\"rb\">Again</button>'; if (++n >= 12) { host.querySelector('#rb').addEventListener('click', () => window.__rrClicked++); } else { requestAnimationFrame(step); } }; requestAnimationFrame(step); })();",
    )
    .unwrap();
    let report = click(Selector::css("#rb"), 4000).await.unwrap();
    assert!(report.attempts > 1, "attempts {}", report.attempts);
    assert_eq!(global("__rrClicked"), JsValue::from(1));
}

#[wasm_bindgen_test]
async fn reports_a_toggled_checkbox() {
    let _f =
        Fixture::mount(r#"<label><input type="checkbox" id="cb"> Remember me</label>"#).unwrap();
    let report = click(role("checkbox", "remember"), 2000).await.unwrap();
    assert_eq!(kinds(&report)[0], "checked_changed");
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["effects"][0]["checked"], true);
}

#[wasm_bindgen_test]
async fn reports_a_submitted_form_and_navigation() {
    let _f = Fixture::mount(
        r##"<form onsubmit="event.preventDefault(); window.__submitted = true"><button id="send">Send</button></form>
            <a id="jump" href="#bai-section">Jump</a>"##,
    )
    .unwrap();
    let report = click(Selector::css("#send"), 2000).await.unwrap();
    assert!(
        kinds(&report).contains(&"form_submitted".to_owned()),
        "{:?}",
        report.effects
    );
    assert_eq!(global("__submitted"), JsValue::TRUE);
    let report = click(Selector::css("#jump"), 2000).await.unwrap();
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["effects"][0]["kind"], "navigation_started");
    assert!(
        json["effects"][0]["url"]
            .as_str()
            .unwrap()
            .ends_with("#bai-section")
    );
    web_sys::window().unwrap().location().set_hash("").unwrap();
}

#[wasm_bindgen_test]
async fn reports_a_detached_element_and_nothing_observable() {
    let _f = Fixture::mount(
        r#"<div id="dlg"><button id="close" onclick="document.getElementById('dlg').remove()">Close</button></div><span id="noop">Noop</span><input id="field" aria-label="Field">"#,
    )
    .unwrap();
    let report = click(Selector::css("#close"), 2000).await.unwrap();
    assert!(
        kinds(&report).contains(&"element_detached".to_owned()),
        "{:?}",
        report.effects
    );
    let report = click(Selector::css("#noop"), 2000).await.unwrap();
    assert_eq!(kinds(&report), ["nothing_observable"]);
    let report = click(Selector::css("#field"), 2000).await.unwrap();
    assert_eq!(kinds(&report), ["focused"]);
}

#[wasm_bindgen_test]
async fn clicks_inside_a_same_origin_iframe() {
    let _f = Fixture::mount(
        r#"<iframe id="fr" srcdoc="<button id='fb' onclick='parent.__frameClicked = true'>In frame</button>"></iframe>"#,
    )
    .unwrap();
    let report = click(Selector::css("#fb"), 3000).await.unwrap();
    assert_eq!(report.element.as_deref(), Some("button#fb \"In frame\""));
    assert_eq!(global("__frameClicked"), JsValue::TRUE);
}

#[wasm_bindgen_test]
async fn failures_are_typed() {
    let _f = Fixture::mount(
        r#"<button id="hid" style="visibility:hidden">Hidden</button><button class="dup">Dup</button><button class="dup">Dup</button>"#,
    )
    .unwrap();
    let err = click(Selector::css("#hid"), 200).await.unwrap_err();
    assert_eq!(err.code(), "not_visible");
    let started = js_sys::Date::now();
    let err = click(Selector::css(".missing"), 250).await.unwrap_err();
    assert_eq!(err.code(), "not_found");
    assert!(js_sys::Date::now() - started >= 240.0);
    // Ambiguity fails at once rather than waiting out the timeout: the bound is far below the
    // timeout, and far above what a loaded machine takes for one attempt.
    let started = js_sys::Date::now();
    let err = click(Selector::new(SelectorKind::Text, "Dup"), 20_000)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "ambiguous");
    assert!(
        js_sys::Date::now() - started < 5000.0,
        "ambiguity does not wait"
    );
    let err = click(Selector::css("button[type=submit"), 5000)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_selector");
    let json = serde_json::to_value(&err).unwrap();
    assert_eq!(json["position"], 6);
}

#[wasm_bindgen_test]
async fn a_moving_element_is_not_stable_until_it_stops() {
    let f = Fixture::mount(
        r#"<style>@keyframes bai-slide { from { margin-left: 0 } to { margin-left: 300px } }</style>
           <button id="mover" style="animation: bai-slide 0.6s linear infinite" onclick="window.__moverClicked = true">Moving</button>"#,
    )
    .unwrap();
    let mover: web_sys::HtmlElement = f.find("#mover").unwrap().dyn_into().unwrap();
    // A new animation starts at the next frame it is committed in, so for a frame or two a
    // loaded machine shows it still at its start: wait until it has really moved.
    let start = mover.get_bounding_client_rect().left();
    until(|| mover.get_bounding_client_rect().left() != start)
        .await
        .unwrap();
    // Moving for good: never stable.
    let err = click(Selector::css("#mover"), 150).await.unwrap_err();
    assert_eq!(err.code(), "not_stable");
    // Then one last run, restarted right before the click (so a slow machine cannot let it end
    // before the click looks): the click waits for it to stop.
    mover.style().set_property("animation", "none").unwrap();
    let _ = mover.offset_width();
    mover
        .style()
        .set_property("animation", "bai-slide 1.2s linear 1")
        .unwrap();
    let start = mover.get_bounding_client_rect().left();
    until(|| mover.get_bounding_client_rect().left() != start)
        .await
        .unwrap();
    let report = click(Selector::css("#mover"), 8000).await.unwrap();
    assert!(report.attempts > 1);
    assert_eq!(global("__moverClicked"), JsValue::TRUE);
}

#[wasm_bindgen_test]
async fn clicks_inside_a_closed_shadow_root_it_was_allowed_to_open() {
    let f = Fixture::mount(r#"<div id="closed-host"></div>"#).unwrap();
    let host = f.find("#closed-host").unwrap();
    let root = host
        .attach_shadow(&web_sys::ShadowRootInit::new(
            web_sys::ShadowRootMode::Closed,
        ))
        .unwrap();
    root.set_inner_html(
        r#"<button id="in-closed" onclick="window.__closedClicked = true">Hidden away</button>"#,
    );
    js_sys::Reflect::set(&js_sys::global(), &"__closedRoot".into(), &root).unwrap();
    run_script(
        "Object.defineProperty(Element.prototype, 'openOrClosedShadowRoot', { configurable: true, get() { return this.id === 'closed-host' ? window.__closedRoot : this.shadowRoot; } });",
    )
    .unwrap();
    let result = click(Selector::new(SelectorKind::Text, "Hidden away"), 2000).await;
    run_script("delete Element.prototype.openOrClosedShadowRoot;").unwrap();
    result.unwrap();
    assert_eq!(global("__closedClicked"), JsValue::TRUE);
}

/// The page sees each focus change once, whether or not its document has the system focus (in
/// a background tab the browser fires no focus events and BAI fires them itself): clicking a
/// field focuses it, clicking another field blurs the first, clicking plain text gives focus back
/// to the document and blurs the field, as a user's clicks do.
#[wasm_bindgen_test]
async fn focus_and_blur_reach_the_page_once_per_change() {
    let f = Fixture::mount(
        r#"<input id="a" aria-label="First"> <input id="b" aria-label="Second"> <p id="text" style="width:200px">Plain text</p>"#,
    )
    .unwrap();
    run_script(
        "window.__focusLog = []; for (const id of ['a', 'b']) { const el = document.getElementById(id);
          for (const kind of ['focus', 'focusin', 'blur', 'focusout']) el.addEventListener(kind, (e) =>
            window.__focusLog.push(kind + ':' + id + ':' + (e.relatedTarget ? e.relatedTarget.id : '-'))); }",
    )
    .unwrap();
    let log = || -> Vec<String> {
        let array: js_sys::Array = global("__focusLog").dyn_into().unwrap();
        let entries = array.iter().map(|v| v.as_string().unwrap()).collect();
        array.set_length(0);
        entries
    };
    let report = click(Selector::css("#a"), 2000).await.unwrap();
    assert!(report.has("focused"), "{:?}", kinds(&report));
    assert_eq!(log(), ["focus:a:-", "focusin:a:-"]);
    click(Selector::css("#b"), 2000).await.unwrap();
    assert_eq!(
        log(),
        ["blur:a:b", "focusout:a:b", "focus:b:a", "focusin:b:a"]
    );
    // Clicking the focused field again changes nothing.
    click(Selector::css("#b"), 2000).await.unwrap();
    assert_eq!(log(), Vec::<String>::new());
    click(Selector::css("#text"), 2000).await.unwrap();
    assert_eq!(log(), ["blur:b:-", "focusout:b:-"]);
    let document = web_sys::window().unwrap().document().unwrap();
    assert_ne!(
        document.active_element().map(|e| e.id()),
        Some("b".to_owned())
    );
    drop(f);
}

/// Clears the page's busy timer when the test ends, even when it fails.
struct BusyPage;

impl BusyPage {
    /// Makes every task of the page take `ms` milliseconds, as a loaded machine does: frames
    /// come that much apart or more.
    fn start(ms: u32) -> Self {
        run_script(&format!(
            "window.__busy = setInterval(() => {{ const end = performance.now() + {ms}; while (performance.now() < end) {{}} }}, 0);"
        ))
        .unwrap();
        Self
    }
}

impl Drop for BusyPage {
    fn drop(&mut self) {
        let _ = run_script("clearInterval(window.__busy)");
    }
}

#[wasm_bindgen_test]
async fn a_moving_element_is_not_stable_when_frames_are_slow() {
    let f = Fixture::mount(
        r#"<style>@keyframes bai-slide-slow { from { margin-left: 0 } to { margin-left: 300px } }</style>
           <button id="slow-mover" style="animation: bai-slide-slow 0.6s linear infinite">Moving</button>"#,
    )
    .unwrap();
    let mover: web_sys::HtmlElement = f.find("#slow-mover").unwrap().dyn_into().unwrap();
    let start = mover.get_bounding_client_rect().left();
    until(|| mover.get_bounding_client_rect().left() != start)
        .await
        .unwrap();
    // Frames 150 ms apart or more, as on a loaded machine: Chrome then draws a late frame at
    // the animation time a look just before it already saw (the CI flake of the test above),
    // and the boxes must still be compared across a time the animation really moved.
    let _busy = BusyPage::start(150);
    let err = click(Selector::css("#slow-mover"), 1500).await.unwrap_err();
    assert_eq!(err.code(), "not_stable");
}
