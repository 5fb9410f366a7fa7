//! The chat-site table recognizes ChatGPT's markup generations and fails closed on other pages.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests: a panic is a failing test"
)]

use bai::chat::{ChatLayout, page_status};
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
        let status = page_status(document, "shop.example", false);
        assert_eq!(status.site, None);
        assert!(!status.transcript_readable);
    });
}

#[wasm_bindgen_test]
fn chatgpt_host_with_unknown_markup_is_an_unrecognized_layout() {
    with_markup("<main><div class=whatever>hello</div></main>", |document| {
        let status = page_status(document, "chatgpt.com", false);
        assert_eq!(status.site, None, "fails closed instead of guessing");
        assert_eq!(status.site_name, Some("ChatGPT"));
        assert_eq!(status.layout, ChatLayout::Unrecognized);
        assert!(!status.transcript_readable);
    });
}

#[wasm_bindgen_test]
fn an_added_chat_site_with_unknown_markup_is_an_unrecognized_layout() {
    with_markup("<main><div class=whatever>hello</div></main>", |document| {
        let status = page_status(document, "chat.example.com", true);
        assert_eq!(status.layout, ChatLayout::Unrecognized);
        assert_eq!(status.site_name, None);
        let local = page_status(document, "127.0.0.1", false);
        assert_eq!(
            local.layout,
            ChatLayout::NotAChat,
            "a local page is a chat only by its markup"
        );
        assert!(
            local.may_run_chat,
            "watched for a chat rendered late (single-page apps)"
        );
        assert!(!bai::chat::ChatPageStatus::not_a_chat().may_run_chat);
    });
}

#[wasm_bindgen_test]
fn older_markup_generation_is_read_on_any_host() {
    let html = r#"<article data-testid="conversation-turn-1">
        <div data-message-author-role="user" data-message-id="a">hi</div></article>
        <article data-testid="conversation-turn-2">
        <div data-message-author-role="assistant" data-message-id="b">hello</div></article>"#;
    with_markup(html, |document| {
        let status = page_status(document, "127.0.0.1", false);
        assert_eq!(status.site, Some("chatgpt"));
        assert_eq!(status.layout, ChatLayout::Messages);
        assert!(status.transcript_readable);
        assert_eq!(status.messages, 2);
    });
}

#[wasm_bindgen_test]
fn a_composer_alone_is_watched_but_not_a_readable_transcript() {
    let html = r#"<form data-chatgpt-composer><div data-composer-markdown role="textbox"
        class="ProseMirror" contenteditable="true" aria-label="Ask ChatGPT"><p></p></div></form>"#;
    with_markup(html, |document| {
        let status = page_status(document, "chat.openai.com", false);
        assert!(status.site.is_some(), "a new chat is watched");
        assert_eq!(status.layout, ChatLayout::ComposerOnly);
        assert!(
            !status.transcript_readable,
            "no message read: not called readable"
        );
        assert!(status.composer);
        assert_eq!(status.messages, 0);
    });
}

#[wasm_bindgen_test]
fn the_profile_is_chosen_by_what_the_page_shows_not_by_its_host() {
    let li = r#"<ol data-conversation-transcript><li data-message-role="user" id="u1"><button
        data-user-message-bubble><p data-user-message-copy>hi</p></button></li></ol>
        <form data-mobile-composer><textarea id="mobile-composer-prompt" name="prompt"></textarea></form>"#;
    with_markup(li, |document| {
        for host in ["chatgpt.com", "127.0.0.1", "chat.example.com", "claude.ai"] {
            let status = page_status(document, host, true);
            assert_eq!(status.site, Some("chatgpt-li"), "on {host}");
            assert_eq!(status.messages, 1);
        }
    });
    let gemini = r#"<user-query><div class="query-text"><p class="query-text-line">hi</p></div></user-query>
        <model-response><message-content><div class="markdown">hello</div></message-content></model-response>"#;
    with_markup(gemini, |document| {
        let status = page_status(document, "127.0.0.1", false);
        assert_eq!(status.site, Some("gemini"), "a saved copy of Gemini");
        assert_eq!(status.messages, 2);
    });
}

/// The status goes to the content script as JSON written by hand (the chat module carries no
/// serde writer): byte for byte what its derived `Serialize` writes. `picture_failure`'s
/// `{code, message}` likewise, as `serde_json::json!` wrote it.
#[wasm_bindgen_test]
fn page_status_and_picture_failure_json_are_as_serde_writes_them() {
    use bai::chat::ChatPageStatus;
    let mut statuses = vec![ChatPageStatus::not_a_chat()];
    for (index, layout) in [
        ChatLayout::Messages,
        ChatLayout::ComposerOnly,
        ChatLayout::Unrecognized,
        ChatLayout::NotAChat,
    ]
    .into_iter()
    .enumerate()
    {
        statuses.push(ChatPageStatus {
            site: (index % 2 == 0).then_some("chatgpt"),
            site_name: (index < 2).then_some("Chat\"GPT\""),
            layout,
            transcript_readable: index % 2 == 1,
            messages: u32::MAX - index as u32,
            composer: index > 1,
            may_run_chat: index != 3,
        });
    }
    for status in statuses {
        assert_eq!(status.json(), serde_json::to_string(&status).unwrap());
    }
    for (code, origin, detail) in [
        ("target_hidden", "https://shop.example", "boom"),
        ("nonsense", "", "a \"quoted\"\nline"),
    ] {
        let error = bai::pictures::PictureError::from_code(code, origin, detail);
        assert_eq!(
            bai::bindings::picture_failure(code, origin, detail),
            serde_json::json!({ "code": error.code(), "message": error.to_string() }).to_string()
        );
    }
}

/// A code block's header label is refused as a language name by ASCII case-folding against
/// `NOT_A_LANGUAGE` (the chat module carries no Unicode case tables): the same answer as
/// `to_lowercase`, because the only non-ASCII character whose lower case is all ASCII is the
/// Kelvin sign (`k`), which none of the words holds.
#[wasm_bindgen_test]
fn ascii_folding_refuses_the_header_words_as_to_lowercase_did() {
    use bai::chat::text::NOT_A_LANGUAGE;
    let mut folding_into_ascii = Vec::new();
    for c in (0x80..=0x10_ffff).filter_map(char::from_u32) {
        if c.to_lowercase().all(|l| l.is_ascii()) {
            folding_into_ascii.push(c);
        }
    }
    assert_eq!(folding_into_ascii, ['\u{212a}']);
    assert!(NOT_A_LANGUAGE.iter().all(|word| !word.contains('k')));
    for word in NOT_A_LANGUAGE {
        for text in [
            word.to_string(),
            word.to_uppercase(),
            "Copy".into(),
            "cOpIeD!".into(),
        ] {
            let old = NOT_A_LANGUAGE.contains(&text.to_lowercase().as_str());
            let new = NOT_A_LANGUAGE.iter().any(|w| text.eq_ignore_ascii_case(w));
            assert_eq!(old, new, "{text}");
        }
    }
}

/// An editor inside a message is that message's edit box (the user editing an older turn),
/// never the composer the extension writes its lines into; an edit box a site draws in place
/// of its message comes before the composer, which follows the conversation (red team
/// redgate, session 17: the generic `div.ProseMirror[contenteditable=true]` took the first
/// editor on the page).
#[wasm_bindgen_test]
fn an_older_turns_edit_box_is_never_taken_for_the_composer() {
    let profile = |name: &str| {
        bai::chat::sites::SITES
            .iter()
            .find(|profile| profile.name == name)
            .unwrap()
    };
    let inside = r#"<div data-message-author-role="user" data-message-id="u1"><div class="ProseMirror" contenteditable="true" id="edit-box">old question</div></div>
        <div data-message-author-role="assistant" data-message-id="a1"><div class="markdown">answer</div></div>
        <form><div class="ProseMirror" contenteditable="true" id="composer"><p></p></div></form>"#;
    with_markup(inside, |document| {
        let found = profile("chatgpt").find_composer(document).unwrap();
        assert_eq!(found.id(), "composer");
    });
    let in_place = r#"<div data-is-streaming="false"><p>answer</p></div>
        <fieldset><div class="ProseMirror" contenteditable="true" id="edit-box">old question</div></fieldset>
        <div data-is-streaming="false"><p>answer</p></div>
        <fieldset><div class="ProseMirror" contenteditable="true" id="composer"><p></p></div></fieldset>"#;
    with_markup(in_place, |document| {
        let found = profile("claude").find_composer(document).unwrap();
        assert_eq!(found.id(), "composer");
    });
    // Only an edit box: no composer.
    let only_edit = r#"<div data-message-author-role="user" data-message-id="u1"><div class="ProseMirror" contenteditable="true">old question</div></div>"#;
    with_markup(only_edit, |document| {
        assert!(profile("chatgpt").find_composer(document).is_none());
    });
}
