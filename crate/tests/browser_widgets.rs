#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! Custom select widgets from real component libraries (tests/fixtures/dom/widgets.jsx, bundled
//! from npm by scripts/build-fixtures): react-select, a Headless UI Listbox with portalled
//! options, Shoelace's sl-select (shadow DOM). Driven as a model drives them (observe, then
//! `select_option` by ref or by label), each asserting the library's own state, and each with a
//! failure that must leave the widget closed and its value unchanged. Then the wait for the page
//! to settle: an animated modal, and a page that never settles.

use bai::dom::fixture::{Fixture, add_style, frames, run_script};
use bai::dom::{ActionReport, ExecOptions, execute, observe};
use bai::protocol::{Action, Selector, SelectorKind};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const BUNDLE: &str = include_str!("../../tests/fixtures/build/widgets.js");
const THEME: &str = include_str!("../../tests/fixtures/build/shoelace-light.css");

fn get(obj: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(obj, &key.into()).unwrap()
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

async fn select(
    selector: Selector,
    option: &str,
    timeout_ms: u32,
) -> Result<ActionReport, bai::dom::ActionError> {
    execute(
        &Action::SelectOption {
            selector,
            option: option.to_owned(),
        },
        &ExecOptions { timeout_ms },
    )
    .await
}

fn label(text: &str) -> Selector {
    Selector::new(SelectorKind::Label, text)
}

/// The ref of the first observed line containing `needle`.
fn ref_of(needle: &str) -> Selector {
    let observation = observe(200);
    let line = observation
        .elements
        .iter()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in {:#?}", observation.elements));
    let reference = line.split_once(' ').map(|(r, _)| r.to_owned()).unwrap();
    Selector::new(SelectorKind::Ref, &reference)
}

fn text_of(css: &str) -> String {
    let document = web_sys::window().unwrap().document().unwrap();
    document
        .query_selector(css)
        .unwrap()
        .unwrap_or_else(|| panic!("no {css}"))
        .text_content()
        .unwrap_or_default()
}

/// Visible `role=listbox` elements in the document (light DOM).
fn open_listboxes() -> usize {
    let document = web_sys::window().unwrap().document().unwrap();
    let list = document.query_selector_all("[role=listbox]").unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter(|n| {
            let e: &web_sys::HtmlElement = n.unchecked_ref();
            e.offset_width() > 0 || e.offset_height() > 0
        })
        .count()
}

/// Mounts the React widgets; returns the fixture and the unmount function.
async fn mount_react() -> (Fixture, js_sys::Function) {
    if get(&js_sys::global(), "__mountWidgets").is_undefined() {
        run_script(BUNDLE).unwrap();
    }
    let f = Fixture::mount(r#"<div id="react-root"></div>"#).unwrap();
    let mount: js_sys::Function = get(&js_sys::global(), "__mountWidgets").dyn_into().unwrap();
    let unmount: js_sys::Function = mount
        .call1(&JsValue::NULL, &f.find("#react-root").unwrap())
        .unwrap()
        .dyn_into()
        .unwrap();
    for _ in 0..60 {
        if f.find("#flavour-state").is_some() && f.find("#person-state").is_some() {
            break;
        }
        frames(1).await.unwrap();
    }
    (f, unmount)
}

#[wasm_bindgen_test]
async fn react_select_by_label_and_by_ref() {
    let (_f, unmount) = mount_react().await;
    assert_eq!(text_of("#flavour-state"), "none");
    let report = select(label("Flavour"), "Strawberry", 3000).await.unwrap();
    assert_eq!(kinds(&report), ["option_selected"]);
    assert_eq!(text_of("#flavour-state"), "strawberry");
    assert_eq!(open_listboxes(), 0, "the menu closed after the choice");

    let combobox = ref_of("combobox \"Flavour\"");
    select(combobox, "vanilla", 3000).await.unwrap();
    assert_eq!(text_of("#flavour-state"), "vanilla");
    unmount.call0(&JsValue::NULL).unwrap();
}

#[wasm_bindgen_test]
async fn react_select_failure_closes_the_menu_and_keeps_the_value() {
    let (f, unmount) = mount_react().await;
    select(label("Flavour"), "Chocolate", 3000).await.unwrap();
    assert_eq!(text_of("#flavour-state"), "chocolate");
    let before = f.container().text_content();
    let err = select(label("Flavour"), "Mint", 1000).await.unwrap_err();
    assert_eq!(err.code(), "option_not_found");
    assert!(err.message().contains("Strawberry"), "{}", err.message());
    frames(2).await.unwrap();
    assert_eq!(open_listboxes(), 0, "the menu was closed again");
    assert_eq!(text_of("#flavour-state"), "chocolate");
    let input = f.find("#flavour-input").unwrap();
    assert_eq!(
        input.get_attribute("aria-expanded").as_deref(),
        Some("false")
    );
    // Nothing else changed: the page shows what it showed before.
    assert_eq!(f.container().text_content(), before);
    unmount.call0(&JsValue::NULL).unwrap();
}

#[wasm_bindgen_test]
async fn headless_listbox_with_portalled_options() {
    let (_f, unmount) = mount_react().await;
    assert_eq!(text_of("#person-state"), "Nobody");
    let button = ref_of("Assignee");
    let report = select(button, "Grace Hopper", 3000).await.unwrap();
    assert_eq!(kinds(&report), ["option_selected"]);
    assert_eq!(text_of("#person-state"), "Grace Hopper");
    assert_eq!(text_of("#assignee-button"), "Grace Hopper");

    select(label("Assignee"), "alan turing", 3000)
        .await
        .unwrap();
    assert_eq!(text_of("#person-state"), "Alan Turing");

    let err = select(label("Assignee"), "Linus Torvalds", 1000)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "option_not_found");
    assert!(err.message().contains("Ada Lovelace"), "{}", err.message());
    frames(2).await.unwrap();
    assert_eq!(open_listboxes(), 0, "the portalled list was closed again");
    assert_eq!(text_of("#person-state"), "Alan Turing");
    let document = web_sys::window().unwrap().document().unwrap();
    let button = document.get_element_by_id("assignee-button").unwrap();
    assert_ne!(
        button.get_attribute("aria-expanded").as_deref(),
        Some("true")
    );
    unmount.call0(&JsValue::NULL).unwrap();
}

#[wasm_bindgen_test]
async fn shoelace_select_in_shadow_dom() {
    let style = add_style(THEME).unwrap();
    if get(&js_sys::global(), "__widgetsReady").is_undefined() {
        run_script(BUNDLE).unwrap();
    }
    let ready: js_sys::Promise = get(&js_sys::global(), "__widgetsReady").into();
    JsFuture::from(ready).await.unwrap();
    let f = Fixture::mount(
        r#"<sl-select id="size" label="Size"><sl-option value="s">Small</sl-option><sl-option value="m">Medium</sl-option><sl-option value="l">Large</sl-option></sl-select>"#,
    )
    .unwrap();
    let host = f.find("#size").unwrap();
    let updated: js_sys::Promise = get(&host, "updateComplete").into();
    JsFuture::from(updated).await.unwrap();
    let value = || get(&host, "value").as_string().unwrap_or_default();
    let open = || get(&host, "open").as_bool().unwrap();

    let report = select(Selector::css("#size"), "Medium", 3000)
        .await
        .unwrap();
    assert_eq!(kinds(&report), ["option_selected"]);
    assert_eq!(value(), "m");

    let combobox = ref_of("combobox \"Size\"");
    select(combobox, "l", 3000).await.unwrap();
    assert_eq!(value(), "l");

    let err = select(Selector::css("#size"), "Huge", 1000)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "option_not_found");
    assert!(err.message().contains("Small"), "{}", err.message());
    for _ in 0..60 {
        if !open() {
            break;
        }
        frames(1).await.unwrap();
    }
    assert!(!open(), "the select was closed again");
    assert_eq!(value(), "l");
    style.remove();
}

const MODAL_CSS: &str = r"
.fade { opacity: 0; transition: opacity 300ms linear; }
.fade.show { opacity: 1; }
";

#[wasm_bindgen_test]
async fn click_waits_for_an_animated_modal() {
    let style = add_style(MODAL_CSS).unwrap();
    let f = Fixture::mount(
        r#"<button id="open">Open</button>
        <div id="modal" class="fade" style="display:none"><div class="dialog"><h5>Confirm</h5><button>OK</button></div></div>"#,
    )
    .unwrap();
    // As Bootstrap's modal: shown, then faded in by a CSS transition; the dialog gets its role
    // and focus only when the transition ends.
    run_script(
        "(() => { const m = document.getElementById('modal');
          document.getElementById('open').addEventListener('click', () => {
            m.style.display = 'block';
            requestAnimationFrame(() => requestAnimationFrame(() => m.classList.add('show')));
            m.addEventListener('transitionend', () => {
              const d = m.querySelector('.dialog');
              d.setAttribute('role', 'dialog');
              d.setAttribute('aria-label', 'Confirm');
            }, { once: true });
          }); })()",
    )
    .unwrap();
    let report = execute(
        &Action::Click {
            selector: Selector::css("#open"),
        },
        &ExecOptions { timeout_ms: 3000 },
    )
    .await
    .unwrap();
    // Read at once, with no wait of our own: the report came after the modal settled.
    assert!(
        f.find("[role=dialog]").is_some(),
        "the dialog is there when the click reports"
    );
    assert!(!report.has("not_settled"), "{:?}", kinds(&report));
    assert!(
        report.elapsed_ms >= 300,
        "waited for the fade: {}",
        report.elapsed_ms
    );
    style.remove();
}

#[wasm_bindgen_test]
async fn a_long_animation_reports_not_settled_within_the_cap() {
    // A 20 s animation (a progress bar crawling): the result must not wait for it, nor fail.
    let f = Fixture::mount(
        r#"<button id="go" onclick="document.getElementById('bar').animate([{ width: '0px' }, { width: '200px' }], { duration: 20000 })">Go</button><div id="bar" style="height:4px;background:blue"></div>"#,
    )
    .unwrap();
    let report = execute(
        &Action::Click {
            selector: Selector::css("#go"),
        },
        &ExecOptions { timeout_ms: 20_000 },
    )
    .await
    .unwrap();
    assert!(report.has("not_settled"), "{:?}", kinds(&report));
    // The cap, not the timeout nor the animation's end (both 20 s), bounds the wait; the upper
    // bound leaves a loaded machine time for the click itself.
    assert!(
        (1500..10_000).contains(&report.elapsed_ms),
        "waited up to the 1.5 s cap: {}",
        report.elapsed_ms
    );
    // An infinite animation (a spinner) does not hold the result back.
    run_script("document.getElementById('bar').getAnimations().forEach((a) => a.cancel()); document.getElementById('go').setAttribute('onclick', \"document.getElementById('bar').animate([{ opacity: 1 }, { opacity: 0.2 }], { duration: 500, iterations: Infinity })\")").unwrap();
    let report = execute(
        &Action::Click {
            selector: Selector::css("#go"),
        },
        &ExecOptions { timeout_ms: 5000 },
    )
    .await
    .unwrap();
    assert!(!report.has("not_settled"), "{:?}", kinds(&report));
    drop(f);
}
