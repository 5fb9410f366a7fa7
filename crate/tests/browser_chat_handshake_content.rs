//! A site that drops a code block's language label (an unlabelled block, Gemini's "Code
//! snippet", a display-cased "Bai"): a block whose whole content is one BAI handshake object is
//! read as the ```` ```bai ```` block the model wrote, only in the assistant's messages, and the
//! reader reports which rule recognized it, once, when the message is complete.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests: a panic is a failing test"
)]

use bai::chat::text::HandshakeRule;
use bai::chat::transcript::QUIET_MS;
use bai::chat::{SITES, SiteProfile, TranscriptReader};
use bai::dom::fixture::Fixture;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::Document;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> Document {
    web_sys::window().unwrap().document().unwrap()
}

fn profile(name: &str) -> &'static SiteProfile {
    SITES.iter().find(|profile| profile.name == name).unwrap()
}

const HANDSHAKE: &str = r#"{"protocol":"BAI/0.3","workflow_id":"w-c","kind":"handshake","state":"awaiting_extension_ack"}"#;

/// One ChatGPT-li message of `role` whose body holds `code` in a `pre > code` with `class`.
fn li_message(role: &str, class: &str, code: &str) -> String {
    let body = if role == "user" {
        format!(
            r#"<button data-user-message-bubble><pre><code class="{class}">{code}</code></pre></button>"#
        )
    } else {
        format!(
            r#"<div data-assistant-markdown><p>Here:</p><pre><code class="{class}">{code}</code></pre></div>"#
        )
    };
    format!(r#"<li data-message-role="{role}" id="m-{role}">{body}</li>"#)
}

fn read(html: &str, profile_name: &str) -> (Vec<String>, Vec<(usize, HandshakeRule)>) {
    let fixture = Fixture::mount(html).unwrap();
    let mut reader = TranscriptReader::new(document(), profile(profile_name));
    reader.full_scan();
    let texts = reader
        .take_changes()
        .into_iter()
        .map(|(_, message)| message.text)
        .collect();
    let rules = reader.take_handshake_recognitions();
    drop(fixture);
    (texts, rules)
}

#[wasm_bindgen_test]
fn an_unlabelled_block_holding_one_handshake_reads_as_a_bai_block_in_assistant_messages_only() {
    let html = format!(
        "<ol>{}{}</ol>",
        li_message("user", "", HANDSHAKE),
        li_message("assistant", "", HANDSHAKE)
    );
    let (texts, rules) = read(&html, "chatgpt-li");
    assert_eq!(
        texts[0],
        format!("```\n{HANDSHAKE}\n```\n"),
        "a user message is never relabelled"
    );
    assert_eq!(texts[1], format!("Here:\n```bai\n{HANDSHAKE}\n```"));
    assert_eq!(rules, vec![(1, HandshakeRule::UnlabelledBlockContent)]);
}

#[wasm_bindgen_test]
fn a_display_cased_label_is_read_as_bai() {
    let html = format!(
        "<ol>{}</ol>",
        li_message("assistant", "language-Bai", HANDSHAKE)
    );
    let (texts, rules) = read(&html, "chatgpt-li");
    assert_eq!(texts[0], format!("Here:\n```bai\n{HANDSHAKE}\n```"));
    assert_eq!(rules, vec![(0, HandshakeRule::DisplayCasedLabel)]);
}

#[wasm_bindgen_test]
fn other_labels_and_other_content_stay_as_written() {
    let not_a_handshake = [
        // Another language: what the model wrote.
        ("language-json", HANDSHAKE.to_owned()),
        // Two objects, not one.
        ("", format!("{HANDSHAKE}\n{HANDSHAKE}")),
        // Not BAI's protocol, or not a handshake.
        ("", HANDSHAKE.replace("BAI/0.3", "XYZ/1")),
        ("", HANDSHAKE.replace("\"handshake\"", "\"action\"")),
        // Not JSON at all.
        ("", "print('hi')".to_owned()),
    ];
    for (class, code) in not_a_handshake {
        let html = format!("<ol>{}</ol>", li_message("assistant", class, &code));
        let (texts, rules) = read(&html, "chatgpt-li");
        assert!(
            !texts[0].contains("```bai"),
            "{class:?} {code:?}: {}",
            texts[0]
        );
        assert!(rules.is_empty(), "{class:?} {code:?}");
    }
}

#[wasm_bindgen_test]
fn gemini_code_snippet_blocks_are_recognized_and_reported_once_when_complete() {
    let html = format!(
        r#"<model-response><message-content><div class="markdown"><code-block><div class="code-block"><div class="code-block-decoration"><span>Code snippet</span><div class="buttons"><button><mat-icon>content_copy</mat-icon></button></div></div><div class="formatted-code-block-internal-container"><pre><code data-test-id="code-content">{HANDSHAKE}</code></pre></div></div></code-block></div></message-content></model-response><button aria-label="Stop response"></button>"#
    );
    let fixture = Fixture::mount(&html).unwrap();
    let mut reader = TranscriptReader::new(document(), profile("gemini"));
    reader.full_scan();
    let changes = reader.take_changes();
    // Streaming: every line held (nothing in the message is read as a record or a block yet).
    assert_eq!(changes[0].1.text, format!("… ```bai\n… {HANDSHAKE}\n… ```"));
    assert!(
        !changes[0].1.complete,
        "the stop button is there: still streaming"
    );
    assert!(
        reader.take_handshake_recognitions().is_empty(),
        "not reported while streaming"
    );
    fixture
        .find("button[aria-label='Stop response']")
        .unwrap()
        .remove();
    // Gemini shows no "finished" mark BAI knows: complete once quiet.
    assert!(reader.take_changes().is_empty());
    reader.advance_time(QUIET_MS);
    let changes = reader.take_changes();
    assert!(changes[0].1.complete);
    assert_eq!(changes[0].1.text, format!("```bai\n{HANDSHAKE}\n```"));
    assert_eq!(
        reader.take_handshake_recognitions(),
        vec![(0, HandshakeRule::UnlabelledBlockContent)]
    );
    // Read again later (a re-render): not reported twice.
    let _ = reader.take_changes();
    assert!(reader.take_handshake_recognitions().is_empty());
    drop(fixture);
}
