//! Where a BAI line is on the page: every record the scanner finds in a message's text is found
//! back in the DOM (the text node and offset where it starts, or the code block for a
//! ```` ```bai ```` fence), in prose, in highlighted code and in the user's verbatim text. The line
//! marks are drawn there.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests: a panic is a failing test"
)]

use bai::chat::text::{Reading, locate_offsets, read_message};
use bai::chat::{SITES, SiteProfile};
use bai::protocol::Role;
use bai::protocol::fence::bai_blocks;
use bai::protocol::scanner::{RecordScanner, ScanItem};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, Node};

wasm_bindgen_test_configure!(run_in_browser);

fn profile() -> &'static SiteProfile {
    SITES.iter().find(|p| p.name == "chatgpt").unwrap()
}

fn mount(html: &str) -> Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let container = document.create_element("div").unwrap();
    container.set_inner_html(html);
    document.body().unwrap().append_child(&container).unwrap();
    container
}

/// The page's text from `(node, offset)` on, up to `len` UTF-16 units.
fn text_at(node: &Node, offset: u32, len: usize) -> String {
    let value = node.node_value().unwrap_or_default();
    value
        .encode_utf16()
        .skip(offset as usize)
        .take(len)
        .map(|u| char::from_u32(u.into()).unwrap_or('?'))
        .collect()
}

/// Every record (and the first ```bai block) of the message found back where it starts.
fn check_message(message: &Element, role: Role) -> usize {
    check_message_as(message, role, Reading::Complete)
}

/// [`check_message`] with the message read as complete or as streaming.
fn check_message_as(message: &Element, role: Role, reading: Reading) -> usize {
    let text = read_message(message, profile(), role, reading).text;
    let mut offsets: Vec<usize> = RecordScanner::new(&text, 0, true)
        .filter_map(|item| match item {
            ScanItem::Record { span, .. } | ScanItem::Invalid { span, .. } => Some(span.start),
            ScanItem::Partial { .. } => None,
        })
        .collect();
    let records = offsets.len();
    let fence = bai_blocks(&text).first().map(|block| block.span.start);
    offsets.extend(fence);
    let places = locate_offsets(message, profile(), role, reading, &offsets);
    for (offset, place) in offsets.iter().zip(&places).take(records) {
        let (node, at) = place.as_ref().expect("located");
        let prefix: String = text[*offset..].chars().take(8).collect();
        assert_eq!(text_at(node, *at, 8), prefix, "record at byte {offset}");
    }
    if fence.is_some() {
        let (node, _) = places.last().unwrap().as_ref().expect("fence located");
        let element = node.dyn_ref::<Element>().expect("the code block element");
        assert!(element.matches(profile().code_block_selector).unwrap());
    }
    records
}

#[wasm_bindgen_test]
fn records_are_found_where_the_page_shows_them() {
    let line = |id: u32| {
        format!(
            r##"BAI_ACTION {{"protocol":"BAI/0.3","workflow_id":"wf","kind":"action","ack_nonce":"n_x","action_id":{id},"type":"click","payload":{{"selector":"#é"}}}}"##
        )
    };
    let container = mount(&format!(
        r#"<div data-message-author-role="assistant" data-message-id="a1"><div class="markdown prose">
<p>Voilà — “quoted” text first.</p>
<pre><div><div><span>bai</span><button>Copy code</button></div><div><code class="hljs language-bai"><span class="hljs-punctuation">{{</span>"protocol":"BAI/0.3","workflow_id":"wf","kind":"handshake","state":"awaiting_extension_ack","capabilities":["action_lines"]}}</code></div></div></pre>
<p>{}</p><p>Then: <strong>bold</strong> words.</p><p>{}<br>{}</p>
<pre><div><div><span>text</span></div><div><code class="hljs"><span>BAI_ACTION</span> {{"x":1}}
<span>BAI_RESULT</span> {{"y":2}}</code></div></div></pre>
</div></div>
<div data-message-author-role="user" data-message-id="u1"><div class="whitespace-pre-wrap">pasted ✓ example
{}
  {}</div></div>"#,
        line(1),
        line(2),
        line(3),
        line(4),
        line(5)
    ));
    let assistant = container
        .query_selector("[data-message-author-role=assistant]")
        .unwrap()
        .unwrap();
    let user = container
        .query_selector("[data-message-author-role=user]")
        .unwrap()
        .unwrap();
    assert_eq!(check_message(&assistant, Role::Assistant), 5);
    assert_eq!(check_message(&user, Role::User), 2);
    container.remove();
}

/// Read as streaming, every line starts with a hold mark (no line is a record until the message
/// completes); the marks shift no place: each `BAI_ACTION` in the marked text is found where the
/// page shows it, code block lines included.
#[wasm_bindgen_test]
fn hold_marks_shift_no_place_on_the_page() {
    let line = |id: u32| format!(r#"BAI_ACTION {{"action_id":{id}}}"#);
    let container = mount(&format!(
        r#"<div data-message-author-role="assistant" data-message-id="a2"><div class="markdown prose">
<p>~~one
two
three</p><p>{}
{}</p><pre><code>{}
</code></pre><p>**held
{}
</p></div></div>"#,
        line(1),
        line(2),
        line(4),
        line(3)
    ));
    let assistant = container
        .query_selector("[data-message-author-role=assistant]")
        .unwrap()
        .unwrap();
    let read = read_message(&assistant, profile(), Role::Assistant, Reading::Streaming);
    assert!(read.holds);
    assert_eq!(
        read.text,
        format!(
            "… ~~one\n… two\n… three\n… {}\n… {}\n… ```\n… {}\n… ```\n… **held\n… {}",
            line(1),
            line(2),
            line(4),
            line(3)
        )
    );
    assert_eq!(
        check_message_as(&assistant, Role::Assistant, Reading::Streaming),
        0
    );
    let offsets: Vec<usize> = read
        .text
        .match_indices("BAI_ACTION")
        .map(|(at, _)| at)
        .collect();
    assert_eq!(offsets.len(), 4);
    let places = locate_offsets(
        &assistant,
        profile(),
        Role::Assistant,
        Reading::Streaming,
        &offsets,
    );
    for (offset, place) in offsets.iter().zip(&places) {
        let (node, at) = place.as_ref().expect("located");
        assert_eq!(text_at(node, *at, 10), "BAI_ACTION", "at byte {offset}");
    }
    assert_eq!(check_message(&assistant, Role::Assistant), 4);
    container.remove();
}
