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

    /// The extensions section documents every type, selector kind and key the validator knows.
    #[test]
    fn extensions_section_covers_the_validator() {
        use crate::protocol::action::Key;
        use crate::protocol::validate::{
            CHUNKED_ACTION_TYPES, EXTENDED_ACTION_TYPES, EXTENDED_SELECTOR_KINDS,
            OBSERVE_ACTION_TYPES,
        };
        let section = PROMPT_TEMPLATE
            .split("## Extensions (optional)")
            .nth(1)
            .unwrap();
        for name in EXTENDED_ACTION_TYPES
            .iter()
            .chain(OBSERVE_ACTION_TYPES)
            .chain(CHUNKED_ACTION_TYPES)
        {
            assert!(section.contains(&format!("`{name}`")), "{name}");
        }
        for kind in EXTENDED_SELECTOR_KINDS {
            assert!(
                section.contains(&format!(r#""type":"{}""#, kind.as_str())),
                "{kind:?}"
            );
        }
        for key in Key::ALL {
            assert!(section.contains(key.as_str()), "{key:?}");
        }
    }

    /// The worked example, with a real workflow id and nonce, runs through the engine as written:
    /// the ACK the engine writes is the example's, and every example action executes.
    #[test]
    fn extensions_worked_example_runs() {
        use crate::protocol::{Decision, Engine, Message, Role};
        let example = PROMPT_TEMPLATE
            .split("### Worked example (extensions)")
            .nth(1)
            .unwrap();
        let real = |s: &str| {
            s.replace("wf_123", "wf-example-0001")
                .replace("n_7d8f1c", "n_7d8f1c0000000000")
        };
        let handshake = example
            .lines()
            .find(|l| l.contains(r#""kind":"handshake""#))
            .unwrap();
        let ack = example.lines().find(|l| l.starts_with("BAI_ACK ")).unwrap();
        let actions: Vec<&str> = example
            .lines()
            .filter(|l| l.starts_with("BAI_ACTION "))
            .collect();
        let mut engine = Engine::new();
        let mut messages = vec![Message::new(
            Role::Assistant,
            real(&format!("```bai\n{handshake}\n```")),
        )];
        engine.observe(&messages);
        let approved = engine
            .approve("wf-example-0001", "n_7d8f1c0000000000")
            .unwrap();
        assert!(
            matches!(&approved[0], Decision::Ack { line, .. } if *line == real(ack)),
            "{approved:?}"
        );
        messages.push(Message::new(Role::User, real(ack)));
        messages.push(Message::new(Role::Assistant, real(&actions.join("\n"))));
        let decisions = engine.observe(&messages);
        let executed = decisions
            .iter()
            .filter(|d| matches!(d, Decision::Execute { .. }))
            .count();
        assert_eq!(executed, actions.len(), "{decisions:?}");
        assert!(!decisions.iter().any(|d| matches!(d, Decision::Reject(_))));
    }
}
