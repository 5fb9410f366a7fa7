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
            r#"textbox "Password" type=password value=<hidden>"#,
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
