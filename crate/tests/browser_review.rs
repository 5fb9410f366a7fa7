#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The safety review looks at what an action will really press or type into: Enter in a form
//! field is the form's submit button (also one outside the form, owned through `form=`), a key
//! without a selector goes to the focused element, `check` / `select_option` are clicks, a web
//! component's password field is a password field, a click lands on the control under the
//! pointer (an icon-only button in a nameless wrapper, a button in a shadow root), and where a
//! click goes (a link's `href`, a form's `action`, `formaction`) is judged after decoding. Runs
//! the review half of the binding the executor calls (`bindings::perform::review_here`, which
//! `perform_action` runs before acting) on live pages.

use bai::bindings::perform::review_here;
use bai::dom::fixture::{Fixture, add_style, run_script};
use bai::policy::{PolicySettings, Verdict};
use bai::protocol::action::Key;
use bai::protocol::{Action, Selector};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The verdict and the codes of its reasons, with the default settings ("once per workflow").
async fn review(action: &Action) -> (String, Vec<String>) {
    verdict_codes(action, PolicySettings::default()).await
}

async fn verdict_codes(action: &Action, settings: PolicySettings) -> (String, Vec<String>) {
    let reviewed = review_here(action, &settings, 500).await.unwrap();
    match reviewed.verdict {
        Verdict::Allow | Verdict::AllowedByRule { .. } => ("allow".into(), Vec::new()),
        Verdict::Deny { .. } => ("deny".into(), Vec::new()),
        Verdict::Ask { reasons } => (
            "ask".into(),
            reasons
                .iter()
                .map(|r| {
                    serde_json::to_value(r).unwrap()["code"]
                        .as_str()
                        .unwrap()
                        .to_owned()
                })
                .collect(),
        ),
    }
}

fn press(key: Key, css: Option<&str>) -> Action {
    Action::PressKey {
        key,
        selector: css.map(Selector::css),
    }
}

#[wasm_bindgen_test]
async fn enter_in_a_form_field_is_reviewed_as_the_submit_button() {
    let _f = Fixture::mount(
        r#"<form><input id="card" aria-label="Card number"><button type="submit">Pay now</button></form>
           <form><input id="q" aria-label="Search"><button type="submit">Search</button></form>"#,
    )
    .unwrap();
    assert_eq!(
        review(&press(Key::Enter, Some("#card"))).await,
        ("ask".into(), vec!["risky_click".into()])
    );
    assert_eq!(
        review(&press(Key::Enter, Some("#q"))).await,
        ("allow".into(), vec![])
    );
}

#[wasm_bindgen_test]
async fn a_key_without_a_selector_goes_to_the_focused_element() {
    let f = Fixture::mount(r#"<button id="del">Delete account</button>"#).unwrap();
    f.find("#del")
        .unwrap()
        .unchecked_into::<web_sys::HtmlElement>()
        .focus()
        .unwrap();
    assert_eq!(
        review(&press(Key::Space, None)).await,
        ("ask".into(), vec!["risky_click".into()])
    );
    // Tab only moves the focus on.
    assert_eq!(
        review(&press(Key::Tab, None)).await,
        ("allow".into(), vec![])
    );
}

#[wasm_bindgen_test]
async fn check_and_select_option_are_reviewed_like_clicks() {
    let _f = Fixture::mount(
        r#"<label><input type="checkbox" id="news"> Subscribe to the newsletter</label>
           <label><input type="checkbox" id="dark"> Dark mode</label>
           <select id="plan" aria-label="Plan"><option>Free</option><option>Pay yearly</option></select>"#,
    )
    .unwrap();
    let check = |css: &str| Action::Check {
        selector: Selector::css(css),
    };
    assert_eq!(
        review(&check("#news")).await,
        ("ask".into(), vec!["risky_click".into()])
    );
    assert_eq!(review(&check("#dark")).await, ("allow".into(), vec![]));
    let choose = |option: &str| Action::SelectOption {
        selector: Selector::css("#plan"),
        option: option.into(),
    };
    assert_eq!(
        review(&choose("Pay yearly")).await,
        ("ask".into(), vec!["risky_click".into()])
    );
    assert_eq!(review(&choose("Free")).await, ("allow".into(), vec![]));
}

const SHOELACE: &str = include_str!("../../tests/fixtures/build/shoelace.js");
const THEME: &str = include_str!("../../tests/fixtures/build/shoelace-light.css");

#[wasm_bindgen_test]
async fn typing_into_a_web_components_password_field_asks() {
    let style = add_style(THEME).unwrap();
    let global = js_sys::global();
    let ready_key = JsValue::from_str("__shoelaceReady");
    if js_sys::Reflect::get(&global, &ready_key)
        .unwrap()
        .is_undefined()
    {
        run_script(SHOELACE).unwrap();
    }
    let ready: js_sys::Promise = js_sys::Reflect::get(&global, &ready_key).unwrap().into();
    JsFuture::from(ready).await.unwrap();
    let _f = Fixture::mount(
        r#"<sl-input id="pass" label="Password" type="password"></sl-input>
           <sl-input id="email" label="Email" type="email"></sl-input>"#,
    )
    .unwrap();
    // The component renders its inner field asynchronously; the review waits for the host.
    let typing = |css: &str| Action::InputText {
        selector: Selector::css(css),
        text: "x".into(),
    };
    let mut verdict = review(&typing("#pass")).await;
    // Lit renders on a microtask after upgrade: until the inner field exists, the host is all
    // there is. Wait for the shadow root's field, on animation frames.
    for _ in 0..120 {
        if verdict.1.contains(&"password_field".to_string()) {
            break;
        }
        JsFuture::from(js_sys::Promise::new(&mut |resolve, _| {
            web_sys::window()
                .unwrap()
                .request_animation_frame(&resolve)
                .unwrap();
        }))
        .await
        .unwrap();
        verdict = review(&typing("#pass")).await;
    }
    assert_eq!(verdict, ("ask".into(), vec!["password_field".into()]));
    assert_eq!(review(&typing("#email")).await, ("allow".into(), vec![]));
    style.remove();
}

/// The review in "never, except for risky actions" mode: only the policy's judgement asks.
async fn review_auto(action: &Action) -> (String, Vec<String>) {
    let settings = PolicySettings {
        approval_mode: bai::policy::ApprovalMode::Auto,
        ..PolicySettings::default()
    };
    verdict_codes(action, settings).await
}

fn click(css: &str) -> Action {
    Action::Click {
        selector: Selector::css(css),
    }
}

fn ask(code: &str) -> (String, Vec<String>) {
    ("ask".into(), vec![code.into()])
}

fn allow() -> (String, Vec<String>) {
    ("allow".into(), vec![])
}

#[wasm_bindgen_test]
async fn a_click_is_judged_by_the_control_under_the_pointer() {
    let f = Fixture::mount(
        r#"<div id="tb" style="display:inline-block"><button type="button" aria-label="Delete" style="width:60px;height:40px"><svg width="16" height="16"></svg></button></div>
           <div id="host" style="display:inline-block"></div>
           <div id="plain" style="display:inline-block"><button type="button" style="width:60px;height:40px">Next</button></div>"#,
    )
    .unwrap();
    let host = f.find("#host").unwrap();
    let root = host
        .attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open))
        .unwrap();
    root.set_inner_html(r#"<button type="button" style="width:60px;height:40px">Delete</button>"#);
    assert_eq!(review_auto(&click("#tb")).await, ask("risky_click"));
    assert_eq!(review_auto(&click("#host")).await, ask("risky_click"));
    assert_eq!(review_auto(&click("#plain")).await, allow());
}

#[wasm_bindgen_test]
async fn where_a_click_goes_is_judged_after_decoding() {
    let _f = Fixture::mount(
        r#"<a id="go" href="/account/%64elete">Continue</a>
           <a id="books" href="/shop/books?page=2">Books</a>
           <form id="f1" action="/api/deleteAccount"><input name="action" value="x"><button id="save">Save</button></form>
           <form id="f2" action="/remove_user"></form><button id="outside" form="f2">Next</button>
           <form id="f3" action="/ok"><button id="fa" formaction="/x/DELETE-all">Go</button><button id="ok">Search</button></form>"#,
    )
    .unwrap();
    assert_eq!(review_auto(&click("#go")).await, ask("risky_destination"));
    assert_eq!(review_auto(&click("#books")).await, allow());
    assert_eq!(review_auto(&click("#save")).await, ask("risky_destination"));
    assert_eq!(
        review_auto(&click("#outside")).await,
        ask("risky_destination")
    );
    assert_eq!(review_auto(&click("#fa")).await, ask("risky_destination"));
    assert_eq!(review_auto(&click("#ok")).await, allow());
}

#[wasm_bindgen_test]
async fn enter_submits_through_a_default_button_outside_the_form() {
    let _f = Fixture::mount(
        r#"<form id="f4" action="/ok"><input id="amount" aria-label="Amount"></form><button form="f4">Pay now</button>
           <form id="f5" action="/ok"><input id="q" aria-label="Query"></form><button form="f5">Search</button>"#,
    )
    .unwrap();
    assert_eq!(
        review_auto(&press(Key::Enter, Some("#amount"))).await,
        ask("risky_click")
    );
    assert_eq!(review_auto(&press(Key::Enter, Some("#q"))).await, allow());
}

#[wasm_bindgen_test]
async fn keys_are_judged_by_what_they_press_and_delete_outside_a_field_asks() {
    let _f = Fixture::mount(
        r#"<button type="submit" form="k1">Delete account</button>
           <form id="k1" action="/ok"><input id="name" aria-label="Name"><button>Search</button></form>
           <form action="/ok"><button id="save">Save draft</button><button id="wipe">Delete everything</button></form>
           <form action="/ok"><input id="ok-field" aria-label="Title"><button id="wipe2">Delete everything</button></form>
           <div role="row" tabindex="0" id="row" aria-label="Invoice 42">Invoice 42</div>
           <input id="text" aria-label="Note" value="abc">"#,
    )
    .unwrap();
    // The default button is the first submit button the form owns in tree order: here the
    // one outside it and before it, not the "Search" inside.
    assert_eq!(
        review_auto(&press(Key::Enter, Some("#name"))).await,
        ask("risky_click")
    );
    // Enter on a submit button presses that button, not the form's default one.
    assert_eq!(
        review_auto(&press(Key::Enter, Some("#wipe"))).await,
        ask("risky_click")
    );
    assert_eq!(
        review_auto(&press(Key::Enter, Some("#save"))).await,
        allow()
    );
    // Delete and Backspace: page-bound outside a text field, editing inside one.
    assert_eq!(
        review_auto(&press(Key::Delete, Some("#row"))).await,
        ask("page_bound_key")
    );
    assert_eq!(
        review_auto(&press(Key::Backspace, Some("#row"))).await,
        ask("page_bound_key")
    );
    assert_eq!(
        review_auto(&press(Key::Backspace, Some("#text"))).await,
        allow()
    );
}

#[wasm_bindgen_test]
async fn roles_and_verb_position_decide_and_unknown_means_ask() {
    let _f = Fixture::mount(
        r#"<label>Favourite book <select id="fav"><option>Dune</option><option>Emma</option></select></label>
           <button id="book" type="button">Book now</button>
           <button id="details" type="button">Show book details</button>
           <div id="blank" style="width:40px;height:20px"></div>"#,
    )
    .unwrap();
    let choose = Action::SelectOption {
        selector: Selector::css("#fav"),
        option: "Emma".into(),
    };
    assert_eq!(review_auto(&choose).await, allow());
    assert_eq!(review_auto(&click("#fav")).await, allow());
    assert_eq!(review_auto(&click("#book")).await, ask("risky_click"));
    assert_eq!(review_auto(&click("#details")).await, allow());
    assert_eq!(
        review_auto(&click("#blank")).await,
        ask("unknown_activation")
    );
}

/// A form whose secret field has a rule the browser checks before sending (a `pattern`, a
/// minimum length, a format, a required secret choice) is sent or not by what the field holds:
/// submitting it asks (`secret_checked`), by its button or by Enter in another field, filled or
/// empty, whatever the form does after (a `dialog` closes, a frame loads `about:blank`). A
/// form that does not validate, a password that is only `required`, a disabled or read-only
/// field run. Backspace, Delete and Space in a secret field edit it, and ask
/// (`password_field`): with a form sent after each, they read it a character at a time (red
/// team red7, session 20).
#[wasm_bindgen_test]
async fn a_form_that_checks_a_secret_field_asks_before_it_is_sent() {
    let _f = Fixture::mount(
        r#"<form method="dialog"><input id="u1" name="email"><input id="p1" type="password" name="pw" pattern="h.*" required><button id="in1">Sign in</button></form>
           <iframe name="sink" src="about:blank"></iframe>
           <form method="post" action="about:blank" target="sink"><input id="p2" type="password" name="pw" minlength="8"><button id="in2">Log in</button></form>
           <form method="post"><select id="month" name="m" autocomplete="cc-exp-month" required><option value="">--</option><option>02</option></select><button id="in3">Save</button></form>
           <form method="post"><input id="code" name="c" autocomplete="one-time-code" type="number"><button id="in4">Verify</button></form>
           <form method="post" novalidate><input type="password" name="pw" pattern="h.*"><button id="in5">Sign in</button></form>
           <form method="post"><input type="password" name="pw" pattern="h.*"><button id="in6" formnovalidate>Sign in</button></form>
           <form method="post"><input id="u7" name="email"><input id="p7" type="password" name="pw" required><button id="in7">Sign in</button></form>
           <form method="post"><input type="password" name="pw" pattern="h.*" disabled><input type="password" name="pw2" pattern="h.*" readonly><button id="in8">Sign in</button></form>
           <form method="post"><input id="u9" name="email" pattern=".+@.+" required><input type="password" name="pw"><button id="in9">Sign in</button></form>
           <form method="post"><input id="u10" name="email"><input type="password" name="pw" pattern="h.*"><button id="in10" type="bogus">Sign in</button></form>
           <form method="post" id="f11"><input type="password" name="pw" minlength="8"></form><button id="in11" type="submit " form="f11">Log in</button>
           <form method="post"><select name="m" autocomplete="cc-exp-month" required readonly><option value="">--</option><option>02</option></select><button id="in12">Save</button></form>
           <form method="post"><fieldset><legend>PIN first digit</legend><input type="radio" name="pin1" value="1" aria-label="1"><input type="radio" name="pin1" value="2" aria-label="2"><input type="radio" name="pin1" value="none" aria-label="None of these" required></fieldset><button id="in13">Next</button></form>
           <form id="get14"><input type="password" name="x"><button id="in14" type="go">Go</button></form>"#,
    )
    .unwrap();
    let checked = ask("secret_checked");
    // A button of a type the browser does not know submits (red team red9), by a click and by
    // Enter in another field; a `readonly` `<select>` is still checked; a radio group is
    // required when any of its buttons is.
    for css in ["#in10", "#in11", "#in12", "#in13"] {
        assert_eq!(review_auto(&click(css)).await, checked, "{css}");
    }
    assert_eq!(review_auto(&press(Key::Enter, Some("#u10"))).await, checked);
    assert_eq!(review_auto(&click("#in14")).await, ask("secret_in_address"));
    for value in ["hunter2", "zzz", ""] {
        run_script(&format!("document.getElementById('p1').value = '{value}'")).unwrap();
        assert_eq!(review_auto(&click("#in1")).await, checked, "{value:?}");
        assert_eq!(
            review_auto(&press(Key::Enter, Some("#u1"))).await,
            checked,
            "{value:?}"
        );
    }
    for css in ["#in2", "#in3", "#in4"] {
        assert_eq!(review_auto(&click(css)).await, checked, "{css}");
    }
    for css in ["#in5", "#in6", "#in7", "#in8", "#in9"] {
        assert_eq!(review_auto(&click(css)).await, allow(), "{css}");
    }
    assert_eq!(review_auto(&press(Key::Enter, Some("#u7"))).await, allow());
    // Keys that edit a secret field ask; keys that only move in it run.
    for key in [Key::Backspace, Key::Delete, Key::Space] {
        for css in ["#p7", "#code"] {
            assert_eq!(
                review_auto(&press(key, Some(css))).await,
                ask("password_field"),
                "{key:?} in {css}"
            );
        }
    }
    for key in [Key::ArrowLeft, Key::Home, Key::Tab] {
        assert_eq!(
            review_auto(&press(key, Some("#p7"))).await,
            allow(),
            "{key:?}"
        );
    }
    assert_eq!(
        review_auto(&press(Key::Backspace, Some("#u7"))).await,
        allow()
    );
}

/// A form sent by GET writes its fields into the address, and the address goes back to the
/// model: submitting one that holds a secret field asks (`secret_in_address`), by Enter in a
/// field or by its harmless "Sign in" button, filled or empty. POST, `dialog`, a `formmethod`
/// that overrides, a hidden input, a disabled or nameless field decide as the browser would.
#[wasm_bindgen_test]
async fn a_get_form_holding_a_secret_field_asks_before_it_is_sent() {
    let _f = Fixture::mount(
        r#"<form id="get"><input id="u" name="email" value="ann@example.com"><input id="p" name="password" type="password"><button id="in">Sign in</button></form>
           <form id="post" method="POST"><input id="u2" name="email"><input name="password" type="password"><button id="in2">Sign in</button></form>
           <form method="dialog"><input id="u3" name="email"><input name="password" type="password"><button>Sign in</button></form>
           <form method="post"><input id="u4" name="email"><input name="password" type="password"><button id="get4" formmethod="get">Sign in</button></form>
           <form><input id="u5" name="email"><input name="password" type="password"><button id="post5" formmethod="post">Sign in</button></form>
           <form><input id="code" name="c" autocomplete="one-time-code"><button id="verify">Verify</button></form>
           <form><input id="q" name="q"><input type="hidden" name="token" value="abc"><button id="search">Search</button></form>
           <form><input id="u6" name="email"><input type="password" disabled name="password"><input type="password"><button id="in6">Sign in</button></form>
           <form id="f7"><input id="u7" name="email"><button id="in7">Sign in</button></form><input type="password" name="pw" form="f7">"#,
    )
    .unwrap();
    run_script("document.getElementById('p').value = 'hunter2'").unwrap();
    let secret = ask("secret_in_address");
    // The red team's page: Enter in the e-mail field, and the button itself.
    assert_eq!(review_auto(&press(Key::Enter, Some("#u"))).await, secret);
    assert_eq!(review_auto(&click("#in")).await, secret);
    // An empty password asks the same: whether it is empty is a bit of it.
    run_script("document.getElementById('p').value = ''").unwrap();
    assert_eq!(review_auto(&click("#in")).await, secret);
    assert_eq!(review_auto(&press(Key::Enter, Some("#u2"))).await, allow());
    assert_eq!(review_auto(&press(Key::Enter, Some("#u3"))).await, allow());
    assert_eq!(review_auto(&click("#get4")).await, secret);
    assert_eq!(review_auto(&click("#post5")).await, allow());
    assert_eq!(review_auto(&click("#verify")).await, secret);
    assert_eq!(review_auto(&press(Key::Enter, Some("#q"))).await, allow());
    assert_eq!(review_auto(&click("#in6")).await, allow());
    assert_eq!(review_auto(&press(Key::Enter, Some("#u7"))).await, secret);
}

const NESTED: &str = include_str!("fixtures/review/nested_activation.html");
const LABEL_LINK: &str = include_str!("fixtures/review/label_link.html");

#[wasm_bindgen_test]
async fn a_press_is_judged_by_everything_it_activates_up_the_ancestors() {
    let f = Fixture::mount(NESTED).unwrap();
    // A link inside a link (the parser never builds one): the outer one goes somewhere risky.
    let outer = f.find("#card1").unwrap();
    outer.set_attribute("href", "/account/delete").unwrap();
    outer.set_inner_html(
        r#"<a id="inner-ok" href="/ok" style="display:inline-block;padding:10px"><button id="b-deep" type="button">Next</button></a>"#,
    );
    // The red team's pages: a button or a role=button inside a link to a risky address.
    assert_eq!(review_auto(&click("#b2")).await, ask("risky_destination"));
    assert_eq!(review_auto(&click("#s3")).await, ask("risky_destination"));
    assert_eq!(
        review_auto(&click("#b-deep")).await,
        ask("risky_destination")
    );
    // A link inside a button named for what it does; role=link in a named onclick or
    // role=button wrapper.
    assert_eq!(review_auto(&click("#inner-link")).await, ask("risky_click"));
    assert_eq!(review_auto(&click("#role-link")).await, ask("risky_click"));
    assert_eq!(review_auto(&click("#role-link2")).await, ask("risky_click"));
    // An SVG link's address (its `href` property is not a string), `href` or `xlink:href`.
    assert_eq!(
        review_auto(&click("#svg-rect")).await,
        ask("risky_destination")
    );
    assert_eq!(
        review_auto(&click("#svg-xrect")).await,
        ask("risky_destination")
    );
    // A summary inside a link; a link that pings a risky address.
    assert_eq!(
        review_auto(&click("#summary")).await,
        ask("risky_destination")
    );
    assert_eq!(
        review_auto(&click("#pinged")).await,
        ask("risky_destination")
    );
    // Enter on a button inside a risky link is judged as the click is.
    assert_eq!(
        review_auto(&press(Key::Enter, Some("#b2"))).await,
        ask("risky_destination")
    );
    // However many harmless controls a page nests between the button and the risky link.
    let wrappers = "<span role=\"button\" aria-label=\"Open\">".repeat(20);
    f.container().insert_adjacent_html(
        "beforeend",
        &format!(r#"<a href="/account/delete">{wrappers}<button id="buried" type="button">Next</button></a>"#),
    ).unwrap();
    assert_eq!(
        review_auto(&click("#buried")).await,
        ask("risky_destination")
    );
    // Still without a question: a button in a harmless link, a button in a plain onclick
    // wrapper.
    assert_eq!(review_auto(&click("#add")).await, allow());
    assert_eq!(review_auto(&click("#next")).await, allow());
}

#[wasm_bindgen_test]
async fn check_is_judged_by_what_its_label_activates_not_by_a_link_it_never_presses() {
    let f = Fixture::mount(LABEL_LINK).unwrap();
    let check = |css: &str| Action::Check {
        selector: Selector::css(css),
    };
    // The action clicks plain text of the label, never the link in it (browser_perform):
    // the checkbox is what it activates.
    assert_eq!(review_auto(&check("#keep")).await, allow());
    assert_eq!(review_auto(&check("#custom")).await, allow());
    // A label inside a risky link: clicking the label follows the link too.
    f.container().insert_adjacent_html(
        "beforeend",
        r#"<input type="checkbox" id="k2" style="position:absolute;opacity:0;width:0;height:0"><a href="/account/delete" style="display:inline-block"><label for="k2">Keep</label></a>"#,
    ).unwrap();
    assert_eq!(review_auto(&check("#k2")).await, ask("risky_destination"));
    // A checkbox inside a risky link, checked through its label elsewhere: the label's click
    // on the checkbox bubbles up to the link.
    f.container().insert_adjacent_html(
        "beforeend",
        r#"<a href="/account/delete"><input type="checkbox" id="k3" style="position:absolute;opacity:0;width:0;height:0"></a><label for="k3">Keep</label>"#,
    ).unwrap();
    assert_eq!(review_auto(&check("#k3")).await, ask("risky_destination"));
}

/// Third red team (session 11): ways around the review of what a press activates.
#[wasm_bindgen_test]
async fn slots_shadowed_form_lists_blank_names_and_choices_that_submit_are_judged() {
    let f = Fixture::mount(
        r#"<x-card id="card"><span id="s">Continue</span></x-card>
           <form id="g" action="/landing"><input name="user" value="ann"><input type="password" id="p" name="p"><input type="hidden" name="elements" value="1"><button id="go">Sign in</button></form>
           <form action="/landing"><input name="user" value="ann"><input type="password" name=" "><button id="go2">Sign in</button></form>
           <form method="post" action="/account/delete"><select id="plan" onchange="this.form.submit()"><option>Monthly</option><option>Yearly</option></select>
             <input type="checkbox" id="c" onchange="this.form.submit()"><label for="c">Remind me</label></form>
           <form method="post" action="/settings"><select id="plan2"><option>Monthly</option><option>Yearly</option></select></form>
           <form method="post"><select id="plan3" onchange="this.form.requestSubmit(document.getElementById('del'))"><option>Monthly</option><option>Yearly</option></select><button id="del" formaction="/account/delete" hidden></button></form>
           <form method="post"><select id="plan4"><option>Monthly</option><option>Yearly</option></select><button>Save</button></form>"#,
    )
    .unwrap();
    // A light-DOM child slotted into a link inside the host's shadow root: the click goes
    // through the link.
    run_script(
        "const host = document.getElementById('card'); host.attachShadow({mode: 'open'}).innerHTML = '<a href=\"/account/delete?confirm=1\"><slot></slot></a>';",
    )
    .unwrap();
    assert_eq!(review_auto(&click("#s")).await, ask("risky_destination"));
    // A control named `elements` hides `form.elements`: the password field is still seen.
    assert_eq!(review_auto(&click("#go")).await, ask("secret_in_address"));
    // A name of one space is sent (`+=…`).
    assert_eq!(review_auto(&click("#go2")).await, ask("secret_in_address"));
    // A choice whose change submits the form is judged by where the form goes.
    let choose = |css: &str| Action::SelectOption {
        selector: Selector::css(css),
        option: "Yearly".into(),
    };
    assert_eq!(
        review_auto(&choose("#plan")).await,
        ask("risky_destination")
    );
    let check = Action::Check {
        selector: Selector::css("#c"),
    };
    assert_eq!(review_auto(&check).await, ask("risky_destination"));
    assert_eq!(review_auto(&choose("#plan2")).await, allow());
    // A form sent back to its own page, unless a submit button it owns sends it elsewhere.
    assert_eq!(
        review_auto(&choose("#plan3")).await,
        ask("risky_destination")
    );
    assert_eq!(review_auto(&choose("#plan4")).await, allow());
    drop(f);
}

/// The red team of session 14: words the user sees on a button outside its name and the first
/// 200 characters of its text were never judged. An image marked presentational has no part in
/// the name, yet its alt shows while it fails to load; a hidden prefix of 220 characters pushed
/// "Delete account" past what the review read.
#[wasm_bindgen_test]
async fn words_shown_outside_the_name_and_the_first_200_characters_are_judged() {
    let padding = "x ".repeat(110);
    let _f = Fixture::mount(&format!(
        r#"<button type="button" id="img"><img role="presentation" alt="Delete account" src="data:,">OK</button>
           <button type="button" id="tip" title="Delete account">OK</button>
           <button type="button" id="pad" aria-label="Close"><span style="display:none">{padding}</span>Delete account</button>
           <button type="button" id="ok" aria-label="Close"><span style="display:none">{padding}</span>Close <img alt="" src="data:,"></button>
           <input id="field" aria-label="Notes" title="Delete account">"#
    ))
    .unwrap();
    let click = |css: &str| Action::Click {
        selector: Selector::css(css),
    };
    for css in ["#img", "#tip", "#pad"] {
        assert_eq!(
            review(&click(css)).await,
            ("ask".into(), vec!["risky_click".into()]),
            "{css}"
        );
    }
    assert_eq!(review(&click("#ok")).await, ("allow".into(), vec![]));
    // A field's title says what it holds, not what it does: not at the verb position.
    assert_eq!(review(&click("#field")).await, ("allow".into(), vec![]));
}

/// The red team of session 14: Tab on a combobox chose its active option with no question, as
/// react-select (`tabSelectsValue`) and Downshift (selection on blur) do. Tab is judged as Enter
/// when an option is active, and chooses nothing when none is.
#[wasm_bindgen_test]
async fn tab_on_a_combobox_is_judged_by_its_active_option() {
    let _f = Fixture::mount(
        r#"<input id="risky" role="combobox" aria-label="Account action" aria-expanded="true" aria-controls="risky-list" aria-activedescendant="risky-2">
           <ul role="listbox" id="risky-list"><li role="option" id="risky-1">Rename account</li><li role="option" id="risky-2">Delete account</li></ul>
           <input id="shop" role="combobox" aria-label="Search the shop" aria-expanded="true" aria-controls="shop-list" aria-activedescendant="shop-1">
           <ul role="listbox" id="shop-list"><li role="option" id="shop-1">Shoes</li><li role="option" id="shop-2">Delete account</li></ul>
           <input id="closed" role="combobox" aria-label="Account action" aria-expanded="false" aria-controls="closed-list">
           <ul role="listbox" id="closed-list" hidden><li role="option">Delete account</li></ul>"#,
    )
    .unwrap();
    assert_eq!(
        review(&press(Key::Tab, Some("#risky"))).await,
        ("ask".into(), vec!["risky_click".into()])
    );
    assert_eq!(
        review(&press(Key::Tab, Some("#shop"))).await,
        ("allow".into(), vec![])
    );
    assert_eq!(
        review(&press(Key::Tab, Some("#closed"))).await,
        ("allow".into(), vec![])
    );
}

/// The red team of session 14: the words of a control past its first 200 characters were read
/// whole, so a control holding megabytes of text made every review scan all of it. The review
/// reads 16 KiB of them (`MAX_MORE_TEXT_BYTES`) and asks (`text_too_long`) when more was left
/// unread, whatever the rest says; a control just under the bound runs, a risky word within it
/// still asks as risky, and a field's text (not at the verb position) is not asked about.
#[wasm_bindgen_test]
async fn a_control_whose_text_is_too_long_to_judge_asks() {
    use bai::dom::review::MAX_MORE_TEXT_BYTES;
    let under = "word ".repeat((MAX_MORE_TEXT_BYTES - 400) / 5);
    let over = "word ".repeat(400_000);
    let _f = Fixture::mount(&format!(
        r#"<button type="button" id="under" aria-label="Close"><span style="display:none">{under}</span>Close</button>
           <button type="button" id="over" aria-label="Close"><span style="display:none">{over}</span>Close</button>
           <button type="button" id="over-title" aria-label="Close"><img alt="" title="{over}" src="data:,">Close</button>
           <button type="button" id="risky" aria-label="Close"><span style="display:none">{under}</span>Delete account<span style="display:none">{over}</span></button>
           <div role="tab" tabindex="0" id="tab"><span style="display:none">{over}</span>Notes</div>"#
    ))
    .unwrap();
    assert_eq!(review_auto(&click("#under")).await, allow());
    assert_eq!(review_auto(&click("#over")).await, ask("text_too_long"));
    assert_eq!(
        review_auto(&click("#over-title")).await,
        ask("text_too_long")
    );
    assert_eq!(review_auto(&click("#risky")).await, ask("risky_click"));
    assert_eq!(review_auto(&click("#tab")).await, allow());
}

/// A name built from pieces the page renders apart is judged in runs too (red team, session
/// 15): browsers join an owned element, an inline element with a gap at its edge, or generated
/// content to the text beside it as laid out, so a checkbox owning a "delete" placed after its
/// "keep" is named "keepdelete" (in both browsers), where no word is risky. Read with a break
/// between pieces drawn apart, "delete" is found, wherever it is glued (before or after) and
/// whichever piece holds it: the name, the text beside an `aria-label`, a tab's short name, a
/// control inside what is clicked. Words split over elements ("De<b>lete</b>") still count as
/// one. `#before` (a plain `<span>delete</span>` then "keep", drawn flush) asked up to session
/// 16; the user sees one word, "deletekeep", and what the user sees as one word is one word
/// (red team, session 16): it now runs, and the same markup with a margin between asks.
#[wasm_bindgen_test]
async fn a_risky_word_glued_to_another_by_markup_is_still_found() {
    let style = add_style(
        ".glued-after::after { content: 'delete' } .glued-gap { margin-left: 0.4em } \
         .glued-end { margin-right: 0.4em } .icon::before { content: ''; padding-left: 6px } \
         .flat::before { content: '' } .unseen::before { content: 'x'; visibility: hidden }",
    )
    .unwrap();
    let f = Fixture::mount(
        r##"<p><span id="owner" role="checkbox" aria-checked="false" tabindex="0" aria-owns="owned"><span>keep</span></span> the photos, or <span id="owned">delete</span> them</p>
           <p><a id="link" href="#keep" aria-owns="owned2">keep</a> the photos, or <span id="owned2">delete</span></p>
           <p><button id="before" type="button"><span>delete</span>keep</button>
              <button id="before-gap" type="button"><span class="glued-end">delete</span>keep</button></p>
           <p><button id="empty-box" type="button">keep<span class="icon">delete</span></button>
              <button id="unseen-box" type="button">keep<span class="unseen">delete</span></button>
              <button id="empty-box-label" type="button" aria-label="Keep">keep<span class="icon">delete</span></button>
              <button id="flat-box" type="button">keep<span class="flat">photos</span>delete</button>
              <button id="flat-box-label" type="button" aria-label="Keep">keep<span class="flat">photos</span>delete</button>
              <button id="owner-in" type="button"><span aria-owns="owned3">photos</span>keep</button> <span id="owned3">delete</span></p>
           <p><button id="gap" type="button">keep<span class="glued-gap">delete</span></button></p>
           <p><button id="labelled" type="button" aria-label="Keep">keep<span class="glued-gap">delete</span></button></p>
           <p><button id="pseudo" type="button" class="glued-after">keep</button></p>
           <div role="tablist"><div id="tab" role="tab" tabindex="0">photos<span class="glued-gap">delete</span></div></div>
           <div id="card" onclick="void 0" style="padding:4px">Photo <button type="button">keep<span class="glued-gap">delete</span></button></div>
           <p><button id="split" type="button">De<b>lete</b></button>
              <button id="harmless" type="button">keep<span class="glued-gap">photos</span></button></p>
           <p><button id="hidden-gap" type="button">keep<span style="visibility:hidden">xx</span>delete</button>
              <button id="hidden-gap-label" type="button" aria-label="Keep">keep<span style="visibility:hidden">xx</span>delete</button>
              <button id="hidden-empty" type="button">keep<span style="visibility:hidden"></span>delete</button></p>"##,
    )
    .unwrap();
    let name = |css: &str| bai::dom::accname::accessible_name(&f.find(css).unwrap());
    // The names are as the browsers compute them: glued.
    assert_eq!(name("#owner"), "keepdelete");
    assert_eq!(name("#link"), "keepdelete");
    assert_eq!(name("#gap"), "keepdelete");
    assert_eq!(name("#pseudo"), "keepdelete");
    let check = Action::Check {
        selector: Selector::css("#owner"),
    };
    assert_eq!(review_auto(&check).await, ask("risky_click"), "#owner");
    for css in [
        "#owner",
        "#link",
        "#before-gap",
        "#empty-box",
        "#empty-box-label",
        "#unseen-box",
        "#owner-in",
        "#gap",
        "#labelled",
        "#pseudo",
        "#tab",
        "#card",
        "#split",
        "#hidden-gap",
        "#hidden-gap-label",
    ] {
        assert_eq!(review_auto(&click(css)).await, ask("risky_click"), "{css}");
    }
    // A hidden box with no text takes no room: one word.
    assert_eq!(review_auto(&click("#hidden-empty")).await, allow());
    assert_eq!(review_auto(&click("#harmless")).await, allow());
    assert_eq!(review_auto(&click("#before")).await, allow());
    // An empty generated box drawn flush is no gap: "keepphotosdelete" is one word.
    assert_eq!(review_auto(&click("#flat-box")).await, allow());
    assert_eq!(review_auto(&click("#flat-box-label")).await, allow());
    drop(f);
    style.remove();
}

/// Pieces drawn as one word are read as one word (red team, session 16: a break went in at
/// every text node and inline element, so React's adjacent text nodes `Order<!-- -->s` asked
/// "order", `<b>Book</b>shelf` asked "book", and an autocomplete's highlighted prefix
/// `<b>Pay</b>roll` made every suggestion ask). A break goes in only where a gap is drawn:
/// padding at the touching edge, a box moved from its place (not a `position: relative` one
/// left in place), letters spaced apart unlike their parent's, a box of its own; in the name
/// and in the text alike (`#shelf-label`'s name is an `aria-label`, its text holds the pieces).
#[wasm_bindgen_test]
async fn pieces_drawn_as_one_word_are_one_word() {
    let f = Fixture::mount(
        r##"<p><a id="orders" href="#list">Order<!-- -->s</a>
              <button id="shelf" type="button"><b>Book</b>shelf</button>
              <button id="shelf-label" type="button" aria-label="Shelf"><b>Book</b>shelf</button>
              <button id="shelf-spaced" type="button" style="letter-spacing: 0.2em"><b>Book</b>shelf</button>
              <button id="shelf-relative" type="button"><b style="position: relative">Book</b>shelf</button>
              <button id="shelf-end" type="button"><b style="font-size: 1.2em; color: red">Book</b><!-- -->shelf</button></p>
           <div id="suggest" role="listbox" aria-label="Suggestions" tabindex="0">
             <div role="option" data-value="a"><b>Pay</b>roll</div>
             <div role="option" data-value="b"><b>Pay</b>roll reports</div>
           </div>
           <p><button id="pay-padded" type="button"><b style="padding-right: 2px">Pay</b>roll</button>
              <button id="pay-label" type="button" aria-label="Payroll"><b style="padding-right: 2px">Pay</b>roll</button>
              <button id="pay-moved" type="button">roll<b style="position: relative; left: 6px">pay</b></button>
              <button id="pay-spaced" type="button"><b style="letter-spacing: 0.5em">Pay</b>roll</button>
              <button id="pay-block" type="button"><b style="display: inline-block">Pay</b>roll</button></p>"##,
    )
    .unwrap();
    let name = |css: &str| bai::dom::accname::accessible_name(&f.find(css).unwrap());
    assert_eq!(name("#orders"), "Orders");
    assert_eq!(name("#shelf"), "Bookshelf");
    for css in [
        "#orders",
        "#shelf",
        "#shelf-label",
        "#shelf-spaced",
        "#shelf-relative",
        "#shelf-end",
    ] {
        assert_eq!(review_auto(&click(css)).await, allow(), "{css}");
    }
    let choose = |value: &str| Action::SelectOption {
        selector: Selector::css("#suggest"),
        option: value.into(),
    };
    assert_eq!(review_auto(&choose("a")).await, allow(), "Payroll");
    assert_eq!(review_auto(&choose("b")).await, allow(), "Payroll reports");
    assert_eq!(
        review_auto(&press(Key::ArrowDown, Some("#suggest"))).await,
        allow(),
        "a key in the suggestions"
    );
    for css in [
        "#pay-padded",
        "#pay-label",
        "#pay-moved",
        "#pay-spaced",
        "#pay-block",
    ] {
        assert_eq!(review_auto(&click(css)).await, ask("risky_click"), "{css}");
    }
}

/// A word glued in the runs is judged with its pieces and the word before, not dropped because
/// the whole name holds it elsewhere (red team, session 16: "never delete or keep" + a "delete"
/// set apart was allowed: the glued "delete" was a known word of the name, negated there).
#[wasm_bindgen_test]
async fn a_glued_word_the_name_holds_negated_elsewhere_still_asks() {
    let style = add_style(".glued-gap { margin-left: 0.4em }").unwrap();
    let _f = Fixture::mount(
        r#"<p><button id="negated" type="button">never delete or keep<span class="glued-gap">delete</span></button>
              <button id="negated-label" type="button" aria-label="Photos">never delete or keep<span class="glued-gap">delete</span></button>
              <button id="negated-only" type="button">never delete or keep<span class="glued-gap">photos</span></button></p>"#,
    )
    .unwrap();
    assert_eq!(review_auto(&click("#negated")).await, ask("risky_click"));
    assert_eq!(
        review_auto(&click("#negated-label")).await,
        ask("risky_click")
    );
    // A negation lowers no risk (session 20).
    assert_eq!(
        review_auto(&click("#negated-only")).await,
        ask("risky_click")
    );
    style.remove();
}

/// An arrow key on a native radio group or `<select>` reads the radio button or option it moves
/// to in runs too, as a click on it is (red team, session 16: the joined "keepdelete" ran).
#[wasm_bindgen_test]
async fn an_arrow_key_onto_a_glued_radio_or_option_asks() {
    let style = add_style(".glued-gap { margin-left: 0.4em }").unwrap();
    let f = Fixture::mount(
        r#"<fieldset><input type="radio" name="glued" id="r-keep" aria-label="Keep" checked>
             <label><input type="radio" name="glued" id="r-glued">keep<span class="glued-gap">delete</span></label></fieldset>
           <fieldset><input type="radio" name="flush" id="f-keep" aria-label="Keep" checked>
             <label><input type="radio" name="flush" id="f-glued">keep<span>photos</span></label></fieldset>
           <select id="sel"><option>Keep</option><option id="glued-option">x</option></select>
           <select id="sel-harmless"><option>Keep</option><option id="harmless-option">x</option></select>"#,
    )
    .unwrap();
    // The HTML parser keeps no element in an option; script can.
    f.find("#glued-option")
        .unwrap()
        .set_inner_html(r#"keep<span class="glued-gap">delete</span>"#);
    f.find("#harmless-option")
        .unwrap()
        .set_inner_html(r#"keep<span class="glued-gap">photos</span>"#);
    assert_eq!(
        bai::dom::accname::accessible_name(&f.find("#r-glued").unwrap()),
        "keepdelete"
    );
    assert_eq!(
        review_auto(&press(Key::ArrowDown, Some("#r-keep"))).await,
        ask("risky_click")
    );
    assert_eq!(
        review_auto(&press(Key::ArrowDown, Some("#f-keep"))).await,
        allow()
    );
    assert_eq!(
        review_auto(&press(Key::ArrowDown, Some("#sel"))).await,
        ask("risky_click")
    );
    assert_eq!(
        review_auto(&press(Key::ArrowDown, Some("#sel-harmless"))).await,
        allow()
    );
    style.remove();
}

/// Whitespace does not count against how far the text is read in runs (red team, session 16:
/// 17,300 spaces before a glued word pushed it past the bound, and no `text_too_long` asked,
/// since the text's words, one space apart, were well inside it).
#[wasm_bindgen_test]
async fn whitespace_does_not_push_a_glued_word_out_of_the_runs() {
    let style = add_style(".glued-gap { margin-left: 0.4em }").unwrap();
    let spaces = " ".repeat(17_300);
    let _f = Fixture::mount(&format!(
        r#"<p><button id="spaced" type="button" aria-label="Keep photos">{spaces}keep<span class="glued-gap">delete</span></button>
              <button id="spaced-harmless" type="button" aria-label="Keep photos">{spaces}keep<span class="glued-gap">photos</span></button></p>"#
    ))
    .unwrap();
    assert_eq!(review_auto(&click("#spaced")).await, ask("risky_click"));
    assert_eq!(review_auto(&click("#spaced-harmless")).await, allow());
    style.remove();
}

/// A choice in a form that posts elsewhere is judged by where the form goes, not by the form's
/// words (red team, session 16): markup without whitespace between tags (React, minified)
/// glues "Notifications" and "Send test email" in the form's text read in runs, and a form
/// with a "Delete account" button past its first 200 characters holds it in `more_text`;
/// neither makes its checkboxes ask. A form going to a risky address still asks.
#[wasm_bindgen_test]
async fn a_choice_in_a_form_is_judged_by_where_it_goes_not_by_its_words() {
    let long = "Choose what we send you. ".repeat(12);
    let f = Fixture::mount(&format!(
        r#"<form method="post" action="/settings/save"><h2>Notifications</h2><label><input type="checkbox" id="glued">Email me</label><button>Send test email</button></form><form method="post" action="/settings/save"><p>{long}</p><label><input type="checkbox" id="long">Email me</label><button type="button">Delete account</button></form><form method="post" action="/account/delete"><label><input type="checkbox" id="risky" onchange="this.form.requestSubmit()">Sure</label></form>"#
    ))
    .unwrap();
    let check = |css: &str| Action::Check {
        selector: Selector::css(css),
    };
    assert_eq!(review_auto(&check("#glued")).await, allow(), "#glued");
    assert_eq!(review_auto(&check("#long")).await, allow(), "#long");
    assert_eq!(
        review_auto(&check("#risky")).await,
        ask("risky_destination"),
        "#risky"
    );
    drop(f);
}

/// `<select role=region>` without an author's name is a combobox in both browsers (the region
/// needs a name; `browser_accname` holds the cases), and is judged as the same select without
/// the role: its name at the verb position only (a field), its options as what a click may
/// choose, the option `select_option` chooses as a choice. Named by `aria-label` it is a
/// region, judged as a command (its name anywhere: "Photos to delete" asks).
#[wasm_bindgen_test]
async fn a_select_with_an_unnamed_region_role_is_judged_as_a_select() {
    let f = Fixture::mount(
        r#"<label>Photos <select id="plain-region" role="region"><option>None</option><option>Delete all</option></select></label>
           <select id="named-region" role="region" aria-label="Photos to delete"><option>Yes</option></select><label>Photos <select id="plain"><option>None</option><option>Delete all</option></select></label>"#,
    )
    .unwrap();
    let role = |css: &str| bai::dom::roles::role_of(&f.find(css).unwrap());
    assert_eq!(role("#plain-region").as_deref(), Some("combobox"));
    assert_eq!(role("#named-region").as_deref(), Some("region"));
    // Judged as the same select without the role (a click asks for its options' words).
    assert_eq!(
        review_auto(&click("#plain-region")).await,
        review_auto(&click("#plain")).await
    );
    let choose = |option: &str| Action::SelectOption {
        selector: Selector::css("#plain-region"),
        option: option.into(),
    };
    assert_eq!(review_auto(&choose("Delete all")).await, ask("risky_click"));
    assert_eq!(review_auto(&choose("None")).await, allow());
    assert_eq!(
        review_auto(&click("#named-region")).await,
        ask("risky_click")
    );
}

/// An option is judged in runs too (red team, session 15): a custom list's option that shows
/// "keep" and, apart, "delete" is named "keepdelete" but choosing it asks, as choosing a plain
/// "delete" one does; an option of harmless words does not; an arrow key that may move the
/// list's choice onto it asks too.
#[wasm_bindgen_test]
async fn an_option_whose_risky_word_is_glued_by_markup_asks() {
    let style = add_style(".glued-gap { margin-left: 0.4em }").unwrap();
    let _f = Fixture::mount(
        r#"<div id="glued-list" role="listbox" aria-label="Photos" tabindex="0">
             <div role="option" data-value="a">keep<span class="glued-gap">delete</span></div>
             <div role="option" data-value="b">keep<span class="glued-gap">photos</span></div>
           </div>"#,
    )
    .unwrap();
    let choose = |value: &str| Action::SelectOption {
        selector: Selector::css("#glued-list"),
        option: value.into(),
    };
    assert_eq!(review_auto(&choose("a")).await, ask("risky_click"));
    assert_eq!(review_auto(&choose("b")).await, allow());
    // A key that moves the choice in the list may choose it: judged in runs as well.
    assert_ne!(
        review_auto(&press(Key::ArrowDown, Some("#glued-list"))).await,
        allow()
    );
    style.remove();
}

/// Text a shadow tree shows is judged whatever the name says: a custom button named "Close" by
/// `aria-label` that draws "Delete account" in its shadow tree asks (red team, session 16, §5.7:
/// `textContent` never reaches shadow trees, so it was allowed), also two shadow trees deep;
/// one that draws "Close" is allowed; a `<style>` in the tree is not read as words.
#[wasm_bindgen_test]
async fn text_a_shadow_tree_shows_is_judged_whatever_the_name_says() {
    let f = Fixture::mount(
        r#"<x-action id="shadow-delete" role="button" tabindex="0" aria-label="Close"></x-action>
           <x-action id="shadow-close" role="button" tabindex="0" aria-label="Close"></x-action>
           <x-outer id="nested" role="button" tabindex="0" aria-label="Close"></x-outer>"#,
    )
    .unwrap();
    run_script(
        r#"document.getElementById('shadow-delete').attachShadow({ mode: 'open' }).innerHTML = '<span>Delete account</span>';
           document.getElementById('shadow-close').attachShadow({ mode: 'open' }).innerHTML = '<style>.delete-account { color: red }</style><span class="delete-account">Close</span>';
           const inner = document.createElement('x-inner');
           document.getElementById('nested').attachShadow({ mode: 'open' }).append(inner);
           inner.attachShadow({ mode: 'open' }).innerHTML = '<b>Delete</b> account';"#,
    )
    .unwrap();
    assert_eq!(
        review_auto(&click("#shadow-delete")).await,
        ask("risky_click"),
        "#shadow-delete"
    );
    assert_eq!(
        review_auto(&click("#nested")).await,
        ask("risky_click"),
        "#nested"
    );
    assert_eq!(
        review_auto(&click("#shadow-close")).await,
        allow(),
        "#shadow-close"
    );
    drop(f);
}

/// Text is judged as it is drawn, not only in the page's order (red team red3, session 17):
/// letters drawn right to left (`<bdo dir=rtl>eteled</bdo>`, U+202E, `unicode-bidi:
/// bidi-override`), pieces put in another order (`row-reverse`, `order`), letters that take
/// room unseen (`opacity: 0`, transparent, clipped away), a line broken where the text has no
/// space (`<wbr>`, U+200B), a gap drawn on the other side in a right-to-left box: each shows
/// "delete" (or "keep" and "delete" apart) where the name and the text read another word, and
/// asks. What is drawn as one word stays one word: gradient text with transparent letters, a
/// Hebrew word, a word the browser wraps inside (`word-break: break-all`), a label wrapping
/// over lines.
#[wasm_bindgen_test]
async fn text_is_judged_as_it_is_drawn() {
    let f = Fixture::mount(
        r#"<p><button id="bdo" type="button"><bdo dir="rtl">eteled</bdo></button>
              <button id="rlo" type="button">&#x202E;eteled</button>
              <button id="override" type="button" style="unicode-bidi: bidi-override; direction: rtl">eteled</button>
              <button id="nested" type="button"><bdo dir="rtl"><span>ete</span><b>led</b></bdo></button></p>
           <p><button id="reverse" type="button"><span style="display: inline-flex; flex-direction: row-reverse"><span>ete</span><span>del</span></span></button>
              <button id="order" type="button" style="display: inline-flex"><span style="order: 2">ete</span><span style="order: 1">del</span></button></p>
           <p><button id="opacity" type="button">keep<span style="opacity: 0">xx</span>delete</button>
              <button id="transparent" type="button">keep<span style="color: transparent">xx</span>delete</button>
              <button id="clipped" type="button">keep<span style="clip-path: inset(50%)">xx</span>delete</button></p>
           <p><button id="wbr" type="button" style="width: min-content">keep<wbr>delete</button>
              <button id="zwsp" type="button" style="width: min-content">keep&#x200B;delete</button></p>
           <div dir="rtl"><button id="rtl-gap" type="button"><span style="margin-left: 0.5em">delete</span>keep</button></div>
           <p><button id="mspace" type="button"><math><mi>keep</mi><mspace width="1em"></mspace><mi>delete</mi></math></button></p>
           <p><button id="gradient" type="button" style="background-image: linear-gradient(red, blue); -webkit-background-clip: text; background-clip: text; color: transparent">Book<b>shelf</b></button>
              <button id="hebrew" type="button">שלום</button>
              <button id="break-all" type="button" style="width: 3ch; word-break: break-all; font-family: monospace">Repayment</button>
              <button id="wrapping" type="button" style="width: 6em">Save the photos to the album</button>
              <button id="flush-reverse" type="button"><span style="display: inline-flex; flex-direction: row-reverse"><span>shelf</span><span>Book</span></span></button></p>"#,
    )
    .unwrap();
    let name = |css: &str| bai::dom::accname::accessible_name(&f.find(css).unwrap());
    // The names hold no "delete" as a word.
    assert!(name("#bdo").contains("eteled"));
    assert!(name("#rlo").contains("eteled"));
    assert_eq!(name("#opacity"), "keepxxdelete");
    assert_eq!(name("#wbr"), "keepdelete");
    // The drawn reading, as the browser draws it.
    let drawn =
        |css: &str| bai::dom::secret::drawn_text_without_secrets(&f.find(css).unwrap()).text;
    assert_eq!(drawn("#bdo"), "delete");
    assert_eq!(drawn("#reverse"), "delete");
    // (Read across the room the unseen letters take too.)
    assert_eq!(drawn("#opacity"), "keep delete | keepdelete");
    assert_eq!(drawn("#wbr"), "keep delete");
    assert_eq!(drawn("#gradient"), "Bookshelf");
    // Read whole, and (a wrap can show two words) at every line break too.
    assert!(drawn("#break-all").starts_with("Repayment |"));
    assert_eq!(drawn("#wrapping"), "Save the photos to the album");
    for css in [
        "#bdo",
        "#rlo",
        "#override",
        "#nested",
        "#reverse",
        "#order",
        "#opacity",
        "#transparent",
        "#clipped",
        "#wbr",
        "#zwsp",
        "#rtl-gap",
        "#mspace",
    ] {
        assert_eq!(
            review_auto(&click(css)).await,
            ask("risky_click"),
            "{css}: drawn {:?}",
            drawn(css)
        );
    }
    for css in [
        "#gradient",
        "#hebrew",
        "#break-all",
        "#wrapping",
        "#flush-reverse",
    ] {
        assert_eq!(
            review_auto(&click(css)).await,
            allow(),
            "{css}: drawn {:?}",
            drawn(css)
        );
    }
    drop(f);
}

/// A first letter drawn apart by its own margin (`::first-letter`) is a word apart; the
/// browsers draw it in the text node's box (red team red3, session 17, A5). Firefox stops
/// drawing that margin once the document has had right-to-left text (the test before this one
/// in this file mounts some): there the reading follows what is drawn, measured here first.
#[wasm_bindgen_test]
async fn a_first_letter_drawn_apart_is_a_word_apart() {
    let f = Fixture::mount(
        r#"<style>.spaced-first::first-letter { margin-right: 0.5em }</style>
           <p><span id="first-letter" role="button" tabindex="0" class="spaced-first" style="display: inline-block">xdelete</span>
              <span id="first-flush" role="button" tabindex="0" style="display: inline-block">xdelete</span></p>"#,
    )
    .unwrap();
    let drawn =
        |css: &str| bai::dom::secret::drawn_text_without_secrets(&f.find(css).unwrap()).text;
    // Where the browser draws the second letter: past the first's right edge, or at it.
    let text = f.find("#first-letter").unwrap().first_child().unwrap();
    let range = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .create_range()
        .unwrap();
    let letter = |at: u32| {
        range.set_start(&text, at).unwrap();
        range.set_end(&text, at + 1).unwrap();
        range.get_bounding_client_rect()
    };
    let gap = letter(1).left() - letter(0).right();
    let navigator = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).unwrap();
    let firefox = js_sys::Reflect::get(&navigator, &"userAgent".into())
        .unwrap()
        .as_string()
        .unwrap()
        .contains("Firefox");
    if !firefox {
        assert!(gap > 4.0, "Chromium draws the margin: {gap}");
    }
    if gap > 4.0 {
        assert_eq!(drawn("#first-letter"), "x delete");
        assert_eq!(
            review_auto(&click("#first-letter")).await,
            ask("risky_click")
        );
    } else {
        assert_eq!(drawn("#first-letter"), "xdelete");
    }
    assert_eq!(drawn("#first-flush"), "xdelete");
    assert_eq!(review_auto(&click("#first-flush")).await, allow());
    drop(f);
}

/// Options and radio buttons are read as drawn too: a custom list's option or a radio's label
/// drawn "delete" right to left asks when chosen by `select_option` or an arrow key, as the
/// same list or group written plainly does; one drawn "keep" does not.
#[wasm_bindgen_test]
async fn options_and_radios_drawn_reversed_ask() {
    let f = Fixture::mount(
        r#"<div id="reversed-list" role="listbox" aria-label="Photos" tabindex="0">
             <div role="option" data-value="c">Move the photos to the shared family album for later</div>
             <div role="option" data-value="b"><bdo dir="rtl">peek</bdo></div>
             <div role="option" data-value="a"><bdo dir="rtl">eteled</bdo></div>
           </div>
           <div id="plain-list" role="listbox" aria-label="Photos" tabindex="0">
             <div role="option" data-value="c">Move the photos to the shared family album for later</div>
             <div role="option" data-value="b">keep</div>
             <div role="option" data-value="a">delete</div>
           </div>
           <fieldset><input type="radio" name="reversed" id="rv-keep" aria-label="Keep" checked>
             <label><input type="radio" name="reversed" id="rv-delete"><bdo dir="rtl">eteled</bdo></label></fieldset>
           <fieldset><input type="radio" name="kept" id="kv-keep" aria-label="Keep" checked>
             <label><input type="radio" name="kept" id="kv-other"><bdo dir="rtl">peek</bdo></label></fieldset>"#,
    )
    .unwrap();
    assert_eq!(
        bai::dom::accname::accessible_name(&f.find("#rv-delete").unwrap()),
        "eteled"
    );
    let choose = |list: &str, value: &str| Action::SelectOption {
        selector: Selector::css(list),
        option: value.into(),
    };
    assert_eq!(
        review_auto(&choose("#reversed-list", "a")).await,
        ask("risky_click")
    );
    assert_eq!(
        review_auto(&choose("#plain-list", "a")).await,
        ask("risky_click")
    );
    // Judged as the same list written plainly is.
    assert_eq!(review_auto(&choose("#plain-list", "b")).await, allow());
    assert_eq!(review_auto(&choose("#reversed-list", "b")).await, allow());
    assert_eq!(
        review_auto(&press(Key::ArrowDown, Some("#rv-keep"))).await,
        ask("risky_click")
    );
    assert_eq!(
        review_auto(&press(Key::ArrowDown, Some("#kv-keep"))).await,
        allow()
    );
    drop(f);
}

/// An option the model chooses is read as drawn, and a page may draw a field inside one (a
/// custom list's option, a customizable `<select>`): a secret field's value never reaches the
/// decision, in a custom list, in one its opener names, or an arrow key's next radio button
/// (session 20). The same lists holding a plain field with the same words ask.
#[wasm_bindgen_test]
async fn a_secret_field_drawn_inside_an_option_never_reaches_the_decision() {
    // A one-time code is drawn as typed (a password field draws dots, which the reading reads).
    let secret = r#"type="text" autocomplete="one-time-code""#;
    let plain = r#"type="text""#;
    for (value, field, expected) in [
        ("delete", secret, allow()),
        ("photos", secret, allow()),
        ("delete", plain, ask("risky_click")),
    ] {
        let f = Fixture::mount(&format!(
            r#"<div id="list" role="listbox" aria-label="Choices" tabindex="0">
                 <div role="option" data-value="a">Keep <input {field} value="{value}" aria-hidden="true" tabindex="-1"></div>
                 <div role="option" data-value="b">Other</div></div>
               <button id="opener" type="button" aria-haspopup="listbox" aria-controls="owned">Choose</button>
               <div id="owned" role="listbox" aria-label="More">
                 <div role="option" data-value="a">Keep <input {field} value="{value}" aria-hidden="true" tabindex="-1"></div></div>"#
        ))
        .unwrap();
        for list in ["#list", "#opener"] {
            let choose = Action::SelectOption {
                selector: Selector::css(list),
                option: "a".into(),
            };
            assert_eq!(
                review_auto(&choose).await,
                expected,
                "{list}: a {field} field holding {value:?}"
            );
        }
        drop(f);
    }
}

/// The drawn reading is judged whole, not only where it splits a word of the text, and reads
/// what the user sees in more layouts (red team red4, session 18): a reversed "delete" with a
/// hidden, negated copy later in the text; an icon taller than the two lines beside it; letters
/// set apart one per box; a word shown over another by a `break-all` wrap; a clip that clips
/// nothing; a transparent fill painted by a shadow; a negation moved off the screen; a decoy
/// letter nearly invisible and of no width; letters written down a column (`vertical-lr`,
/// `column-reverse`); an input button's value forced right to left. A badge drawn after the
/// title and a right-to-left
/// label ending in a Latin word stay allowed.
#[wasm_bindgen_test]
async fn the_drawn_reading_is_judged_whole_and_in_more_layouts() {
    // A highlighted code preview: 2,100 small spans (red team red5: past the budget, asked).
    let spans = "<span>let</span> <span>x</span> <span>=</span> ".repeat(700);
    let f = Fixture::mount(&format!(
        r#"<p><button id="negated-copy" type="button"><bdo dir="rtl">eteled</bdo><span style="font-size: 0"> never delete</span></button>
              <button id="tall-icon" type="button" style="display: inline-flex; align-items: center"><span style="font-size: 60px">&#x2B1B;</span><span><bdo dir="rtl">eteled</bdo><br>all photos</span></button>
              <button id="spaced" type="button" style="display: inline-flex; flex-direction: row-reverse; gap: 0.25em"><span>E</span><span>T</span><span>E</span><span>L</span><span>E</span><span>D</span></button>
              <button id="wrapped-over" type="button" style="width: 7ch; word-break: break-all; font-family: monospace">DELETEPHOTOS</button></p>
           <p><button id="no-clip" type="button"><bdo dir="rtl">et<span style="clip-path: inset(-10px)">e</span>led</bdo></button>
              <button id="shadowed" type="button"><bdo dir="rtl">et<span style="color: transparent; text-shadow: 0 0 0 #000">e</span>led</bdo></button>
              <button id="off-screen" type="button"><span style="position: absolute; left: -9999px">never</span> Delete</button>
              <button id="decoy" type="button">de<span style="opacity: 0.001; display: inline-block; width: 0">x</span>lete</button></p>
           <p><button id="vertical" type="button" style="writing-mode: vertical-lr"><bdo dir="rtl">eteled</bdo></button>
              <input id="input-value" type="button" value="eteled" style="unicode-bidi: bidi-override; direction: rtl">
              <input id="input-rlo" type="submit" value="&#x202E;eteled">
              <button id="under-background" type="button" style="background: white"><span style="position: relative; z-index: -1">never </span><bdo dir="rtl">eteled</bdo> account</button>
              <button id="clipped-decoy" type="button">de<span style="display: inline-block; width: 0; overflow: hidden; vertical-align: bottom">x</span>lete</button>
              <button id="masked-decoy" type="button">de<span style="display: inline-block; width: 0; -webkit-mask-image: linear-gradient(transparent, transparent); mask-image: linear-gradient(transparent, transparent)">x</span>lete</button>
              <button id="column" type="button" style="display: inline-flex; flex-direction: column-reverse"><span>E</span><span>T</span><span>E</span><span>L</span><span>E</span><span>D</span></button></p>
           <p><a id="badge" href="/books/12"><span style="float: right">$12</span> Children's picture book</a></p>
           <div dir="rtl"><button id="rtl-label" type="button">&#x5DE;&#x5E2;&#x5E7;&#x5D1; &#x5D0;&#x5D7;&#x5E8; Order</button>
             <a id="rtl-latin-run" href="/orders">&#x5D4;&#x5D6;&#x5DE;&#x5E0;&#x5D5;&#x5EA; Order history</a>
             <button id="half-clip" type="button" style="padding-top: 2em; clip-path: inset(50% 0 0 0)">Open photos</button></div>
           <p><a id="many-spans" href="/code/1" style="display: block; width: 600px">{spans}</a></p>"#
    ))
    .unwrap();
    for css in [
        "#negated-copy",
        "#tall-icon",
        "#spaced",
        "#wrapped-over",
        "#no-clip",
        "#shadowed",
        "#off-screen",
        "#decoy",
        "#vertical",
        "#column",
        "#input-value",
        "#input-rlo",
        "#under-background",
        "#clipped-decoy",
        "#masked-decoy",
    ] {
        let drawn = bai::dom::secret::drawn_text_without_secrets(&f.find(css).unwrap()).text;
        assert_eq!(
            review_auto(&click(css)).await,
            ask("risky_click"),
            "{css}: drawn {drawn:?}"
        );
    }
    for css in [
        "#badge",
        "#rtl-label",
        "#rtl-latin-run",
        "#half-clip",
        "#many-spans",
    ] {
        let drawn = bai::dom::secret::drawn_text_without_secrets(&f.find(css).unwrap()).text;
        assert_eq!(
            review_auto(&click(css)).await,
            allow(),
            "{css}: drawn {drawn:?}"
        );
    }
    drop(f);
}

/// A long control is read as drawn to its end without a box per letter (a paragraph's lines
/// are found by searching where each ends): a link card whose long wrapped description ends
/// in a "delete" drawn right to left asks, the same card without it runs (red team red4,
/// session 18: the reading stopped at 2,048 boxes, about 2,000 letters).
#[wasm_bindgen_test]
async fn a_long_wrapped_control_is_read_to_its_end() {
    let words = "Photos from the trip to the lake with the family in the summer ".repeat(60);
    let f = Fixture::mount(&format!(
        r#"<a id="long-risky" href="/album/1" style="display: block; width: 320px"><p>{words}</p><b><bdo dir="rtl">eteled</bdo></b></a>
           <a id="long-plain" href="/album/2" style="display: block; width: 320px"><p>{words}</p><b>Open</b></a>"#
    ))
    .unwrap();
    let drawn = bai::dom::secret::drawn_text_without_secrets(&f.find("#long-risky").unwrap());
    assert!(!drawn.cut, "read whole");
    assert!(
        drawn.text.ends_with("delete"),
        "{}",
        &drawn.text[drawn.text.len() - 40..]
    );
    assert_eq!(review_auto(&click("#long-risky")).await, ask("risky_click"));
    assert_eq!(review_auto(&click("#long-plain")).await, allow());
    drop(f);
}

/// A negation on another line of the control negates nothing: "Last backup: never" drawn above
/// "Delete account" in one button asks (red team red5, session 18).
#[wasm_bindgen_test]
async fn a_negation_ending_other_words_does_not_negate_the_command() {
    let f = Fixture::mount(
        r#"<button id="backup-never" type="button"><div>Last backup: never</div><div>Delete account</div></button>
           <button id="spelled-two" type="button">D E L E T E &nbsp; P H O T O S</button>
           <button id="dont" type="button"><div>Don't delete</div><div>Keep my account</div></button>"#,
    )
    .unwrap();
    assert_eq!(
        review_auto(&click("#backup-never")).await,
        ask("risky_click")
    );
    assert_eq!(
        review_auto(&click("#spelled-two")).await,
        ask("risky_click")
    );
    // A negation lowers no risk (`a_negation_never_makes_a_risky_verb_safe`).
    assert_eq!(review_auto(&click("#dont")).await, ask("risky_click"));
    drop(f);
}

/// A form field inside a control draws its text without a text node: its value (or
/// placeholder), a `<select>`'s chosen option, read as drawn (red team red5, session 18). A
/// secret field's value is never read: the decision is the same whatever it holds.
#[wasm_bindgen_test]
async fn a_field_inside_a_control_is_read_as_drawn() {
    let forced = "unicode-bidi: bidi-override; direction: rtl; border: 0";
    let f = Fixture::mount(&format!(
        r#"<button id="placeholder" type="button"><input placeholder="Delete" style="border: 0; width: 6em">photos</button>
           <button id="reversed-value" type="button"><input readonly value="eteled" style="{forced}; width: 6em">photos</button>
           <button id="reversed-area" type="button"><textarea readonly rows="1" style="{forced}">eteled</textarea>photos</button>
           <button id="reversed-select" type="button"><select style="{forced}"><option>eteled</option><option>keep</option></select>photos</button>
           <button id="search" type="button"><input placeholder="Search" style="border: 0; width: 6em">Go</button>
           <button id="secret-delete" type="button"><input autocomplete="one-time-code" value="delete" style="border: 0; width: 6em">Verify</button>
           <button id="secret-keep" type="button"><input autocomplete="one-time-code" value="keeps" style="border: 0; width: 6em">Verify</button>"#
    ))
    .unwrap();
    for css in [
        "#placeholder",
        "#reversed-value",
        "#reversed-area",
        "#reversed-select",
    ] {
        let drawn = bai::dom::secret::drawn_text_without_secrets(&f.find(css).unwrap()).text;
        // (The `<select>` is also judged as a control inside the button: a second reason.)
        let (decision, reasons) = review_auto(&click(css)).await;
        assert_eq!(decision, "ask", "{css}: drawn {drawn:?}");
        assert!(
            reasons.iter().all(|reason| reason == "risky_click"),
            "{css}: {reasons:?}"
        );
    }
    assert_eq!(review_auto(&click("#search")).await, allow());
    let secret_delete = review_auto(&click("#secret-delete")).await;
    assert_eq!(secret_delete, review_auto(&click("#secret-keep")).await);
    let drawn = bai::dom::secret::drawn_text_without_secrets(&f.find("#secret-delete").unwrap());
    assert!(!drawn.text.contains("delete"), "{drawn:?}");
    drop(f);
}

/// Text a `::before` or `::after` box draws is read wherever it may be drawn: moved out of its
/// flow (absolutely placed, floated, ordered first in a flex box) it can show "delete" where
/// the name, read in page order, holds "letede" (red team red5, session 18). A badge that
/// glues to no risky word, and generated text not drawn (transparent, hidden), run.
#[wasm_bindgen_test]
async fn generated_text_is_read_wherever_it_is_drawn() {
    let style = add_style(
        ".gen-abs { position: relative; padding-left: 1.3em }
         .gen-abs::after { content: 'de'; position: absolute; left: 0 }
         .gen-float::before { content: 'lete'; float: right }
         .gen-order { display: inline-flex }
         .gen-order::after { content: 'de'; order: -1 }
         .gen-reversed::after { content: 'ed'; position: absolute; left: 0; unicode-bidi: bidi-override; direction: rtl }
         .gen-badge { position: relative }
         .gen-badge::after { content: 'New'; position: absolute; top: -0.5em; right: -1em; font-size: 70% }
         .gen-unseen::after { content: 'de'; position: absolute; left: 0; opacity: 0 }",
    )
    .unwrap();
    let f = Fixture::mount(
        r#"<p><button id="gen-abs" type="button"><span class="gen-abs">lete</span></button>
              <button id="gen-float" type="button"><span class="gen-float">de</span></button>
              <button id="gen-order" type="button" class="gen-order"><span>lete</span></button>
              <button id="gen-reversed" type="button"><span class="gen-abs gen-reversed">lete</span></button></p>
           <p><button id="gen-badge" type="button" class="gen-badge">Photos</button>
              <button id="gen-unseen" type="button"><span class="gen-abs gen-unseen">lete</span></button></p>"#,
    )
    .unwrap();
    let name = |css: &str| bai::dom::accname::accessible_name(&f.find(css).unwrap());
    let drawn =
        |css: &str| bai::dom::secret::drawn_text_without_secrets(&f.find(css).unwrap()).text;
    for css in ["#gen-abs", "#gen-float", "#gen-order", "#gen-reversed"] {
        assert!(!name(css).contains("delete"), "{css}: {}", name(css));
        assert_eq!(
            review_auto(&click(css)).await,
            ask("risky_click"),
            "{css}: drawn {:?}",
            drawn(css)
        );
    }
    for css in ["#gen-badge", "#gen-unseen"] {
        assert_eq!(
            review_auto(&click(css)).await,
            allow(),
            "{css}: drawn {:?}",
            drawn(css)
        );
    }
    drop(f);
    style.remove();
}

/// A letter drawn in the color of what is behind it is not seen: a white "x" inside "de·lete"
/// on a white page, or a letter the color of its button's background, leaves "delete" as the
/// user reads it, and asks (red team red5, session 18). Text the color of a background it is
/// not drawn on (outlined, on an image) stays seen; a light label on a dark button runs.
#[wasm_bindgen_test]
async fn a_letter_drawn_in_its_backgrounds_color_is_not_seen() {
    let f = Fixture::mount(
        r##"<div style="background: white">
              <button id="on-page" type="button" style="background: white; border: 1px solid #888">de<span style="color: #fff">x</span>lete</button>
              <button id="on-button" type="button" style="background: rgb(20, 80, 200); color: white">de<span style="color: rgb(22, 82, 198)">x</span>lete</button>
              <button id="outlined" type="button" style="background: white">de<span style="color: white; -webkit-text-stroke: 1px black">x</span>lete</button>
              <button id="on-image" type="button" style="background: white">de<span style="color: white; background-image: linear-gradient(black, black)">x</span>lete</button>
              <button id="light-on-dark" type="button" style="background: #222; color: #fff">Save photos</button>
            </div>"##,
    )
    .unwrap();
    let drawn =
        |css: &str| bai::dom::secret::drawn_text_without_secrets(&f.find(css).unwrap()).text;
    // Read with the letter (the color check only adds a reading), and across its gap.
    for css in ["#on-page", "#on-button"] {
        assert_eq!(drawn(css), "dexlete | delete", "{css}");
        assert_eq!(review_auto(&click(css)).await, ask("risky_click"), "{css}");
    }
    for css in ["#outlined", "#on-image"] {
        assert_eq!(drawn(css), "dexlete", "{css}");
        assert_eq!(review_auto(&click(css)).await, allow(), "{css}");
    }
    assert_eq!(drawn("#light-on-dark"), "Save photos");
    assert_eq!(review_auto(&click("#light-on-dark")).await, allow());
    drop(f);
}

/// Text written sideways and turned to read upwards (`writing-mode: vertical-rl` with
/// `rotate(180deg)`, an axis label's idiom) is read upwards too, as the user reads it (red
/// team red5, session 18).
#[wasm_bindgen_test]
async fn a_turned_column_is_read_upwards() {
    let turned = "display: inline-block; writing-mode: vertical-rl; transform: rotate(180deg)";
    let f = Fixture::mount(&format!(
        r#"<p><button id="turned" type="button" aria-label="Photos"><span style="{turned}">delete</span></button>
              <button id="turned-letters" type="button" aria-label="Photos"><span style="{turned}"><i>d</i><i>e</i><i>l</i><i>e</i><i>t</i><i>e</i></span></button>
              <button id="turned-plain" type="button" aria-label="Photos"><span style="{turned}">photos</span></button></p>"#
    ))
    .unwrap();
    let drawn =
        |css: &str| bai::dom::secret::drawn_text_without_secrets(&f.find(css).unwrap()).text;
    for css in ["#turned", "#turned-letters"] {
        assert!(drawn(css).ends_with("d e l e t e"), "{css}: {}", drawn(css));
        assert_eq!(review_auto(&click(css)).await, ask("risky_click"), "{css}");
    }
    assert_eq!(review_auto(&click("#turned-plain")).await, allow());
    drop(f);
}

/// What the red team of session 19 found past the drawn reading: a cover drawn over a
/// background the color check takes for the text's (an inset shadow, a dark canvas), a field
/// of an unknown `type`, a broken image's alternative text, generated text glued past many
/// words; each shows "Delete account" and asks. A secret field in a shadow tree inside the
/// control is never read.
#[wasm_bindgen_test]
async fn the_drawn_reading_holds_against_covers_unknown_fields_and_images() {
    let style = add_style(
        ".late-gen { position: relative; display: block; width: 300px }
         .late-gen::before { content: 'De'; position: absolute; left: 4px; bottom: 2px }
         .late-gen small { font-size: 6px; color: #888 }",
    )
    .unwrap();
    let filler = "filler ".repeat(70);
    let f = Fixture::mount(&format!(
        r#"<p><button id="inset" type="button" style="background: #000; box-shadow: inset 0 0 0 999px #fff; color: #000"><bdo dir="rtl">tnuocca eteleD</bdo></button>
              <div id="dark-canvas" role="button" style="color: #fff"><bdo dir="rtl">tnuocca eteleD</bdo></div>
              <div id="unknown-type" role="button"><input type="foo" readonly value="&#x202E;tnuocca eteleD"></div>
              <button id="broken-image" type="button"><img alt="&#x202E;tnuocca eteleD" src="data:,x"></button>
              <button id="late-gen" type="button" class="late-gen"><small>{filler}</small><span>lete account</span></button>
              <div id="shadow-secret" role="button">Show <span class="host"></span></div></p>"#
    ))
    .unwrap();
    let host = f.find("#shadow-secret .host").unwrap();
    let shadow = host
        .attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open))
        .unwrap();
    shadow.set_inner_html(
        r#"<input type="text" name="password" autocomplete="current-password" value="hunter2">"#,
    );
    // A broken image draws its alternative text only once it failed to load.
    let image = f.find("#broken-image img").unwrap();
    bai::dom::fixture::until(|| {
        js_sys::Reflect::get(&image, &"complete".into()).is_ok_and(|done| done.is_truthy())
    })
    .await
    .unwrap();
    let drawn =
        |css: &str| bai::dom::secret::drawn_text_without_secrets(&f.find(css).unwrap()).text;
    for css in [
        "#inset",
        "#dark-canvas",
        "#unknown-type",
        "#broken-image",
        "#late-gen",
    ] {
        let (decision, _) = review_auto(&click(css)).await;
        assert_eq!(decision, "ask", "{css}: drawn {:?}", drawn(css));
    }
    assert!(
        !drawn("#shadow-secret").contains("hunter2"),
        "{}",
        drawn("#shadow-secret")
    );
    drop(f);
    style.remove();
}

/// A negation never makes a risky verb safe: "Don't delete", "Undo send" and "Never delete"
/// ask as plainly drawn as they are, so no way of hiding a "never" from the user (a span drawn
/// white, clipped, a line of its own under `::first-line`, a field's scrolled value, a cover
/// over it, a cover the pointer passes through, a first letter drawn away) can make the
/// "Delete account" the user sees run unasked (red teams red5 and red6, sessions 18-19; the
/// cover with `pointer-events: none` was the proof's last known gap, session 20).
#[wasm_bindgen_test]
async fn a_negation_never_makes_a_risky_verb_safe() {
    let style = add_style(
        ".first-line-white::first-line { color: #fff }
         .first-letter-white::first-letter { color: #fff }",
    )
    .unwrap();
    let f = Fixture::mount(
        r##"<div style="background: #fff">
              <p><button id="dont" type="button">Don't delete</button>
                 <button id="undo" type="button">Undo send</button>
                 <button id="plain-never" type="button">Never delete</button></p>
              <p><button id="white-span" type="button" style="background: linear-gradient(#fff, #fff)"><span style="color: #fff">never </span>Delete account</button>
                 <button id="clipped-span" type="button"><span style="clip-path: polygon(0 0, 0 0, 0 0)">never </span>Delete account</button>
                 <button id="first-line" type="button" class="first-line-white" style="background: #fff; display: block; width: 12em">never<br>Delete account</button>
                 <button id="first-letter" type="button" class="first-letter-white" style="background: #fff">n ever Delete account</button>
                 <button id="status" type="button"><small style="display: block">Never</small>Delete account</button>
                 <button id="indented" type="button" style="text-indent: -3.2em; overflow: hidden; width: 10em; white-space: nowrap; text-align: left">never Delete account</button></p>
              <p><span style="position: relative; display: inline-block"><button id="covered" type="button" style="background: #fff; border: 0">never Delete account</button><i style="position: absolute; left: 0; top: 0; width: 2.8em; height: 100%; background: #fff"></i></span></p>
              <p><span style="position: relative; display: inline-block"><button id="covered-through" type="button" style="background: #fff; border: 0">never Delete account</button><i style="position: absolute; left: 0; top: 0; width: 2.8em; height: 100%; background: #fff; pointer-events: none"></i></span></p>
              <div id="field" role="button"><input readonly value="never Delete account" style="text-indent: -2.95em; border: 0; width: 9em"></div>
              <input id="input-button" type="button" value="never Delete account" style="text-indent: -3.4em; width: 9em; text-align: left">
            </div>"##,
    )
    .unwrap();
    for css in [
        "#dont",
        "#undo",
        "#plain-never",
        "#white-span",
        "#clipped-span",
        "#first-line",
        "#status",
        "#indented",
        "#covered",
        "#covered-through",
        "#field",
        "#input-button",
    ] {
        let (decision, reasons) = review_auto(&click(css)).await;
        assert_eq!(decision, "ask", "{css}: {reasons:?}");
    }
    drop(f);
    style.remove();
}
