#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! Material UI's Autocomplete (tests/fixtures/dom/mui.jsx, bundled from npm by
//! scripts/build-fixtures) shows at most six matches: `select_option` types the option's text
//! into its field when the open list lacks it, chooses the filtered option and confirms it; a
//! country that does not exist fails with `option_not_found` and leaves the widget as found
//! (list closed, text and value unchanged).
//!
//! MUI X's date field is made of contenteditable spinbuttons (Month / Day / Year) that read key
//! presses, not a value: `input_text` on the Month part types the date key by key, the field
//! moves between its parts itself, and the whole field is checked; a date the field rewrites
//! fails with `value_mismatch` naming what it shows.

use bai::dom::fixture::{Fixture, frames, run_script};
use bai::dom::{ActionReport, ExecOptions, execute};
use bai::protocol::{Action, Selector, SelectorKind};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const BUNDLE: &str = include_str!("../../tests/fixtures/build/mui.js");

fn get(obj: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(obj, &key.into()).unwrap()
}

async fn select(option: &str, timeout_ms: u32) -> Result<ActionReport, bai::dom::ActionError> {
    execute(
        &Action::SelectOption {
            selector: Selector::new(SelectorKind::Label, "Country"),
            option: option.to_owned(),
        },
        &ExecOptions { timeout_ms },
    )
    .await
}

fn open_listboxes(f: &Fixture) -> usize {
    let document = f.container().owner_document().unwrap();
    let list = document.query_selector_all("[role=listbox]").unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter(|n| {
            let e: &web_sys::HtmlElement = n.unchecked_ref();
            e.offset_width() > 0 || e.offset_height() > 0
        })
        .count()
}

fn country_text(f: &Fixture) -> String {
    f.find("#country")
        .unwrap()
        .unchecked_into::<web_sys::HtmlInputElement>()
        .value()
}

/// Mounts the Material UI page in a fresh fixture; returns it with its unmount function.
async fn mount_mui() -> (Fixture, js_sys::Function) {
    if get(&js_sys::global(), "__mountMui").is_undefined() {
        run_script(BUNDLE).unwrap();
    }
    let f = Fixture::mount(r#"<div id="mui-root"></div>"#).unwrap();
    let mount: js_sys::Function = get(&js_sys::global(), "__mountMui").dyn_into().unwrap();
    let unmount: js_sys::Function = mount
        .call1(&JsValue::NULL, &f.find("#mui-root").unwrap())
        .unwrap()
        .dyn_into()
        .unwrap();
    for _ in 0..60 {
        if f.find("#date-state").is_some() {
            break;
        }
        frames(1).await.unwrap();
    }
    (f, unmount)
}

async fn type_date(text: &str) -> Result<ActionReport, bai::dom::ActionError> {
    execute(
        &Action::InputText {
            selector: Selector::new(SelectorKind::Aria, "Month"),
            text: text.to_owned(),
        },
        &ExecOptions { timeout_ms: 3000 },
    )
    .await
}

/// The text MUI keeps in the date field's hidden input (what the field shows).
fn date_field_text(f: &Fixture) -> String {
    f.find("[role=group] input[aria-hidden=true]")
        .unwrap()
        .unchecked_into::<web_sys::HtmlInputElement>()
        .value()
}

#[wasm_bindgen_test]
async fn a_date_is_typed_into_the_sectioned_field_key_by_key() {
    let (f, unmount) = mount_mui().await;
    let state = || f.find("#date-state").unwrap().text_content().unwrap();
    assert_eq!(state(), "none");

    let report = type_date("07/20/2026").await.unwrap();
    assert_eq!(report.action, "input_text");
    assert_eq!(state(), "2026-07-20");
    assert_eq!(date_field_text(&f), "07/20/2026");

    // 13 is no month and 45 no day: the field takes 3 as the month and 4 as the day (a 4 can
    // only start a day alone, so it moves on to the year, which 5 starts and `/` ends), as it
    // would from a user's keys; the action says what the field shows instead of claiming the date.
    let err = type_date("13/45/2026").await.unwrap_err();
    assert_eq!(err.code(), "value_mismatch");
    assert!(
        err.message().contains("\"03/04/2026\""),
        "{}",
        err.message()
    );
    assert_eq!(date_field_text(&f), "03/04/2026");
    assert_eq!(state(), "2026-03-04");
    unmount.call0(&JsValue::NULL).unwrap();
}

#[wasm_bindgen_test]
async fn autocomplete_types_to_filter_and_a_missing_option_leaves_it_as_found() {
    if get(&js_sys::global(), "__mountMui").is_undefined() {
        run_script(BUNDLE).unwrap();
    }
    let f = Fixture::mount(r#"<div id="mui-root"></div>"#).unwrap();
    let mount: js_sys::Function = get(&js_sys::global(), "__mountMui").dyn_into().unwrap();
    let unmount: js_sys::Function = mount
        .call1(&JsValue::NULL, &f.find("#mui-root").unwrap())
        .unwrap()
        .dyn_into()
        .unwrap();
    for _ in 0..60 {
        if f.find("#country-state").is_some() {
            break;
        }
        frames(1).await.unwrap();
    }
    let state = || f.find("#country-state").unwrap().text_content().unwrap();

    // Portugal is not among the six countries the opened list shows.
    select("Portugal", 3000).await.unwrap();
    assert_eq!(state(), "Portugal");
    assert_eq!(country_text(&f), "Portugal");
    frames(2).await.unwrap();
    assert_eq!(open_listboxes(&f), 0, "the list closed after the choice");

    let err = select("Atlantis", 3000).await.unwrap_err();
    assert_eq!(err.code(), "option_not_found");
    // The options named are those of the list as it opened, not of the empty filtered one.
    assert!(err.message().contains("Argentina"), "{}", err.message());
    for _ in 0..30 {
        if open_listboxes(&f) == 0 {
            break;
        }
        frames(1).await.unwrap();
    }
    assert_eq!(open_listboxes(&f), 0, "the list was closed again");
    assert_eq!(state(), "Portugal");
    assert_eq!(country_text(&f), "Portugal");
    unmount.call0(&JsValue::NULL).unwrap();
}
