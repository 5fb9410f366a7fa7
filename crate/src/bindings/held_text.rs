//! Typed text of actions held before the ACK (BAI/0.2 actions, often a password) is split off
//! the engine state that goes to disk: [`split_held_texts`] blanks it in the saved state and
//! returns it for memory-only storage; [`put_back_held_actions`] merges it back on restore, and
//! drops a held action whose text is gone rather than run it with an empty text. Both work on
//! the parsed state, so no spelling of a key escapes.

/// The key of a held action in the side map: `workflow id` and `action_id`.
fn held_key(workflow_id: &str, held: &serde_json::Value) -> String {
    format!(
        "{workflow_id}#{}",
        held.get("action_id")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0)
    )
}

/// Every held action (BAI/0.2 actions written before the ACK) of an engine state, as
/// `(workflow id, held entry)`.
fn held_entries(
    state: &mut serde_json::Value,
) -> impl Iterator<Item = (String, &mut serde_json::Value)> {
    state
        .get_mut("workflows")
        .and_then(serde_json::Value::as_array_mut)
        .into_iter()
        .flatten()
        .flat_map(|workflow| {
            let id = workflow
                .get("id")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned();
            workflow
                .get_mut("held")
                .and_then(serde_json::Value::as_array_mut)
                .into_iter()
                .flatten()
                .map(move |held| (id.clone(), held))
        })
}

/// Blanks every string under a `text` key in `value` (any depth); whether there was one.
fn blank_texts(value: &mut serde_json::Value) -> bool {
    match value {
        serde_json::Value::Object(fields) => {
            let mut any = false;
            for (key, field) in fields.iter_mut() {
                if key == "text" {
                    if let serde_json::Value::String(text) = field {
                        any = true;
                        text.clear();
                        continue;
                    }
                }
                any |= blank_texts(field);
            }
            any
        }
        serde_json::Value::Array(items) => {
            // Every item is blanked: no short-circuit.
            let mut any = false;
            for item in items {
                any |= blank_texts(item);
            }
            any
        }
        _ => false,
    }
}

/// Splits an engine state into what may be written to disk (held actions' typed text blanked)
/// and the held actions themselves (kept in memory or `storage.session`), by structure: the
/// state is parsed, so no spelling of a key escapes.
pub fn split_held_texts(
    engine_json: &str,
) -> Result<(String, serde_json::Map<String, serde_json::Value>), crate::protocol::json::JsonRefusal>
{
    let mut state = crate::protocol::json::read_plain(engine_json)?;
    let mut texts = serde_json::Map::new();
    for (workflow_id, held) in held_entries(&mut state) {
        let key = held_key(&workflow_id, held);
        if let Some(action) = held.get_mut("action") {
            let original = action.clone();
            if blank_texts(action) {
                texts.insert(key, original);
            }
        }
    }
    Ok((crate::protocol::json_write::value_json(&state), texts))
}

/// Puts held actions' text back from `texts`; a held action whose text is gone (the browser
/// was restarted, or the user cleared it) is dropped rather than run with an empty text.
pub fn put_back_held_actions(
    state: &mut serde_json::Value,
    texts: &serde_json::Map<String, serde_json::Value>,
) {
    let Some(workflows) = state
        .get_mut("workflows")
        .and_then(serde_json::Value::as_array_mut)
    else {
        return;
    };
    for workflow in workflows {
        let id = workflow
            .get("id")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let Some(held) = workflow
            .get_mut("held")
            .and_then(serde_json::Value::as_array_mut)
        else {
            continue;
        };
        held.retain_mut(|entry| {
            let key = held_key(&id, entry);
            match texts.get(&key) {
                Some(original) => {
                    if let Some(action) = entry.get_mut("action") {
                        *action = original.clone();
                    }
                    true
                }
                // Blanked when saved and nothing to put back: drop it.
                None => !entry.get("action").is_some_and(has_text_key),
            }
        });
    }
}

fn has_text_key(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::Object(fields) => fields
            .iter()
            .any(|(key, field)| key == "text" && field.is_string() || has_text_key(field)),
        serde_json::Value::Array(items) => items.iter().any(has_text_key),
        _ => false,
    }
}
