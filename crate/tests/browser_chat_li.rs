//! ChatGPT's July 2026 ("li") layout: `li[data-message-role]` items, the user's text inside a
//! `<button data-user-message-bubble>`, streaming flagged on the item itself, and the signed-out
//! shell's React-controlled textarea composer (a real React 19 component:
//! `tests/fixtures/chat-src/react-composer.js`, bundled by `scripts/build-chat-fixture`).
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests: a panic is a failing test"
)]

use bai::chat::composer::{ComposerError, PostOutcome, SendMode, post_line};
use bai::chat::transcript::observer_options;
use bai::chat::{MutationWatcher, SITES, SiteProfile, TranscriptReader, choose_profile};
use bai::dom::fixture::{Fixture, run_script};
use bai::protocol::{Message, Role};
use js_sys::{Array, Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Document, HtmlTextAreaElement};

wasm_bindgen_test_configure!(run_in_browser);

const REACT_COMPOSER: &str = include_str!("../../tests/fixtures/build/react-composer.js");

fn document() -> Document {
    web_sys::window().unwrap().document().unwrap()
}

fn li_profile() -> &'static SiteProfile {
    SITES
        .iter()
        .find(|profile| profile.name == "chatgpt-li")
        .unwrap()
}

fn user(text: &str) -> Message {
    Message {
        role: Role::User,
        text: text.to_owned(),
        complete: true,
    }
}

fn assistant(text: &str, complete: bool) -> Message {
    Message {
        role: Role::Assistant,
        text: text.to_owned(),
        complete,
    }
}

/// As reported: "You said:" attribution, the prompt in the bubble button, a real interface
/// button (edit) next to it; the reply's markdown with a code block whose language is only in
/// the class and whose copy button sits outside the code; the response actions once finished.
const CONVERSATION: &str = r#"<ol aria-label="Conversation" data-conversation-transcript>
<li data-message-role="user" id="9b1c0f1e-0000-4000-8000-000000000001"><h4 data-message-attribution>You said:</h4><button type="button" data-user-message-bubble><p data-user-message-copy>Hi
  there, indented

BAI_ACK {"nonce":"n_1"}</p></button><div data-message-actions><button type="button" aria-label="Edit message"><span>Edit</span></button></div></li>
<li data-message-role="assistant" id="9b1c0f1e-0000-4000-8000-000000000002" data-message-complete="true"><h4 data-message-attribution>ChatGPT said:</h4><div data-assistant-markdown><p>Handshake:</p><div><pre data-assistant-stream-block><code class="language-bai" data-assistant-syntax-highlighted><span>{"protocol":"BAI/0.3",</span>
<span> "workflow_id":"w-li"}</span></code></pre><span data-message-content-controls><button type="button" aria-label="Copy code" data-code-copy-state="idle"><svg></svg><span class="sr-only">Copy code</span></button></span></div><p>Done.</p></div><div data-assistant-message-actions role="group" aria-label="Response actions"><button type="button" aria-label="Copy response"><span>Copy</span></button></div></li>
</ol>"#;

#[wasm_bindgen_test]
fn roles_and_text_including_the_user_message_inside_its_button() {
    let fixture = Fixture::mount(CONVERSATION).unwrap();
    let found = choose_profile(&document(), "chatgpt.com").unwrap();
    assert_eq!(found.profile.name, "chatgpt-li");
    assert_eq!(found.messages, 2);
    let mut reader = TranscriptReader::new(document(), found.profile);
    reader.full_scan();
    assert_eq!(
        reader.take_changes(),
        vec![
            (
                0,
                user("Hi\n  there, indented\n\nBAI_ACK {\"nonce\":\"n_1\"}")
            ),
            (
                1,
                assistant(
                    "Handshake:\n```bai\n{\"protocol\":\"BAI/0.3\",\n \"workflow_id\":\"w-li\"}\n```\nDone.",
                    true
                )
            ),
        ],
        "no attribution, Edit, Copy code or Copy response text; the prompt is kept"
    );
    drop(fixture);
}

#[wasm_bindgen_test]
fn a_user_message_without_its_copy_paragraph_is_still_read_from_the_bubble() {
    // If the paragraph's attribute goes away, the whole item is read: the bubble is a button,
    // but not interface; the Edit button still is.
    let html = r#"<ol><li data-message-role="user" id="u"><h4 data-message-attribution>You said:</h4><div><button data-user-message-bubble><p>go on</p></button><button type="button">Edit</button></div></li></ol>"#;
    let fixture = Fixture::mount(html).unwrap();
    let mut reader = TranscriptReader::new(document(), li_profile());
    reader.full_scan();
    let changes = reader.take_changes();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].1.text.trim(), "go on");
    drop(fixture);
}

#[wasm_bindgen_test]
fn a_streaming_reply_under_a_pending_id_becomes_complete_without_any_stop_button() {
    let fixture = Fixture::mount(
        r#"<ol data-conversation-transcript><li data-message-role="user" id="u1"><button data-user-message-bubble><p data-user-message-copy>go</p></button></li></ol>"#,
    )
    .unwrap();
    let list = fixture.find("ol").unwrap();
    let watcher = MutationWatcher::new(fixture.container(), &observer_options(), |_| {}).unwrap();
    let mut reader = TranscriptReader::new(document(), li_profile());
    reader.full_scan();
    assert_eq!(reader.take_changes(), vec![(0, user("go"))]);

    // The reply starts: a temporary id and the streaming flag, on the item itself.
    let item = document().create_element("li").unwrap();
    item.set_attribute("data-message-role", "assistant")
        .unwrap();
    item.set_attribute("id", "pending-1").unwrap();
    item.set_attribute("data-message-streaming", "true")
        .unwrap();
    let body = document().create_element("div").unwrap();
    body.set_attribute("data-assistant-markdown", "").unwrap();
    item.append_child(&body).unwrap();
    list.append_child(&item).unwrap();
    let mut text = String::new();
    for chunk in ["Ready", " when", " you are."] {
        text.push_str(chunk);
        body.set_text_content(Some(&text));
        reader.note_mutations(&watcher.take_records());
        let changes = reader.take_changes();
        assert_eq!(
            changes,
            // Streaming: the lines of its last block are held.
            vec![(1, assistant(&format!("… {text}"), false))],
            "chunk {chunk:?}"
        );
    }
    // Only the id goes first (`data-message-streaming` still there): still streaming.
    item.set_attribute("id", "9b1c0f1e-0000-4000-8000-000000000003")
        .unwrap();
    reader.note_mutations(&watcher.take_records());
    assert_eq!(reader.take_changes(), vec![], "still streaming");
    // Then the item says it is complete.
    item.remove_attribute("data-message-streaming").unwrap();
    item.set_attribute("data-message-complete", "true").unwrap();
    reader.note_mutations(&watcher.take_records());
    assert_eq!(
        reader.take_changes(),
        vec![(1, assistant("Ready when you are.", true))]
    );
    drop(watcher);
    drop(fixture);
}

fn call(object: &JsValue, method: &str) -> JsValue {
    let function: Function = Reflect::get(object, &method.into())
        .unwrap()
        .dyn_into()
        .unwrap();
    function.call0(object).unwrap()
}

fn strings(value: JsValue) -> Vec<String> {
    Array::from(&value)
        .iter()
        .map(|item| item.as_string().unwrap())
        .collect()
}

/// Mounts the React composer next to an `ol` that receives what it sends.
fn mount_react_composer() -> (Fixture, JsValue) {
    let fixture =
        Fixture::mount(r#"<ol data-conversation-transcript></ol><div id="composer-slot"></div>"#)
            .unwrap();
    run_script(REACT_COMPOSER).unwrap();
    let mount: Function = Reflect::get(&js_sys::global(), &"__mountReactComposer".into())
        .unwrap()
        .dyn_into()
        .unwrap();
    let api = mount
        .call2(
            &JsValue::NULL,
            &fixture.find("#composer-slot").unwrap(),
            &fixture.find("ol").unwrap(),
        )
        .unwrap();
    (fixture, api)
}

#[wasm_bindgen_test]
async fn the_fixture_reproduces_react_ignoring_a_value_set_on_the_element() {
    // The trap, shown on the fixture: the element's own `value` setter (React's tracker) plus a
    // non-bubbling input event leave React's state empty and the send button disabled.
    let (fixture, api) = mount_react_composer();
    let textarea: HtmlTextAreaElement = fixture
        .find("textarea#mobile-composer-prompt")
        .unwrap()
        .dyn_into()
        .unwrap();
    textarea.set_value("typed by a script");
    textarea
        .dispatch_event(&web_sys::Event::new("input").unwrap())
        .unwrap();
    gloo_timers::future::TimeoutFuture::new(30).await;
    assert_eq!(call(&api, "text").as_string().unwrap(), "");
    let send = fixture.find("button[data-composer-submit]").unwrap();
    assert!(send.has_attribute("disabled"), "React never saw the text");
    drop(fixture);
}

#[wasm_bindgen_test]
async fn a_line_is_posted_through_the_react_textarea_and_confirmed() {
    let (fixture, api) = mount_react_composer();
    let line = "BAI_ACK {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"w-li\",\"kind\":\"ack\"}";
    let outcome = post_line(&document(), li_profile(), line, SendMode::Send)
        .await
        .unwrap();
    assert_eq!(outcome, PostOutcome::SentAndConfirmed);
    assert_eq!(strings(call(&api, "sent")), vec![line.to_owned()]);
    assert_eq!(
        call(&api, "text").as_string().unwrap(),
        "",
        "React cleared its state after sending"
    );
    drop(fixture);
}

#[wasm_bindgen_test]
async fn a_site_that_never_enables_send_is_reported_and_the_line_taken_back() {
    // A composer whose send button stays disabled whatever is typed (the site does not take the
    // inserted text): BAI says so, and leaves the box empty for the user.
    let fixture = Fixture::mount(
        r#"<form data-mobile-composer><textarea id="mobile-composer-prompt" name="prompt"></textarea><button type="submit" data-composer-submit aria-label="Send message" disabled>Send</button></form>"#,
    )
    .unwrap();
    let error = post_line(&document(), li_profile(), "BAI_ACK {}", SendMode::Send)
        .await
        .unwrap_err();
    assert_eq!(error, ComposerError::SendDisabled);
    assert_eq!(error.code(), "send_disabled");
    assert!(
        error.to_string().contains("did not take the text"),
        "{error}"
    );
    let textarea: HtmlTextAreaElement = fixture.find("textarea").unwrap().dyn_into().unwrap();
    assert_eq!(textarea.value(), "", "BAI's line was taken back out");
    drop(fixture);
}
