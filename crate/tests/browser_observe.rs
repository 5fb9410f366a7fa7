#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! `observe`: the line format, the budget, refs (stable, fail closed when stale), the diff, and
//! failure hints.

use bai::dom::fixture::Fixture;
use bai::dom::{
    ExecOptions, execute, hints_for_failure, next_ref_number, observe, observe_changes,
    set_ref_floor,
};
use bai::protocol::{Action, Selector, SelectorKind};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The line without its ref (ref numbers depend on the tests that ran before).
fn strip(line: &str) -> String {
    line.split_once(' ')
        .map(|(_, rest)| rest.to_owned())
        .unwrap()
}

fn ref_of(line: &str) -> String {
    line.split_once(' ').map(|(r, _)| r.to_owned()).unwrap()
}

fn find_line<'a>(lines: &'a [String], needle: &str) -> &'a String {
    lines
        .iter()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in {lines:#?}"))
}

fn by_ref(r: &str) -> Selector {
    Selector::new(SelectorKind::Ref, r)
}

const PAGE: &str = r##"
<h2>Blue mug</h2>
<button>Add to cart</button>
<h2>Red mug</h2>
<button>Add to cart</button>
<form aria-label="Login">
  <label>Email <input type="email" value="ann@x.io" required></label>
  <label>Password <input type="password" value="hunter2"></label>
  <label><input type="checkbox"> I agree</label>
  <select aria-label="Size"><option>Small</option><option selected>Large</option></select>
</form>
<div id="host"></div>
<a href="#help">Help</a>
<button disabled>Later</button>
<div hidden><button>Hidden</button></div>
<div aria-hidden="true"><button>Decor</button></div>
"##;

fn mount_page() -> Fixture {
    let f = Fixture::mount(PAGE).unwrap();
    let host = f.find("#host").unwrap();
    let init = web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open);
    let root = host.attach_shadow(&init).unwrap();
    root.set_inner_html("<button>Shadow button</button>");
    f
}

#[wasm_bindgen_test]
fn lists_interactive_elements_in_the_line_format() {
    let _f = mount_page();
    let observation = observe(60);
    let lines: Vec<String> = observation.elements.iter().map(|l| strip(l)).collect();
    assert_eq!(
        lines,
        vec![
            r#"heading "Blue mug" level=2"#,
            r#"button "Add to cart" [in: "Blue mug"]"#,
            r#"heading "Red mug" level=2"#,
            r#"button "Add to cart" [in: "Red mug"]"#,
            r#"textbox "Email" value="ann@x.io" required"#,
            r#"textbox "Password" value=<hidden>"#,
            r#"checkbox "I agree" checked=false"#,
            r#"combobox "Size" selected="Large""#,
            r#"button "Shadow button""#,
            r#"link "Help""#,
            r#"button "Later" disabled"#,
        ]
    );
    assert_eq!(observation.total, 11);
    assert_eq!(observation.more, 0);
    assert!(!observation.elements.iter().any(|l| l.contains("hunter2")));
    // Refs are distinct and look like @eN.
    let refs: std::collections::BTreeSet<String> =
        observation.elements.iter().map(|l| ref_of(l)).collect();
    assert_eq!(refs.len(), 11);
    assert!(refs.iter().all(|r| r.starts_with("@e")));
    let json = serde_json::to_value(&observation).unwrap();
    assert!(json["url"].as_str().unwrap().starts_with("http"));
}

#[wasm_bindgen_test]
fn budget_lists_the_first_elements_and_counts_the_rest() {
    let _f = mount_page();
    let observation = observe(3);
    assert_eq!(observation.elements.len(), 3);
    assert_eq!(observation.total, 11);
    assert_eq!(observation.more, 8);
}

#[wasm_bindgen_test]
async fn observe_action_returns_the_observation_as_data() {
    let _f = mount_page();
    let report = execute(
        &Action::Observe {
            max_elements: Some(2),
        },
        &ExecOptions::default(),
    )
    .await
    .unwrap();
    let json = serde_json::to_value(&report).unwrap();
    // The hand-written text is what serde_json wrote of the `Value` it once was.
    assert_eq!(report.to_json_string(), json.to_string());
    assert_eq!(json["data"]["elements"].as_array().unwrap().len(), 2);
    assert_eq!(json["data"]["more"], 9);
    assert_eq!(json["effects"][0]["kind"], "observed");
}

#[wasm_bindgen_test]
async fn refs_are_stable_and_act_on_the_same_element() {
    let f = Fixture::mount(
        r#"<button id="a" onclick="this.dataset.clicked='yes'">Alpha</button><button id="b">Beta</button>"#,
    )
    .unwrap();
    let first = observe(60);
    let alpha = ref_of(find_line(&first.elements, "Alpha"));
    // A new element gets a new number; the old ones keep theirs.
    f.container()
        .insert_adjacent_html("afterbegin", "<button>Gamma</button>")
        .unwrap();
    let second = observe(60);
    assert_eq!(ref_of(find_line(&second.elements, "Alpha")), alpha);
    let gamma = ref_of(find_line(&second.elements, "Gamma"));
    assert_ne!(gamma, alpha);
    let n = |r: &str| r.trim_start_matches("@e").parse::<u32>().unwrap();
    assert!(n(&gamma) > n(&ref_of(find_line(&first.elements, "Beta"))));

    let report = execute(
        &Action::Click {
            selector: by_ref(&alpha),
        },
        &ExecOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(report.element.as_deref(), Some("button#a \"Alpha\""));
    assert_eq!(
        f.find("#a")
            .unwrap()
            .get_attribute("data-clicked")
            .as_deref(),
        Some("yes")
    );
}

#[wasm_bindgen_test]
async fn a_replaced_element_makes_its_ref_stale() {
    let f = Fixture::mount(r#"<div id="slot"><button>Delete draft</button></div>"#).unwrap();
    let observation = observe(60);
    let delete = ref_of(find_line(&observation.elements, "Delete draft"));
    // Another element, even one that looks the same, never inherits the ref.
    f.find("#slot")
        .unwrap()
        .set_inner_html("<button>Delete draft</button>");
    let err = execute(
        &Action::Click {
            selector: by_ref(&delete),
        },
        &ExecOptions { timeout_ms: 2000 },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "stale_ref");
    assert!(err.message().contains("observe again"), "{}", err.message());
    assert!(err.message().contains(&delete), "{}", err.message());

    // The same element with another name is stale too.
    let observation = observe(60);
    let again = ref_of(find_line(&observation.elements, "Delete draft"));
    assert_ne!(again, delete);
    f.find("#slot button")
        .unwrap()
        .set_text_content(Some("Publish"));
    let err = execute(
        &Action::Click {
            selector: by_ref(&again),
        },
        &ExecOptions { timeout_ms: 2000 },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "stale_ref");
    assert!(err.message().contains("Publish"), "{}", err.message());

    // Even once an observation has seen the new name, the old ref stays stale: the renamed
    // element gets a new ref, so "@eN" never silently means something the model did not see.
    let observation = observe(60);
    let renamed = ref_of(find_line(&observation.elements, "Publish"));
    assert_ne!(renamed, again);
    let err = execute(
        &Action::Click {
            selector: by_ref(&again),
        },
        &ExecOptions { timeout_ms: 2000 },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "stale_ref");
}

#[wasm_bindgen_test]
async fn an_unknown_ref_is_stale() {
    let _f = Fixture::mount("<button>Only</button>").unwrap();
    let err = execute(
        &Action::Click {
            selector: by_ref("@e999999"),
        },
        &ExecOptions { timeout_ms: 2000 },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), "stale_ref");
    assert!(err.message().contains("page changed"), "{}", err.message());
}

#[wasm_bindgen_test]
fn ref_floor_raises_the_next_number() {
    let _f = Fixture::mount("<button>Floor</button>").unwrap();
    let floor = next_ref_number() + 1000;
    set_ref_floor(floor);
    assert_eq!(next_ref_number(), floor);
    let _f = Fixture::mount("<button>Fresh</button>").unwrap();
    let observation = observe(60);
    assert_eq!(
        ref_of(find_line(&observation.elements, "Fresh")),
        format!("@e{floor}")
    );
    // A lower floor never lowers the counter.
    set_ref_floor(1);
    assert!(next_ref_number() > floor);
}

#[wasm_bindgen_test]
fn diff_reports_added_removed_and_changed() {
    let f = Fixture::mount(
        r#"<button id="x">Keep</button><button id="gone">Remove me</button><input aria-label="Name">"#,
    )
    .unwrap();
    let first = observe(60);
    let gone = ref_of(find_line(&first.elements, "Remove me"));
    let name = ref_of(find_line(&first.elements, "\"Name\""));
    f.find("#gone").unwrap().remove();
    f.container()
        .insert_adjacent_html("beforeend", "<a href='#next'>Next step</a>")
        .unwrap();
    f.find("input")
        .unwrap()
        .unchecked_into::<web_sys::HtmlInputElement>()
        .set_value("Ada");
    let diff = observe_changes(60);
    assert_eq!(diff.removed, vec![gone]);
    assert_eq!(diff.added.len(), 1, "{diff:?}");
    assert!(diff.added[0].ends_with(r#"link "Next step""#), "{diff:?}");
    assert_eq!(
        diff.changed,
        vec![format!(r#"{name} textbox "Name" value="Ada""#)]
    );
    assert_eq!(diff.more, 0);
    // Nothing changed since: an empty diff.
    let diff = observe_changes(60);
    assert!(diff.added.is_empty() && diff.removed.is_empty() && diff.changed.is_empty());
}

use wasm_bindgen::JsCast;

#[wasm_bindgen_test]
async fn hints_suggest_the_closest_elements_with_refs() {
    let _f = Fixture::mount(
        r#"<button>Submit order</button><button>Cancel</button><input placeholder="Coupon code">"#,
    )
    .unwrap();
    let action = Action::Click {
        selector: Selector::new(SelectorKind::Text, "Sumbit ordr"),
    };
    let err = execute(&action, &ExecOptions { timeout_ms: 200 })
        .await
        .unwrap_err();
    assert_eq!(err.code(), "not_found");
    let hints = hints_for_failure(&action, &err);
    assert!(!hints.is_empty());
    assert!(hints[0].ends_with(r#"button "Submit order""#), "{hints:?}");
    assert!(!hints.iter().any(|h| h.contains("Cancel")), "{hints:?}");
    // The hint's ref works.
    let report = execute(
        &Action::Click {
            selector: by_ref(&ref_of(&hints[0])),
        },
        &ExecOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(report.action, "click");

    // A misspelled css id finds the field by its placeholder.
    let action = Action::InputText {
        selector: Selector::css("#coupon-cod"),
        text: "X".to_owned(),
    };
    let err = execute(&action, &ExecOptions { timeout_ms: 200 })
        .await
        .unwrap_err();
    let hints = hints_for_failure(&action, &err);
    assert!(
        hints.first().is_some_and(|h| h.contains("Coupon code")),
        "{hints:?}"
    );
    // Errors another element would not cure have no hints.
    let timeout = bai::dom::ActionError::Timeout {
        waited_ms: 1,
        waiting_for: "x".to_owned(),
    };
    assert!(hints_for_failure(&action, &timeout).is_empty());
}

/// The lines of an observation without refs.
fn lines_now() -> Vec<String> {
    observe(300).elements.iter().map(|l| strip(l)).collect()
}

#[wasm_bindgen_test]
fn custom_widgets_show_their_current_value() {
    let _f = Fixture::mount(
        r#"
        <span id="age-label">Age</span>
        <div role="combobox" aria-labelledby="age-label" aria-expanded="false" tabindex="0">Thirty</div>
        <div role="combobox" aria-label="Size" aria-controls="size-list" aria-expanded="true" tabindex="0">Pick a size</div>
        <ul role="listbox" id="size-list" aria-label="Sizes"><li role="option">Small</li><li role="option" aria-selected="true">Large</li></ul>
        <div role="slider" aria-label="Volume" aria-valuenow="7" aria-valuetext="7 of 10" tabindex="0" style="width:50px;height:10px"></div>
        <label>Start <input type="date" value="2024-03-12"></label>
        <select aria-label="Native"><option>A</option><option selected>B</option></select>
        <div role="listbox" aria-label="Colors" aria-multiselectable="true"><div role="option" aria-selected="true">Red</div><div role="option" aria-selected="true">Blue</div><div role="option">Green</div></div>
        "#,
    )
    .unwrap();
    let lines = lines_now();
    let has = |line: &str| {
        assert!(
            lines.iter().any(|l| l == line),
            "no line {line:?} in {lines:#?}"
        )
    };
    has(r#"combobox "Age" value="Thirty" expanded=false"#);
    has(r#"combobox "Size" value="Large" expanded=true"#);
    has(r#"listbox "Sizes" value="Large""#);
    has(r#"option "Large" selected"#);
    has(r#"slider "Volume" value="7 of 10""#);
    has(r#"date "Start" value="2024-03-12""#);
    has(r#"combobox "Native" selected="B""#);
    has(r#"listbox "Colors" value="Red, Blue""#);
}

#[wasm_bindgen_test]
async fn clickable_elements_named_by_aria_label_are_listed() {
    let f = Fixture::mount(
        r#"
        <div role="grid" aria-label="March 2024"><div role="row">
          <div id="d12" aria-label="12 March" onclick="this.dataset.picked='yes'">12</div>
          <div aria-label="13 March" tabindex="-1">13</div>
          <div>14</div>
        </div></div>
        <table><tr><td role="gridcell" aria-label="20 March"><span onclick="">20</span></td></tr></table>
        <button role="gridcell" type="button">21</button>
        <div aria-label="Decoration">not clickable</div>
        <div role="grid"><div role="row"><div role="gridcell">30</div></div></div>
        "#,
    )
    .unwrap();
    let observation = observe(300);
    let lines: Vec<String> = observation.elements.iter().map(|l| strip(l)).collect();
    for line in [
        r#"clickable "12 March""#,
        r#"clickable "13 March""#,
        r#"clickable "20 March""#,
        r#"gridcell "21""#,
        // The grid is listed for its name (the month a model picks a day in).
        r#"grid "March 2024""#,
    ] {
        assert!(lines.iter().any(|l| l == line), "no {line:?} in {lines:#?}");
    }
    // An unnamed grid says nothing and is not listed.
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("grid ")).count(),
        1,
        "{lines:#?}"
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("Decoration") || l.contains("\"14\"")),
        "{lines:#?}"
    );
    // The ref acts on the day.
    let day = ref_of(find_line(&observation.elements, "12 March"));
    execute(
        &Action::Click {
            selector: by_ref(&day),
        },
        &ExecOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(
        f.find("#d12")
            .unwrap()
            .get_attribute("data-picked")
            .as_deref(),
        Some("yes")
    );
}

#[wasm_bindgen_test]
fn an_enhanced_select_is_listed_once_under_its_label() {
    let _f = Fixture::mount(
        r#"
        <div>
          <label for="age">Age</label>
          <select id="age" tabindex="-1" style="position:absolute;opacity:0;width:1px;height:1px"><option>Twenty</option><option selected>Thirty</option></select>
          <button type="button" aria-haspopup="listbox" aria-expanded="false" title="Thirty">Thirty</button>
        </div>
        <div>
          <label for="colour">Colour</label>
          <select id="colour" aria-hidden="true" tabindex="-1"><option selected>Red</option></select>
          <span role="combobox" aria-expanded="false" tabindex="0">Red</span>
        </div>
        <div>
          <label for="plain">Plain</label>
          <select id="plain"><option selected>One</option></select>
        </div>
        "#,
    )
    .unwrap();
    let lines = lines_now();
    assert_eq!(
        lines,
        vec![
            r#"button "Age" value="Thirty" expanded=false"#.to_owned(),
            r#"combobox "Colour" value="Red" expanded=false"#.to_owned(),
            r#"combobox "Plain" selected="One""#.to_owned(),
        ],
        "{lines:#?}"
    );
}

#[wasm_bindgen_test]
fn options_of_a_closed_list_are_not_listed() {
    let f = Fixture::mount(
        r#"
        <div id="fruit" role="combobox" aria-label="Fruit" aria-controls="fruits" aria-expanded="false" tabindex="0">Apple</div>
        <ul role="listbox" id="fruits" aria-label="Fruits"><li role="option">Apple</li><li role="option">Pear</li></ul>
        <div role="listbox" aria-label="Collapsed" style="height:0;overflow:hidden"><div role="option">Folded away</div></div>
        <div role="listbox" aria-label="Faded" style="opacity:0"><div role="option">Faded away</div></div>
        "#,
    )
    .unwrap();
    let lines = lines_now();
    assert!(!lines.iter().any(|l| l.starts_with("option")), "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l == r#"combobox "Fruit" value="Apple" expanded=false"#),
        "{lines:#?}"
    );
    // Opened, its options are listed.
    f.find("#fruit")
        .unwrap()
        .set_attribute("aria-expanded", "true")
        .unwrap();
    let lines = lines_now();
    assert!(lines.iter().any(|l| l == r#"option "Pear""#), "{lines:#?}");
}
