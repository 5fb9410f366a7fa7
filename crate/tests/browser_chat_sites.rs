//! The chat-site table recognizes ChatGPT's markup generations and fails closed on other pages.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests: a panic is a failing test"
)]

use bai::chat::page_status;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// Puts `html` in a fresh container, runs `check`, removes the container.
fn with_markup(html: &str, check: impl FnOnce(&web_sys::Document)) {
    let document = web_sys::window().unwrap().document().unwrap();
    let container = document.create_element("div").unwrap();
    container.set_inner_html(html);
    document.body().unwrap().append_child(&container).unwrap();
    check(&document);
    container.remove();
}

#[wasm_bindgen_test]
fn plain_page_on_an_unknown_host_is_not_a_chat() {
    with_markup("<h1>Shop</h1><form><input name=q></form>", |document| {
        let status = page_status(document, "shop.example");
        assert_eq!(status.site, None);
        assert!(!status.transcript_readable);
    });
}

#[wasm_bindgen_test]
fn chatgpt_host_with_unknown_markup_is_a_chat_that_cannot_be_read() {
    with_markup("<main><div class=whatever>hello</div></main>", |document| {
        let status = page_status(document, "chatgpt.com");
        assert_eq!(status.site, Some("chatgpt"));
        assert!(
            !status.transcript_readable,
            "fails closed instead of guessing"
        );
    });
}

#[wasm_bindgen_test]
fn older_markup_generation_is_read_on_any_host() {
    let html = r#"<article data-testid="conversation-turn-1">
        <div data-message-author-role="user" data-message-id="a">hi</div></article>
        <article data-testid="conversation-turn-2">
        <div data-message-author-role="assistant" data-message-id="b">hello</div></article>"#;
    with_markup(html, |document| {
        let status = page_status(document, "127.0.0.1");
        assert_eq!(status.site, Some("chatgpt-compatible"));
        assert!(status.transcript_readable);
        assert_eq!(status.messages, 2);
    });
}

#[wasm_bindgen_test]
fn newer_markup_generation_composer_only_is_readable() {
    let html = r#"<form data-chatgpt-composer><div data-composer-markdown role="textbox"
        class="ProseMirror" contenteditable="true" aria-label="Ask ChatGPT"><p></p></div></form>"#;
    with_markup(html, |document| {
        let status = page_status(document, "chat.openai.com");
        assert_eq!(status.site, Some("chatgpt"));
        assert!(
            status.transcript_readable,
            "a new chat has a composer and no messages yet"
        );
        assert_eq!(status.messages, 0);
    });
}
