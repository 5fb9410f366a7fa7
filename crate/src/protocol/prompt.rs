//! The protocol text a user pastes into ChatGPT (seed 000's COPY_THIS_TO_CHATGPT section).

/// The template, with `{{RANDOM_UUID}}` where the workflow id goes.
pub const PROMPT_TEMPLATE: &str = include_str!("prompt.md");

/// The placeholder replaced by [`prompt_text`].
pub const PLACEHOLDER: &str = "{{RANDOM_UUID}}";

/// The protocol text with `uuid` as the handshake's workflow id. The caller draws the UUID (the
/// engine has no randomness of its own).
pub fn prompt_text(uuid: &str) -> String {
    PROMPT_TEMPLATE.replace(PLACEHOLDER, uuid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_the_workflow_id() {
        let text = prompt_text("0f8e4c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b");
        assert!(text.starts_with("## COPY_THIS_TO_CHATGPT"));
        assert!(!text.contains(PLACEHOLDER));
        assert!(text.contains(r#""workflow_id":"0f8e4c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b""#));
    }
}
