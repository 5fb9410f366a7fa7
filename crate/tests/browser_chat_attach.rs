//! A `screenshot`'s picture joins BAI's result message only when the line is sent: it is
//! attached after the line went into the box and the send button is there, and a post that
//! fails after that takes it back out (the site's remove control on the thumbnail), so that the
//! picture never goes out with the user's next message and a retry posts exactly one copy
//! (red team 20, F11). Where BAI cannot take it back, the post fails with
//! `image_left_in_composer`, which the chat tab does not retry.
//!
//! The composer here behaves like ChatGPT's: a chosen file becomes a thumbnail with a remove
//! button above the box (the input is emptied at once), the send button is disabled while the
//! box is empty or a picture uploads, and a message sent carries the thumbnails' files.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests: a panic is a failing test"
)]

use bai::chat::composer::{ComposerError, PostOutcome, SendMode, post_line_with};
use bai::chat::image::attach_image;
use bai::chat::{SITES, SiteProfile};
use bai::dom::fixture::{Fixture, run_script};
use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Document, HtmlTextAreaElement};

wasm_bindgen_test_configure!(run_in_browser);

const LINE: &str = "BAI_RESULT {\"protocol\":\"BAI/0.3\",\"workflow_id\":\"w-attach\",\"kind\":\"result\",\"result_id\":1}";

const COMPOSER: &str = r#"<ol data-conversation-transcript></ol>
<form data-mobile-composer>
  <div data-testid="attachments"></div>
  <input type="file" multiple accept="image/*" hidden>
  <textarea id="mobile-composer-prompt" name="prompt"></textarea>
  <button type="button" data-composer-submit aria-label="Send message" disabled>Send</button>
</form>"#;

/// The site's behaviour (see the module documentation); `window.__attach` holds its state and
/// the switches a test sets: `neverSend` (the send button stays disabled), `typeDuringUpload`
/// (the user types while the picture uploads), `noRemove` (thumbnails without a remove button).
const SITE: &str = r#"(() => {
  const form = document.querySelector('form[data-mobile-composer]');
  const tray = form.querySelector('[data-testid=attachments]');
  const input = form.querySelector('input[type=file]');
  const box = form.querySelector('textarea');
  const send = form.querySelector('[data-composer-submit]');
  const list = document.querySelector('ol[data-conversation-transcript]');
  const state = window.__attach = { pending: [], sent: [], uploading: false, neverSend: false, typeDuringUpload: false, noRemove: false };
  const update = () => send.toggleAttribute('disabled', state.neverSend || state.uploading || !box.value.trim());
  state.update = update;
  const render = () => tray.replaceChildren(...state.pending.map((file) => {
    const chip = document.createElement('div');
    chip.dataset.testid = 'attachment';
    chip.textContent = file.name;
    if (!state.noRemove) {
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.setAttribute('aria-label', 'Remove file');
      remove.addEventListener('click', () => {
        state.pending = state.pending.filter((held) => held !== file);
        render();
      });
      chip.append(remove);
    }
    return chip;
  }));
  box.addEventListener('input', update);
  input.addEventListener('change', () => {
    state.pending.push(...input.files);
    input.value = '';
    render();
    state.uploading = true;
    update();
    if (state.typeDuringUpload) setTimeout(() => { box.value += ' and my own words'; update(); }, 20);
    setTimeout(() => { state.uploading = false; update(); }, 150);
  });
  send.addEventListener('click', () => {
    if (send.disabled) return;
    const item = document.createElement('li');
    item.dataset.messageRole = 'user';
    item.id = `sent-${state.sent.length}`;
    const bubble = document.createElement('div');
    bubble.setAttribute('data-user-message-bubble', '');
    bubble.textContent = box.value;
    item.append(bubble);
    list.append(item);
    state.sent.push({ text: box.value, images: state.pending.length });
    state.pending = [];
    render();
    box.value = '';
    update();
  });
  update();
})();"#;

fn document() -> Document {
    web_sys::window().unwrap().document().unwrap()
}

fn profile() -> &'static SiteProfile {
    SITES
        .iter()
        .find(|profile| profile.name == "chatgpt-li")
        .unwrap()
}

fn mount() -> Fixture {
    let fixture = Fixture::mount(COMPOSER).unwrap();
    run_script(SITE).unwrap();
    fixture
}

fn state() -> JsValue {
    Reflect::get(&js_sys::global(), &"__attach".into()).unwrap()
}

fn set(name: &str, value: bool) {
    Reflect::set(&state(), &name.into(), &value.into()).unwrap();
}

/// Pictures in the box now (thumbnails above it).
fn pending() -> u32 {
    js_sys::Array::from(&Reflect::get(&state(), &"pending".into()).unwrap()).length()
}

/// The picture counts of the messages sent so far.
fn sent_images() -> Vec<f64> {
    js_sys::Array::from(&Reflect::get(&state(), &"sent".into()).unwrap())
        .iter()
        .map(|sent| {
            Reflect::get(&sent, &"images".into())
                .unwrap()
                .as_f64()
                .unwrap()
        })
        .collect()
}

fn textarea(fixture: &Fixture) -> HtmlTextAreaElement {
    fixture.find("textarea").unwrap().dyn_into().unwrap()
}

/// Posts [`LINE`] with a picture, as the chat tab does for a screenshot's result.
async fn post_with_picture() -> Result<PostOutcome, ComposerError> {
    let document = document();
    let attach = || {
        attach_image(
            &document,
            profile(),
            &[0x89, b'P', b'N', b'G'],
            "image/png",
            "bai-screenshot-1.png",
        )
        .map_err(|error| ComposerError::ImageNotAttached {
            image_code: error.code(),
            message: error.to_string(),
        })
    };
    post_line_with(&document, profile(), LINE, SendMode::Send, Some(attach)).await
}

#[wasm_bindgen_test]
async fn a_line_with_a_picture_goes_out_as_one_message_with_one_picture() {
    let fixture = mount();
    assert_eq!(
        post_with_picture().await.unwrap(),
        PostOutcome::SentAndConfirmed
    );
    assert_eq!(sent_images(), vec![1.0]);
    assert_eq!(pending(), 0);
    drop(fixture);
}

#[wasm_bindgen_test]
async fn a_send_that_never_comes_leaves_no_picture_in_the_box() {
    // The site never enables send: the post fails, and neither BAI's line nor its picture stays
    // behind to go out with the user's next message.
    let fixture = mount();
    set("neverSend", true);
    let error = post_with_picture().await.unwrap_err();
    assert_eq!(error.code(), "send_disabled");
    assert_eq!(pending(), 0, "no picture left in the message box");
    assert_eq!(textarea(&fixture).value(), "", "BAI's line taken back out");
    drop(fixture);
}

#[wasm_bindgen_test]
async fn a_box_changed_while_the_picture_uploads_takes_it_back_and_the_retry_sends_one() {
    let fixture = mount();
    // The user types while the picture uploads: nothing is sent, the user's words stay, the
    // picture comes back out.
    set("typeDuringUpload", true);
    let error = post_with_picture().await.unwrap_err();
    assert_eq!(error, ComposerError::ComposerChanged);
    assert_eq!(pending(), 0, "the picture was taken back out");
    assert!(textarea(&fixture).value().ends_with("and my own words"));
    assert!(sent_images().is_empty());
    // The user clears the box; the chat tab posts again: one message, one picture.
    set("typeDuringUpload", false);
    textarea(&fixture).set_value("");
    let update: js_sys::Function = Reflect::get(&state(), &"update".into())
        .unwrap()
        .dyn_into()
        .unwrap();
    update.call0(&JsValue::NULL).unwrap();
    assert_eq!(
        post_with_picture().await.unwrap(),
        PostOutcome::SentAndConfirmed
    );
    assert_eq!(sent_images(), vec![1.0], "exactly one picture went out");
    assert_eq!(pending(), 0);
    drop(fixture);
}

#[wasm_bindgen_test]
async fn a_picture_bai_cannot_take_back_is_reported_not_retried() {
    // Thumbnails without a remove control: BAI cannot take its picture back out, and says so
    // with its own code (the chat tab does not retry it, which would attach a second copy).
    let fixture = mount();
    set("typeDuringUpload", true);
    set("noRemove", true);
    let error = post_with_picture().await.unwrap_err();
    assert_eq!(error.code(), "image_left_in_composer");
    assert_eq!(
        error,
        ComposerError::ImageLeftInComposer {
            cause: "composer_changed"
        }
    );
    assert!(error.to_string().contains("remove it"), "{error}");
    assert_eq!(pending(), 1);
    drop(fixture);
}
