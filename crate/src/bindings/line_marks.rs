//! The chat tab's line marks, as the JS glue draws them: each mark with the message element and
//! the place in it (a text node and offset, or a code block) where its line is on the page now,
//! and the pasted protocol prompts to fold. The statuses come from [`LineMarks`] (the engine's
//! decisions); this file only finds where they go, through the transcript reader, so the marks
//! follow a re-rendered message (its new element is looked up on every call).

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsValue;

use crate::chat::TranscriptReader;
use crate::chat::text::locate_offsets;
use crate::protocol::marks::LineMarks;

fn set(object: &Object, key: &str, value: &JsValue) {
    // Setting a plain data property on a fresh object cannot fail.
    let _ = Reflect::set(object, &JsValue::from_str(key), value);
}

/// `{marks: [{key, message_index, kind, status, code?, message, element, node, node_offset}],
/// prompts: [{message_index, element}]}`. A mark whose line cannot be found on the page now (its
/// message is gone or not rendered) is left out.
pub(super) fn line_marks(reader: &TranscriptReader, marks: &LineMarks) -> JsValue {
    let profile = reader.profile();
    let drawn = Array::new();
    let all = marks.marks();
    // One walk per message for all of its marks.
    let mut located = Vec::with_capacity(all.len());
    for group in all.chunk_by(|a, b| a.message_index == b.message_index) {
        let Some(first) = group.first() else {
            continue;
        };
        let Some((element, role)) = reader.element(first.message_index) else {
            continue;
        };
        let offsets: Vec<usize> = group.iter().map(|mark| mark.offset).collect();
        let reading = reader.reading(first.message_index);
        let places = locate_offsets(element, profile, role, reading, &offsets);
        for (mark, place) in group.iter().zip(places) {
            if let Some(place) = place {
                located.push((mark, element, place));
            }
        }
    }
    for (mark, element, (node, node_offset)) in located {
        let object = Object::new();
        set(
            &object,
            "key",
            &JsValue::from_str(&format!("{}:{}", mark.message_index, mark.offset)),
        );
        set(
            &object,
            "message_index",
            &JsValue::from(mark.message_index as f64),
        );
        set(&object, "kind", &JsValue::from_str(mark.kind.as_str()));
        set(&object, "status", &JsValue::from_str(mark.status.as_str()));
        if let Some(code) = &mark.code {
            set(&object, "code", &JsValue::from_str(code));
        }
        set(&object, "message", &JsValue::from_str(&mark.message));
        set(&object, "element", element.as_ref());
        set(&object, "node", node.as_ref());
        set(&object, "node_offset", &JsValue::from(node_offset));
        drawn.push(&object);
    }
    let prompts = Array::new();
    for &index in marks.prompts() {
        if let Some((element, _)) = reader.element(index) {
            let object = Object::new();
            set(&object, "message_index", &JsValue::from(index as f64));
            set(&object, "element", element.as_ref());
            prompts.push(&object);
        }
    }
    let result = Object::new();
    set(&result, "marks", &drawn);
    set(&result, "prompts", &prompts);
    result.into()
}
