//! The transcript reader against the local chat page's own markup builders
//! (`tests/fixtures/chat-src/markup.js` and `markdown.js`, the code the end-to-end page renders
//! with): for every markup generation the reader gives back exactly what the test wrote, code
//! fences and their language included, and streaming re-renders are one change each.
//!
//! The builders are plain ES modules without dependencies, so they are loaded from source (no
//! bundling step): `import` lines and `export` keywords are dropped and the rest runs as the body
//! of a function.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests: a panic is a failing test"
)]

use bai::chat::transcript::QUIET_MS;
use bai::chat::transcript::observer_options;
use bai::chat::{MutationWatcher, SiteProfile, TranscriptReader};
use bai::protocol::{Message, Role};
use js_sys::{Array, Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Document, Element};

wasm_bindgen_test_configure!(run_in_browser);

const MARKDOWN_JS: &str = include_str!("../../tests/fixtures/chat-src/markdown.js");
const MARKUP_JS: &str = include_str!("../../tests/fixtures/chat-src/markup.js");
const SITES_MARKUP_JS: &str = include_str!("../../tests/fixtures/chat-src/sites-markup.js");

/// What the test page needs from the builders, written against their exported API.
const GLUE_JS: &str = r#"
const ALL = { ...GENERATIONS, ...SITE_GENERATIONS };
return {
  /** Renders complete turns into `container`; returns the last assistant body. */
  render(markup, container, turns) {
    const generation = ALL[markup];
    let last = null;
    turns.forEach(([role, text], index) => {
      const parts = generation.turn({ role, index: index + 1, text });
      container.append(parts.turn);
      if (role === 'assistant') {
        renderMarkdown(parts.body, text, generation.codeBlock);
        parts.actionsParent.append((generation.actionBar ?? actionBar)());
        last = parts;
      }
    });
    return last;
  },
  /** Starts a streaming assistant turn; returns a function that re-renders it with more text. */
  stream(markup, container) {
    const generation = ALL[markup];
    const parts = generation.turn({ role: 'assistant', index: 99, text: '' });
    if (generation.streamingClass) parts.body.classList.add(generation.streamingClass);
    generation.startStreaming?.(parts);
    container.append(parts.turn);
    let source = '';
    return (chunk) => {
      if (chunk === null) {
        if (generation.streamingClass) parts.body.classList.remove(generation.streamingClass);
        generation.finishStreaming?.(parts);
        parts.actionsParent.append((generation.actionBar ?? actionBar)());
        return;
      }
      source += chunk;
      renderMarkdown(parts.body, source, generation.codeBlock);
    };
  },
};
"#;

const GENERATIONS: [&str; 10] = [
    "2024",
    "2025",
    "codemirror",
    "2026",
    "li",
    "claude",
    "gemini",
    "copilot",
    "open-webui",
    "librechat",
];

fn builders() -> JsValue {
    let strip = |source: &str| {
        source
            .lines()
            .filter(|line| !line.starts_with("import "))
            .map(|line| line.strip_prefix("export ").unwrap_or(line))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let body = format!(
        "{}\n{}\n{}\n{GLUE_JS}",
        strip(MARKDOWN_JS),
        strip(MARKUP_JS),
        strip(SITES_MARKUP_JS)
    );
    Function::new_no_args(&body).call0(&JsValue::NULL).unwrap()
}

fn call(object: &JsValue, method: &str, args: &[JsValue]) -> JsValue {
    let function: Function = Reflect::get(object, &method.into())
        .unwrap()
        .dyn_into()
        .unwrap();
    function
        .apply(object, &args.iter().collect::<Array>())
        .unwrap()
}

fn document() -> Document {
    web_sys::window().unwrap().document().unwrap()
}

/// The profile the page would be read with: chosen by what it shows, as the extension does.
fn profile() -> &'static SiteProfile {
    bai::chat::choose_profile(&document(), "127.0.0.1")
        .expect("a profile reads the page")
        .profile
}

/// The profile each generation must be read with.
fn expected_profile(markup: &str) -> &str {
    match markup {
        "li" => "chatgpt-li",
        "claude" | "gemini" | "copilot" | "open-webui" | "librechat" => markup,
        _ => "chatgpt",
    }
}

/// The fence a site renders for a ```` ```bai ```` block whose content is not a handshake:
/// Gemini shows "Code snippet" for a language it does not know, so the label is lost.
fn fence_for(markup: &str) -> &'static str {
    if markup == "gemini" { "```" } else { "```bai" }
}

struct Page {
    container: Element,
}

impl Page {
    fn new() -> Self {
        let container = document().create_element("main").unwrap();
        document().body().unwrap().append_child(&container).unwrap();
        Self { container }
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        self.container.remove();
    }
}

fn turns(list: &[(&str, &str)]) -> JsValue {
    list.iter()
        .map(|(role, text)| {
            [JsValue::from_str(role), JsValue::from_str(text)]
                .iter()
                .collect::<Array>()
        })
        .collect::<Array>()
        .into()
}

const HANDSHAKE: &str = "Here is the handshake:\n```bai\n{\"protocol\": \"BAI/0.3\",\n  \"workflow_id\": \"w-1\"}\n\nlast line\n```\nThen `inline` code and\na soft break.\n\nBAI_ACTION {\"id\":\"a1\",\"type\":\"click\"}";

#[wasm_bindgen_test]
fn every_generation_reads_back_what_was_written() {
    let builders = builders();
    for markup in GENERATIONS {
        let page = Page::new();
        let conversation = [
            (
                "user",
                "Please start.\n  indented\n\nBAI_ACK {\"nonce\":\"n_1\"}",
            ),
            ("assistant", HANDSHAKE),
            ("assistant", "```\nunlabelled\n```"),
        ];
        call(
            &builders,
            "render",
            &[
                markup.into(),
                page.container.clone().into(),
                turns(&conversation),
            ],
        );
        assert_eq!(profile().name, expected_profile(markup), "markup {markup}");
        let mut reader = TranscriptReader::new(document(), profile());
        reader.full_scan();
        let expected_handshake = HANDSHAKE
            .replace("```bai", fence_for(markup))
            .replace("code and\na soft break.\n\n", "code and\na soft break.\n");
        assert_eq!(
            reader.take_changes(),
            vec![
                (
                    0,
                    Message {
                        role: Role::User,
                        text: conversation[0].1.to_owned(),
                        complete: true
                    }
                ),
                (
                    1,
                    Message {
                        role: Role::Assistant,
                        text: expected_handshake,
                        complete: true
                    }
                ),
                (
                    2,
                    Message {
                        role: Role::Assistant,
                        text: "```\nunlabelled\n```".to_owned(),
                        complete: true
                    }
                ),
            ],
            "markup {markup}"
        );
    }
}

#[wasm_bindgen_test]
fn every_generation_streams_one_change_per_chunk() {
    let builders = builders();
    for markup in GENERATIONS {
        let page = Page::new();
        call(
            &builders,
            "render",
            &[
                markup.into(),
                page.container.clone().into(),
                turns(&[("user", "go")]),
            ],
        );
        // A stop button every profile recognizes (each site names it its own way; LibreChat's
        // has its own test id).
        let stop = document().create_element("div").unwrap();
        stop.set_inner_html(
            r#"<button data-testid="stop-button" aria-label="Stop response" title="Stop responding"
            id="stop-response-button"></button><button data-testid="stop-generation-button"></button>"#,
        );
        page.container.append_child(&stop).unwrap();
        let mut reader = TranscriptReader::new(document(), profile());
        let watcher = MutationWatcher::new(&page.container, &observer_options(), |_| {}).unwrap();
        reader.full_scan();
        assert_eq!(reader.take_changes().len(), 1, "markup {markup}");

        let push: Function = call(
            &builders,
            "stream",
            &[markup.into(), page.container.clone().into()],
        )
        .dyn_into()
        .unwrap();
        let mut expected = String::new();
        for chunk in ["Handshake:\n", "```bai\n{\"a\":", "1}\n", "```\nend"] {
            push.call1(&JsValue::NULL, &chunk.into()).unwrap();
            expected.push_str(chunk);
            reader.note_mutations(&watcher.take_records());
            let changes = reader.take_changes();
            assert_eq!(changes.len(), 1, "markup {markup}, chunk {chunk:?}");
            assert_eq!(changes[0].0, 1);
            assert!(!changes[0].1.complete, "markup {markup}: streaming");
        }
        // The open fence of a block still streaming reads as a fence without its end.
        let reads = reader.reads();
        stop.remove();
        push.call1(&JsValue::NULL, &JsValue::NULL).unwrap();
        reader.note_mutations(&watcher.take_records());
        let mut changes = reader.take_changes();
        // A site that shows a "finished" mark (ChatGPT's action bar) completes the answer at
        // once; on the others it waits to be quiet (the stop button gone is not enough).
        let marked = reader.profile().finished.is_some();
        if !marked {
            assert!(
                changes.is_empty() && !reader.messages()[1].complete,
                "markup {markup}: waits to be quiet, {changes:?}"
            );
            reader.advance_time(QUIET_MS);
            changes = reader.take_changes();
        }
        assert_eq!(
            changes,
            vec![(
                1,
                Message {
                    role: Role::Assistant,
                    text: format!("Handshake:\n{}\n{{\"a\":1}}\n```\nend", fence_for(markup)),
                    complete: true
                }
            )],
            "markup {markup}"
        );
        assert!(
            reader.reads() <= reads + if marked { 1 } else { 2 },
            "markup {markup}: at most the finished message re-read (and its last chunk)"
        );
        drop(watcher);
    }
}
